/*
 * view_cpu.c - "etlagg cpu": where the profile samples fell, as WPA's
 * "CPU Usage (Sampled)" and PerfView's CPU stacks show them.
 *
 *	--by process	samples per process (the default)
 *	--by stack	samples per call stack: a path of frames, root first,
 *			joined by ';', whose root is the process's image name
 *			(as stackcollapse-perf.pl roots stacks at the command),
 *			so that folded stacks and flame graphs come from it;
 *			with --instances, its instance as proclabel.h names
 *			those of the section ("serde (4242)"), so that the
 *			instances of an image stay apart (as --pid of
 *			stackcollapse-perf.pl keeps them)
 *	--by function	samples per frame: in it (samples) and under it
 *			(inclusive, each frame counted once a sample)
 *	--by module	the same per module
 *
 * Frames are named by frames.h.  A sample's own instruction pointer is
 * its innermost frame when its stack does not start with it; a sample
 * without a stack is [no stack] and its instruction pointer, one whose
 * stack the source never defined is [stack not defined] and what frames
 * there are.  Idle samples (pid 0) are the process Idle, as WPA shows
 * them, so that the total is every sample; --no-idle leaves out those of
 * the idle loop itself (pid 0, neither DPC nor ISR), as PerfView does.
 *
 * Stacks may be defined after the samples that use them, so samples are
 * counted per process, stack and instruction pointer (struct skey) while
 * a section lasts and named when it ends (REC_END, or at the latest in
 * finish).  Paths are kept as arrays of frame ids, frames as interned
 * names.  Holding stacks by their parts, and naming each (process,
 * address) once a section, took this view from 13.4 s to 6.7 s on the
 * rustc samples of the 1 GiB synthetic benchmark trace (10.8 M samples
 * under 5.8 M stack ids; reading alone takes 6.0 s).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "base/intern.h"
#include "model/model.h"
#include "model/proclabel.h"
#include "model/proctab.h"
#include "view.h"

#define FRAMES_CAP	4096	/* frames of one stack with its parts */
#define NAME_MAX_LEN	1024
#define CHAIN_DEPTH	64	/* as the reader bounds head/next chains */
#define PATH_INLINES	4096	/* inlined frames added to one path */

enum by {
	BY_PROCESS, BY_STACK, BY_FUNCTION, BY_MODULE
};

static const char *const by_names[] = {
	[BY_PROCESS] = "process", [BY_STACK] = "stack",
	[BY_FUNCTION] = "function", [BY_MODULE] = "module",
};

/* The first column of each table: how merging tells them apart. */
static const char *const key_columns[] = {
	[BY_PROCESS] = "image", [BY_STACK] = "stack",
	[BY_FUNCTION] = "function", [BY_MODULE] = "module",
};

#define KEY_PARTS	32	/* stack parts a key holds; see struct skey */
#define RAW_KEYS_MIN	65536	/* keys by stack id before they are folded */

enum key_kind {
	KEY_NO_STACK, KEY_FLAT, KEY_RAW
};

/*
 * A section's samples of one process, instruction pointer and stack.  A
 * source may give one stack many ids (a kernel and a user part joined
 * anew for each sample), so a stack is held as the ids of the stacks
 * whose own frames make it up (flatten()), and counts as one; a stack
 * not defined yet when its sample comes, or of more parts, is held by
 * its id and resolved when the section ends.  Keys are interned only as
 * long as their parts.
 */
struct skey {
	uint32_t proc;			/* proctab index */
	stream_id def;			/* its definition in the section */
	uint64_t ip;
	uint32_t kind;			/* enum key_kind */
	stream_id stack;		/* KEY_RAW: the stack's id */
	uint32_t nparts;		/* KEY_FLAT: the parts */
	uint32_t pad;
	stream_id parts[KEY_PARTS];
};

struct weight {
	uint64_t samples, ns;
};

/* What one function or module totals. */
struct total {
	uint64_t self, inclusive, ns;
	uint32_t module;		/* functions: their module's id */
	uint32_t stamp;			/* the last path that counted it */
};

struct view {
	enum by by;
	int merge, no_idle, instances;
	struct model *mine;		/* its own model, or NULL: shared */
	struct proctab *pt;
	struct proclabels labels;	/* --instances: the section's */
	struct frames *frames;
	const struct stream_reader *reader;	/* for finish() */
	/* This section. */
	struct intern keys;		/* struct skey -> id */
	struct buf key_weights;		/* struct weight, by key id - 1 */
	uint32_t raw_keys, raw_limit;	/* keys by stack id; when to fold */
	struct intern sites;		/* (definition, address) -> id */
	struct buf site_frames;		/* uint32_t frame id, by site id - 1 */
	int section_open;
	/* Every section. */
	struct intern names;		/* frame names -> frame id */
	struct intern paths;		/* uint32_t frame ids -> path id */
	struct buf path_weights;	/* struct weight, by path id - 1 */
	struct intern modules;
	struct buf functions;		/* struct total, by frame id - 1 */
	struct buf module_totals;	/* struct total, by module id - 1 */
	/* Merging. */
	stream_id merge_table;
	int merge_cols[4];		/* key, samples, inclusive, cpu_ms */
	int merge_module_col;
	uint64_t left_out_rows, idle_left_out, undefined_samples;
	/* Scratch. */
	uint64_t frames_buf[FRAMES_CAP];
	uint32_t path_buf[FRAMES_CAP + 4 + PATH_INLINES];
	char name_buf[NAME_MAX_LEN];
};

