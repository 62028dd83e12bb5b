/*
 * sym_http.c - one GET into a file (sym_http.h): libcurl on POSIX
 * systems, WinHTTP on Windows.  The two halves keep the same limits and
 * say their failures the same way, "URL: what went wrong".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym_http.h"

static void
draw_progress(const struct sym_http_opts *o, double now, double total)
{
	if (o->progress)
		fprintf(stderr, "\r%s: downloading %s: %.1f of %.1f MB ",
		    o->prog, o->name, now / 1e6, total / 1e6);
}

static void
clear_progress(const struct sym_http_opts *o)
{
	if (o->progress)
		fprintf(stderr, "\r%*s\r", 70, "");
}

#ifndef _WIN32

#include <curl/curl.h>

struct sink {
	FILE *fp;
	uint64_t got;
	int too_big;
	const struct sym_http_opts *o;
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

	draw_progress(s->o, (double)now, (double)total);
	return 0;
}

long
sym_http_get(const char *url, FILE *fp, const struct sym_http_opts *o,
    char *msg, size_t msglen)
{
	static int curl_ready;
	const char *scheme = strncmp(url, "https:", 6) == 0 ? "https" : "http";
	char errbuf[CURL_ERROR_SIZE] = "";
	struct sink s = { fp, 0, 0, o };
	long status = 0;
	CURLcode rc;
	CURL *c;

	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
			snprintf(msg, msglen, "cannot start libcurl");
			return 0;
		}
		curl_ready = 1;
	}
	if ((c = curl_easy_init()) == NULL) {
		snprintf(msg, msglen, "cannot start libcurl");
		return 0;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, scheme);
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, scheme);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, (long)SYM_HTTP_REDIRECTS);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, SYM_DOWNLOAD_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)SYM_DOWNLOAD_MAX);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &s);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, o->progress ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "Microsoft-Symbol-Server/10.0 "
	    "(etlsym)");
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	clear_progress(o);
	if (rc != CURLE_OK) {
		snprintf(msg, msglen, "%s: %s", url, s.too_big ?
		    "download larger than the limit" : errbuf[0] ? errbuf :
		    curl_easy_strerror(rc));
		return 0;
	}
	if (status != 200)
		snprintf(msg, msglen, "%s: HTTP status %ld", url, status);
	return status;
}

#else /* _WIN32 */

#include <wchar.h>
#include <windows.h>
#include <winhttp.h>

/* One request of the chain of redirects. */
struct req {
	HINTERNET connect, request;
	wchar_t *origin;	/* "scheme://host:port" of its URL */
};

static wchar_t *
widen(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0 || (w = malloc((size_t)n * sizeof(*w))) == NULL)
		return NULL;
	MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
	return w;
}

/* "URL: WinHTTP's text of err". */
static void
say_error(char *msg, size_t msglen, const char *url, DWORD err)
{
	char text[256] = "";
	size_t n;

	if (err == ERROR_WINHTTP_TIMEOUT)
		snprintf(text, sizeof(text), "timed out");
	else
		FormatMessageA(FORMAT_MESSAGE_FROM_HMODULE |
		    FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
		    GetModuleHandleA("winhttp.dll"), err, 0, text,
		    sizeof(text), NULL);
	n = strlen(text);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
	    text[n - 1] == ' ' || text[n - 1] == '.'))
		text[--n] = '\0';
	snprintf(msg, msglen, "%s: %s (WinHTTP error %lu)", url,
	    n > 0 ? text : "transfer failed", (unsigned long)err);
}

static void
req_close(struct req *r)
{
	if (r->request != NULL)
		WinHttpCloseHandle(r->request);
	if (r->connect != NULL)
		WinHttpCloseHandle(r->connect);
	free(r->origin);
	memset(r, 0, sizeof(*r));
}

/*
 * Sends a GET for wurl and waits for the response's headers.
 * @return : 0, or the Windows error.
 */
