/*
 * render_timeline.c - a timeline table (etlagg timeline) as a page that
 * draws it, the report's Timeline tab: a lane a thread, grouped by
 * process instance, its running, ready and waiting spans coloured as
 * WPA's CPU Usage (Precise) colours them, rustc's queries under it, the
 * CPU samples and the commit of the processes as curves above; it zooms
 * and pans, and a range selected gives each thread's running, ready and
 * waiting time there, its longest wait with the thread that readied it,
 * and the top stacks of the range (render_timeline_js.c, the script).
 *
 * The page carries its data, so that it stands alone and the selection
 * is computed in it.  A long trace has more spans than a page can hold:
 * so that the page stays under its budget, spans shorter than a length
 * that grows as they come (doubled whenever SEGS_MAX would be passed,
 * and at the end while the data passes DATA_MAX bytes)
 * are merged with their short neighbours of the same lane into mixed
 * spans that keep each state's time, so that the sums of a selection
 * stay exact to the edges of the spans it cuts; buckets of samples are
 * merged two into one (their count summed, the stack of the larger
 * kept), and queries shorter than a length that grows the same way are
 * left out.  The page says what was merged and left out.
 *
 * Memory: about 48 bytes a span, bucket or query kept, at most
 * SEGS_MAX + BUCKETS_MAX + QUERIES_MAX + COMMIT_MAX of them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "out/out_json.h"
#include "markup.h"
#include "render.h"
#include "render_timeline.h"

#define SEGS_MAX	40000	/* spans on the page */
#define BUCKETS_MAX	15000	/* buckets of samples */
#define QUERIES_MAX	15000	/* queries */
#define COMMIT_MAX	8000	/* steps of commit */
#define DEPTH_MAX	8	/* query levels drawn */
#define MIN_STEP	1000	/* ns: the first length merged or cut */
#define STACK_TEXT_MAX	480	/* bytes of a bucket's stack kept */
#define DATA_MAX	1000000	/* bytes of the page's data at most */
#define LANES_MAX	600	/* threads drawn: the busiest */

enum { ST_RUNNING, ST_READY, ST_WAITING, ST_MIXED };

/* The columns read, by name (etlagg(1), timeline). */
enum {
	C_PROCESS, C_PID, C_TID, C_STATE, C_START, C_END,
	C_OUT_STATE, C_REASON, C_RTID, C_RPID, C_RIMAGE, C_KIND, C_SAMPLES,
	C_STACK, C_COMMIT, C_QUERY, C_DEPTH, NCOLS
};
static const char *const col_names[NCOLS] = {
	"process", "pid", "tid", "state", "start", "end",
	"out_state", "wait_reason", "readying_tid", "readying_pid",
	"readying_image", "kind", "samples", "stack", "commit_bytes",
	"query", "query_depth"
};

/* A span of one state, or of several merged (ST_MIXED). */
struct seg {
	int64_t from, to;
	uint64_t ns[3];			/* by state */
	uint32_t reason, readier;	/* texts; 0: none */
	uint8_t state;
};

struct bucket {
	int64_t at, width;
	uint64_t count;
	uint32_t stack;
};

struct qspan {
	int64_t from, to;
	uint32_t label, depth;
};

struct lane {
	uint32_t proc, tid;
	int shown;			/* among the LANES_MAX busiest */
	uint64_t running;		/* its running time, to rank it */
	struct seg *s;
	size_t ns, scap;
	struct bucket *b;
	size_t nb, bcap;
	struct qspan *q;
	size_t nq, qcap;
};

struct proc {
	uint32_t label, pid;
	int64_t from, to;		/* its life; INT64_MIN: not known */
};

struct commit {
	int64_t at, step;
	uint32_t proc;
	uint64_t bytes;
};

