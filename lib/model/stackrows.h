/*
 * stackrows.h - the stacks that etlreport's folded, svg and speedscope
 * formats draw (render/), rebuilt from the tables of a stream: the rows
 * of every table that has a column named "stack" (text: frames root
 * first, joined by ';') and a weight, its last integer column (in a
 * table of etlagg --diff, the last integer X beside an X_base).  Equal
 * stacks add up, whichever tables they come from.  A row with an empty
 * stack or a negative weight is counted, not drawn.  An input with no
 * such table that is a rustc profile (etlcat's output of one) gives the
 * table of "etlagg querystacks", made of its events (querystacks.h).
 *
 * Memory: the collector copies the stacks it keeps; stackrows_stack()
 * pointers stay valid until stackrows_free().
 */
#ifndef STACKROWS_H
#define STACKROWS_H

#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"

struct stackrows;

/* @return : NULL if out of memory. */
struct stackrows *stackrows_new(void);
void stackrows_free(struct stackrows *s);

/* Takes in a record of the stream.  @return : 0, or -1 if out of memory. */
int stackrows_record(struct stackrows *s, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * Ends the input: a rustc profile's query stacks become its table if no
 * stack table came.  Call it once, before what follows.
 * @return : 0, or -1 if out of memory.
 */
int stackrows_finish(struct stackrows *s);

/* The distinct stacks, with ids 1 .. stackrows_count(). */
uint32_t stackrows_count(const struct stackrows *s);
const char *stackrows_stack(const struct stackrows *s, uint32_t id,
    size_t *len);
uint64_t stackrows_weight(const struct stackrows *s, uint32_t id);
uint64_t stackrows_total(const struct stackrows *s);

/*
 * Whether the stacks came from a table of etlagg --diff (view_diff.h):
 * then the weight is the input's X, and each stack has the base's X_base
 * too (0 where a side had no row).
 */
int stackrows_is_diff(const struct stackrows *s);
uint64_t stackrows_base(const struct stackrows *s, uint32_t id);
uint64_t stackrows_base_total(const struct stackrows *s);

/* What the weight counts: the unit of its column, else its name. */
const char *stackrows_unit(const struct stackrows *s);

/* The stack tables seen, whether they had rows or not. */
uint32_t stackrows_tables(const struct stackrows *s);

/* Rows left out: empty stacks and negative weights. */
uint64_t stackrows_left_out(const struct stackrows *s);

/*
 * The ids in order of their stacks' text (byte order).
 * @return : a malloc'd array of stackrows_count() ids, or NULL if out of
 *	memory.
 */
uint32_t *stackrows_sorted(const struct stackrows *s);

#endif
