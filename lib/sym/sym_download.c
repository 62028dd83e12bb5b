/*
 * sym_download.c - a PDB from a symbol server (sym_download.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "base/platform.h"
#include "sym_download.h"

struct sink {
	FILE *fp;
	uint64_t got;
	int too_big;
	int progress;		/* draw a progress line */
	const char *prog, *name;
};

static size_t
write_body(char *data, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;

	if (s->got + size * n > SYM_DOWNLOAD_MAX) {
		s->too_big = 1;
		return 0;
	}
	s->got += size * n;
	return fwrite(data, size, n, s->fp) == n ? size * n : 0;
}

static int
progress(void *ctx, curl_off_t total, curl_off_t now, curl_off_t ut,
    curl_off_t un)
{
	struct sink *s = ctx;

	if (s->progress)
		fprintf(stderr, "\r%s: downloading %s: %.1f of %.1f MB ",
		    s->prog, s->name, now / 1e6, total / 1e6);
	return 0;
}

/*
 * GETs url into `dest`.  @return : the HTTP status (200 done), 0 for a
 * transfer error (said in msg).
 */
static long
fetch(const char *url, const char *dest, struct sink *s, char *msg,
    size_t msglen)
{
	const char *scheme = strncmp(url, "https:", 6) == 0 ? "https" : "http";
	char errbuf[CURL_ERROR_SIZE] = "";
	long status = 0;
	CURLcode rc;
	CURL *c;

	if ((s->fp = fopen(dest, "wb")) == NULL) {
		snprintf(msg, msglen, "%s: cannot write", dest);
		return 0;
	}
	if ((c = curl_easy_init()) == NULL) {
		fclose(s->fp);
		snprintf(msg, msglen, "cannot start libcurl");
		return 0;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, scheme);
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, scheme);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, SYM_DOWNLOAD_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)SYM_DOWNLOAD_MAX);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, s->progress ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "Microsoft-Symbol-Server/10.0 "
	    "(etlsym)");
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (fclose(s->fp) != 0 && rc == CURLE_OK)
		rc = CURLE_WRITE_ERROR;
	if (s->progress)
		fprintf(stderr, "\r%*s\r", 70, "");
	if (rc != CURLE_OK) {
		snprintf(msg, msglen, "%s: %s", url, s->too_big ?
		    "download larger than the limit" : errbuf[0] ? errbuf :
		    curl_easy_strerror(rc));
		return 0;
	}
	if (status != 200)
		snprintf(msg, msglen, "%s: HTTP status %ld", url, status);
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
	static int curl_ready;
	char dir[4096], part[4300], full[4200], file[1100], u[4400];
	enum sym_status st = SYM_NOT_FOUND;
	struct sink s;
	const char *slash;
	int compressed;
	long status;
	FILE *fp;

	*pdb = NULL;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
			snprintf(msg, msglen, "cannot start libcurl");
			return SYM_CORRUPT;
		}
		curl_ready = 1;
	}
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
		memset(&s, 0, sizeof(s));
		s.progress = verbose >= 0 && platform_is_terminal(stderr);
		s.prog = prog;
		s.name = file;
		status = fetch(u, part, &s, msg, msglen);
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
