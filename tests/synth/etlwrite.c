/*
 * etlwrite.c - buffers, event headers and the trace header of an .etl
 * file (etl-format.md sections 1, 2 and 3).
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/lzxpress.h"
#include "etlwrite.h"

/* Section 1.5. */
#define BUFFER_FLAG_FLUSH_MARKER	0x0001
#define BUFFER_FLAG_EVENTS_LOST		0x0002
#define BUFFER_FLAG_PROC_INDEX		0x0020
#define BUFFER_FLAG_COMPRESSED		0x0040
#define BUFFER_TYPE_GENERIC		0
#define BUFFER_TYPE_HEADER		4
#define BUFFER_STATE_FLUSH		3

/* Section 3.1: header types and their lengths. */
#define TYPE_SYSTEM32		0x01
#define TYPE_SYSTEM64		0x02
#define TYPE_FULL32		0x0a
#define TYPE_PERFINFO32		0x10
#define TYPE_PERFINFO64		0x11
#define TYPE_FULL64		0x14
#define MARKER_FLAGS		0xc0
#define SYSTEM_HEADER_LEN	0x20
#define PERFINFO_HEADER_LEN	0x10
#define FULL_HEADER_LEN		0x30
#define EVENT_HEADER_LEN	0x50
#define MAX_EVENT_SIZE		0xffff

/* Section 2. */
#define TRACE_HEADER_HOOK	0x0000
#define TRACE_HEADER_VERSION	2
#define LOG_FILE_MODE_SEQUENTIAL	0x00000001
#define LOG_FILE_MODE_COMPRESSED	0x04000000
#define CLOCK_TYPE_QPC		1
#define QPC_FREQUENCY		10000000	/* 100 ns, as FILETIME */
#define TIMER_RESOLUTION	156250
#define HEADER_BUFFER_GRAIN	0x200

