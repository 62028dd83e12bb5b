/*
 * holdback.h - records held back in the order they came, to be let go
 * later in that order: a first-in first-out queue of stream records,
 * each with a tag of the caller's.  The queue keeps them in memory up to
 * a bound, then in a temporary file (platform_scratch_file()), so that
 * memory stays flat however much is held.
 *
 * A record is copied as read: its type and body, and for a STRING its
 * id and text too, which is what stream_write_record() needs.
 */
#ifndef HOLDBACK_H
#define HOLDBACK_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

struct holdback;

/* What has been held, for a line on stderr. */
struct holdback_stats {
	uint64_t records;	/* records held back, in all */
	uint64_t max_records;	/* the most held at once */
	uint64_t max_bytes;	/* the most bytes held at once */
	uint64_t spilled;	/* records that went to the file */
};

/* `mem_max`: bytes held in memory at most.  @return : NULL (memory). */
struct holdback *holdback_new(size_t mem_max);
void holdback_free(struct holdback *h);

/* Whether nothing is held. */
int holdback_empty(const struct holdback *h);

/* Appends a record.  @return : 0, or -1 with errno (memory, the file). */
int holdback_push(struct holdback *h, const struct stream_record *rec,
    uint64_t tag);

/*
 * The first record held: its type, body and (STRING) u.string into *rec,
 * valid until the next push or pop, and its tag.
 * @return : 1, 0 if nothing is held, or -1 with errno (the file).
 */
int holdback_peek(struct holdback *h, struct stream_record *rec,
    uint64_t *tag);

/* Lets go of the first record held (after a peek). */
void holdback_pop(struct holdback *h);

/* The stats since holdback_new() or the last holdback_clear_stats(). */
const struct holdback_stats *holdback_stats(const struct holdback *h);
void holdback_clear_stats(struct holdback *h);

#endif
