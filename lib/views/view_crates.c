/*
 * view_crates.c - "etlagg crates": one row per rustc process instance
 * (pid and start: a reused pid is another row), with the crate it
 * compiles and what it cost, each figure the one another view gives for
 * that instance:
 *
 *	wall		processes' duration (end - start; empty when the
 *			start is not in the trace); for one still running
 *			at the trace's end, up to that end: a lower bound,
 *			which wall_cut says (and a note under the table)
 *	cpu_ms		processes' cpu_ms (proctab.h)
 *	peak_commit_bytes, outstanding_commit_bytes
 *			vmem's peak_outstanding_bytes and outstanding_bytes
 *			(the rules of view_vmem.c, on vmem_map.h)
 *	running_ns, ready_ns, waiting_ns
 *			the sums over the instance's threads in threads
 *			(sched.h); a thread belongs to the instance its pid
 *			named when the schedule first saw the thread
 *
 * and crate_type, opt_level and incremental read from the command line.
 * A figure the trace cannot give is empty, not 0: cpu_ms without CPU
 * samples, the commit columns without VirtualAlloc events, the time
 * columns without context switches; a DIAG note of count 0 says why,
 * which etlreport writes under the text.
 *
 * The rustc instances are the processes whose image is rustc (.exe or
 * not, any case) or whose command line has --crate-name (clippy-driver,
 * rustdoc).  Rows are in order of start; `instance` numbers the rows of
 * one image and crate in that order (1, 2, ...), so that a row is known
 * across two traces by image, crate and instance, never by pid.
 *
 * --by crate sums the instances of a crate: instances, wall, cpu and the
 * time columns added up, outstanding commit added up, the peak commit
 * the largest of theirs; rows by falling wall time.
 *
 * --merge adds up crates tables: rows of the same instance (image, pid
 * and start) are one, their figures added (the peak the larger); tables
 * by crate add up by crate.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "base/platform.h"
#include "model/model.h"
#include "model/proctab.h"
#include "model/sched.h"
#include "model/vmem_map.h"
#include "view.h"

#define MEM_COMMIT	0x1000
#define MEM_DECOMMIT	0x4000
#define MEM_RELEASE	0x8000
#define NO_TIME		PROCTAB_NO_TIME

/* The figures of a row, each known or not. */
enum fig {
	F_WALL, F_CPU_NS, F_PEAK, F_OUTSTANDING, F_RUNNING, F_READY,
	F_WAITING, F_COUNT
};

struct crow {
	char *image, *crate, *crate_type, *opt_level, *incremental, *cmdline;
	uint32_t pid;
	int has_pid;
	int64_t start_ns;		/* NO_TIME: not known (before the trace) */
	uint64_t start_utc;		/* 0: not known */
	uint64_t instances;
	int64_t fig[F_COUNT];
	unsigned known;			/* 1 << enum fig */
	int wall_cut;			/* wall: cut off by the trace's end */
};

/* What vmem keeps of a process instance (view_vmem.c's struct vproc). */
struct cmem {
	struct vmem_map map;
	int64_t peak, outstanding;
	int used, ended, cut;
};

struct view {
	int by_crate, merge;
	uint64_t walls_cut;		/* rows whose wall is a lower bound */
	struct model *mine;		/* its own model, or NULL: shared */
	struct proctab *pt;
	struct sched *s;
	uint32_t *owner;		/* sched thread -> proctab entry */
	size_t owner_cap, threads_seen;
	struct cmem *mem;
	size_t mem_cap;
	int section_open;
	int has_samples, has_vmem, has_cswitch;
	/* Rows of merged tables. */
	struct crow *rows;
	size_t nrows, rows_cap;
	stream_id merge_table;
	struct intern row_keys;		/* a merged row's key -> row + 1 */
	struct buf key;			/* scratch */
	int cols[32];
	size_t ncols;
	int merge_by_crate;
};

static const char *const tables[] = { "crates", NULL };

static const struct option longopts[] = {
	{ "by", required_argument, NULL, 'b' },
	{ "merge", no_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 }
};

static void crates_destroy(struct view *v);

