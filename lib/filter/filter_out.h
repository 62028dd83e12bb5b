/*
 * filter_out.h - writes what a filter (filter.h) keeps of a stream: every
 * record but the events it drops, a fresh END for each section (the
 * counts are the writer's) and a DIAG that counts the events left out.
 *
 * In one pass (filter_out_next()) the output is the input's order, as
 * the two passes give it, though a verdict may wait for a definition
 * that comes later: from the first event whose verdict waits, every
 * record is held back (holdback.h: memory up to `hold_max` bytes, then
 * a temporary file) and let go as soon as the verdicts before it are
 * known, at the latest at the section's end.
 */
#ifndef FILTER_OUT_H
#define FILTER_OUT_H

#include <stddef.h>

#include "stream/holdback.h"
#include "stream/stream.h"
#include "filter.h"

/* What the functions below return besides 0. */
enum filter_out_error {
	FILTER_OUT_WRITE = -1,	/* writing the output failed (errno) */
	FILTER_OUT_HOLD = -2	/* out of memory, or the temporary file */
};

struct filter_out;

/* @return : NULL if out of memory. */
struct filter_out *filter_out_new(struct filter *f, struct stream_writer *w,
    size_t hold_max);
void filter_out_free(struct filter_out *o);

/* One pass: the next record of the input, as read by `r`. */
int filter_out_next(struct filter_out *o, const struct stream_reader *r,
    const struct stream_record *rec);

/* Two passes: a record with filter_record()'s verdict. */
int filter_out_write(struct filter_out *o, const struct stream_record *rec,
    int keep);

/* The input has ended, or broken off: what is held goes out. */
int filter_out_finish(struct filter_out *o);

/* What was held back since the last call, into *st. */
void filter_out_stats(struct filter_out *o, struct holdback_stats *st);

#endif
