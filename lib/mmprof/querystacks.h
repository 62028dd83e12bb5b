/*
 * querystacks.h - measureme stack_collapse's folded stacks of rustc
 * self-profile intervals (measureme-format.md section 10): what
 * "etlagg querystacks" tabulates, and what the folded and svg formats
 * draw from a profile's events when their input has no stack table.
 *
 * A stack is "rustc" and the labels of an interval's ancestors and its
 * own, joined by ';'; its weight is the self time of the intervals with
 * that stack (duration less direct children), summed over threads and
 * profiles.  The stack "rustc" itself gets, per thread, the time from its
 * first start to the end of its last interval that no event covers.
 *
 * Functions returning int give 0, or -1 when out of memory.
 */
#ifndef QUERYSTACKS_H
#define QUERYSTACKS_H

#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"

struct query_stacks;

/* @return : NULL if out of memory. */
struct query_stacks *query_stacks_new(void);
void query_stacks_free(struct query_stacks *qs);

/*
 * Takes in a record: an interval of a rustc profile, or the header or
 * end that closes a profile.  Other records are left alone.
 */
int query_stacks_record(struct query_stacks *qs,
    const struct stream_reader *r, const struct stream_record *rec);

/* Adds `ns` to the stack of text `stack` (a row of a querystacks table). */
int query_stacks_add(struct query_stacks *qs, const char *stack, size_t len,
    int64_t ns);

/* The intervals taken in so far. */
uint64_t query_stacks_intervals(const struct query_stacks *qs);

/*
 * Closes the open profile and passes the "querystacks" table (id `id`)
 * to `table`, then its rows, in byte order of their stacks, to `row`:
 * the definition and rows stay valid for the call only.
 * @return : 0, what a callback returned if not 0, or -1 if out of memory.
 */
int query_stacks_table(struct query_stacks *qs, stream_id id,
    int (*table)(void *arg, const struct stream_table *t),
    int (*row)(void *arg, const struct stream_row *r), void *arg);

#endif