struct render {
	FILE *fp;
	struct render_options opt;
	stream_id table;		/* the timeline table; 0: none yet */
	int col[NCOLS];
	int tables;			/* timeline tables seen */
	struct intern texts;		/* id - 1 is the index in the page */
	struct intern lane_keys, proc_keys;
	struct lane *lanes;
	size_t nlanes, lanecap;
	struct proc *procs;
	size_t nprocs, proccap;
	struct commit *commits;
	size_t ncommits, commitcap;
	uint32_t *page_id;		/* by text: its index on the page + 1 */
	size_t segs, buckets, queries;	/* kept, over all lanes */
	uint64_t segs_in, buckets_in, queries_in, queries_cut, deep;
	uint64_t commits_in;
	size_t lanes_hidden;		/* threads past LANES_MAX */
	int64_t seg_min, q_min;		/* merged below, left out below */
	int64_t bucket_w;		/* buckets merged to this width */
	int64_t commit_keep;		/* steps kept: one in this many */
	int64_t t0, t1;
	int oom;
};

static struct render *
timeline_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)format;
	if (rd == NULL)
		return NULL;
	rd->fp = fp;
	rd->opt = *opt;
	rd->t0 = INT64_MAX;
	rd->t1 = INT64_MIN;
	rd->commit_keep = 1;
	return rd;
}

/* ---- cells ---- */

static const struct value *
cell(const struct render *rd, const struct stream_row *row, int c)
{
	int i = rd->col[c];

	if (i < 0 || (size_t)i >= row->ncells ||
	    row->cells[i].type == VAL_NULL)
		return NULL;
	return &row->cells[i];
}

static int64_t
cell_int(const struct render *rd, const struct stream_row *row, int c,
    int64_t dflt)
{
	const struct value *v = cell(rd, row, c);

	if (v == NULL)
		return dflt;
	return v->type == VAL_U64 ? (int64_t)(v->v.u > INT64_MAX ? INT64_MAX :
	    v->v.u) : v->type == VAL_F64 ? (int64_t)v->v.f : v->v.i;
}

/* A text of the page: its id, 0 for none or empty. */
static uint32_t
text_n(struct render *rd, const char *s, size_t len)
{
	uint32_t id;

	if (s == NULL || len == 0)
		return 0;
	if ((id = intern_add(&rd->texts, s, len, NULL)) == 0)
		rd->oom = 1;
	return id;
}

static uint32_t
cell_text(struct render *rd, const struct stream_row *row, int c)
{
	const struct value *v = cell(rd, row, c);

	return v != NULL && v->type == VAL_STR ? text_n(rd, v->v.s.ptr,
	    v->v.s.len) : 0;
}

/* ---- processes and lanes ---- */

static uint32_t
proc_of(struct render *rd, uint32_t label, uint32_t pid)
{
	uint32_t key[2] = { label, pid }, id;
	int added = 0;
	struct proc *p;

	if ((id = intern_add(&rd->proc_keys, key, sizeof(key), &added)) == 0) {
		rd->oom = 1;
		return 0;
	}
	if (!added)
		return id - 1;
	if ((p = array_slot_grow(&rd->procs, &rd->proccap, rd->nprocs,
	    sizeof(*p))) == NULL) {
		rd->oom = 1;
		return 0;
	}
	p->label = label;
	p->pid = pid;
	p->from = p->to = INT64_MIN;
	return (uint32_t)rd->nprocs++;
}

/*
 * The lane of a row's thread: by process instance (its label) and tid,
 * since buckets of samples do not give the thread's start (two lives of
 * one tid in one process share a lane; their spans do not overlap).
 * NULL if out of memory.
 */
static struct lane *
lane_of(struct render *rd, const struct stream_row *row)
{
	struct {
		uint32_t label, pid, tid;
	} key;
	struct lane *l;
	uint32_t id;
	int added = 0;

	memset(&key, 0, sizeof(key));
	key.label = cell_text(rd, row, C_PROCESS);
	key.pid = (uint32_t)cell_int(rd, row, C_PID, 0);
	key.tid = (uint32_t)cell_int(rd, row, C_TID, 0);
	if ((id = intern_add(&rd->lane_keys, &key, sizeof(key), &added)) ==
	    0) {
		rd->oom = 1;
		return NULL;
	}
	if (!added)
		return &rd->lanes[id - 1];
	if ((l = array_slot_grow(&rd->lanes, &rd->lanecap, rd->nlanes,
	    sizeof(*l))) == NULL) {
		rd->oom = 1;
		return NULL;
	}
	memset(l, 0, sizeof(*l));
	l->proc = proc_of(rd, key.label, key.pid);
	l->tid = key.tid;
	rd->nlanes++;
	return l;
}

