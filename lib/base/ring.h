/*
 * ring.h - a bounded queue of slots between two threads: one fills
 * slots in order, the other empties them in the same order.
 *
 * The tools use it to put a second core to work without changing what
 * they compute: etlcat's reader decompresses .etl buffers ahead of the
 * decoder, and a stream link (stream_link.c) hands frames from a writer
 * to the thread that compresses them or to a reader.  The ring hands over slot numbers only;
 * each user keeps the slots' contents in an array of its own, and a
 * slot belongs to one side at a time, so the contents need no lock.
 *
 * Besides a count, the ring keeps a weight (bytes, say) within a budget:
 * a producer waits while the slots in the ring weigh too much, unless
 * the ring is empty, so one heavy item always passes.
 *
 * With pthreads on POSIX, Win32 threads on Windows; together with
 * platform.c the only module that includes system headers for them.
 */
#ifndef RING_H
#define RING_H

#include <stddef.h>

struct ring;

/*
 * A ring of `nslots` slots weighing at most `budget` together.
 * @return : NULL if out of memory.
 */
struct ring *ring_new(unsigned nslots, size_t budget);

/* Frees the ring; its threads must have been joined. */
void ring_free(struct ring *rg);

/*
 * Starts `fn(arg)` on a new thread.  @return : 0, or -1 if no thread
 * could be made (the caller then does the work itself).
 */
int ring_thread_start(struct ring *rg, void (*fn)(void *), void *arg);

/* Waits for the thread started on the ring, if any, to return. */
void ring_thread_join(struct ring *rg);

/*
 * Producer: waits for a free slot that can take `weight`.
 * @return : its number, or -1 once the consumer has stopped.
 */
long ring_put_begin(struct ring *rg, size_t weight);

/* Producer: the slot of the last ring_put_begin() is filled. */
void ring_put_end(struct ring *rg);

/* Producer: there will be nothing more; the consumer drains the rest. */
void ring_close(struct ring *rg);

/*
 * Consumer: waits for the next filled slot.
 * @return : its number, or -1 once the producer has closed and every
 *	slot has been taken.
 */
long ring_get_begin(struct ring *rg);

/* Consumer: the slot of the last ring_get_begin() is free again. */
void ring_get_end(struct ring *rg);

/* Consumer: takes nothing more; the producer's waits return -1. */
void ring_stop(struct ring *rg);

#endif