static int
parse_by(const char *arg, enum by *by)
{
	size_t i;

	for (i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (strcmp(arg, by_names[i]) == 0) {
			*by = (enum by)i;
			return 0;
		}
	view_warn("cpu: --by wants process, stack, function, module, query, "
	    "query+function or query+stack, not '%s'", arg);
	return -1;
}

static void cpu_destroy(struct view *v);

static const char *const tables[] = { "cpu", NULL };

static const struct option longopts[] = {
	{ "addresses", no_argument, NULL, 'a' },
	{ "by", required_argument, NULL, 'b' },
	{ "instances", no_argument, NULL, 'i' },
	{ "merge", no_argument, NULL, 'm' },
	{ "no-idle", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 }
};

static struct view *
cpu_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	unsigned flags = 0;
	int ch, bad = 0;

	if (v == NULL)
		return NULL;
	optind = 0;
	while (!bad && (ch = getopt_long(argc, argv, "+", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			flags |= FRAMES_ADDRESSES;
			break;
		case 'b':
			bad = parse_by(optarg, &v->by) != 0;
			break;
		case 'i':
			v->instances = 1;
			break;
		case 'm':
			v->merge = 1;
			break;
		case 'n':
			v->no_idle = 1;
			break;
		default:
			bad = 1;
		}
	}
	*used = optind;
	if (!bad && v->instances && v->by != BY_STACK) {
		view_warn("cpu: --instances roots stacks: it wants --by stack");
		bad = 1;
	}
	if (bad) {
		free(v);
		return NULL;
	}
	/* Idle samples left out, or rows merged, change the processes. */
	if ((m = view_model(m, v->no_idle || v->merge, &v->mine)) == NULL ||
	    (v->pt = model_proctab(m)) == NULL ||
	    (v->frames = model_frames(m, flags)) == NULL) {
		cpu_destroy(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

/* Element i of an array kept in a buf, grown (zeroed) to hold it. */
static void *
slot(struct buf *b, size_t i, size_t size)
{
	size_t need = (i + 1) * size;

	if (b->len < need) {
		if (buf_reserve(b, need - b->len) == NULL)
			return NULL;
		memset(b->data + b->len, 0, need - b->len);
		b->len = need;
	}
	return b->data + i * size;
}

/* ---- counting samples ---- */

static int
idle_loop(const struct stream_event *ev)
{
	const struct value *flags;

	if (ev->h.pid != 0)
		return 0;
	flags = stream_event_field(ev, "flags");
	return flags == NULL || (flags->v.u & 3) == 0;
}

/*
 * Appends to parts[n..] the ids of the stacks whose own frames make up
 * stack `id`, in order.  @return : the new count, or -1 if a part is not
 * defined (yet), was never defined, or there are too many.
 */
static int
flatten(const struct stream_reader *r, stream_id id, stream_id *parts, int n,
    int depth)
{
	const struct stream_stack *s = stream_stack(r, id);

	if (s == NULL || s->unresolved || depth > CHAIN_DEPTH)
		return -1;
	if (s->head != 0 && (n = flatten(r, s->head, parts, n, depth + 1)) < 0)
		return -1;
	if (s->nframes > 0) {
		if (n == KEY_PARTS)
			return -1;
		/* Its own id: a stack that only names another is that one. */
		parts[n++] = s->id;
	}
	if (s->next != 0)
		n = flatten(r, s->next, parts, n, depth + 1);
	return n;
}

static int fold_raw_keys(struct view *, const struct stream_reader *);

static int
count_sample(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	const struct stream_process *def = stream_process_by_pid(r, ev->h.pid);
	struct skey key;
	struct weight *wt;
	uint32_t id;
	int n = 0, added;

	memset(&key, 0, offsetof(struct skey, parts));
	if ((key.proc = proctab_of_pid(v->pt, r, ev->h.pid)) == PROCTAB_NONE)
		return -1;
	key.def = def != NULL ? def->id : 0;
	key.ip = stream_event_u(ev, "ip", 0);
	if (ev->h.stack == 0)
		key.kind = KEY_NO_STACK;
	else if ((n = flatten(r, ev->h.stack, key.parts, 0, 0)) >= 0) {
		key.kind = KEY_FLAT;
		key.nparts = (uint32_t)n;
	} else {
		key.kind = KEY_RAW;
		key.stack = ev->h.stack;
		n = 0;
	}
	if ((id = intern_add(&v->keys, &key, offsetof(struct skey, parts) +
	    (size_t)n * sizeof(key.parts[0]), &added)) == 0 ||
	    (wt = slot(&v->key_weights, id - 1, sizeof(*wt))) == NULL)
		return -1;
	wt->samples++;
	wt->ns += proctab_interval_ns(v->pt);
	v->section_open = 1;
	if (added && key.kind == KEY_RAW &&
	    ++v->raw_keys >= (v->raw_limit ? v->raw_limit : RAW_KEYS_MIN))
		return fold_raw_keys(v, r);
	return 0;
}

/* ---- naming a section's stacks ---- */

/* The id of a name, with ';' (the path separator) made '_'. */
static uint32_t
name_id(struct view *v, const char *name, size_t len)
{
	char *p;

	if (len >= sizeof(v->name_buf))
		len = sizeof(v->name_buf) - 1;
	memcpy(v->name_buf, name, len);
	for (p = v->name_buf; p < v->name_buf + len; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = '_';
	return intern_add(&v->names, v->name_buf, len, NULL);
}

/*
 * The frame id of an address in a process.  Many stacks share frames, so
 * the names of (definition, address) pairs are kept for the section:
 * naming is the costly part of resolving.
 */
static uint32_t
frame_id(struct view *v, stream_id def, uint64_t addr, uint64_t level)
{
	uint64_t site[3] = { def, addr, level };
	char name[NAME_MAX_LEN];
	uint32_t id, *frame;
	size_t len;

	if ((id = intern_add(&v->sites, site, sizeof(site), NULL)) == 0 ||
	    (frame = slot(&v->site_frames, id - 1, sizeof(*frame))) == NULL)
		return 0;
	if (*frame == 0) {
		len = frames_name_at(v->frames, def, addr, (size_t)level, name,
		    sizeof(name));
		*frame = name_id(v, name, len < sizeof(name) ? len :
		    sizeof(name) - 1);
	}
	return *frame;
}

static int
add_path(struct view *v, size_t n, const struct weight *wt)
{
	struct weight *pw;
	uint32_t id;

	if ((id = intern_add(&v->paths, v->path_buf, n * sizeof(uint32_t),
	    NULL)) == 0 || (pw = slot(&v->path_weights, id - 1,
	    sizeof(*pw))) == NULL)
		return -1;
	pw->samples += wt->samples;
	pw->ns += wt->ns;
	return 0;
}

/*
 * The frames of a key's stack, innermost first, into v->frames_buf.
 * @return : how many; -1 if a part is not defined.
 */
static long
key_frames(struct view *v, const struct stream_reader *r,
    const struct skey *key)
{
	const struct stream_stack *s;
	size_t n = 0, k;
	uint32_t i;

	if (r == NULL)
		return -1;
	if (key->kind == KEY_RAW)
		return stream_stack_undefined(r, key->stack) ? -1 :
		    stream_stack_frames(r, key->stack, v->frames_buf,
		    FRAMES_CAP);
	for (i = 0; i < key->nparts; i++) {
		if ((s = stream_stack(r, key->parts[i])) == NULL)
			return -1;
		for (k = 0; k < s->nframes && n < FRAMES_CAP; k++)
			v->frames_buf[n++] = s->frames[k];
	}
	return (long)n;
}

/*
 * Appends the frames of an address to the path: its function, then
 * what etlsym found inlined there, outermost first, as WPA shows them.
 */
static void
push_frames(struct view *v, stream_id def, uint64_t addr, size_t *n,
    size_t *inlined)
{
	size_t k = frames_inlined(v->frames, def, addr);

	v->path_buf[(*n)++] = frame_id(v, def, addr, UINT64_MAX);
	while (k-- > 0 && *inlined < PATH_INLINES) {
		v->path_buf[(*n)++] = frame_id(v, def, addr, k);
		(*inlined)++;
	}
}

/*
 * The root of a path: the process's image, or with --instances its
 * label among the section's instances.  NULL if out of memory.
 */
static const char *
root_name(struct view *v, const struct proc *p, size_t *len)
{
	const char *image = proctab_str(v->pt, p->image, len), *cmd;
	size_t clen = 0;
	uint32_t id;

	if (!v->instances)
		return image;
	cmd = p->cmdline != 0 ? proctab_str(v->pt, p->cmdline, &clen) : NULL;
	if ((id = proclabels_add(&v->labels, p->pid, p->start_ns, image, *len,
	    cmd, clen)) == 0)
		return NULL;
	return proclabels_get(&v->labels, id, len);
}

/* The path of one key: process, pseudo frame, frames outermost first. */
static int
resolve_key(struct view *v, const struct stream_reader *r,
    const struct skey *key, const struct weight *wt)
{
	const struct proc *p = proctab_get(v->pt, key->proc);
	const char *root;
	long nframes = 0, i;
	size_t n = 0, len, inlined = 0;

	if ((root = root_name(v, p, &len)) == NULL ||
	    (v->path_buf[n++] = name_id(v, root, len)) == 0)
		return -1;
	if (key->kind == KEY_NO_STACK)
		v->path_buf[n++] = name_id(v, FRAMES_NO_STACK,
		    strlen(FRAMES_NO_STACK));
	else if ((nframes = key_frames(v, r, key)) < 0) {
		v->path_buf[n++] = name_id(v, FRAMES_UNDEFINED,
		    strlen(FRAMES_UNDEFINED));
		v->undefined_samples += wt->samples;
		nframes = 0;
	}
	for (i = nframes - 1; i >= 0; i--)
		push_frames(v, key->def, v->frames_buf[i], &n, &inlined);
	if (nframes == 0 || v->frames_buf[0] != key->ip)
		push_frames(v, key->def, key->ip, &n, &inlined);
	for (i = 0; i < (long)n; i++)
		if (v->path_buf[i] == 0)
			return -1;
	return add_path(v, n, wt);
}

/*
 * Moves the weight of the keys held by stack id to the keys of their
 * parts, now that the stacks are defined, so that each stack is named
 * once.
 */
static int
flatten_raw_keys(struct view *v, const struct stream_reader *r)
{
	uint32_t id, flat, count = v->keys.count;
	struct weight *from, *to;
	const void *stored;
	struct skey key;
	size_t len;
	int n;

	for (id = 1; id <= count; id++) {
		stored = intern_key(&v->keys, id, &len);
		memcpy(&key, stored, len);
		if (key.kind != KEY_RAW ||
		    (n = flatten(r, key.stack, key.parts, 0, 0)) < 0)
			continue;
		key.kind = KEY_FLAT;
		key.stack = 0;
		key.nparts = (uint32_t)n;
		if ((flat = intern_add(&v->keys, &key, offsetof(struct skey,
		    parts) + (size_t)n * sizeof(key.parts[0]), NULL)) == 0 ||
		    (to = slot(&v->key_weights, flat - 1, sizeof(*to))) == NULL)
			return -1;
		from = (struct weight *)v->key_weights.data + id - 1;
		to->samples += from->samples;
		to->ns += from->ns;
		from->samples = from->ns = 0;
	}
	return 0;
}

/*
 * Samples whose stack was not defined yet (an id the decoder promised
 * until a late user part came) are kept by the stack's id: one key a
 * sample.  Now and then their weight moves to the keys of their parts,
 * and the keys left without weight are dropped, so that the section's
 * keys stay those of its distinct stacks.
 */
static int
fold_raw_keys(struct view *v, const struct stream_reader *r)
{
	struct intern keys = { 0 };
	struct buf weights = { 0 };
	const struct weight *wt;
	struct weight *to;
	const void *stored;
	struct skey key;
	uint32_t id, nid, raw = 0;
	size_t len;

	if (flatten_raw_keys(v, r) != 0)
		return -1;
	wt = (const struct weight *)v->key_weights.data;
	for (id = 1; id <= v->keys.count; id++) {
		if (wt[id - 1].samples == 0 && wt[id - 1].ns == 0)
			continue;
		stored = intern_key(&v->keys, id, &len);
		if ((nid = intern_add(&keys, stored, len, NULL)) == 0 ||
		    (to = slot(&weights, nid - 1, sizeof(*to))) == NULL) {
			intern_release(&keys);
			buf_release(&weights);
			return -1;
		}
		*to = wt[id - 1];
		/* Keys differ in length, so they are not aligned: copied. */
		memcpy(&key, stored, len);
		raw += key.kind == KEY_RAW;
	}
	intern_release(&v->keys);
	buf_release(&v->key_weights);
	v->keys = keys;
	v->key_weights = weights;
	v->raw_keys = raw;
	v->raw_limit = raw * 2 > RAW_KEYS_MIN ? raw * 2 : RAW_KEYS_MIN;
	return 0;
}

/* Names the stacks of the section's samples, then forgets the section. */
static int
resolve_section(struct view *v, const struct stream_reader *r)
{
	const struct weight *wt;
	const void *stored;
	struct skey key;
	uint32_t id;
	size_t len;

	if (r != NULL && flatten_raw_keys(v, r) != 0)
		return -1;
	wt = (const struct weight *)v->key_weights.data;
	for (id = 1; id <= v->keys.count; id++) {
		if (wt[id - 1].samples == 0)
			continue;
		/* Keys differ in length, so they are not aligned: copied. */
		stored = intern_key(&v->keys, id, &len);
		memcpy(&key, stored, len);
		if (resolve_key(v, r, &key, &wt[id - 1]) != 0)
			return -1;
	}
	intern_clear(&v->keys);
	intern_clear(&v->sites);
	v->key_weights.len = v->site_frames.len = 0;
	v->raw_keys = v->raw_limit = 0;
	v->section_open = 0;
	return 0;
}

/* ---- merging tables ---- */

static int
column(const struct stream_table *t, const char *name, enum value_type type)
{
	size_t c;

	for (c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].name, name) == 0 &&
		    t->cols[c].type == type)
			return (int)c;
	return -1;
}

static void
merge_table(struct view *v, const struct stream_table *t)
{
	v->merge_table = 0;
	if (strcmp(t->name, "cpu") != 0)
		return;
	v->merge_table = t->id;
	v->merge_cols[0] = column(t, key_columns[v->by], VAL_STR);
	v->merge_cols[1] = column(t, "samples", VAL_U64);
	v->merge_cols[2] = column(t, "inclusive", VAL_U64);
	v->merge_cols[3] = column(t, "cpu_ms", VAL_F64);
	v->merge_module_col = column(t, "module", VAL_STR);
	/* The rows of a table of another --by are counted, not merged. */
	if (v->merge_cols[0] != 0)
		v->merge_cols[0] = -1;
}

static const struct value *
row_cell(const struct stream_row *row, int c)
{
	if (c < 0 || (size_t)c >= row->ncells || row->cells[c].type == VAL_NULL)
		return NULL;
	return &row->cells[c];
}

static uint64_t
row_u64(const struct stream_row *row, int c)
{
	const struct value *val = row_cell(row, c);

	return val != NULL ? val->v.u : 0;
}

static uint64_t
row_ns(const struct stream_row *row, int c)
{
	const struct value *val = row_cell(row, c);

	return val != NULL && val->v.f > 0 ? (uint64_t)llround(val->v.f * 1e6) :
	    0;
}

static int
merge_stack(struct view *v, const char *s, size_t len,
    const struct weight *wt)
{
	const char *end = s + len, *semi;
	size_t n = 0;

	while (s < end && n < FRAMES_CAP) {
		if ((semi = memchr(s, ';', (size_t)(end - s))) == NULL)
			semi = end;
		if ((v->path_buf[n++] = name_id(v, s, (size_t)(semi - s))) == 0)
			return -1;
		s = semi + 1;
	}
	return n > 0 ? add_path(v, n, wt) : 0;
}

static struct total *
total_of(struct buf *b, uint32_t id)
{
	return slot(b, id - 1, sizeof(struct total));
}

/* A row of a function or module table into the totals. */
static int
merge_total(struct view *v, const struct value *key,
    const struct stream_row *row)
{
	const struct value *module = row_cell(row, v->merge_module_col);
	struct intern *ids = v->by == BY_FUNCTION ? &v->names : &v->modules;
	struct total *t;
	uint32_t id;

	if ((id = intern_add(ids, key->v.s.ptr, key->v.s.len, NULL)) == 0 ||
	    (t = total_of(v->by == BY_FUNCTION ? &v->functions :
	    &v->module_totals, id)) == NULL)
		return -1;
	t->self += row_u64(row, v->merge_cols[1]);
	t->inclusive += row_u64(row, v->merge_cols[2]);
	t->ns += row_ns(row, v->merge_cols[3]);
	if (v->by == BY_FUNCTION && module != NULL && t->module == 0 &&
	    (t->module = intern_add(&v->modules, module->v.s.ptr,
	    module->v.s.len, NULL)) == 0)
		return -1;
	return 0;
}

/* A row of a table of this --by. */
static int
merge_row(struct view *v, const struct stream_row *row)
{
	const struct value *key = row_cell(row, v->merge_cols[0]);
	struct weight wt;

	if (key == NULL) {
		v->left_out_rows++;
		return 0;
	}
	if (v->by == BY_STACK) {
		wt.samples = row_u64(row, v->merge_cols[1]);
		wt.ns = row_ns(row, v->merge_cols[3]);
		return merge_stack(v, key->v.s.ptr, key->v.s.len, &wt);
	}
	return merge_total(v, key, row);
}

static int
merge_record(struct view *v, const struct stream_record *rec)
{
	int ours;

	if (rec->type == REC_HEADER)
		v->merge_table = 0;
	if (rec->type == REC_TABLE)
		merge_table(v, &rec->u.table);
	ours = rec->type == REC_ROW && v->merge_table != 0 &&
	    rec->u.row.table == v->merge_table;
	if (ours && v->merge_cols[0] < 0) {
		v->left_out_rows++;
		return 0;
	}
	/* Tables by process are proctab's; "" makes it skip the others. */
	if (v->by == BY_PROCESS)
		return proctab_merge(v->pt, rec, v->merge_cols[0] == 0 ? "cpu" :
		    "");
	return ours ? merge_row(v, &rec->u.row) : 0;
}

static int
cpu_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;

	v->reader = r;
	if (rec->type == REC_HEADER && v->section_open &&
	    resolve_section(v, NULL) != 0)
		return -1;
	if (rec->type == REC_EVENT && ev->h.kind == EV_SAMPLE && v->no_idle &&
	    idle_loop(ev)) {
		v->idle_left_out++;
		return 0;
	}
	if ((v->mine != NULL && model_record(v->mine, r, rec) != 0) ||
	    (v->instances && proclabels_record(&v->labels, rec) != 0))
		return -1;
	if (v->merge && merge_record(v, rec) != 0)
		return -1;
	if (rec->type == REC_END && v->section_open)
		return resolve_section(v, r);
	if (rec->type == REC_EVENT && ev->h.kind == EV_SAMPLE &&
	    v->by != BY_PROCESS)
		return count_sample(v, r, ev);
	return 0;
}

/* ---- functions and modules from the paths ---- */

/* The module id of frame `fid`, kept in its total. */
static uint32_t
module_of(struct view *v, uint32_t fid, struct total *f)
{
	const char *name;
	size_t len, mlen;

	if (f->module != 0)
		return f->module;
	name = intern_key(&v->names, fid, &len);
	if ((mlen = frames_module_len(name, len)) == 0) {
		name = "unknown";
		mlen = strlen(name);
	}
	return f->module = intern_add(&v->modules, name, mlen, NULL);
}

/* Adds a sample weight to the total of a frame or module, once a path. */
static void
add_total(struct total *t, uint32_t path, const struct weight *wt, int self)
{
	if (t->stamp != path) {
		t->stamp = path;
		t->inclusive += wt->samples;
	}
	if (self) {
		t->self += wt->samples;
		t->ns += wt->ns;
	}
}

static int
totals_of_path(struct view *v, uint32_t path, const struct weight *wt)
{
	const uint32_t *ids;
	const char *name;
	size_t len, n, i, self = 0;
	struct total *f, *m;
	uint32_t mid;

	ids = intern_key(&v->paths, path, &len);
	n = len / sizeof(*ids);
	/* The innermost real frame is the one the sample was in. */
	for (i = 1; i < n; i++) {
		name = intern_key(&v->names, ids[i], &len);
		if (!frames_is_pseudo(name, len))
			self = i;
	}
	for (i = 1; i < n; i++) {
		name = intern_key(&v->names, ids[i], &len);
		if (frames_is_pseudo(name, len))
			continue;
		if ((f = total_of(&v->functions, ids[i])) == NULL ||
		    (mid = module_of(v, ids[i], f)) == 0)
			return -1;
		if (v->by == BY_FUNCTION) {
			add_total(f, path, wt, i == self);
			continue;
		}
		if ((m = total_of(&v->module_totals, mid)) == NULL)
			return -1;
		add_total(m, path, wt, i == self);
	}
	return 0;
}

/* ---- writing the table ---- */

/* A row to sort: by falling samples, then by key. */
struct out_row {
	uint64_t samples;
	uint32_t id;
	const struct view *v;
};

/* Compares two paths frame by frame, by name. */
static int
cmp_paths(const struct view *v, uint32_t a, uint32_t b)
{
	size_t la, lb, na, nb, i, n;
	const uint32_t *x = intern_key(&v->paths, a, &la);
	const uint32_t *y = intern_key(&v->paths, b, &lb);

	na = la / sizeof(*x);
	nb = lb / sizeof(*y);
	for (i = 0; i < na && i < nb; i++) {
		const char *s = intern_key(&v->names, x[i], &la);
		const char *t = intern_key(&v->names, y[i], &lb);
		int c;

		n = la < lb ? la : lb;
		if ((c = memcmp(s, t, n)) != 0)
			return c;
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	return na < nb ? -1 : na > nb;
}

static int
cmp_processes(const struct proctab *pt, uint32_t a, uint32_t b)
{
	const struct proc *p = proctab_get(pt, a), *q = proctab_get(pt, b);
	size_t lp, lq;
	const char *s = proctab_str(pt, p->image, &lp);
	const char *t = proctab_str(pt, q->image, &lq);
	int c;

	if ((c = memcmp(s, t, lp < lq ? lp : lq)) != 0 || lp != lq)
		return c != 0 ? c : (lp < lq ? -1 : 1);
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int
cmp_rows(const void *pa, const void *pb)
{
	const struct out_row *a = pa, *b = pb;
	const struct intern *keys;
	const char *s, *t;
	size_t la, lb;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	switch (a->v->by) {
	case BY_STACK:
		return cmp_paths(a->v, a->id, b->id);
	case BY_PROCESS:
		return cmp_processes(a->v->pt, a->id, b->id);
	default:
		keys = a->v->by == BY_FUNCTION ? &a->v->names : &a->v->modules;
		s = intern_key(keys, a->id, &la);
		t = intern_key(keys, b->id, &lb);
		if ((c = memcmp(s, t, la < lb ? la : lb)) != 0)
			return c;
		return la < lb ? -1 : la > lb;
	}
}

/* A share in percent, to two decimals: the counts beside it are exact. */
static struct value
percent(uint64_t part, uint64_t total)
{
	if (total == 0)
		return value_f64(0);
	return value_f64(round(10000.0 * (double)part / (double)total) / 100);
}

/* The frames of a path joined by ';'. */
static struct value
joined(const struct view *v, uint32_t path, struct buf *b)
{
	size_t len, n, i;
	const uint32_t *ids = intern_key(&v->paths, path, &len);
	const char *name;

	n = len / sizeof(*ids);
	b->len = 0;
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_put(b, ";", 1);
		name = intern_key(&v->names, ids[i], &len);
		buf_put(b, name, len);
	}
	return (struct value){ .type = VAL_STR,
	    .v.s = { (const char *)b->data, b->len } };
}

static struct value
key_value(const struct intern *keys, uint32_t id)
{
	size_t len;
	const char *s = intern_key(keys, id, &len);

	return (struct value){ .type = VAL_STR, .v.s = { s, len } };
}

/* The cells of one row of the table of v->by. */
static size_t
row_cells(const struct view *v, const struct out_row *row, uint64_t total,
    struct buf *b, struct value *cells)
{
	const struct total *t;
	const struct proc *p;
	size_t n = 0;

	switch (v->by) {
	case BY_PROCESS:
		p = proctab_get(v->pt, row->id);
		cells[n] = (struct value){ .type = VAL_STR };
		cells[n].v.s.ptr = proctab_str(v->pt, p->image,
		    &cells[n].v.s.len);
		n++;
		cells[n++] = value_u64(p->pid);
		cells[n] = (struct value){ .type = p->start_utc ? VAL_UTC :
		    VAL_NULL, .v.u = p->start_utc };
		n++;
		cells[n] = (struct value){ .type = p->start_ns !=
		    PROCTAB_NO_TIME ? VAL_NS : VAL_NULL, .v.i = p->start_ns };
		n++;
		cells[n++] = value_u64(p->samples);
		cells[n++] = percent(p->samples, total);
		cells[n++] = value_f64((double)p->cpu_ns / 1e6);
		return n;
	case BY_STACK:
		cells[n++] = joined(v, row->id, b);
		cells[n++] = value_u64(row->samples);
		cells[n++] = percent(row->samples, total);
		cells[n++] = value_f64((double)((const struct weight *)
		    v->path_weights.data)[row->id - 1].ns / 1e6);
		return n;
	default:
		break;
	}
	t = (const struct total *)(v->by == BY_FUNCTION ?
	    v->functions.data : v->module_totals.data) + row->id - 1;
	cells[n++] = key_value(v->by == BY_FUNCTION ? &v->names : &v->modules,
	    row->id);
	if (v->by == BY_FUNCTION)
		cells[n++] = t->module != 0 ?
		    key_value(&v->modules, t->module) :
		    (struct value){ .type = VAL_NULL };
	cells[n++] = value_u64(t->self);
	cells[n++] = percent(t->self, total);
	cells[n++] = value_u64(t->inclusive);
	cells[n++] = percent(t->inclusive, total);
	cells[n++] = value_f64((double)t->ns / 1e6);
	return n;
}

static const struct stream_column process_cols[] = {
	{ "image", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "start_utc", VAL_UTC, "" }, { "start", VAL_NS, "s" },
	{ "samples", VAL_U64, "" },
	{ "share_pct", VAL_F64, "%" }, { "cpu_ms", VAL_F64, "ms" },
};
static const struct stream_column stack_cols[] = {
	{ "stack", VAL_STR, "" }, { "samples", VAL_U64, "" },
	{ "share_pct", VAL_F64, "%" }, { "cpu_ms", VAL_F64, "ms" },
};
static const struct stream_column function_cols[] = {
	{ "function", VAL_STR, "" }, { "module", VAL_STR, "" },
	{ "samples", VAL_U64, "" }, { "share_pct", VAL_F64, "%" },
	{ "inclusive", VAL_U64, "" }, { "inclusive_share_pct", VAL_F64, "%" },
	{ "cpu_ms", VAL_F64, "ms" },
};
#define NCOLS(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_COLS	7	/* the widest table: by process or function */

static int
write_schema(const struct view *v, struct stream_writer *w)
{
	switch (v->by) {
	case BY_PROCESS:
		return view_write_table(w, 1, "cpu", process_cols,
		    NCOLS(process_cols));
	case BY_STACK:
		return view_write_table(w, 1, "cpu", stack_cols,
		    NCOLS(stack_cols));
	case BY_FUNCTION:
		return view_write_table(w, 1, "cpu", function_cols,
		    NCOLS(function_cols));
	default:
		/* The function columns without the function. */
		return view_write_table(w, 1, "cpu", function_cols + 1,
		    NCOLS(function_cols) - 1);
	}
}

/* The rows of v->by in *rows, and the samples they hold in *total. */
static size_t
collect_rows(const struct view *v, struct out_row *rows, uint64_t *total)
{
	const struct weight *pw = (const struct weight *)v->path_weights.data;
	const struct total *t = (const struct total *)(v->by == BY_FUNCTION ?
	    v->functions.data : v->module_totals.data);
	size_t n = 0;
	uint32_t id, count;

	*total = 0;
	if (v->by == BY_PROCESS)
		count = proctab_count(v->pt);
	else if (v->by == BY_STACK)
		count = v->paths.count;
	else
		count = (uint32_t)((v->by == BY_FUNCTION ? v->functions.len :
		    v->module_totals.len) / sizeof(*t));
	for (id = 0; id < count; id++) {
		uint64_t samples, shown;

		if (v->by == BY_PROCESS)
			samples = shown = proctab_get(v->pt, id)->samples;
		else if (v->by == BY_STACK)
			samples = shown = pw[id].samples;
		else {
			samples = t[id].self;
			shown = t[id].self + t[id].inclusive;
		}
		*total += samples;
		if (shown == 0)
			continue;
		rows[n].samples = samples;
		rows[n].id = v->by == BY_PROCESS ? id : id + 1;
		rows[n].v = v;
		n++;
	}
	return n;
}

static int
write_diag(struct stream_writer *w, const char *what, uint64_t count)
{
	struct stream_diag d = { what, count, 0, 0 };

	return count != 0 ? stream_write_diag(w, &d) : 0;
}

static int
write_rows(const struct view *v, struct stream_writer *w)
{
	size_t cap = (size_t)proctab_count(v->pt) + v->paths.count +
	    v->functions.len / sizeof(struct total) +
	    v->module_totals.len / sizeof(struct total) + 1;
	struct out_row *rows = malloc(cap * sizeof(*rows));
	struct value cells[MAX_COLS];
	struct stream_row row = { 1, 0, cells };
	struct buf text = { 0 };
	uint64_t total;
	size_t n, i;
	int rc = 0;

	if (rows == NULL)
		return -1;
	n = collect_rows(v, rows, &total);
	qsort(rows, n, sizeof(*rows), cmp_rows);
	for (i = 0; i < n && rc == 0; i++) {
		row.ncells = row_cells(v, &rows[i], total, &text, cells);
		rc = text.oom ? -1 : stream_write_row(w, &row);
	}
	buf_release(&text);
	free(rows);
	return rc;
}

static int
cpu_finish(struct view *v, struct stream_writer *w)
{
	const struct weight *pw;
	uint32_t id;

	if (v->section_open && resolve_section(v, v->reader) != 0)
		return -1;
	pw = (const struct weight *)v->path_weights.data;
	if (v->by == BY_FUNCTION || v->by == BY_MODULE)
		for (id = 1; id <= v->paths.count; id++)
			if (totals_of_path(v, id, &pw[id - 1]) != 0)
				return -1;
	if (write_schema(v, w) != 0 || write_rows(v, w) != 0)
		return -1;
	return write_diag(w, "note: cpu: samples of the idle loop left out "
	    "(--no-idle)", v->idle_left_out) != 0 ||
	    write_diag(w, "cpu: samples whose stack was never defined",
	    v->undefined_samples) != 0 ||
	    write_diag(w, "note: cpu: rows of tables of another --by left out",
	    v->left_out_rows) != 0 ? -1 : 0;
}

static void
cpu_destroy(struct view *v)
{
	model_free(v->mine);
	proclabels_release(&v->labels);
	intern_release(&v->keys);
	buf_release(&v->key_weights);
	intern_release(&v->sites);
	buf_release(&v->site_frames);
	intern_release(&v->names);
	intern_release(&v->paths);
	buf_release(&v->path_weights);
	intern_release(&v->modules);
	buf_release(&v->functions);
	buf_release(&v->module_totals);
	free(v);
}

const struct view_ops view_cpu_ops = {
	.name = "cpu",
	.needs_kind = EV_SAMPLE,
	.needs = "the trace has no CPU samples; the Rustc profile of "
	    "pipelines/rustc.wprp records them",
	.usage = "[--addresses] [--by process|stack|function|module|query|"
	    "query+function|query+stack] [--instances] [--merge] [--no-idle]",
	.summary = "profile samples and CPU time by process, call stack, "
	    "function, module or rustc query",
	.reader_flags = STREAM_KEEP_STACKS,
	/* Samples, and the processes and intervals of proctab. */
	.field_kinds = STREAM_KIND(EV_SAMPLE) | STREAM_KIND(EV_PROCESS) |
	    STREAM_KIND(EV_GENERIC),
	.options = longopts,
	.tables = tables,
	.create = cpu_create,
	.record = cpu_record,
	.finish = cpu_finish,
	.destroy = cpu_destroy,
};
