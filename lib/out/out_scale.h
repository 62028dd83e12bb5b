/*
 * out_scale.h - a column's figures as a person reads them: in one unit
 * for the whole column, written once, in its header.
 *
 * The text format and etlreport's pages show times as ns, µs, ms or s
 * and bytes as B, KiB, MiB, GiB or TiB: the largest unit that the
 * column's largest magnitude reaches (1 µs, 1 KiB), so that it reads
 * with 4 significant digits ("783.6"), and every cell of the column
 * with as many decimals; nanoseconds and bytes in their own unit are
 * whole.  Per cents have one decimal.  A column of a time since the
 * trace's start (type ns) with the unit "s" is a figure and scales; one
 * without a unit is a time stamp of a log (events, switches, a
 * timeline), which must tell events apart, and keeps its seconds to the
 * nanosecond.  Other columns are shown as value_format() writes them,
 * their unit in the header.
 *
 * The header is the name without the word of its unit, "_" read as a
 * space, then the unit: "cpu_ms" is "cpu (ms)", "peak_commit_bytes"
 * "peak commit (MiB)", "start_utc" "start (UTC)".  The files programs
 * read keep exact values and names (colname.h).
 *
 * Use: out_scale_init() a column, out_scale_see() each cell (or those
 * the caller holds back), out_scale_choose(), then the header and each
 * cell's text.  A cell seen after choose() is written in the unit
 * chosen, with more digits when it is larger.  Nothing is allocated.
 */
#ifndef OUT_SCALE_H
#define OUT_SCALE_H

#include <stddef.h>

#include "out.h"

enum out_scale_kind {
	OUT_SCALE_PLAIN,	/* as value_format() writes it */
	OUT_SCALE_TIME,		/* a time, scaled */
	OUT_SCALE_BYTES,	/* bytes, scaled */
	OUT_SCALE_PCT,		/* a per cent, one decimal */
	OUT_SCALE_STAMP		/* a time stamp of a log, exact seconds */
};

struct out_scale {
	enum out_scale_kind kind;
	double factor;		/* a value's unit in ns or bytes */
	double max;		/* the largest magnitude seen, in ns or B */
	double div;		/* the unit chosen, in ns or bytes */
	const char *unit;	/* its name, for the header */
	int decimals;
};

void out_scale_init(struct out_scale *s, const struct out_column *col);

/* Takes a cell's magnitude into the choice of the column's unit. */
void out_scale_see(struct out_scale *s, const struct value *v);

/* Chooses the unit and decimals from the cells seen. */
void out_scale_choose(struct out_scale *s);

/*
 * The text of a cell, at most cap bytes with a NUL; an empty cell is
 * "".  @return : the length the text needs, as snprintf.
 */
size_t out_scale_format(const struct out_scale *s, const struct value *v,
    char *buf, size_t cap);

/* The header of the column: "peak commit (MiB)".  @return : buf. */
char *out_scale_header(const struct out_column *col,
    const struct out_scale *s, char *buf, size_t cap);

/*
 * A table's rows held back until its columns' units are chosen, for a
 * writer that cannot hold them as text (a page, whose cells are more
 * than their text).  The columns and the cells are copied, strings
 * too; cols and scale are the table's, one a column.  Zero it before
 * the first use; out_rows_free() releases it.
 */
struct out_rows {
	size_t ncols, nrows;
	struct out_column *cols;
	struct out_scale *scale;
	size_t ncols_cap;		/* columns allocated, a row's stride */
	char *names;			/* the columns' names and units */
	struct value *cells;		/* the rows; strings by offset */
	size_t cap;			/* rows allocated in cells */
	char *text;			/* the strings */
	size_t text_len, text_cap;
	struct value *row;		/* out_rows_get()'s row */
};

/* Starts a table of these columns, forgetting the rows held.  0, -1. */
int out_rows_begin(struct out_rows *h, const struct out_column *cols,
    size_t ncols);

/* Holds a row of n cells (missing ones empty, extra ones cut).  0, -1. */
int out_rows_add(struct out_rows *h, const struct value *cells, size_t n);

/* Chooses the units of the columns from the rows held. */
void out_rows_choose(struct out_rows *h);

/* Row i's cells, valid until the next call. */
const struct value *out_rows_get(struct out_rows *h, size_t i);

void out_rows_free(struct out_rows *h);

#endif
