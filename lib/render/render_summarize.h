/*
 * render_summarize.h - the text format of etlreport for the tables of
 * "etlagg queries": measureme's `summarize summarize` output, byte for
 * byte (measureme-format.md 8.2).
 *
 * "queries" becomes summarize's bordered table (dotted item names,
 * durations as Rust's {:.2?}, the cache-hit, blocked and incremental
 * columns only when some row has a value above zero), "queries_total"
 * the line "Total cpu time: ..." after it, and "queries_artifacts" the
 * table of artifact sizes.  The --diff tables ("queries_diff" and its
 * total and artifacts) become `summarize diff`'s: its column titles,
 * every column, signed durations ("+1.234567ms", as its SignedDuration
 * prints) and counts, changes in percent as "+12.34%".  The rows come
 * out in the order of their table; the view has sorted them.  Other
 * tables are not taken.
 *
 * render_table.c offers every record of the text format here first.  A
 * table is held back until it is complete (the columns shown and their
 * widths depend on every row), so the query table goes out when its
 * total arrives or when any record that is not ours does; before
 * summarize_record() says a record is not ours, it has written all it
 * held, and the caller may write after it.
 *
 * The caller keeps fp; everything given is copied.  Lines are written
 * as they are, except that control characters in item names are shown
 * as \t, \n, \r or \xHH, as out.h does.
 */
#ifndef RENDER_SUMMARIZE_H
#define RENDER_SUMMARIZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stream/stream.h"

/* Room for any duration summarize_duration() writes, with its NUL. */
#define SUMMARIZE_DURATION_MAX	40

struct summarize;

/* @return : NULL if out of memory. */
struct summarize *summarize_open(FILE *fp);

/*
 * Offers a record.  @return : 1 if it is a table this module draws or a
 *	row of one (taken), 0 if not (what was held has been written), -1
 *	if a write failed or memory ran out.
 */
int summarize_record(struct summarize *s, const struct stream_record *rec);

/* Writes what is held and frees s.  @return : 0, or -1 as above. */
int summarize_close(struct summarize *s);

/*
 * Rust's Debug of a Duration of `ns` nanoseconds: with `fixed`, {:.2?}
 * ("1.23ms": s, ms, µs or ns by size, two decimals rounded to nearest
 * with ties to even, a carry never changing the unit); without, {:?}
 * (every significant decimal: "63.427511ms", "0ns").  Negative values
 * get a '-', which a Duration never has.  buf holds
 * SUMMARIZE_DURATION_MAX bytes.  @return : the length written.
 */
size_t summarize_duration(char *buf, int64_t ns, int fixed);

#endif