static DWORD
req_send(HINTERNET session, const wchar_t *wurl, struct req *r)
{
	size_t len = wcslen(wurl) + 1;
	URL_COMPONENTS uc;
	wchar_t *host = malloc(len * sizeof(*host));
	wchar_t *path = malloc(len * sizeof(*path));
	DWORD err = 0;

	memset(r, 0, sizeof(*r));
	memset(&uc, 0, sizeof(uc));
	uc.dwStructSize = sizeof(uc);
	uc.lpszHostName = host;
	uc.dwHostNameLength = (DWORD)len;
	uc.lpszUrlPath = path;
	uc.dwUrlPathLength = (DWORD)len;
	uc.dwExtraInfoLength = (DWORD)-1;	/* the query stays in the path */
	if (host == NULL || path == NULL)
		err = ERROR_NOT_ENOUGH_MEMORY;
	else if (!WinHttpCrackUrl(wurl, 0, 0, &uc))
		err = GetLastError();
	else if ((r->origin = malloc((len + 16) * sizeof(wchar_t))) == NULL)
		err = ERROR_NOT_ENOUGH_MEMORY;
	if (err == 0) {
		swprintf(r->origin, len + 16, L"%ls://%ls:%u",
		    uc.nScheme == INTERNET_SCHEME_HTTPS ? L"https" : L"http",
		    host, (unsigned)uc.nPort);
		if ((r->connect = WinHttpConnect(session, host, uc.nPort, 0))
		    == NULL || (r->request = WinHttpOpenRequest(r->connect,
		    L"GET", path, NULL, WINHTTP_NO_REFERER,
		    WINHTTP_DEFAULT_ACCEPT_TYPES, uc.nScheme ==
		    INTERNET_SCHEME_HTTPS ? WINHTTP_FLAG_SECURE : 0)) == NULL ||
		    !WinHttpSendRequest(r->request,
		    WINHTTP_NO_ADDITIONAL_HEADERS, 0, WINHTTP_NO_REQUEST_DATA,
		    0, 0, 0) || !WinHttpReceiveResponse(r->request, NULL))
			err = GetLastError();
	}
	free(host);
	free(path);
	return err;
}

/* A header of the response as text, or NULL (to free). */
static wchar_t *
header(HINTERNET request, DWORD which)
{
	DWORD size = 0;
	wchar_t *w;

	WinHttpQueryHeaders(request, which, WINHTTP_HEADER_NAME_BY_INDEX,
	    NULL, &size, WINHTTP_NO_HEADER_INDEX);
	if (size == 0 || (w = malloc(size + sizeof(*w))) == NULL)
		return NULL;
	if (!WinHttpQueryHeaders(request, which, WINHTTP_HEADER_NAME_BY_INDEX,
	    w, &size, WINHTTP_NO_HEADER_INDEX)) {
		free(w);
		return NULL;
	}
	return w;
}

static long
status_of(HINTERNET request)
{
	wchar_t *w = header(request, WINHTTP_QUERY_STATUS_CODE);
	long status = w != NULL ? wcstol(w, NULL, 10) : 0;

	free(w);
	return status;
}

/*
 * The URL a redirect names, made absolute; NULL (said in msg) when it
 * names none or leaves the scheme of `r`, as libcurl refuses it too.
 */
static wchar_t *
redirect_target(const struct req *r, const char *url, char *msg,
    size_t msglen)
{
	wchar_t *loc = header(r->request, WINHTTP_QUERY_LOCATION), *abs;
	size_t olen = wcscspn(r->origin, L":");
	size_t n;

	if (loc == NULL) {
		snprintf(msg, msglen, "%s: a redirect without a location", url);
		return NULL;
	}
	if (loc[0] == L'/') {		/* a path on the same server */
		n = wcslen(r->origin) + wcslen(loc) + 1;
		if ((abs = malloc(n * sizeof(*abs))) != NULL)
			swprintf(abs, n, L"%ls%ls", r->origin, loc);
		free(loc);
		return abs;
	}
	if (_wcsnicmp(loc, r->origin, olen + 3) != 0) {
		snprintf(msg, msglen, "%s: a redirect to another scheme, not "
		    "followed", url);
		free(loc);
		return NULL;
	}
	return loc;
}

