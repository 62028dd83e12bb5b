/*
 * buf.h - a growable byte buffer with little-endian and varint encoders,
 * and a bounds-checked cursor to decode them again.
 *
 * The stream format is built from these: unsigned LEB128 varints, zigzag
 * varints for signed values, fixed little-endian words, and byte strings
 * as a varint length followed by the bytes.
 *
 * A struct buf owns its memory (buf_release() frees it).  A struct cursor
 * only points at memory someone else owns.  Decoding never reads past the
 * end: a read that would sets cursor.bad and returns zero, so a caller can
 * decode a whole record and check once at the end.
 */
#ifndef BUF_H
#define BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct buf {
	unsigned char *data;
	size_t len, cap;
	int oom;		/* an allocation failed; contents are short */
};

void buf_release(struct buf *b);
/* The slow path of buf_reserve(). */
unsigned char *buf_grow(struct buf *b, size_t n);

/*
 * Makes room for `n` more bytes; returns a pointer to them, NULL if OOM.
 * A buffer never allocated is given memory even for n == 0, so that the
 * pointer returned is never an offset from NULL.
 * Inline: the encoders call it for every field of every event.
 */
static inline unsigned char *
buf_reserve(struct buf *b, size_t n)
{
	if (b->cap - b->len >= n && b->data != NULL && !b->oom)
		return b->data + b->len;
	return buf_grow(b, n);
}

/*
 * The encoders, inline because every field of every event goes through
 * them (measured: a fifth of etlcat's time when they were calls).
 */
static inline void
buf_put(struct buf *b, const void *p, size_t n)
{
	unsigned char *d = buf_reserve(b, n);

	if (d != NULL && n > 0) {
		memcpy(d, p, n);
		b->len += n;
	}
}

static inline void
buf_put_u8(struct buf *b, unsigned v)
{
	unsigned char *d = buf_reserve(b, 1);

	if (d != NULL) {
		d[0] = (unsigned char)v;
		b->len++;
	}
}

static inline void
buf_put_u16(struct buf *b, uint16_t v)
{
	unsigned char *d = buf_reserve(b, 2);

	if (d != NULL) {
		d[0] = v & 0xff;
		d[1] = v >> 8;
		b->len += 2;
	}
}

static inline void
buf_put_u32(struct buf *b, uint32_t v)
{
	unsigned char *d = buf_reserve(b, 4);

	if (d != NULL) {
		d[0] = v & 0xff;
		d[1] = (v >> 8) & 0xff;
		d[2] = (v >> 16) & 0xff;
		d[3] = v >> 24;
		b->len += 4;
	}
}

static inline void
buf_put_u64(struct buf *b, uint64_t v)
{
	buf_put_u32(b, (uint32_t)v);
	buf_put_u32(b, (uint32_t)(v >> 32));
}

/* Unsigned LEB128. */
static inline void
buf_put_var(struct buf *b, uint64_t v)
{
	unsigned char *d = buf_reserve(b, 10);
	size_t n = 0;

	if (d == NULL)
		return;
	while (v >= 0x80) {
		d[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	d[n++] = (unsigned char)v;
	b->len += n;
}

/* Zigzag, then LEB128: small magnitudes of either sign stay short. */
static inline void
buf_put_svar(struct buf *b, int64_t v)
{
	buf_put_var(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}
void buf_put_bytes(struct buf *b, const void *p, size_t n);
void buf_put_str(struct buf *b, const char *s);	/* NULL is "" */

/*
 * Element i of an array of `size`-byte elements (a table by id), growing
 * the array, zeroed, to hold i.  `arrayp` is the address of the array
 * pointer and *cap its length in elements.
 * @return : the element, or NULL if out of memory.
 */
void *array_slot_grow(void *arrayp, size_t *cap, size_t i, size_t size);

/* The same without clearing the new room: for arrays written whole. */
void *array_room_grow(void *arrayp, size_t *cap, size_t i, size_t size);

/* Inline, since decoders look up an element or two an event. */
static inline void *
array_slot(void *arrayp, size_t *cap, size_t i, size_t size)
{
	return i < *cap ? *(char **)arrayp + i * size :
	    array_slot_grow(arrayp, cap, i, size);
}

static inline void *
array_room(void *arrayp, size_t *cap, size_t i, size_t size)
{
	return i < *cap ? *(char **)arrayp + i * size :
	    array_room_grow(arrayp, cap, i, size);
}

struct cursor {
	const unsigned char *p, *end;
	int bad;		/* a read ran past the end or was malformed */
};

void cursor_init(struct cursor *c, const void *p, size_t len);
unsigned cursor_u8(struct cursor *c);
uint16_t cursor_u16(struct cursor *c);
uint32_t cursor_u32(struct cursor *c);
uint64_t cursor_u64(struct cursor *c);
uint64_t cursor_var(struct cursor *c);
int64_t cursor_svar(struct cursor *c);
/* A length-prefixed byte string; *len gets its length. */
const unsigned char *cursor_bytes(struct cursor *c, size_t *len);
const unsigned char *cursor_take(struct cursor *c, size_t n);
size_t cursor_left(const struct cursor *c);

/* Little-endian loads from memory the caller has bounds-checked. */
static inline uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static inline uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

#endif
