/*
 * in_etl.c - buffers, event headers and the time merge of an .etl file.
 *
 * Pass 1 (open): walk the buffers back to back (etl-format.md 1.1), check
 * each header, note its processor, fill size and first timestamp, and
 * read the trace header (section 2) from the first event of the file.
 * Pass 2 (next): the buffers, sorted by first timestamp, are opened as
 * the merge reaches their start and closed when walked to the end; a
 * binary heap over the open buffers yields events in time order (1.8).
 * Within a buffer events are already in order, so memory stays bounded by
 * the buffers that overlap in time, not by the size of the file.
 *
 * The buffers are opened in the order of the index, so a second thread
 * (ahead.h) can decompress them, or fault in their pages, before the
 * merge reaches them; what the merge does with them stays the same.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead.h"
#include "buf.h"
#include "in_etl.h"
#include "lzxpress.h"
#include "platform.h"
#include "ring.h"
#include "utf.h"

#define BUF_HEADER_LEN	0x48
#define FLAG_EVENTS_LOST 0x0002
#define FLAG_BUFFER_LOST 0x0004
#define FLAG_PROC_INDEX	0x0020
#define FLAG_COMPRESSED	0x0040
#define MAX_FILLED	(64u << 20)	/* a decompressed buffer, at most */
/*
 * A compressed buffer may claim at most this many times its compressed
 * bytes (plus a page): real ones reach 13 (net.4.5.2.x64), and the claim
 * bounds both the memory and the time its decompression takes, so that
 * a small file cannot ask for gigabytes (etl-format.md 1.6).
 */
#define MAX_RATIO	64u
#define RATIO_SLACK	4096u
/* Decompressed bytes held at once by the merge, open buffers and spares. */
#define MAX_OPEN_BYTES	(512u << 20)
/* Buffers made ready ahead of the merge, and their decompressed bytes. */
#define AHEAD_SLOTS	16
#define AHEAD_BYTES	(8u << 20)
#define PAGE		4096
/*
 * Closed buffers whose pages are let go of together: each call makes
 * the kernel flush the other threads' TLBs, so one per buffer cost a
 * tenth of the decoder's time once the reader had a second thread.
 */
#define DROP_BATCH	64
/*
 * The merge's thread hands events over in batches; a batch also keeps
 * the buffers closed while it was filled, whose bytes its events point
 * into, until the caller is done with it.
 */
#define BATCHES		4
#define BATCH_EVENTS	32768	/* fewer hand-overs: each may wake a thread;
				   4096 took a sixth longer on plain buffers */
#define BATCH_CLOSED_BYTES (8u << 20)	/* then the batch is cut short */
#define PEEK_LEN	256		/* bytes decompressed to find a time */
#define INDEX_WINDOW	4096		/* bytes read of a buffer to index it */
#define MAX_WNODE	0x10000		/* an event is at most 64 KiB (3.9) */
#define DROP_STEP	(16u << 20)	/* mapped bytes let go of at once */

struct bufidx {
	uint64_t off;
	uint64_t first_ts;
	uint32_t size;		/* on-disk size */
	uint32_t filled;	/* bytes in use, header included */
	uint32_t order;		/* position in the file */
	uint16_t cpu;
	uint16_t flags;
};

struct openbuf {
	const unsigned char *data;	/* buffer start (header included) */
	unsigned char *owned;		/* decompressed copy, or NULL */
	size_t owned_cap;
	size_t pos, end;
	size_t at;		/* where `cur` begins */
	const struct bufidx *idx;
	uint64_t last_ts;	/* for events that carry no time */
	struct etl_event cur;	/* the next event, already parsed */
};

struct etl_reader {
	const unsigned char *data;
	size_t len;
	struct etl_header header;
	struct etl_counts counts;

	struct bufidx *bufs;
	size_t nbufs, bufcap;
	size_t next_buf;	/* next buffer (in time order) to open */

	struct openbuf **heap;
	size_t nheap, heapcap;
	struct openbuf *popped;	/* returned last time; advance it first */
	struct openbuf **spare;	/* closed buffers, kept for reuse */
	size_t nspare;

