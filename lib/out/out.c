/*
 * out.c - the table of output formats, and what every format shares:
 * the order of calls, the copy of the columns, the record of the first
 * failure.  The formats build their rows in out_buf.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out_writer.h"

static const struct {
	const char *name;
	struct out_writer *(*open)(FILE *fp);
} formats[] = {
	{ "text", out_text_open },
	{ "csv", out_csv_open },
	{ "csv-raw", out_csv_raw_open },
	{ "jsonl", out_jsonl_open },
};

#define NFORMATS	(sizeof(formats) / sizeof(formats[0]))

struct out {
	struct out_writer *w;
	FILE *fp;
	struct out_column *cols;	/* the current table's, copied */
	size_t cols_cap;		/* entries allocated in cols */
	struct out_buf strings;		/* the names and units in cols */
	size_t ntables;			/* tables begun */
	int in_table;
	int err;			/* errno of the first failure, or 0 */
};

const char *const *
out_format_names(void)
{
	/* Filled from formats[] so that the names are spelled once. */
	static const char *names[NFORMATS + 1];
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		names[i] = formats[i].name;
	return names;
}

struct out *
out_open(const char *format, FILE *fp)
{
	struct out *o;
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, format) == 0)
			break;
	if (i == NFORMATS) {
		errno = EINVAL;
		return NULL;
	}
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return NULL;
	if ((o->w = formats[i].open(fp)) == NULL) {
		free(o);
		return NULL;
	}
	o->fp = fp;
	return o;
}

/* Keeps the first failure's errno for out_close(); returns -1. */
static int
failed(struct out *o)
{
	if (o->err == 0)
		o->err = errno ? errno : EIO;
	return -1;
}

static int
misuse(void)
{
	errno = EINVAL;
	return -1;
}

static const char *
unit_of(const struct out_column *col)
{
	return col->unit ? col->unit : "";
}

/* Copies cols into o->cols, with their strings in o->strings. */
static int
copy_columns(struct out *o, const struct out_column *cols, size_t ncols)
{
	size_t i, need = 0;
	struct out_column *p;

	for (i = 0; i < ncols; i++)
		need += strlen(cols[i].name) + strlen(unit_of(&cols[i])) + 2;
	o->strings.len = 0;
	/* Reserving all at once keeps the pointers below from moving. */
	if (out_buf_reserve(&o->strings, need) == -1)
		return -1;
	if (ncols > o->cols_cap) {
		if (ncols > SIZE_MAX / sizeof(*p)) {
			errno = ENOMEM;
			return -1;
		}
		if ((p = realloc(o->cols, ncols * sizeof(*p))) == NULL)
			return -1;
		o->cols = p;
		o->cols_cap = ncols;
	}
	for (i = 0; i < ncols; i++) {
		o->cols[i].type = cols[i].type;
		o->cols[i].name = o->strings.ptr + o->strings.len;
		out_buf_add(&o->strings, cols[i].name,
		    strlen(cols[i].name) + 1);
		o->cols[i].unit = o->strings.ptr + o->strings.len;
		out_buf_add(&o->strings, unit_of(&cols[i]),
		    strlen(unit_of(&cols[i])) + 1);
	}
	return 0;
}

int
out_table_begin(struct out *o, const char *name,
    const struct out_column *cols, size_t ncols)
{
	if (o->in_table)
		return misuse();
	if (copy_columns(o, cols, ncols) == -1)
		return failed(o);
	o->in_table = 1;
	if (o->w->ops->begin(o->w, name, o->cols, ncols, o->ntables++) == -1)
		return failed(o);
	return 0;
}

int
out_table_row(struct out *o, const struct value *cells)
{
	if (!o->in_table)
		return misuse();
	if (o->w->ops->row(o->w, cells) == -1)
		return failed(o);
	return 0;
}

int
out_table_row_record(struct out *o, const struct value *cells,
    const struct out_field *fields, size_t nfields)
{
	if (o->w->ops->row_record == NULL)
		return out_table_row(o, cells);
	if (!o->in_table)
		return misuse();
	if (o->w->ops->row_record(o->w, cells, fields, nfields) == -1)
		return failed(o);
	return 0;
}

int
out_table_end(struct out *o)
{
	if (!o->in_table)
		return misuse();
	o->in_table = 0;
	if (o->w->ops->end(o->w) == -1)
		return failed(o);
	return 0;
}

int
out_close(struct out *o)
{
	int err;

	if (o->in_table)
		out_table_end(o);
	if (fflush(o->fp) == EOF || ferror(o->fp))
		failed(o);
	err = o->err;
	o->w->ops->free(o->w);
	out_buf_free(&o->strings);
	free(o->cols);
	free(o);
	if (err == 0)
		return 0;
	errno = err;
	return -1;
}
