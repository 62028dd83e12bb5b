/*
 * in_etl_merge.c - the time merge of an .etl file's buffers (etl-format.md
 * 1.8), from the index that in_etl.c made.
 *
 * The buffers, sorted by first timestamp, are opened as the merge
 * reaches their start and closed when walked to the end; a binary heap
 * over the open buffers yields events in time order.  They are opened
 * in the order of the index, so a second thread (ahead.h) can decompress
 * them, or fault in their pages, before the merge reaches them; and the
 * merge itself may run on a thread of its own, handing events over in
 * batches.  What the merge does with the buffers stays the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/platform.h"
#include "base/ring.h"
#include "in_etl_state.h"
#include "lzxpress.h"

/* Decompressed bytes held at once by the merge, open buffers and spares. */
#define MAX_OPEN_BYTES	(512u << 20)
/* Buffers made ready ahead of the merge, and their decompressed bytes. */
#define AHEAD_SLOTS	16
#define AHEAD_BYTES	(8u << 20)
#define PAGE		4096
/*
 * The merge's thread hands events over in batches; a batch also keeps
 * the buffers closed while it was filled, whose bytes its events point
 * into, until the caller is done with it.
 */
#define BATCHES		4
#define BATCH_EVENTS	32768	/* fewer hand-overs: each may wake a thread;
				   4096 took a sixth longer on plain buffers */
#define BATCH_CLOSED_BYTES (8u << 20)	/* then the batch is cut short */

static void
openbuf_free(struct openbuf *ob)
{
	if (ob != NULL) {
		free(ob->owned);
		free(ob);
	}
}

/* ---- the merge ---- */

static int
heap_less(const struct openbuf *a, const struct openbuf *b)
{
	if (a->cur.ts != b->cur.ts)
		return a->cur.ts < b->cur.ts;
	if (a->idx->order != b->idx->order)
		return a->idx->order < b->idx->order;
	return a->pos < b->pos;
}

