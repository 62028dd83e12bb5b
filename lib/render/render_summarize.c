/*
 * render_summarize.c - measureme summarize's layout for the tables of
 * "etlagg queries" (render_summarize.h; measureme-format.md 8.2).
 *
 * A table is prettytable's box: a rule of '-' per column, two wider than
 * the column, between '+'; cells left-aligned between "| " and " |";
 * widths in characters (code points: 'µ' is one).  The query table's
 * item is its name, a space and dots up to the longest name less one
 * (measured in bytes, as Rust's str::len() does), so that the longest
 * name gets the space alone.
 *
 * The --diff tables are summarize diff's box: the same rules, items
 * without dots, every column shown; durations and counts signed, the
 * durations with all their decimals (its SignedDuration prints as {:?}
 * whatever precision is asked), changes as {:+.2}%.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "render_summarize.h"

enum tab {
	T_NONE, T_QUERIES, T_TOTAL, T_ARTIFACTS
};

/* The columns summarize can show, in its order, and the sizes column. */
enum col {
	C_ITEM, C_SELF, C_PCT, C_SELF_CHANGE, C_TIME, C_TIME_CHANGE, C_COUNT,
	C_HITS, C_BLOCKED, C_LOAD, C_HASHING, C_BYTES, C_MAX
};

/* Where each comes from in the view's tables. */
static const char *const col_source[C_MAX] = {
	"item", "self_ns", "self_pct", "self_change_pct", "total_ns",
	"total_change_pct", "count", "cache_hits", "blocked_ns",
	"incremental_load_ns", "incremental_hashing_ns", "bytes"
};

/* The titles of summarize, [1] those of summarize diff. */
static const char *const col_title[2][C_MAX] = {
	{ "Item", "Self time", "% of total time", "", "Time", "", "Item count",
	    "Cache hits", "Blocked time", "Incremental load time",
	    "Incremental result hashing time", "Artifact Size" },
	{ "Item", "Self Time", "", "Self Time Change", "Time", "Time Change",
	    "Item count", "Cache hits", "Blocked time",
	    "Incremental load time", "Incremental hashing time",
	    "Artifact Size Change" },
};

struct hrow {
	size_t at, len;		/* the item's shown text in held.text */
	int64_t v[C_MAX];	/* integer columns */
	double f[C_MAX];	/* C_PCT and the changes */
};

/* A table held back until it is complete. */
struct held {
	int open;		/* its REC_TABLE came: draw it, rows or none */
	int diff;		/* a --diff table */
	int src[C_MAX];		/* its column of each, or -1 */
	struct buf text;	/* the items */
	size_t longest;		/* bytes of the longest item */
	struct hrow *rows;
	size_t n, cap;
};

/* The columns one table shows, and how wide they are. */
struct box {
	const struct held *h;
	int dotted;		/* items get their dots */
	enum col cols[C_MAX];
	size_t ncols;
	size_t width[C_MAX];
};

struct summarize {
	FILE *fp;
	struct held queries, artifacts;
	enum tab cur;		/* the table rows are taken for */
	stream_id cur_id;
	int total_col;		/* queries_total's total_ns column, or -1 */
	struct buf line, cell;
};

/* ---- durations ---- */

/* {:.2?}: two decimals of `div`, rounded half to even, carry kept. */
static size_t
two_decimals(char *buf, const char *sign, uint64_t whole, uint64_t frac,
    uint64_t div, const char *unit)
{
	uint64_t step = div / 100, q = 0, r;

	if (step > 0) {
		q = frac / step;
		r = frac % step;
		if (r * 2 > step || (r * 2 == step && q % 2 == 1))
			q++;
		if (q == 100) {
			whole++;
			q = 0;
		}
	}
	return (size_t)snprintf(buf, SUMMARIZE_DURATION_MAX,
	    "%s%" PRIu64 ".%02" PRIu64 "%s", sign, whole, q, unit);
}

/* {:?}: every decimal up to the last that is not zero. */
static size_t
all_decimals(char *buf, const char *sign, uint64_t whole, uint64_t frac,
    int digits, const char *unit)
{
	char dec[16];
	int n;

	if (frac == 0)
		return (size_t)snprintf(buf, SUMMARIZE_DURATION_MAX,
		    "%s%" PRIu64 "%s", sign, whole, unit);
	n = snprintf(dec, sizeof(dec), "%0*" PRIu64, digits, frac);
	while (n > 0 && dec[n - 1] == '0')
		n--;
	return (size_t)snprintf(buf, SUMMARIZE_DURATION_MAX,
	    "%s%" PRIu64 ".%.*s%s", sign, whole, n, dec, unit);
}

