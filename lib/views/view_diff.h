/*
 * view_diff.h - etlagg's --diff BASE for the views that count: the tables
 * a view made of BASE and of the input, joined row by row, as PerfView's
 * stack diff and rustc's perf dashboard compare two runs.
 *
 * The join never uses an id that a run chooses on its own:
 * - a row's key is its text columns (image, crate, stack, function,
 *   module, provider, event ...) and, in the stats table, the event's
 *   numbers; ids and times (pid, tid, start, end, command line ...) are
 *   shown, never matched;
 * - rows of processes (a pid column) with the same key are told apart by
 *   their order of start: the n-th rustc of crate "syn" matches the n-th;
 * - threads (a tid column) by their process's key and order, then their
 *   own order of start within it;
 * - a frame that no image covers ("0x" and an address) is "[unknown]" in
 *   a stack: such addresses move between runs (ASLR); "module!0xRVA"
 *   stays, as the offset within its module does not move.
 * Rows of one table with the same key add up (stacks that differ only in
 * unknown frames).
 *
 * Each counted column X (a number that is not part of the key, nor an id
 * or a time) becomes X_base, X, X_delta and X_delta_pct (the change in
 * per cent of X_base; empty when X_base is 0 or absent; none for a
 * column that is itself a share in per cent), named by colname.h's rule:
 * the unit's word last, "cpu_base_ms" of "cpu_ms".  A row of one
 * side only has the other side's X empty (not 0), its delta taken as
 * from 0, and no per cent. A row of both sides with X empty on one (a figure
 * that run cannot give) has no delta.
 *
 * Each table has a weight: the wall time in crates (the build waits for
 * a crate's wall, not for its CPU), else its samples, else its CPU time,
 * else its last integer counted column.  Three columns follow the
 * table's: cut (in crates and processes: the row ran past the end of
 * either trace, by wall_cut or an end_state "running", so its figures
 * there are lower bounds), score and within_noise.
 *
 * The score is the change of the weight beyond its noise (base/noise.h),
 * so that the cause of a change comes first.  A row's change d and its
 * standard error s are, for a weight of samples (a, b the row's, A, B
 * the totals),
 *	d = b - a * B / A	(its share's change, scaled to the input)
 *	s = B * sqrt(pa (1 - pa) / A + pb (1 - pb) / B),  pa = a / A,
 *	    pb = b / B;
 * and for a measured weight (a time, bytes, a count)
 *	d = b - a,	s = sqrt((k m)^2 + f^2),
 * with m the larger of |a| and |b|, k the table's relative spread (the
 * median absolute deviation of the relative changes (b - a) / a of the
 * rows that both sides give complete, times 1.4826; 0.02 at least) and
 * f the grain of the unit (15.625 ms, a clock tick of Windows, for a
 * time; 64 KiB, VirtualAlloc's grain, for bytes; 1 else).  Then
 *	score = sign(d) max(0, |d| - 2 s),
 * and within_noise is a score of 0.  A cut row, or one that a side has
 * without the weight, has neither.  Rows come complete ones first, each
 * by falling |score|, then falling |delta|, then key; the cut rows
 * after, in the same order: a lower bound never outranks a complete row.
 */
#ifndef VIEW_DIFF_H
#define VIEW_DIFF_H

#include <stdio.h>

#include "stream/stream.h"

struct view_diff;

/* @return : NULL if out of memory. */
struct view_diff *view_diff_new(void);
void view_diff_free(struct view_diff *d);

/*
 * Reads the tables of one side (0 the base, 1 the input) from a stream
 * in fp, as a view wrote them; the base's DIAG records (what it lost)
 * are kept too, and written before the tables.  @return : 0, or -1 (out of memory, or a
 * damaged stream: view_diff_error() says which).
 */
int view_diff_read(struct view_diff *d, int side, FILE *fp);
const char *view_diff_error(const struct view_diff *d);

/*
 * Writes the joined tables, in the order of the input's, with table ids
 * from `first_id` on.  @return : 0, or -1 on a write error.
 */
int view_diff_write(struct view_diff *d, struct stream_writer *w,
    stream_id first_id);

#endif
