/*
 * stream_read.c - turns zstd frames back into records.
 *
 * One whole frame is decompressed at a time (a frame never holds more
 * than STREAM_FRAME_MAX bytes, and records never span frames), then its
 * records are handed out one by one; frames from a stream link
 * (stream_link.c) are read where they are.  The record bodies are parsed
 * in stream_parse.c, and the definitions they make are kept, within the
 * limits of etl-stream.5, in stream_defs.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "stream.h"
#include "stream_read_state.h"
#include "stream_sniff.h"

static enum stream_status
reader_fail(struct stream_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	char what[320];

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "%s: %s (offset 0x%llx)",
	    r->name, what, (unsigned long long)offset);
	r->failed = 1;
	return STREAM_ERROR;
}

struct stream_reader *
stream_reader_new(unsigned flags)
{
	struct stream_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->flags = flags;
	r->field_kinds = UINT32_MAX;
	r->dctx = ZSTD_createDCtx();
	r->inbuf = malloc(INBUF_SIZE);
	r->frame = malloc(STREAM_FRAME_MAX);
	if (r->dctx == NULL || r->inbuf == NULL || r->frame == NULL) {
		stream_reader_free(r);
		return NULL;
	}
	return r;
}

void
stream_reader_fields_of(struct stream_reader *r, uint32_t kinds)
{
	r->field_kinds = kinds;
}

unsigned
stream_reader_flags(const struct stream_reader *r)
{
	return r->flags;
}

void
stream_reader_free(struct stream_reader *r)
{
	if (r == NULL)
		return;
	reader_section_reset(r);
	ZSTD_freeDCtx(r->dctx);
	free(r->inbuf);
	free(r->frame);
	free(r->strings.items);
	free(r->classes.items);
	free(r->processes.items);
	free(r->threads.items);
	free(r->images.items);
	free(r->stacks.items);
	free(r->schemas.items);
	free(r->strset.slots);
	free(r->strset.lens);
	free(r->cols);
	free(r->rowcells);
	free(r);
}

void
stream_reader_open_file(struct stream_reader *r, FILE *fp, const char *name)
{
	r->fp = fp;
	r->link = NULL;
	r->name = name;
	/* The tables a section keeps for the next are charged against all
	   the input read, not this input's alone (stream_defs.c). */
	r->read_before += r->in_offset + r->in.pos;
	r->in.src = r->inbuf;
	r->in.size = r->in.pos = 0;
	r->in_offset = 0;
	r->in_eof = 0;
	r->frame_len = r->pos = 0;
	r->in_section = 0;
	r->cut_sections = 0;
	r->failed = 0;
	ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
}

const char *
stream_reader_error(const struct stream_reader *r)
{
	return r->error;
}

int
stream_reader_truncated(const struct stream_reader *r)
{
	return r->in_section || r->cut_sections > 0;
}

void
stream_reader_open_mem(struct stream_reader *r, const void *data, size_t len,
    const char *name)
{
	stream_reader_open_file(r, NULL, name);
	r->in.src = data;
	r->in.size = len;
}

void
stream_reader_open_link(struct stream_reader *r, struct stream_link *l,
    const char *name)
{
	stream_reader_open_file(r, NULL, name);
	r->link = l;
}

static int
read_failed(const struct stream_reader *r)
{
	return r->fp != NULL && ferror(r->fp);
}

/* Refills the input buffer; returns 0 at end of input. */
static size_t
fill_input(struct stream_reader *r)
{
	size_t n;

	if (r->fp == NULL) {
		r->in_eof = 1;
		return 0;
	}
	r->in_offset += r->in.pos;
	r->in.pos = 0;
	n = fread(r->inbuf, 1, INBUF_SIZE, r->fp);
	r->in.size = n;
	if (n == 0)
		r->in_eof = 1;
	return n;
}

/* What a text pipe did to the frame that failed, if that shows. */
static const char *
frame_damage(const struct stream_reader *r)
{
	size_t at = r->frame_offset >= r->in_offset ?
	    (size_t)(r->frame_offset - r->in_offset) : 0;

	if (at > r->in.size)
		at = r->in.size;
	return stream_text_damage((const unsigned char *)r->in.src + at,
	    r->in.size - at, 1);
}

/*
 * Moves what is left of the input buffer to its front and reads more
 * after it, so that a frame cut by the buffer's end may fit whole.
 */
static void
top_up(struct stream_reader *r)
{
	size_t left = r->in.size - r->in.pos;

	if (r->fp == NULL || r->in_eof || r->in.pos == 0)
		return;
	memmove(r->inbuf, r->inbuf + r->in.pos, left);
	r->in_offset += r->in.pos;
	r->in.pos = 0;
	r->in.size = left + fread(r->inbuf + left, 1, INBUF_SIZE - left, r->fp);
}

/*
 * The common case: a whole frame in the input buffer, decompressed in
 * one call straight into r->frame (streaming goes through zstd's own
 * window and copies every byte once more).  A frame that does not fit
 * the buffer, or that does not decompress, is left to the streaming
 * path, which says what is wrong with it.
 * @return : 0, or -1 to stream the frame instead.
 */