static void
span_time(struct render *rd, int64_t from, int64_t to)
{
	if (from < rd->t0)
		rd->t0 = from;
	if (to > rd->t1)
		rd->t1 = to;
}

/* ---- spans: short ones merged ---- */

static int
is_short(const struct render *rd, const struct seg *s)
{
	return s->to - s->from < rd->seg_min;
}

/* Whether b, which follows a, merges into it. */
static int
merges(const struct render *rd, const struct seg *a, const struct seg *b)
{
	return a->to == b->from && is_short(rd, a) && is_short(rd, b);
}

static void
merge_seg(struct seg *a, const struct seg *b)
{
	int i;

	a->to = b->to;
	for (i = 0; i < 3; i++)
		a->ns[i] += b->ns[i];
	if (a->state != b->state)
		a->state = ST_MIXED;
	if (a->state == ST_MIXED)
		a->reason = a->readier = 0;
}

/* Merges a lane's short neighbours anew, at the length now merged. */
static void
coalesce(struct render *rd, struct lane *l)
{
	size_t i, out = 0;

	for (i = 0; i < l->ns; i++) {
		if (out > 0 && merges(rd, &l->s[out - 1], &l->s[i]))
			merge_seg(&l->s[out - 1], &l->s[i]);
		else
			l->s[out++] = l->s[i];
	}
	rd->segs -= l->ns - out;
	l->ns = out;
}

/* Merges spans up to twice as long as before, in every lane. */
static void
merge_more(struct render *rd)
{
	size_t i;

	rd->seg_min = rd->seg_min < MIN_STEP ? MIN_STEP : rd->seg_min * 2;
	for (i = 0; i < rd->nlanes; i++)
		coalesce(rd, &rd->lanes[i]);
}

static void
add_seg(struct render *rd, struct lane *l, const struct seg *s)
{
	rd->segs_in++;
	l->running += s->ns[ST_RUNNING];
	if (l->ns > 0 && merges(rd, &l->s[l->ns - 1], s)) {
		merge_seg(&l->s[l->ns - 1], s);
		return;
	}
	if (array_room(&l->s, &l->scap, l->ns, sizeof(*l->s)) == NULL) {
		rd->oom = 1;
		return;
	}
	l->s[l->ns++] = *s;
	rd->segs++;
	while (rd->segs > SEGS_MAX)
		merge_more(rd);
}

/* A state's number by its name (etlagg(1), timeline); waiting if other. */
static uint8_t
state_of(const struct value *st)
{
	static const char *const names[] = { "running", "ready" };
	uint8_t i;

	for (i = 0; i < 2; i++)
		if (st->v.s.len == strlen(names[i]) &&
		    memcmp(st->v.s.ptr, names[i], st->v.s.len) == 0)
			return i;
	return ST_WAITING;
}

static void
state_row(struct render *rd, const struct stream_row *row)
{
	const struct value *st = cell(rd, row, C_STATE);
	struct lane *l = lane_of(rd, row);
	char who[320];
	struct seg s;
	int n;

	if (l == NULL || st == NULL || st->type != VAL_STR)
		return;
	memset(&s, 0, sizeof(s));
	s.from = cell_int(rd, row, C_START, 0);
	s.to = cell_int(rd, row, C_END, s.from);
	if (s.to < s.from)
		return;
	s.state = state_of(st);
	s.ns[s.state] = (uint64_t)(s.to - s.from);
	if (s.state != ST_RUNNING) {
		if ((s.reason = cell_text(rd, row, C_REASON)) == 0)
			s.reason = cell_text(rd, row, C_OUT_STATE);
		if (cell(rd, row, C_RTID) != NULL) {
			const struct value *im = cell(rd, row, C_RIMAGE);

			n = snprintf(who, sizeof(who), "%.*s (%" PRId64
			    "), thread %" PRId64, im != NULL && im->type ==
			    VAL_STR ? (int)(im->v.s.len < 256 ? im->v.s.len :
			    256) : 1, im != NULL && im->type == VAL_STR ?
			    im->v.s.ptr : "?", cell_int(rd, row, C_RPID, 0),
			    cell_int(rd, row, C_RTID, 0));
			if (n > 0)
				s.readier = text_n(rd, who, (size_t)n <
				    sizeof(who) ? (size_t)n : sizeof(who) - 1);
		}
	}
	span_time(rd, s.from, s.to);
	add_seg(rd, l, &s);
}

