/*
 * in_etl_state.h - the .etl reader's state, shared by its two files:
 * in_etl.c (the buffers' index, the trace header and the event headers)
 * and in_etl_merge.c (the time merge, reading ahead and the merge's
 * thread).  The reader's interface is in_etl.h.
 */
#ifndef IN_ETL_STATE_H
#define IN_ETL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/ahead.h"
#include "in_etl.h"

struct batch;
struct mapped_file;
struct ring;

#define BUF_HEADER_LEN	0x48
#define FLAG_COMPRESSED	0x0040
/*
 * Closed buffers whose pages are let go of together: each call makes
 * the kernel flush the other threads' TLBs, so one per buffer cost a
 * tenth of the decoder's time once the reader had a second thread.
 */
#define DROP_BATCH	64

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

/* Sets the reader's message, "what (offset 0x...)". */
void etl_set_error(struct etl_reader *r, uint64_t offset, const char *fmt,
    ...);
/* Counts a buffer skipped whole or in part, and `bytes` made unreadable. */
void etl_count_bad_buffer(struct etl_reader *r, uint64_t off,
    uint64_t bytes);
/*
 * Parses the event header at p (etl-format.md 3.1 to 3.9) into *ev.
 * @return : the event's size (before alignment), 0 for the end-of-data
 *	marker, or -1 if the header is not one we know or lies about its size.
 */
long etl_parse_event(const unsigned char *p, size_t avail,
    struct etl_event *ev);

#endif