static int
whole_frame(struct stream_reader *r)
{
	const unsigned char *src = (const unsigned char *)r->in.src + r->in.pos;
	size_t len = ZSTD_findFrameCompressedSize(src, r->in.size - r->in.pos);
	size_t n;

	if (ZSTD_isError(len)) {
		top_up(r);
		src = (const unsigned char *)r->in.src + r->in.pos;
		len = ZSTD_findFrameCompressedSize(src, r->in.size - r->in.pos);
		if (ZSTD_isError(len))
			return -1;
	}
	n = ZSTD_decompressDCtx(r->dctx, r->frame, STREAM_FRAME_MAX, src, len);
	if (ZSTD_isError(n)) {
		ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
		return -1;
	}
	r->in.pos += len;
	r->cur = r->frame;
	r->frame_len = n;
	r->pos = 0;
	return 0;
}

/*
 * The next frame of a link, read in place.  Offsets count the bytes of
 * the uncompressed stream.
 */
static enum stream_status
next_linked(struct stream_reader *r)
{
	r->in_offset += r->frame_len;
	r->frame_offset = r->in_offset;
	if ((r->cur = stream_link_get(r->link, &r->frame_len)) == NULL)
		return STREAM_EOF;
	r->pos = 0;
	return STREAM_OK;
}

/*
 * Decompresses the next whole frame into r->frame.
 * @return : STREAM_OK, STREAM_EOF at a clean end, or STREAM_ERROR.
 */
static enum stream_status
next_frame(struct stream_reader *r)
{
	ZSTD_outBuffer out = { r->frame, STREAM_FRAME_MAX, 0 };
	const char *why;
	size_t ret;

	if (r->link != NULL)
		return next_linked(r);
	if (r->in.pos == r->in.size && fill_input(r) == 0)
		return read_failed(r) ? reader_fail(r, r->in_offset,
		    "read error: %s", strerror(errno)) : STREAM_EOF;
	r->frame_offset = r->in_offset + r->in.pos;
	if (whole_frame(r) == 0)
		return STREAM_OK;
	for (;;) {
		ret = ZSTD_decompressStream(r->dctx, &out, &r->in);
		if (ZSTD_isError(ret) && (why = frame_damage(r)) != NULL)
			return reader_fail(r, r->frame_offset, "%s", why);
		if (ZSTD_isError(ret) && r->frame_offset == 0)
			return reader_fail(r, 0, "not an event stream");
		if (ZSTD_isError(ret))
			return reader_fail(r, r->frame_offset,
			    "corrupt frame: %s", ZSTD_getErrorName(ret));
		if (ret == 0)
			break;
		if (out.pos == out.size)
			return reader_fail(r, r->frame_offset,
			    "frame larger than %u bytes", STREAM_FRAME_MAX);
		if (r->in.pos == r->in.size && fill_input(r) == 0)
			return read_failed(r) ? reader_fail(r, r->in_offset,
			    "read error: %s", strerror(errno)) :
			    reader_fail(r, r->frame_offset, "truncated frame");
	}
	r->cur = r->frame;
	r->frame_len = out.pos;
	r->pos = 0;
	return STREAM_OK;
}

enum stream_status
stream_reader_next(struct stream_reader *r, struct stream_record *rec)
{
	uint32_t word, len;
	uint64_t at;
	enum stream_status st;

	if (r->failed)
		return STREAM_ERROR;
	while (r->pos == r->frame_len)
		if ((st = next_frame(r)) != STREAM_OK)
			return st;
	at = r->frame_offset;
	if (r->frame_len - r->pos < 4)
		return reader_fail(r, at, "record header cut by frame end");
	word = le32(r->cur + r->pos);
	len = word >> 8;
	if (len > r->frame_len - r->pos - 4)
		return reader_fail(r, at, "record runs past frame end");
	/* The parser clears the rest (reader_parse_record()). */
	rec->type = word & 0xff;
	rec->body = r->cur + r->pos + 4;
	rec->body_len = len;
	r->pos += 4 + (size_t)len;
	if (rec->type != REC_HEADER && !r->in_section)
		return reader_fail(r, at, "not an event stream");
	r->bad_why = NULL;
	r->why[0] = '\0';
	if (reader_parse_record(r, rec) != 0) {
		if (rec->type == REC_HEADER)
			return reader_fail(r, at, "not an event stream");
		if (r->bad_why != NULL)
			reader_set_why(r);
		if (r->over_budget)
			return reader_fail(r, at, "%sdefinitions over the limit "
			    "of %u MiB and %u bytes a byte of input: %llu bytes "
			    "after %llu bytes of input", r->why,
			    DEF_FIXED >> 20, DEF_RATIO,
			    (unsigned long long)r->def_bytes,
			    (unsigned long long)reader_input_read(r));
		if (r->bad_why != NULL)
			return reader_fail(r, at, "%s", r->why);
		return reader_fail(r, at, "malformed record of type 0x%02x",
		    rec->type);
	}
	if (rec->type == REC_HEADER) {
		if (rec->u.header.major > STREAM_VERSION_MAJOR)
			return reader_fail(r, at, "stream format version %u.%u "
			    "is newer than this program's %u.%u",
			    rec->u.header.major, rec->u.header.minor,
			    STREAM_VERSION_MAJOR, STREAM_VERSION_MINOR);
		if (r->in_section)
			r->cut_sections++;
		r->in_section = 1;
	} else if (rec->type == REC_END)
		r->in_section = 0;
	return STREAM_OK;
}