/* ---- buckets of samples: merged two into one ---- */

/*
 * A bucket's stack, its innermost STACK_TEXT_MAX bytes at most (from a
 * frame's start, after "...;"): the page shows the innermost frames, and
 * a whole stack of each bucket would fill it.
 */
static uint32_t
stack_text(struct render *rd, const struct stream_row *row)
{
	const struct value *v = cell(rd, row, C_STACK);
	const char *p, *cut;
	char buf[STACK_TEXT_MAX + 8];
	size_t len;

	if (v == NULL || v->type != VAL_STR)
		return 0;
	p = v->v.s.ptr;
	len = v->v.s.len;
	if (len <= STACK_TEXT_MAX)
		return text_n(rd, p, len);
	cut = memchr(p + len - STACK_TEXT_MAX, ';', STACK_TEXT_MAX);
	cut = cut != NULL ? cut + 1 : p + len - STACK_TEXT_MAX;
	memcpy(buf, "...;", 4);
	memcpy(buf + 4, cut, (size_t)(p + len - cut));
	return text_n(rd, buf, 4 + (size_t)(p + len - cut));
}

static void
widen(struct render *rd, struct lane *l)
{
	size_t i, out = 0;
	struct bucket *a, *b;

	for (i = 0; i < l->nb; i++) {
		b = &l->b[i];
		b->at -= b->at % rd->bucket_w;
		b->width = rd->bucket_w;
		a = out > 0 ? &l->b[out - 1] : NULL;
		if (a != NULL && a->at == b->at) {
			if (b->count > a->count)
				a->stack = b->stack;
			a->count += b->count;
		} else
			l->b[out++] = *b;
	}
	rd->buckets -= l->nb - out;
	l->nb = out;
}

/* Merges buckets two into one, in every lane. */
static void
widen_more(struct render *rd)
{
	size_t i;

	rd->bucket_w *= 2;
	for (i = 0; i < rd->nlanes; i++)
		widen(rd, &rd->lanes[i]);
}

static void
bucket_row(struct render *rd, const struct stream_row *row)
{
	struct lane *l = lane_of(rd, row);
	struct bucket b;

	if (l == NULL)
		return;
	rd->buckets_in++;
	b.at = cell_int(rd, row, C_START, 0);
	b.width = cell_int(rd, row, C_END, b.at) - b.at;
	b.count = (uint64_t)cell_int(rd, row, C_SAMPLES, 0);
	b.stack = stack_text(rd, row);
	if (b.width <= 0 || b.at < 0)
		return;
	if (rd->bucket_w < b.width)
		rd->bucket_w = b.width;
	span_time(rd, b.at, b.at + b.width);
	if (array_room(&l->b, &l->bcap, l->nb, sizeof(*l->b)) == NULL) {
		rd->oom = 1;
		return;
	}
	l->b[l->nb++] = b;
	rd->buckets++;
	if (rd->bucket_w > b.width)
		widen(rd, l);
	while (rd->buckets > BUCKETS_MAX)
		widen_more(rd);
}

/* ---- queries: the short ones left out ---- */

static void
cut_queries(struct render *rd, struct lane *l)
{
	size_t i, out = 0;

	for (i = 0; i < l->nq; i++)
		if (l->q[i].to - l->q[i].from >= rd->q_min)
			l->q[out++] = l->q[i];
	rd->queries -= l->nq - out;
	rd->queries_cut += l->nq - out;
	l->nq = out;
}

/* Leaves out queries up to twice as long as before, in every lane. */
static void
cut_more(struct render *rd)
{
	size_t i;

	rd->q_min = rd->q_min < MIN_STEP ? MIN_STEP : rd->q_min * 2;
	for (i = 0; i < rd->nlanes; i++)
		cut_queries(rd, &rd->lanes[i]);
}

