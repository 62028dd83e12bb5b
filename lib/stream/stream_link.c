/*
 * stream_link.c - a stream between two threads of one process.
 *
 * When a tool reads a trace directly (etlagg cpu trace.etl), the decoder
 * runs on a thread of its own and writes the stream that etlcat would
 * write, and the tool reads it, as it would read etlcat's output.  The
 * frames go from one to the other uncompressed: zstd would cost both
 * sides a third of their time and buy nothing inside a process.  The
 * records and their order are the same as in etlcat's stream.  A
 * writer's own compressing thread (stream_writer_async()) takes its
 * frames through a link too.
 *
 * A frame's buffer is handed over, not copied: the writer swaps its
 * full frame for an empty slot's buffer, and the reader reads a slot's
 * frame in place until it asks for the next.
 */
#include <stdlib.h>

#include "base/buf.h"
#include "base/ring.h"
#include "stream.h"

#define LINK_FRAMES	4	/* frames between the writer and the reader */

struct stream_link {
	struct ring *ring;
	struct buf slots[LINK_FRAMES];
	long held;		/* the slot the reader is reading, or -1 */
};

struct stream_link *
stream_link_new(void)
{
	struct stream_link *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	if ((l->ring = ring_new(LINK_FRAMES, LINK_FRAMES)) == NULL) {
		free(l);
		return NULL;
	}
	l->held = -1;
	return l;
}

void
stream_link_free(struct stream_link *l)
{
	int i;

	if (l == NULL)
		return;
	ring_free(l->ring);
	for (i = 0; i < LINK_FRAMES; i++)
		buf_release(&l->slots[i]);
	free(l);
}

int
stream_link_thread(struct stream_link *l, void (*fn)(void *), void *arg)
{
	return ring_thread_start(l->ring, fn, arg);
}

void
stream_link_join(struct stream_link *l)
{
	ring_thread_join(l->ring);
}

int
stream_link_put(struct stream_link *l, struct buf *frame)
{
	struct buf spare;
	long slot;

	if ((slot = ring_put_begin(l->ring, 1)) < 0)
		return -1;
	spare = l->slots[slot];
	l->slots[slot] = *frame;
	spare.len = 0;
	*frame = spare;
	ring_put_end(l->ring);
	return 0;
}

void
stream_link_close(struct stream_link *l)
{
	ring_close(l->ring);
}

const unsigned char *
stream_link_get(struct stream_link *l, size_t *len)
{
	if (l->held >= 0)
		ring_get_end(l->ring);
	if ((l->held = ring_get_begin(l->ring)) < 0) {
		*len = 0;
		return NULL;
	}
	*len = l->slots[l->held].len;
	return l->slots[l->held].data;
}

void
stream_link_stop(struct stream_link *l)
{
	if (l->held >= 0)
		ring_get_end(l->ring);
	l->held = -1;
	ring_stop(l->ring);
}
