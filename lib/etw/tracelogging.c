/*
 * tracelogging.c - TraceLogging event decoding (etl-format.md section 7).
 *
 * Two passes.  The event metadata (7.2) is parsed into a flat array of
 * field definitions in metadata order, each knowing the index just past
 * its struct members; then the payload is walked against that array,
 * appending one tl_field per leaf value.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf.h"
#include "tracelogging.h"

/* Values and struct instances per event, see decode_element(). */
#define TL_MAX_STEPS	(1 << 20)
/* Scratch memory is taken in chunks this large, or larger. */
#define TL_CHUNK_SIZE	65536

/* InType, the low 5 bits of InMeta (7.2). */
enum tl_intype {
	TL_IN_UNICODESTRING = 1,
	TL_IN_ANSISTRING = 2,
	TL_IN_INT8 = 3,
	TL_IN_UINT8 = 4,
	TL_IN_INT16 = 5,
	TL_IN_UINT16 = 6,
	TL_IN_INT32 = 7,
	TL_IN_UINT32 = 8,
	TL_IN_INT64 = 9,
	TL_IN_UINT64 = 10,
	TL_IN_FLOAT = 11,
	TL_IN_DOUBLE = 12,
	TL_IN_BOOL32 = 13,
	TL_IN_BINARY = 14,
	TL_IN_GUID = 15,
	TL_IN_POINTER = 16,
	TL_IN_FILETIME = 17,
	TL_IN_SYSTEMTIME = 18,
	TL_IN_SID = 19,
	TL_IN_HEXINT32 = 20,
	TL_IN_HEXINT64 = 21,
	TL_IN_COUNTEDSTRING = 22,
	TL_IN_COUNTEDANSISTRING = 23,
	TL_IN_STRUCT = 24,
	TL_IN_COUNTEDBINARY = 25,
	TL_IN_COUNT = 26
};

/* The OutTypes that change the value type; the others are display hints. */
enum tl_outtype {
	TL_OUT_STRING = 2,
	TL_OUT_BOOLEAN = 3,
	TL_OUT_HEX = 4
};

/* Count kind, InMeta & TL_COUNT_MASK. */
enum tl_count {
	TL_SCALAR = 0x00,
	TL_FIXED = 0x20,	/* element count in the metadata */
	TL_VARIABLE = 0x40,	/* u16 element count in the payload */
	TL_CUSTOM = 0x60	/* u16 byte count and bytes in the payload */
};

enum tl_meta_bits {
	TL_INTYPE_MASK = 0x1F,
	TL_COUNT_MASK = 0x60,
	TL_CHAIN = 0x80,	/* OutMeta follows InMeta, tags OutMeta */
	TL_OUTTYPE_MASK = 0x7F
};

/* One field definition from the event metadata. */
struct tl_def {
	const unsigned char	*name;	/* in the metadata */
	size_t			 name_len;
	size_t			 meta_off;	/* where it starts */
	size_t			 end;	/* index past its members */
	uint16_t		 ccount;	/* TL_FIXED element count */
	unsigned char		 intype;
	unsigned char		 outtype;	/* struct: member count */
	unsigned char		 count;	/* enum tl_count */
};

struct tl_cursor {
	const unsigned char	*p;
	size_t			 len;
	size_t			 pos;
};

/* Scratch memory; chunks never move, so values may point into them. */
struct tl_chunk {
	struct tl_chunk	*next;
	size_t		 cap;
	size_t		 used;
	char		 mem[];
};

struct tl_decoder {
	struct tl_def		*defs;
	size_t			 ndefs;
	size_t			 defs_cap;
	struct tl_field		*fields;
	size_t			 nfields;
	size_t			 fields_cap;
	struct tl_chunk		*chunks;	/* kept between events */
	struct tl_chunk		*chunk;	/* the one being filled */
	struct tl_cursor	 pay;
	int			 ptr_size;
	size_t			 steps;
	size_t			 path_len;
	char			 path[TL_MAX_NAME];	/* field name */
	char			 err[256];
};