static void
query_row(struct render *rd, const struct stream_row *row)
{
	struct lane *l = lane_of(rd, row);
	struct qspan q;

	if (l == NULL)
		return;
	rd->queries_in++;
	q.from = cell_int(rd, row, C_START, 0);
	q.to = cell_int(rd, row, C_END, q.from);
	q.depth = (uint32_t)cell_int(rd, row, C_DEPTH, 0);
	if (q.depth >= DEPTH_MAX) {
		rd->deep++;
		return;
	}
	if (q.to - q.from < rd->q_min) {
		rd->queries_cut++;
		return;
	}
	q.label = cell_text(rd, row, C_QUERY);
	if (array_room(&l->q, &l->qcap, l->nq, sizeof(*l->q)) == NULL) {
		rd->oom = 1;
		return;
	}
	l->q[l->nq++] = q;
	rd->queries++;
	while (rd->queries > QUERIES_MAX)
		cut_more(rd);
}

/* ---- lifetimes and commit ---- */

static void
process_row(struct render *rd, const struct stream_row *row)
{
	uint32_t i = proc_of(rd, cell_text(rd, row, C_PROCESS),
	    (uint32_t)cell_int(rd, row, C_PID, 0));
	struct proc *p;

	if (rd->oom)
		return;
	p = &rd->procs[i];	/* after proc_of(), which may move them */
	p->from = cell_int(rd, row, C_START, INT64_MIN);
	p->to = cell_int(rd, row, C_END, INT64_MIN);
}

static void
thin_commits(struct render *rd)
{
	size_t i, out = 0;

	for (i = 0; i < rd->ncommits; i++)
		if ((rd->commits[i].at / rd->commits[i].step) %
		    rd->commit_keep == 0)
			rd->commits[out++] = rd->commits[i];
	rd->ncommits = out;
}

static void
commit_row(struct render *rd, const struct stream_row *row)
{
	struct commit c;

	rd->commits_in++;
	c.at = cell_int(rd, row, C_START, 0);
	c.step = cell_int(rd, row, C_END, c.at) - c.at;
	c.bytes = (uint64_t)cell_int(rd, row, C_COMMIT, 0);
	c.proc = proc_of(rd, cell_text(rd, row, C_PROCESS),
	    (uint32_t)cell_int(rd, row, C_PID, 0));
	if (c.step <= 0 || c.at < 0 || (c.at / c.step) % rd->commit_keep != 0)
		return;
	if (array_room(&rd->commits, &rd->commitcap, rd->ncommits,
	    sizeof(*rd->commits)) == NULL) {
		rd->oom = 1;
		return;
	}
	rd->commits[rd->ncommits++] = c;
	while (rd->ncommits > COMMIT_MAX) {
		rd->commit_keep *= 2;
		thin_commits(rd);
	}
}

/* ---- the table ---- */

static void
begin_table(struct render *rd, const struct stream_table *t)
{
	size_t i;
	int c;

	if (strcmp(t->name, "timeline") != 0)
		return;
	rd->table = t->id;
	rd->tables++;
	for (c = 0; c < NCOLS; c++) {
		rd->col[c] = -1;
		for (i = 0; i < t->ncols; i++)
			if (strcmp(t->cols[i].name, col_names[c]) == 0)
				rd->col[c] = (int)i;
	}
}

/* Whether a row is of kind `k` (a table without kinds: all states). */
static int
kind_is(const struct render *rd, const struct stream_row *row, const char *k)
{
	const struct value *v = cell(rd, row, C_KIND);

	if (v == NULL || v->type != VAL_STR)
		return strcmp(k, "state") == 0;
	return v->v.s.len == strlen(k) && memcmp(v->v.s.ptr, k, v->v.s.len) ==
	    0;
}

static void
table_row(struct render *rd, const struct stream_row *row)
{
	if (kind_is(rd, row, "state"))
		state_row(rd, row);
	else if (kind_is(rd, row, "samples"))
		bucket_row(rd, row);
	else if (kind_is(rd, row, "query"))
		query_row(rd, row);
	else if (kind_is(rd, row, "process"))
		process_row(rd, row);
	else if (kind_is(rd, row, "commit"))
		commit_row(rd, row);
}