static void
heap_push(struct etl_reader *r, struct openbuf *ob)
{
	size_t i = r->nheap++;

	while (i > 0 && heap_less(ob, r->heap[(i - 1) / 2])) {
		r->heap[i] = r->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	r->heap[i] = ob;
}

static struct openbuf *
heap_pop(struct etl_reader *r)
{
	struct openbuf *top = r->heap[0], *last = r->heap[--r->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < r->nheap) {
		if (c + 1 < r->nheap && heap_less(r->heap[c + 1], r->heap[c]))
			c++;
		if (!heap_less(r->heap[c], last))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (r->nheap > 0)
		r->heap[i] = last;
	return top;
}

/*
 * Parses the event at ob->pos into ob->cur, skipping what cannot be read.
 * @return : 1 if there is an event, 0 at the end of the buffer, -1 if the
 *	rest of the buffer was skipped as corrupt (error set).
 */
static int
load_event(struct etl_reader *r, struct openbuf *ob)
{
	long size;

	if (ob->pos + 4 > ob->end)
		return 0;
	size = etl_parse_event(ob->data + ob->pos, ob->end - ob->pos, &ob->cur);
	if (size == 0)
		return 0;
	if (size < 0) {
		uint64_t at = ob->idx->off + ((ob->idx->flags & FLAG_COMPRESSED)
		    ? 0 : ob->pos);

		etl_set_error(r, at, "corrupt event header in %sbuffer at 0x%llx, "
		    "%zu bytes skipped", (ob->idx->flags & FLAG_COMPRESSED) ?
		    "compressed " : "", (unsigned long long)ob->idx->off,
		    ob->end - ob->pos);
		if (!r->counts.bad_events && !r->counts.bad_buffers)
			r->counts.first_bad_offset = at;
		r->counts.bad_events++;
		r->counts.bad_event_bytes += ob->end - ob->pos;
		ob->pos = ob->end;
		return -1;
	}
	if (ob->cur.ts == 0 && (ob->cur.hdr == ETL_HDR_WNODE ||
	    ob->cur.hdr == ETL_HDR_MESSAGE || ob->cur.hdr == ETL_HDR_ERROR))
		ob->cur.ts = ob->last_ts;
	ob->last_ts = ob->cur.ts;
	ob->cur.cpu = ob->idx->cpu;
	ob->cur.order = ob->idx->order;
	ob->cur.offset = ob->idx->off + ((ob->idx->flags & FLAG_COMPRESSED) ?
	    0 : ob->pos);
	ob->at = ob->pos;
	ob->pos += ((size_t)size + 7) & ~(size_t)7;
	r->counts.events++;
	return 1;
}

static struct openbuf *
get_openbuf(struct etl_reader *r)
{
	if (r->nspare > 0)
		return r->spare[--r->nspare];
	return calloc(1, sizeof(struct openbuf));
}

static int
cmp_drop(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Lets go of the pages of the closed buffers noted so far, in runs. */
static void
flush_drops(struct etl_reader *r)
{
	uint64_t start, end;
	size_t i;

	if (r->ndrops == 0)
		return;
	qsort(r->drops, r->ndrops, sizeof(r->drops[0]), cmp_drop);
	start = r->drops[0].start;
	end = r->drops[0].end;
	for (i = 1; i <= r->ndrops; i++) {
		if (i < r->ndrops && r->drops[i].start <= end) {
			if (r->drops[i].end > end)
				end = r->drops[i].end;
			continue;
		}
		platform_drop_pages(r->data + start, end - start);
		if (i < r->ndrops) {
			start = r->drops[i].start;
			end = r->drops[i].end;
		}
	}
	r->ndrops = 0;
}

/*
 * Lets go of the pages of a buffer that has been read, the pages it
 * shares with its neighbours too: the mapping is read-only, so a
 * neighbour still in use finds the same bytes when it faults them in.
 */
static void
drop_buffer(struct etl_reader *r, const struct bufidx *bi)
{
	uint64_t start = bi->off & ~(uint64_t)(PAGE - 1);
	uint64_t end = (bi->off + bi->size + PAGE - 1) & ~(uint64_t)(PAGE - 1);

	if (end > r->len)
		end = r->len;
	if (r->ndrops == DROP_BATCH)
		flush_drops(r);
	r->drops[r->ndrops].start = start;
	r->drops[r->ndrops].end = end;
	r->ndrops++;
}

/* Keeps a closed buffer for reuse, or frees it if enough are kept. */
static void
spare_push(struct etl_reader *r, struct openbuf *ob)
{
	if (r->nspare < r->heapcap + 1) {
		r->spare[r->nspare++] = ob;
		return;
	}
	r->owned_bytes -= ob->owned_cap;
	openbuf_free(ob);
}

static void
close_openbuf(struct etl_reader *r, struct openbuf *ob)
{
	if (r->drop_pages && ob->idx != NULL)
		drop_buffer(r, ob->idx);
	spare_push(r, ob);
}

static int batch_keep(struct etl_reader *r, struct openbuf *ob);

/*
 * Closes a buffer whose events were handed out: with the merge on its
 * own thread, the caller may still be reading them, so the buffer waits
 * in the batch until the caller is done with it.
 */
static void
retire_openbuf(struct etl_reader *r, struct openbuf *ob)
{
	if (r->filling == NULL || batch_keep(r, ob) != 0)
		close_openbuf(r, ob);
}

/* Lets go of the decompressed copies that closed buffers keep for reuse. */
static void
release_spares(struct etl_reader *r)
{
	size_t i;

	for (i = 0; i < r->nspare; i++) {
		struct openbuf *ob = r->spare[i];

		r->owned_bytes -= ob->owned_cap;
		free(ob->owned);
		ob->owned = NULL;
		ob->owned_cap = 0;
	}
}

/* ---- reading ahead ---- */

/* The bytes of the decompressed copy that buffer k needs. */
static size_t
ahead_weigh(void *arg, size_t k)
{
	const struct etl_reader *r = arg;
	const struct bufidx *bi = &r->bufs[k];

	return (bi->flags & FLAG_COMPRESSED) ? bi->filled : 0;
}

/*
 * Makes buffer k ready: decompresses a compressed one into the slot
 * (result: what lzxpress_decompress() returned, -2 if out of memory),
 * and faults in the pages of a plain one, so that the decoder's thread
 * does not wait for them.
 */
static void
ahead_work(void *arg, size_t k, struct ahead_slot *s)
{
	const struct etl_reader *r = arg;
	const struct bufidx *bi = &r->bufs[k];
	const unsigned char *b = r->data + bi->off;
	volatile unsigned char sink = 0;
	size_t i;

	if (!(bi->flags & FLAG_COMPRESSED)) {
		for (i = 0; i < bi->filled; i += PAGE)
			sink ^= b[i];
		s->result = sink & 0;
		return;
	}
	if (s->cap < bi->filled) {
		free(s->data);
		s->cap = 0;
		if ((s->data = malloc(bi->filled)) == NULL) {
			s->result = -2;
			return;
		}
		s->cap = bi->filled;
	}
	memcpy(s->data, b, BUF_HEADER_LEN);
	s->detail = 0;
	s->result = lzxpress_decompress(b + BUF_HEADER_LEN,
	    bi->size - BUF_HEADER_LEN, s->data + BUF_HEADER_LEN,
	    bi->filled - BUF_HEADER_LEN, &s->detail);
}

static const struct ahead_ops ahead_ops = { ahead_weigh, ahead_work };

/*
 * The work of the buffer the merge opens now, bufs[next_buf - 1]: from
 * the thread if there is one (started at the first buffer), else done
 * here.
 */
static struct ahead_slot *
take_ready(struct etl_reader *r)
{
	size_t k = r->next_buf - 1;
	struct ahead_slot *s = NULL;

	if (r->use_ahead && r->ahead == NULL && k == 0 && r->nbufs > 1)
		r->ahead = ahead_start(&ahead_ops, r, r->nbufs, AHEAD_SLOTS,
		    AHEAD_BYTES);
	/* A buffer that failed to open (out of memory) was never taken. */
	while (r->ahead != NULL && r->ahead_taken <= k &&
	    (s = ahead_take(r->ahead)) != NULL)
		r->ahead_taken++;
	if (s != NULL)
		return s;
	ahead_work(r, k, &r->inline_slot);
	return &r->inline_slot;
}

/* Whether the decompressed copy of `bi` may be held; error set if not. */
static int
may_hold(struct etl_reader *r, const struct openbuf *ob,
    const struct bufidx *bi, size_t cap)
{
	if (r->owned_bytes - ob->owned_cap + cap <= MAX_OPEN_BYTES)
		return 1;
	release_spares(r);
	if (r->owned_bytes - ob->owned_cap + cap <= MAX_OPEN_BYTES)
		return 1;
	etl_set_error(r, bi->off, "compressed buffers overlapping in time need "
	    "more than %u MiB at once: buffer at 0x%llx skipped, %u bytes",
	    MAX_OPEN_BYTES >> 20, (unsigned long long)bi->off, bi->size);
	etl_count_bad_buffer(r, bi->off, bi->size);
	return 0;
}

/* Makes the buffer's event area readable: decompressed if need be. */
static int
map_buffer(struct etl_reader *r, struct openbuf *ob, const struct bufidx *bi)
{
	struct ahead_slot *s = take_ready(r);
	size_t want = bi->filled - BUF_HEADER_LEN;
	unsigned char *spare;
	size_t spare_cap;

	ob->idx = bi;
	ob->pos = BUF_HEADER_LEN;
	ob->end = bi->filled;
	ob->last_ts = bi->first_ts;
	if (!(bi->flags & FLAG_COMPRESSED)) {
		ob->data = r->data + bi->off;
		return 0;
	}
	if (s->result == -2) {
		etl_set_error(r, bi->off, "out of memory for a compressed buffer of "
		    "%u bytes: skipped", bi->filled);
		etl_count_bad_buffer(r, bi->off, bi->size);
		return -1;
	}
	if (!may_hold(r, ob, bi, s->cap))
		return -1;
	if (s->result != (long)want) {
		etl_set_error(r, bi->off + BUF_HEADER_LEN + s->detail,
		    "corrupt compressed buffer at 0x%llx, %u bytes skipped",
		    (unsigned long long)bi->off, bi->size);
		etl_count_bad_buffer(r, bi->off, bi->size);
		return -1;
	}
	/* The copy becomes the open buffer's; its old one goes back. */
	spare = ob->owned;
	spare_cap = ob->owned_cap;
	ob->owned = s->data;
	ob->owned_cap = s->cap;
	r->owned_bytes += s->cap - spare_cap;
	s->data = spare;
	s->cap = spare_cap;
	ob->data = ob->owned;
	return 0;
}

static int
grow_heap(struct etl_reader *r)
{
	size_t cap = r->heapcap ? r->heapcap * 2 : 64;
	struct openbuf **h = realloc(r->heap, cap * sizeof(*h));
	struct openbuf **s;

	if (h == NULL)
		return -1;
	r->heap = h;
	if ((s = realloc(r->spare, (cap + 1) * sizeof(*s))) == NULL)
		return -1;
	r->spare = s;
	r->heapcap = cap;
	return 0;
}

/*
 * Opens the next buffer in time order and puts it on the heap.
 * @return : 0, or -1 if it was skipped (error set).
 */
static int
open_next(struct etl_reader *r)
{
	const struct bufidx *bi = &r->bufs[r->next_buf++];
	struct openbuf *ob;
	int st;

	if (r->nheap + 1 >= r->heapcap && grow_heap(r) != 0)
		return -1;
	if ((ob = get_openbuf(r)) == NULL)
		return -1;
	if (map_buffer(r, ob, bi) != 0) {
		close_openbuf(r, ob);
		return -1;
	}
	if ((st = load_event(r, ob)) <= 0) {
		close_openbuf(r, ob);
		return st;
	}
	heap_push(r, ob);
	return 0;
}

/*
 * Whether `ob`, just advanced, holds the next event of the merge: before
 * every open buffer's and before the start of every buffer not yet
 * open.  It mostly does (a buffer holds runs of one processor's events),
 * and then it need not go through the heap.
 */
static int
still_first(const struct etl_reader *r, const struct openbuf *ob)
{
	return (r->nheap == 0 || heap_less(ob, r->heap[0])) &&
	    (r->next_buf == r->nbufs || r->bufs[r->next_buf].first_ts >
	    ob->cur.ts);
}

/*
 * Moves the buffer returned last time to its next event.
 * @return : 1 if it holds the next event still (and stays popped), 0 if
 *	it went back to the heap or was closed, -1 if the rest of it was
 *	skipped as corrupt.
 */
static int
advance_popped(struct etl_reader *r)
{
	struct openbuf *ob = r->popped;
	int st;

	if ((st = load_event(r, ob)) > 0) {
		if (still_first(r, ob))
			return 1;
		r->popped = NULL;
		heap_push(r, ob);
		return 0;
	}
	r->popped = NULL;
	retire_openbuf(r, ob);
	return st;
}

/*
 * Steps the merge to its next event, which r->popped then holds.
 * @return : ETL_OK, ETL_WARN (error set) or ETL_EOF.
 */
static enum etl_status
merge_step(struct etl_reader *r)
{
	int st;

	if (r->popped != NULL && (st = advance_popped(r)) != 0)
		return st < 0 ? ETL_WARN : ETL_OK;
	/* Open every buffer that starts before the earliest open event. */
	while (r->next_buf < r->nbufs && (r->nheap == 0 ||
	    r->bufs[r->next_buf].first_ts <= r->heap[0]->cur.ts))
		if (open_next(r) < 0)
			return ETL_WARN;
	if (r->nheap == 0) {
		flush_drops(r);
		return ETL_EOF;
	}
	r->popped = heap_pop(r);
	return ETL_OK;
}

/* The next event of the merge, on the caller's thread. */
static enum etl_status
merge_next(struct etl_reader *r, struct etl_event *ev)
{
	enum etl_status st;

	if ((st = merge_step(r)) == ETL_OK)
		*ev = r->popped->cur;
	return st;
}

/* ---- the merge's thread ---- */

/*
 * What the merge hands over of an event: where its bytes are and what
 * the buffer adds to them.  The caller parses the header again; that
 * costs less than the cache lines of a whole struct etl_event, which
 * the merge's core would have to take back from the caller's for every
 * event (a third of the merge's time).
 */
struct handed {
	const unsigned char *p;
	uint64_t ts;		/* after load_event()'s fix-up */
	uint64_t offset;
	uint32_t avail;		/* bytes from p to the end of the data */
	uint32_t order;
	uint16_t cpu;
};

struct batch {
	struct handed ev[BATCH_EVENTS];
	size_t n;
	enum etl_status end;	/* after the events: ETL_OK, _WARN or _EOF */
	char error[256];	/* the message of ETL_WARN */
	size_t opened;		/* buffers opened once it was full */
	struct openbuf **closed;	/* buffers its events point into */
	size_t nclosed, closed_cap, closed_bytes;
};

/* Keeps `ob` in the batch being filled.  @return : 0, or -1 if OOM. */
static int
batch_keep(struct etl_reader *r, struct openbuf *ob)
{
	struct batch *b = r->filling;

	if (b->nclosed == b->closed_cap) {
		size_t cap = b->closed_cap ? b->closed_cap * 2 : 16;
		struct openbuf **p = realloc(b->closed, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		b->closed = p;
		b->closed_cap = cap;
	}
	/* Its pages are let go of once the caller is done with it. */
	b->closed[b->nclosed++] = ob;
	b->closed_bytes += ob->owned_cap;
	return 0;
}

/* The next event of the merge, as a batch holds it. */
static enum etl_status
merge_hand(struct etl_reader *r, struct handed *h)
{
	const struct openbuf *ob;
	enum etl_status st;

	if ((st = merge_step(r)) != ETL_OK)
		return st;
	ob = r->popped;
	h->p = ob->data + ob->at;
	h->avail = (uint32_t)(ob->end - ob->at);
	h->ts = ob->cur.ts;
	h->offset = ob->cur.offset;
	h->order = ob->cur.order;
	h->cpu = ob->cur.cpu;
	return ETL_OK;
}

/* The event a batch handed over, parsed again on the caller's thread. */
static void
take_handed(const struct handed *h, struct etl_event *ev)
{
	(void)etl_parse_event(h->p, h->avail, ev);
	ev->ts = h->ts;
	ev->cpu = h->cpu;
	ev->order = h->order;
	ev->offset = h->offset;
}

/* The buffers a batch kept go back to the spares: it has been read. */
static void
batch_recycle(struct etl_reader *r, struct batch *b)
{
	size_t i;

	for (i = 0; i < b->nclosed; i++)
		close_openbuf(r, b->closed[i]);
	b->nclosed = b->closed_bytes = 0;
}

/*
 * Fills a batch with the merge's next events, up to a message or the
 * end, or until the buffers it keeps weigh too much.
 */
static void
fill_batch(struct etl_reader *r, struct batch *b)
{
	enum etl_status st = ETL_OK;

	b->n = 0;
	while (b->n < BATCH_EVENTS && b->closed_bytes < BATCH_CLOSED_BYTES &&
	    (st = merge_hand(r, &b->ev[b->n])) == ETL_OK)
		b->n++;
	b->end = st;
	if (st == ETL_WARN)
		memcpy(b->error, r->error, sizeof(b->error));
	b->opened = r->next_buf;
}

/* The merge's thread: batches until the end of the merge. */
static void
merge_batches(void *arg)
{
	struct etl_reader *r = arg;
	struct batch *b;
	long slot;

	do {
		if ((slot = ring_put_begin(r->ring, 1)) < 0)
			return;
		b = r->filling = &r->batches[slot];
		batch_recycle(r, b);
		fill_batch(r, b);
		ring_put_end(r->ring);
	} while (b->end != ETL_EOF);
	ring_close(r->ring);
}

/* Starts the merge's thread.  @return : 0, or -1 to merge here. */
static int
start_merge_thread(struct etl_reader *r)
{
	if ((r->batches = calloc(BATCHES, sizeof(*r->batches))) == NULL ||
	    (r->ring = ring_new(BATCHES, BATCHES)) == NULL ||
	    ring_thread_start(r->ring, merge_batches, r) != 0) {
		ring_free(r->ring);
		r->ring = NULL;
		free(r->batches);
		r->batches = NULL;
		return -1;
	}
	return 0;
}

/* Stops the merge's thread and frees the batches (the reader's end). */
static void
stop_merge_thread(struct etl_reader *r)
{
	size_t i, j;

	if (r->ring == NULL)
		return;
	ring_stop(r->ring);
	ring_thread_join(r->ring);
	ring_free(r->ring);
	for (i = 0; i < BATCHES; i++) {
		for (j = 0; j < r->batches[i].nclosed; j++)
			openbuf_free(r->batches[i].closed[j]);
		free(r->batches[i].closed);
	}
	free(r->batches);
}

/* The next event from the batches. */
static enum etl_status
batch_next(struct etl_reader *r, struct etl_event *ev)
{
	struct batch *b = r->taken;
	long slot;

	for (;;) {
		if (b != NULL && r->taken_pos < b->n) {
			take_handed(&b->ev[r->taken_pos++], ev);
			return ETL_OK;
		}
		if (b != NULL) {
			enum etl_status end = b->end;

			if (end == ETL_WARN)
				memcpy(r->taken_error, b->error,
				    sizeof(r->taken_error));
			if (end == ETL_EOF)
				return ETL_EOF;
			ring_get_end(r->ring);
			r->taken = b = NULL;
			if (end == ETL_WARN)
				return ETL_WARN;
		}
		if ((slot = ring_get_begin(r->ring)) < 0)
			return ETL_EOF;
		b = r->taken = &r->batches[slot];
		r->taken_pos = 0;
		r->opened = b->opened;
	}
}

enum etl_status
etl_reader_next(struct etl_reader *r, struct etl_event *ev)
{
	if (r->ring == NULL && r->use_ahead && r->next_buf == 0 &&
	    r->nbufs > 1 && r->popped == NULL)
		(void)start_merge_thread(r);
	if (r->ring != NULL)
		return batch_next(r, ev);
	return merge_next(r, ev);
}

size_t
etl_reader_buffers_opened(const struct etl_reader *r, size_t *total)
{
	*total = r->nbufs;
	return r->ring != NULL ? r->opened : r->next_buf;
}

void
etl_reader_free(struct etl_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	stop_merge_thread(r);
	ahead_free(r->ahead);
	free(r->inline_slot.data);
	for (i = 0; i < r->nheap; i++)
		openbuf_free(r->heap[i]);
	for (i = 0; i < r->nspare; i++)
		openbuf_free(r->spare[i]);
	openbuf_free(r->popped);
	free(r->heap);
	free(r->spare);
	free(r->bufs);
	free(r);
}
