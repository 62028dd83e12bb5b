/*
 * view_merge.h - --merge for the views whose tables add up row by row
 * (vmem, heap, heapsnap): the rows of the tables of one name in the
 * input, keyed by their text columns and those the view names (pid,
 * start, a time), become one row each, whose counts add up, whose peaks
 * are the larger, and whose other times are the first an input gives.
 * The merged table has the schema of the first table of that name, its
 * columns found by name in the others; it is sorted as the view sorts
 * it, so that merging the tables of traces computed apart gives the
 * table of the traces read as one stream.
 *
 * Memory: the merged rows, their strings copied; nothing per input row.
 */
#ifndef VIEW_MERGE_H
#define VIEW_MERGE_H

#include "stream/stream.h"

/*
 * The order of a table that has column `if_col` (NULL: any table): the
 * columns to sort by, each prefixed by '-' (falling) or '+' (rising),
 * "-$last" the last column, "+$key" the first column's bytes; rows equal
 * in all of them keep the order they were first seen in; none keeps
 * that order.  NULL-terminated.
 */
struct view_merge_order {
	const char *if_col;
	const char *const *order;
};

/*
 * How a view's tables merge.  tables: their names (the first seen is
 * the one merged); keys: the columns besides the text ones that tell
 * rows apart; maxes: those whose larger value is kept; orders: tried in
 * turn, the last with if_col NULL; renumber: a column numbered 1, 2, ...
 * in the merged order (heapsnap's snapshot), or NULL.  Lists are
 * NULL-terminated.
 */
struct view_merge_spec {
	const char *const *tables;
	const char *const *keys;
	const char *const *maxes;
	const struct view_merge_order *orders;
	const char *renumber;
};

struct view_merge;

/* @return : NULL if out of memory. */
struct view_merge *view_merge_new(const struct view_merge_spec *spec);
void view_merge_free(struct view_merge *m);

/* Takes in the spec's tables and their rows.  @return : 0, or -1 (memory). */
int view_merge_record(struct view_merge *m, const struct stream_record *rec);

/*
 * Writes the merged table, if any table was seen, with table id 1.
 * @return : 0, or -1 on a write error or out of memory.
 */
int view_merge_write(struct view_merge *m, struct stream_writer *w);

#endif
