/*
 * out_text.c - tables as aligned columns for a terminal, their figures
 * as a person reads them (out_scale.h).
 *
 * Column widths, and the unit of each column of times or bytes, come
 * from the first OUT_TEXT_ROWS rows, which are held back; once they are
 * written, later rows go out at once with the same widths and units.
 * Memory therefore stays bounded however long the table is.
 *
 * Cells are kept as their shown text, control characters escaped, each
 * ending in a NUL; the escaping leaves no NUL inside a cell, so a row is
 * just ncols strings one after another.  A held cell of a column whose
 * unit is not chosen yet is kept as its value instead (an empty text),
 * and written when the unit is.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out_scale.h"
#include "out_writer.h"

#define GAP	2	/* spaces between columns */

struct text_writer {
	struct out_writer w;
	FILE *fp;
	const struct out_column *cols;
	size_t ncols;
	size_t *width;		/* per column, in code points */
	size_t width_cap;	/* entries allocated in width and scale */
	struct out_scale *scale;	/* per column: its unit */
	struct out_buf head;	/* the header cells */
	struct out_buf held;	/* the rows held back */
	struct out_buf nums;	/* their values, ncols a row, to scale */
	size_t nheld;		/* rows in held */
	int streaming;		/* widths fixed, rows go straight out */
	struct out_buf row;	/* one row's cells, when not held */
	struct out_buf line;	/* the line being built */
	struct out_buf cell;	/* a value's text before escaping */
};

static int
right_aligned(enum value_type type)
{
	return type == VAL_I64 || type == VAL_U64 || type == VAL_F64 ||
	    type == VAL_NS;
}

/* Code points, counted as the bytes that do not continue a sequence. */
static size_t
width_of(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/*
 * Appends s with control characters escaped, so that a value can neither
 * break the line nor send escape sequences to the terminal.
 */
static int
add_shown(struct out_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c;
	size_t i;
	char *d;

	/* Each byte becomes at most \xHH; reserve that and skip checks. */
	if (len > SIZE_MAX / 4) {
		errno = ENOMEM;
		return -1;
	}
	if (out_buf_reserve(b, len * 4) == -1)
		return -1;
	d = b->ptr + b->len;
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7f) {
			*d++ = (char)c;
			continue;
		}
		*d++ = '\\';
		if (c == '\t')
			*d++ = 't';
		else if (c == '\n')
			*d++ = 'n';
		else if (c == '\r')
			*d++ = 'r';
		else {
			*d++ = 'x';
			*d++ = hex[c >> 4];
			*d++ = hex[c & 0xf];
		}
	}
	b->len = d - b->ptr;
	return 0;
}

static int
add_spaces(struct out_buf *b, size_t n)
{
	if (out_buf_reserve(b, n) == -1)
		return -1;
	memset(b->ptr + b->len, ' ', n);
	b->len += n;
	return 0;
}

/*
 * Writes one line of ncols cells.  Padding is owed rather than written,
 * and paid only before text that follows it, so no line ends in spaces.
 */
static int
put_line(struct text_writer *t, const char *cell)
{
	size_t i, len, fill, owed = 0;

	t->line.len = 0;
	for (i = 0; i < t->ncols; i++) {
		len = strlen(cell);
		fill = width_of(cell);
		fill = fill < t->width[i] ? t->width[i] - fill : 0;
		if (i > 0)
			owed += GAP;
		if (right_aligned(t->cols[i].type))
			owed += fill;
		if (len > 0) {
			if (add_spaces(&t->line, owed) == -1 ||
			    out_buf_add(&t->line, cell, len) == -1)
				return -1;
			owed = 0;
		}
		if (!right_aligned(t->cols[i].type))
			owed += fill;
		cell += len + 1;
	}
	if (out_buf_add(&t->line, "\n", 1) == -1)
		return -1;
	return out_buf_write(&t->line, t->fp);
}

static int
put_dashes(struct text_writer *t)
{
	size_t i;

	t->row.len = 0;
	for (i = 0; i < t->ncols; i++) {
		if (out_buf_reserve(&t->row, t->width[i] + 1) == -1)
			return -1;
		memset(t->row.ptr + t->row.len, '-', t->width[i]);
		t->row.len += t->width[i];
		t->row.ptr[t->row.len++] = '\0';
	}
	return put_line(t, t->row.ptr);
}