/* Copies the body to fp.  @return : 0, or -1 with msg set. */
static int
copy_body(HINTERNET request, FILE *fp, const struct sym_http_opts *o,
    ULONGLONG deadline, const char *url, char *msg, size_t msglen)
{
	wchar_t *length = header(request, WINHTTP_QUERY_CONTENT_LENGTH);
	double total = length != NULL ? wcstod(length, NULL) : 0;
	unsigned char buf[65536];
	uint64_t got = 0;
	DWORD n;

	free(length);
	if (total > (double)SYM_DOWNLOAD_MAX) {
		snprintf(msg, msglen, "%s: download larger than the limit", url);
		return -1;
	}
	for (;;) {
		if (!WinHttpReadData(request, buf, sizeof(buf), &n)) {
			say_error(msg, msglen, url, GetLastError());
			return -1;
		}
		if (n == 0)
			return 0;
		if (got + n > SYM_DOWNLOAD_MAX) {
			snprintf(msg, msglen, "%s: download larger than the "
			    "limit", url);
			return -1;
		}
		if (fwrite(buf, 1, n, fp) != n) {
			snprintf(msg, msglen, "%s: cannot write the download",
			    url);
			return -1;
		}
		got += n;
		draw_progress(o, (double)got, total);
		if (GetTickCount64() > deadline) {
			say_error(msg, msglen, url, ERROR_WINHTTP_TIMEOUT);
			return -1;
		}
	}
}

static int
is_redirect(long status)
{
	return status == 301 || status == 302 || status == 303 ||
	    status == 307 || status == 308;
}

/*
 * Follows the redirects from wurl; the last response stays in *r (the
 * caller closes it).  @return : its status, or 0 with msg set.
 */
static long
follow(HINTERNET session, const wchar_t *wurl, struct req *r,
    const char *url, char *msg, size_t msglen)
{
	const wchar_t *cur = wurl;
	wchar_t *owned = NULL;		/* the URL a redirect gave */
	long status = 0;
	DWORD err;
	int hops;

	for (hops = 0;; hops++) {
		if ((err = req_send(session, cur, r)) != 0) {
			say_error(msg, msglen, url, err);
			status = 0;
			break;
		}
		if (!is_redirect(status = status_of(r->request)))
			break;
		if (hops == SYM_HTTP_REDIRECTS) {
			snprintf(msg, msglen, "%s: more than %d redirects",
			    url, SYM_HTTP_REDIRECTS);
			status = 0;
			break;
		}
		free(owned);
		owned = redirect_target(r, url, msg, msglen);
		req_close(r);
		if ((cur = owned) == NULL) {
			status = 0;
			break;
		}
	}
	free(owned);
	return status;
}

long
sym_http_get(const char *url, FILE *fp, const struct sym_http_opts *o,
    char *msg, size_t msglen)
{
	ULONGLONG deadline = GetTickCount64() + SYM_DOWNLOAD_TIMEOUT * 1000;
	DWORD never = WINHTTP_OPTION_REDIRECT_POLICY_NEVER;
	wchar_t *wurl = widen(url);
	struct req r = { 0 };
	HINTERNET session;
	long status = 0;

	if (wurl == NULL) {
		snprintf(msg, msglen, "out of memory");
		return 0;
	}
	session = WinHttpOpen(L"Microsoft-Symbol-Server/10.0 (etlsym)",
	    WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME,
	    WINHTTP_NO_PROXY_BYPASS, 0);
	if (session == NULL) {
		say_error(msg, msglen, url, GetLastError());
		free(wurl);
		return 0;
	}
	/* Redirects are followed here, so that the scheme is kept. */
	WinHttpSetOption(session, WINHTTP_OPTION_REDIRECT_POLICY, &never,
	    sizeof(never));
	WinHttpSetTimeouts(session, 20000, 20000, SYM_DOWNLOAD_TIMEOUT * 1000,
	    SYM_DOWNLOAD_TIMEOUT * 1000);
	status = follow(session, wurl, &r, url, msg, msglen);
	if (status == 200 && copy_body(r.request, fp, o, deadline, url, msg,
	    msglen) != 0)
		status = 0;
	else if (status != 200 && status != 0)
		snprintf(msg, msglen, "%s: HTTP status %ld", url, status);
	clear_progress(o);
	req_close(&r);
	WinHttpCloseHandle(session);
	free(wurl);
	return status;
}

#endif /* _WIN32 */
