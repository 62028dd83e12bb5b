/*
 * memstacks.c - allocation stacks named and summed for the memory views.
 *
 * Keys are interned per section as (root, pseudo frame, process
 * definition, stack id); at the end of the section each is made a path
 * of frame-name ids, and the names of (definition, address) pairs are
 * kept for the section, naming being the costly part.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "base/intern.h"
#include "memstacks.h"
#include "proclabel.h"

#define FRAMES_CAP	4096
#define NAME_MAX_LEN	1024

struct mkey {
	uint32_t root, pseudo;		/* name ids; pseudo 0: none */
	stream_id def, stack;
	uint32_t inst;			/* in labels; 0: rooted at root */
	uint32_t pad;
};

/* What a function or module totals, and the last path that counted it. */
struct mtotal {
	struct memw w;
	uint32_t module, stamp;
};

struct memstacks {
	struct frames *frames;
	int instances;			/* paths rooted at instances */
	struct proclabels labels;	/* the section's instances */
	struct intern names;		/* frame names -> id */
	struct intern keys;		/* struct mkey -> key */
	struct memw *key_w;
	size_t key_cap;
	struct intern sites;		/* (def, addr) -> site */
	uint32_t *site_name;
	size_t site_cap;
	struct intern paths;		/* name ids -> path */
	struct memw *path_w;
	size_t path_cap;
	struct intern modules;
	struct mtotal *tot;		/* by name or module id */
	size_t tot_cap;
	uint64_t undefined;
	/* Rows handed out. */
	struct buf text;
	const char **row_key, **row_mod;
	size_t *row_keylen, *row_modlen;
	const struct memw **row_w;
	size_t *row_off;
	/* Scratch. */
	uint64_t frames_buf[FRAMES_CAP];
	uint32_t path_buf[FRAMES_CAP + 4];
	char name_buf[NAME_MAX_LEN];
};

struct memstacks *
memstacks_new(unsigned frames_flags)
{
	struct memstacks *ms = calloc(1, sizeof(*ms));

	if (ms == NULL)
		return NULL;
	if ((ms->frames = frames_new(frames_flags)) == NULL) {
		free(ms);
		return NULL;
	}
	return ms;
}

static void
free_rows(struct memstacks *ms)
{
	free(ms->row_key);
	free(ms->row_mod);
	free(ms->row_keylen);
	free(ms->row_modlen);
	free(ms->row_w);
	free(ms->row_off);
	ms->row_key = ms->row_mod = NULL;
	ms->row_keylen = ms->row_modlen = ms->row_off = NULL;
	ms->row_w = NULL;
}

void
memstacks_free(struct memstacks *ms)
{
	if (ms == NULL)
		return;
	frames_free(ms->frames);
	proclabels_release(&ms->labels);
	intern_release(&ms->names);
	intern_release(&ms->keys);
	intern_release(&ms->sites);
	intern_release(&ms->paths);
	intern_release(&ms->modules);
	free(ms->key_w);
	free(ms->site_name);
	free(ms->path_w);
	free(ms->tot);
	buf_release(&ms->text);
	free_rows(ms);
	free(ms);
}

void
memstacks_root_instances(struct memstacks *ms)
{
	ms->instances = 1;
}

int
memstacks_record(struct memstacks *ms, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (ms->instances && proclabels_record(&ms->labels, rec) != 0)
		return -1;
	return frames_record(ms->frames, r, rec);
}