	size_t owned_bytes;	/* decompressed copies held, spares included */

	int drop_pages;		/* the data is a mapping: drop what was read */
	const struct mapped_file *file;	/* the data's file, for reads */
	struct { uint64_t start, end; } drops[DROP_BATCH];
	size_t ndrops;		/* ranges of closed buffers not yet dropped */
	int use_ahead;		/* may start a thread to read ahead */
	struct ahead *ahead;	/* that thread, once the merge has begun */
	size_t ahead_taken;	/* items taken from it */
	struct ahead_slot inline_slot;	/* the work done here without it */
	char error[256];

	/* The merge on a thread of its own (see "the merge's thread"). */
	struct ring *ring;
	struct batch *batches;
	struct batch *filling;		/* the merge thread's batch */
	struct batch *taken;		/* the caller's batch, or NULL */
	size_t taken_pos;		/* its next event */
	size_t opened;			/* buffers opened, as of `taken` */
	char taken_error[256];		/* the caller's copy of a message */
};

static void stop_merge_thread(struct etl_reader *r);

static void
set_error(struct etl_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	char what[200];

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "%s (offset 0x%llx)", what,
	    (unsigned long long)offset);
}

/* Counts a buffer skipped whole or in part, and `bytes` made unreadable. */
static void
count_bad_buffer(struct etl_reader *r, uint64_t off, uint64_t bytes)
{
	if (!r->counts.bad_buffers)
		r->counts.first_bad_offset = off;
	r->counts.bad_buffers++;
	r->counts.bad_buffer_bytes += bytes;
}

const char *
etl_reader_error(const struct etl_reader *r)
{
	/* Once the merge has a thread, r->error is that thread's. */
	return r->ring != NULL ? r->taken_error : r->error;
}

const struct etl_header *
etl_reader_header(const struct etl_reader *r)
{
	return &r->header;
}

const struct etl_counts *
etl_reader_counts(const struct etl_reader *r)
{
	return &r->counts;
}

void
etl_reader_drop_pages(struct etl_reader *r, int on)
{
	r->drop_pages = on;
}

enum etl_status
etl_reader_open_file(struct etl_reader *r, const struct mapped_file *m)
{
	r->drop_pages = m->is_mapped;
	r->file = m;
	return etl_reader_open_mem(r, m->data, m->len);
}

struct etl_reader *
etl_reader_new(void)
{
	struct etl_reader *r = calloc(1, sizeof(struct etl_reader));

	if (r != NULL)
		r->use_ahead = 1;
	return r;
}

void
etl_reader_threads(struct etl_reader *r, int on)
{
	r->use_ahead = on;
}

