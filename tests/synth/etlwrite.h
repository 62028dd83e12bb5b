/*
 * etlwrite.h - writes an .etl file the way the Windows kernel logger does
 * (etl-format.md sections 1 to 3): a small header buffer holding the trace
 * header event, then 64 KiB per-processor buffers, each flushed to the
 * file when the next event does not fit, optionally compressed with
 * MS-XCA plain LZ77.
 *
 * The caller builds a payload with the payload_*() functions and hands it
 * to etlw_system(), etlw_perfinfo() or etlw_full(), which add the header
 * kind's header, place the event 8-byte aligned in the buffer of its
 * processor and count it.  Events given to one processor must come in
 * non-decreasing timestamp order.
 *
 * Errors latch: after a failed write every call does nothing, `failed` is
 * set and `error` holds the errno.  etlw_close() flushes the remaining
 * buffers and rewrites the header buffer with the final counts, so the
 * output must be a seekable file.
 */
#ifndef ETLWRITE_H
#define ETLWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ETLW_BUFFER_SIZE	0x10000
#define ETLW_BUFFER_HEADER	0x48
#define ETLW_PAYLOAD_MAX	(16384 + 64)	/* a heap snapshot chunk */
#define ETLW_MAX_GUIDS		4

/* A GUID in Windows layout: Data1-3 little-endian, Data4 as is. */
struct etl_guid {
	uint32_t	data1;
	uint16_t	data2;
	uint16_t	data3;
	unsigned char	data4[8];
};

/* An event payload under construction; fields are packed, no padding. */
struct etlw_payload {
	unsigned char	bytes[ETLW_PAYLOAD_MAX];
	size_t		len;
	int		pointer_size;
};

void	payload_start(struct etlw_payload *p, int pointer_size);
void	payload_u8(struct etlw_payload *p, unsigned v);
void	payload_u16(struct etlw_payload *p, unsigned v);
void	payload_u32(struct etlw_payload *p, uint32_t v);
void	payload_u64(struct etlw_payload *p, uint64_t v);
/* A pointer-sized field: 4 or 8 bytes as the payload's pointer size. */
void	payload_ptr(struct etlw_payload *p, uint64_t v);
void	payload_guid(struct etlw_payload *p, const struct etl_guid *g);
void	payload_zeros(struct etlw_payload *p, size_t n);
/*
 * Renames every `old` in the strings written after (both kept, not
 * copied); -1 if there are too many or old is empty.
 */
int	etlw_rename(const char *old, const char *new);
/* NUL-terminated 8-bit string. */
void	payload_ansi(struct etlw_payload *p, const char *s);
/* NUL-terminated UTF-16LE string made from ASCII `s`. */
void	payload_utf16(struct etlw_payload *p, const char *s);
/* A WCHAR[nchars] array holding ASCII `s`, NUL-padded. */
void	payload_utf16_array(struct etlw_payload *p, const char *s,
	    size_t nchars);

/* What the trace header event says about the session (section 2). */
struct etlw_trace_info {
	int		 pointer_size;	/* 4 or 8 */
	int		 ncpus;
	int		 compress;	/* write LZ77 buffers */
	uint64_t	 start_qpc;	/* T0: the header event's time */
	uint64_t	 start_filetime;	/* StartTime: FILETIME of T0 */
	uint32_t	 header_pid;	/* the controller that started it */
	uint32_t	 header_tid;
	uint32_t	 os_build;
	uint32_t	 cpu_mhz;
	const char	*logger_name;
	const char	*log_file_name;
};

/* Events of one FULL_HEADER GUID, counted per opcode. */
struct etlw_guid_count {
	struct etl_guid	guid;
	uint64_t	per_opcode[256];
};

/* The buffer a processor is filling. */
struct etlw_cpu_buffer {
	unsigned char	*data;		/* ETLW_BUFFER_SIZE bytes */
	size_t		 used;		/* header and events */
	uint64_t	 sequence;
	unsigned	 lost_flags;	/* EVENTS_LOST after a loss */
	uint64_t	 last_ts;
};

struct etl_writer {
	FILE			*fp;
	struct etlw_trace_info	 info;
	struct etlw_cpu_buffer	*cpu;
	unsigned char		*packed;	/* compressor output */
	size_t			 packed_cap;
	size_t			 header_buffer_size;
	uint64_t		 next_sequence;
	uint64_t		 last_ts;	/* latest timestamp written */
	/* What went into the file so far; read them, do not change them. */
	uint64_t		 bytes;
	uint64_t		 buffers;
	uint64_t		 compressed_buffers;
	uint64_t		 events;
	uint64_t		 events_lost;
	uint64_t		*hook_counts;	/* [65536], by HookId */
	struct etlw_guid_count	 guid_counts[ETLW_MAX_GUIDS];
	int			 nguids;
	int			 failed;
	int			 error;		/* its errno */
};

/*
 * Starts a trace on `fp` and writes its header buffer.
 * @return : 0, or -1 with errno set (out of memory or a write error).
 */
int	etlw_open(struct etl_writer *w, FILE *fp,
	    const struct etlw_trace_info *info);

/* A SYSTEM_TRACE_HEADER event (3.2), 32- or 64-bit as the trace. */
void	etlw_system(struct etl_writer *w, int cpu, unsigned hook,
	    unsigned version, uint32_t pid, uint32_t tid, uint64_t ts,
	    const struct etlw_payload *p);
/* A PERFINFO_TRACE_HEADER event (3.3): no process or thread id. */
void	etlw_perfinfo(struct etl_writer *w, int cpu, unsigned hook,
	    unsigned version, uint64_t ts, const struct etlw_payload *p);
/* An EVENT_TRACE_HEADER ("FULL_HEADER") event (3.5). */
void	etlw_full(struct etl_writer *w, int cpu,
	    const struct etl_guid *guid, unsigned opcode, unsigned version,
	    uint32_t pid, uint32_t tid, uint64_t ts,
	    const struct etlw_payload *p);

/*
 * An EVENT_HEADER (manifest) event (3.7) with descriptor `id`, counted in
 * the manifest's guid lines under its id.
 */
void	etlw_event(struct etl_writer *w, int cpu,
	    const struct etl_guid *guid, unsigned id, unsigned version,
	    uint32_t pid, uint32_t tid, uint64_t ts,
	    const struct etlw_payload *p);

/* Notes `n` events lost on `cpu`: counted and flagged in its buffer. */
void	etlw_lost(struct etl_writer *w, int cpu, uint64_t n);

/*
 * Flushes every partly filled buffer and rewrites the header buffer with
 * the final EndTime, BuffersWritten and EventsLost.
 * @return : 0, or -1 with `error` set.
 */
int	etlw_close(struct etl_writer *w);

/* Frees the writer's memory (not the FILE). */
void	etlw_release(struct etl_writer *w);

#endif
