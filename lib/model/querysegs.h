/*
 * querysegs.h - a rustc self-profile's threads as spans of their
 * innermost query: for each profile thread, in time order, the spans
 * [from, to) in which one query was the innermost running, each with
 * the path of queries it nests in (its labels, outermost first), so
 * that "which query ran at instant t" is a search, and a walk of sorted
 * samples or waits beside the spans is one pass.
 *
 * Intervals are added in any order; querysegs_build() nests them per
 * thread as measureme does (a thread's intervals either nest or follow
 * one another): by start, an interval that contains the next is its
 * parent, and of two with the same start and end the one written later
 * (the parent, written after its children) is outside.  What a hostile
 * profile gives that does not nest is cut to its parent, never dropped
 * silently: querysegs_cut() counts it.
 *
 * Memory: 32 bytes an interval until built, then 24 a span (at most two
 * an interval) and the paths, interned in the caller's table (label ids
 * as uint32_t, outermost first; id 0 is no query).
 */
#ifndef QUERYSEGS_H
#define QUERYSEGS_H

#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"

#define QUERYSEGS_DEPTH	256	/* deeper nesting is cut to this */

struct qseg {
	int64_t from, to;		/* from < to */
	uint32_t path;			/* id in the paths table */
};

/* A profile thread: its spans, and how much time its queries hold. */
struct qseg_thread {
	uint32_t tid;			/* the profile's thread id */
	size_t first, n;		/* its spans in querysegs_spans() */
	int64_t start, end;		/* its first start, last end */
	uint64_t query_ns;		/* time inside a query */
};

struct querysegs {
	struct qseg_interval *iv;
	size_t niv, ivcap;
	struct qseg *segs;
	size_t nsegs;
	struct qseg_thread *threads;
	size_t nthreads;
	uint64_t cut;			/* intervals cut to nest */
};

/* Adds an interval of thread `tid` with label `label` (not 0). */
int querysegs_add(struct querysegs *q, uint32_t tid, int64_t start,
    int64_t end, uint32_t label);

/*
 * Nests the intervals into spans, interning their paths into `paths`,
 * and forgets the intervals.  @return : 0, or -1 if out of memory.
 */
int querysegs_build(struct querysegs *q, struct intern *paths);

/* The spans of thread i (0 .. q->nthreads - 1), time ordered. */
const struct qseg *querysegs_spans(const struct querysegs *q, size_t i,
    size_t *n);

void querysegs_release(struct querysegs *q);

#endif
