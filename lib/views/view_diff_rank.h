/*
 * view_diff_rank.h - the order of --diff's rows (view_diff.h): by the
 * score of the change of the table's weight, that is the change beyond
 * its noise, so that the cause of a regression comes first, and rows
 * cut off by the end of a trace after the complete ones.
 *
 * A row's change d and its standard error s are, for a weight that
 * counts samples (a random draw: a, b the row's samples, A, B the
 * totals of base and input),
 *	d = b - a * B / A	(its share's change, scaled to the input)
 *	s = B * sqrt(pa (1 - pa) / A + pb (1 - pb) / B),  pa = a / A,
 *	    pb = b / B;
 * and for a measured weight (a time, bytes, a count)
 *	d = b - a
 *	s = sqrt((k m)^2 + f^2),
 * with m the larger of |a| and |b|, k the table's relative spread (the
 * median absolute deviation of the relative changes (b - a) / a of the
 * rows that both sides give complete, times 1.4826 to make it a standard
 * deviation; 0.02 at least) and f the grain of the unit (15.625 ms, a
 * clock tick of Windows, for a time; 64 KiB, VirtualAlloc's grain, for
 * bytes; 1 else).  The score is the change less twice its error, kept
 * with its sign, and 0 within that:
 *	score = sign(d) max(0, |d| - 2 s).
 * A row that a side has without the weight, or that is cut, has none.
 *
 * The order: complete rows (not cut) before cut ones, each by falling
 * |score|, then falling |delta|, then key.
 */
#ifndef VIEW_DIFF_RANK_H
#define VIEW_DIFF_RANK_H

#include <stddef.h>

#include "base/value.h"

/* A joined row; the ranker sets `score` and moves rows. */
struct diff_row {
	const struct value *base, *input;	/* either may be NULL */
	const char *key;			/* its key, to order ties */
	size_t keylen;
	double delta;		/* of the weight: the input's less the base's */
	double score;
	int known;		/* the sides that have the row give the weight */
	int cut;		/* either side ran past its trace's end */
};

/* What the ranker needs of the table's weight. */
struct diff_weight {
	int col;			/* its column in the rows' cells; -1:
					   none, the rows go by key */
	enum value_type type;
	const char *unit;
	int samples;			/* it counts samples */
	double base_total, input_total;	/* then: the sides' totals */
};

/* Scores the rows and sorts them.  @return : 0, or -1 if out of memory. */
int diff_rank(struct diff_row *rows, size_t n, const struct diff_weight *w);

#endif