static int
timeline_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	(void)r;
	switch (rec->type) {
	case REC_HEADER:
		rd->table = 0;		/* table ids are a section's */
		break;
	case REC_TABLE:
		begin_table(rd, &rec->u.table);
		break;
	case REC_ROW:
		if (rd->table != 0 && rec->u.row.table == rd->table)
			table_row(rd, &rec->u.row);
		break;
	default:
		break;
	}
	return rd->oom ? -1 : 0;
}

/* ---- the page ---- */

/* A short formatted piece (a line of the data, a note) appended to b. */
static void
buf_printf(struct buf *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		buf_put(b, line, (size_t)n < sizeof(line) ? (size_t)n :
		    sizeof(line) - 1);
}

static void
put_num(struct buf *b, int64_t v)
{
	char n[24];
	int len = snprintf(n, sizeof(n), "%" PRId64 ",", v);

	buf_put(b, n, (size_t)len);
}

/* Ends a JSON array whose last element has a comma after it. */
static void
end_array(struct buf *b)
{
	if (b->len > 0 && b->data[b->len - 1] == ',')
		b->len--;
	buf_put(b, "],", 2);
}

/*
 * The texts the page uses, numbered anew from 1 in order: those of
 * merged spans, merged buckets and queries left out are not written.
 * @return : how many, or -1 if out of memory.
 */
static long
number_texts(struct render *rd)
{
	size_t i, k;
	long n = 0;

#define USE(id)	do { if ((id) != 0) rd->page_id[(id)] = 1; } while (0)
	if ((rd->page_id = calloc(rd->texts.count + 1,
	    sizeof(*rd->page_id))) == NULL)
		return -1;
	for (i = 0; i < rd->nprocs; i++)
		USE(rd->procs[i].label);
	for (i = 0; i < rd->nlanes; i++) {
		const struct lane *l = &rd->lanes[i];

		if (!l->shown)
			continue;
		for (k = 0; k < l->ns; k++)
			if (l->s[k].state != ST_MIXED) {
				USE(l->s[k].reason);
				USE(l->s[k].readier);
			}
		for (k = 0; k < l->nb; k++)
			USE(l->b[k].stack);
		for (k = 0; k < l->nq; k++)
			USE(l->q[k].label);
	}
#undef USE
	for (i = 1; i <= rd->texts.count; i++)
		if (rd->page_id[i] != 0)
			rd->page_id[i] = (uint32_t)++n;
	return n;
}

/* A text's number on the page (0: none). */
static uint32_t
page_text(const struct render *rd, uint32_t id)
{
	return id != 0 ? rd->page_id[id] : 0;
}

static void
put_lane(const struct render *rd, struct buf *b, const struct lane *l)
{
	int64_t last = 0;
	size_t i;

	buf_printf(b, "[%" PRIu32 ",%" PRIu32 ",[", l->proc, l->tid);
	for (i = 0; i < l->ns; i++) {
		const struct seg *s = &l->s[i];

		put_num(b, s->from - last);
		put_num(b, s->to - s->from);
		put_num(b, s->state);
		put_num(b, s->state == ST_MIXED ? (int64_t)s->ns[ST_RUNNING] :
		    page_text(rd, s->reason));
		put_num(b, s->state == ST_MIXED ? (int64_t)s->ns[ST_READY] :
		    page_text(rd, s->readier));
		last = s->from;
	}
	end_array(b);
	buf_put(b, "[", 1);
	for (last = 0, i = 0; i < l->nb; i++) {
		put_num(b, l->b[i].at - last);
		put_num(b, l->b[i].width);
		put_num(b, (int64_t)l->b[i].count);
		put_num(b, page_text(rd, l->b[i].stack));
		last = l->b[i].at;
	}
	end_array(b);
	buf_put(b, "[", 1);
	for (last = 0, i = 0; i < l->nq; i++) {
		put_num(b, l->q[i].from - last);
		put_num(b, l->q[i].to - l->q[i].from);
		put_num(b, l->q[i].depth);
		put_num(b, page_text(rd, l->q[i].label));
		last = l->q[i].from;
	}
	end_array(b);
	b->len--;
	buf_put(b, "],\n", 3);
}