static struct view *
crates_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	int ch;

	if (v == NULL)
		return NULL;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			if (strcmp(optarg, "crate") == 0)
				v->by_crate = 1;
			else if (strcmp(optarg, "instance") != 0) {
				view_warn("crates: --by wants instance or "
				    "crate, not '%s'", optarg);
				free(v);
				errno = EINVAL;
				return NULL;
			}
			break;
		case 'm':
			v->merge = 1;
			break;
		default:
			free(v);
			errno = EINVAL;
			return NULL;
		}
	}
	*used = optind;
	/* Rows merged in change the processes: then a model of its own. */
	if ((m = view_model(m, v->merge, &v->mine)) == NULL ||
	    (v->pt = model_proctab(m)) == NULL ||
	    (v->s = model_sched(m, INT64_MIN, INT64_MAX)) == NULL) {
		crates_destroy(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

/* ---- committed memory, as view_vmem.c counts it per process ---- */

static struct cmem *
mem_of(struct view *v, const struct stream_reader *r, uint32_t pid)
{
	uint32_t i = proctab_of_pid(v->pt, r, pid);

	if (i == PROCTAB_NONE)
		return NULL;
	return array_slot(&v->mem, &v->mem_cap, i, sizeof(struct cmem));
}

static void
no_piece(void *ctx, uint32_t key, uint64_t len, int64_t ns)
{
	(void)ctx;
	(void)key;
	(void)len;
	(void)ns;
}

static int
on_vmem(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t flags = (uint32_t)stream_event_u(ev, "flags", 0);
	uint64_t base = stream_event_u(ev, "base", 0), size, n;
	struct cmem *m;
	int rc = 0;

	v->has_vmem = 1;
	if (ev->h.op == EVOP_DCEND)
		return 0;
	if (ev->h.op == EVOP_ALLOC && !(flags & MEM_COMMIT))
		return 0;
	if (ev->h.op == EVOP_FREE && !(flags & (MEM_DECOMMIT | MEM_RELEASE)))
		return 0;
	if ((m = mem_of(v, r, ev->h.pid)) == NULL)
		return -1;
	if (m->ended || (size = stream_event_u(ev, "size", 0)) == 0)
		return 0;
	m->used = 1;
	if (ev->h.op == EVOP_ALLOC)
		rc = vmem_map_commit(&m->map, base, base + size, 1, ev->h.ts,
		    no_piece, NULL, &n);
	else if (ev->h.op == EVOP_FREE)
		rc = vmem_map_free(&m->map, base, base + size, no_piece, NULL,
		    &n);
	else if (ev->h.op == EVOP_DCSTART &&
	    (size = stream_event_u(ev, "commit_size", 0)) != 0)
		rc = vmem_map_commit(&m->map, base, base + size, 1, INT64_MIN,
		    no_piece, NULL, &n);
	m->outstanding = (int64_t)m->map.committed;
	if (m->outstanding > m->peak)
		m->peak = m->outstanding;
	return rc;
}

static int
on_exit(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	struct cmem *m = mem_of(v, r, ev->h.pid);

	if (m == NULL)
		return -1;
	if (m->used && !m->ended) {
		m->ended = 1;
		vmem_map_release(&m->map);
	}
	return 0;
}

/* The section ended: what runs keeps what it holds, as in vmem. */
static void
end_section(struct view *v)
{
	size_t i;

	for (i = 0; i < v->mem_cap; i++)
		if (v->mem[i].used && !v->mem[i].ended) {
			vmem_map_release(&v->mem[i].map);
			v->mem[i].ended = v->mem[i].cut = 1;
		}
	v->section_open = 0;
}

/* ---- threads: each to the instance its pid named when first seen ---- */

static int
own_threads(struct view *v, const struct stream_reader *r)
{
	size_t n = sched_count(v->s), i;
	uint32_t *o;

	for (i = v->threads_seen; i < n; i++) {
		const struct sched_thread *t = sched_thread(v->s, i);

		if ((o = array_slot(&v->owner, &v->owner_cap, i,
		    sizeof(*o))) == NULL)
			return -1;
		*o = PROCTAB_NONE;
		if (i > 0 && t->pid != UINT32_MAX &&
		    (*o = proctab_of_pid(v->pt, r, t->pid)) == PROCTAB_NONE)
			return -1;
	}
	v->threads_seen = n;
	return 0;
}

/* ---- merging ---- */

static const struct stream_column inst_cols[] = {
	{ "crate", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "start", VAL_NS, "s" }, { "wall", VAL_NS, "s" },
	{ "wall_cut", VAL_BOOL, "" }, { "cpu_ms", VAL_F64, "ms" },
	{ "peak_commit_bytes", VAL_U64, "B" },
	{ "outstanding_commit_bytes", VAL_U64, "B" },
	{ "running_ns", VAL_U64, "ns" }, { "ready_ns", VAL_U64, "ns" },
	{ "waiting_ns", VAL_U64, "ns" },
	{ "crate_type", VAL_STR, "" }, { "opt_level", VAL_STR, "" },
	{ "incremental", VAL_STR, "" }, { "image", VAL_STR, "" },
	{ "instance", VAL_U64, "" }, { "start_utc", VAL_UTC, "" },
	{ "cmdline", VAL_STR, "" },
};
enum {
	C_CRATE, C_PID, C_START, C_WALL, C_WALL_CUT, C_CPU, C_PEAK, C_OUT, C_RUN,
	C_READY, C_WAIT, C_TYPE, C_OPT, C_INCR, C_IMAGE, C_INSTANCE,
	C_START_UTC, C_CMDLINE, C_NINST
};

static const struct stream_column crate_cols[] = {
	{ "crate", VAL_STR, "" }, { "instances", VAL_U64, "" },
	{ "wall", VAL_NS, "s" }, { "wall_cut", VAL_BOOL, "" },
	{ "cpu_ms", VAL_F64, "ms" },
	{ "peak_commit_bytes", VAL_U64, "B" },
	{ "outstanding_commit_bytes", VAL_U64, "B" },
	{ "running_ns", VAL_U64, "ns" }, { "ready_ns", VAL_U64, "ns" },
	{ "waiting_ns", VAL_U64, "ns" },
};
enum {
	K_CRATE, K_INSTANCES, K_WALL, K_WALL_CUT, K_CPU, K_PEAK, K_OUT, K_RUN, K_READY,
	K_WAIT, K_NCRATE
};

/* The figure each column holds, by the columns of instance rows. */
static const int fig_col[F_COUNT] = {
	[F_WALL] = C_WALL, [F_CPU_NS] = C_CPU, [F_PEAK] = C_PEAK,
	[F_OUTSTANDING] = C_OUT, [F_RUNNING] = C_RUN, [F_READY] = C_READY,
	[F_WAITING] = C_WAIT
};
static const int fig_kcol[F_COUNT] = {
	[F_WALL] = K_WALL, [F_CPU_NS] = K_CPU, [F_PEAK] = K_PEAK,
	[F_OUTSTANDING] = K_OUT, [F_RUNNING] = K_RUN, [F_READY] = K_READY,
	[F_WAITING] = K_WAIT
};

static void
crow_release(struct crow *c)
{
	free(c->image);
	free(c->crate);
	free(c->crate_type);
	free(c->opt_level);
	free(c->incremental);
	free(c->cmdline);
}

static struct crow *
new_row(struct view *v)
{
	struct crow *c = array_slot(&v->rows, &v->rows_cap, v->nrows,
	    sizeof(*c));

	if (c == NULL)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->start_ns = NO_TIME;
	v->nrows++;
	return c;
}

/* A figure into a row and the known bits: the larger for the peak. */
static void
add_fig(struct crow *c, int f, int64_t x)
{
	if (!(c->known & (1u << f)))
		c->fig[f] = x;
	else if (f == F_PEAK)
		c->fig[f] = x > c->fig[f] ? x : c->fig[f];
	else
		c->fig[f] += x;
	c->known |= 1u << f;
}

static int
set_str(char **dst, const struct value *val)
{
	if (*dst != NULL)
		return 0;
	*dst = val != NULL && val->type == VAL_STR ?
	    platform_strndup(val->v.s.ptr, val->v.s.len) : platform_strndup("", 0);
	return *dst != NULL ? 0 : -1;
}

static void
map_columns(struct view *v, const struct stream_table *t)
{
	const struct stream_column *want;
	size_t i, k;

	v->merge_by_crate = 0;
	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, "instances") == 0)
			v->merge_by_crate = 1;
	want = v->merge_by_crate ? crate_cols : inst_cols;
	v->ncols = v->merge_by_crate ? K_NCRATE : C_NINST;
	for (k = 0; k < v->ncols; k++) {
		v->cols[k] = -1;
		for (i = 0; i < t->ncols; i++)
			if (strcmp(t->cols[i].name, want[k].name) == 0 &&
			    t->cols[i].type == want[k].type)
				v->cols[k] = (int)i;
	}
}

