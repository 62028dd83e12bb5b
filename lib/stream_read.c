/*
 * stream_read.c - turns zstd frames back into records.
 *
 * One whole frame is decompressed at a time (a frame never holds more
 * than STREAM_FRAME_MAX bytes, and records never span frames), then its
 * records are handed out one by one.  Definitions are copied into an
 * arena of fixed chunks, so pointers into it stay put until the next
 * HEADER starts a new section.
 *
 * Limits (etl-stream.5, LIMITS): the n-th STRING of a section has id n
 * and a text of its own, and what a section's definitions take (arena
 * and the tables by id) stays under DEF_FIXED plus DEF_RATIO times the
 * compressed bytes read, so that a small, very compressible stream, or
 * one naming id 4294967295, cannot claim gigabytes.  Other ids need not
 * be in order: a decoder hands out stack ids before it writes them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "buf.h"
#include "idmap.h"
#include "intern.h"
#include "stream.h"
#include "stream_sniff.h"

#define ARENA_CHUNK	(256 * 1024)
/* Room for any whole frame, so that most decompress in one call. */
#define INBUF_SIZE	ZSTD_COMPRESSBOUND(STREAM_FRAME_MAX)
#define DEF_FIXED	(16u << 20)	/* definition bytes any stream may use */
#define DEF_RATIO	64u		/* ... plus this times its input bytes */
#define STACK_VISITS	1024		/* parts of one stack, joined */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	unsigned char data[];
};

/* An array of pointers indexed by definition id. */
struct deftab {
	void **items;
	size_t cap;
};

/* The texts of the section's strings, to refuse a second copy of one. */
struct strset {
	uint32_t *slots;	/* string id, 0 for empty */
	size_t nslots;
	uint32_t *lens;		/* by id */
	size_t lencap;
	uint32_t count;		/* strings of the section so far */
};

struct stream_reader {
	unsigned flags;
	uint32_t field_kinds;	/* kinds whose event fields are decoded */
	FILE *fp;
	const char *name;
	ZSTD_DCtx *dctx;

	unsigned char *inbuf;
	ZSTD_inBuffer in;
	uint64_t in_offset;	/* input bytes consumed before inbuf */
	uint64_t frame_offset;	/* where the current frame began */
	int in_eof;

	unsigned char *frame;	/* decompressed frame */
	size_t frame_len, pos;
	const unsigned char *cur;	/* the frame's bytes: frame or linked */
	/* Or frames from a writer on another thread, read where they are. */
	struct stream_link *link;

	struct arena_chunk *arena;
	struct deftab strings, classes, processes, threads, images, stacks;
	struct strset strset;
	size_t def_bytes;	/* what the section's definitions take */
	int over_budget;	/* def_bytes would pass the limit */
	const char *bad_why;	/* why a definition was refused, or NULL */
	uint64_t bad_id, bad_arg;	/* the two numbers bad_why prints */
	char why[100];
	const struct stream_trace *trace;
	struct idmap pids;	/* pid -> process id */

	struct stream_field fields[STREAM_EVENT_FIELDS_MAX];
	uint64_t frames[STREAM_STACK_MAX];	/* when stacks are not kept */
	struct stream_column *cols;
	size_t cols_cap;
	struct value *rowcells;
	size_t rowcells_cap;
	struct stream_inline inlines[STREAM_INLINE_MAX];	/* REC_SYMBOL's */

	int in_section;		/* a HEADER came and no END yet */
	uint64_t cut_sections;	/* sections that ended without END */
	int failed;
	char error[512];
};

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

/* The compressed bytes read so far. */
static uint64_t
input_read(const struct stream_reader *r)
{
	return r->in_offset + r->in.pos;
}

/*
 * Accounts `n` more bytes to the section's definitions.
 * @return : 0, or -1 if that passes the limit (over_budget set).
 */
static int
def_charge(struct stream_reader *r, size_t n)
{
	uint64_t limit = DEF_FIXED + DEF_RATIO * input_read(r);

	if (r->def_bytes + n > limit || r->def_bytes + n < n) {
		r->over_budget = 1;
		return -1;
	}
	r->def_bytes += n;
	return 0;
}

