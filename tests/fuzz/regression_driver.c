/*
 * regression_driver.c - runs a fuzz target without libFuzzer over the
 * files and directories named on its command line, so that the seeds and
 * the inputs that once crashed it (tests/fuzz/regress/NAME/) are replayed
 * by make check with the normal compiler and its sanitizers.
 *
 * Prints one line, "PASS fuzz-regress-NAME: N inputs"; an input that
 * crashes the target ends the run before that line, which the test
 * runner counts as a failure.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static long inputs;

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			if ((data = realloc(data, cap)) == NULL)
				abort();
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	inputs++;
	return 0;
}

static int
run_path(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char sub[4096];
	int rc = 0;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	if ((d = opendir(path)) == NULL) {
		perror(path);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (run_path(sub) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int
main(int argc, char *argv[])
{
	const char *name = argc > 1 ? argv[1] : "fuzz";
	int i, rc = 0;

	/* argv[1] names the target; the rest are inputs. */
	for (i = 2; i < argc; i++)
		if (run_path(argv[i]) != 0)
			rc = 1;
	printf("%s fuzz-regress-%s: %ld inputs\n", rc ? "FAIL" : "PASS", name,
	    inputs);
	return rc;
}
