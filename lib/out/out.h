/*
 * out.h - writes tables of typed values as text, CSV or JSON Lines.
 *
 * A writer is opened on a FILE for one format, then given any number of
 * tables, each as out_table_begin(), rows, out_table_end().  The caller
 * keeps the FILE (out never closes it) and everything it passes in: out
 * copies column descriptions and row values before a call returns, so
 * nothing the caller gives needs to outlive the call.
 *
 * Return values: functions returning int give 0, or -1 with errno set when
 * a write failed (or memory ran out, ENOMEM, or the calls came in the
 * wrong order, EINVAL).  Because stdio buffers, a failed write may only
 * show at out_close(), so its result is the one to check.
 *
 * The formats, exactly:
 *
 * text	For a terminal.  Each table: a line with its name if the name is
 *	not empty, a header line of column names (with " (unit)" when the
 *	column has a unit), a line of dashes as wide as each column, then
 *	the rows.  Tables after the first are preceded by an empty line.
 *	Columns are separated by two spaces; i64, u64, f64 and ns are
 *	right-aligned, other types left-aligned; lines carry no trailing
 *	spaces.  Widths count UTF-8 code points and are taken from the
 *	first OUT_TEXT_ROWS rows, which are held back; later rows are
 *	written at once with those widths, a longer value pushing the rest
 *	of its line to the right.  Control characters in values are shown
 *	as \t, \n, \r or \xHH so that a value cannot break a line or send
 *	escape sequences to the terminal.  A table of one row (with more
 *	than one column) is written down instead: a line a column, its
 *	name and unit, then its value lined up with the others (the name
 *	alone when the value is empty).
 *
 * csv	RFC 4180, UTF-8 without a BOM, CRLF after every record.  Each
 *	table: a header row of column names, then the rows.  Tables after
 *	the first are preceded by an empty line (but a CSV file should hold
 *	one table: render_table.c writes one file a table).  A field is
 *	quoted only if it holds a comma, a double quote, CR or LF.  NULL is
 *	an empty field.  The table name is not written; a column's unit is
 *	kept in its header as a suffix, "start" in s becoming "start_s"
 *	(see out_csv_header()), unless the name already ends in a unit
 *	("cpu_ms", "self_ns").  UTC times are written as "YYYY-MM-DD
 *	HH:MM:SS.mmm" (ISO 8601 with a space, as RFC 3339 allows, to the
 *	millisecond, the zone being the column's: UTC), which spreadsheets
 *	read as a date and time; ns columns as seconds with 9 decimals.
 *	A text cell or header (never a number) that starts with '=', '+',
 *	'-', '@', tab or CR, which a spreadsheet would evaluate, is
 *	written with a single quote before it in a quoted field
 *	("'=1+1"), as OWASP advises against CSV injection; a number a
 *	caller formatted as text in a numeric column is left as it is.
 *
 * csv-raw	The same, with no cell made safe: for programs, not for
 *	spreadsheets.
 *
 * jsonl	One JSON object per row, members in column order and named by
 *	the columns.  i64, u64 and f64 are numbers (a non-finite f64 is
 *	null), ns is an integer number of nanoseconds, bool is true or
 *	false, NULL is null; everything else is a string in the text form
 *	of value_format().  Invalid UTF-8 becomes U+FFFD.  Nothing marks
 *	where a table starts: names and units are not written.  A row given
 *	with out_table_row_record() has its last column as a nested object
 *	of the fields, in their order; fields named "x[0]", "x[1]", ... in a
 *	row become one array "x".
 */
#ifndef OUT_H
#define OUT_H

#include <stddef.h>
#include <stdio.h>

#include "base/value.h"

/* Rows the text format holds back to measure its columns. */
#define OUT_TEXT_ROWS	4096

struct out_column {
	const char *name;
	enum value_type type;
	const char *unit;	/* "" if none; NULL is taken as "" */
};

struct out;

/*
 * Opens a writer of `format` ("text", "csv", "csv-raw", "jsonl") on fp.
 * @return : NULL for an unknown format (errno EINVAL) or no memory.
 */
struct out *out_open(const char *format, FILE *fp);

/*
 * Starts a table; `name` says what it is (e.g. "stats") and may be "".
 * The columns are copied.  A table must be ended before the next begins.
 */
int out_table_begin(struct out *o, const char *name,
    const struct out_column *cols, size_t ncols);

/* One row: ncols values in column order. */
int out_table_row(struct out *o, const struct value *cells);

/* A named value, for out_table_row_record(). */
struct out_field {
	const char *name;
	struct value val;
};

/*
 * One row whose last column is a record of named values: JSON Lines
 * writes it as a nested object; the other formats write the last cell
 * of `cells` (its text form, which the caller gives) as out_table_row()
 * does.
 */
int out_table_row_record(struct out *o, const struct value *cells,
    const struct out_field *fields, size_t nfields);

/*
 * The CSV header of a column: its name, with "_" and its unit when the
 * name does not already end in a unit ("start" in s: "start_s"; "cpu_ms"
 * stays); "%" is spelled "pct", "\xc2\xb5s" "us", others in lower case.
 * An ns column without a unit is in seconds.  Writes at most cap bytes
 * with a NUL; @return : buf.
 */
char *out_csv_header(const struct out_column *col, char *buf, size_t cap);

int out_table_end(struct out *o);

/*
 * Ends a table left open, flushes fp and frees o.
 * @return : 0, or -1 if any write failed (check ferror(fp)) or memory ran
 *	out since out_open(), so that the output is incomplete; errno is
 *	that of the first failure.
 */
int out_close(struct out *o);

/* The format names, NULL-terminated, for usage messages. */
const char *const *out_format_names(void);

#endif