size_t
summarize_duration(char *buf, int64_t ns, int fixed)
{
	static const struct {
		uint64_t div;
		int digits;
		const char *unit;
	} units[] = {
		{ 1000000000, 9, "s" }, { 1000000, 6, "ms" },
		{ 1000, 3, "\xc2\xb5s" }, { 1, 0, "ns" },
	};
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	const char *sign = ns < 0 ? "-" : "";
	size_t u = 0;

	while (units[u].div > 1 && mag < units[u].div)
		u++;
	if (fixed)
		return two_decimals(buf, sign, mag / units[u].div,
		    mag % units[u].div, units[u].div, units[u].unit);
	return all_decimals(buf, sign, mag / units[u].div, mag % units[u].div,
	    units[u].digits, units[u].unit);
}

/* ---- holding tables ---- */

struct summarize *
summarize_open(FILE *fp)
{
	struct summarize *s = calloc(1, sizeof(*s));

	if (s != NULL)
		s->fp = fp;
	return s;
}

/* Which table `name` is; *diff says whether it is a --diff one. */
static enum tab
tab_of(const char *name, int *diff)
{
	*diff = strncmp(name, "queries_diff", 12) == 0;
	if (*diff)
		name += 12;
	else if (strncmp(name, "queries", 7) == 0)
		name += 7;
	else
		return T_NONE;
	if (*name == '\0')
		return T_QUERIES;
	if (strcmp(name, "_total") == 0)
		return T_TOTAL;
	if (strcmp(name, "_artifacts") == 0)
		return T_ARTIFACTS;
	return T_NONE;
}

static int
column_of(const struct stream_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void
held_begin(struct held *h, const struct stream_table *t, int diff)
{
	int c;

	h->open = 1;
	h->diff = diff;
	for (c = 0; c < C_MAX; c++)
		h->src[c] = column_of(t, col_source[c]);
}

static void
held_clear(struct held *h)
{
	h->open = 0;
	h->n = 0;
	h->text.len = 0;
	h->longest = 0;
}

static void
held_release(struct held *h)
{
	buf_release(&h->text);
	free(h->rows);
}

static const struct value *
cell_at(const struct stream_row *r, int col)
{
	if (col < 0 || (size_t)col >= r->ncells)
		return NULL;
	return &r->cells[col];
}

/* The view writes durations as i64 and counts as u64. */
static int64_t
cell_int(const struct stream_row *r, int col)
{
	const struct value *v = cell_at(r, col);

	if (v != NULL && v->type == VAL_I64)
		return v->v.i;
	return v != NULL && v->type == VAL_U64 ? (int64_t)v->v.u : 0;
}

/* Appends s with control characters escaped, as out.h shows them. */
static void
put_shown(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char esc[4] = { '\\', 'x' };
	unsigned char c;
	size_t i;

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7f) {
			buf_put(b, &s[i], 1);
			continue;
		}
		esc[1] = c == '\t' ? 't' : c == '\n' ? 'n' :
		    c == '\r' ? 'r' : 'x';
		esc[2] = hex[c >> 4];
		esc[3] = hex[c & 0xf];
		buf_put(b, esc, esc[1] == 'x' ? 4 : 2);
	}
}

static int
held_row(struct held *h, const struct stream_row *r)
{
	const struct value *item = cell_at(r, h->src[C_ITEM]), *f;
	struct hrow *row;
	int c;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;

		if ((row = realloc(h->rows, cap * sizeof(*row))) == NULL)
			return -1;
		h->rows = row;
		h->cap = cap;
	}
	row = &h->rows[h->n++];
	row->at = h->text.len;
	if (item != NULL && item->type == VAL_STR)
		put_shown(&h->text, item->v.s.ptr, item->v.s.len);
	row->len = h->text.len - row->at;
	if (row->len > h->longest)
		h->longest = row->len;
	for (c = 0; c < C_MAX; c++) {
		row->v[c] = cell_int(r, h->src[c]);
		f = cell_at(r, h->src[c]);
		row->f[c] = f != NULL && f->type == VAL_F64 ? f->v.f : 0.0;
	}
	if (h->text.oom) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* ---- drawing ---- */

