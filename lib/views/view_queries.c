/*
 * view_queries.c - "etlagg queries": measureme summarize's table of rustc
 * self-profile events, one row per label (measureme-format.md 8.1).
 *
 * Events are nested per thread in one forward pass (query_nest): when an
 * interval arrives, the pending events it contains are its direct
 * children, whose durations come off its label's self time, just as
 * summarize subtracts them walking backwards.  Cache hits follow
 * summarize too: QueryCacheHitCount integers add their value, and a
 * QueryCacheHit instant counts only if no count of its label follows it
 * in its profile.  Each section (profile) is closed at its END, or at the
 * next HEADER if it has none.
 *
 * Tables: "queries" (the rows), "queries_total" (profiles, threads, and
 * summarize's total time: the sum of each thread's first start to last
 * end), "queries_artifacts" (ArtifactSize sums).  With --merge, tables of
 * these names in the input are added in.  With --diff BASE, the view
 * reads BASE (events or tables) first and writes "queries_diff",
 * "queries_diff_total" and "queries_diff_artifacts": the input less
 * BASE, as summarize diff computes it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "mmprof/mmprof_decode.h"
#include "view.h"

struct row {
	int64_t self, total, blocked, load, hashing;
	uint64_t count, hits;
	uint64_t pending_hits;	/* instants this section, not yet counted */
	uint64_t artifact;
	uint8_t is_row, is_artifact;
};

/* What one input (the base, or the rest) adds up to. */
struct acc {
	struct row *rows;	/* by label id */
	size_t cap;
	uint64_t profiles, threads;
	int64_t total_ns;
	struct query_nest nest;
	int open;		/* in a profile's section */
};

enum in_table {
	T_NONE, T_QUERIES, T_TOTAL, T_ARTIFACTS
};

/* Columns of the tables this view reads back with --merge. */
enum {
	C_ITEM, C_SELF, C_TOTAL, C_COUNT, C_HITS, C_BLOCKED, C_LOAD, C_HASHING,
	C_PROFILES, C_THREADS, C_BYTES, C_MAX
};

static const char *const col_names[C_MAX] = {
	"item", "self_ns", "total_ns", "count", "cache_hits", "blocked_ns",
	"incremental_load_ns", "incremental_hashing_ns", "profiles", "threads",
	"bytes"
};

struct intable {
	stream_id id;
	enum in_table kind;
	int col[C_MAX];		/* column index, or -1 */
};

struct view {
	struct query_input in;
	struct acc acc[2];	/* [0] the --diff base, [1] the input */
	struct acc *cur;
	int merge;
	const char *base;	/* --diff */
	struct intable tabs[4];	/* tables being read this section */
	size_t ntabs;
};

/* ---- adding up ---- */

static struct row *
row_of(struct acc *a, uint32_t label)
{
	return array_slot(&a->rows, &a->cap, label, sizeof(struct row));
}

/* Summarize's step 2: a direct child's time leaves its parent's row. */
static void
take_children(struct row *parent, enum query_kind kind,
    const struct query_pending *kids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t d = kids[i].end - kids[i].start;

		parent->self -= d;
		if (kind == QK_HASHING)
			parent->hashing -= d;
		else if (kind == QK_LOAD)
			parent->load -= d;
	}
}

/* Summarize's step 3, by kind. */
static void
add_interval(struct row *row, enum query_kind kind, int64_t d)
{
	row->self += d;
	if (kind != QK_HASHING)
		row->total += d;
	switch (kind) {
	case QK_BLOCKED:
		row->blocked += d;
		break;
	case QK_LOAD:
		row->load += d;
		break;
	case QK_HASHING:
		row->hashing += d;
		break;
	default:
		row->count++;
	}
}

