/*
 * view_diff.c - two sides' tables joined by key, and the deltas
 * (view_diff.h).  Each side's tables are read whole, rows kept by key in
 * an intern table (a row is its key's id); rows with the same key add
 * up.  The output walks the input's rows, then the base's rows that had
 * no partner, and ranks them by the score of the weight's change
 * (view_diff.h): complete rows first, by the change beyond its noise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/noise.h"
#include "base/platform.h"
#include "stream/colname.h"
#include "view_diff.h"

#define MAX_TABLES	16
#define MAX_COLS	64
#define KEY_SEP		'\x1f'
/*
 * The noise of a measured figure (view_diff.h): a relative spread of 2%
 * at least, and an error of at least a clock tick of Windows (15.625 ms,
 * the grain its scheduler works to), 64 KiB (VirtualAlloc's grain) or
 * 1, by its unit.
 */
#define SPREAD_MIN	0.02
#define TICK_MS		15.625
#define GRAIN_BYTES	65536.0

enum role { SHOWN, KEY, COUNTED };

struct dcol {
	char *name, *unit;
	enum value_type type;
	enum role role;
};

/* One table of one side. */
struct dtable {
	char *name;
	stream_id id;			/* in its side's stream */
	size_t ncols;
	struct dcol cols[MAX_COLS];
	struct intern keys;		/* row i is key id i + 1 */
	struct value **rows;		/* cells, strings owned */
	size_t cap;
	int order, pid, tid, weight, samples;	/* columns, or -1 */
	int cut;			/* the column that says cut, or -1 */
	const char *cut_value;		/* its text then; NULL: a true bool */
	/* While reading: the rows in their order, before keys are made. */
	struct value **raw;
	size_t nraw, rawcap;
};

#define MAX_DIAGS	32

struct view_diff {
	struct dtable tables[2][MAX_TABLES];
	size_t ntables[2];
	/* What the base lost: its DIAG records, for the output. */
	struct stream_diag diags[MAX_DIAGS];
	size_t ndiags;
	char error[256];
};

/* Columns that a run chooses or that say when: shown, never matched. */
static const char *const identities[] = {
	"pid", "ppid", "tid", "start", "start_s", "start_ns", "start_utc",
	"end", "end_s", "end_ns", "end_utc", "last_seen", "trace_end",
	"cmdline", "exit_status", "end_state", "crate_type", "opt_level",
	"incremental", "instance", NULL
};
/* The numbers of an event's identity in the stats table. */
static const char *const stats_keys[] = {
	"hook", "id", "version", "opcode", NULL
};
static const char *const order_columns[] = {
	"start", "start_ns", "start_s", "start_utc", NULL
};

/*
 * The tables whose rows are ranked by another weight than the default
 * (the samples, else the CPU time, else the last integer column), and
 * those whose rows can be cut off by the end of a trace, with the column
 * that says so: a process still running when its trace ended has lower
 * bounds for figures.
 */
static const struct diff_spec {
	const char *table;
	const char *weight;	/* NULL: the default */
	const char *cut;	/* NULL: no row is cut */
	const char *cut_value;	/* the cut column's text; NULL: a true bool */
} specs[] = {
	/* The build waits for a crate's wall time, not for its CPU. */
	{ "crates", "wall", "wall_cut", NULL },
	{ "processes", NULL, "end_state", "running" },
};