/* Code points, counted as the bytes that do not continue a sequence. */
static size_t
width_of(const unsigned char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

static void
put_repeat(struct buf *b, char c, size_t n)
{
	unsigned char *d = buf_reserve(b, n);

	if (d != NULL) {
		memset(d, c, n);
		b->len += n;
	}
}

/* summarize diff's {:+.2}% of a change, Rust's NaN and inf included. */
static size_t
change_text(char *buf, size_t cap, double pct)
{
	if (isnan(pct))
		return (size_t)snprintf(buf, cap, "NaN%%");
	if (isinf(pct))
		return (size_t)snprintf(buf, cap, "%sinf%%", pct < 0 ? "-" : "+");
	return (size_t)snprintf(buf, cap, "%+.2f%%", pct);
}

/* A SignedDuration's {:?}: its sign, '+' for 0 too, then all decimals. */
static size_t
signed_duration(char *buf, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	buf[0] = ns < 0 ? '-' : '+';
	/* mag fits an int64_t but for INT64_MIN, which a view never sums. */
	return 1 + summarize_duration(buf + 1, mag > INT64_MAX ? INT64_MAX :
	    (int64_t)mag, 0);
}

/* The text of a --diff row's cell. */
static size_t
diff_cell_text(char *num, size_t cap, const struct hrow *row, enum col c)
{
	switch (c) {
	case C_SELF_CHANGE:
	case C_TIME_CHANGE:
		return change_text(num, cap, row->f[c]);
	case C_COUNT:
	case C_HITS:
		return (size_t)snprintf(num, cap, "%+" PRId64, row->v[c]);
	case C_BYTES:
		return (size_t)snprintf(num, cap, "%+" PRId64 " bytes",
		    row->v[c]);
	default:
		return signed_duration(num, row->v[c]);
	}
}

/* The text of row i's cell in column c, into s->cell. */
static void
cell_text(struct summarize *s, const struct box *b, size_t i, enum col c)
{
	const struct hrow *row = &b->h->rows[i];
	char num[SUMMARIZE_DURATION_MAX + 2];
	size_t n;

	s->cell.len = 0;
	if (c != C_ITEM && b->h->diff) {
		n = diff_cell_text(num, sizeof(num), row, c);
		buf_put(&s->cell, num, n < sizeof(num) ? n : sizeof(num) - 1);
		return;
	}
	switch (c) {
	case C_ITEM:
		buf_put(&s->cell, b->h->text.data + row->at, row->len);
		if (!b->dotted)
			return;
		buf_put(&s->cell, " ", 1);
		if (b->h->longest > row->len + 1)
			put_repeat(&s->cell, '.', b->h->longest - row->len - 1);
		return;
	case C_PCT:
		/* Rust's "NaN"; inf is spelled alike in C. */
		n = (size_t)(isnan(row->f[C_PCT]) ?
		    snprintf(num, sizeof(num), "NaN") :
		    snprintf(num, sizeof(num), "%.3f", row->f[C_PCT]));
		break;
	case C_COUNT:
	case C_HITS:
		n = (size_t)snprintf(num, sizeof(num), "%" PRIu64,
		    (uint64_t)row->v[c]);
		break;
	case C_BYTES:
		n = (size_t)snprintf(num, sizeof(num), "%" PRIu64 " bytes",
		    (uint64_t)row->v[c]);
		break;
	default:
		n = summarize_duration(num, row->v[c], 1);
	}
	buf_put(&s->cell, num, n < sizeof(num) ? n : sizeof(num) - 1);
}

/* Widens each column to its title and every cell below it. */
static void
measure(struct summarize *s, struct box *b)
{
	size_t i, k, w;

	for (k = 0; k < b->ncols; k++) {
		const char *t = col_title[b->h->diff][b->cols[k]];

		b->width[k] = width_of((const unsigned char *)t, strlen(t));
	}
	for (i = 0; i < b->h->n; i++)
		for (k = 0; k < b->ncols; k++) {
			cell_text(s, b, i, b->cols[k]);
			w = width_of(s->cell.data, s->cell.len);
			if (w > b->width[k])
				b->width[k] = w;
		}
}

static int
put_line(struct summarize *s)
{
	buf_put(&s->line, "\n", 1);
	if (s->line.oom) {
		errno = ENOMEM;
		return -1;
	}
	if (fwrite(s->line.data, 1, s->line.len, s->fp) != s->line.len)
		return -1;
	s->line.len = 0;
	return 0;
}

static int
put_rule(struct summarize *s, const struct box *b)
{
	size_t k;

	buf_put(&s->line, "+", 1);
	for (k = 0; k < b->ncols; k++) {
		put_repeat(&s->line, '-', b->width[k] + 2);
		buf_put(&s->line, "+", 1);
	}
	return put_line(s);
}

static void
put_cell(struct summarize *s, const void *text, size_t len, size_t width)
{
	size_t w = width_of(text, len);

	buf_put(&s->line, " ", 1);
	buf_put(&s->line, text, len);
	put_repeat(&s->line, ' ', width > w ? width - w + 1 : 1);
	buf_put(&s->line, "|", 1);
}

static int
draw_box(struct summarize *s, struct box *b)
{
	const char *title;
	size_t i, k;

	measure(s, b);
	if (put_rule(s, b) != 0)
		return -1;
	buf_put(&s->line, "|", 1);
	for (k = 0; k < b->ncols; k++) {
		title = col_title[b->h->diff][b->cols[k]];
		put_cell(s, title, strlen(title), b->width[k]);
	}
	if (put_line(s) != 0 || put_rule(s, b) != 0)
		return -1;
	for (i = 0; i < b->h->n; i++) {
		buf_put(&s->line, "|", 1);
		for (k = 0; k < b->ncols; k++) {
			cell_text(s, b, i, b->cols[k]);
			put_cell(s, s->cell.data, s->cell.len, b->width[k]);
		}
		if (s->cell.oom) {
			errno = ENOMEM;
			return -1;
		}
		if (put_line(s) != 0)
			return -1;
	}
	return put_rule(s, b);
}

/* Whether any row has a value above zero in column c. */
static int
any_above_zero(const struct held *h, enum col c)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->rows[i].v[c] > 0)
			return 1;
	return 0;
}