static int
is_figure(enum value_type t)
{
	return t == VAL_I64 || t == VAL_U64 || t == VAL_F64 || t == VAL_NS;
}

/* Appends the shown text of v, a cell of column i, and its NUL to b. */
static int
add_cell(struct text_writer *t, struct out_buf *b, size_t i,
    const struct value *v)
{
	size_t n = out_scale_format(&t->scale[i], v, NULL, 0);

	t->cell.len = 0;
	if (out_buf_reserve(&t->cell, n + 1) == -1)
		return -1;
	out_scale_format(&t->scale[i], v, t->cell.ptr, n + 1);
	if (add_shown(b, t->cell.ptr, n) == -1)
		return -1;
	return out_buf_add(b, "", 1);
}

/*
 * Appends a row's cells to b.  While rows are held, a figure of a
 * column whose unit is not chosen yet goes to nums (an empty text in
 * b); nums gets ncols values a held row, empty for the others.
 */
static int
add_row(struct text_writer *t, struct out_buf *b, const struct value *cells)
{
	static const struct value none = { .type = VAL_NULL };
	const struct value *keep;
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if (!t->streaming) {
			keep = &none;
			if ((t->scale[i].kind == OUT_SCALE_TIME ||
			    t->scale[i].kind == OUT_SCALE_BYTES) &&
			    is_figure(cells[i].type)) {
				out_scale_see(&t->scale[i], &cells[i]);
				keep = &cells[i];
			}
			if (out_buf_add(&t->nums, keep, sizeof(*keep)) == -1)
				return -1;
			if (keep != &none) {
				if (out_buf_add(b, "", 1) == -1)
					return -1;
				continue;
			}
		}
		if (add_cell(t, b, i, &cells[i]) == -1)
			return -1;
	}
	return 0;
}

/*
 * Held row r, whose text starts at *cell, with its figures written,
 * into t->row; *cell moves to the next row's.
 */
static int
held_row(struct text_writer *t, const char **cell, size_t r)
{
	struct value v;
	size_t i, len;

	t->row.len = 0;
	for (i = 0; i < t->ncols; i++) {
		memcpy(&v, t->nums.ptr + (r * t->ncols + i) * sizeof(v),
		    sizeof(v));
		len = strlen(*cell) + 1;
		if (v.type != VAL_NULL ? add_cell(t, &t->row, i, &v) :
		    out_buf_add(&t->row, *cell, len))
			return -1;
		*cell += len;
	}
	return 0;
}

/* Widens the columns to fit the row of cells at offset `at` of b. */
static void
measure(struct text_writer *t, const struct out_buf *b, size_t at)
{
	const char *cell;
	size_t i, w;

	for (i = 0; i < t->ncols; i++) {
		cell = b->ptr + at;
		w = width_of(cell);
		if (w > t->width[i])
			t->width[i] = w;
		at += strlen(cell) + 1;
	}
}

/*
 * Chooses each column's unit from the rows held, and makes the header
 * of names and units; the widths start from it.
 */
static int
choose_units(struct text_writer *t)
{
	size_t i, n;

	t->head.len = 0;
	for (i = 0; i < t->ncols; i++) {
		out_scale_choose(&t->scale[i]);
		n = strlen(t->cols[i].name) + 64;
		if (out_buf_reserve(&t->cell, n) == -1)
			return -1;
		out_scale_header(&t->cols[i], &t->scale[i], t->cell.ptr, n);
		if (add_shown(&t->head, t->cell.ptr,
		    strlen(t->cell.ptr)) == -1 ||
		    out_buf_add(&t->head, "", 1) == -1)
			return -1;
		t->width[i] = 0;
	}
	measure(t, &t->head, 0);
	return 0;
}

/* Forgets the rows held; from now on rows stream. */
static void
stream_on(struct text_writer *t)
{
	t->held.len = 0;
	t->nums.len = 0;
	t->nheld = 0;
	t->streaming = 1;
}

/* Writes the header and the held rows; from now on rows stream. */
static int
release(struct text_writer *t)
{
	const char *cell;
	size_t i;

	if (choose_units(t) == -1)
		return -1;
	for (cell = t->held.ptr, i = 0; i < t->nheld; i++) {
		if (held_row(t, &cell, i) == -1)
			return -1;
		measure(t, &t->row, 0);
	}
	if (put_line(t, t->head.ptr) == -1 || put_dashes(t) == -1)
		return -1;
	for (cell = t->held.ptr, i = 0; i < t->nheld; i++)
		if (held_row(t, &cell, i) == -1 ||
		    put_line(t, t->row.ptr) == -1)
			return -1;
	stream_on(t);
	return 0;
}