static void
openbuf_free(struct openbuf *ob)
{
	if (ob != NULL) {
		free(ob->owned);
		free(ob);
	}
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

/*
 * Parses the event header at p (section 3.1 to 3.9) into *ev.
 * @return : the event's size (before alignment), 0 for the end-of-data
 *	marker, or -1 if the header is not one we know or lies about its size.
 */
static long
parse_event(const unsigned char *p, size_t avail, struct etl_event *ev)
{
	uint32_t m, size, hlen;
	unsigned hi, type;

	if (avail < 4)
		return -1;
	m = le32(p);
	if (m == 0xffffffffu)
		return 0;
	hi = m >> 24;
	type = (m >> 16) & 0xff;
	memset(ev, 0, offsetof(struct etl_event, offset));
	ev->pid = ev->tid = ETL_NO_ID;
	ev->header_type = (uint8_t)type;
	if ((hi & 0xc0) == 0xc0) {
		switch (type) {
		case 0x01: case 0x02: case 0x03: case 0x04: {
			/* SYSTEM_TRACE_HEADER, full (0x20) or compact (0x18). */
			unsigned pmc = (m >> 8) & 7, pebs = (m >> 15) & 1;

			hlen = type <= 2 ? 0x20 : 0x18;
			if (avail < hlen)
				return -1;
			size = le16(p + 4);
			ev->hdr = ETL_HDR_SYSTEM;
			ev->ptr_size = (type & 1) ? 4 : 8;
			ev->version = m & 0xff;
			ev->hook = le16(p + 6);
			ev->tid = le32(p + 8);
			ev->pid = le32(p + 12);
			ev->ts = le64(p + 16);
			hlen += 8 * (pmc + pebs);
			break;
		}
		case 0x10: case 0x11: {
			unsigned pmc = (m >> 8) & 7, pebs = (m >> 15) & 1;

			hlen = 0x10;
			if (avail < hlen)
				return -1;
			size = le16(p + 4);
			ev->hdr = ETL_HDR_PERFINFO;
			ev->ptr_size = type == 0x10 ? 4 : 8;
			ev->version = m & 0xff;
			ev->hook = le16(p + 6);
			ev->ts = le64(p + 8);
			hlen += 8 * (pmc + pebs);
			break;
		}
		case 0x0a: case 0x14: case 0x0b: case 0x15:
			/* EVENT_TRACE_HEADER and its instance form (3.5, 3.6). */
			hlen = (type == 0x0b || type == 0x15) ? 0x48 : 0x30;
			if (avail < hlen)
				return -1;
			size = le16(p);
			ev->hdr = hlen == 0x48 ? ETL_HDR_INSTANCE : ETL_HDR_FULL;
			ev->ptr_size = (type == 0x0a || type == 0x0b) ? 4 : 8;
			ev->opcode = p[4];
			ev->level = p[5];
			ev->version = (uint8_t)le16(p + 6);
			ev->tid = le32(p + 8);
			ev->pid = le32(p + 12);
			ev->ts = le64(p + 16);
			memcpy(ev->guid, p + 0x18, 16);
			break;
		case 0x12: case 0x13:
			/* EVENT_HEADER (3.7). */
			hlen = 0x50;
			if (avail < hlen)
				return -1;
			size = le16(p);
			ev->hdr = ETL_HDR_EVENT;
			ev->ptr_size = type == 0x12 ? 4 : 8;
			ev->flags = le16(p + 4);
			ev->tid = le32(p + 8);
			ev->pid = le32(p + 12);
			ev->ts = le64(p + 16);
			memcpy(ev->guid, p + 0x18, 16);
			ev->id = le16(p + 0x28);
			ev->version = p[0x2a];
			ev->channel = p[0x2b];
			ev->level = p[0x2c];
			ev->opcode = p[0x2d];
			ev->task = le16(p + 0x2e);
			ev->keyword = le64(p + 0x30);
			break;
		case 0x0d:
			/* "Error while logging": skip by its size (UNCERTAIN). */
			hlen = 4;
			size = m & 0xffff;
			ev->hdr = ETL_HDR_ERROR;
			break;
		default:
			return -1;
		}
	} else if ((hi & 0xd0) == 0x90) {
		/* MESSAGE_TRACE_HEADER (3.8): optional items, then args. */
		unsigned opt;
		size_t q = 8;

		hlen = 8;
		size = m & 0xffff;
		if (avail < 8 || size < 8 || size > avail)
			return -1;
		ev->hdr = ETL_HDR_MESSAGE;
		ev->id = le16(p + 4);
		opt = le16(p + 6);
		ev->ptr_size = (opt & 0x40) ? 4 : 8;
		if (opt & 0x0001)
			q += 4;
		if (opt & 0x0004)
			q += 4;
		else if (opt & 0x0002) {
			if (q + 16 <= size)
				memcpy(ev->guid, p + q, 16);
			q += 16;
		}
		if (opt & 0x0018) {
			if ((opt & 0x0008) && q + 8 <= size)
				ev->ts = le64(p + q);
			q += 8;
		}
		if (opt & 0x0020) {
			if (q + 8 <= size) {
				ev->tid = le32(p + q);
				ev->pid = le32(p + q + 4);
			}
			q += 8;
		}
		if (q > size)
			return -1;
		hlen = (uint32_t)q;
	} else if ((hi & 0x80) == 0) {
		/*
		 * WNODE_HEADER block (3.9): opaque.  Its size is a u32, but no
		 * event is larger than 64 KiB; a larger one is a lie that
		 * would make a record too large for the stream.
		 */
		hlen = 0x30;
		size = m;
		if (size > MAX_WNODE)
			return -1;
		ev->hdr = ETL_HDR_WNODE;
		if (avail >= 0x30)
			memcpy(ev->guid, p + 0x18, 16);
	} else
		return -1;
	if (size < hlen || size > avail)
		return -1;
	if (ev->hdr == ETL_HDR_EVENT && (ev->flags & 0x0001)) {
		/* Extended items (3.7): walk the Linkage chain. */
		size_t q = hlen;

		for (;;) {
			size_t item;

			if (q + 8 > size)
				return -1;
			item = (8 + (size_t)le16(p + q + 6) + 7) & ~(size_t)7;
			if (q + item > size)
				return -1;
			q += item;
			if ((le16(p + q - item + 4) & 1) == 0)
				break;
		}
		ev->ext = p + hlen;
		ev->ext_len = q - hlen;
		hlen = (uint32_t)q;
	}
	ev->payload = p + hlen;
	ev->payload_len = size - hlen;
	return size;
}

/* Reads the trace header (section 2) from the first event of the file. */
static int
read_trace_header(struct etl_reader *r)
{
	const unsigned char *buf = r->data, *p;
	uint32_t filled;
	struct etl_event ev;
	struct etl_header *h = &r->header;
	size_t o, x;		/* o: pointer-size shift of the x64 layout */
	size_t avail, used;
	long size;

	filled = le32(buf + 0x30) ? le32(buf + 0x30) : le32(buf + 0x04);
	if (le16(buf + 0x34) & FLAG_COMPRESSED || filled > r->len ||
	    filled < BUF_HEADER_LEN)
		return -1;
	size = parse_event(buf + BUF_HEADER_LEN, filled - BUF_HEADER_LEN, &ev);
	if (size <= 0 || ev.hdr != ETL_HDR_SYSTEM || ev.hook != 0x0000)
		return -1;
	p = ev.payload;
	o = ev.ptr_size == 8 ? 8 : 0;
	if (ev.payload_len < 0x110 + o)
		return -1;
	h->buffer_size = le32(p + 0x00);
	h->version = le32(p + 0x04);
	h->provider_version = le32(p + 0x08);
	h->cpus = le32(p + 0x0c);
	h->end_time = le64(p + 0x10);
	h->timer_resolution = le32(p + 0x18);
	h->max_file_size = le32(p + 0x1c);
	h->log_file_mode = le32(p + 0x20);
	h->buffers_written = le32(p + 0x24);
	h->start_buffers = le32(p + 0x28);
	h->pointer_size = le32(p + 0x2c);
	h->events_lost = le32(p + 0x30);
	h->cpu_mhz = le32(p + 0x34);
	x = 0x40 + o;		/* TimeZone */
	h->tz_bias = (int32_t)le32(p + x);
	h->boot_time = le64(p + 0xf0 + o);
	h->perf_freq = le64(p + 0xf8 + o);
	h->start_time = le64(p + 0x100 + o);
	h->clock_type = le32(p + 0x108 + o);
	h->buffers_lost = le32(p + 0x10c + o);
	h->t0 = ev.ts;
	x = 0x110 + o;
	if (x <= ev.payload_len) {
		avail = ev.payload_len - x;
		utf16_to_utf8(p + x, avail, h->logger_name,
		    sizeof(h->logger_name), &used);
		utf16_to_utf8(p + x + used, avail - used, h->log_file_name,
		    sizeof(h->log_file_name), NULL);
	}
	return 0;
}

/* Whether the buffer header `b`, at `off`, could be real. */
static int
plausible_header(const struct etl_reader *r, uint64_t off,
    const unsigned char *b)
{
	uint32_t size, filled;
	uint16_t flags;

	if (off + BUF_HEADER_LEN > r->len)
		return 0;
	size = le32(b);
	filled = le32(b + 0x30) ? le32(b + 0x30) : le32(b + 4);
	flags = le16(b + 0x34);
	if (size < BUF_HEADER_LEN || size > r->len - off || le16(b + 0x36) > 7)
		return 0;
	if (flags & FLAG_COMPRESSED)
		return filled > BUF_HEADER_LEN && filled <= MAX_FILLED;
	return filled >= BUF_HEADER_LEN && filled <= size;
}

/* Whether a buffer header at `off` could be real. */
static int
plausible_buffer(const struct etl_reader *r, uint64_t off)
{
	return plausible_header(r, off, r->data + off);
}

/*
 * The most a compressed buffer of `size` bytes on disk may decompress
 * to, header included: see MAX_RATIO.
 */
static uint64_t
max_filled(uint32_t size)
{
	uint64_t n = (uint64_t)(size - BUF_HEADER_LEN) * MAX_RATIO +
	    RATIO_SLACK + BUF_HEADER_LEN;

	return n < MAX_FILLED ? n : MAX_FILLED;
}

/*
 * When scanning for the next buffer, also ask for an event header we know
 * at the start: uncompressed event data could pass the header checks.
 */
static int
likely_buffer(const struct etl_reader *r, uint64_t off)
{
	const unsigned char *b = r->data + off;

	if (!plausible_buffer(r, off))
		return 0;
	return (le16(b + 0x34) & FLAG_COMPRESSED) ||
	    le32(b + 0x30) < BUF_HEADER_LEN + 4 || (b[BUF_HEADER_LEN + 3] & 0x80);
}

/* The next plausible buffer header after a bad one at `off`. */
static uint64_t
resync(const struct etl_reader *r, uint64_t off)
{
	uint64_t next;

	/* Most files use one buffer size: try that step first. */
	if (r->header.buffer_size >= BUF_HEADER_LEN &&
	    likely_buffer(r, off + r->header.buffer_size))
		return off + r->header.buffer_size;
	for (next = (off + 8) & ~(uint64_t)7; next + BUF_HEADER_LEN <= r->len;
	    next += 8)
		if (likely_buffer(r, next))
			return next;
	return r->len;
}

/*
 * The timestamp of the first event with one among the whole events of
 * [p, p + len).  @return : 1 with *ts and *pos set, or 0 with *pos where
 *	the events stopped.
 */
static int
whole_event_time(const unsigned char *p, size_t len, uint64_t *ts,
    size_t *pos)
{
	struct etl_event ev;
	long size;

	*pos = 0;
	while (*pos + 4 <= len && (size = parse_event(p + *pos, len - *pos,
	    &ev)) > 0) {
		if (ev.ts != 0) {
			*ts = ev.ts;
			return 1;
		}
		*pos += ((size_t)size + 7) & ~(size_t)7;
	}
	return 0;
}

/* The timestamp of the first event in `data` (a buffer's event area). */
static uint64_t
first_timestamp(const unsigned char *p, size_t len)
{
	uint64_t ts;
	size_t pos;

	if (whole_event_time(p, len, &ts, &pos))
		return ts;
	/* A compressed peek may cut the first event: read its time anyway. */
	if (pos + 0x18 <= len && (p[pos + 3] & 0xc0) == 0xc0) {
		unsigned type = p[pos + 2];

		if (type == 0x10 || type == 0x11)
			return le64(p + pos + 8);
		return le64(p + pos + 16);
	}
	return 0;
}

static int
add_index(struct etl_reader *r, const struct bufidx *bi)
{
	if (r->nbufs == r->bufcap) {
		size_t cap = r->bufcap ? r->bufcap * 2 : 256;
		struct bufidx *b = realloc(r->bufs, cap * sizeof(*b));

		if (b == NULL)
			return -1;
		r->bufs = b;
		r->bufcap = cap;
	}
	r->bufs[r->nbufs++] = *bi;
	return 0;
}

/*
 * Checks the fill size of the buffer being indexed against its header
 * and its size on disk, every one of which may lie.
 * @return : 0, or -1 if the buffer is to be skipped (error set).
 */
static int
check_fill(struct etl_reader *r, struct bufidx *bi)
{
	if (bi->flags & FLAG_COMPRESSED) {
		if (bi->filled <= BUF_HEADER_LEN || bi->filled > MAX_FILLED) {
			set_error(r, bi->off + 0x30, "compressed buffer with an "
			    "impossible fill size %u, %u bytes skipped",
			    bi->filled, bi->size);
			return -1;
		}
		if (bi->filled > max_filled(bi->size)) {
			set_error(r, bi->off + 0x30, "compressed buffer claims "
			    "%u bytes from %u, more than %u times: %u bytes "
			    "skipped", bi->filled, bi->size, MAX_RATIO, bi->size);
			return -1;
		}
		return 0;
	}
	if (bi->filled > bi->size)
		bi->filled = bi->size;
	if (bi->filled < BUF_HEADER_LEN) {
		set_error(r, bi->off + 0x30, "buffer fill size %u is smaller "
		    "than its header, %u bytes skipped", bi->filled, bi->size);
		return -1;
	}
	return 0;
}

/*
 * The time of a buffer's first event, read from `b`, which holds `have`
 * bytes of the buffer: all of them in the mapping, or the first
 * INDEX_WINDOW read into memory.  A window that cuts off what the time
 * depends on is read again from the mapping, so that the time is the
 * same either way.
 */
static uint64_t
buffer_first_ts(struct etl_reader *r, const struct bufidx *bi,
    const unsigned char *b, size_t have)
{
	const unsigned char *whole = r->data + bi->off;
	uint64_t ts;
	size_t pos;

	if (bi->flags & FLAG_COMPRESSED) {
		unsigned char peek[PEEK_LEN];
		size_t want = bi->filled - BUF_HEADER_LEN, in = bi->size;
		long got;

		if (want > sizeof(peek))
			want = sizeof(peek);
		if (in > have)
			in = have;
		got = lzxpress_decompress(b + BUF_HEADER_LEN,
		    in - BUF_HEADER_LEN, peek, want, NULL);
		if (got != (long)want && b != whole)
			got = lzxpress_decompress(whole + BUF_HEADER_LEN,
			    bi->size - BUF_HEADER_LEN, peek, want, NULL);
		return got > 0 ? first_timestamp(peek, (size_t)got) : 0;
	}
	if (b != whole && have < bi->filled) {
		if (whole_event_time(b + BUF_HEADER_LEN, have - BUF_HEADER_LEN,
		    &ts, &pos))
			return ts;
		b = whole;
	}
	return first_timestamp(b + BUF_HEADER_LEN, bi->filled -
	    BUF_HEADER_LEN);
}

/* Indexes the buffer at `off`; returns the offset of the next one. */
static uint64_t
index_buffer(struct etl_reader *r, uint64_t off, int *warned)
{
	unsigned char window[INDEX_WINDOW];
	const unsigned char *b = r->data + off;
	size_t have = r->len - off;
	struct bufidx bi = { .off = off, .order = (uint32_t)r->nbufs };
	uint64_t next;
	int truncated = 0;
	long n;

	/* A read leaves the pages unmapped; faulting them in costs more. */
	if (r->file != NULL && (n = platform_read_at(r->file, off, window,
	    sizeof(window))) >= BUF_HEADER_LEN) {
		b = window;
		have = (size_t)n;
	}
	if (!plausible_header(r, off, b)) {
		uint32_t size = le32(b);
		uint64_t left = r->len - off;

		*warned = 1;
		if (size < BUF_HEADER_LEN || size <= left) {
			next = resync(r, off);
			set_error(r, off, "corrupt buffer header, %llu bytes "
			    "skipped", (unsigned long long)(next - off));
			count_bad_buffer(r, off, next - off);
			return next;
		}
		/* A last buffer cut short by the end of the file. */
		if (le16(b + 0x34) & FLAG_COMPRESSED) {
			/* Half an LZ77 stream is no use: skip it. */
			set_error(r, off, "truncated compressed buffer: %u of "
			    "%u bytes skipped", (unsigned)left, size);
			count_bad_buffer(r, off, left);
			return r->len;
		}
		set_error(r, off, "truncated buffer: %u of %u bytes",
		    (unsigned)left, size);
		count_bad_buffer(r, off, size - left);
		bi.size = (uint32_t)left;
		truncated = 1;
	} else
		bi.size = le32(b);
	next = off + bi.size;
	bi.flags = le16(b + 0x34);
	bi.filled = le32(b + 0x30) ? le32(b + 0x30) : le32(b + 4);
	bi.cpu = (bi.flags & FLAG_PROC_INDEX) ? le16(b + 0x28) & 0x7ff : b[0x28];
	if (check_fill(r, &bi) != 0) {
		/* A truncated buffer was counted already. */
		if (truncated)
			r->counts.bad_buffer_bytes += bi.size;
		else
			count_bad_buffer(r, off, bi.size);
		*warned = 1;
		return next;
	}
	if (bi.flags & (FLAG_EVENTS_LOST | FLAG_BUFFER_LOST))
		r->counts.lost_flagged++;
	bi.first_ts = buffer_first_ts(r, &bi, b, have);
	if (bi.flags & FLAG_COMPRESSED)
		r->counts.compressed++;
	r->counts.buffers++;
	if (add_index(r, &bi) != 0)
		return r->len;
	return next;
}

static int
cmp_first_ts(const void *a, const void *b)
{
	const struct bufidx *x = a, *y = b;

	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int
etl_probe(const unsigned char *data, size_t len)
{
	uint32_t m;

	if (len < BUF_HEADER_LEN + 0x20 || le32(data) < BUF_HEADER_LEN)
		return 0;
	m = le32(data + BUF_HEADER_LEN);
	return (m >> 24 & 0xc0) == 0xc0 && ((m >> 16 & 0xff) == 1 ||
	    (m >> 16 & 0xff) == 2) && le16(data + BUF_HEADER_LEN + 6) == 0;
}

enum etl_status
etl_reader_open_mem(struct etl_reader *r, const unsigned char *data,
    size_t len)
{
	uint64_t off = 0, dropped = 0;
	int warned = 0;

	r->data = data;
	r->len = len;
	r->counts.bytes = len;
	if (!etl_probe(data, len) || read_trace_header(r) != 0) {
		set_error(r, 0, "not an ETL file");
		return ETL_FATAL;
	}
	while (off + BUF_HEADER_LEN <= len) {
		off = index_buffer(r, off, &warned);
		/* Faults map whole 64 KiB runs: let go of them as we pass. */
		if (r->drop_pages && off - dropped >= DROP_STEP && off <= len) {
			platform_drop_pages(r->data + dropped, off - dropped);
			dropped = off;
		}
	}
	if (off < len) {
		set_error(r, off, "%llu trailing bytes after the last buffer",
		    (unsigned long long)(len - off));
		r->counts.bad_buffer_bytes += len - off;
		warned = 1;
	}
	if (r->nbufs > 1)
		qsort(r->bufs, r->nbufs, sizeof(*r->bufs), cmp_first_ts);
	/* The index pass touched a page of every buffer. */
	if (r->drop_pages)
		platform_drop_pages(r->data, r->len);
	return warned ? ETL_WARN : ETL_OK;
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
	size = parse_event(ob->data + ob->pos, ob->end - ob->pos, &ob->cur);
	if (size == 0)
		return 0;
	if (size < 0) {
		uint64_t at = ob->idx->off + ((ob->idx->flags & FLAG_COMPRESSED)
		    ? 0 : ob->pos);

		set_error(r, at, "corrupt event header in %sbuffer at 0x%llx, "
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
	set_error(r, bi->off, "compressed buffers overlapping in time need "
	    "more than %u MiB at once: buffer at 0x%llx skipped, %u bytes",
	    MAX_OPEN_BYTES >> 20, (unsigned long long)bi->off, bi->size);
	count_bad_buffer(r, bi->off, bi->size);
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
		set_error(r, bi->off, "out of memory for a compressed buffer of "
		    "%u bytes: skipped", bi->filled);
		count_bad_buffer(r, bi->off, bi->size);
		return -1;
	}
	if (!may_hold(r, ob, bi, s->cap))
		return -1;
	if (s->result != (long)want) {
		set_error(r, bi->off + BUF_HEADER_LEN + s->detail,
		    "corrupt compressed buffer at 0x%llx, %u bytes skipped",
		    (unsigned long long)bi->off, bi->size);
		count_bad_buffer(r, bi->off, bi->size);
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

struct handed;
static enum etl_status merge_hand(struct etl_reader *, struct handed *);

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
	(void)parse_event(h->p, h->avail, ev);
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