/* What the page left out or merged, as sentences for its notes. */
static void
put_notes(struct render *rd, struct buf *b)
{
	buf_put(b, "\"notes\":[", 9);
	if (rd->lanes_hidden > 0)
		buf_printf(b, "\"%zu threads: the %d that ran the longest are "
		    "shown, %zu left out (a selection sums the threads shown)."
		    "\",", rd->nlanes, LANES_MAX, rd->lanes_hidden);
	if (rd->seg_min > 0)
		buf_printf(b, "\"%" PRIu64 " spans, more than the page holds: "
		    "those shorter than %.3f ms are merged with their short "
		    "neighbours into mixed spans (coloured by their main "
		    "state, each state's time kept), %zu spans shown.\",",
		    rd->segs_in, rd->seg_min / 1e6, rd->segs);
	if (rd->buckets_in > rd->buckets)
		buf_printf(b, "\"%" PRIu64 " buckets of samples merged into "
		    "%zu of %.3f ms (the stack of each is its larger part's)."
		    "\",", rd->buckets_in, rd->buckets, rd->bucket_w / 1e6);
	if (rd->queries_cut > 0)
		buf_printf(b, "\"%" PRIu64 " queries shorter than %.3f ms left "
		    "out, %zu shown.\",", rd->queries_cut, rd->q_min / 1e6,
		    rd->queries);
	if (rd->deep > 0)
		buf_printf(b, "\"%" PRIu64 " queries nested deeper than %d "
		    "levels left out.\",", rd->deep, DEPTH_MAX);
	if (rd->commit_keep > 1)
		buf_printf(b, "\"The commit curve: one step in %" PRId64
		    " of %" PRIu64 ".\",", rd->commit_keep, rd->commits_in);
	end_array(b);
}

/* The page's data, one object: `const D = {...};`. */
static void
put_data(struct render *rd, struct buf *b)
{
	const void *key;
	size_t i, len;

	buf_printf(b, "const D = {\"t0\":%" PRId64 ",\"t1\":%" PRId64 ",\n",
	    rd->t0 <= rd->t1 ? rd->t0 : 0, rd->t0 <= rd->t1 ? rd->t1 : 1);
	buf_put(b, "\"texts\":[\"\",", 12);
	for (i = 1; i <= rd->texts.count; i++) {
		if (rd->page_id[i] == 0)
			continue;
		key = intern_key(&rd->texts, (uint32_t)i, &len);
		out_json_string_html(b, key, len);
		buf_put(b, ",\n", rd->page_id[i] % 16 == 0 ? 2 : 1);
	}
	end_array(b);
	buf_put(b, "\n\"procs\":[", 10);
	for (i = 0; i < rd->nprocs; i++) {
		const struct proc *p = &rd->procs[i];

		buf_printf(b, "[%" PRIu32 ",%" PRIu32 ",", page_text(rd,
		    p->label), p->pid);
		if (p->from == INT64_MIN)
			buf_put(b, "null,null],", 11);
		else
			buf_printf(b, "%" PRId64 ",%" PRId64 "],", p->from,
			    p->to);
	}
	end_array(b);
	buf_put(b, "\n\"lanes\":[\n", 11);
	for (i = 0; i < rd->nlanes; i++)
		if (rd->lanes[i].shown)
			put_lane(rd, b, &rd->lanes[i]);
	end_array(b);
	buf_put(b, "\n\"commit\":[", 11);
	for (i = 0; i < rd->ncommits; i++) {
		put_num(b, rd->commits[i].at);
		put_num(b, rd->commits[i].proc);
		put_num(b, (int64_t)rd->commits[i].bytes);
	}
	end_array(b);
	put_notes(rd, b);
	b->len--;
	buf_put(b, "};\n", 3);
}

static int
cmp_running(const void *a, const void *b)
{
	const struct lane *x = *(struct lane *const *)a;
	const struct lane *y = *(struct lane *const *)b;

	return (x->running < y->running) - (x->running > y->running);
}