static int
set_columns(struct text_writer *t, const struct out_column *cols,
    size_t ncols)
{
	struct out_scale *sc;
	size_t i, *p;

	if (ncols > t->width_cap) {
		if (ncols > SIZE_MAX / sizeof(*sc)) {
			errno = ENOMEM;
			return -1;
		}
		if ((p = realloc(t->width, ncols * sizeof(*p))) == NULL)
			return -1;
		t->width = p;
		if ((sc = realloc(t->scale, ncols * sizeof(*sc))) == NULL)
			return -1;
		t->scale = sc;
		t->width_cap = ncols;
	}
	t->cols = cols;
	t->ncols = ncols;
	for (i = 0; i < ncols; i++) {
		out_scale_init(&t->scale[i], &cols[i]);
		t->width[i] = 0;
	}
	return 0;
}

static int
text_begin(struct out_writer *w, const char *name,
    const struct out_column *cols, size_t ncols, size_t index)
{
	struct text_writer *t = (struct text_writer *)w;

	t->line.len = 0;
	if (index > 0 && out_buf_add(&t->line, "\n", 1) == -1)
		return -1;
	if (name[0] != '\0' &&
	    (add_shown(&t->line, name, strlen(name)) == -1 ||
	    out_buf_add(&t->line, "\n", 1) == -1))
		return -1;
	if (out_buf_write(&t->line, t->fp) == -1)
		return -1;
	t->held.len = 0;
	t->nums.len = 0;
	t->nheld = 0;
	t->streaming = 0;
	return set_columns(t, cols, ncols);
}

static int
text_row(struct out_writer *w, const struct value *cells)
{
	struct text_writer *t = (struct text_writer *)w;

	if (t->streaming) {
		t->row.len = 0;
		if (add_row(t, &t->row, cells) == -1)
			return -1;
		return put_line(t, t->row.ptr);
	}
	if (add_row(t, &t->held, cells) == -1)
		return -1;
	if (++t->nheld == OUT_TEXT_ROWS)
		return release(t);
	return 0;
}

/*
 * A table of one row (sysconfig) as "name (unit)  value" lines, the
 * values lined up: read down, not across a line wider than a terminal.
 */
static int
release_one_row(struct text_writer *t)
{
	const char *head, *cell = t->held.ptr;
	size_t i, w, widest = 0;

	if (choose_units(t) == -1 || held_row(t, &cell, 0) == -1)
		return -1;
	for (head = t->head.ptr, i = 0; i < t->ncols; i++) {
		if ((w = width_of(head)) > widest)
			widest = w;
		head += strlen(head) + 1;
	}
	head = t->head.ptr;
	cell = t->row.ptr;
	for (i = 0; i < t->ncols; i++) {
		t->line.len = 0;
		if (out_buf_add_str(&t->line, head) == -1)
			return -1;
		if (cell[0] != '\0') {
			w = width_of(head);
			if (add_spaces(&t->line, widest - w + 2) == -1 ||
			    out_buf_add_str(&t->line, cell) == -1)
				return -1;
		}
		if (out_buf_add(&t->line, "\n", 1) == -1 ||
		    out_buf_write(&t->line, t->fp) == -1)
			return -1;
		head += strlen(head) + 1;
		cell += strlen(cell) + 1;
	}
	stream_on(t);
	return 0;
}

static int
text_end(struct out_writer *w)
{
	struct text_writer *t = (struct text_writer *)w;

	if (t->streaming)
		return 0;
	if (t->nheld == 1 && t->ncols > 1)
		return release_one_row(t);
	return release(t);
}

static void
text_free(struct out_writer *w)
{
	struct text_writer *t = (struct text_writer *)w;

	free(t->width);
	free(t->scale);
	out_buf_free(&t->head);
	out_buf_free(&t->held);
	out_buf_free(&t->nums);
	out_buf_free(&t->row);
	out_buf_free(&t->line);
	out_buf_free(&t->cell);
	free(t);
}

static const struct out_writer_ops text_ops = {
	text_begin, text_row, text_end, text_free, NULL
};

struct out_writer *
out_text_open(FILE *fp)
{
	struct text_writer *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->w.ops = &text_ops;
	t->fp = fp;
	return &t->w;
}
