/*
 * sym_download.c - a PDB from a symbol server (sym_download.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"
#include "sym_download.h"
#include "sym_http.h"

/*
 * GETs url into `dest`.  @return : the HTTP status (200 done), 0 for a
 * transfer error (said in msg).
 */
static long
fetch(const char *url, const char *dest, const struct sym_http_opts *o,
    char *msg, size_t msglen)
{
	long status;
	FILE *fp;

	if ((fp = fopen(dest, "wb")) == NULL) {
		snprintf(msg, msglen, "%s: cannot write", dest);
		return 0;
	}
	status = sym_http_get(url, fp, o, msg, msglen);
	if (fclose(fp) != 0 && status == 200) {
		snprintf(msg, msglen, "%s: cannot write", dest);
		return 0;
	}
	return status;
}

/* STORE/name/KEY made as needed; @return 0, -1. */
static int
make_dirs(const char *store, const char *name, const char *key, char *dir,
    size_t cap)
{
	if (platform_mkdir(store) != 0)
		return -1;
	snprintf(dir, cap, "%s/%s", store, name);
	if (platform_mkdir(dir) != 0)
		return -1;
	snprintf(dir, cap, "%s/%s/%s", store, name, key);
	return platform_mkdir(dir);
}

enum sym_status
sym_download(const char *url, const char *store, const char *name,
    const char *key, const unsigned char guid[16], uint32_t age,
    int verbose, const char *prog, struct pdb **pdb, char *path,
    size_t pathcap, char *msg, size_t msglen)
{
	char dir[4096], part[4300], full[4200], file[1100], u[4400];
	enum sym_status st = SYM_NOT_FOUND;
	struct sym_http_opts o;
	const char *slash;
	int compressed;
	long status;
	FILE *fp;

	*pdb = NULL;
	slash = url[strlen(url) - 1] == '/' ? "" : "/";
	if (store != NULL && make_dirs(store, name, key, dir, sizeof(dir))
	    != 0) {
		snprintf(msg, msglen, "%s: cannot make the store directory",
		    store);
		return SYM_CORRUPT;
	}
	for (compressed = 0; compressed < 2; compressed++) {
		snprintf(file, sizeof(file), "%s", name);
		if (compressed)
			file[strlen(file) - 1] = '_';
		snprintf(u, sizeof(u), "%s%s%s/%s/%s", url, slash, name, key,
		    file);
		if (store != NULL) {
			snprintf(full, sizeof(full), "%s/%s", dir, file);
			snprintf(part, sizeof(part), "%s.part", full);
		} else if ((fp = platform_temp_file(part, sizeof(part))) ==
		    NULL) {
			snprintf(msg, msglen, "cannot create a temporary file");
			return SYM_CORRUPT;
		} else
			fclose(fp);
		o.progress = verbose >= 0 && platform_is_terminal(stderr);
		o.prog = prog;
		o.name = file;
		status = fetch(u, part, &o, msg, msglen);
		if (status == 404 || status == 403 || status == 410) {
			remove(part);
			msg[0] = '\0';
			continue;
		}
		snprintf(path, pathcap, "%s", u);
		if (status != 200) {
			remove(part);
			return SYM_CORRUPT;
		}
		st = sym_open_pdb(part, guid, age, pdb, msg, msglen);
		if (st == SYM_NOT_FOUND)
			st = SYM_CORRUPT;
		if (st != SYM_FOUND || store == NULL) {
			remove(part);
			return st;
		}
		if (rename(part, full) != 0) {
			remove(part);
			snprintf(msg, msglen, "%s: cannot rename into place",
			    full);
		} else
			snprintf(path, pathcap, "%s", full);
		return SYM_FOUND;
	}
	return st;
}