static const struct value *
cell(const struct view *v, const struct stream_row *row, int k)
{
	int i = v->cols[k];

	return i >= 0 && (size_t)i < row->ncells &&
	    row->cells[i].type != VAL_NULL ? &row->cells[i] : NULL;
}

/* A string cell into a key: its length, then its bytes. */
static void
put_key_str(struct buf *b, const struct value *val)
{
	size_t len = val != NULL && val->type == VAL_STR ? val->v.s.len : 0;

	buf_put(b, &len, sizeof(len));
	if (len > 0)
		buf_put(b, val->v.s.ptr, len);
}

static int
merge_row(struct view *v, const struct stream_row *row)
{
	const struct value *image, *crate, *pid, *start, *utc, *x;
	struct crow *c = NULL;
	uint32_t id;
	int f, by = v->merge_by_crate, added;
	unsigned char b = (unsigned char)by;
	uint64_t u;
	int64_t t;

	crate = cell(v, row, by ? K_CRATE : C_CRATE);
	image = by ? NULL : cell(v, row, C_IMAGE);
	pid = by ? NULL : cell(v, row, C_PID);
	start = by ? NULL : cell(v, row, C_START);
	utc = by ? NULL : cell(v, row, C_START_UTC);
	/* The row's key: a row by crate, or an instance. */
	v->key.len = 0;
	buf_put(&v->key, &b, 1);
	put_key_str(&v->key, crate);
	if (!by) {
		put_key_str(&v->key, image);
		u = pid != NULL ? pid->v.u + 1 : 0;
		buf_put(&v->key, &u, sizeof(u));
		t = start != NULL ? start->v.i : NO_TIME;
		buf_put(&v->key, &t, sizeof(t));
		u = utc != NULL ? utc->v.u : 0;
		buf_put(&v->key, &u, sizeof(u));
	}
	if (v->key.oom || (id = intern_add(&v->row_keys, v->key.data,
	    v->key.len, &added)) == 0)
		return -1;
	if (!added)
		c = &v->rows[id - 1];
	if (c == NULL) {
		if ((c = new_row(v)) == NULL)
			return -1;
		if (!by) {
			c->has_pid = pid != NULL;
			c->pid = pid != NULL ? (uint32_t)pid->v.u : 0;
			c->start_ns = start != NULL ? start->v.i : NO_TIME;
			c->start_utc = utc != NULL ? utc->v.u : 0;
		}
		if (set_str(&c->crate, crate) != 0 ||
		    set_str(&c->image, image) != 0)
			return -1;
	}
	if (!by && (set_str(&c->crate_type, cell(v, row, C_TYPE)) != 0 ||
	    set_str(&c->opt_level, cell(v, row, C_OPT)) != 0 ||
	    set_str(&c->incremental, cell(v, row, C_INCR)) != 0 ||
	    set_str(&c->cmdline, cell(v, row, C_CMDLINE)) != 0))
		return -1;
	x = cell(v, row, by ? K_WALL_CUT : C_WALL_CUT);
	c->wall_cut |= x != NULL && x->v.u != 0;
	x = by ? cell(v, row, K_INSTANCES) : NULL;
	c->instances += x != NULL ? x->v.u : by ? 0 : (c->instances == 0);
	for (f = 0; f < F_COUNT; f++) {
		if ((x = cell(v, row, by ? fig_kcol[f] : fig_col[f])) == NULL)
			continue;
		if (f == F_CPU_NS && isfinite(x->v.f) &&
		    fabs(x->v.f) < 9e12)
			add_fig(c, f, (int64_t)llround(x->v.f * 1e6));
		else if (f != F_CPU_NS)
			add_fig(c, f, x->v.i);
	}
	return 0;
}