/*
 * The lanes shown: all, or the LANES_MAX that ran the longest (a page
 * of more would be taller than a canvas can be, and its data over its
 * budget).  @return : 0, or -1 if out of memory.
 */
static int
pick_lanes(struct render *rd)
{
	struct lane **by;
	size_t i;

	for (i = 0; i < rd->nlanes; i++)
		rd->lanes[i].shown = rd->nlanes <= LANES_MAX;
	if (rd->nlanes <= LANES_MAX)
		return 0;
	if ((by = malloc(rd->nlanes * sizeof(*by))) == NULL)
		return -1;
	for (i = 0; i < rd->nlanes; i++)
		by[i] = &rd->lanes[i];
	qsort(by, rd->nlanes, sizeof(*by), cmp_running);
	for (i = 0; i < LANES_MAX; i++)
		by[i]->shown = 1;
	rd->lanes_hidden = rd->nlanes - LANES_MAX;
	free(by);
	return 0;
}

/*
 * The page's data in b, at most DATA_MAX bytes: when the spans, buckets
 * and queries kept make more, each is halved again (merged, merged,
 * left out) until they fit.  @return : 0, or -1 if out of memory.
 */
static int
page_data(struct render *rd, struct buf *b)
{
	int tries;

	if (pick_lanes(rd) != 0)
		return -1;
	for (tries = 0; tries < 64; tries++) {
		free(rd->page_id);
		rd->page_id = NULL;
		b->len = 0;
		if (number_texts(rd) < 0)
			return -1;
		put_data(rd, b);
		if (b->oom)
			return -1;
		if (b->len <= DATA_MAX)
			break;
		if (rd->segs > rd->nlanes)
			merge_more(rd);
		if (rd->buckets > rd->nlanes && rd->bucket_w > 0)
			widen_more(rd);
		if (rd->queries > 0)
			cut_more(rd);
	}
	return 0;
}

static int
write_page(struct render *rd)
{
	const char *title = rd->opt.title != NULL ? rd->opt.title :
	    "Timeline";
	struct buf b = { 0 };
	int rc;

	fputs(render_timeline_head, rd->fp);
	fputs("<title>", rd->fp);
	markup_text(rd->fp, title, strlen(title));
	fputs("</title></head>\n<body>\n<h1 id=\"title\">", rd->fp);
	markup_text(rd->fp, title, strlen(title));
	fputs("</h1>\n", rd->fp);
	fputs(render_timeline_body, rd->fp);
	fputs("<script>\n", rd->fp);
	rc = page_data(rd, &b);
	if (rc == 0 && fwrite(b.data, 1, b.len, rd->fp) != b.len)
		rc = -1;
	buf_release(&b);
	fputs(render_timeline_script, rd->fp);
	fputs("</script>\n</body>\n</html>\n", rd->fp);
	return rc != 0 || ferror(rd->fp) ? -1 : 0;
}

static void
release(struct render *rd)
{
	size_t i;

	for (i = 0; i < rd->nlanes; i++) {
		free(rd->lanes[i].s);
		free(rd->lanes[i].b);
		free(rd->lanes[i].q);
	}
	free(rd->lanes);
	free(rd->procs);
	free(rd->commits);
	free(rd->page_id);
	intern_release(&rd->texts);
	intern_release(&rd->lane_keys);
	intern_release(&rd->proc_keys);
	free(rd);
}

static int
timeline_close(struct render *rd)
{
	int rc = rd->tables == 0 ? 1 : write_page(rd);

	if (rc == 0 && (rd->seg_min > 0 || rd->queries_cut > 0) &&
	    rd->opt.warn != NULL)
		rd->opt.warn("timeline: more spans than a page holds: "
		    "spans shorter than %.3f ms merged, %" PRIu64 " queries "
		    "left out (the page says so)", rd->seg_min / 1e6,
		    rd->queries_cut);
	release(rd);
	return rc;
}

const struct render_ops render_timeline_ops = {
	.open = timeline_open,
	.record = timeline_record,
	.close = timeline_close,
	.nothing = "no timeline table (etlagg timeline)",
};
