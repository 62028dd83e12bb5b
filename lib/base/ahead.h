/*
 * ahead.h - work done in order on a second thread, ahead of its use.
 *
 * Items 0, 1, 2 ... are worked on a thread of their own, each into a
 * slot (a buffer and a result), and taken by the caller in the same
 * order; at most `nslots` items weighing at most `budget` together are
 * done and not yet taken.  etlcat's reader uses it to decompress (or
 * fault in) the .etl buffers the merge will open next while the decoder
 * works on the current ones.  Taking in order is what keeps the output
 * the same as without the thread: every message, skip and count is still
 * the caller's, made when it takes the item.
 */
#ifndef AHEAD_H
#define AHEAD_H

#include <stddef.h>

struct ahead_slot {
	unsigned char *data;	/* the slot's buffer, kept from item to item */
	size_t cap;
	long result;		/* what the work function left */
	size_t detail;
};

struct ahead_ops {
	/* What item k will hold in its slot, in bytes. */
	size_t (*weigh)(void *arg, size_t k);
	/* Does item k into s: called on the other thread. */
	void (*work)(void *arg, size_t k, struct ahead_slot *s);
};

struct ahead;

/*
 * Starts working items 0 to n - 1.  `arg` and whatever ops read through
 * it must stay unchanged until ahead_free().
 * @return : NULL if no thread could be made (or out of memory): the
 *	caller then does the work itself.
 */
struct ahead *ahead_start(const struct ahead_ops *ops, void *arg, size_t n,
    unsigned nslots, size_t budget);

/*
 * The next item's slot, once it is done; the caller may swap its buffer
 * with one of its own.  @return : NULL when every item has been taken.
 */
struct ahead_slot *ahead_take(struct ahead *a);

/* The slot taken last may be reused. */
void ahead_done(struct ahead *a);

/* Stops the thread (items not taken are dropped) and frees everything. */
void ahead_free(struct ahead *a);

#endif