static int
merge(struct view *v, const struct stream_record *rec)
{
	if (rec->type == REC_HEADER)
		v->merge_table = 0;
	if (rec->type == REC_TABLE) {
		v->merge_table = strcmp(rec->u.table.name, "crates") == 0 ?
		    rec->u.table.id : 0;
		if (v->merge_table != 0)
			map_columns(v, &rec->u.table);
	}
	if (rec->type == REC_ROW && v->merge_table != 0 &&
	    rec->u.row.table == v->merge_table)
		return merge_row(v, &rec->u.row);
	return 0;
}

static int
crates_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;

	if (v->merge)
		return merge(v, rec);
	if (rec->type == REC_HEADER && v->section_open)
		end_section(v);
	if (rec->type == REC_HEADER) {
		size_t i;

		/* A process seen again in the next section goes on. */
		for (i = 0; i < v->mem_cap; i++)
			if (v->mem[i].cut)
				v->mem[i].ended = v->mem[i].cut = 0;
	}
	if ((v->mine != NULL && model_record(v->mine, r, rec) != 0) ||
	    own_threads(v, r) != 0)
		return -1;
	if (rec->type == REC_END && v->section_open)
		end_section(v);
	if (rec->type != REC_EVENT)
		return 0;
	switch (ev->h.kind) {
	case EV_SAMPLE:
		v->has_samples = 1;
		return 0;
	case EV_CSWITCH:
		v->has_cswitch = 1;
		return 0;
	case EV_PROCESS:
		return ev->h.op == EVOP_END ? on_exit(v, r, ev) : 0;
	case EV_VMEM:
		v->section_open = 1;
		return on_vmem(v, r, ev);
	default:
		return 0;
	}
}