/*
 * The query table.  With the total, the percentages are summarize's own
 * f64 division (a total of 0 gives NaN or inf, as Rust prints them);
 * without it, the view's self_pct.
 */
static int
draw_queries(struct summarize *s, int have_total, int64_t total)
{
	static const enum col optional[] = { C_HITS, C_BLOCKED, C_LOAD,
	    C_HASHING };
	static const struct box diff = { NULL, 0, { C_ITEM, C_SELF,
	    C_SELF_CHANGE, C_TIME, C_TIME_CHANGE, C_COUNT, C_HITS, C_BLOCKED,
	    C_LOAD, C_HASHING }, 10, { 0 } };
	struct held *h = &s->queries;
	struct box b = { h, 1, { C_ITEM, C_SELF, C_PCT, C_TIME, C_COUNT }, 5,
	    { 0 } };
	size_t i;
	int rc;

	if (!h->open)
		return 0;
	if (h->diff) {
		b = diff;
		b.h = h;
	}
	for (i = 0; !h->diff && i < sizeof(optional) / sizeof(optional[0]);
	    i++)
		if (any_above_zero(h, optional[i]))
			b.cols[b.ncols++] = optional[i];
	for (i = 0; have_total && !h->diff && i < h->n; i++)
		h->rows[i].f[C_PCT] = (double)h->rows[i].v[C_SELF] /
		    (double)total * 100.0;
	rc = draw_box(s, &b);
	held_clear(h);
	return rc;
}

static int
draw_artifacts(struct summarize *s)
{
	struct held *h = &s->artifacts;
	struct box b = { h, 0, { C_ITEM, C_BYTES }, 2, { 0 } };
	int rc;

	if (!h->open)
		return 0;
	rc = draw_box(s, &b);
	held_clear(h);
	return rc;
}

/* Writes all that is held; rows are no longer taken. */
static int
flush(struct summarize *s)
{
	s->cur = T_NONE;
	if (draw_queries(s, 0, 0) != 0 || draw_artifacts(s) != 0)
		return -1;
	return 0;
}

static int
total_row(struct summarize *s, const struct stream_row *r)
{
	char text[SUMMARIZE_DURATION_MAX + 1];
	int64_t total = cell_int(r, s->total_col);

	if (s->queries.diff)
		signed_duration(text, total);
	else
		summarize_duration(text, total, 0);
	if (draw_queries(s, 1, total) != 0 ||
	    fprintf(s->fp, "Total cpu time: %s\n", text) < 0)
		return -1;
	return 0;
}

static int
begin_table(struct summarize *s, const struct stream_table *t)
{
	int diff;
	enum tab k = tab_of(t->name, &diff);

	/* The total keeps the query table back: it is drawn with it. */
	if (k == T_TOTAL ? draw_artifacts(s) != 0 : flush(s) != 0)
		return -1;
	s->cur = k;
	s->cur_id = t->id;
	if (k == T_QUERIES)
		held_begin(&s->queries, t, diff);
	else if (k == T_ARTIFACTS)
		held_begin(&s->artifacts, t, diff);
	else if (k == T_TOTAL)
		s->total_col = column_of(t, "total_ns");
	return k != T_NONE;
}

int
summarize_record(struct summarize *s, const struct stream_record *rec)
{
	const struct stream_row *r = &rec->u.row;

	if (rec->type == REC_TABLE)
		return begin_table(s, &rec->u.table);
	if (rec->type != REC_ROW || s->cur == T_NONE || r->table != s->cur_id)
		return flush(s);
	if (s->cur == T_TOTAL)
		return total_row(s, r) == 0 ? 1 : -1;
	return held_row(s->cur == T_QUERIES ? &s->queries : &s->artifacts,
	    r) == 0 ? 1 : -1;
}

int
summarize_close(struct summarize *s)
{
	int rc = flush(s);

	held_release(&s->queries);
	held_release(&s->artifacts);
	buf_release(&s->line);
	buf_release(&s->cell);
	free(s);
	return rc;
}