static int
acc_interval(struct acc *a, const struct query_event *q)
{
	struct query_thread *t = query_nest_thread(&a->nest, q->pid, q->tid);
	const struct query_pending *kids;
	struct row *row = row_of(a, q->label);
	size_t n;

	if (t == NULL || row == NULL)
		return -1;
	n = query_nest_adopt(t, q->start, &kids);
	row->is_row = 1;
	take_children(row, q->kind, kids, n);
	add_interval(row, q->kind, q->end - q->start);
	return query_nest_push(t, q->start, q->end, 0, 1);
}

static int
acc_event(struct acc *a, const struct query_event *q)
{
	struct row *row;

	a->open = 1;
	if (q->type == QT_INTERVAL)
		return acc_interval(a, q);
	if ((row = row_of(a, q->label)) == NULL)
		return -1;
	if (q->type == QT_INSTANT && q->kind == QK_CACHE_HIT) {
		row->is_row = 1;
		row->pending_hits++;
	} else if (q->type == QT_INTEGER && q->kind == QK_HIT_COUNT) {
		/* The instants before a count are the hits it counts. */
		row->is_row = 1;
		row->hits += q->value;
		row->pending_hits = 0;
	} else if (q->type == QT_INTEGER && q->kind == QK_ARTIFACT) {
		row->is_artifact = 1;
		row->artifact += q->value;
	}
	return 0;
}

/* Ends a profile: thread spans into the total, held hits into the rows. */
static void
acc_close(struct acc *a)
{
	size_t i;

	if (!a->open)
		return;
	for (i = 0; i < a->nest.n; i++) {
		const struct query_thread *t = &a->nest.t[i];

		if (!t->has_intervals)
			continue;
		a->total_ns += t->max_end - t->first_start;
		a->threads++;
	}
	for (i = 0; i < a->cap; i++) {
		a->rows[i].hits += a->rows[i].pending_hits;
		a->rows[i].pending_hits = 0;
	}
	a->profiles++;
	a->open = 0;
	query_nest_clear(&a->nest);
}

static void
acc_release(struct acc *a)
{
	free(a->rows);
	query_nest_release(&a->nest);
}

/* ---- reading tables back (--merge) ---- */

static void
begin_table(struct view *v, const struct stream_table *t)
{
	static const char *const names[] = {
		"", "queries", "queries_total", "queries_artifacts"
	};
	struct intable *it;
	size_t i, c;

	for (i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(t->name, names[i]) == 0)
			break;
	if (i == sizeof(names) / sizeof(names[0]) ||
	    v->ntabs == sizeof(v->tabs) / sizeof(v->tabs[0]))
		return;
	it = &v->tabs[v->ntabs++];
	it->id = t->id;
	it->kind = (enum in_table)i;
	for (c = 0; c < C_MAX; c++) {
		it->col[c] = -1;
		for (i = 0; i < t->ncols; i++)
			if (strcmp(t->cols[i].name, col_names[c]) == 0)
				it->col[c] = (int)i;
	}
}

static int64_t
cell_int(const struct stream_row *r, const struct intable *it, int c)
{
	const struct value *v;

	if (it->col[c] < 0 || (size_t)it->col[c] >= r->ncells)
		return 0;
	v = &r->cells[it->col[c]];
	switch (v->type) {
	case VAL_I64:
	case VAL_NS:
		return v->v.i;
	case VAL_U64:
	case VAL_HEX:
		return (int64_t)v->v.u;
	default:
		return 0;
	}
}