/* ---- the command line ---- */

/*
 * The next word of a command line from *pos: spaces skip, quotes are
 * dropped.  @return : its length (0 at the end), the word in buf.
 */
static size_t
next_word(const char *s, size_t len, size_t *pos, char *buf, size_t cap)
{
	size_t i = *pos, n = 0;
	int q = 0;

	while (i < len && s[i] == ' ')
		i++;
	for (; i < len && (q || s[i] != ' '); i++) {
		if (s[i] == '"')
			q = !q;
		else if (n + 1 < cap)
			buf[n++] = s[i];
	}
	buf[n] = '\0';
	*pos = i;
	return n;
}

/* Appends `s` to a comma-separated list in buf, once. */
static void
add_item(char *buf, size_t cap, const char *s)
{
	size_t n = strlen(buf), k = strlen(s);
	const char *p;

	for (p = buf; (p = strstr(p, s)) != NULL; p += k)
		if ((p == buf || p[-1] == ',') && (p[k] == ',' ||
		    p[k] == '\0'))
			return;
	if (n + k + 2 > cap)
		return;
	if (n > 0)
		buf[n++] = ',';
	memcpy(buf + n, s, k + 1);
}

/*
 * crate_type (every --crate-type, in order), opt_level (-C opt-level,
 * -O as 2, else rustc's default 0) and incremental (yes when -C
 * incremental names a directory, else no), for a compiling command line.
 */
static void
parse_cmdline(const char *s, size_t len, char *type, char *opt, char *incr,
    size_t cap)
{
	char w[512], arg[512];
	size_t pos = 0;
	const char *cg;

	type[0] = incr[0] = '\0';
	snprintf(opt, cap, "0");
	snprintf(incr, cap, "no");
	while (next_word(s, len, &pos, w, sizeof(w)) > 0) {
		cg = NULL;
		if (strcmp(w, "--crate-type") == 0) {
			if (next_word(s, len, &pos, arg, sizeof(arg)) > 0)
				add_item(type, cap, arg);
		} else if (strncmp(w, "--crate-type=", 13) == 0)
			add_item(type, cap, w + 13);
		else if (strcmp(w, "-O") == 0)
			snprintf(opt, cap, "2");
		else if (strcmp(w, "-C") == 0 || strcmp(w, "--codegen") == 0) {
			if (next_word(s, len, &pos, arg, sizeof(arg)) > 0)
				cg = arg;
		} else if (strncmp(w, "-C", 2) == 0)
			cg = w + 2;
		else if (strncmp(w, "--codegen=", 10) == 0)
			cg = w + 10;
		if (cg == NULL)
			continue;
		if (strncmp(cg, "opt-level=", 10) == 0)
			snprintf(opt, cap, "%s", cg + 10);
		else if (strncmp(cg, "incremental=", 12) == 0 && cg[12] != '\0')
			snprintf(incr, cap, "yes");
	}
}