static void
put16(unsigned char *p, unsigned v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void
put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void
put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static unsigned char *
payload_grow(struct etlw_payload *p, size_t n)
{
	unsigned char *at;

	/* Payload sizes are fixed by the layouts; overrunning is a bug. */
	assert(p->len + n <= sizeof(p->bytes));
	at = p->bytes + p->len;
	p->len += n;
	return at;
}

void
payload_start(struct etlw_payload *p, int pointer_size)
{
	p->len = 0;
	p->pointer_size = pointer_size;
}

void
payload_u8(struct etlw_payload *p, unsigned v)
{
	*payload_grow(p, 1) = v & 0xff;
}

void
payload_u16(struct etlw_payload *p, unsigned v)
{
	put16(payload_grow(p, 2), v);
}

void
payload_u32(struct etlw_payload *p, uint32_t v)
{
	put32(payload_grow(p, 4), v);
}

void
payload_u64(struct etlw_payload *p, uint64_t v)
{
	put64(payload_grow(p, 8), v);
}

void
payload_ptr(struct etlw_payload *p, uint64_t v)
{
	if (p->pointer_size == 4)
		payload_u32(p, (uint32_t)v);
	else
		payload_u64(p, v);
}

void
payload_guid(struct etlw_payload *p, const struct etl_guid *g)
{
	payload_u32(p, g->data1);
	payload_u16(p, g->data2);
	payload_u16(p, g->data3);
	memcpy(payload_grow(p, 8), g->data4, 8);
}

void
payload_zeros(struct etlw_payload *p, size_t n)
{
	memset(payload_grow(p, n), 0, n);
}

/*
 * --rename old=new: each string of the trace has every `old` in it
 * replaced by `new`, the renames in the order given, so that a test
 * can make a hostile trace (a process called "=1+1").  Test code: the
 * list is the program's, set once before the trace is written.
 */
#define RENAMES_MAX	16
#define RENAMED_MAX	1024

static const char *rename_old[RENAMES_MAX], *rename_new[RENAMES_MAX];
static size_t nrenames;

int
etlw_rename(const char *old, const char *new)
{
	if (nrenames == RENAMES_MAX || *old == '\0')
		return -1;
	rename_old[nrenames] = old;
	rename_new[nrenames++] = new;
	return 0;
}

/* s with the renames done, in a buffer of the caller's. */
static const char *
renamed(const char *s, char out[RENAMED_MAX])
{
	char tmp[RENAMED_MAX];
	const char *hit, *from;
	size_t i, len, olen;

	for (i = 0; i < nrenames; i++) {
		if (strstr(s, rename_old[i]) == NULL)
			continue;
		olen = strlen(rename_old[i]);
		for (len = 0, from = s; len < sizeof(tmp) &&
		    (hit = strstr(from, rename_old[i])) != NULL;
		    from = hit + olen)
			len += (size_t)snprintf(tmp + len, sizeof(tmp) - len,
			    "%.*s%s", (int)(hit - from), from, rename_new[i]);
		if (len < sizeof(tmp))
			snprintf(tmp + len, sizeof(tmp) - len, "%s", from);
		memcpy(out, tmp, strlen(tmp) + 1);
		s = out;
	}
	return s;
}

void
payload_ansi(struct etlw_payload *p, const char *s)
{
	char buf[RENAMED_MAX];
	size_t n;

	s = renamed(s, buf);
	n = strlen(s) + 1;

	memcpy(payload_grow(p, n), s, n);
}

void
payload_utf16(struct etlw_payload *p, const char *s)
{
	char buf[RENAMED_MAX];

	s = renamed(s, buf);
	do
		payload_u16(p, (unsigned char)*s);
	while (*s++ != '\0');
}

void
payload_utf16_array(struct etlw_payload *p, const char *s, size_t nchars)
{
	size_t i;

	for (i = 0; i < nchars && s[i] != '\0'; i++)
		payload_u16(p, (unsigned char)s[i]);
	payload_zeros(p, 2 * (nchars - i));
}

static void
write_bytes(struct etl_writer *w, const void *data, size_t n)
{
	if (w->failed)
		return;
	if (fwrite(data, 1, n, w->fp) != n) {
		w->failed = 1;
		w->error = errno != 0 ? errno : EIO;
		return;
	}
	w->bytes += n;
}

/* A TIME_ZONE_INFORMATION for Central Europe, with its DST rules. */
static void
payload_time_zone(struct etlw_payload *p)
{
	static const unsigned standard_date[8] = { 0, 10, 0, 5, 3, 0, 0, 0 };
	static const unsigned daylight_date[8] = { 0, 3, 0, 5, 2, 0, 0, 0 };
	int i;

	payload_u32(p, (uint32_t)-60);
	payload_utf16_array(p, "W. Europe Standard Time", 32);
	for (i = 0; i < 8; i++)
		payload_u16(p, standard_date[i]);
	payload_u32(p, 0);
	payload_utf16_array(p, "W. Europe Daylight Time", 32);
	for (i = 0; i < 8; i++)
		payload_u16(p, daylight_date[i]);
	payload_u32(p, (uint32_t)-60);
}

static uint32_t
trace_version(const struct etl_writer *w)
{
	/* Windows 10.0; log layout 2.0 with compression, else 1.5. */
	if (w->info.compress)
		return 10 | 0 << 8 | 2 << 16 | 0 << 24;
	return 10 | 0 << 8 | 1 << 16 | 5u << 24;
}

static uint32_t
log_file_mode(const struct etl_writer *w)
{
	if (w->info.compress)
		return LOG_FILE_MODE_SEQUENTIAL | LOG_FILE_MODE_COMPRESSED;
	return LOG_FILE_MODE_SEQUENTIAL;
}

/* The TRACE_LOGFILE_HEADER payload with the writer's current counts. */
static void
trace_header_payload(const struct etl_writer *w, struct etlw_payload *p)
{
	const struct etlw_trace_info *in = &w->info;
	uint64_t end_filetime;

	end_filetime = in->start_filetime + (w->last_ts - in->start_qpc);
	payload_start(p, in->pointer_size);
	payload_u32(p, ETLW_BUFFER_SIZE);
	payload_u32(p, trace_version(w));
	payload_u32(p, in->os_build);
	payload_u32(p, (uint32_t)in->ncpus);
	payload_u64(p, end_filetime);
	payload_u32(p, TIMER_RESOLUTION);
	payload_u32(p, 0);			/* MaximumFileSize */
	payload_u32(p, log_file_mode(w));
	payload_u32(p, (uint32_t)w->buffers);
	payload_u32(p, 1);			/* StartBuffers */
	payload_u32(p, (uint32_t)in->pointer_size);
	payload_u32(p, (uint32_t)w->events_lost);
	payload_u32(p, in->cpu_mhz);
	payload_ptr(p, 0);		/* LoggerName, not a pointer */
	payload_ptr(p, 0);			/* LogFileName */
	payload_time_zone(p);
	payload_zeros(p, 4);
	/* QPC counts from boot in FILETIME units, so boot is T0 ticks ago. */
	payload_u64(p, in->start_filetime - in->start_qpc);
	payload_u64(p, QPC_FREQUENCY);
	payload_u64(p, in->start_filetime);
	payload_u32(p, CLOCK_TYPE_QPC);
	payload_u32(p, 0);			/* BuffersLost */
	payload_utf16(p, in->logger_name);
	payload_utf16(p, in->log_file_name);
}

static size_t
put_system_header(const struct etl_writer *w, unsigned char *h,
    unsigned hook, unsigned version, uint32_t pid, uint32_t tid,
    uint64_t ts, size_t payload_len)
{
	size_t size = SYSTEM_HEADER_LEN + payload_len;

	assert(size <= MAX_EVENT_SIZE);
	put16(h, version);
	h[2] = w->info.pointer_size == 4 ? TYPE_SYSTEM32 : TYPE_SYSTEM64;
	h[3] = MARKER_FLAGS;
	put16(h + 4, (unsigned)size);
	put16(h + 6, hook);
	put32(h + 8, tid);
	put32(h + 12, pid);
	put64(h + 16, ts);
	put32(h + 24, 0);			/* KernelTime */
	put32(h + 28, 0);			/* UserTime */
	return SYSTEM_HEADER_LEN;
}

static size_t
put_perfinfo_header(const struct etl_writer *w, unsigned char *h,
    unsigned hook, unsigned version, uint64_t ts, size_t payload_len)
{
	size_t size = PERFINFO_HEADER_LEN + payload_len;

	assert(size <= MAX_EVENT_SIZE);
	put16(h, version);
	h[2] = w->info.pointer_size == 4 ? TYPE_PERFINFO32 : TYPE_PERFINFO64;
	h[3] = MARKER_FLAGS;
	put16(h + 4, (unsigned)size);
	put16(h + 6, hook);
	put64(h + 8, ts);
	return PERFINFO_HEADER_LEN;
}

static size_t
put_full_header(const struct etl_writer *w, unsigned char *h,
    const struct etl_guid *guid, unsigned opcode, unsigned version,
    uint32_t pid, uint32_t tid, uint64_t ts, size_t payload_len)
{
	size_t size = FULL_HEADER_LEN + payload_len;

	assert(size <= MAX_EVENT_SIZE);
	put16(h, (unsigned)size);
	h[2] = w->info.pointer_size == 4 ? TYPE_FULL32 : TYPE_FULL64;
	h[3] = MARKER_FLAGS;
	h[4] = opcode & 0xff;
	h[5] = 0;				/* Level */
	put16(h + 6, version);
	put32(h + 8, tid);
	put32(h + 12, pid);
	put64(h + 16, ts);
	put32(h + 24, guid->data1);
	put16(h + 28, guid->data2);
	put16(h + 30, guid->data3);
	memcpy(h + 32, guid->data4, 8);
	put32(h + 40, 0);			/* KernelTime */
	put32(h + 44, 0);			/* UserTime */
	return FULL_HEADER_LEN;
}

static void
put_buffer_header(unsigned char *b, uint32_t size, uint32_t filled,
    uint64_t ts, uint64_t sequence, unsigned cpu, unsigned flags,
    unsigned type)
{
	memset(b, 0, ETLW_BUFFER_HEADER);
	put32(b + 0x00, size);
	put32(b + 0x04, filled);		/* SavedOffset */
	put32(b + 0x08, filled);		/* CurrentOffset */
	put64(b + 0x10, ts);
	put64(b + 0x18, sequence);
	put16(b + 0x28, cpu);			/* ProcessorIndex */
	put16(b + 0x2a, 0);			/* LoggerId */
	put32(b + 0x2c, BUFFER_STATE_FLUSH);
	put32(b + 0x30, filled);		/* Offset */
	put16(b + 0x34, flags);
	put16(b + 0x36, type);
}

/*
 * Builds the header buffer: the trace header event and 0xFF filler.  It is
 * written once at the start and again, the same size, by etlw_close().
 */
static void
build_header_buffer(const struct etl_writer *w, unsigned char *b)
{
	struct etlw_payload p;
	unsigned char *ev = b + ETLW_BUFFER_HEADER;
	size_t hlen, filled;

	trace_header_payload(w, &p);
	hlen = put_system_header(w, ev, TRACE_HEADER_HOOK,
	    TRACE_HEADER_VERSION, w->info.header_pid, w->info.header_tid,
	    w->info.start_qpc, p.len);
	memcpy(ev + hlen, p.bytes, p.len);
	filled = ETLW_BUFFER_HEADER + align8(hlen + p.len);
	memset(ev + hlen + p.len, 0,
	    filled - ETLW_BUFFER_HEADER - hlen - p.len);
	memset(b + filled, 0xff, w->header_buffer_size - filled);
	put_buffer_header(b, (uint32_t)w->header_buffer_size, (uint32_t)filled,
	    0, 0, 0, BUFFER_FLAG_FLUSH_MARKER, BUFFER_TYPE_HEADER);
}

/* Real relogged files have a header buffer of 0x200 or 0x400 bytes. */
static size_t
header_buffer_size(const struct etl_writer *w)
{
	struct etlw_payload p;
	size_t used;

	trace_header_payload(w, &p);
	used = ETLW_BUFFER_HEADER + align8(SYSTEM_HEADER_LEN + p.len);
	return (used + HEADER_BUFFER_GRAIN - 1) / HEADER_BUFFER_GRAIN *
	    HEADER_BUFFER_GRAIN;
}

static int
alloc_buffers(struct etl_writer *w)
{
	int i;

	w->cpu = calloc((size_t)w->info.ncpus, sizeof(*w->cpu));
	w->hook_counts = calloc(65536, sizeof(*w->hook_counts));
	w->packed_cap = lzxpress_bound(ETLW_BUFFER_SIZE);
	w->packed = malloc(w->packed_cap);
	if (w->cpu == NULL || w->hook_counts == NULL || w->packed == NULL)
		return -1;
	for (i = 0; i < w->info.ncpus; i++) {
		w->cpu[i].data = malloc(ETLW_BUFFER_SIZE);
		if (w->cpu[i].data == NULL)
			return -1;
	}
	return 0;
}

int
etlw_open(struct etl_writer *w, FILE *fp, const struct etlw_trace_info *info)
{
	unsigned char header[ETLW_BUFFER_SIZE];

	memset(w, 0, sizeof(*w));
	w->fp = fp;
	w->info = *info;
	w->last_ts = info->start_qpc;
	w->next_sequence = 1;
	if (alloc_buffers(w) == -1) {
		etlw_release(w);
		errno = ENOMEM;
		return -1;
	}
	w->header_buffer_size = header_buffer_size(w);
	w->events = 1;
	w->buffers = 1;
	w->hook_counts[TRACE_HEADER_HOOK] = 1;
	build_header_buffer(w, header);
	write_bytes(w, header, w->header_buffer_size);
	if (w->failed) {
		errno = w->error;
		return -1;
	}
	return 0;
}

/* Writes the buffer compressed when that makes it smaller (section 1.6). */
static void
write_compressed(struct etl_writer *w, struct etlw_cpu_buffer *cb,
    unsigned cpu, unsigned flags)
{
	long n;

	n = lzxpress_compress(cb->data + ETLW_BUFFER_HEADER,
	    cb->used - ETLW_BUFFER_HEADER, w->packed, w->packed_cap);
	if (n < 0 || ETLW_BUFFER_HEADER + (size_t)n >= ETLW_BUFFER_SIZE) {
		memset(cb->data + cb->used, 0xff, ETLW_BUFFER_SIZE - cb->used);
		write_bytes(w, cb->data, ETLW_BUFFER_SIZE);
		return;
	}
	put_buffer_header(cb->data, ETLW_BUFFER_HEADER + (uint32_t)n,
	    (uint32_t)cb->used, cb->last_ts, cb->sequence, cpu,
	    flags | BUFFER_FLAG_COMPRESSED, BUFFER_TYPE_GENERIC);
	write_bytes(w, cb->data, ETLW_BUFFER_HEADER);
	write_bytes(w, w->packed, (size_t)n);
	w->compressed_buffers++;
}

static void
flush_buffer(struct etl_writer *w, int cpu)
{
	struct etlw_cpu_buffer *cb = &w->cpu[cpu];
	unsigned flags = BUFFER_FLAG_PROC_INDEX | cb->lost_flags;

	if (cb->used == 0)
		return;
	put_buffer_header(cb->data, ETLW_BUFFER_SIZE, (uint32_t)cb->used,
	    cb->last_ts, cb->sequence, (unsigned)cpu, flags,
	    BUFFER_TYPE_GENERIC);
	if (w->info.compress)
		write_compressed(w, cb, (unsigned)cpu, flags);
	else {
		memset(cb->data + cb->used, 0xff, ETLW_BUFFER_SIZE - cb->used);
		write_bytes(w, cb->data, ETLW_BUFFER_SIZE);
	}
	w->buffers++;
	cb->used = 0;
	cb->lost_flags = 0;
}

/*
 * Finds room for an event of `size` bytes in the buffer of `cpu`.  Like
 * the kernel, a buffer takes its sequence number when it is first used,
 * so flush order and sequence order differ.
 */
static unsigned char *
reserve(struct etl_writer *w, int cpu, size_t size, uint64_t ts)
{
	struct etlw_cpu_buffer *cb = &w->cpu[cpu];
	unsigned char *at;

	assert(cpu >= 0 && cpu < w->info.ncpus);
	assert(ts >= cb->last_ts);
	if (cb->used + align8(size) > ETLW_BUFFER_SIZE)
		flush_buffer(w, cpu);
	if (cb->used == 0) {
		cb->used = ETLW_BUFFER_HEADER;
		cb->sequence = w->next_sequence++;
	}
	at = cb->data + cb->used;
	memset(at + size, 0, align8(size) - size);
	cb->used += align8(size);
	cb->last_ts = ts;
	if (ts > w->last_ts)
		w->last_ts = ts;
	w->events++;
	return at;
}

void
etlw_system(struct etl_writer *w, int cpu, unsigned hook, unsigned version,
    uint32_t pid, uint32_t tid, uint64_t ts, const struct etlw_payload *p)
{
	unsigned char *at;
	size_t hlen;

	if (w->failed)
		return;
	at = reserve(w, cpu, SYSTEM_HEADER_LEN + p->len, ts);
	hlen = put_system_header(w, at, hook, version, pid, tid, ts, p->len);
	memcpy(at + hlen, p->bytes, p->len);
	w->hook_counts[hook & 0xffff]++;
}

void
etlw_perfinfo(struct etl_writer *w, int cpu, unsigned hook, unsigned version,
    uint64_t ts, const struct etlw_payload *p)
{
	unsigned char *at;
	size_t hlen;

	if (w->failed)
		return;
	at = reserve(w, cpu, PERFINFO_HEADER_LEN + p->len, ts);
	hlen = put_perfinfo_header(w, at, hook, version, ts, p->len);
	memcpy(at + hlen, p->bytes, p->len);
	w->hook_counts[hook & 0xffff]++;
}

static struct etlw_guid_count *
guid_count(struct etl_writer *w, const struct etl_guid *guid)
{
	int i;

	for (i = 0; i < w->nguids; i++)
		if (memcmp(&w->guid_counts[i].guid, guid, sizeof(*guid)) == 0)
			return &w->guid_counts[i];
	assert(w->nguids < ETLW_MAX_GUIDS);
	w->guid_counts[w->nguids].guid = *guid;
	return &w->guid_counts[w->nguids++];
}

void
etlw_full(struct etl_writer *w, int cpu, const struct etl_guid *guid,
    unsigned opcode, unsigned version, uint32_t pid, uint32_t tid,
    uint64_t ts, const struct etlw_payload *p)
{
	unsigned char *at;
	size_t hlen;

	if (w->failed)
		return;
	at = reserve(w, cpu, FULL_HEADER_LEN + p->len, ts);
	hlen = put_full_header(w, at, guid, opcode, version, pid, tid, ts,
	    p->len);
	memcpy(at + hlen, p->bytes, p->len);
	guid_count(w, guid)->per_opcode[opcode & 0xff]++;
}

void
etlw_event(struct etl_writer *w, int cpu, const struct etl_guid *guid,
    unsigned id, unsigned version, uint32_t pid, uint32_t tid, uint64_t ts,
    const struct etlw_payload *p)
{
	size_t size = EVENT_HEADER_LEN + p->len;
	unsigned char *h;

	if (w->failed)
		return;
	assert(size <= MAX_EVENT_SIZE);
	h = reserve(w, cpu, size, ts);
	memset(h, 0, EVENT_HEADER_LEN);
	put16(h, (unsigned)size);
	put16(h + 2, w->info.pointer_size == 4 ? 0xc012 : 0xc013);
	put32(h + 8, tid);
	put32(h + 12, pid);
	put64(h + 16, ts);
	put32(h + 24, guid->data1);
	put16(h + 28, guid->data2);
	put16(h + 30, guid->data3);
	memcpy(h + 32, guid->data4, 8);
	put16(h + 40, id);			/* EventDescriptor */
	h[42] = version & 0xff;
	memcpy(h + EVENT_HEADER_LEN, p->bytes, p->len);
	/* Counted per event id, in place of the opcode (always 0 here). */
	guid_count(w, guid)->per_opcode[id & 0xff]++;
}

void
etlw_lost(struct etl_writer *w, int cpu, uint64_t n)
{
	w->events_lost += n;
	w->cpu[cpu].lost_flags = BUFFER_FLAG_EVENTS_LOST;
}

int
etlw_close(struct etl_writer *w)
{
	unsigned char header[ETLW_BUFFER_SIZE];
	uint64_t size;
	int i;

	for (i = 0; i < w->info.ncpus; i++)
		flush_buffer(w, i);
	build_header_buffer(w, header);
	if (!w->failed && fseek(w->fp, 0L, SEEK_SET) != 0) {
		w->failed = 1;
		w->error = errno;
	}
	/* Rewriting the header buffer in place does not grow the file. */
	size = w->bytes;
	write_bytes(w, header, w->header_buffer_size);
	w->bytes = size;
	if (!w->failed && fflush(w->fp) != 0) {
		w->failed = 1;
		w->error = errno;
	}
	return w->failed ? -1 : 0;
}

void
etlw_release(struct etl_writer *w)
{
	int i;

	if (w->cpu != NULL)
		for (i = 0; i < w->info.ncpus; i++)
			free(w->cpu[i].data);
	free(w->cpu);
	free(w->hook_counts);
	free(w->packed);
	w->cpu = NULL;
	w->hook_counts = NULL;
	w->packed = NULL;
}