/* The id of a name, with ';' (the path separator) made '_'. */
static uint32_t
name_id(struct memstacks *ms, const char *name, size_t len)
{
	char *p;

	if (len >= sizeof(ms->name_buf))
		len = sizeof(ms->name_buf) - 1;
	memcpy(ms->name_buf, name, len);
	for (p = ms->name_buf; p < ms->name_buf + len; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = '_';
	return intern_add(&ms->names, ms->name_buf, len, NULL);
}

uint32_t
memstacks_key(struct memstacks *ms, const char *root, size_t rootlen,
    const struct stream_process *def, stream_id stack, const char *pseudo)
{
	struct mkey k;

	memset(&k, 0, sizeof(k));
	k.def = def != NULL ? def->id : 0;
	k.stack = stack;
	/* Its label is asked for when the section ends, all defined. */
	if (ms->instances && def != NULL &&
	    (k.inst = proclabels_add_def(&ms->labels, def, 0, 0, NULL)) == 0)
		return 0;
	if ((k.root = name_id(ms, root, rootlen)) == 0)
		return 0;
	if (pseudo != NULL && (k.pseudo = name_id(ms, pseudo,
	    strlen(pseudo))) == 0)
		return 0;
	return intern_add(&ms->keys, &k, sizeof(k), NULL);
}

struct memw *
memstacks_weight(struct memstacks *ms, uint32_t key)
{
	return array_slot(&ms->key_w, &ms->key_cap, key, sizeof(struct memw));
}

static uint32_t
frame_id(struct memstacks *ms, stream_id def, uint64_t addr)
{
	uint64_t site[2] = { def, addr };
	char name[NAME_MAX_LEN];
	uint32_t id, *slot;
	size_t len;

	if ((id = intern_add(&ms->sites, site, sizeof(site), NULL)) == 0 ||
	    (slot = array_slot(&ms->site_name, &ms->site_cap, id,
	    sizeof(*slot))) == NULL)
		return 0;
	if (*slot == 0) {
		len = frames_name(ms->frames, def, addr, name, sizeof(name));
		*slot = name_id(ms, name, len < sizeof(name) ? len :
		    sizeof(name) - 1);
	}
	return *slot;
}

static void
add_w(struct memw *to, const struct memw *from)
{
	int i;

	for (i = 0; i < MEMW_MAX; i++)
		memw_add(&to->v[i], (uint64_t)from->v[i]);
}

static int
zero_w(const struct memw *w)
{
	int i;

	for (i = 0; i < MEMW_MAX; i++)
		if (w->v[i] != 0)
			return 0;
	return 1;
}

static int
resolve_key(struct memstacks *ms, const struct stream_reader *r,
    const struct mkey *k, const struct memw *w)
{
	long nframes = 0, i;
	size_t n = 0;
	struct memw *pw;
	uint32_t id;

	if (k->inst != 0) {
		const char *label;
		size_t len;

		label = proclabels_get(&ms->labels, k->inst, &len);
		ms->path_buf[n++] = name_id(ms, label, len);
	} else
		ms->path_buf[n++] = k->root;
	if (k->pseudo != 0)
		ms->path_buf[n++] = k->pseudo;
	if (k->stack == 0) {
		if (k->pseudo == 0)
			ms->path_buf[n++] = name_id(ms, FRAMES_NO_STACK,
			    strlen(FRAMES_NO_STACK));
	} else if (r == NULL || stream_stack_undefined(r, k->stack) ||
	    (nframes = stream_stack_frames(r, k->stack, ms->frames_buf,
	    FRAMES_CAP)) < 0) {
		ms->path_buf[n++] = name_id(ms, FRAMES_UNDEFINED,
		    strlen(FRAMES_UNDEFINED));
		ms->undefined++;
		nframes = 0;
	}
	for (i = nframes - 1; i >= 0; i--)
		ms->path_buf[n++] = frame_id(ms, k->def, ms->frames_buf[i]);
	for (i = 0; i < (long)n; i++)
		if (ms->path_buf[i] == 0)
			return -1;
	if ((id = intern_add(&ms->paths, ms->path_buf, n * sizeof(uint32_t),
	    NULL)) == 0 || (pw = array_slot(&ms->path_w, &ms->path_cap, id,
	    sizeof(*pw))) == NULL)
		return -1;
	add_w(pw, w);
	return 0;
}

int
memstacks_end_section(struct memstacks *ms, const struct stream_reader *r)
{
	struct mkey k;
	const void *stored;
	uint32_t id;
	size_t len;

	for (id = 1; id <= ms->keys.count; id++) {
		if (id >= ms->key_cap || zero_w(&ms->key_w[id]))
			continue;
		stored = intern_key(&ms->keys, id, &len);
		memcpy(&k, stored, sizeof(k));
		if (resolve_key(ms, r, &k, &ms->key_w[id]) != 0)
			return -1;
	}
	intern_clear(&ms->keys);
	intern_clear(&ms->sites);
	if (ms->key_w != NULL)
		memset(ms->key_w, 0, ms->key_cap * sizeof(*ms->key_w));
	if (ms->site_name != NULL)
		memset(ms->site_name, 0, ms->site_cap * sizeof(*ms->site_name));
	return 0;
}

void
memstacks_reset(struct memstacks *ms)
{
	if (ms->key_w != NULL)
		memset(ms->key_w, 0, ms->key_cap * sizeof(*ms->key_w));
	if (ms->path_w != NULL)
		memset(ms->path_w, 0, ms->path_cap * sizeof(*ms->path_w));
}

uint64_t
memstacks_undefined(const struct memstacks *ms)
{
	return ms->undefined;
}

/* ---- rows ---- */

static uint32_t
module_of(struct memstacks *ms, uint32_t fid, struct mtotal *f)
{
	const char *name;
	size_t len, mlen;

	if (f->module != 0)
		return f->module;
	name = intern_key(&ms->names, fid, &len);
	if ((mlen = frames_module_len(name, len)) == 0) {
		name = "unknown";
		mlen = strlen(name);
	}
	return f->module = intern_add(&ms->modules, name, mlen, NULL);
}

/* Adds each path's weights to its frames or modules, once a path. */
static int
totals(struct memstacks *ms, enum memstacks_by by)
{
	const uint32_t *ids;
	const char *name;
	struct mtotal *f, *m;
	size_t len, n, i;
	uint32_t path, mid;

	free(ms->tot);
	ms->tot = NULL;
	ms->tot_cap = 0;
	for (path = 1; path <= ms->paths.count; path++) {
		ids = intern_key(&ms->paths, path, &len);
		n = len / sizeof(*ids);
		for (i = 1; i < n; i++) {
			name = intern_key(&ms->names, ids[i], &len);
			if (frames_is_pseudo(name, len))
				continue;
			/* Modules are counted in the same table, past names. */
			if ((f = array_slot(&ms->tot, &ms->tot_cap, ids[i],
			    sizeof(*f))) == NULL ||
			    (mid = module_of(ms, ids[i], f)) == 0)
				return -1;
			if (by == MS_BY_MODULE) {
				if ((m = array_slot(&ms->tot, &ms->tot_cap,
				    ms->names.count + 1 + mid, sizeof(*m))) ==
				    NULL)
					return -1;
				f = m;
			}
			if (f->stamp == path)
				continue;
			f->stamp = path;
			add_w(&f->w, &ms->path_w[path]);
		}
	}
	return 0;
}

static int
grow_rows(struct memstacks *ms, size_t n)
{
	free_rows(ms);
	n = n ? n : 1;
	ms->row_key = calloc(n, sizeof(*ms->row_key));
	ms->row_mod = calloc(n, sizeof(*ms->row_mod));
	ms->row_keylen = calloc(n, sizeof(*ms->row_keylen));
	ms->row_modlen = calloc(n, sizeof(*ms->row_modlen));
	ms->row_w = calloc(n, sizeof(*ms->row_w));
	ms->row_off = calloc(n, sizeof(*ms->row_off));
	return ms->row_key && ms->row_mod && ms->row_keylen &&
	    ms->row_modlen && ms->row_w && ms->row_off ? 0 : -1;
}

static void
put_path(struct memstacks *ms, uint32_t path)
{
	size_t len, n, i;
	const uint32_t *ids = intern_key(&ms->paths, path, &len);
	const char *name;

	n = len / sizeof(*ids);
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_put(&ms->text, ";", 1);
		name = intern_key(&ms->names, ids[i], &len);
		buf_put(&ms->text, name, len);
	}
}