/* Whether s (n bytes) is `lower` in any case. */
static int
same_ci(const char *s, size_t n, const char *lower)
{
	size_t i;

	if (n != strlen(lower))
		return 0;
	for (i = 0; i < n; i++)
		if (tolower((unsigned char)s[i]) != lower[i])
			return 0;
	return 1;
}

/* Whether an entry is a rustc instance. */
static int
is_rustc(const struct proctab *pt, const struct proc *p)
{
	size_t len, clen;
	const char *image = proctab_str(pt, p->image, &len), *b;
	const char *cmd = p->cmdline != 0 ?
	    proctab_str(pt, p->cmdline, &clen) : "";

	if (p->cmdline == 0)
		clen = 0;
	for (b = image + len; b > image && b[-1] != '\\' && b[-1] != '/'; b--)
		;
	len -= (size_t)(b - image);
	if (same_ci(b, len, "rustc") || same_ci(b, len, "rustc.exe"))
		return 1;
	return proctab_crate(cmd, clen, &len) != NULL;
}

/*
 * A process still running at the trace's end ran at least until then:
 * its wall time is that lower bound, marked, so that it sorts and
 * compares by what is known rather than as an empty cell.
 */
static void
wall_to_end(struct view *v, uint32_t index, struct crow *c)
{
	struct value cells[PROCTAB_NCOLS];

	proctab_cells(v->pt, index, cells);
	if (cells[PT_LAST_SEEN].type != VAL_NS ||
	    cells[PT_LAST_SEEN].v.i < c->start_ns)
		return;
	add_fig(c, F_WALL, cells[PT_LAST_SEEN].v.i - c->start_ns);
	c->wall_cut = 1;
	v->walls_cut++;
}

/* The rows of the trace's rustc instances, in order of start. */
static int
trace_rows(struct view *v)
{
	uint32_t n, i, *order;
	size_t k;

	sched_close(v->s);
	if ((order = proctab_by_start(v->pt, &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const struct proc *p = proctab_get(v->pt, order[i]);
		const char *s, *crate;
		size_t len, clen = 0;
		char type[256], opt[64], incr[8];
		struct crow *c;

		if (!is_rustc(v->pt, p))
			continue;
		if ((c = new_row(v)) == NULL)
			goto oom;
		p = proctab_get(v->pt, order[i]);
		c->has_pid = 1;
		c->pid = p->pid;
		c->start_ns = p->start_ns;
		c->start_utc = p->start_utc;
		c->instances = 1;
		s = proctab_str(v->pt, p->image, &len);
		if ((c->image = platform_strndup(s, len)) == NULL)
			goto oom;
		s = p->cmdline != 0 ? proctab_str(v->pt, p->cmdline, &len) : "";
		if (p->cmdline == 0)
			len = 0;
		crate = proctab_crate(s, len, &clen);
		parse_cmdline(s, len, type, opt, incr, sizeof(type));
		if ((c->cmdline = platform_strndup(s, len)) == NULL ||
		    (c->crate = platform_strndup(crate != NULL ? crate : "",
		    clen)) == NULL ||
		    (c->crate_type = platform_strndup(type, strlen(type))) == NULL ||
		    (c->opt_level = platform_strndup(crate != NULL ? opt : "",
		    crate != NULL ? strlen(opt) : 0)) == NULL ||
		    (c->incremental = platform_strndup(crate != NULL ? incr : "",
		    crate != NULL ? strlen(incr) : 0)) == NULL)
			goto oom;
		if (p->start_ns != NO_TIME && p->end_ns != NO_TIME)
			add_fig(c, F_WALL, p->end_ns - p->start_ns);
		else if (p->start_ns != NO_TIME)
			wall_to_end(v, order[i], c);
		if (v->has_samples)
			add_fig(c, F_CPU_NS, (int64_t)p->cpu_ns);
		if (v->has_vmem) {
			const struct cmem *m = order[i] < v->mem_cap ?
			    &v->mem[order[i]] : NULL;

			add_fig(c, F_PEAK, m != NULL && m->used ? m->peak : 0);
			add_fig(c, F_OUTSTANDING, m != NULL && m->used ?
			    m->outstanding : 0);
		}
		if (v->has_cswitch) {
			add_fig(c, F_RUNNING, 0);
			add_fig(c, F_READY, 0);
			add_fig(c, F_WAITING, 0);
			for (k = 1; k < v->threads_seen; k++) {
				const struct sched_thread *t;

				if (v->owner[k] != order[i])
					continue;
				t = sched_thread(v->s, k);
				add_fig(c, F_RUNNING, (int64_t)t->running_ns);
				add_fig(c, F_READY, (int64_t)t->ready_ns);
				add_fig(c, F_WAITING, (int64_t)t->waiting_ns);
			}
		}
	}
	free(order);
	return 0;
oom:
	free(order);
	return -1;
}

/* ---- tables ---- */

/* Instances by start (before the trace first), then pid. */
static int
cmp_start(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->start_utc != y->start_utc)
		return x->start_utc < y->start_utc ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->image, y->image);
}

