/*
 * stream_write.c - a writer: records into zstd frames.
 *
 * Records are appended to an uncompressed frame buffer; when the next
 * record would take it past STREAM_FRAME_MAX the buffer is compressed as
 * one zstd frame with a content checksum and written out.  The records
 * are encoded by stream_write_defs.c and stream_write_event.c, in the
 * layouts of man/etl-stream.5; this file holds what they share: the
 * frames, the section's strings, and the record being made.
 *
 * After stream_writer_async() the frames go through a stream link
 * (stream_link.c) to a thread of their own, which compresses and writes
 * them while the caller encodes the next: zstd is a quarter of etlcat's
 * time on one core.  The bytes written are the same either way.  A
 * writer on a link of the caller's hands its frames over, uncompressed,
 * to the reader at the other end instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "base/buf.h"
#include "base/intern.h"
#include "stream.h"
#include "stream_write_state.h"

#define LINK_FRAME_MAX	(128u << 10)	/* a frame through a stream link */

struct stream_writer *
stream_writer_new(FILE *fp, int level)
{
	struct stream_writer *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->fp = fp;
	w->frame_max = STREAM_FRAME_MAX;
	if ((w->cctx = ZSTD_createCCtx()) == NULL) {
		free(w);
		return NULL;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	return w;
}

struct stream_writer *
stream_writer_new_link(struct stream_link *l)
{
	struct stream_writer *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->link = l;
	/*
	 * Smaller frames than in a file: the reader starts sooner, a small
	 * input touches less fresh memory, and the frames in flight stay in
	 * the cache the reader reads them from.
	 */
	w->frame_max = LINK_FRAME_MAX;
	return w;
}

int
writer_fail(struct stream_writer *w, int err)
{
	if (!w->failed) {
		w->failed = 1;
		w->saved_errno = err;
	}
	errno = w->saved_errno;
	return -1;
}

/* Compresses a frame and writes it.  @return : 0, or an errno value. */
static int
compress_frame(ZSTD_CCtx *cctx, FILE *fp, struct buf *zbuf,
    const unsigned char *frame, size_t len)
{
	size_t bound = ZSTD_compressBound(len), n;

	if (buf_reserve(zbuf, bound) == NULL)
		return ENOMEM;
	n = ZSTD_compress2(cctx, zbuf->data, bound, frame, len);
	if (ZSTD_isError(n))
		return EIO;
	if (fwrite(zbuf->data, 1, n, fp) != n)
		return errno ? errno : EIO;
	return 0;
}

/* The writing thread: every frame the link brings, in order. */
static void
write_frames(void *arg)
{
	struct stream_writer *w = arg;
	const unsigned char *frame;
	size_t len;
	int err;

	while ((frame = stream_link_get(w->link, &len)) != NULL)
		if ((err = compress_frame(w->cctx, w->fp, &w->zbuf, frame,
		    len)) != 0) {
			/* Seen by the encoder when its next frame is refused. */
			w->thread_errno = err;
			stream_link_stop(w->link);
			return;
		}
}

static int
flush_frame(struct stream_writer *w)
{
	int err;

	if (w->frame.len == 0 || w->failed)
		return w->failed ? writer_fail(w, w->saved_errno) : 0;
	if (w->frame.oom)
		return writer_fail(w, ENOMEM);
	if (w->link != NULL)
		return stream_link_put(w->link, &w->frame) == 0 ? 0 :
		    writer_fail(w, w->thread_errno ? w->thread_errno : EPIPE);
	if ((err = compress_frame(w->cctx, w->fp, &w->zbuf, w->frame.data,
	    w->frame.len)) != 0)
		return writer_fail(w, err);
	w->frame.len = 0;
	return 0;
}

void
stream_writer_async(struct stream_writer *w)
{
	if (w->link != NULL || (w->link = stream_link_new()) == NULL)
		return;
	if (stream_link_thread(w->link, write_frames, w) != 0) {
		stream_link_free(w->link);
		w->link = NULL;
		return;
	}
	w->async = 1;
}

int
stream_writer_close(struct stream_writer *w)
{
	int rc = flush_frame(w);

	if (w->link != NULL)
		stream_link_close(w->link);
	/* The writing thread writes what it was given, then ends. */
	if (w->async) {
		stream_link_join(w->link);
		stream_link_free(w->link);
		if (w->thread_errno)
			rc = writer_fail(w, w->thread_errno);
	}
	if (w->fp != NULL && rc == 0 && fflush(w->fp) != 0)
		rc = writer_fail(w, errno);
	ZSTD_freeCCtx(w->cctx);
	buf_release(&w->frame);
	buf_release(&w->rec);
	buf_release(&w->str);
	buf_release(&w->zbuf);
	intern_release(&w->strings);
	intern_release(&w->schemas);
	buf_release(&w->key);
	buf_release(&w->schema);
	free(w);
	return rc;
}

void
writer_store_len(unsigned char *rec, size_t len)
{
	size_t body = len - 4;

	rec[1] = body & 0xff;
	rec[2] = (body >> 8) & 0xff;
	rec[3] = (body >> 16) & 0xff;
}

/* Stores the body length of the record in `b` in its record word. */
static void
set_body_len(struct buf *b)
{
	writer_store_len(b->data, b->len);
}

struct buf *
writer_rec_begin(struct stream_writer *w, enum stream_rec_type type)
{
	w->rec.len = 0;
	buf_put_u32(&w->rec, type);
	return &w->rec;
}

int
writer_make_room(struct stream_writer *w, size_t len)
{
	if (w->failed)
		return writer_fail(w, w->saved_errno);
	if (len > STREAM_FRAME_MAX)
		return writer_fail(w, EMSGSIZE);
	if (w->frame.len > 0 && w->frame.len + len > w->frame_max &&
	    flush_frame(w) != 0)
		return -1;
	return 0;
}

int
writer_append(struct stream_writer *w, const unsigned char *rec, size_t len)
{
	if (writer_make_room(w, len) != 0)
		return -1;
	buf_put(&w->frame, rec, len);
	if (w->frame.oom)
		return writer_fail(w, ENOMEM);
	w->records++;
	if (rec[0] == REC_EVENT)
		w->events++;
	return 0;
}

int
writer_rec_end(struct stream_writer *w)
{
	struct buf *b = &w->rec;

	if (b->oom)
		return writer_fail(w, ENOMEM);
	if (b->len - 4 > STREAM_RECORD_MAX)
		return writer_fail(w, EMSGSIZE);
	set_body_len(b);
	if (w->capturing) {
		w->capturing = 0;
		return 0;
	}
	return writer_append(w, b->data, b->len);
}

void
stream_capture_next(struct stream_writer *w)
{
	w->capturing = 1;
}

const unsigned char *
stream_captured(const struct stream_writer *w, size_t *len)
{
	*len = w->rec.len;
	return w->rec.data;
}

stream_id
writer_intern(struct stream_writer *w, const char *text)
{
	size_t len = text ? strlen(text) : 0;
	int added;
	uint32_t id = intern_add(&w->strings, text ? text : "", len, &added);
	struct buf *b = &w->str;

	if (id == 0) {
		writer_fail(w, ENOMEM);
		return 0;
	}
	if (!added)
		return id;
	/* The string record must not disturb a record being encoded. */
	b->len = 0;
	buf_put_u32(b, REC_STRING);
	buf_put_var(b, id);
	buf_put_bytes(b, text, len);
	if (b->oom) {
		writer_fail(w, ENOMEM);
		return 0;
	}
	set_body_len(b);
	return writer_append(w, b->data, b->len) == 0 ? id : 0;
}

