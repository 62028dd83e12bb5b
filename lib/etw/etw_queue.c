/*
 * etw_queue.c - the hold queue.  Encoded records wait here for ETW_HOLD_MS
 * of trace time, so that stack walks logged after their event (5.6) and
 * ImageID rows logged with their image (section 6) can still be joined to
 * them; definitions an event needs are written just before it leaves.  A
 * sample still without a stack holds the queue longer (LATE_MS), within
 * its fixed size: memory does not grow with it.

 *
 * Beside the queue is a store of late records: switches expanded from a
 * compact CSwitch batch (etw_cswitch.c), which is logged after the
 * switches it holds, so that they are made in the past.  They wait in a
 * heap by time, and leave in their place among the queued events.  The
 * store is allocated with the first batch; when it is full its oldest
 * record is written at once.  A record older than what was already
 * written (a batch logged past the hold) is counted and left out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_state.h"

#define LATE_SLOTS	4096		/* late records waiting */
#define LATE_RECORD	512		/* an encoded CSwitch, at most */

struct etw_late {
	/* The slots, their order by time (a binary heap), the free ones. */
	unsigned char (*slot)[LATE_RECORD];
	uint64_t *slot_ts;
	uint32_t *slot_len, *order, *free_slots;
	uint32_t count, nfree;
};

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
	int rc = etw_release_late_until(d, e->ts);

	if (rc == 0 && e->image != NO_SLOT)
		rc = etw_write_image_def(d, e->image);
	if (rc == 0)
		rc = stream_write_encoded(d->w, d->ring + e->off, e->len);
	d->written_ts = e->ts;
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

/*
 * Whether the oldest record waits for its stack walk past the hold: a
 * sample without one, in a trace whose samples have them, on a thread
 * that runs user code.  Its walk is logged when the thread next returns
 * to user mode (5.6 step 4; VAL 97 and 108 ms later), so it waits up to
 * LATE_MS, as far as the queue has room: a full queue still writes it.
 */
static int
awaits_late_walk(const struct etw_decoder *d, const struct qentry *e,
    uint64_t now)
{
	return e->sample && !e->has_stack && d->sample_stacks &&
	    e->tid != 0 && e->tid != ETL_NO_ID && e->ts + d->late_ticks >= now;
}

/* Releases what is older than the hold window before `now`. */
int
etw_release_until(struct etw_decoder *d, uint64_t now)
{
	while (d->qcount > 0 && d->q[d->qhead].ts + d->hold_ticks < now &&
	    !awaits_late_walk(d, &d->q[d->qhead], now))
		if (etw_release_oldest(d) != 0)
			return -1;
	/* Expanded compact switches older than the window and the queue. */
	if (now > d->hold_ticks)
		return etw_release_late_until(d, d->qcount > 0 &&
		    d->q[d->qhead].ts < now - d->hold_ticks ?
		    d->q[d->qhead].ts : now - d->hold_ticks - 1);
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
	e->sample = sev->h.kind == EV_SAMPLE;
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

/* ---- the store of late records ---- */

int
etw_late_init(struct etw_decoder *d)
{
	struct etw_late *ls;
	uint32_t i;

	if (d->late != NULL)
		return 0;
	if ((ls = d->late = calloc(1, sizeof(*ls))) == NULL)
		return -1;
	ls->slot = malloc(LATE_SLOTS * sizeof(*ls->slot));
	ls->slot_ts = malloc(LATE_SLOTS * sizeof(*ls->slot_ts));
	ls->slot_len = malloc(LATE_SLOTS * sizeof(*ls->slot_len));
	ls->order = malloc(LATE_SLOTS * sizeof(*ls->order));
	ls->free_slots = malloc(LATE_SLOTS * sizeof(*ls->free_slots));
	if (ls->slot == NULL || ls->slot_ts == NULL || ls->slot_len == NULL ||
	    ls->order == NULL || ls->free_slots == NULL)
		return -1;
	for (i = 0; i < LATE_SLOTS; i++)
		ls->free_slots[i] = LATE_SLOTS - 1 - i;
	ls->nfree = LATE_SLOTS;
	return 0;
}

/* The order of late records is a binary heap by time. */
static int
earlier(const struct etw_late *ls, uint32_t a, uint32_t b)
{
	return ls->slot_ts[ls->order[a]] < ls->slot_ts[ls->order[b]];
}

static void
heap_swap(struct etw_late *ls, uint32_t a, uint32_t b)
{
	uint32_t t = ls->order[a];

	ls->order[a] = ls->order[b];
	ls->order[b] = t;
}

/* Writes the oldest late record.  @return : 0, or -1 on failure. */
static int
late_release_oldest(struct etw_decoder *d)
{
	struct etw_late *ls = d->late;
	uint32_t s = ls->order[0], i = 0, c;
	int rc = stream_write_encoded(d->w, ls->slot[s], ls->slot_len[s]);

	d->written_ts = ls->slot_ts[s];
	ls->order[0] = ls->order[--ls->count];
	while ((c = 2 * i + 1) < ls->count) {
		if (c + 1 < ls->count && earlier(ls, c + 1, c))
			c++;
		if (!earlier(ls, c, i))
			break;
		heap_swap(ls, c, i);
		i = c;
	}
	ls->free_slots[ls->nfree++] = s;
	if (rc != 0)
		d->failed = 1;
	return rc;
}

int
etw_release_late_until(struct etw_decoder *d, uint64_t ts)
{
	struct etw_late *ls = d->late;

	while (ls != NULL && ls->count > 0 && ls->slot_ts[ls->order[0]] <= ts)
		if (late_release_oldest(d) != 0)
			return -1;
	return 0;
}

void
etw_queue_late(struct etw_decoder *d, uint64_t ts,
    const struct stream_event *sev)
{
	struct etw_late *ls = d->late;
	uint32_t s, i;
	size_t len;

	/* Older than what was written: the batch came too late. */
	if (ts < d->written_ts) {
		d->stats.cswitch_late++;
		return;
	}
	/* Full: the oldest goes, after the queued events older than it. */
	if (ls->nfree == 0) {
		while (d->qcount > 0 &&
		    d->q[d->qhead].ts <= ls->slot_ts[ls->order[0]])
			if (etw_release_oldest(d) != 0)
				return;
		if (late_release_oldest(d) != 0)
			return;
	}
	s = ls->free_slots[ls->nfree - 1];
	if ((len = stream_encode_event(d->w, sev, ls->slot[s],
	    LATE_RECORD)) == 0) {
		d->stats.bad_payloads++;
		return;
	}
	ls->nfree--;
	ls->slot_ts[s] = ts;
	ls->slot_len[s] = (uint32_t)len;
	ls->order[i = ls->count++] = s;
	while (i > 0 && earlier(ls, i, (i - 1) / 2)) {
		heap_swap(ls, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	d->class_written[sev->h.cls]++;
	d->stats.events++;
}

void
etw_queue_free(struct etw_decoder *d)
{
	struct etw_late *ls = d->late;

	free(d->q);
	free(d->ring);
	if (ls == NULL)
		return;
	free(ls->slot);
	free(ls->slot_ts);
	free(ls->slot_len);
	free(ls->order);
	free(ls->free_slots);
	free(ls);
	d->late = NULL;
}