static int	dec_float(struct tl_decoder *, struct value *);
static int	dec_double(struct tl_decoder *, struct value *);
static int	dec_utf16z(struct tl_decoder *, struct value *);
static int	dec_ansiz(struct tl_decoder *, struct value *);
static int	dec_counted_utf16(struct tl_decoder *, struct value *);
static int	dec_counted_ansi(struct tl_decoder *, struct value *);
static int	dec_bytes(struct tl_decoder *, struct value *);
static int	dec_guid(struct tl_decoder *, struct value *);
static int	dec_filetime(struct tl_decoder *, struct value *);
static int	dec_systemtime(struct tl_decoder *, struct value *);
static int	dec_sid(struct tl_decoder *, struct value *);

/*
 * How each InType is laid out in the payload (7.2): integers by their size
 * (decode is NULL), everything else by a function.  Struct has no payload
 * of its own.
 */
static const struct tl_intype_info {
	enum value_type	 type;	/* VAL_NULL: not an InType */
	unsigned char	 size;	/* integer bytes, 0: pointer size */
	int		(*decode)(struct tl_decoder *, struct value *);
} intypes[TL_IN_COUNT] = {
	[TL_IN_UNICODESTRING] = { VAL_STR, 0, dec_utf16z },
	[TL_IN_ANSISTRING] = { VAL_STR, 0, dec_ansiz },
	[TL_IN_INT8] = { VAL_I64, 1, NULL },
	[TL_IN_UINT8] = { VAL_U64, 1, NULL },
	[TL_IN_INT16] = { VAL_I64, 2, NULL },
	[TL_IN_UINT16] = { VAL_U64, 2, NULL },
	[TL_IN_INT32] = { VAL_I64, 4, NULL },
	[TL_IN_UINT32] = { VAL_U64, 4, NULL },
	[TL_IN_INT64] = { VAL_I64, 8, NULL },
	[TL_IN_UINT64] = { VAL_U64, 8, NULL },
	[TL_IN_FLOAT] = { VAL_F64, 0, dec_float },
	[TL_IN_DOUBLE] = { VAL_F64, 0, dec_double },
	[TL_IN_BOOL32] = { VAL_BOOL, 4, NULL },
	[TL_IN_BINARY] = { VAL_BYTES, 0, dec_bytes },
	[TL_IN_GUID] = { VAL_GUID, 0, dec_guid },
	[TL_IN_POINTER] = { VAL_HEX, 0, NULL },
	[TL_IN_FILETIME] = { VAL_UTC, 0, dec_filetime },
	[TL_IN_SYSTEMTIME] = { VAL_UTC, 0, dec_systemtime },
	[TL_IN_SID] = { VAL_STR, 0, dec_sid },
	[TL_IN_HEXINT32] = { VAL_HEX, 4, NULL },
	[TL_IN_HEXINT64] = { VAL_HEX, 8, NULL },
	[TL_IN_COUNTEDSTRING] = { VAL_STR, 0, dec_counted_utf16 },
	[TL_IN_COUNTEDANSISTRING] = { VAL_STR, 0, dec_counted_ansi },
	[TL_IN_COUNTEDBINARY] = { VAL_BYTES, 0, dec_bytes }
};

static int	decode_fields(struct tl_decoder *, size_t, size_t);