/* Crates by falling wall time, then name. */
static int
cmp_wall(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	int64_t wx = x->known & (1u << F_WALL) ? x->fig[F_WALL] : -1;
	int64_t wy = y->known & (1u << F_WALL) ? y->fig[F_WALL] : -1;

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return strcmp(x->crate, y->crate);
}

/* Sums the instance rows into one row a crate (v->rows replaced). */
static int
group_by_crate(struct view *v)
{
	struct crow *in = v->rows;
	struct intern crates = { 0 };
	size_t n = v->nrows, i, f;
	uint32_t id;
	int added, rc = 0;

	v->rows = NULL;
	v->nrows = v->rows_cap = 0;
	for (i = 0; i < n && rc == 0; i++) {
		struct crow *c;

		if ((id = intern_add(&crates, in[i].crate,
		    strlen(in[i].crate), &added)) == 0) {
			rc = -1;
			break;
		}
		if (added) {
			if ((c = new_row(v)) == NULL) {
				rc = -1;
				break;
			}
			c->crate = in[i].crate;
			in[i].crate = NULL;
		} else
			c = &v->rows[id - 1];
		c->instances += in[i].instances;
		c->wall_cut |= in[i].wall_cut;
		for (f = 0; f < F_COUNT; f++)
			if (in[i].known & (1u << f))
				add_fig(c, (int)f, in[i].fig[f]);
	}
	for (i = 0; i < n; i++)
		crow_release(&in[i]);
	free(in);
	intern_release(&crates);
	return rc;
}

static struct value
strv(const char *s)
{
	return (struct value){ .type = VAL_STR,
	    .v.s = { s != NULL ? s : "", s != NULL ? strlen(s) : 0 } };
}

static struct value
figv(const struct crow *c, int f)
{
	if (!(c->known & (1u << f)))
		return (struct value){ .type = VAL_NULL };
	if (f == F_CPU_NS)
		return (struct value){ .type = VAL_F64,
		    .v.f = (double)c->fig[f] / 1e6 };
	if (f == F_WALL)
		return (struct value){ .type = VAL_NS, .v.i = c->fig[f] };
	return (struct value){ .type = VAL_U64, .v.u = (uint64_t)c->fig[f] };
}

static int
write_instances(struct view *v, struct stream_writer *w)
{
	struct value cells[C_NINST];
	struct stream_row row = { 1, C_NINST, cells };
	struct intern names = { 0 };
	uint64_t *nth = calloc(v->nrows + 1, sizeof(*nth));
	uint32_t id;
	size_t i;
	int rc, f;

	if (nth == NULL)
		return -1;
	if (v->nrows > 1)
		qsort(v->rows, v->nrows, sizeof(*v->rows), cmp_start);
	rc = view_write_table(w, 1, "crates", inst_cols, C_NINST);
	for (i = 0; i < v->nrows && rc == 0; i++) {
		const struct crow *c = &v->rows[i];

		/* The n-th row of its image and crate. */
		v->key.len = 0;
		buf_put(&v->key, c->image, strlen(c->image) + 1);
		buf_put(&v->key, c->crate, strlen(c->crate));
		if (v->key.oom || (id = intern_add(&names, v->key.data,
		    v->key.len, NULL)) == 0) {
			rc = -1;
			break;
		}
		memset(cells, 0, sizeof(cells));
		cells[C_CRATE] = strv(c->crate);
		if (c->has_pid)
			cells[C_PID] = (struct value){ .type = VAL_U64,
			    .v.u = c->pid };
		if (c->start_ns != NO_TIME)
			cells[C_START] = (struct value){ .type = VAL_NS,
			    .v.i = c->start_ns };
		for (f = 0; f < F_COUNT; f++)
			cells[fig_col[f]] = figv(c, f);
		cells[C_WALL_CUT] = (struct value){ .type = VAL_BOOL,
		    .v.u = (uint64_t)c->wall_cut };
		cells[C_TYPE] = strv(c->crate_type);
		cells[C_OPT] = strv(c->opt_level);
		cells[C_INCR] = strv(c->incremental);
		cells[C_IMAGE] = strv(c->image);
		cells[C_INSTANCE] = (struct value){ .type = VAL_U64,
		    .v.u = ++nth[id - 1] };
		if (c->start_utc != 0)
			cells[C_START_UTC] = (struct value){ .type = VAL_UTC,
			    .v.u = c->start_utc };
		cells[C_CMDLINE] = strv(c->cmdline);
		rc = stream_write_row(w, &row);
	}
	free(nth);
	intern_release(&names);
	return rc;
}

