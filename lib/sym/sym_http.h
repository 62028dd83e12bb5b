/*
 * sym_http.h - one HTTP or HTTPS GET into a file, for the downloads of
 * sym_download.c: through libcurl on POSIX systems, through WinHTTP on
 * Windows.  WinHTTP is part of Windows (and of wine), so etlsym.exe needs
 * no DLL of its own, no certificate bundle (Windows' store verifies the
 * servers) and the system's proxy settings apply, as for symchk and
 * WinDbg.
 *
 * Both keep the same limits: redirects only within the URL's own scheme
 * (at most SYM_HTTP_REDIRECTS), SYM_DOWNLOAD_MAX bytes, SYM_DOWNLOAD_TIMEOUT
 * seconds in all and 20 seconds to connect.
 */
#ifndef SYM_HTTP_H
#define SYM_HTTP_H

#include <stddef.h>
#include <stdio.h>

#define SYM_HTTP_REDIRECTS	5
#define SYM_DOWNLOAD_MAX	(4ULL << 30)
#define SYM_DOWNLOAD_TIMEOUT	120L

struct sym_http_opts {
	int progress;		/* draw a progress line on stderr */
	const char *prog;	/* the program's name, for that line */
	const char *name;	/* the file's name, for that line */
};

/*
 * GETs `url`, writing the body to fp (which the caller closes).
 * @return : the HTTP status of the last response (200: all of the body
 *	was written), or 0 for a transfer error, a redirect to another
 *	scheme or a body past the limit, said in msg with the URL.  msg is
 *	also set for a status other than 200.
 */
long sym_http_get(const char *url, FILE *fp, const struct sym_http_opts *o,
    char *msg, size_t msglen);

#endif