static int
merge_row(struct view *v, const struct intable *it, const struct stream_row *r)
{
	const struct value *item = it->col[C_ITEM] >= 0 &&
	    (size_t)it->col[C_ITEM] < r->ncells ? &r->cells[it->col[C_ITEM]] :
	    NULL;
	struct acc *a = v->cur;
	struct row *row;
	uint32_t label;

	if (it->kind == T_TOTAL) {
		a->profiles += (uint64_t)cell_int(r, it, C_PROFILES);
		a->threads += (uint64_t)cell_int(r, it, C_THREADS);
		a->total_ns += cell_int(r, it, C_TOTAL);
		return 0;
	}
	if (item == NULL || item->type != VAL_STR)
		return 0;
	if ((label = query_input_label(&v->in, item->v.s.ptr,
	    item->v.s.len)) == 0 || (row = row_of(a, label)) == NULL)
		return -1;
	if (it->kind == T_ARTIFACTS) {
		row->is_artifact = 1;
		row->artifact += (uint64_t)cell_int(r, it, C_BYTES);
		return 0;
	}
	row->is_row = 1;
	row->self += cell_int(r, it, C_SELF);
	row->total += cell_int(r, it, C_TOTAL);
	row->count += (uint64_t)cell_int(r, it, C_COUNT);
	row->hits += (uint64_t)cell_int(r, it, C_HITS);
	row->blocked += cell_int(r, it, C_BLOCKED);
	row->load += cell_int(r, it, C_LOAD);
	row->hashing += cell_int(r, it, C_HASHING);
	return 0;
}

static int
table_record(struct view *v, const struct stream_record *rec)
{
	size_t i;

	if (rec->type == REC_TABLE)
		begin_table(v, &rec->u.table);
	if (rec->type != REC_ROW)
		return 0;
	for (i = 0; i < v->ntabs; i++)
		if (v->tabs[i].id == rec->u.row.table)
			return merge_row(v, &v->tabs[i], &rec->u.row);
	return 0;
}

/* ---- the record loop ---- */

static int
queries_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct query_event q;
	int rc;

	if ((rc = query_input_event(&v->in, r, rec, &q)) != 0)
		return rc < 0 ? -1 : acc_event(v->cur, &q);
	switch (rec->type) {
	case REC_HEADER:
	case REC_END:
		acc_close(v->cur);
		v->ntabs = 0;
		break;
	case REC_TRACE:
		if (strcmp(rec->u.trace.format, "mm_profdata") == 0)
			v->cur->open = 1;
		break;
	case REC_TABLE:
	case REC_ROW:
		/* A --diff base may be tables without --merge. */
		if (v->merge || v->cur == &v->acc[0])
			return table_record(v, rec);
		break;
	default:
		break;
	}
	return 0;
}

/* Reads the --diff base into acc[0].  @return : 0, or -1 (said why). */
static int
read_base(struct view *v)
{
	FILE *fp = fopen(v->base, "rb");
	struct stream_reader *r;
	struct stream_record rec;
	enum stream_status st = STREAM_EOF;
	uint64_t records = 0;
	int rc = 0;

	if (fp == NULL) {
		view_warn("queries: --diff %s: %s", v->base,
		    strerror(errno));
		return -1;
	}
	if ((r = stream_reader_new(0)) == NULL) {
		fclose(fp);
		return -1;
	}
	stream_reader_open_file(r, fp, v->base);
	v->cur = &v->acc[0];
	while (rc == 0 && (st = stream_reader_next(r, &rec)) == STREAM_OK) {
		records++;
		rc = queries_record(v, r, &rec);
	}
	acc_close(v->cur);
	if (st == STREAM_EOF && records == 0) {
		view_warn("queries: --diff %s: empty input, not an event "
		    "stream", v->base);
		st = STREAM_ERROR;
	} else if (st == STREAM_ERROR)
		view_warn("queries: --diff %s", stream_reader_error(r));
	else if (stream_reader_truncated(r))
		view_warn("queries: --diff %s: stream ends without its end "
		    "record (truncated); using what it holds", v->base);
	v->cur = &v->acc[1];
	v->ntabs = 0;
	stream_reader_free(r);
	fclose(fp);
	return rc == 0 && st != STREAM_ERROR ? 0 : -1;
}

static void queries_destroy(struct view *v);

static const char *const tables[] = {
	"queries", "queries_total", "queries_artifacts", NULL
};

static const struct option longopts[] = {
	{ "diff", required_argument, NULL, 'd' },
	{ "merge", no_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 }
};

