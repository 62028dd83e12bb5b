/*
 * stream_write_state.h - the state of a stream writer (stream.h), shared
 * by the three files that make it, each using those below it only:
 * stream_write_defs.c (every record but events), stream_write_event.c
 * (events, and the schemas of version 2) and stream_write.c (frames,
 * strings, the record being made).  No other module includes it.
 */
#ifndef STREAM_WRITE_STATE_H
#define STREAM_WRITE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zstd.h>

#include "base/buf.h"
#include "base/intern.h"
#include "stream.h"

#define NAME_CACHE	512	/* field-name ids remembered by pointer */
#define SHAPE_CACHE	256	/* schema ids remembered by shape and class */
#define FIELDS_CACHE	64	/* ... and by the addresses of field names */
#define FIELDS_CACHED	8	/* the most fields such an entry holds */

/* The held form of a version 2 event (stream_encode_event()). */
#define REC_EVENT_HELD	0xa0

struct stream_writer {
	FILE *fp;		/* NULL on a link of the caller's */
	struct stream_link *link;	/* frames go to another thread here */
	size_t frame_max;	/* bytes a frame, but a longer record alone */
	ZSTD_CCtx *cctx;
	struct buf frame;	/* records not yet compressed */
	struct buf rec;		/* the record being encoded */
	struct buf str;		/* a string record, made while rec is in use */
	struct buf zbuf;	/* compressed frame */
	struct intern strings;
	uint64_t records, events;
	int capturing;		/* keep the next record in rec, unwritten */
	unsigned major;		/* the section's format: 1 or 2 */
	int64_t last_ts;	/* version 2: the last event's, for the next */
	/*
	 * Version 2: every schema's key (stream_write_event.c), and the
	 * schema ids of shapes by address, class, kind and op.
	 */
	struct intern schemas;
	struct buf key;		/* a schema's key, being made */
	struct buf schema;	/* a SCHEMA record, made while rec is in use */
	struct {
		const struct stream_shape *shape;
		stream_id cls, id;
		uint8_t kind, op;
		uint8_t varlen;	/* it has text or bytes */
	} shapes[SHAPE_CACHE];
	struct {
		const char *names[FIELDS_CACHED];
		uint8_t types[FIELDS_CACHED];
		stream_id cls, id;
		uint8_t kind, op, n;
	} fields[FIELDS_CACHE];
	/*
	 * Field names are mostly string literals: remember the id of each
	 * name pointer, checked against the text, to skip hashing.
	 */
	struct {
		const char *ptr;
		stream_id id;
		int is_static;	/* ptr was a string literal's */
	} names[NAME_CACHE];
	int failed;		/* a write failed; errno was saved */
	int saved_errno;

	/* The writing thread's, once stream_writer_async() has made it. */
	int async;			/* link leads to it */
	int thread_errno;		/* its write failed: read after a stop */
};

/* stream_write.c */

/* Marks the writer failed with `err` (the first error stays); -1. */
int writer_fail(struct stream_writer *w, int err);

/* Appends an encoded record (word included) to the frame. */
int writer_append(struct stream_writer *w, const unsigned char *rec,
    size_t len);

/* Writes the frame out if `len` more bytes would not fit in it. */
int writer_make_room(struct stream_writer *w, size_t len);

/*
 * The id of `text` (NULL is "") in this section, writing a REC_STRING
 * first if it is new; 0 on a write error.
 */
stream_id writer_intern(struct stream_writer *w, const char *text);

/* Stores the body length of the record at `rec`, `len` bytes long. */
void writer_store_len(unsigned char *rec, size_t len);

/* Starts encoding a record of `type` in w->rec; the length comes later. */
struct buf *writer_rec_begin(struct stream_writer *w,
    enum stream_rec_type type);

/* Ends it: appends it to the frame, or keeps it if capturing. */
int writer_rec_end(struct stream_writer *w);

/* stream_write_event.c */

/* Forgets the section's schemas, at a HEADER. */
void writer_schemas_reset(struct stream_writer *w);

/* Takes on schema `id` of a stream passed through; -1 if out of order. */
int writer_pass_schema(struct stream_writer *w, stream_id id);

#endif
