/*
 * out_csv.c - tables as RFC 4180 CSV.
 *
 * libcsv does the quoting; this file only decides which fields need it,
 * so that plain numbers and names stay unquoted and easy to read.  Each
 * record is built in a reused buffer and written with one fwrite().
 */
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "out.h"

struct csv_writer {
	struct out_writer w;
	FILE *fp;
	size_t ncols;
	struct out_buf line;	/* the record being built */
	struct out_buf cell;	/* one field's text before quoting */
};

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

static int
end_record(struct csv_writer *c)
{
	if (out_buf_add(&c->line, "\r\n", 2) == -1)
		return -1;
	return out_buf_write(&c->line, c->fp);
}

static int
csv_out_begin(struct out_writer *w, const char *name,
    const struct out_column *cols, size_t ncols, size_t index)
{
	struct csv_writer *c = (struct csv_writer *)w;
	size_t i;

	(void)name;	/* CSV has no place for a table's name */
	c->ncols = ncols;
	c->line.len = 0;
	if (index > 0 && out_buf_add(&c->line, "\r\n", 2) == -1)
		return -1;
	for (i = 0; i < ncols; i++)
		if (add_field(c, i, cols[i].name, strlen(cols[i].name)) == -1)
			return -1;
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
		if (out_buf_add_value(&c->cell, &cells[i]) == -1 ||
		    add_field(c, i, c->cell.ptr, c->cell.len) == -1)
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
	free(c);
}

static const struct out_writer_ops csv_out_ops = {
	csv_out_begin, csv_out_row, csv_out_end, csv_out_free
};

struct out_writer *
out_csv_open(FILE *fp)
{
	struct csv_writer *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->w.ops = &csv_out_ops;
	c->fp = fp;
	return &c->w;
}
