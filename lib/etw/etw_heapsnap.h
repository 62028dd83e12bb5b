/*
 * etw_heapsnap.h - the byte stream of a WPR heap snapshot
 * (etl-events-2.md 1.4): a stack database (segments of up to 8 return
 * addresses, and stacks made of segments), then per heap a header and
 * the records of its busy blocks up to a terminator.
 *
 * heapsnap_parse() is a pure function over one reassembled stream; the
 * .etl decoder (etw_heapsnap.c, part of etw_decode) reassembles the
 * stream from its chunk events and turns what the parser gives into
 * stream records.  The parser bounds its memory by the stream's length:
 * a count that promises more records than the bytes can hold is cut to
 * what is there and reported.
 *
 * It calls back for each stack (frames innermost first, as the source
 * has them), each heap and each allocation, in stream order, and stops
 * at the first problem it cannot step over; what came before stands (a
 * partial result), and `problem` says what went wrong and where.
 */
#ifndef ETW_HEAPSNAP_H
#define ETW_HEAPSNAP_H

#include <stddef.h>
#include <stdint.h>

#define HEAPSNAP_MAX_FRAMES	255	/* FrameCount is 8 bits */

struct heapsnap_ops {
	void *ctx;
	/* A stack of the database.  @return : 0, or -1 to stop (no memory). */
	int (*stack)(void *ctx, uint64_t id, const uint64_t *frames,
	    uint32_t nframes);
	int (*heap)(void *ctx, uint64_t heap, uint64_t commit,
	    uint64_t reserve);
	/*
	 * A busy block; `known` is 0 when its StackId is not 0 and not in
	 * the database.
	 */
	int (*alloc)(void *ctx, uint64_t heap, uint64_t address,
	    uint64_t stack_id, uint64_t size, int known);
};

struct heapsnap_result {
	uint32_t version, pointer_size;
	uint64_t segments, stacks;	/* as the header says */
	uint64_t stacks_read, heaps, allocations, bytes;
	uint64_t unknown_stacks;	/* allocations naming no stack */
	uint64_t missing_segments;	/* stacks' segments not defined */
	int complete;			/* database and every heap whole */
	int database_only;		/* ends cleanly after the database */
	char problem[160];		/* "" or what went wrong, at what offset */
};

/*
 * Parses stream[0..len).  @return : 0 when the stream parsed to its end
 *	(res->complete), 1 when it stopped at a problem (res->problem), -1
 *	when a callback failed.
 */
int heapsnap_parse(const unsigned char *stream, size_t len,
    const struct heapsnap_ops *ops, struct heapsnap_result *res);

#endif
