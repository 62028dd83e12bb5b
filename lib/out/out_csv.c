/*
 * out_csv.c - tables as RFC 4180 CSV.
 *
 * libcsv does the quoting; this file only decides which fields need it,
 * so that plain numbers and names stay unquoted and easy to read.  Each
 * record is built in a reused buffer and written with one fwrite().
 *
 * A trace may come from anyone's machine, and the names in it (of
 * processes, threads, images, functions, event fields) reach the cells
 * as they are.  A spreadsheet takes a cell that starts with '=', '+',
 * '-' or '@' for a formula, and one that starts with a tab or CR the
 * same way after trimming it (OWASP, "CSV Injection").  So a text cell
 * or header that starts with one of those is written as OWASP advises:
 * a single quote before it, the whole field quoted ("'=1+1").  A
 * spreadsheet shows the quote and evaluates nothing; numbers are never
 * touched.  "csv-raw" writes every cell as it is, for programs.
 */
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "stream/colname.h"
#include "out_writer.h"

struct csv_writer {
	struct out_writer w;
	FILE *fp;
	size_t ncols;
	int raw;		/* csv-raw: no cell is made safe */
	const struct out_column *cols;	/* the table's, for their types */
	struct out_buf line;	/* the record being built */
	struct out_buf cell;	/* one field's text before quoting */
	struct out_buf safe;	/* a live cell with its quote */
};

/* Whether a spreadsheet would evaluate a text cell starting so. */
static int
is_live(const char *s, size_t len)
{
	return len > 0 && s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
}

/* A plain decimal number: [+-]digits[.digits][e[+-]digits]. */
static int
is_plain_number(const char *s, size_t len)
{
	size_t i = 0, digits = 0;

	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (digits == 0)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		digits = 0;
		if (++i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
		if (digits == 0)
			return 0;
	}
	return i == len;
}

static int
is_number_type(enum value_type t)
{
	return t == VAL_I64 || t == VAL_U64 || t == VAL_F64 || t == VAL_NS ||
	    t == VAL_HEX;
}

/*
 * Whether a cell of type `type` in a column of type `col` is text that
 * must be made safe.  Numbers are written by value_format() and are
 * safe as they are, signs included; so is a number a caller formatted
 * as text for its column (two decimals of a percent), but no other
 * text, whatever its column claims.
 */
static int
must_defuse(enum value_type type, enum value_type col, const char *s,
    size_t len)
{
	if (is_number_type(type) || !is_live(s, len))
		return 0;
	return !(is_number_type(col) && is_plain_number(s, len));
}

static int
needs_quotes(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
			return 1;
	return 0;
}

/* Appends one field to the record, comma first unless it is the first. */
static int
add_field(struct csv_writer *c, size_t col, const char *s, size_t len)
{
	size_t n;

	if (col > 0 && out_buf_add(&c->line, ",", 1) == -1)
		return -1;
	if (!needs_quotes(s, len))
		return out_buf_add(&c->line, s, len);
	/* Asked with no room, csv_write() says how much it needs. */
	n = csv_write(NULL, 0, s, len);
	if (out_buf_reserve(&c->line, n) == -1)
		return -1;
	c->line.len += csv_write(c->line.ptr + c->line.len, n, s, len);
	return 0;
}

/* Appends a field as add_field() does, made safe if it must be. */
static int
add_cell(struct csv_writer *c, size_t col, const char *s, size_t len,
    enum value_type type, enum value_type coltype)
{
	if (c->raw || !must_defuse(type, coltype, s, len))
		return add_field(c, col, s, len);
	c->safe.len = 0;
	if (out_buf_add(&c->safe, "'", 1) == -1 ||
	    out_buf_add(&c->safe, s, len) == -1)
		return -1;
	/* libcsv quotes what needs it; the rest is quoted here, as OWASP
	 * advises, so that no reader takes the quote for a delimiter. */
	if (needs_quotes(c->safe.ptr, c->safe.len))
		return add_field(c, col, c->safe.ptr, c->safe.len);
	if ((col > 0 && out_buf_add(&c->line, ",", 1) == -1) ||
	    out_buf_add(&c->line, "\"", 1) == -1 ||
	    out_buf_add(&c->line, c->safe.ptr, c->safe.len) == -1)
		return -1;
	return out_buf_add(&c->line, "\"", 1);
}

static int
end_record(struct csv_writer *c)
{
	if (out_buf_add(&c->line, "\r\n", 2) == -1)
		return -1;
	return out_buf_write(&c->line, c->fp);
}

char *
out_csv_header(const struct out_column *col, char *buf, size_t cap)
{
	/* Times since the start are written in seconds. */
	return colname_header(col->name, col->type, col->unit, "s", buf,
	    cap);
}

/*
 * A UTC time as spreadsheets read it: value_format()'s ISO 8601
 * "YYYY-MM-DDTHH:MM:SS.fffffffZ" with a space for the T, to the ms.
 */
static void
spreadsheet_time(struct out_buf *cell)
{
	if (cell->len != 28 || cell->ptr[10] != 'T' || cell->ptr[27] != 'Z')
		return;
	cell->ptr[10] = ' ';
	cell->len = 23;
}

static int
csv_out_begin(struct out_writer *w, const char *name,
    const struct out_column *cols, size_t ncols, size_t index)
{
	struct csv_writer *c = (struct csv_writer *)w;
	size_t i;

	(void)name;	/* CSV has no place for a table's name */
	c->ncols = ncols;
	c->cols = cols;
	c->line.len = 0;
	if (index > 0 && out_buf_add(&c->line, "\r\n", 2) == -1)
		return -1;
	for (i = 0; i < ncols; i++) {
		char head[256];

		out_csv_header(&cols[i], head, sizeof(head));
		if (add_cell(c, i, head, strlen(head), VAL_STR, VAL_STR) == -1)
			return -1;
	}
	return end_record(c);
}

static int
csv_out_row(struct out_writer *w, const struct value *cells)
{
	struct csv_writer *c = (struct csv_writer *)w;
	size_t i;

	c->line.len = 0;
	for (i = 0; i < c->ncols; i++) {
		c->cell.len = 0;
		if (out_buf_add_value(&c->cell, &cells[i]) == -1)
			return -1;
		if (cells[i].type == VAL_UTC)
			spreadsheet_time(&c->cell);
		if (add_cell(c, i, c->cell.ptr, c->cell.len, cells[i].type,
		    c->cols[i].type) == -1)
			return -1;
	}
	return end_record(c);
}

static int
csv_out_end(struct out_writer *w)
{
	(void)w;	/* a record is written as soon as it is complete */
	return 0;
}

static void
csv_out_free(struct out_writer *w)
{
	struct csv_writer *c = (struct csv_writer *)w;

	out_buf_free(&c->line);
	out_buf_free(&c->cell);
	out_buf_free(&c->safe);
	free(c);
}

static const struct out_writer_ops csv_out_ops = {
	csv_out_begin, csv_out_row, csv_out_end, csv_out_free, NULL
};

static struct out_writer *
csv_open(FILE *fp, int raw)
{
	struct csv_writer *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->w.ops = &csv_out_ops;
	c->fp = fp;
	c->raw = raw;
	return &c->w;
}

struct out_writer *
out_csv_open(FILE *fp)
{
	return csv_open(fp, 0);
}

struct out_writer *
out_csv_raw_open(FILE *fp)
{
	return csv_open(fp, 1);
}
