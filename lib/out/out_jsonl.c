/*
 * out_jsonl.c - tables as JSON Lines, one object per row.
 *
 * The output must parse whatever the trace held, so strings are checked as
 * UTF-8 and anything invalid is replaced by U+FFFD.  The member names are
 * escaped once per table; each row is built in a reused buffer and written
 * with one fwrite().  A member is named as colname.h says, a time since
 * the start (an integer of nanoseconds here) with "_ns".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stream/colname.h"
#include "out_writer.h"

/* The most one input byte can become: a control character as \u00XX. */
#define ESCAPED_MAX	6

struct jsonl_writer {
	struct out_writer w;
	FILE *fp;
	size_t ncols;
	struct out_buf keys;	/* per column "name": , NUL-terminated */
	struct out_buf line;	/* the object being built */
	struct out_buf cell;	/* a value's text before quoting */
};

/*
 * The length of the well-formed UTF-8 sequence at p, or 0 if there is
 * none.  Overlong forms, surrogates and code points past U+10FFFF are
 * rejected by narrowing the range of the second byte (Unicode table 3-7).
 */
static size_t
utf8_len(const unsigned char *p, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (avail < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* Writes the escape for ASCII byte c at d; returns its length, 0 if none. */
static size_t
escape_ascii(unsigned char c, char *d)
{
	static const char hex[] = "0123456789abcdef";

	if (c >= 0x20 && c != '"' && c != '\\')
		return 0;
	d[0] = '\\';
	switch (c) {
	case '"':
	case '\\':
		d[1] = (char)c;
		return 2;
	case '\b':
		d[1] = 'b';
		return 2;
	case '\f':
		d[1] = 'f';
		return 2;
	case '\n':
		d[1] = 'n';
		return 2;
	case '\r':
		d[1] = 'r';
		return 2;
	case '\t':
		d[1] = 't';
		return 2;
	}
	memcpy(d + 1, "u00", 3);
	d[4] = hex[c >> 4];
	d[5] = hex[c & 0xf];
	return 6;
}

/* Appends s as a JSON string, quotes included. */
static int
add_string(struct out_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	char *d;

	if (len > (SIZE_MAX - 2) / ESCAPED_MAX) {
		errno = ENOMEM;
		return -1;
	}
	/* Reserve the worst case so the loop needs no checks. */
	if (out_buf_reserve(b, len * ESCAPED_MAX + 2) == -1)
		return -1;
	d = b->ptr + b->len;
	*d++ = '"';
	while (i < len) {
		if (p[i] < 0x80 && (n = escape_ascii(p[i], d)) > 0) {
			d += n;
			i++;
		} else if (p[i] < 0x80) {
			*d++ = (char)p[i++];
		} else if ((n = utf8_len(p + i, len - i)) > 0) {
			memcpy(d, p + i, n);
			d += n;
			i += n;
		} else {
			memcpy(d, "\xef\xbf\xbd", 3);
			d += 3;
			i++;
		}
	}
	*d++ = '"';
	b->len = d - b->ptr;
	return 0;
}

/* Appends the JSON form of v. */
static int
add_value(struct jsonl_writer *j, const struct value *v)
{
	char num[32];

	switch (v->type) {
	case VAL_NULL:
		return out_buf_add_str(&j->line, "null");
	case VAL_I64:
	case VAL_U64:
	case VAL_BOOL:
		/* value_format() already spells these as JSON does. */
		return out_buf_add_value(&j->line, v);
	case VAL_F64:
		if (!isfinite(v->v.f))
			return out_buf_add_str(&j->line, "null");
		return out_buf_add_value(&j->line, v);
	case VAL_NS:
		snprintf(num, sizeof(num), "%" PRId64, v->v.i);
		return out_buf_add_str(&j->line, num);
	case VAL_STR:
		return add_string(&j->line, v->v.s.ptr, v->v.s.len);
	default:
		j->cell.len = 0;
		if (out_buf_add_value(&j->cell, v) == -1)
			return -1;
		return add_string(&j->line, j->cell.ptr, j->cell.len);
	}
}

static int
jsonl_begin(struct out_writer *w, const char *name,
    const struct out_column *cols, size_t ncols, size_t index)
{
	struct jsonl_writer *j = (struct jsonl_writer *)w;
	size_t i;

	(void)name;	/* JSON Lines has no place for a table's name */
	(void)index;
	j->ncols = ncols;
	j->keys.len = 0;
	/* Each key is stored as "name": and a NUL. */
	for (i = 0; i < ncols; i++) {
		size_t cap = strlen(cols[i].name) + 40;

		j->cell.len = 0;
		if (out_buf_reserve(&j->cell, cap) == -1)
			return -1;
		colname_header(cols[i].name, cols[i].type, cols[i].unit, "ns",
		    j->cell.ptr, cap);
		if (add_string(&j->keys, j->cell.ptr,
		    strlen(j->cell.ptr)) == -1 ||
		    out_buf_add(&j->keys, ":", 2) == -1)
			return -1;
	}
	return 0;
}

static int
jsonl_row(struct out_writer *w, const struct value *cells)
{
	struct jsonl_writer *j = (struct jsonl_writer *)w;
	const char *key = j->keys.ptr;
	size_t i;

	j->line.len = 0;
	if (out_buf_add(&j->line, "{", 1) == -1)
		return -1;
	for (i = 0; i < j->ncols; i++) {
		if ((i > 0 && out_buf_add(&j->line, ",", 1) == -1) ||
		    out_buf_add_str(&j->line, key) == -1 ||
		    add_value(j, &cells[i]) == -1)
			return -1;
		key += strlen(key) + 1;
	}
	if (out_buf_add(&j->line, "}\n", 2) == -1)
		return -1;
	return out_buf_write(&j->line, j->fp);
}

/*
 * The length of the name of an array element "x[N]" less its "[N]", or
 * 0 if name is not one.
 */
static size_t
array_base(const char *name)
{
	size_t n = strlen(name), i;

	if (n < 4 || name[n - 1] != ']')
		return 0;
	for (i = n - 1; i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9'; i--)
		;
	if (i == n - 1 || i < 2 || name[i - 1] != '[')
		return 0;
	return i - 1;
}

/* Appends the fields as an object; "x[0]", "x[1]", ... as an array. */
static int
add_fields(struct jsonl_writer *j, const struct out_field *f, size_t n)
{
	size_t i = 0, base, k;

	if (out_buf_add(&j->line, "{", 1) == -1)
		return -1;
	while (i < n) {
		if ((i > 0 && out_buf_add(&j->line, ",", 1) == -1))
			return -1;
		base = array_base(f[i].name);
		/* The elements in a row that share the base, as one array. */
		for (k = i + 1; base > 0 && k < n && array_base(f[k].name) ==
		    base && memcmp(f[k].name, f[i].name, base) == 0; k++)
			;
		if (add_string(&j->line, f[i].name, base > 0 ? base :
		    strlen(f[i].name)) == -1 ||
		    out_buf_add(&j->line, ":", 1) == -1)
			return -1;
		if (base == 0) {
			if (add_value(j, &f[i].val) == -1)
				return -1;
			i++;
			continue;
		}
		if (out_buf_add(&j->line, "[", 1) == -1)
			return -1;
		for (; i < k; i++)
			if ((i > 0 && f[i - 1].name != NULL &&
			    array_base(f[i - 1].name) == base &&
			    memcmp(f[i - 1].name, f[i].name, base) == 0 &&
			    out_buf_add(&j->line, ",", 1) == -1) ||
			    add_value(j, &f[i].val) == -1)
				return -1;
		if (out_buf_add(&j->line, "]", 1) == -1)
			return -1;
	}
	return out_buf_add(&j->line, "}", 1);
}

static int
jsonl_row_record(struct out_writer *w, const struct value *cells,
    const struct out_field *fields, size_t nfields)
{
	struct jsonl_writer *j = (struct jsonl_writer *)w;
	const char *key = j->keys.ptr;
	size_t i;

	j->line.len = 0;
	if (out_buf_add(&j->line, "{", 1) == -1)
		return -1;
	for (i = 0; i < j->ncols; i++) {
		if ((i > 0 && out_buf_add(&j->line, ",", 1) == -1) ||
		    out_buf_add_str(&j->line, key) == -1)
			return -1;
		if (i + 1 == j->ncols ? add_fields(j, fields, nfields) == -1 :
		    add_value(j, &cells[i]) == -1)
			return -1;
		key += strlen(key) + 1;
	}
	if (out_buf_add(&j->line, "}\n", 2) == -1)
		return -1;
	return out_buf_write(&j->line, j->fp);
}

static int
jsonl_end(struct out_writer *w)
{
	(void)w;	/* a row is written as soon as it is complete */
	return 0;
}

static void
jsonl_free(struct out_writer *w)
{
	struct jsonl_writer *j = (struct jsonl_writer *)w;

	out_buf_free(&j->keys);
	out_buf_free(&j->line);
	out_buf_free(&j->cell);
	free(j);
}

static const struct out_writer_ops jsonl_ops = {
	jsonl_begin, jsonl_row, jsonl_end, jsonl_free, jsonl_row_record
};

struct out_writer *
out_jsonl_open(FILE *fp)
{
	struct jsonl_writer *j;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return NULL;
	j->w.ops = &jsonl_ops;
	j->fp = fp;
	return &j->w;
}