static int
write_crates(struct view *v, struct stream_writer *w)
{
	struct value cells[K_NCRATE];
	struct stream_row row = { 1, K_NCRATE, cells };
	size_t i;
	int rc, f;

	if (v->nrows > 1)
		qsort(v->rows, v->nrows, sizeof(*v->rows), cmp_wall);
	rc = view_write_table(w, 1, "crates", crate_cols, K_NCRATE);
	for (i = 0; i < v->nrows && rc == 0; i++) {
		const struct crow *c = &v->rows[i];

		cells[K_CRATE] = strv(c->crate);
		cells[K_INSTANCES] = (struct value){ .type = VAL_U64,
		    .v.u = c->instances };
		for (f = 0; f < F_COUNT; f++)
			cells[fig_kcol[f]] = figv(c, f);
		cells[K_WALL_CUT] = (struct value){ .type = VAL_BOOL,
		    .v.u = (uint64_t)c->wall_cut };
		rc = stream_write_row(w, &row);
	}
	return rc;
}

/* A note of count 0: a statement about the table, not a loss. */
static int
note(struct stream_writer *w, const char *what)
{
	struct stream_diag d = { what, 0, 0, 0 };

	return stream_write_diag(w, &d);
}

static int
crates_finish(struct view *v, struct stream_writer *w)
{
	if (v->merge && v->merge_by_crate && !v->by_crate) {
		view_warn("crates: tables by crate merge with --by crate "
		    "only");
		return -1;
	}
	if (!v->merge && trace_rows(v) != 0)
		return -1;
	if (v->by_crate && !(v->merge && v->merge_by_crate) &&
	    group_by_crate(v) != 0)
		return -1;
	if ((v->by_crate ? write_crates(v, w) : write_instances(v, w)) != 0)
		return -1;
	if (v->merge)
		return 0;
	if (v->walls_cut > 0 && note(w, "note: crates: a wall with wall_cut "
	    "is a lower bound: the process still ran at the trace's end; "
	    "rows sort and compare by it") != 0)
		return -1;
	if (!v->has_samples && note(w, "note: crates: no CPU samples in "
	    "the input: cpu_ms is empty (record with WPR's CPU profile)") != 0)
		return -1;
	if (!v->has_vmem && note(w, "note: crates: no VirtualAlloc events "
	    "in the input: the commit columns are empty (record with WPR's "
	    "VirtualAllocation profile)") != 0)
		return -1;
	if (!v->has_cswitch && note(w, "note: crates: no context switches "
	    "in the input: running, ready and waiting are empty (record "
	    "with WPR's CPU profile, CSwitch and ReadyThread)") != 0)
		return -1;
	return 0;
}

static void
crates_destroy(struct view *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->mem_cap; i++)
		vmem_map_release(&v->mem[i].map);
	for (i = 0; i < v->nrows; i++)
		crow_release(&v->rows[i]);
	free(v->mem);
	free(v->rows);
	free(v->owner);
	intern_release(&v->row_keys);
	buf_release(&v->key);
	model_free(v->mine);
	free(v);
}

const struct view_ops view_crates_ops = {
	.name = "crates",
	.usage = "[--by instance|crate] [--merge]",
	.summary = "a row per rustc process instance: its crate, wall and "
	    "CPU time, commit, running, ready and waiting time",
	.options = longopts,
	.tables = tables,
	.create = crates_create,
	.record = crates_record,
	.finish = crates_finish,
	.destroy = crates_destroy,
};