int
memstacks_rows(struct memstacks *ms, enum memstacks_by by,
    struct memstacks_rows *rows)
{
	size_t n = 0, i, len;
	uint32_t id, count;

	ms->text.len = 0;
	if (by == MS_BY_STACK) {
		if (grow_rows(ms, ms->paths.count) != 0)
			return -1;
		for (id = 1; id <= ms->paths.count; id++) {
			if (zero_w(&ms->path_w[id]))
				continue;
			ms->row_off[n] = ms->text.len;
			put_path(ms, id);
			ms->row_keylen[n] = ms->text.len - ms->row_off[n];
			ms->row_w[n++] = &ms->path_w[id];
		}
	} else {
		if (totals(ms, by) != 0)
			return -1;
		count = by == MS_BY_FUNCTION ? ms->names.count :
		    ms->modules.count;
		if (grow_rows(ms, count) != 0)
			return -1;
		for (id = 1; id <= count; id++) {
			size_t at = by == MS_BY_FUNCTION ? id :
			    ms->names.count + 1 + id;
			const struct mtotal *t;
			const char *s;

			if (at >= ms->tot_cap || ms->tot[at].stamp == 0)
				continue;
			t = &ms->tot[at];
			s = intern_key(by == MS_BY_FUNCTION ? &ms->names :
			    &ms->modules, id, &len);
			ms->row_off[n] = ms->text.len;
			buf_put(&ms->text, s, len);
			ms->row_keylen[n] = len;
			if (by == MS_BY_FUNCTION && t->module != 0) {
				s = intern_key(&ms->modules, t->module, &len);
				ms->row_mod[n] = s;
				ms->row_modlen[n] = len;
			}
			ms->row_w[n++] = &t->w;
		}
	}
	if (ms->text.oom)
		return -1;
	for (i = 0; i < n; i++)
		ms->row_key[i] = ms->text.data != NULL ?
		    (const char *)ms->text.data + ms->row_off[i] : "";
	rows->n = n;
	rows->key = ms->row_key;
	rows->keylen = ms->row_keylen;
	rows->module = ms->row_mod;
	rows->modlen = ms->row_modlen;
	rows->w = ms->row_w;
	return 0;
}

int
memstacks_parse_by(const char *arg)
{
	if (strcmp(arg, "stack") == 0)
		return MS_BY_STACK;
	if (strcmp(arg, "function") == 0)
		return MS_BY_FUNCTION;
	if (strcmp(arg, "module") == 0)
		return MS_BY_MODULE;
	return -1;
}
