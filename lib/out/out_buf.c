/*
 * out_buf.c - the growable buffers the formats build their rows in
 * (out_writer.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out_writer.h"

int
out_buf_reserve(struct out_buf *b, size_t more)
{
	size_t cap;
	char *p;

	/* Even for 0 bytes, so that b->ptr may be used after a reserve. */
	if (b->ptr != NULL && b->cap - b->len >= more)
		return 0;
	if (more > SIZE_MAX / 2 - b->len) {
		errno = ENOMEM;
		return -1;
	}
	/* Doubling keeps the number of reallocations logarithmic. */
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < more)
		cap *= 2;
	if ((p = realloc(b->ptr, cap)) == NULL)
		return -1;
	b->ptr = p;
	b->cap = cap;
	return 0;
}

int
out_buf_add(struct out_buf *b, const void *p, size_t n)
{
	if (out_buf_reserve(b, n) == -1)
		return -1;
	if (n > 0)
		memcpy(b->ptr + b->len, p, n);
	b->len += n;
	return 0;
}

int
out_buf_add_str(struct out_buf *b, const char *s)
{
	return out_buf_add(b, s, strlen(s));
}

int
out_buf_add_value(struct out_buf *b, const struct value *v)
{
	size_t n;

	/* Room for any number, so that most values take one try. */
	if (out_buf_reserve(b, 32) == -1)
		return -1;
	n = value_format(v, b->ptr + b->len, b->cap - b->len);
	if (n >= b->cap - b->len) {
		if (out_buf_reserve(b, n + 1) == -1)
			return -1;
		value_format(v, b->ptr + b->len, b->cap - b->len);
	}
	b->len += n;
	return 0;
}

int
out_buf_write(struct out_buf *b, FILE *fp)
{
	size_t n = b->len;

	b->len = 0;
	if (n > 0 && fwrite(b->ptr, 1, n, fp) != n)
		return -1;
	return 0;
}

void
out_buf_free(struct out_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}