static struct view *
queries_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	int ch, bad = 0;

	(void)m;
	if (v == NULL)
		return NULL;
	v->cur = &v->acc[1];
	optind = 0;
	while (!bad && (ch = getopt_long(argc, argv, "+", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'd':
			v->base = optarg;
			break;
		case 'm':
			v->merge = 1;
			break;
		default:
			bad = 1;
		}
	}
	*used = optind;
	if (bad) {
		queries_destroy(v);
		errno = EINVAL;
		return NULL;
	}
	if (v->base != NULL && read_base(v) != 0) {
		queries_destroy(v);
		errno = EIO;	/* said why; a data error, not a usage one */
		return NULL;
	}
	return v;
}

/* ---- writing ---- */

static int
cmp_label(const struct query_input *in, uint32_t a, uint32_t b)
{
	size_t la, lb;
	const char *x = query_input_text(in, a, &la);
	const char *y = query_input_text(in, b, &lb);
	int c = memcmp(x, y, la < lb ? la : lb);

	return c != 0 ? c : (la > lb) - (la < lb);
}

/* Sort keys: rows by a falling key, then by label. */
struct order {
	int64_t key;
	uint32_t label;
	const struct query_input *in;
};

static int
cmp_order(const void *pa, const void *pb)
{
	const struct order *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return cmp_label(a->in, a->label, b->label);
}

static struct value
str_cell(const struct query_input *in, uint32_t label)
{
	struct value c = { .type = VAL_STR };

	c.v.s.ptr = query_input_text(in, label, &c.v.s.len);
	return c;
}

static struct value
i64_cell(int64_t i)
{
	return (struct value){ .type = VAL_I64, .v.i = i };
}

static struct value
u64_cell(uint64_t u)
{
	return (struct value){ .type = VAL_U64, .v.u = u };
}

static struct value
f64_cell(double f)
{
	return (struct value){ .type = VAL_F64, .v.f = f };
}

/*
 * The labels that `want` picks from either accumulator, sorted by the
 * key that `key` gives.  @return : how many, or -1 if out of memory.
 */
static long
sorted_labels(struct view *v, int (*want)(const struct view *, uint32_t),
    int64_t (*key)(const struct view *, uint32_t), struct order **out)
{
	uint32_t n = query_input_labels(&v->in), id;
	struct order *o = calloc(n + 1, sizeof(*o));
	long k = 0;

	if (o == NULL || row_of(&v->acc[0], n) == NULL ||
	    row_of(&v->acc[1], n) == NULL) {
		free(o);
		return -1;
	}
	for (id = 1; id <= n; id++) {
		if (!want(v, id))
			continue;
		o[k].key = key(v, id);
		o[k].label = id;
		o[k].in = &v->in;
		k++;
	}
	qsort(o, (size_t)k, sizeof(*o), cmp_order);
	*out = o;
	return k;
}

static int
is_row(const struct view *v, uint32_t id)
{
	return v->acc[0].rows[id].is_row || v->acc[1].rows[id].is_row;
}

static int
is_artifact(const struct view *v, uint32_t id)
{
	return v->acc[0].rows[id].is_artifact || v->acc[1].rows[id].is_artifact;
}

static int64_t
self_key(const struct view *v, uint32_t id)
{
	return v->acc[1].rows[id].self;
}

static int64_t
no_key(const struct view *v, uint32_t id)
{
	(void)v;
	(void)id;
	return 0;
}

static int64_t
self_change_key(const struct view *v, uint32_t id)
{
	int64_t d = v->acc[1].rows[id].self - v->acc[0].rows[id].self;

	return d < 0 ? -d : d;
}

static int64_t
artifact_change_key(const struct view *v, uint32_t id)
{
	return (int64_t)(v->acc[1].rows[id].artifact -
	    v->acc[0].rows[id].artifact);
}

static int
write_cells(struct stream_writer *w, stream_id table, struct value *cells,
    size_t n)
{
	struct stream_row r = { table, n, cells };

	return stream_write_row(w, &r);
}

