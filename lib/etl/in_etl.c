/*
 * in_etl.c - the buffers and event headers of an .etl file.
 *
 * Pass 1 (open): walk the buffers back to back (etl-format.md 1.1), check
 * each header, note its processor, fill size and first timestamp, and
 * read the trace header (section 2) from the first event of the file.
 * Pass 2 (next), in in_etl_merge.c: the buffers, sorted by first
 * timestamp, are opened as the merge reaches their start and closed
 * when walked to the end; a binary heap over the open buffers yields
 * events in time order (1.8).  Within a buffer events are already in
 * order, so memory stays bounded by the buffers that overlap in time,
 * not by the size of the file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/platform.h"
#include "base/utf.h"
#include "in_etl_state.h"
#include "lzxpress.h"

#define FLAG_EVENTS_LOST 0x0002
#define FLAG_BUFFER_LOST 0x0004
#define FLAG_PROC_INDEX	0x0020
#define MAX_FILLED	(64u << 20)	/* a decompressed buffer, at most */
/*
 * A compressed buffer may claim at most this many times its compressed
 * bytes (plus a page): real ones reach 13 (net.4.5.2.x64), and the claim
 * bounds both the memory and the time its decompression takes, so that
 * a small file cannot ask for gigabytes (etl-format.md 1.6).
 */
#define MAX_RATIO	64u
#define RATIO_SLACK	4096u
#define PEEK_LEN	256		/* bytes decompressed to find a time */
/*
 * Bytes read of a buffer to index it: the header and what its first time
 * depends on, which for a compressed buffer is under 300 bytes of LZ77
 * for PEEK_LEN bytes out (255 literals, their flag words, one match).
 * Reading 4 KiB took a quarter longer (0.13 against 0.10 s for the 81 k
 * buffers of a 1 GiB trace).
 */
#define INDEX_WINDOW	1024
#define MAX_WNODE	0x10000		/* an event is at most 64 KiB (3.9) */
#define DROP_STEP	(16u << 20)	/* mapped bytes let go of at once */

void
etl_set_error(struct etl_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	char what[200];

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "%s (offset 0x%llx)", what,
	    (unsigned long long)offset);
}

void
etl_count_bad_buffer(struct etl_reader *r, uint64_t off, uint64_t bytes)
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

/*
 * Clears what a header sets, field by field, which compilers store a
 * word or a vector at a time: a memset() of the same 104 bytes became a
 * `rep stos`, 5 to 8 ns here against 1.7 ns for the stores, once for
 * each event of a trace.  Where the event lies (offset, order) is the
 * caller's.
 */
static inline void
clear_event(struct etl_event *ev)
{
	ev->hdr = 0;
	ev->header_type = ev->ptr_size = 0;
	ev->cpu = 0;
	ev->ts = 0;
	ev->pid = ev->tid = ETL_NO_ID;
	ev->hook = 0;
	ev->version = 0;
	memset(ev->guid, 0, sizeof(ev->guid));
	ev->id = 0;
	ev->opcode = ev->level = ev->channel = 0;
	ev->task = 0;
	ev->keyword = 0;
	ev->flags = 0;
	ev->ext = NULL;
	ev->ext_len = 0;
	ev->payload = NULL;
	ev->payload_len = 0;
}

/*
 * Parses the event header at p (section 3.1 to 3.9) into *ev.
 * @return : the event's size (before alignment), 0 for the end-of-data
 *	marker, or -1 if the header is not one we know or lies about its size.
 */
long
etl_parse_event(const unsigned char *p, size_t avail, struct etl_event *ev)
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
	clear_event(ev);
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
	size = etl_parse_event(buf + BUF_HEADER_LEN, filled - BUF_HEADER_LEN, &ev);
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
	while (*pos + 4 <= len && (size = etl_parse_event(p + *pos, len - *pos,
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
			etl_set_error(r, bi->off + 0x30, "compressed buffer with an "
			    "impossible fill size %u, %u bytes skipped",
			    bi->filled, bi->size);
			return -1;
		}
		if (bi->filled > max_filled(bi->size)) {
			etl_set_error(r, bi->off + 0x30, "compressed buffer claims "
			    "%u bytes from %u, more than %u times: %u bytes "
			    "skipped", bi->filled, bi->size, MAX_RATIO, bi->size);
			return -1;
		}
		return 0;
	}
	if (bi->filled > bi->size)
		bi->filled = bi->size;
	if (bi->filled < BUF_HEADER_LEN) {
		etl_set_error(r, bi->off + 0x30, "buffer fill size %u is smaller "
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
			etl_set_error(r, off, "corrupt buffer header, %llu bytes "
			    "skipped", (unsigned long long)(next - off));
			etl_count_bad_buffer(r, off, next - off);
			return next;
		}
		/* A last buffer cut short by the end of the file. */
		if (le16(b + 0x34) & FLAG_COMPRESSED) {
			/* Half an LZ77 stream is no use: skip it. */
			etl_set_error(r, off, "truncated compressed buffer: %u of "
			    "%u bytes skipped", (unsigned)left, size);
			etl_count_bad_buffer(r, off, left);
			return r->len;
		}
		etl_set_error(r, off, "truncated buffer: %u of %u bytes",
		    (unsigned)left, size);
		etl_count_bad_buffer(r, off, size - left);
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
			etl_count_bad_buffer(r, off, bi.size);
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
		etl_set_error(r, 0, "not an ETL file");
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
		etl_set_error(r, off, "%llu trailing bytes after the last buffer",
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