static void *
arena_alloc(struct stream_reader *r, size_t n)
{
	struct arena_chunk *c = r->arena;

	n = (n + 7) & ~(size_t)7;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		if (def_charge(r, sizeof(*c) + cap) != 0 ||
		    (c = malloc(sizeof(*c) + cap)) == NULL)
			return NULL;
		c->next = r->arena;
		c->used = 0;
		c->cap = cap;
		r->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static char *
arena_strndup(struct stream_reader *r, const unsigned char *s, size_t len)
{
	char *p = arena_alloc(r, len + 1);

	if (p != NULL) {
		if (len > 0)
			memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

static void
arena_free(struct stream_reader *r)
{
	while (r->arena != NULL) {
		struct arena_chunk *next = r->arena->next;

		free(r->arena);
		r->arena = next;
	}
}

/*
 * Sets definition `id`, growing the table to hold it: the limit on
 * definition bytes bounds the ids a stream may use.
 */
/* Whether `id` may name a definition; the reason set if not. */
static int
def_id_ok(struct stream_reader *r, uint64_t id)
{
	if (id != 0 && id <= UINT32_MAX)
		return 1;
	r->bad_why = "definition id %llu out of range (1 to %llu)";
	r->bad_id = id;
	r->bad_arg = UINT32_MAX;
	return 0;
}

static int
deftab_set(struct stream_reader *r, struct deftab *t, uint64_t id, void *item)
{
	if (!def_id_ok(r, id))
		return -1;
	if (id >= t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		void **items;

		while (cap <= id)
			cap *= 2;
		if (def_charge(r, (cap - t->cap) * sizeof(*items)) != 0) {
			r->bad_why = "definition id %llu would need a table "
			    "of %llu bytes";
			r->bad_id = id;
			r->bad_arg = (uint64_t)cap * sizeof(*items);
			return -1;
		}
		if ((items = realloc(t->items, cap * sizeof(*items))) == NULL)
			return -1;
		memset(items + t->cap, 0, (cap - t->cap) * sizeof(*items));
		t->items = items;
		t->cap = cap;
	}
	t->items[id] = item;
	return 0;
}

static void *
deftab_get(const struct deftab *t, stream_id id)
{
	return id < t->cap ? t->items[id] : NULL;
}

static void
deftab_clear(struct deftab *t)
{
	if (t->items != NULL)
		memset(t->items, 0, t->cap * sizeof(*t->items));
}

/*
 * Adds string `id` to the set, which must be the next id and a text not
 * yet in the section (etl-stream.5: a writer passing the section through
 * hands out the same ids only then).
 * @return : 0, -1 if out of memory or over the limit, -2 if the id is not
 *	the next one, -3 if the text is there already.
 */
static int
strset_add(struct stream_reader *r, uint64_t id, const char *s, size_t len)
{
	struct strset *t = &r->strset;
	size_t mask, i;
	uint32_t *lens;

	r->bad_arg = (uint64_t)t->count + 1;
	if (id != (uint64_t)t->count + 1 || len > UINT32_MAX)
		return -2;
	if ((t->count + 1) * 2 > t->nslots) {
		size_t n = t->nslots ? t->nslots * 2 : 1024;
		uint32_t *slots;
		uint32_t k;

		if (def_charge(r, (n - t->nslots) * sizeof(*slots)) != 0 ||
		    (slots = calloc(n, sizeof(*slots))) == NULL)
			return -1;
		free(t->slots);
		t->slots = slots;
		t->nslots = n;
		for (k = 1; k <= t->count; k++) {
			const char *ks = deftab_get(&r->strings, k);

			for (i = intern_hash(ks, t->lens[k]) & (n - 1);
			    slots[i] != 0; i = (i + 1) & (n - 1))
				continue;
			slots[i] = k;
		}
	}
	mask = t->nslots - 1;
	for (i = intern_hash(s, len) & mask; t->slots[i] != 0;
	    i = (i + 1) & mask) {
		uint32_t k = t->slots[i];

		if (t->lens[k] == len &&
		    memcmp(deftab_get(&r->strings, k), s, len) == 0) {
			r->bad_arg = k;
			return -3;
		}
	}
	if (id >= t->lencap) {
		size_t cap = t->lencap ? t->lencap * 2 : 256;

		while (cap <= id)
			cap *= 2;
		if (def_charge(r, (cap - t->lencap) * sizeof(*lens)) != 0 ||
		    (lens = realloc(t->lens, cap * sizeof(*lens))) == NULL)
			return -1;
		t->lens = lens;
		t->lencap = cap;
	}
	t->lens[id] = (uint32_t)len;
	t->slots[i] = (uint32_t)id;
	t->count++;
	return 0;
}

/* Formats the reason a definition was refused into r->why, with ": ". */
static void
set_why(struct stream_reader *r)
{
	int n = snprintf(r->why, sizeof(r->why) - 2, r->bad_why,
	    (unsigned long long)r->bad_id, (unsigned long long)r->bad_arg);

	if (n > 0 && r->over_budget && (size_t)n < sizeof(r->why) - 2)
		strcat(r->why, ": ");
}

static void
section_reset(struct stream_reader *r)
{
	arena_free(r);
	if (r->strset.slots != NULL)
		memset(r->strset.slots, 0, r->strset.nslots *
		    sizeof(*r->strset.slots));
	r->strset.count = 0;
	/* The tables keep their size; what they take stays accounted. */
	r->def_bytes = (r->strings.cap + r->classes.cap + r->processes.cap +
	    r->threads.cap + r->images.cap + r->stacks.cap) * sizeof(void *) +
	    r->strset.nslots * sizeof(uint32_t) +
	    r->strset.lencap * sizeof(uint32_t);
	r->over_budget = 0;
	deftab_clear(&r->strings);
	deftab_clear(&r->classes);
	deftab_clear(&r->processes);
	deftab_clear(&r->threads);
	deftab_clear(&r->images);
	deftab_clear(&r->stacks);
	idmap_release(&r->pids);
	r->trace = NULL;
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

void
stream_reader_free(struct stream_reader *r)
{
	if (r == NULL)
		return;
	section_reset(r);
	ZSTD_freeDCtx(r->dctx);
	free(r->inbuf);
	free(r->frame);
	free(r->strings.items);
	free(r->classes.items);
	free(r->processes.items);
	free(r->threads.items);
	free(r->images.items);
	free(r->stacks.items);
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

static const char *
str_of(const struct stream_reader *r, uint64_t id)
{
	const char *s = id <= UINT32_MAX ? deftab_get(&r->strings,
	    (stream_id)id) : NULL;

	return s ? s : "";
}

/*
 * cursor_var() inlined, for the fields of events, which every reader
 * decodes for every event: a call for each byte cost more than the rest
 * of the parse.
 */
static inline uint64_t
get_var(struct cursor *c)
{
	const unsigned char *p = c->p;
	uint64_t v = 0;
	unsigned shift;

	if (c->bad)
		return 0;
	for (shift = 0; shift < 64 && p < c->end; shift += 7) {
		unsigned b = *p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0) {
			c->p = p;
			return v;
		}
	}
	c->bad = 1;		/* cut short, or more than ten bytes */
	return 0;
}

static inline int64_t
get_svar(struct cursor *c)
{
	uint64_t v = get_var(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int
get_value(struct cursor *c, struct value *v)
{
	uint64_t bits;

	if (c->bad || c->p == c->end) {
		c->bad = 1;
		return -1;
	}
	v->type = *c->p++;
	switch (v->type) {
	case VAL_I64:
	case VAL_NS:
		v->v.i = get_svar(c);
		break;
	case VAL_U64:
	case VAL_HEX:
	case VAL_UTC:
	case VAL_BOOL:
		v->v.u = get_var(c);
		break;
	case VAL_F64:
		bits = cursor_u64(c);
		memcpy(&v->v.f, &bits, 8);
		break;
	case VAL_STR:
	case VAL_BYTES:
		v->v.s.ptr = (const char *)cursor_bytes(c, &v->v.s.len);
		break;
	case VAL_GUID:
		v->v.s.ptr = (const char *)cursor_take(c, 16);
		v->v.s.len = 16;
		break;
	case VAL_NULL:
		break;
	default:
		return -1;
	}
	return c->bad ? -1 : 0;
}

static int
parse_header(struct stream_reader *r, struct cursor *c, struct stream_record *rec)
{
	const unsigned char *magic = cursor_take(c, sizeof(STREAM_MAGIC));
	size_t len;
	const unsigned char *producer;

	if (magic == NULL || memcmp(magic, STREAM_MAGIC, sizeof(STREAM_MAGIC)))
		return -1;
	rec->u.header.major = cursor_u16(c);
	rec->u.header.minor = cursor_u16(c);
	producer = cursor_bytes(c, &len);
	section_reset(r);
	rec->u.header.producer = arena_strndup(r, producer ? producer :
	    (const unsigned char *)"", len);
	return 0;
}

static const char *
get_str(struct stream_reader *r, struct cursor *c)
{
	size_t len;
	const unsigned char *p = cursor_bytes(c, &len);

	return arena_strndup(r, p ? p : (const unsigned char *)"", len);
}

static int
parse_trace(struct stream_reader *r, struct cursor *c, struct stream_trace *t)
{
	struct stream_trace *copy;

	t->source = get_str(r, c);
	t->format = get_str(r, c);
	t->logger = get_str(r, c);
	t->start_utc = cursor_var(c);
	t->end_utc = cursor_var(c);
	t->boot_utc = cursor_var(c);
	t->perf_freq = cursor_var(c);
	t->clock_type = (uint32_t)cursor_var(c);
	t->os_major = (uint32_t)cursor_var(c);
	t->os_minor = (uint32_t)cursor_var(c);
	t->os_build = (uint32_t)cursor_var(c);
	t->cpus = (uint32_t)cursor_var(c);
	t->cpu_mhz = (uint32_t)cursor_var(c);
	t->pointer_size = (uint32_t)cursor_var(c);
	t->log_file_mode = (uint32_t)cursor_var(c);
	t->buffer_size = (uint32_t)cursor_var(c);
	t->buffers_written = (uint32_t)cursor_var(c);
	t->buffers_lost = (uint32_t)cursor_var(c);
	t->events_lost = (uint32_t)cursor_var(c);
	t->tz_bias_minutes = (int32_t)cursor_svar(c);
	t->sample_interval_100ns = (uint32_t)cursor_var(c);
	if (c->bad || (copy = arena_alloc(r, sizeof(*copy))) == NULL)
		return -1;
	*copy = *t;
	r->trace = copy;
	return 0;
}

static int
parse_end(struct stream_reader *r, struct cursor *c, struct stream_end *e)
{
	e->records = cursor_var(c);
	e->events = cursor_var(c);
	e->source_events = cursor_var(c);
	e->source_bytes = cursor_var(c);
	e->end_ns = cursor_var(c);
	e->memory_bytes = cursor_var(c);
	e->computer = get_str(r, c);
	return c->bad ? -1 : 0;
}

static int
parse_diag(struct stream_reader *r, struct cursor *c, struct stream_diag *d)
{
	d->what = get_str(r, c);
	d->count = cursor_var(c);
	d->first_offset = cursor_var(c);
	d->bytes = cursor_var(c);
	return c->bad ? -1 : 0;
}

static int
parse_string(struct stream_reader *r, struct cursor *c,
    struct stream_record *rec)
{
	uint64_t id = cursor_var(c);
	size_t len;
	const unsigned char *p = cursor_bytes(c, &len);
	char *s;

	int rc;

	if (c->bad)
		return -1;
	if ((rc = strset_add(r, id, (const char *)p, len)) != 0) {
		if (rc == -2)
			r->bad_why = "string id %llu out of order (expected "
			    "%llu)";
		else if (rc == -3)
			r->bad_why = "string id %llu repeats the text of an "
			    "earlier string (id %llu)";
		r->bad_id = id;
		return -1;
	}
	if ((s = arena_strndup(r, p, len)) == NULL)
		return -1;
	rec->u.string.id = (stream_id)id;
	rec->u.string.text = s;
	rec->u.string.len = len;
	return deftab_set(r, &r->strings, id, s);
}

static int
parse_class(struct stream_reader *r, struct cursor *c, struct stream_class *k)
{
	const unsigned char *guid;
	struct stream_class *copy;

	k->id = (stream_id)cursor_var(c);
	if ((guid = cursor_take(c, 16)) != NULL)
		memcpy(k->guid, guid, 16);
	k->provider = str_of(r, cursor_var(c));
	k->event = str_of(r, cursor_var(c));
	k->hook = (int32_t)cursor_svar(c);
	k->event_id = (int32_t)cursor_svar(c);
	k->version = cursor_u8(c);
	k->opcode = cursor_u8(c);
	k->level = cursor_u8(c);
	k->task = (uint16_t)cursor_var(c);
	if (c->bad || (copy = arena_alloc(r, sizeof(*copy))) == NULL)
		return -1;
	*copy = *k;
	return deftab_set(r, &r->classes, k->id, copy);
}

static int
parse_process(struct stream_reader *r, struct cursor *c,
    struct stream_process *p)
{
	struct stream_process *copy;

	p->id = (stream_id)cursor_var(c);
	p->pid = (uint32_t)cursor_var(c);
	p->ppid = (uint32_t)cursor_var(c);
	p->start_ns = cursor_svar(c);
	p->session = (uint32_t)cursor_var(c);
	p->key = cursor_var(c);
	p->name = str_of(r, cursor_var(c));
	p->cmdline = str_of(r, cursor_var(c));
	if (c->bad || (copy = arena_alloc(r, sizeof(*copy))) == NULL)
		return -1;
	*copy = *p;
	if (idmap_put(&r->pids, p->pid, p->id) != 0)
		return -1;
	return deftab_set(r, &r->processes, p->id, copy);
}

static int
parse_thread(struct stream_reader *r, struct cursor *c, struct stream_thread *t)
{
	struct stream_thread *copy;

	t->id = (stream_id)cursor_var(c);
	t->tid = (uint32_t)cursor_var(c);
	t->pid = (uint32_t)cursor_var(c);
	t->process = (stream_id)cursor_var(c);
	t->start_ns = cursor_svar(c);
	t->name = str_of(r, cursor_var(c));
	if (c->bad || (copy = arena_alloc(r, sizeof(*copy))) == NULL)
		return -1;
	*copy = *t;
	return deftab_set(r, &r->threads, t->id, copy);
}

static int
parse_image(struct stream_reader *r, struct cursor *c, struct stream_image *im)
{
	const unsigned char *guid;
	struct stream_image *copy;

	im->id = (stream_id)cursor_var(c);
	im->pid = (uint32_t)cursor_var(c);
	im->process = (stream_id)cursor_var(c);
	im->base = cursor_var(c);
	im->size = cursor_var(c);
	im->checksum = (uint32_t)cursor_var(c);
	im->timestamp = (uint32_t)cursor_var(c);
	im->path = str_of(r, cursor_var(c));
	if ((guid = cursor_take(c, 16)) != NULL)
		memcpy(im->pdb_guid, guid, 16);
	im->pdb_age = (uint32_t)cursor_var(c);
	im->pdb_name = str_of(r, cursor_var(c));
	im->original_name = str_of(r, cursor_var(c));
	if (c->bad || (copy = arena_alloc(r, sizeof(*copy))) == NULL)
		return -1;
	*copy = *im;
	return deftab_set(r, &r->images, im->id, copy);
}

static int
parse_stack(struct stream_reader *r, struct cursor *c, struct stream_stack *s)
{
	const unsigned char *raw;
	uint64_t *frames;
	struct stream_stack *copy;
	uint32_t i;

	s->id = (stream_id)cursor_var(c);
	s->head = (stream_id)cursor_var(c);
	s->next = (stream_id)cursor_var(c);
	s->unresolved = cursor_u8(c);
	s->nframes = (uint32_t)cursor_var(c);
	if (c->bad || s->nframes > cursor_left(c) / 8 ||
	    s->nframes > STREAM_STACK_MAX)
		return -1;
	raw = cursor_take(c, (size_t)s->nframes * 8);
	/* Copy, since frames in the record need not be 8-byte aligned. */
	if ((r->flags & STREAM_KEEP_STACKS) == 0)
		frames = r->frames;
	else if ((frames = arena_alloc(r, s->nframes * 8 + 8)) == NULL)
		return -1;
	for (i = 0; i < s->nframes; i++)
		frames[i] = le64(raw + 8 * i);
	s->frames = frames;
	/* Refused alike whether the reader keeps stacks or not. */
	if (!def_id_ok(r, s->id))
		return -1;
	if ((r->flags & STREAM_KEEP_STACKS) == 0)
		return 0;
	if ((copy = arena_alloc(r, sizeof(*copy))) == NULL)
		return -1;
	*copy = *s;
	return deftab_set(r, &r->stacks, s->id, copy);
}

static int
parse_event(struct stream_reader *r, struct cursor *c, struct stream_event *ev)
{
	const unsigned char *head = cursor_take(c, 32);
	uint64_t n, i;

	if (head == NULL)
		return -1;
	ev->h.kind = head[0];
	ev->h.op = head[1];
	ev->h.cpu = le16(head + 2);
	ev->h.stack = le32(head + 4);
	ev->h.ts = (int64_t)le64(head + 8);
	ev->h.pid = le32(head + 16);
	ev->h.tid = le32(head + 20);
	ev->h.cls = le32(head + 24);
	/* A pass that wants only definitions: the fields would cost more. */
	if (r->flags & STREAM_EVENT_HEADS)
		return 0;
	if (r->field_kinds != UINT32_MAX && (ev->h.kind >= 32 ||
	    !(r->field_kinds & STREAM_KIND(ev->h.kind)))) {
		ev->nfields = 0;
		ev->fields = r->fields;
		ev->payload = NULL;
		ev->payload_len = 0;
		return 0;
	}
	n = get_var(c);
	if (n > STREAM_EVENT_FIELDS_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		r->fields[i].name = str_of(r, get_var(c));
		if (get_value(c, &r->fields[i].val) != 0)
			return -1;
	}
	ev->nfields = (size_t)n;
	ev->fields = r->fields;
	ev->payload = cursor_bytes(c, &ev->payload_len);
	return c->bad ? -1 : 0;
}

static int
parse_table(struct stream_reader *r, struct cursor *c, struct stream_table *t)
{
	uint64_t n, i;

	t->id = (stream_id)cursor_var(c);
	t->name = get_str(r, c);
	n = cursor_var(c);
	if (c->bad || n > cursor_left(c))
		return -1;
	if (n > r->cols_cap) {
		struct stream_column *cols = realloc(r->cols, n * sizeof(*cols));

		if (cols == NULL)
			return -1;
		r->cols = cols;
		r->cols_cap = n;
	}
	for (i = 0; i < n; i++) {
		r->cols[i].name = get_str(r, c);
		r->cols[i].type = cursor_u8(c);
		r->cols[i].unit = get_str(r, c);
		if (r->cols[i].type > VAL_TYPE_MAX)
			return -1;
	}
	t->ncols = (size_t)n;
	t->cols = r->cols;
	return c->bad ? -1 : 0;
}

static int
parse_row(struct stream_reader *r, struct cursor *c, struct stream_row *row)
{
	uint64_t n, i;

	row->table = (stream_id)cursor_var(c);
	n = cursor_var(c);
	if (c->bad || n > cursor_left(c))
		return -1;
	if (n > r->rowcells_cap) {
		struct value *cells = realloc(r->rowcells, n * sizeof(*cells));

		if (cells == NULL)
			return -1;
		r->rowcells = cells;
		r->rowcells_cap = n;
	}
	for (i = 0; i < n; i++)
		if (get_value(c, &r->rowcells[i]) != 0)
			return -1;
	row->ncells = (size_t)n;
	row->cells = r->rowcells;
	return 0;
}

static int
parse_symbol(struct stream_reader *r, struct cursor *c,
    struct stream_symbol *s)
{
	struct stream_inline *in = r->inlines;
	uint64_t n, i;

	s->id = (stream_id)cursor_var(c);
	s->image = (stream_id)cursor_var(c);
	s->address = cursor_var(c);
	s->function = str_of(r, cursor_var(c));
	s->offset = cursor_var(c);
	s->file = str_of(r, cursor_var(c));
	s->line = (uint32_t)cursor_var(c);
	n = cursor_var(c);
	if (c->bad || n > STREAM_INLINE_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		in[i].function = str_of(r, cursor_var(c));
		in[i].file = str_of(r, cursor_var(c));
		in[i].line = (uint32_t)cursor_var(c);
	}
	s->ninlines = (uint32_t)n;
	s->inlines = in;
	return c->bad ? -1 : 0;
}

static int
parse_image_symbols(struct stream_reader *r, struct cursor *c,
    struct stream_image_symbols *s)
{
	const unsigned char *guid;

	s->image = (stream_id)cursor_var(c);
	s->status = cursor_u8(c);
	if ((guid = cursor_take(c, 16)) != NULL)
		memcpy(s->pdb_guid, guid, 16);
	s->pdb_age = (uint32_t)cursor_var(c);
	s->pdb_name = str_of(r, cursor_var(c));
	s->pdb_path = str_of(r, cursor_var(c));
	s->message = str_of(r, cursor_var(c));
	s->frames = cursor_var(c);
	s->addresses = cursor_var(c);
	s->named = cursor_var(c);
	return c->bad ? -1 : 0;
}

static int
parse_record(struct stream_reader *r, struct stream_record *rec)
{
	struct cursor c;

	cursor_init(&c, rec->body, rec->body_len);
	switch (rec->type) {
	case REC_HEADER:
		return parse_header(r, &c, rec);
	case REC_TRACE:
		return parse_trace(r, &c, &rec->u.trace);
	case REC_END:
		return parse_end(r, &c, &rec->u.end);
	case REC_DIAG:
		return parse_diag(r, &c, &rec->u.diag);
	case REC_COUNT:
		rec->u.count.cls = (stream_id)cursor_var(&c);
		rec->u.count.count = cursor_var(&c);
		return c.bad ? -1 : 0;
	case REC_STRING:
		return parse_string(r, &c, rec);
	case REC_CLASS:
		return parse_class(r, &c, &rec->u.cls);
	case REC_PROCESS:
		return parse_process(r, &c, &rec->u.process);
	case REC_THREAD:
		return parse_thread(r, &c, &rec->u.thread);
	case REC_IMAGE:
		return parse_image(r, &c, &rec->u.image);
	case REC_STACK:
		return parse_stack(r, &c, &rec->u.stack);
	case REC_EVENT:
		return parse_event(r, &c, &rec->u.event);
	case REC_TABLE:
		return parse_table(r, &c, &rec->u.table);
	case REC_ROW:
		return parse_row(r, &c, &rec->u.row);
	case REC_SYMBOL:
		return parse_symbol(r, &c, &rec->u.symbol);
	case REC_IMAGE_SYMBOLS:
		return parse_image_symbols(r, &c, &rec->u.image_symbols);
	}
	return 0;	/* unknown: passed through as raw bytes */
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
	memset(rec, 0, sizeof(*rec));
	rec->type = word & 0xff;
	rec->body = r->cur + r->pos + 4;
	rec->body_len = len;
	r->pos += 4 + (size_t)len;
	if (rec->type != REC_HEADER && !r->in_section)
		return reader_fail(r, at, "not an event stream");
	r->bad_why = NULL;
	r->why[0] = '\0';
	if (parse_record(r, rec) != 0) {
		if (rec->type == REC_HEADER)
			return reader_fail(r, at, "not an event stream");
		if (r->bad_why != NULL)
			set_why(r);
		if (r->over_budget)
			return reader_fail(r, at, "%sdefinitions over the limit "
			    "of %u MiB and %u bytes a byte of input: %llu bytes "
			    "after %llu bytes of input", r->why,
			    DEF_FIXED >> 20, DEF_RATIO,
			    (unsigned long long)r->def_bytes,
			    (unsigned long long)input_read(r));
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

const char *
stream_string(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->strings, id);
}

const struct stream_class *
stream_class(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->classes, id);
}

const struct stream_process *
stream_process(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->processes, id);
}

const struct stream_thread *
stream_thread(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->threads, id);
}

const struct stream_image *
stream_image(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->images, id);
}

const struct stream_stack *
stream_stack(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->stacks, id);
}

/*
 * Appends the frames of `id` at out[n..cap).  A stack's parts may share
 * parts of their own, so a bad chain could fan out twice a level: depth
 * and the number of parts visited (*visits) are bounded.
 */
static long
collect_frames(const struct stream_reader *r, stream_id id, uint64_t *out,
    size_t cap, long n, int depth, unsigned *visits)
{
	const struct stream_stack *s = stream_stack(r, id);
	uint32_t i;

	if (s == NULL || depth > 64 || ++*visits > STACK_VISITS)
		return -1;
	if (s->head != 0 && (n = collect_frames(r, s->head, out, cap, n,
	    depth + 1, visits)) < 0)
		return -1;
	for (i = 0; i < s->nframes && (size_t)n < cap; i++)
		out[n++] = s->frames[i];
	if (s->next != 0)
		n = collect_frames(r, s->next, out, cap, n, depth + 1, visits);
	return n;
}

long
stream_stack_frames(const struct stream_reader *r, stream_id id,
    uint64_t *out, size_t cap)
{
	unsigned visits = 0;

	return collect_frames(r, id, out, cap, 0, 0, &visits);
}

const struct stream_trace *
stream_current_trace(const struct stream_reader *r)
{
	return r->trace;
}

const struct stream_process *
stream_process_by_pid(const struct stream_reader *r, uint32_t pid)
{
	uint32_t id;

	return idmap_get(&r->pids, pid, &id) ? stream_process(r, id) : NULL;
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
	case REC_IMAGE_SYMBOLS:
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

const struct value *
stream_event_field(const struct stream_event *ev, const char *name)
{
	size_t i;

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
