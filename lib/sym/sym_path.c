/*
 * sym_path.c - the symbol path: parsing, the candidates of a PDB in
 * each element, opening and checking them (sym_path.h).
 *
 * Every candidate is opened and its GUID and age compared: the first
 * that matches wins; a PDB of the right name that does not match, or a
 * file that cannot be read, is remembered so that the user hears why
 * nothing was found.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"
#include "base/value.h"
#include "sym_download.h"
#include "sym_open.h"
#include "sym_path.h"

#define MAX_ELEMENTS	64
#define MAX_MAPS	32

enum elem_kind { ELEM_DIR, ELEM_CACHE, ELEM_SRV };

struct elem {
	enum elem_kind kind;
	char *stores[8];	/* local directories, searched in order */
	int nstores;
	char *url;		/* ELEM_SRV with a server */
	const char *cache;	/* the cache* in force, or NULL */
};

struct sym_path {
	struct elem elems[MAX_ELEMENTS];
	int nelems;
	char *map_from[MAX_MAPS], *map_to[MAX_MAPS];
	int nmaps;
	int verbose;
	const char *prog;
};

static int
is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

static int
ieq_prefix(const char *s, const char *prefix)
{
	for (; *prefix != '\0'; s++, prefix++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
			return 0;
	return 1;
}

/* One element, `s` of `n` bytes. */
static int
parse_element(struct sym_path *sp, const char *s, size_t n,
    const char **cache)
{
	struct elem *e = &sp->elems[sp->nelems];
	const char *p, *star;
	char *part;

	if (n == 0)
		return 0;
	if (sp->nelems == MAX_ELEMENTS)
		return -1;
	memset(e, 0, sizeof(*e));
	if (n > 6 && ieq_prefix(s, "cache*")) {
		e->kind = ELEM_CACHE;
		if ((e->stores[0] = platform_strndup(s + 6, n - 6)) == NULL)
			return -1;
		e->nstores = 1;
		*cache = e->stores[0];
		sp->nelems++;
		return 0;
	}
	if ((n > 4 && ieq_prefix(s, "srv*")) ||
	    (n > 7 && ieq_prefix(s, "symsrv*"))) {
		e->kind = ELEM_SRV;
		p = s + (ieq_prefix(s, "srv*") ? 4 : 7);
		if (ieq_prefix(s, "symsrv*")) {	/* symsrv*DLL*... */
			star = memchr(p, '*', (size_t)(s + n - p));
			p = star != NULL ? star + 1 : s + n;
		}
		while (p < s + n) {
			star = memchr(p, '*', (size_t)(s + n - p));
			if (star == NULL)
				star = s + n;
			if ((part = platform_strndup(p, (size_t)(star - p))) == NULL)
				return -1;
			if (is_url(part)) {
				free(e->url);
				e->url = part;
			} else if (*part != '\0' && e->nstores < 8)
				e->stores[e->nstores++] = part;
			else
				free(part);
			p = star + 1;
		}
		e->cache = *cache;
		sp->nelems++;
		return 0;
	}
	e->kind = ELEM_DIR;
	if ((e->stores[0] = platform_strndup(s, n)) == NULL)
		return -1;
	e->nstores = 1;
	e->cache = *cache;
	sp->nelems++;
	return 0;
}

struct sym_path *
sym_path_new(const char *spec, char *err, size_t errlen)
{
	struct sym_path *sp = calloc(1, sizeof(*sp));
	const char *p = spec, *semi, *cache = NULL;

	if (sp == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while (p != NULL && *p != '\0') {
		semi = strchr(p, ';');
		if (semi == NULL)
			semi = p + strlen(p);
		if (parse_element(sp, p, (size_t)(semi - p), &cache) == -1) {
			snprintf(err, errlen, "symbol path: more than %d "
			    "elements, or out of memory", MAX_ELEMENTS);
			sym_path_free(sp);
			return NULL;
		}
		p = *semi != '\0' ? semi + 1 : semi;
	}
	return sp;
}

void
sym_path_free(struct sym_path *sp)
{
	int i, j;

	if (sp == NULL)
		return;
	for (i = 0; i < sp->nelems; i++) {
		for (j = 0; j < sp->elems[i].nstores; j++)
			free(sp->elems[i].stores[j]);
		free(sp->elems[i].url);
	}
	for (i = 0; i < sp->nmaps; i++) {
		free(sp->map_from[i]);
		free(sp->map_to[i]);
	}
	free(sp);
}

int
sym_path_map(struct sym_path *sp, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (eq == NULL || eq == arg || eq[1] == '\0' || sp->nmaps == MAX_MAPS)
		return -1;
	sp->map_from[sp->nmaps] = platform_strndup(arg, (size_t)(eq - arg));
	sp->map_to[sp->nmaps] = platform_strndup(eq + 1, strlen(eq + 1));
	if (sp->map_from[sp->nmaps] == NULL || sp->map_to[sp->nmaps] == NULL)
		return -1;
	sp->nmaps++;
	return 0;
}

void
sym_path_verbosity(struct sym_path *sp, int level, const char *prog)
{
	sp->verbose = level;
	sp->prog = prog;
}

const char *
sym_safe_name(const char *recorded, char *out, size_t cap)
{
	const char *base = recorded, *p;
	size_t n;

	for (p = recorded; *p != '\0'; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	n = strlen(base);
	if (n == 0 || n >= cap || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0)
		return NULL;
	for (p = base; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == ':' || *p == 0x7f)
			return NULL;
	memcpy(out, base, n + 1);
	return out;
}

/* ---- images by time stamp and size ---- */

/* Reads the CodeView record of an image file (a CAB expanded first). */
static int
image_identity(const char *path, uint32_t timestamp, uint32_t size,
    struct sym_pe *pe)
{
	struct mapped_file m;
	char tmp[4096], msg[256];
	int rc = -1, cab = 0;

	if (platform_map_file(path, &m) != 0)
		return -1;
	if (m.len >= 4 && memcmp(m.data, "MSCF", 4) == 0) {
		size_t len = m.len;

		platform_unmap_file(&m);
		if (sym_uncab(path, len, tmp, sizeof(tmp), msg, sizeof(msg)) != 0)
			return -1;
		cab = 1;
		if (platform_map_file(tmp, &m) != 0) {
			remove(tmp);
			return -1;
		}
	}
	if (sym_pe_read(m.data, m.len, pe, msg, sizeof(msg)) == 0 &&
	    pe->has_codeview && pe->timestamp == timestamp &&
	    pe->size_of_image == size)
		rc = 0;
	platform_unmap_file(&m);
	if (cab)
		remove(tmp);
	return rc;
}

int
sym_path_find_image(struct sym_path *sp, const char *recorded,
    uint32_t timestamp, uint32_t size, struct sym_pe *pe)
{
	char name[1024], key[24], path[4096];
	int i, j;

	if (sym_safe_name(recorded, name, sizeof(name)) == NULL)
		return -1;
	snprintf(key, sizeof(key), "%08X%X", timestamp, size);
	for (i = 0; i < sp->nelems; i++)
		for (j = 0; j < sp->elems[i].nstores; j++) {
			const char *dir = sp->elems[i].stores[j];

			snprintf(path, sizeof(path), "%s/%s", dir, name);
			if (image_identity(path, timestamp, size, pe) == 0)
				return 0;
			snprintf(path, sizeof(path), "%s/%s/%s/%s", dir, name,
			    key, name);
			if (image_identity(path, timestamp, size, pe) == 0)
				return 0;
			path[strlen(path) - 1] = '_';
			if (image_identity(path, timestamp, size, pe) == 0)
				return 0;
		}
	return -1;
}

/* ---- the search ---- */

struct search {
	struct sym_path *sp;
	const unsigned char *guid;
	uint32_t age;
	const char *name;	/* checked: one path component */
	char key[41];
	struct sym_found *out;
	int done;
};

/* Tries one file; @return 1 when found (the search is over). */
static int
try_file(struct search *s, const char *path)
{
	struct sym_found *o = s->out;
	char msg[sizeof(o->message)];
	enum sym_status st;

	msg[0] = '\0';
	st = sym_open_pdb(path, s->guid, s->age, &o->pdb, msg, sizeof(msg));
	if (s->sp->verbose > 1 && s->sp->prog != NULL)
		fprintf(stderr, "%s: %s: %s\n", s->sp->prog, path,
		    st == SYM_FOUND ? "matches" : st == SYM_NOT_FOUND ?
		    "not there" : msg);
	if (st == SYM_NOT_FOUND)
		return 0;
	/* A mismatch says more than a corrupt file, a match all. */
	if (st == SYM_FOUND || st == SYM_MISMATCH ||
	    o->status != SYM_MISMATCH) {
		o->status = st;
		snprintf(o->path, sizeof(o->path), "%s", path);
		snprintf(o->message, sizeof(o->message), "%s", msg);
	}
	return s->done = st == SYM_FOUND;
}

/* Reads the path a file.ptr holds; @return 0, -1 if none. */
static int
read_ptr(const char *path, char *out, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (fp == NULL)
		return -1;
	n = fread(out, 1, cap - 1, fp);
	fclose(fp);
	out[n] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	if (n == 0 || strncmp(out, "MSG:", 4) == 0)
		return -1;
	if (strncmp(out, "PATH:", 5) == 0)
		memmove(out, out + 5, strlen(out + 5) + 1);
	return 0;
}

static int
file_exists(const char *path)
{
	FILE *fp = fopen(path, "rb");

	if (fp == NULL)
		return 0;
	fclose(fp);
	return 1;
}

/* A store or plain directory: the flat name, then the store layout. */
static int
try_dir(struct search *s, const char *dir)
{
	char path[4096], ptr[4096], tier[8];
	size_t n = strlen(s->name), i;
	const char *sep = "/";

	if (dir[0] == '\0' || strlen(dir) > 3000)
		return 0;
	if (dir[strlen(dir) - 1] == '/' || dir[strlen(dir) - 1] == '\\')
		sep = "";
	snprintf(path, sizeof(path), "%s%s%s", dir, sep, s->name);
	if (try_file(s, path))
		return 1;
	tier[0] = '\0';
	snprintf(path, sizeof(path), "%s%sindex2.txt", dir, sep);
	if (file_exists(path) && n > 2)
		snprintf(tier, sizeof(tier), "%.2s/", s->name);
	snprintf(path, sizeof(path), "%s%s%s%s/%s/%s", dir, sep, tier, s->name,
	    s->key, s->name);
	if (try_file(s, path))
		return 1;
	/* name.pd_: the last character of the name replaced by `_`. */
	i = strlen(path);
	path[i - 1] = '_';
	if (try_file(s, path))
		return 1;
	snprintf(path, sizeof(path), "%s%s%s%s/%s/file.ptr", dir, sep, tier,
	    s->name, s->key);
	if (read_ptr(path, ptr, sizeof(ptr)) == 0 && try_file(s, ptr))
		return 1;
	return 0;
}

/*
 * The recorded path rewritten by a --map-path: FROM is compared
 * without case and with either separator; what follows must not climb.
 */
static int
try_mapped(struct search *s, const char *recorded)
{
	char path[4096];
	const char *rest, *p;
	size_t n;
	int i;

	for (i = 0; i < s->sp->nmaps; i++) {
		const char *from = s->sp->map_from[i];

		n = strlen(from);
		if (strlen(recorded) < n)
			continue;
		for (p = recorded; p < recorded + n; p++, from++)
			if (tolower((unsigned char)*p) !=
			    tolower((unsigned char)*from) &&
			    !((*p == '/' || *p == '\\') &&
			    (*from == '/' || *from == '\\')))
				break;
		if (p < recorded + n)
			continue;
		rest = recorded + n;
		if (strstr(rest, "..") != NULL || strchr(rest, ':') != NULL)
			continue;
		while (*rest == '/' || *rest == '\\')
			rest++;
		snprintf(path, sizeof(path), "%s/%s", s->sp->map_to[i], rest);
		for (p = path + strlen(s->sp->map_to[i]); *p != '\0'; p++)
			if (*p == '\\')
				path[p - path] = '/';
		if (try_file(s, path))
			return 1;
	}
	return 0;
}

/* Downloads into the element's first store (or its cache*). */
static int
try_server(struct search *s, const struct elem *e)
{
	const char *store = e->nstores > 0 ? e->stores[0] : e->cache;
	char msg[sizeof(s->out->message)], path[4096];
	enum sym_status st;
	struct pdb *p = NULL;

	msg[0] = '\0';
	st = sym_download(e->url, store, s->name, s->key, s->guid, s->age,
	    s->sp->verbose, s->sp->prog, &p, path, sizeof(path), msg,
	    sizeof(msg));
	if (st == SYM_NOT_FOUND)
		return 0;
	if (st == SYM_FOUND || st == SYM_MISMATCH ||
	    s->out->status != SYM_MISMATCH) {
		s->out->status = st;
		s->out->pdb = p;
		snprintf(s->out->path, sizeof(s->out->path), "%s", path);
		snprintf(s->out->message, sizeof(s->out->message), "%s", msg);
	}
	return s->done = st == SYM_FOUND;
}

int
sym_path_find(struct sym_path *sp, const char *recorded,
    const unsigned char guid[16], uint32_t age, const char *beside,
    struct sym_found *out)
{
	struct search s;
	char name[1024];
	int i, j;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.sp = sp;
	s.guid = guid;
	s.age = age;
	s.out = out;
	if ((s.name = sym_safe_name(recorded, name, sizeof(name))) == NULL) {
		snprintf(out->message, sizeof(out->message), "unsafe PDB name "
		    "\"%.200s\"", recorded);
		out->status = SYM_NOT_FOUND;
		return 0;
	}
	value_format_pdb_key(guid, age, s.key);
	if (beside != NULL && try_dir(&s, beside))
		return 0;
	if (try_mapped(&s, recorded))
		return 0;
	for (i = 0; i < sp->nelems && !s.done; i++) {
		const struct elem *e = &sp->elems[i];

		for (j = 0; j < e->nstores && !s.done; j++)
			try_dir(&s, e->stores[j]);
		if (!s.done && e->kind == ELEM_SRV && e->url != NULL)
			try_server(&s, e);
	}
	return 0;
}