/* A table of one row, as the totals are. */
static int
write_one_row(struct stream_writer *w, stream_id table, const char *name,
    const struct stream_column *cols, struct value *cells, size_t n)
{
	if (view_write_table(w, table, name, cols, n) != 0)
		return -1;
	return write_cells(w, table, cells, n);
}

/* How a table of rows by label is made. */
struct table_spec {
	stream_id id;
	const char *name;
	const struct stream_column *cols;
	size_t ncols;
	int (*want)(const struct view *, uint32_t);
	int64_t (*key)(const struct view *, uint32_t);
	void (*fill)(const struct view *, uint32_t, struct value *);
};

static int
write_rows(struct view *v, struct stream_writer *w, const struct table_spec *t)
{
	struct order *o;
	struct value c[16];
	long n = sorted_labels(v, t->want, t->key, &o), i;
	int rc;

	if (n < 0)
		return -1;
	rc = view_write_table(w, t->id, t->name, t->cols, t->ncols);
	for (i = 0; i < n && rc == 0; i++) {
		c[0] = str_cell(&v->in, o[i].label);
		t->fill(v, o[i].label, c + 1);
		rc = write_cells(w, t->id, c, t->ncols);
	}
	free(o);
	return rc;
}

static void
fill_query(const struct view *v, uint32_t label, struct value *c)
{
	const struct acc *a = &v->acc[1];
	const struct row *r = &a->rows[label];

	c[0] = i64_cell(r->self);
	c[1] = f64_cell(a->total_ns > 0 ?
	    (double)r->self / (double)a->total_ns * 100.0 : 0.0);
	c[2] = i64_cell(r->total);
	c[3] = u64_cell(r->count);
	c[4] = u64_cell(r->hits);
	c[5] = i64_cell(r->blocked);
	c[6] = i64_cell(r->load);
	c[7] = i64_cell(r->hashing);
}

static void
fill_artifact(const struct view *v, uint32_t label, struct value *c)
{
	c[0] = u64_cell(v->acc[1].rows[label].artifact);
}

/* summarize diff's percentage change, with its cases for missing rows. */
static double
change_pct(const struct row *b, const struct row *c, int64_t bv, int64_t cv)
{
	if (!c->is_row)
		return -100.0;
	if (!b->is_row)
		return INFINITY;
	return (double)(cv - bv) / (double)bv * 100.0;
}

static void
fill_diff(const struct view *v, uint32_t label, struct value *c)
{
	const struct row *b = &v->acc[0].rows[label];
	const struct row *a = &v->acc[1].rows[label];

	c[0] = i64_cell(a->self - b->self);
	c[1] = f64_cell(change_pct(b, a, b->self, a->self));
	c[2] = i64_cell(a->total - b->total);
	c[3] = f64_cell(change_pct(b, a, b->total, a->total));
	c[4] = i64_cell((int64_t)(a->count - b->count));
	c[5] = i64_cell((int64_t)(a->hits - b->hits));
	c[6] = i64_cell(a->blocked - b->blocked);
	c[7] = i64_cell(a->load - b->load);
	c[8] = i64_cell(a->hashing - b->hashing);
}

static void
fill_diff_artifact(const struct view *v, uint32_t label, struct value *c)
{
	uint64_t b = v->acc[0].rows[label].artifact;
	uint64_t a = v->acc[1].rows[label].artifact;

	c[0] = u64_cell(b);
	c[1] = u64_cell(a);
	c[2] = i64_cell((int64_t)(a - b));
}