static int
fail(struct tl_decoder *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* An integer of 1 to 8 bytes, as the InType or the pointer size says. */
static uint64_t
le(const unsigned char *p, size_t size)
{
	uint64_t v = 0;

	while (size-- > 0)
		v = v << 8 | p[size];
	return v;
}

/*
 * Makes room for one more element in an array of `size`-byte elements.
 * @return : the (possibly moved) array, or NULL with *cap unchanged.
 */
static void *
grow(void *arr, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 64;
	void *p;

	if (n > SIZE_MAX / size || (p = realloc(arr, n * size)) == NULL)
		return NULL;
	*cap = n;
	return p;
}

/*
 * @return : room for n bytes of scratch memory, kept only once
 *	scratch_commit() says how much was used; NULL if out of memory.
 */
static char *
scratch_reserve(struct tl_decoder *d, size_t n)
{
	struct tl_chunk *c = d->chunk, *nc;
	size_t cap = n > TL_CHUNK_SIZE ? n : TL_CHUNK_SIZE;

	while (c != NULL && c->cap - c->used < n && c->next != NULL)
		c = c->next;
	if (c == NULL || c->cap - c->used < n) {
		if ((nc = malloc(sizeof(*nc) + cap)) == NULL) {
			fail(d, "out of memory");
			return NULL;
		}
		nc->next = NULL;
		nc->cap = cap;
		nc->used = 0;
		if (c == NULL)
			d->chunks = nc;
		else
			c->next = nc;
		c = nc;
	}
	d->chunk = c;
	return c->mem + c->used;
}

static void
scratch_commit(struct tl_decoder *d, size_t n)
{
	d->chunk->used += n;
}

static const char *
scratch_copy(struct tl_decoder *d, const void *src, size_t n)
{
	char *p;

	if ((p = scratch_reserve(d, n)) == NULL)
		return NULL;
	memcpy(p, src, n);
	scratch_commit(d, n);
	return p;
}

/* 8-bit text as a NUL-terminated UTF-8 VAL_STR in scratch memory. */
static int
set_ansi(struct tl_decoder *d, struct value *val, const unsigned char *src,
    size_t n)
{
	char *p;

	if ((p = scratch_reserve(d, 3 * n + 1)) == NULL)
		return -1;
	val->type = VAL_STR;
	val->v.s.ptr = p;
	val->v.s.len = ansi_to_utf8(src, n, p, 3 * n + 1, NULL);
	scratch_commit(d, val->v.s.len + 1);
	return 0;
}

static int
set_utf16(struct tl_decoder *d, struct value *val, const unsigned char *src,
    size_t n)
{
	size_t cap = n / 2 * 3 + 1;
	char *p;

	if ((p = scratch_reserve(d, cap)) == NULL)
		return -1;
	val->type = VAL_STR;
	val->v.s.ptr = p;
	val->v.s.len = utf16_to_utf8(src, n, p, cap, NULL);
	scratch_commit(d, val->v.s.len + 1);
	return 0;
}

/* Metadata reading (7.1, 7.2). */

static int
meta_u8(struct tl_decoder *d, struct tl_cursor *c, unsigned char *v)
{
	if (c->pos == c->len)
		return fail(d, "metadata ends inside a field definition "
		    "at metadata offset 0x%zx", c->pos);
	*v = c->p[c->pos++];
	return 0;
}

static int
meta_u16(struct tl_decoder *d, struct tl_cursor *c, uint16_t *v)
{
	if (c->len - c->pos < 2)
		return fail(d, "metadata ends inside a field definition "
		    "at metadata offset 0x%zx", c->pos);
	*v = le16(c->p + c->pos);
	c->pos += 2;
	return 0;
}

static int
meta_name(struct tl_decoder *d, struct tl_cursor *c,
    const unsigned char **name, size_t *len)
{
	const unsigned char *p = c->p + c->pos, *nul;

	if ((nul = memchr(p, 0, c->len - c->pos)) == NULL)
		return fail(d, "unterminated name at metadata offset 0x%zx",
		    c->pos);
	*name = p;
	*len = (size_t)(nul - p);
	c->pos += *len + 1;
	return 0;
}

/*
 * Tags are 28 bits sent 7 at a time, most significant first, while bit 7
 * of a byte says another follows; the first byte holds bits 27-21 (TLD
 * AddTags), so a lone byte b means b << 21.
 */
static int
meta_tags(struct tl_decoder *d, struct tl_cursor *c, uint32_t *tags)
{
	size_t start = c->pos;
	unsigned char b;
	int i;

	*tags = 0;
	for (i = 0; i < 4; i++) {
		if (c->pos == c->len)
			return fail(d, "metadata ends inside tags at metadata "
			    "offset 0x%zx", start);
		b = c->p[c->pos++];
		*tags |= (uint32_t)(b & 0x7F) << (21 - 7 * i);
		if ((b & TL_CHAIN) == 0)
			return 0;
	}
	return fail(d, "tags longer than 4 bytes at metadata offset 0x%zx",
	    start);
}

/* Reads one FieldMetadata entry (7.2) into *f. */
static int
meta_def(struct tl_decoder *d, struct tl_cursor *c, struct tl_def *f)
{
	unsigned char in = 0, out = 0;
	uint16_t schema = 0;
	uint32_t tags;

	f->meta_off = c->pos;
	f->ccount = 0;
	if (meta_name(d, c, &f->name, &f->name_len) == -1 ||
	    meta_u8(d, c, &in) == -1)
		return -1;
	if ((in & TL_CHAIN) != 0 && meta_u8(d, c, &out) == -1)
		return -1;
	if ((out & TL_CHAIN) != 0 && meta_tags(d, c, &tags) == -1)
		return -1;
	f->intype = in & TL_INTYPE_MASK;
	f->outtype = out & TL_OUTTYPE_MASK;
	f->count = in & TL_COUNT_MASK;
	if (f->intype != TL_IN_STRUCT && (f->intype >= TL_IN_COUNT ||
	    intypes[f->intype].type == VAL_NULL))
		return fail(d, "unknown in-type %u at metadata offset 0x%zx",
		    f->intype, f->meta_off);
	if (f->count == TL_FIXED && meta_u16(d, c, &f->ccount) == -1)
		return -1;
	if (f->count == TL_CUSTOM) {
		if (meta_u16(d, c, &schema) == -1)
			return -1;
		if (schema > c->len - c->pos)
			return fail(d, "metadata ends inside a custom schema "
			    "at metadata offset 0x%zx", c->pos);
		c->pos += schema;
	}
	return 0;
}

static struct tl_def *
new_def(struct tl_decoder *d)
{
	struct tl_def *p;

	if (d->ndefs == d->defs_cap) {
		if ((p = grow(d->defs, &d->defs_cap, sizeof(*p))) == NULL) {
			fail(d, "out of memory");
			return NULL;
		}
		d->defs = p;
	}
	return &d->defs[d->ndefs++];
}

/*
 * Reads the field definitions to the end of the metadata.  A struct owns
 * the next N fields (N = its OutMeta), each with its own members, so a
 * stack of open structs tells when a field completes the ones around it.
 */
static int
meta_defs(struct tl_decoder *d, struct tl_cursor *c)
{
	struct {
		size_t		def;
		unsigned	left;	/* members still to come */
	} open[TL_MAX_DEPTH];
	size_t depth = 0;
	struct tl_def *f;

	while (c->pos < c->len) {
		if ((f = new_def(d)) == NULL || meta_def(d, c, f) == -1)
			return -1;
		if (f->intype == TL_IN_STRUCT && f->outtype > 0) {
			if (depth == TL_MAX_DEPTH)
				return fail(d, "structs nested deeper than %d "
				    "at metadata offset 0x%zx", TL_MAX_DEPTH,
				    f->meta_off);
			open[depth].def = d->ndefs - 1;
			open[depth].left = f->outtype;
			depth++;
			continue;
		}
		f->end = d->ndefs;
		while (depth > 0 && --open[depth - 1].left == 0) {
			d->defs[open[depth - 1].def].end = d->ndefs;
			depth--;
		}
	}
	if (depth > 0)
		return fail(d, "metadata ends before the last member of the "
		    "struct at metadata offset 0x%zx",
		    d->defs[open[depth - 1].def].meta_off);
	return 0;
}

/* Section 7.2: TotalSize, tags, the event name, the field definitions. */
static int
parse_meta(struct tl_decoder *d, const unsigned char *meta, size_t meta_len,
    struct tl_event *ev)
{
	struct tl_cursor c;
	struct value name;
	const unsigned char *p = NULL;
	size_t total, len = 0;

	if (meta == NULL || meta_len < 2)
		return fail(d, "event metadata shorter than 2 bytes");
	total = le16(meta);
	if (total < 2 || total > meta_len)
		return fail(d, "event metadata size %zu does not fit in its "
		    "%zu bytes", total, meta_len);
	c.p = meta;
	c.len = total;
	c.pos = 2;
	if (meta_tags(d, &c, &ev->tags) == -1 ||
	    meta_name(d, &c, &p, &len) == -1 ||
	    set_ansi(d, &name, p, len) == -1)
		return -1;
	ev->name = name.v.s.ptr;
	return meta_defs(d, &c);
}

/* Section 7.1: TotalSize and the provider name; the traits are unused. */
static int
parse_traits(struct tl_decoder *d, const unsigned char *traits, size_t len,
    struct tl_event *ev)
{
	const unsigned char *nul;
	struct value name;
	size_t total;

	if (traits == NULL || len == 0)
		return 0;
	if (len < 2 || (total = le16(traits)) < 3 || total > len)
		return fail(d, "provider traits size does not fit in their "
		    "%zu bytes", len);
	if ((nul = memchr(traits + 2, 0, total - 2)) == NULL)
		return fail(d, "unterminated provider name at traits offset "
		    "0x2");
	if (set_ansi(d, &name, traits + 2, (size_t)(nul - traits) - 2) == -1)
		return -1;
	ev->provider = name.v.s.ptr;
	return 0;
}

/* Payload reading. */

static const unsigned char *
take(struct tl_decoder *d, size_t n)
{
	const unsigned char *p;

	if (d->pay.len - d->pay.pos < n) {
		fail(d, "truncated payload: '%s' needs %zu bytes at payload "
		    "offset 0x%zx, %zu left", d->path, n, d->pay.pos,
		    d->pay.len - d->pay.pos);
		return NULL;
	}
	p = d->pay.p + d->pay.pos;
	d->pay.pos += n;
	return p;
}

/* Reads a u16 byte count and the bytes it counts. */
static const unsigned char *
take_counted(struct tl_decoder *d, size_t *n)
{
	const unsigned char *p;

	if ((p = take(d, 2)) == NULL)
		return NULL;
	*n = le16(p);
	return take(d, *n);
}

/* A copy of n payload bytes as a value of the given type. */
static int
set_bytes(struct tl_decoder *d, struct value *val, enum value_type type,
    const unsigned char *p, size_t n)
{
	if ((val->v.s.ptr = scratch_copy(d, p, n)) == NULL)
		return -1;
	val->type = type;
	val->v.s.len = n;
	return 0;
}

/* A UInt8 or UInt16 with OutType String is one character. */
static int
dec_char(struct tl_decoder *d, const unsigned char *p, size_t size,
    struct value *val)
{
	if (size == 1)
		return set_ansi(d, val, p, 1);
	return set_utf16(d, val, p, 2);
}

static int
dec_int(struct tl_decoder *d, const struct tl_def *f, struct value *val)
{
	const struct tl_intype_info *t = &intypes[f->intype];
	size_t size = t->size ? t->size : (size_t)d->ptr_size;
	const unsigned char *p;
	uint64_t raw;

	if ((p = take(d, size)) == NULL)
		return -1;
	if (f->outtype == TL_OUT_STRING && (f->intype == TL_IN_UINT8 ||
	    f->intype == TL_IN_UINT16))
		return dec_char(d, p, size, val);
	raw = le(p, size);
	val->type = t->type;
	if (f->outtype == TL_OUT_HEX)
		val->type = VAL_HEX;
	else if (f->outtype == TL_OUT_BOOLEAN)
		val->type = VAL_BOOL;
	if (val->type == VAL_BOOL)
		val->v.u = raw != 0;
	else if (val->type == VAL_I64 && size < 8 &&
	    (raw >> (8 * size - 1)) != 0)
		val->v.i = (int64_t)(raw | ~(uint64_t)0 << (8 * size));
	else
		val->v.u = raw;
	return 0;
}

static int
dec_float(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;
	uint32_t bits;
	float x;

	if ((p = take(d, 4)) == NULL)
		return -1;
	bits = le32(p);
	memcpy(&x, &bits, sizeof(x));
	val->type = VAL_F64;
	val->v.f = x;
	return 0;
}

static int
dec_double(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;
	uint64_t bits;

	if ((p = take(d, 8)) == NULL)
		return -1;
	bits = le64(p);
	val->type = VAL_F64;
	memcpy(&val->v.f, &bits, sizeof(val->v.f));
	return 0;
}

static int
dec_utf16z(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p = d->pay.p + d->pay.pos;
	size_t n = utf16_span(p, d->pay.len - d->pay.pos);

	if (n == 0 || p[n - 2] != 0 || p[n - 1] != 0)
		return fail(d, "truncated payload: UTF-16 string '%s' at "
		    "payload offset 0x%zx has no NUL", d->path, d->pay.pos);
	d->pay.pos += n;
	return set_utf16(d, val, p, n - 2);
}

static int
dec_ansiz(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p = d->pay.p + d->pay.pos, *nul;
	size_t n;

	if ((nul = memchr(p, 0, d->pay.len - d->pay.pos)) == NULL)
		return fail(d, "truncated payload: string '%s' at payload "
		    "offset 0x%zx has no NUL", d->path, d->pay.pos);
	n = (size_t)(nul - p);
	d->pay.pos += n + 1;
	return set_ansi(d, val, p, n);
}

static int
dec_counted_utf16(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;
	size_t n;

	if ((p = take_counted(d, &n)) == NULL)
		return -1;
	return set_utf16(d, val, p, n);
}

/* 8-bit text; with OutType UTF-8 it is valid UTF-8 and copied as is. */
static int
dec_counted_ansi(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;
	size_t n;

	if ((p = take_counted(d, &n)) == NULL)
		return -1;
	return set_ansi(d, val, p, n);
}

static int
dec_bytes(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;
	size_t n;

	if ((p = take_counted(d, &n)) == NULL)
		return -1;
	return set_bytes(d, val, VAL_BYTES, p, n);
}

static int
dec_guid(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;

	if ((p = take(d, 16)) == NULL)
		return -1;
	return set_bytes(d, val, VAL_GUID, p, 16);
}

static int
dec_filetime(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;

	if ((p = take(d, 8)) == NULL)
		return -1;
	val->type = VAL_UTC;
	val->v.u = le64(p);
	return 0;
}

/*
 * Days from 1601-01-01 to y-m-d (proleptic Gregorian, y >= 1601): the
 * civil-from-days method counting years from March, so that the leap day
 * ends the year.
 */
static int64_t
days_since_1601(unsigned y, unsigned m, unsigned d)
{
	const int64_t days_1601_to_0000_03_01 = 584694;
	unsigned yoe, doy, era;

	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	return (int64_t)era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy -
	    days_1601_to_0000_03_01;
}

/*
 * SYSTEMTIME is eight u16: year, month, day of week, day, hour, minute,
 * second, milliseconds.  Values a FILETIME cannot hold give VAL_NULL.
 */
static int
dec_systemtime(struct tl_decoder *d, struct value *val)
{
	const unsigned char *p;
	unsigned t[8];
	int64_t days;
	int i;

	if ((p = take(d, 16)) == NULL)
		return -1;
	for (i = 0; i < 8; i++)
		t[i] = le16(p + 2 * i);
	if (t[0] < 1601 || t[0] > 30827 || t[1] < 1 || t[1] > 12 ||
	    t[3] < 1 || t[3] > 31 || t[4] > 23 || t[5] > 59 || t[6] > 59 ||
	    t[7] > 999) {
		val->type = VAL_NULL;
		return 0;
	}
	days = days_since_1601(t[0], t[1], t[3]);
	val->type = VAL_UTC;
	val->v.u = ((((uint64_t)days * 24 + t[4]) * 60 + t[5]) * 60 + t[6]) *
	    10000000 + (uint64_t)t[7] * 10000;
	return 0;
}

/*
 * SID: revision, sub-authority count n, 48-bit big-endian authority, n
 * u32 sub-authorities; written as Windows does, the authority in hex once
 * it needs more than 32 bits.
 */
static int
dec_sid(struct tl_decoder *d, struct value *val)
{
	const unsigned char *h, *sub;
	size_t cap, len, i;
	uint64_t auth = 0;
	char *out;

	if ((h = take(d, 8)) == NULL || (sub = take(d, 4 * (size_t)h[1])) ==
	    NULL)
		return -1;
	for (i = 2; i < 8; i++)
		auth = auth << 8 | h[i];
	cap = 24 + 11 * (size_t)h[1];
	if ((out = scratch_reserve(d, cap)) == NULL)
		return -1;
	if (auth >> 32 == 0)
		len = (size_t)snprintf(out, cap, "S-%u-%llu", (unsigned)h[0],
		    (unsigned long long)auth);
	else
		len = (size_t)snprintf(out, cap, "S-%u-0x%012llx",
		    (unsigned)h[0], (unsigned long long)auth);
	for (i = 0; i < h[1]; i++)
		len += (size_t)snprintf(out + len, cap - len, "-%lu",
		    (unsigned long)le32(sub + 4 * i));
	scratch_commit(d, len + 1);
	val->type = VAL_STR;
	val->v.s.ptr = out;
	val->v.s.len = len;
	return 0;
}

/*
 * d->path is the composed name of the field being decoded, built from the
 * metadata bytes; add_field() makes each copy valid UTF-8.
 */
static int
push_name(struct tl_decoder *d, const struct tl_def *f)
{
	size_t dot = d->path_len > 0;

	if (f->name_len + dot >= sizeof(d->path) - d->path_len)
		return fail(d, "composed field name longer than %d bytes at "
		    "metadata offset 0x%zx", TL_MAX_NAME - 1, f->meta_off);
	if (dot)
		d->path[d->path_len++] = '.';
	memcpy(d->path + d->path_len, f->name, f->name_len);
	d->path_len += f->name_len;
	d->path[d->path_len] = '\0';
	return 0;
}

static int
push_index(struct tl_decoder *d, unsigned k)
{
	size_t room = sizeof(d->path) - d->path_len;
	int n;

	n = snprintf(d->path + d->path_len, room, "[%u]", k);
	if (n < 0 || (size_t)n >= room)
		return fail(d, "composed field name longer than %d bytes at "
		    "payload offset 0x%zx", TL_MAX_NAME - 1, d->pay.pos);
	d->path_len += (size_t)n;
	return 0;
}

static void
pop_name(struct tl_decoder *d, size_t mark)
{
	d->path_len = mark;
	d->path[mark] = '\0';
}

/* Names are UTF-8 by the format, but only checking makes them so. */
static int
add_field(struct tl_decoder *d, const struct value *val)
{
	struct tl_field *p;
	struct value name;

	if (d->nfields == d->fields_cap) {
		if ((p = grow(d->fields, &d->fields_cap, sizeof(*p))) == NULL)
			return fail(d, "out of memory");
		d->fields = p;
	}
	if (set_ansi(d, &name, (const unsigned char *)d->path,
	    d->path_len) == -1)
		return -1;
	d->fields[d->nfields].name = name.v.s.ptr;
	d->fields[d->nfields].val = *val;
	d->nfields++;
	return 0;
}

/*
 * Decodes one value, or one instance of a struct, named d->path.  The step
 * budget stops metadata such as nested fixed arrays of empty structs from
 * spinning for billions of steps without reading a byte; real events,
 * whose every value takes at least one byte of a 64 KiB payload, stay far
 * below it.
 */
static int
decode_element(struct tl_decoder *d, size_t i)
{
	const struct tl_def *f = &d->defs[i];
	struct value val;
	int rc;

	if (++d->steps > TL_MAX_STEPS)
		return fail(d, "more than %d values at payload offset 0x%zx",
		    TL_MAX_STEPS, d->pay.pos);
	if (f->intype == TL_IN_STRUCT)
		return decode_fields(d, i + 1, f->end);
	if (intypes[f->intype].decode != NULL)
		rc = intypes[f->intype].decode(d, &val);
	else
		rc = dec_int(d, f, &val);
	if (rc == -1)
		return -1;
	return add_field(d, &val);
}

/* An array applies to the whole field, repeating a struct's members. */
static int
decode_array(struct tl_decoder *d, size_t i)
{
	const struct tl_def *f = &d->defs[i];
	size_t mark = d->path_len;
	const unsigned char *p;
	unsigned n, k;

	if (f->count == TL_FIXED)
		n = f->ccount;
	else if ((p = take(d, 2)) != NULL)
		n = le16(p);
	else
		return -1;
	for (k = 0; k < n; k++) {
		if (push_index(d, k) == -1 || decode_element(d, i) == -1)
			return -1;
		pop_name(d, mark);
	}
	return 0;
}

/* A custom-serialised field is a u16 byte count and opaque bytes. */
static int
decode_custom(struct tl_decoder *d)
{
	struct value val;

	if (dec_bytes(d, &val) == -1)
		return -1;
	return add_field(d, &val);
}

static int
decode_field(struct tl_decoder *d, size_t i)
{
	const struct tl_def *f = &d->defs[i];
	size_t mark = d->path_len;
	int rc;

	if (push_name(d, f) == -1)
		return -1;
	if (f->count == TL_SCALAR)
		rc = decode_element(d, i);
	else if (f->count == TL_CUSTOM)
		rc = decode_custom(d);
	else
		rc = decode_array(d, i);
	pop_name(d, mark);
	return rc;
}

/* Decodes the sibling fields defs[first..end), skipping their members. */
static int
decode_fields(struct tl_decoder *d, size_t first, size_t end)
{
	size_t i;

	for (i = first; i < end; i = d->defs[i].end)
		if (decode_field(d, i) == -1)
			return -1;
	return 0;
}

static void
reset(struct tl_decoder *d, const unsigned char *payload, size_t payload_len,
    int ptr_size)
{
	static const unsigned char empty[1];
	struct tl_chunk *c;

	for (c = d->chunks; c != NULL; c = c->next)
		c->used = 0;
	d->chunk = d->chunks;
	d->ndefs = 0;
	d->nfields = 0;
	d->steps = 0;
	pop_name(d, 0);
	d->err[0] = '\0';
	d->pay.p = payload != NULL ? payload : empty;
	d->pay.len = payload != NULL ? payload_len : 0;
	d->pay.pos = 0;
	d->ptr_size = ptr_size;
}

struct tl_decoder *
tl_decoder_new(void)
{
	return calloc(1, sizeof(struct tl_decoder));
}

void
tl_decoder_free(struct tl_decoder *d)
{
	struct tl_chunk *c, *next;

	if (d == NULL)
		return;
	for (c = d->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(d->defs);
	free(d->fields);
	free(d);
}

int
tl_decode(struct tl_decoder *d, const unsigned char *traits,
    size_t traits_len, const unsigned char *meta, size_t meta_len,
    const unsigned char *payload, size_t payload_len, int ptr_size,
    struct tl_event *ev)
{
	int rc = 0;

	reset(d, payload, payload_len, ptr_size);
	ev->provider = "";
	ev->name = "";
	ev->tags = 0;
	if (ptr_size != 4 && ptr_size != 8)
		rc = fail(d, "pointer size %d is neither 4 nor 8", ptr_size);
	if (rc == 0)
		rc = parse_traits(d, traits, traits_len, ev);
	if (rc == 0)
		rc = parse_meta(d, meta, meta_len, ev);
	if (rc == 0)
		rc = decode_fields(d, 0, d->ndefs);
	if (rc == 0 && d->pay.pos != d->pay.len)
		rc = fail(d, "%zu trailing bytes at payload offset 0x%zx",
		    d->pay.len - d->pay.pos, d->pay.pos);
	ev->nfields = d->nfields;
	ev->fields = d->fields;
	return rc;
}

const char *
tl_decoder_error(const struct tl_decoder *d)
{
	return d->err;
}
