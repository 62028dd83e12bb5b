/*
 * out_writer.h - the interface between out.c and the format files
 * (out_text.c, out_csv.c, out_jsonl.c); callers of out.h have no use for
 * it.  The formats build their rows in the buffers of out_buf.c.
 */
#ifndef OUT_WRITER_H
#define OUT_WRITER_H

#include <stdio.h>

#include "out.h"

/* A growable byte buffer, reused from row to row so rows cost no malloc. */
struct out_buf {
	char *ptr;
	size_t len;
	size_t cap;
};

/*
 * Makes room for `more` bytes after len, and makes ptr non-NULL even for
 * 0; -1 (ENOMEM) if it cannot.
 */
int out_buf_reserve(struct out_buf *b, size_t more);
int out_buf_add(struct out_buf *b, const void *p, size_t n);
int out_buf_add_str(struct out_buf *b, const char *s);
/* Appends value_format()'s text of v, without a NUL. */
int out_buf_add_value(struct out_buf *b, const struct value *v);
/* Writes the contents to fp and empties b; -1 if the write failed. */
int out_buf_write(struct out_buf *b, FILE *fp);
void out_buf_free(struct out_buf *b);

/*
 * A format's writer is a struct of its own that starts with a struct
 * out_writer.  out.c checks the order of calls and copies the columns
 * before calling begin; the columns stay valid until end returns.
 * `index` counts the tables begun before this one.  free releases the
 * writer without flushing fp.
 */
struct out_writer;

struct out_writer_ops {
	int (*begin)(struct out_writer *w, const char *name,
	    const struct out_column *cols, size_t ncols, size_t index);
	int (*row)(struct out_writer *w, const struct value *cells);
	int (*end)(struct out_writer *w);
	void (*free)(struct out_writer *w);
	/* NULL if the format writes the record's text like any cell. */
	int (*row_record)(struct out_writer *w, const struct value *cells,
	    const struct out_field *fields, size_t nfields);
};

struct out_writer {
	const struct out_writer_ops *ops;
};

/* Each returns NULL (ENOMEM) if it cannot allocate. */
struct out_writer *out_text_open(FILE *fp);
struct out_writer *out_csv_open(FILE *fp);
struct out_writer *out_csv_raw_open(FILE *fp);
struct out_writer *out_jsonl_open(FILE *fp);

#endif