static int
write_tables(struct view *v, struct stream_writer *w)
{
	static const struct stream_column qcols[] = {
		{ "item", VAL_STR, "" }, { "self_ns", VAL_I64, "ns" },
		{ "self_pct", VAL_F64, "%" }, { "total_ns", VAL_I64, "ns" },
		{ "count", VAL_U64, "" }, { "cache_hits", VAL_U64, "" },
		{ "blocked_ns", VAL_I64, "ns" },
		{ "incremental_load_ns", VAL_I64, "ns" },
		{ "incremental_hashing_ns", VAL_I64, "ns" },
	};
	static const struct stream_column tcols[] = {
		{ "profiles", VAL_U64, "" }, { "threads", VAL_U64, "" },
		{ "total_ns", VAL_I64, "ns" },
	};
	static const struct stream_column acols[] = {
		{ "item", VAL_STR, "" }, { "bytes", VAL_U64, "bytes" },
	};
	const struct table_spec queries = { 1, "queries", qcols, 9, is_row,
	    self_key, fill_query };
	const struct table_spec artifacts = { 3, "queries_artifacts", acols, 2,
	    is_artifact, no_key, fill_artifact };
	const struct acc *a = &v->acc[1];
	struct value c[3];

	c[0] = u64_cell(a->profiles);
	c[1] = u64_cell(a->threads);
	c[2] = i64_cell(a->total_ns);
	if (write_rows(v, w, &queries) != 0 ||
	    write_one_row(w, 2, "queries_total", tcols, c, 3) != 0)
		return -1;
	return write_rows(v, w, &artifacts);
}

static int
write_diff_tables(struct view *v, struct stream_writer *w)
{
	static const struct stream_column qcols[] = {
		{ "item", VAL_STR, "" }, { "self_ns", VAL_I64, "ns" },
		{ "self_change_pct", VAL_F64, "%" },
		{ "total_ns", VAL_I64, "ns" },
		{ "total_change_pct", VAL_F64, "%" },
		{ "count", VAL_I64, "" }, { "cache_hits", VAL_I64, "" },
		{ "blocked_ns", VAL_I64, "ns" },
		{ "incremental_load_ns", VAL_I64, "ns" },
		{ "incremental_hashing_ns", VAL_I64, "ns" },
	};
	static const struct stream_column tcols[] = {
		{ "base_ns", VAL_I64, "ns" }, { "change_ns", VAL_I64, "ns" },
		{ "total_ns", VAL_I64, "ns" },
	};
	static const struct stream_column acols[] = {
		{ "item", VAL_STR, "" }, { "base_bytes", VAL_U64, "bytes" },
		{ "change_bytes", VAL_U64, "bytes" },
		{ "bytes", VAL_I64, "bytes" },
	};
	const struct table_spec queries = { 1, "queries_diff", qcols, 10,
	    is_row, self_change_key, fill_diff };
	const struct table_spec artifacts = { 3, "queries_diff_artifacts",
	    acols, 4, is_artifact, artifact_change_key, fill_diff_artifact };
	struct value c[3];

	c[0] = i64_cell(v->acc[0].total_ns);
	c[1] = i64_cell(v->acc[1].total_ns);
	c[2] = i64_cell(v->acc[1].total_ns - v->acc[0].total_ns);
	if (write_rows(v, w, &queries) != 0 ||
	    write_one_row(w, 2, "queries_diff_total", tcols, c, 3) != 0)
		return -1;
	return write_rows(v, w, &artifacts);
}

static int
queries_finish(struct view *v, struct stream_writer *w)
{
	acc_close(v->cur);
	return v->base != NULL ? write_diff_tables(v, w) : write_tables(v, w);
}

static void
queries_destroy(struct view *v)
{
	query_input_release(&v->in);
	acc_release(&v->acc[0]);
	acc_release(&v->acc[1]);
	free(v);
}

static const char *const file_options[] = { "diff", NULL };

const struct view_ops view_queries_ops = {
	.name = "queries",
	.usage = "[--merge] [--diff base]",
	.summary = "rustc self-profile: time, count and cache hits per query "
	    "(measureme summarize)",
	/* Labels are what it counts by: query arguments are not read. */
	.reader_flags = STREAM_QUERY_LABELS,
	.options = longopts,
	.file_options = file_options,
	.tables = tables,
	.create = queries_create,
	.record = queries_record,
	.finish = queries_finish,
	.destroy = queries_destroy,
};
