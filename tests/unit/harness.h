/*
 * harness.h - the smallest unit-test harness that does the job.
 *
 * A test file defines functions `static void test_NAME(void)` and a main()
 * that calls RUN(test_NAME) for each.  Every test prints one line:
 *
 *	PASS name
 *	FAIL name: file:line: expression
 *	SKIP name: reason
 *
 * tests/run.sh counts those lines.  CHECK() records a failure and carries on
 * so one run reports every broken assertion; REQUIRE() returns from the test.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_failed;	/* failures in the current test */
static int harness_skipped;	/* the current test called SKIP() */
static int harness_total_failed;

#define CHECK(cond) do { \
	if (!(cond)) { \
		printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		harness_failed++; \
	} \
} while (0)

#define CHECK_EQ_INT(a, b) do { \
	long long harness_a = (long long)(a), harness_b = (long long)(b); \
	if (harness_a != harness_b) { \
		printf("  %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
		    __LINE__, #a, harness_a, #b, harness_b); \
		harness_failed++; \
	} \
} while (0)

#define CHECK_EQ_STR(a, b) do { \
	const char *harness_a = (a), *harness_b = (b); \
	if (harness_a == NULL || harness_b == NULL || \
	    strcmp(harness_a, harness_b) != 0) { \
		printf("  %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, \
		    __LINE__, #a, harness_a ? harness_a : "(null)", \
		    harness_b ? harness_b : "(null)"); \
		harness_failed++; \
	} \
} while (0)

#define REQUIRE(cond) do { \
	if (!(cond)) { \
		printf("  %s:%d: REQUIRE(%s) failed\n", __FILE__, __LINE__, \
		    #cond); \
		harness_failed++; \
		return; \
	} \
} while (0)

#define SKIP(reason) do { \
	printf("SKIP %s: %s\n", harness_name, (reason)); \
	harness_skipped = 1; \
	return; \
} while (0)

static const char *harness_name;

#define RUN(fn) do { \
	harness_name = #fn + 5; \
	harness_failed = 0; \
	harness_skipped = 0; \
	fn(); \
	if (harness_failed) { \
		printf("FAIL %s\n", harness_name); \
		harness_total_failed++; \
	} else if (!harness_skipped) \
		printf("PASS %s\n", harness_name); \
} while (0)

#define HARNESS_EXIT() return harness_total_failed ? 1 : 0

/*
 * The corpus of real traces lives beside the checkout, in ../shared/corpus.
 * ETL_CORPUS overrides the place.  Returns NULL when it is absent.
 */
static inline const char *
harness_corpus(void)
{
	static char path[4096];
	const char *env = getenv("ETL_CORPUS");

	snprintf(path, sizeof(path), "%s", env ? env : "../shared/corpus");
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	fclose(f);
	return path;
}

/* Reads a whole file into malloc'd memory; NULL if it cannot. */
static inline unsigned char *
harness_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(n ? n : 1)) != NULL) {
		if (fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else
			*len = n;
	}
	fclose(f);
	return buf;
}

#endif