/* The reader leaves a record's body behind its word in the frame. */
const unsigned char *
stream_record_raw(const struct stream_record *rec, size_t *len)
{
	*len = rec->body_len + 4;
	return rec->body - 4;
}

static const char *const kind_names[] = {
	[EV_GENERIC] = "generic", [EV_PROCESS] = "process",
	[EV_THREAD] = "thread", [EV_IMAGE] = "image", [EV_SAMPLE] = "sample",
	[EV_VMEM] = "alloc", [EV_HEAP] = "heap", [EV_CSWITCH] = "cswitch",
	[EV_READY] = "ready", [EV_LOST] = "lost", [EV_QUERY] = "query",
	[EV_HEAPSNAP] = "heapsnap",
};

static const char *const op_names[] = {
	[EVOP_START] = "start", [EVOP_END] = "end", [EVOP_DCSTART] = "dcstart",
	[EVOP_DCEND] = "dcend", [EVOP_DEFUNCT] = "defunct",
	[EVOP_LOAD] = "load", [EVOP_UNLOAD] = "unload", [EVOP_ALLOC] = "alloc",
	[EVOP_FREE] = "free", [EVOP_REALLOC] = "realloc",
	[EVOP_CREATE] = "create", [EVOP_DESTROY] = "destroy",
};

int
stream_rec_known(unsigned type)
{
	switch (type) {
	case REC_HEADER: case REC_TRACE: case REC_END: case REC_DIAG:
	case REC_COUNT: case REC_STRING: case REC_CLASS: case REC_PROCESS:
	case REC_THREAD: case REC_IMAGE: case REC_STACK: case REC_EVENT:
	case REC_TABLE: case REC_ROW: case REC_SYMBOL:
	case REC_IMAGE_SYMBOLS: case REC_SCHEMA: case REC_SCOPE:
		return 1;
	}
	return 0;
}

const char *
stream_kind_name(enum stream_ev_kind kind)
{
	if ((unsigned)kind > EV_KIND_MAX || kind_names[kind] == NULL)
		return "";
	return kind_names[kind];
}

const char *
stream_op_name(enum stream_ev_op op)
{
	if ((unsigned)op >= sizeof(op_names) / sizeof(op_names[0]) ||
	    op_names[op] == NULL)
		return "";
	return op_names[op];
}

int
stream_kind_by_name(const char *name)
{
	int k;

	for (k = 1; k <= EV_KIND_MAX; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return -1;
}

int
stream_probe(const unsigned char *data, size_t len)
{
	/* A stream mangled by a text pipe is taken too, to be named so. */
	return (len >= 4 && le32(data) == 0xfd2fb528u) ||
	    stream_text_damage(data, len, 0) != NULL;
}

/* Whether two short texts are the same: names, compared in place. */
static inline int
same_text(const char *a, const char *b)
{
	while (*a == *b && *a != '\0') {
		a++;
		b++;
	}
	return *a == *b;
}

int
stream_schema_index(struct stream_schema *s, const char *name)
{
	/* A name's entry is at the slot its address picks, or not there. */
	struct stream_schema_memo *m = s->memo;
	size_t slot = ((uintptr_t)name >> 3 ^ (uintptr_t)name >> 9) %
	    SCHEMA_MEMO, len;
	uint32_t i;
	int index = -1;

	if (m->e[slot].ptr == name && same_text(m->e[slot].text, name))
		return m->e[slot].index;
	for (i = 0; i < s->nfields; i++)
		if (strcmp(s->names[i], name) == 0) {
			index = (int)i;
			break;
		}
	/* A longer name is looked for each time. */
	if ((len = strlen(name)) < SCHEMA_MEMO_NAME) {
		m->e[slot].ptr = name;
		m->e[slot].index = index;
		memcpy(m->e[slot].text, name, len + 1);
	}
	return index;
}

const struct value *
stream_event_field(const struct stream_event *ev, const char *name)
{
	size_t i;
	int at;

	/* The fields as the reader gave them, by the schema's index. */
	if (ev->schema != NULL && ev->nfields == ev->schema->nfields) {
		at = stream_schema_index(ev->schema, name);
		if (at < 0)
			return NULL;
		if (ev->fields[at].name == ev->schema->names[at])
			return &ev->fields[at].val;
	}
	for (i = 0; i < ev->nfields; i++)
		if (strcmp(ev->fields[i].name, name) == 0)
			return &ev->fields[i].val;
	return NULL;
}

uint64_t
stream_event_u(const struct stream_event *ev, const char *name, uint64_t dflt)
{
	const struct value *val = stream_event_field(ev, name);

	return val != NULL ? val->v.u : dflt;
}