static int
listed(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/* A number that adds up; a VAL_NS that is not a time of day is a span. */
static int
is_number(enum value_type t)
{
	return t == VAL_I64 || t == VAL_U64 || t == VAL_F64 || t == VAL_NS;
}

static enum role
role_of(const char *table, const char *name, enum value_type type)
{
	if (listed(identities, name))
		return SHOWN;
	if (strcmp(table, "stats") == 0 && listed(stats_keys, name))
		return KEY;
	if (is_number(type))
		return COUNTED;
	return type == VAL_STR || type == VAL_GUID ? KEY : SHOWN;
}

/* ---- reading a side ---- */

/*
 * The weight rows are sorted by: the samples, else the CPU time, else
 * the last integer counted column.
 */
static int
preferred(const struct dtable *t, int col)
{
	return col >= 0 && (strcmp(t->cols[col].name, "samples") == 0 ||
	    strcmp(t->cols[col].name, "cpu_ms") == 0);
}

static int
column_named(const struct dtable *t, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The table's spec, if it has one: its weight and its cut column. */
static void
apply_spec(struct dtable *t)
{
	size_t i;
	int c;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (strcmp(specs[i].table, t->name) != 0)
			continue;
		if ((c = column_named(t, specs[i].weight)) >= 0 &&
		    t->cols[c].role == COUNTED)
			t->weight = c;
		if ((c = column_named(t, specs[i].cut)) >= 0) {
			t->cut = c;
			t->cut_value = specs[i].cut_value;
		}
	}
}

static int
add_table(struct view_diff *d, int side, const struct stream_table *t)
{
	struct dtable *dt;
	size_t i;

	if (d->ntables[side] == MAX_TABLES || t->ncols > MAX_COLS) {
		snprintf(d->error, sizeof(d->error), "%s: more tables or "
		    "columns than --diff joins", t->name);
		return -1;
	}
	dt = &d->tables[side][d->ntables[side]++];
	memset(dt, 0, sizeof(*dt));
	dt->order = dt->pid = dt->tid = dt->weight = dt->samples = -1;
	dt->cut = -1;
	dt->id = t->id;
	dt->ncols = t->ncols;
	if ((dt->name = platform_strndup(t->name, strlen(t->name))) == NULL)
		return -1;
	for (i = 0; i < t->ncols; i++) {
		struct dcol *c = &dt->cols[i];
		const char *unit = t->cols[i].unit ? t->cols[i].unit : "";

		c->type = t->cols[i].type;
		c->role = role_of(t->name, t->cols[i].name, c->type);
		if ((c->name = platform_strndup(t->cols[i].name,
		    strlen(t->cols[i].name))) == NULL ||
		    (c->unit = platform_strndup(unit, strlen(unit))) == NULL)
			return -1;
		if (dt->order < 0 && listed(order_columns, c->name))
			dt->order = (int)i;
		if (strcmp(c->name, "pid") == 0)
			dt->pid = (int)i;
		if (strcmp(c->name, "tid") == 0)
			dt->tid = (int)i;
		if (strcmp(c->name, "samples") == 0 && c->role == COUNTED)
			dt->samples = (int)i;
		if (c->role == COUNTED && (dt->weight < 0 ||
		    c->type == VAL_U64 || c->type == VAL_I64) &&
		    !preferred(dt, dt->weight))
			dt->weight = (int)i;
		if (c->role == COUNTED && preferred(dt, (int)i) &&
		    !(dt->weight >= 0 && strcmp(dt->cols[dt->weight].name,
		    "samples") == 0))
			dt->weight = (int)i;
	}
	apply_spec(dt);
	return 0;
}

static struct dtable *
table_of(struct view_diff *d, int side, stream_id id)
{
	size_t i;

	for (i = 0; i < d->ntables[side]; i++)
		if (d->tables[side][i].id == id)
			return &d->tables[side][i];
	return NULL;
}

/* A frame no image covers, "0x" and hex digits: its address moves. */
static int
unknown_frame(const char *f, size_t len)
{
	size_t i;

	if (len < 3 || f[0] != '0' || f[1] != 'x')
		return 0;
	for (i = 2; i < len; i++)
		if (!((f[i] >= '0' && f[i] <= '9') ||
		    (f[i] >= 'a' && f[i] <= 'f') || (f[i] >= 'A' && f[i] <= 'F')))
			return 0;
	return 1;
}

/* A stack with its unknown frames named "[unknown]", malloc'd. */
static char *
stable_stack(const char *s, size_t len)
{
	char *out = malloc(len * 5 + 1), *o = out;
	size_t i = 0, j;

	if (out == NULL)
		return NULL;
	while (i <= len) {
		for (j = i; j < len && s[j] != ';'; j++)
			;
		if (unknown_frame(s + i, j - i)) {
			memcpy(o, "[unknown]", 9);
			o += 9;
		} else {
			memcpy(o, s + i, j - i);
			o += j - i;
		}
		if (j < len)
			*o++ = ';';
		i = j + 1;
	}
	*o = '\0';
	return out;
}

static int
add_raw_row(struct view_diff *d, struct dtable *t, const struct stream_row *r)
{
	struct value *cells;
	size_t i;

	if (r->ncells != t->ncols)
		return 0;	/* the reader checked; nothing to join */
	if (t->nraw == t->rawcap) {
		size_t cap = t->rawcap ? t->rawcap * 2 : 64;
		struct value **p = realloc(t->raw, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		t->raw = p;
		t->rawcap = cap;
	}
	if ((cells = calloc(t->ncols, sizeof(*cells))) == NULL)
		return -1;
	t->raw[t->nraw++] = cells;
	for (i = 0; i < t->ncols; i++) {
		const struct value *v = &r->cells[i];

		cells[i] = *v;
		if (v->type == VAL_STR || v->type == VAL_GUID ||
		    v->type == VAL_BYTES) {
			char *p = strcmp(t->cols[i].name, "stack") == 0 &&
			    v->type == VAL_STR ?
			    stable_stack(v->v.s.ptr, v->v.s.len) :
			    platform_strndup(v->v.s.ptr, v->v.s.len);

			if (p == NULL)
				return -1;
			cells[i].v.s.ptr = p;
			if (v->type == VAL_STR)
				cells[i].v.s.len = strlen(p);
		}
	}
	return 0;
}

/* Keeps a DIAG record of the base, adding up those of one text. */
static int
add_diag(struct view_diff *d, const struct stream_diag *g)
{
	size_t i;

	for (i = 0; i < d->ndiags; i++)
		if (strcmp(d->diags[i].what, g->what) == 0) {
			d->diags[i].count += g->count;
			d->diags[i].bytes += g->bytes;
			return 0;
		}
	if (d->ndiags == MAX_DIAGS)
		return 0;	/* the first kinds say enough */
	d->diags[d->ndiags] = *g;
	if ((d->diags[d->ndiags].what = platform_strndup(g->what,
	    strlen(g->what))) == NULL)
		return -1;
	d->ndiags++;
	return 0;
}

int
view_diff_read(struct view_diff *d, int side, FILE *fp)
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	enum stream_status st;
	struct dtable *t;
	int rc = 0;

	if (r == NULL)
		return -1;
	stream_reader_open_file(r, fp, "--diff");
	while (rc == 0 && (st = stream_reader_next(r, &rec)) == STREAM_OK) {
		if (rec.type == REC_DIAG && side == 0)
			rc = add_diag(d, &rec.u.diag);
		else if (rec.type == REC_TABLE)
			rc = add_table(d, side, &rec.u.table);
		else if (rec.type == REC_ROW &&
		    (t = table_of(d, side, rec.u.row.table)) != NULL)
			rc = add_raw_row(d, t, &rec.u.row);
	}
	if (rc == 0 && st == STREAM_ERROR) {
		snprintf(d->error, sizeof(d->error), "%s",
		    stream_reader_error(r));
		rc = -1;
	}
	stream_reader_free(r);
	return rc;
}

const char *
view_diff_error(const struct view_diff *d)
{
	return d->error[0] ? d->error : "out of memory";
}

/* ---- keys ---- */

static void
free_cells(const struct dtable *t, struct value *cells)
{
	size_t i;

	if (cells == NULL)
		return;
	for (i = 0; i < t->ncols; i++)
		if (cells[i].type == VAL_STR || cells[i].type == VAL_GUID ||
		    cells[i].type == VAL_BYTES)
			free((char *)cells[i].v.s.ptr);
	free(cells);
}

/* Appends the text of the key columns of `cells` to buf. */
static size_t
key_text(const struct dtable *t, const struct value *cells, char *buf,
    size_t cap)
{
	size_t i, n = 0;

	for (i = 0; i < t->ncols && n + 2 < cap; i++) {
		if (t->cols[i].role != KEY)
			continue;
		n += value_format(&cells[i], buf + n, cap - n - 1);
		if (n > cap - 2)
			n = cap - 2;
		buf[n++] = KEY_SEP;
	}
	buf[n] = '\0';
	return n;
}

struct ranked {
	const struct dtable *t;
	size_t row;		/* in t->raw */
	char *key;		/* its key columns' text */
};

static int
cmp_start(const struct ranked *a, const struct ranked *b)
{
	const struct dtable *t = a->t;
	double x = t->order >= 0 ? value_number(&t->raw[a->row][t->order]) : 0;
	double y = t->order >= 0 ? value_number(&t->raw[b->row][t->order]) : 0;

	if (x != y)
		return x < y ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* By key, then by start: the n-th of a key follows its n - 1 others. */
static int
cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	return c != 0 ? c : cmp_start(a, b);
}

/* Adds `cells` to the row of `key`, or makes it that row. */
static int
keep_row(struct dtable *t, const char *key, size_t len, struct value *cells)
{
	uint32_t id;
	size_t i;
	int added;

	if ((id = intern_add(&t->keys, key, len, &added)) == 0)
		return -1;
	if (id > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct value **p = realloc(t->rows, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		t->rows = p;
		t->cap = cap;
	}
	if (added) {
		t->rows[id - 1] = cells;
		return 1;
	}
	for (i = 0; i < t->ncols; i++) {
		struct value *sum = &t->rows[id - 1][i];

		if (t->cols[i].role != COUNTED || cells[i].type == VAL_NULL)
			continue;
		if (sum->type == VAL_F64)
			sum->v.f += value_number(&cells[i]);
		else if (sum->type == VAL_I64)
			sum->v.i += cells[i].v.i;
		else if (sum->type == VAL_U64)
			sum->v.u += cells[i].v.u;
		else
			*sum = cells[i];
	}
	return 0;
}

/* By key, then pid, then start: a thread table's processes in a row. */
static int
cmp_threads(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	const struct dtable *t = a->t;
	double p = value_number(&t->raw[a->row][t->pid]);
	double q = value_number(&t->raw[b->row][t->pid]);
	int c = strcmp(a->key, b->key);

	if (c != 0)
		return c;
	if (p != q)
		return p < q ? -1 : 1;
	return cmp_start(a, b);
}

static int
same_process(const struct ranked *a, const struct ranked *b)
{
	const struct dtable *t = a->t;

	return strcmp(a->key, b->key) == 0 &&
	    value_number(&t->raw[a->row][t->pid]) == value_number(&t->raw[b->row][t->pid]);
}

struct group {
	size_t first;		/* its first row in the ranked rows */
	double start;		/* of its first thread */
	const char *key;
	unsigned nth;		/* among the processes of its key */
};

static int
cmp_groups(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	if (c != 0)
		return c;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/*
 * Numbers the threads of a thread table, rk sorted by cmp_threads(): a
 * process is a (key, pid) run of rows, numbered among those of its key
 * by its first thread's start; a thread by its start within its process.
 */
static int
number_threads(struct ranked *rk, size_t n, unsigned *pnth, unsigned *tnth)
{
	struct group *g = calloc(n ? n : 1, sizeof(*g));
	size_t *of = calloc(n ? n : 1, sizeof(*of)), ng = 0, i;
	const struct dtable *t = n ? rk[0].t : NULL;

	if (g == NULL || of == NULL) {
		free(g);
		free(of);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (i == 0 || !same_process(&rk[i], &rk[i - 1]))
			g[ng++] = (struct group){ i, t->order >= 0 ?
			    value_number(&t->raw[rk[i].row][t->order]) : 0,
			    rk[i].key, 0 };
		of[i] = ng - 1;
		tnth[i] = (unsigned)(i - g[ng - 1].first);
	}
	qsort(g, ng, sizeof(*g), cmp_groups);
	for (i = 1; i < ng; i++)
		if (strcmp(g[i].key, g[i - 1].key) == 0)
			g[i].nth = g[i - 1].nth + 1;
	/* Sorting moved the groups: find each row's by its first row. */
	for (i = 0; i < ng; i++)
		of[g[i].first] = i;
	for (i = 0; i < n; i++) {
		size_t first = i - tnth[i];

		pnth[i] = g[of[first]].nth;
	}
	free(g);
	free(of);
	return 0;
}

/* Makes the keys of a table's rows and files them.  @return : 0, -1. */
static int
make_keys(struct dtable *t)
{
	struct ranked *rk = calloc(t->nraw ? t->nraw : 1, sizeof(*rk));
	unsigned *pnth = calloc(t->nraw ? t->nraw : 1, sizeof(*pnth));
	unsigned *tnth = calloc(t->nraw ? t->nraw : 1, sizeof(*tnth));
	char buf[8192];
	size_t i, len;
	int rc = 0;

	if (rk == NULL || pnth == NULL || tnth == NULL)
		rc = -1;
	for (i = 0; rc == 0 && i < t->nraw; i++) {
		len = key_text(t, t->raw[i], buf, sizeof(buf));
		rk[i].t = t;
		rk[i].row = i;
		if ((rk[i].key = platform_strndup(buf, len)) == NULL)
			rc = -1;
	}
	if (rc == 0 && t->tid >= 0 && t->pid >= 0) {
		qsort(rk, t->nraw, sizeof(*rk), cmp_threads);
		rc = number_threads(rk, t->nraw, pnth, tnth);
	} else if (rc == 0)
		qsort(rk, t->nraw, sizeof(*rk), cmp_ranked);
	if (rc == 0 && t->pid >= 0 && t->tid < 0)
		for (i = 1; i < t->nraw; i++)
			if (strcmp(rk[i].key, rk[i - 1].key) == 0)
				pnth[i] = pnth[i - 1] + 1;
	for (i = 0; rc == 0 && i < t->nraw; i++) {
		int n = snprintf(buf, sizeof(buf), "%s", rk[i].key);

		if (t->pid >= 0)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			    "#%u", pnth[i]);
		if (t->tid >= 0)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			    "#%u", tnth[i]);
		if (n >= (int)sizeof(buf))
			n = (int)sizeof(buf) - 1;
		switch (keep_row(t, buf, (size_t)n, t->raw[rk[i].row])) {
		case -1:
			rc = -1;
			break;
		case 0:		/* added to another */
			free_cells(t, t->raw[rk[i].row]);
			/* FALLTHROUGH */
		default:
			t->raw[rk[i].row] = NULL;
		}
	}
	for (i = 0; rk != NULL && i < t->nraw; i++)
		free(rk[i].key);
	free(rk);
	free(pnth);
	free(tnth);
	return rc;
}

/* ---- joining and ranking ---- */

/* A row of the output: both sides' cells, joined by key. */
struct diff_row {
	const struct value *base, *input;	/* either may be NULL */
	const char *key;
	size_t keylen;
	double delta;		/* of the weight: the input's less the base's */
	double score;		/* the change beyond noise */
	int known;		/* the sides that have the row give the weight */
	int cut;		/* either side ran past its trace's end */
};

static double
total_of(const struct dtable *t, int col)
{
	double sum = 0;
	uint32_t i;

	for (i = 0; col >= 0 && i < t->keys.count; i++)
		sum += value_number(&t->rows[i][col]);
	return sum;
}

/* Whether a side's row ran past the end of its trace. */
static int
is_cut(const struct dtable *t, const struct value *cells)
{
	const struct value *v;

	if (cells == NULL || t->cut < 0)
		return 0;
	v = &cells[t->cut];
	if (t->cut_value == NULL)
		return v->type == VAL_BOOL && v->v.u != 0;
	return v->type == VAL_STR && v->v.s.len == strlen(t->cut_value) &&
	    memcmp(v->v.s.ptr, t->cut_value, v->v.s.len) == 0;
}

/* Both sides' rows of one table, joined.  @return : count. */
static size_t
join(const struct dtable *in, const struct dtable *base, struct diff_row *o)
{
	size_t n = 0, len;
	uint32_t i, id;
	const char *key;
	int w = in->weight;

	for (i = 0; i < in->keys.count; i++) {
		key = intern_key(&in->keys, i + 1, &len);
		id = base != NULL ? intern_find(&base->keys, key, len) : 0;
		o[n] = (struct diff_row){ id ? base->rows[id - 1] : NULL,
		    in->rows[i], key, len, 0, 0, 0, 0 };
		n++;
	}
	for (i = 0; base != NULL && i < base->keys.count; i++) {
		key = intern_key(&base->keys, i + 1, &len);
		if (intern_find(&in->keys, key, len) == 0)
			o[n++] = (struct diff_row){ base->rows[i], NULL, key,
			    len, 0, 0, 0, 0 };
	}
	for (i = 0; i < n; i++) {
		o[i].cut = is_cut(in, o[i].base) || is_cut(in, o[i].input);
		o[i].known = w >= 0 &&
		    !(o[i].base && o[i].base[w].type == VAL_NULL) &&
		    !(o[i].input && o[i].input[w].type == VAL_NULL);
		if (o[i].known)
			o[i].delta = (o[i].input ?
			    value_number(&o[i].input[w]) : 0) -
			    (o[i].base ? value_number(&o[i].base[w]) : 0);
	}
	return n;
}

/*
 * Complete rows before cut ones; then by the size of the score, of the
 * change, and by key.
 */
static int
cmp_rows(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	double x = fabs(a->score), y = fabs(b->score);
	size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
	int c;

	if (a->cut != b->cut)
		return a->cut ? 1 : -1;
	if (x != y)
		return x > y ? -1 : 1;
	x = fabs(a->delta);
	y = fabs(b->delta);
	if (x != y)
		return x > y ? -1 : 1;
	if ((c = memcmp(a->key, b->key, n)) != 0)
		return c;
	return a->keylen < b->keylen ? -1 : a->keylen > b->keylen;
}

/* The least error of a measured figure, in its column's unit. */
static double
grain(const struct dcol *c)
{
	if (c->type == VAL_NS || strcmp(c->unit, "ns") == 0)
		return TICK_MS * 1e6;
	if (strcmp(c->unit, "ms") == 0)
		return TICK_MS;
	if (strcmp(c->unit, "s") == 0)
		return TICK_MS / 1e3;
	if (strcmp(c->unit, "B") == 0)
		return GRAIN_BYTES;
	return 1;
}

/*
 * The table's relative spread: that of the relative changes of the rows
 * that both sides give complete (noise.h).  @return : it, or -1 if out
 * of memory.
 */
static double
spread_of(const struct diff_row *o, size_t n, int w)
{
	double *r = calloc(n ? n : 1, sizeof(*r)), a, k;
	size_t i, m = 0;

	if (r == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (o[i].base != NULL && o[i].input != NULL && !o[i].cut &&
		    o[i].known && (a = value_number(&o[i].base[w])) > 0)
			r[m++] = o[i].delta / a;
	k = noise_spread(r, m, SPREAD_MIN);
	free(r);
	return k;
}

/*
 * Scores the joined rows by the change of the weight beyond its noise
 * (view_diff.h), and sorts them.  @return : 0, or -1 if out of memory.
 */
static int
rank(const struct dtable *in, const struct dtable *base, struct diff_row *o,
    size_t n)
{
	int w = in->weight;
	double A = base ? total_of(base, in->samples) : 0;
	double B = total_of(in, in->samples), k = 0, change, sigma;
	size_t i;

	if (w >= 0 && w != in->samples && (k = spread_of(o, n, w)) < 0)
		return -1;
	for (i = 0; w >= 0 && i < n; i++) {
		double a = o[i].base ? value_number(&o[i].base[w]) : 0;
		double b = o[i].input ? value_number(&o[i].input[w]) : 0;

		if (o[i].cut || !o[i].known)
			continue;
		if (w == in->samples)
			sigma = noise_samples(a, b, A, B, &change);
		else {
			change = o[i].delta;
			sigma = noise_measured(k, fabs(a) > fabs(b) ? fabs(a) :
			    fabs(b), grain(&in->cols[w]));
		}
		o[i].score = noise_beyond(change, sigma);
	}
	qsort(o, n, sizeof(*o), cmp_rows);
	return 0;
}

/* ---- writing ---- */

/* A per cent of a share in per cent would mean nothing. */
static int
has_pct(const struct dcol *c)
{
	return strcmp(c->unit, "%") != 0;
}

/* The type of a counted column's delta. */
static enum value_type
delta_type(const struct dcol *c)
{
	return c->type == VAL_F64 || c->type == VAL_NS ? c->type : VAL_I64;
}

/* The output schema: a counted column becomes three or four; 0, -1. */
static int
write_schema(struct stream_writer *w, const struct dtable *t, stream_id id,
    struct stream_column *cols, char names[][80], size_t *ncols)
{
	static const char *const role[] = { "base", "", "delta",
	    "delta_pct" };
	struct stream_table st = { id, t->name, 0, cols };
	size_t i, k, n = 0;

	for (i = 0; i < t->ncols; i++) {
		const struct dcol *c = &t->cols[i];

		if (c->role != COUNTED) {
			cols[n++] = (struct stream_column){ c->name, c->type,
			    c->unit };
			continue;
		}
		for (k = 0; k < (has_pct(c) ? 4 : 3); k++, n++) {
			/* colname.h: "cpu_ms" gives "cpu_base_ms". */
			if (k == 1)
				snprintf(names[n], 80, "%s", c->name);
			else
				colname_derive(c->name, c->unit, role[k],
				    names[n], 80);
			cols[n].name = names[n];
			cols[n].unit = k == 3 ? "%" : c->unit;
			cols[n].type = k == 3 ? VAL_F64 : k == 2 ?
			    delta_type(c) : c->type;
		}
	}
	if (t->cut >= 0)
		cols[n++] = (struct stream_column){ "cut", VAL_BOOL, "" };
	if (t->weight >= 0) {
		cols[n++] = (struct stream_column){ "score",
		    delta_type(&t->cols[t->weight]), t->cols[t->weight].unit };
		cols[n++] = (struct stream_column){ "within_noise", VAL_BOOL,
		    "" };
	}
	st.ncols = *ncols = n;
	return stream_write_table(w, &st);
}

/* The score, in the type of the weight's delta; empty when not known. */
static struct value
score_cell(const struct dtable *t, const struct diff_row *o)
{
	enum value_type type = delta_type(&t->cols[t->weight]);

	if (o->cut || !o->known)
		return (struct value){ VAL_NULL, { 0 } };
	if (type == VAL_F64)
		return (struct value){ VAL_F64, { .f = o->score } };
	return (struct value){ type, { .i = (int64_t)(o->score +
	    (o->score < 0 ? -0.5 : 0.5)) } };
}

static int
write_row(struct stream_writer *w, const struct dtable *t, stream_id id,
    const struct diff_row *o, struct value *cells, size_t ncells)
{
	const struct value *shown = o->input ? o->input : o->base;
	struct stream_row r = { id, ncells, cells };
	size_t i, n = 0;

	for (i = 0; i < t->ncols; i++) {
		const struct dcol *c = &t->cols[i];
		struct value none = { VAL_NULL, { 0 } };
		const struct value *b = o->base ? &o->base[i] : &none;
		const struct value *x = o->input ? &o->input[i] : &none;
		double delta = value_number(x) - value_number(b);

		if (c->role != COUNTED) {
			cells[n++] = shown[i];
			continue;
		}
		cells[n++] = *b;
		cells[n++] = *x;
		/* A side that has the row but not the figure: no delta. */
		if ((o->base != NULL && b->type == VAL_NULL) ||
		    (o->input != NULL && x->type == VAL_NULL)) {
			cells[n++].type = VAL_NULL;
			if (has_pct(c))
				cells[n++].type = VAL_NULL;
			continue;
		}
		if (c->type == VAL_F64)
			cells[n] = (struct value){ VAL_F64, { .f = delta } };
		else
			cells[n] = (struct value){ c->type == VAL_NS ? VAL_NS :
			    VAL_I64, { .i = (int64_t)value_number(x) -
			    (int64_t)value_number(b) } };
		n++;
		if (!has_pct(c))
			continue;
		if (b->type != VAL_NULL && x->type != VAL_NULL &&
		    value_number(b) != 0)
			cells[n] = (struct value){ VAL_F64,
			    { .f = 100.0 * delta / fabs(value_number(b)) } };
		else
			cells[n].type = VAL_NULL;
		n++;
	}
	if (t->cut >= 0)
		cells[n++] = (struct value){ VAL_BOOL, { .u = (uint64_t)o->cut } };
	if (t->weight >= 0) {
		cells[n++] = score_cell(t, o);
		cells[n] = (struct value){ VAL_BOOL, { .u = o->score == 0 } };
		if (o->cut || !o->known)
			cells[n].type = VAL_NULL;
		n++;
	}
	return stream_write_row(w, &r);
}

static const struct dtable *
partner(const struct view_diff *d, const struct dtable *t)
{
	size_t i;

	for (i = 0; i < d->ntables[0]; i++)
		if (strcmp(d->tables[0][i].name, t->name) == 0)
			return &d->tables[0][i];
	return NULL;
}


static int
write_table(struct view_diff *d, struct stream_writer *w,
    const struct dtable *in, stream_id id)
{
	const struct dtable *base = partner(d, in);
	struct stream_column cols[MAX_COLS * 4 + 3];
	static char names[MAX_COLS * 4 + 3][80];
	struct value cells[MAX_COLS * 4 + 3];
	size_t n, i, ncols;
	struct diff_row *o;
	int rc;

	if (base != NULL && (base->ncols != in->ncols || base->weight !=
	    in->weight))
		base = NULL;	/* another schema: nothing matches */
	n = in->keys.count + (base ? base->keys.count : 0);
	if ((o = calloc(n ? n : 1, sizeof(*o))) == NULL)
		return -1;
	n = join(in, base, o);
	rc = rank(in, base, o, n);
	if (rc == 0)
		rc = write_schema(w, in, id, cols, names, &ncols);
	for (i = 0; rc == 0 && i < n; i++)
		rc = write_row(w, in, id, &o[i], cells, ncols);
	free(o);
	return rc;
}

int
view_diff_write(struct view_diff *d, struct stream_writer *w,
    stream_id first_id)
{
	size_t i, s;

	for (s = 0; s < 2; s++)
		for (i = 0; i < d->ntables[s]; i++)
			if (make_keys(&d->tables[s][i]) != 0)
				return -1;
	for (i = 0; i < d->ndiags; i++)
		if (stream_write_diag(w, &d->diags[i]) != 0)
			return -1;
	for (i = 0; i < d->ntables[1]; i++)
		if (write_table(d, w, &d->tables[1][i],
		    first_id + (stream_id)i) != 0)
			return -1;
	return 0;
}

/* ---- lifetime ---- */

struct view_diff *
view_diff_new(void)
{
	return calloc(1, sizeof(struct view_diff));
}


void
view_diff_free(struct view_diff *d)
{
	size_t s, i, j;

	if (d == NULL)
		return;
	for (i = 0; i < d->ndiags; i++)
		free((char *)d->diags[i].what);
	for (s = 0; s < 2; s++)
		for (i = 0; i < d->ntables[s]; i++) {
			struct dtable *t = &d->tables[s][i];

			for (j = 0; j < t->nraw; j++)
				free_cells(t, t->raw[j]);
			for (j = 0; j < t->keys.count; j++)
				free_cells(t, t->rows[j]);
			for (j = 0; j < t->ncols; j++) {
				free(t->cols[j].name);
				free(t->cols[j].unit);
			}
			intern_release(&t->keys);
			free(t->rows);
			free(t->raw);
			free(t->name);
		}
	free(d);
}
