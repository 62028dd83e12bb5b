/*
 * in_etl.h - reads the raw events of a Windows ETW .etl file, in time order.
 *
 * Implements etl-format.md sections 1 to 4: buffers (with MS-XCA
 * compressed ones), the event header kinds, the trace header, and the
 * merge of the per-processor buffers into one time-ordered sequence.
 * It does not interpret payloads; etw_decode does.
 *
 * Use: etl_reader_open_mem(), then etl_reader_next() until ETL_EOF, then
 * etl_reader_free().  The file's bytes belong to the caller and must
 * outlive the reader.  An event returned by etl_reader_next() points into
 * the file or into the reader's decompressed buffers; it stays valid
 * until the next call.
 *
 * Memory: an index of 32 bytes per buffer, plus the buffers whose time
 * ranges overlap the current time (decompressed ones are copied).  Every
 * size in the file is checked: a buffer's fill against its header and
 * its size, an event's size against its buffer (64 KiB at most), and a
 * compressed buffer may claim at most 64 times its bytes plus 4 KiB (64
 * MiB at most), so that decompressing takes time and memory linear in
 * the file; the buffers open at once hold at most 512 MiB decompressed.
 * What breaks a limit is skipped and reported (ETL_WARN), not allocated.
 */
#ifndef IN_ETL_H
#define IN_ETL_H

#include <stddef.h>
#include <stdint.h>

enum etl_status {
	ETL_OK = 0,
	ETL_EOF = 1,
	ETL_WARN = 2,		/* something was skipped; go on */
	ETL_FATAL = -1		/* not an .etl file, or nothing readable */
};

/* Header kinds, etl-format.md 3.1. */
enum etl_hdr {
	ETL_HDR_SYSTEM = 1,	/* SYSTEM_TRACE_HEADER, full or compact */
	ETL_HDR_PERFINFO,	/* PERFINFO_TRACE_HEADER: no pid/tid */
	ETL_HDR_FULL,		/* EVENT_TRACE_HEADER (classic, GUID) */
	ETL_HDR_INSTANCE,	/* EVENT_INSTANCE_GUID_HEADER */
	ETL_HDR_EVENT,		/* EVENT_HEADER (manifest, TraceLogging) */
	ETL_HDR_MESSAGE,	/* MESSAGE_TRACE_HEADER (WPP) */
	ETL_HDR_WNODE,		/* legacy WNODE_HEADER block */
	ETL_HDR_ERROR		/* the 0xC00D "error" header */
};

#define ETL_NO_ID 0xffffffffu	/* pid or tid the header does not carry */

/* A field added before `offset` is cleared in clear_event() too (in_etl.c). */
struct etl_event {
	enum etl_hdr hdr;
	uint8_t header_type;	/* the marker's type byte (0x01 ... 0x15) */
	uint8_t ptr_size;	/* 4 or 8, from the header type */
	uint16_t cpu;
	uint64_t ts;		/* raw session clock */
	uint32_t pid, tid;	/* ETL_NO_ID if the header has none */
	/* Classic kernel events (SYSTEM/PERFINFO): HookId. */
	uint16_t hook;
	uint8_t version;	/* payload version */
	/* FULL/INSTANCE/EVENT headers. */
	unsigned char guid[16];
	uint16_t id;		/* EVENT_HEADER descriptor id */
	uint8_t opcode, level, channel;
	uint16_t task;
	uint64_t keyword;
	uint16_t flags;		/* EVENT_HEADER Flags */
	const unsigned char *ext;	/* EVENT_HEADER extended items */
	size_t ext_len;
	const unsigned char *payload;
	size_t payload_len;
	uint64_t offset;	/* file offset of the event or its buffer */
	uint32_t order;		/* buffer's file order, for stable ties */
};

/* The trace header event (section 2), in its fields' own units. */
struct etl_header {
	uint32_t buffer_size, version, provider_version, cpus;
	uint64_t end_time, boot_time, perf_freq, start_time;
	uint32_t timer_resolution, max_file_size, log_file_mode;
	uint32_t buffers_written, start_buffers, pointer_size, events_lost;
	uint32_t cpu_mhz, clock_type, buffers_lost;
	int32_t tz_bias;
	uint64_t t0;		/* the header event's own timestamp */
	char logger_name[128];
	char log_file_name[260];
};

struct etl_reader;

/* @return : NULL if out of memory. */
struct etl_reader *etl_reader_new(void);
void etl_reader_free(struct etl_reader *r);

/*
 * Opens `len` bytes of an .etl file: indexes its buffers and reads the
 * trace header.  Messages (etl_reader_error()) give offsets; the caller
 * names the file.
 * @return : ETL_OK, ETL_WARN (some buffers unreadable; see the error
 *	text and the counters), or ETL_FATAL (not an .etl file).
 */
enum etl_status etl_reader_open_mem(struct etl_reader *r,
    const unsigned char *data, size_t len);

/*
 * etl_reader_open_mem() on a file platform_map_file_for_reads() gave (or
 * platform_map_file(), with no gain), which must
 * stay mapped until the reader is freed.  The index pass reads the head
 * of each buffer instead of touching the mapping, and the pages read
 * are dropped as with etl_reader_drop_pages().
 */
struct mapped_file;
enum etl_status etl_reader_open_file(struct etl_reader *r,
    const struct mapped_file *m);

const struct etl_header *etl_reader_header(const struct etl_reader *r);

/*
 * Says that the bytes given to etl_reader_open_mem() are a read-only
 * file mapping, whose pages the reader may drop once it has read them,
 * so that memory stays flat however large the file.
 */
void etl_reader_drop_pages(struct etl_reader *r, int on);

/*
 * Whether the reader may decompress buffers (or fault in their pages)
 * on a second thread ahead of the merge (ahead.h); on unless turned
 * off.  The events and messages are the same either way.
 */
void etl_reader_threads(struct etl_reader *r, int on);

/*
 * The next event in time order.
 * @return : ETL_OK with *ev filled, ETL_WARN when a buffer or an event
 *	was skipped (*ev is not filled; call again), or ETL_EOF.
 */
enum etl_status etl_reader_next(struct etl_reader *r, struct etl_event *ev);

/* The message of the last ETL_WARN or ETL_FATAL: "what (offset 0x...)". */
const char *etl_reader_error(const struct etl_reader *r);

/* Counters of what the reader met, for the stream's diagnostics. */
struct etl_counts {
	uint64_t buffers, compressed, events;
	uint64_t bad_buffers, bad_buffer_bytes;	/* skipped buffers */
	uint64_t bad_events, bad_event_bytes;	/* skipped event tails */
	uint64_t first_bad_offset;
	uint64_t lost_flagged;	/* buffers flagged EVENTS_LOST/BUFFER_LOST */
	uint64_t bytes;		/* file size */
};
const struct etl_counts *etl_reader_counts(const struct etl_reader *r);

/*
 * How far the walk is: buffers opened so far, and in *total all there
 * are (for a progress line).
 */
size_t etl_reader_buffers_opened(const struct etl_reader *r, size_t *total);

/* Whether the first bytes look like an .etl file (for format detection). */
int etl_probe(const unsigned char *data, size_t len);

#endif
