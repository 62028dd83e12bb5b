/*
 * etw_queue.c - the hold queue.  Encoded records wait here for ETW_HOLD_MS
 * of trace time, so that stack walks logged after their event (5.6) and
 * ImageID rows logged with their image (section 6) can still be joined to
 * them; definitions an event needs are written just before it leaves.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_state.h"

int
etw_write_image_def(struct etw_decoder *d, uint32_t slot)
{
	struct pending_image *pi = &d->images[slot];
	int rc = stream_write_image(d->w, &pi->def);

	pi->used = 0;
	return rc;
}

/* Writes the oldest queued record (and the definition it needs). */
int
etw_release_oldest(struct etw_decoder *d)
{
	struct qentry *e = &d->q[d->qhead];
	int rc = 0;

	if (e->image != NO_SLOT)
		rc = etw_write_image_def(d, e->image);
	if (rc == 0)
		rc = stream_write_encoded(d->w, d->ring + e->off, e->len);
	d->ring_tail = e->off + e->len + e->waste;
	d->ring_used -= e->len + e->waste;
	if (d->ring_used == 0)
		d->ring_head = d->ring_tail = 0;
	e->seq = 0;
	d->qhead = (d->qhead + 1) % QUEUE_SLOTS;
	d->qcount--;
	if (rc != 0)
		d->failed = 1;
	return rc;
}

/* Releases what is older than the hold window before `now`. */
int
etw_release_until(struct etw_decoder *d, uint64_t now)
{
	while (d->qcount > 0 && d->q[d->qhead].ts + d->hold_ticks < now)
		if (etw_release_oldest(d) != 0)
			return -1;
	return 0;
}

/*
 * Space for `len` bytes at the head of the byte ring (records are
 * contiguous; a record that does not fit before the end wraps to 0).
 */
static unsigned char *
ring_alloc(struct etw_decoder *d, size_t len, size_t *off)
{
	for (;;) {
		size_t head = d->ring_head;

		if (d->ring_used == 0) {
			d->ring_head = d->ring_tail = head = 0;
		}
		if (head >= d->ring_tail || d->ring_used == 0) {
			if (QUEUE_BYTES - head >= len) {
				*off = head;
				return d->ring + head;
			}
			if (d->ring_tail > len && d->ring_used > 0) {
				/* Wrap: the tail end of the ring stays unused. */
				d->ring_used += QUEUE_BYTES - head;
				d->ring_head = 0;
				d->q[(d->qhead + d->qcount - 1) %
				    QUEUE_SLOTS].waste = QUEUE_BYTES - head;
				continue;
			}
		} else if (d->ring_tail - head >= len) {
			*off = head;
			return d->ring + head;
		}
		if (d->qcount == 0 || etw_release_oldest(d) != 0)
			return NULL;
	}
}

/*
 * Takes the next queue slot, for a record of raw time `ts`, with `cap`
 * bytes of ring at *dst; queue_commit() then says how many were used.
 */
static struct qentry *
queue_slot(struct etw_decoder *d, uint64_t ts, size_t cap, unsigned char **dst)
{
	struct qentry *e;
	size_t off;

	if (d->qcount == QUEUE_SLOTS && etw_release_oldest(d) != 0)
		return NULL;
	if ((*dst = ring_alloc(d, cap, &off)) == NULL)
		return NULL;
	e = &d->q[(d->qhead + d->qcount) % QUEUE_SLOTS];
	memset(e, 0, sizeof(*e));
	e->seq = ++d->next_seq;
	e->ts = ts;
	e->off = off;
	e->tid = ETL_NO_ID;
	e->image = NO_SLOT;
	return e;
}

static void
queue_commit(struct etw_decoder *d, struct qentry *e, size_t len)
{
	e->len = len;
	d->ring_head = e->off + len;
	d->ring_used += len;
	d->qcount++;
}

/*
 * Encodes an event and queues it.  `tid` is the thread that may own a
 * stack walk (ETL_NO_ID for none); `image` an image slot or NO_SLOT.
 * @return : the queue entry, or NULL on failure.
 */
struct qentry *
etw_queue_event(struct etw_decoder *d, const struct stream_event *sev,
    const struct etl_event *ev, uint32_t tid, uint32_t image)
{
	struct qentry *e;
	size_t len;
	unsigned char *dst;

	/* Encode into the ring directly, with room for the largest event. */
	if ((e = queue_slot(d, ev->ts, EVENT_RECORD_MAX, &dst)) == NULL)
		return NULL;
	if ((len = stream_encode_event(d->w, sev, dst, EVENT_RECORD_MAX)) == 0)
		return NULL;
	e->tid = tid;
	e->cpu = ev->cpu;
	e->image = image;
	e->stackable = 1;
	e->has_stack = sev->h.stack != 0;
	queue_commit(d, e, len);
	d->class_written[sev->h.cls]++;
	d->stats.events++;
	return e;
}

/*
 * Queues the definition record just captured from the writer, so that it
 * reaches the stream after the events logged before it (a reused pid must
 * not rename the events of the process that had it).
 */
void
etw_queue_definition(struct etw_decoder *d, uint64_t ts)
{
	size_t len;
	const unsigned char *rec = stream_captured(d->w, &len);
	struct qentry *e;
	unsigned char *dst;

	/* Releasing room may write records: copy the capture first. */
	d->held.len = 0;
	buf_put(&d->held, rec, len);
	if (d->held.oom || (e = queue_slot(d, ts, len, &dst)) == NULL) {
		d->failed = 1;
		return;
	}
	memcpy(dst, d->held.data, len);
	queue_commit(d, e, len);
}
