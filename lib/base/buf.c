/*
 * buf.c - byte buffers and the varint encoding of the stream format.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

void
buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

unsigned char *
buf_grow(struct buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	unsigned char *p;

	if (b->oom)
		return NULL;
	while (cap - b->len < n)
		cap *= 2;
	if ((p = realloc(b->data, cap)) == NULL) {
		b->oom = 1;
		return NULL;
	}
	b->data = p;
	b->cap = cap;
	return b->data + b->len;
}

void
buf_put_bytes(struct buf *b, const void *p, size_t n)
{
	buf_put_var(b, n);
	buf_put(b, p, n);
}

void
buf_put_str(struct buf *b, const char *s)
{
	buf_put_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

void *
array_room_grow(void *arrayp, size_t *cap, size_t i, size_t size)
{
	void **array = arrayp;
	size_t n = *cap ? *cap : 256;
	void *p;

	if (i < *cap)
		return (char *)*array + i * size;
	while (n <= i)
		n *= 2;
	if (n > SIZE_MAX / size || (p = realloc(*array, n * size)) == NULL)
		return NULL;
	*array = p;
	*cap = n;
	return (char *)p + i * size;
}

void *
array_slot_grow(void *arrayp, size_t *cap, size_t i, size_t size)
{
	size_t old = *cap;
	char *slot = array_room_grow(arrayp, cap, i, size);

	if (slot != NULL && *cap > old)
		memset(*(char **)arrayp + old * size, 0, (*cap - old) * size);
	return slot;
}

void
cursor_init(struct cursor *c, const void *p, size_t len)
{
	c->p = p;
	c->end = len > 0 ? c->p + len : c->p;	/* p may be NULL */
	c->bad = 0;
}

size_t
cursor_left(const struct cursor *c)
{
	return (size_t)(c->end - c->p);
}

const unsigned char *
cursor_take(struct cursor *c, size_t n)
{
	const unsigned char *p = c->p;

	if (c->bad || cursor_left(c) < n) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return p;
}

unsigned
cursor_u8(struct cursor *c)
{
	const unsigned char *p = cursor_take(c, 1);

	return p ? p[0] : 0;
}

uint16_t
cursor_u16(struct cursor *c)
{
	const unsigned char *p = cursor_take(c, 2);

	return p ? le16(p) : 0;
}

uint32_t
cursor_u32(struct cursor *c)
{
	const unsigned char *p = cursor_take(c, 4);

	return p ? le32(p) : 0;
}

uint64_t
cursor_u64(struct cursor *c)
{
	const unsigned char *p = cursor_take(c, 8);

	return p ? le64(p) : 0;
}

uint64_t
cursor_var(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift;

	/* Mostly one byte: ids, lengths and small counts. */
	if (!c->bad && c->p < c->end && *c->p < 0x80)
		return *c->p++;
	for (shift = 0; shift < 64; shift += 7) {
		const unsigned char *p = cursor_take(c, 1);

		if (p == NULL)
			return 0;
		v |= (uint64_t)(*p & 0x7f) << shift;
		if ((*p & 0x80) == 0)
			return v;
	}
	c->bad = 1;		/* more than ten bytes */
	return 0;
}

int64_t
cursor_svar(struct cursor *c)
{
	uint64_t v = cursor_var(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

const unsigned char *
cursor_bytes(struct cursor *c, size_t *len)
{
	uint64_t n = cursor_var(c);

	if (n > cursor_left(c)) {
		c->bad = 1;
		*len = 0;
		return NULL;
	}
	*len = (size_t)n;
	return cursor_take(c, (size_t)n);
}
