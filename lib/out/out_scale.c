/*
 * out_scale.c - a column's figures in one unit a person reads
 * (out_scale.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/colname.h"
#include "out_scale.h"

struct unit {
	const char *name;
	double size;		/* in ns or bytes */
};

/* Each kind's units, smallest first. */
static const struct unit times[] = {
	{ "ns", 1 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};
static const struct unit bytes[] = {
	{ "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
	{ "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 },
};
/* The spellings of units a stream gives, with the unit they are. */
static const struct {
	const char *spelt;
	enum out_scale_kind kind;
	double size;
} spellings[] = {
	{ "ns", OUT_SCALE_TIME, 1 }, { "us", OUT_SCALE_TIME, 1e3 },
	{ "\xc2\xb5s", OUT_SCALE_TIME, 1e3 }, { "ms", OUT_SCALE_TIME, 1e6 },
	{ "s", OUT_SCALE_TIME, 1e9 }, { "B", OUT_SCALE_BYTES, 1 },
	{ "bytes", OUT_SCALE_BYTES, 1 }, { "KiB", OUT_SCALE_BYTES, 1024.0 },
	{ "MiB", OUT_SCALE_BYTES, 1048576.0 },
	{ "GiB", OUT_SCALE_BYTES, 1073741824.0 },
	{ "%", OUT_SCALE_PCT, 1 },
};

static int
is_number(enum value_type t)
{
	return t == VAL_I64 || t == VAL_U64 || t == VAL_F64 || t == VAL_NS;
}

void
out_scale_init(struct out_scale *s, const struct out_column *col)
{
	const char *unit = col->unit != NULL ? col->unit : "";
	size_t i;

	memset(s, 0, sizeof(*s));
	s->kind = OUT_SCALE_PLAIN;
	s->factor = s->div = 1;
	s->unit = unit;
	if (!is_number(col->type))
		return;
	if (col->type == VAL_NS) {
		/* Nanoseconds whatever the unit says of how to show them. */
		s->kind = *unit == '\0' ? OUT_SCALE_STAMP : OUT_SCALE_TIME;
		s->div = 1e9;
		s->unit = "s";
		return;
	}
	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
		if (strcmp(unit, spellings[i].spelt) == 0) {
			s->kind = spellings[i].kind;
			s->factor = s->div = spellings[i].size;
			return;
		}
}

void
out_scale_see(struct out_scale *s, const struct value *v)
{
	double x;

	if (s->kind != OUT_SCALE_TIME && s->kind != OUT_SCALE_BYTES)
		return;
	if (!is_number(v->type))
		return;
	x = fabs(value_number(v) * s->factor);
	if (isfinite(x) && x > s->max)
		s->max = x;
}

void
out_scale_choose(struct out_scale *s)
{
	const struct unit *u;
	size_t n, i;
	double v;

	if (s->kind == OUT_SCALE_TIME) {
		u = times;
		n = sizeof(times) / sizeof(times[0]);
	} else if (s->kind == OUT_SCALE_BYTES) {
		u = bytes;
		n = sizeof(bytes) / sizeof(bytes[0]);
	} else
		return;
	/* A column of zeros or of nothing stays in its own unit. */
	if (s->max <= 0) {
		for (i = 0; i < n; i++)
			if (u[i].size == s->div)
				s->unit = u[i].name;
		s->decimals = 0;
		return;
	}
	for (i = 0; i + 1 < n && s->max >= u[i + 1].size; i++)
		;
	s->div = u[i].size;
	s->unit = u[i].name;
	v = s->max / s->div;
	s->decimals = s->div == 1 || v >= 1000 ? 0 : v >= 100 ? 1 :
	    v >= 10 ? 2 : 3;
}

/* x with `decimals`, never "-0.0": a change too small to show is 0. */
static size_t
put_fixed(double x, int decimals, char *buf, size_t cap)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.*f", decimals, x);
	const char *p = tmp;

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return value_format(&(struct value){ .type = VAL_F64,
		    .v.f = x }, buf, cap);
	if (tmp[0] == '-' && strspn(tmp + 1, "0.") == (size_t)n - 1) {
		p++;
		n--;
	}
	if (cap > 0)
		snprintf(buf, cap, "%s", p);
	return (size_t)n;
}

size_t
out_scale_format(const struct out_scale *s, const struct value *v,
    char *buf, size_t cap)
{
	double x;

	if (!is_number(v->type) || s->kind == OUT_SCALE_PLAIN ||
	    s->kind == OUT_SCALE_STAMP)
		return value_format(v, buf, cap);
	x = value_number(v);
	if (!isfinite(x))
		return value_format(v, buf, cap);
	if (s->kind == OUT_SCALE_PCT)
		return put_fixed(x, 1, buf, cap);
	/* Whole nanoseconds and bytes exactly, not through a double. */
	if (s->div == 1 && s->factor == 1 && v->type != VAL_F64) {
		int n = v->type == VAL_U64 ? snprintf(buf, cap, "%llu",
		    (unsigned long long)v->v.u) : snprintf(buf, cap, "%lld",
		    (long long)v->v.i);

		return n > 0 ? (size_t)n : 0;
	}
	return put_fixed(x * s->factor / s->div, s->decimals, buf, cap);
}

char *
out_scale_header(const struct out_column *col, const struct out_scale *s,
    char *buf, size_t cap)
{
	static const char *const kind_words[] = {
		[OUT_SCALE_TIME] = "time", [OUT_SCALE_STAMP] = "time",
		[OUT_SCALE_BYTES] = "size", [OUT_SCALE_PCT] = "share",
	};
	const char *unit = col->unit != NULL ? col->unit : "", *shown;
	size_t stem, i, n;

	if (cap == 0)
		return buf;
	if (col->type == VAL_UTC)
		unit = "UTC";
	else if (col->type == VAL_NS && *unit == '\0')
		unit = "s";
	stem = colname_stem(col->name, unit);
	shown = s->kind == OUT_SCALE_PLAIN ? unit :
	    s->kind == OUT_SCALE_PCT ? "%" : s->unit;
	if (stem == 0 && s->kind != OUT_SCALE_PLAIN)
		n = (size_t)snprintf(buf, cap, "%s", kind_words[s->kind]);
	else {
		if (stem == 0)
			stem = strlen(col->name);
		n = (size_t)snprintf(buf, cap, "%.*s", (int)stem, col->name);
		for (i = 0; i < n && i + 1 < cap; i++)
			if (buf[i] == '_')
				buf[i] = ' ';
	}
	if (*shown != '\0' && n < cap)
		snprintf(buf + n, cap - n, " (%s)", shown);
	return buf;
}

/* ---- rows held ---- */

/* Copies n bytes into the rows' text; @return : their offset, or -1. */
static ptrdiff_t
keep_text(struct out_rows *h, const char *p, size_t n)
{
	size_t cap = h->text_cap ? h->text_cap : 4096, at = h->text_len;
	char *t;

	if (n > SIZE_MAX / 4 - at) {
		errno = ENOMEM;
		return -1;
	}
	while (cap - at < n + 1)
		cap *= 2;
	if (cap != h->text_cap) {
		if ((t = realloc(h->text, cap)) == NULL)
			return -1;
		h->text = t;
		h->text_cap = cap;
	}
	if (n > 0)
		memcpy(h->text + at, p, n);
	h->text[at + n] = '\0';
	h->text_len += n + 1;
	return (ptrdiff_t)at;
}

int
out_rows_begin(struct out_rows *h, const struct out_column *cols,
    size_t ncols)
{
	size_t i, need = 0, at = 0;
	void *p;

	h->nrows = h->text_len = 0;
	if (ncols > SIZE_MAX / sizeof(struct value) / 4) {
		errno = ENOMEM;
		return -1;
	}
	if (ncols > h->ncols_cap) {
		if ((p = realloc(h->cols, ncols * sizeof(*h->cols))) == NULL)
			return -1;
		h->cols = p;
		if ((p = realloc(h->scale, ncols * sizeof(*h->scale))) == NULL)
			return -1;
		h->scale = p;
		if ((p = realloc(h->row, ncols * sizeof(*h->row))) == NULL)
			return -1;
		h->row = p;
		free(h->cells);
		h->cells = NULL;
		h->cap = 0;
		h->ncols_cap = ncols;
	}
	h->ncols = ncols;
	for (i = 0; i < ncols; i++)
		need += strlen(cols[i].name) + 1 +
		    strlen(cols[i].unit ? cols[i].unit : "") + 1;
	free(h->names);
	if ((h->names = malloc(need ? need : 1)) == NULL)
		return -1;
	for (i = 0; i < ncols; i++) {
		const char *unit = cols[i].unit ? cols[i].unit : "";

		h->cols[i].type = cols[i].type;
		h->cols[i].name = strcpy(h->names + at, cols[i].name);
		at += strlen(cols[i].name) + 1;
		h->cols[i].unit = strcpy(h->names + at, unit);
		at += strlen(unit) + 1;
		out_scale_init(&h->scale[i], &h->cols[i]);
	}
	return 0;
}

static int
is_text(enum value_type t)
{
	return t == VAL_STR || t == VAL_BYTES || t == VAL_GUID;
}

int
out_rows_add(struct out_rows *h, const struct value *cells, size_t n)
{
	struct value *c;
	ptrdiff_t at;
	size_t i, cap, width = h->ncols_cap ? h->ncols_cap : 1;

	if (h->nrows == h->cap) {
		cap = h->cap ? h->cap * 2 : 64;
		if (cap > SIZE_MAX / sizeof(*c) / width) {
			errno = ENOMEM;
			return -1;
		}
		if ((c = realloc(h->cells, cap * width * sizeof(*c))) == NULL)
			return -1;
		h->cells = c;
		h->cap = cap;
	}
	c = h->cells + h->nrows * width;
	for (i = 0; i < h->ncols; i++) {
		c[i] = i < n ? cells[i] : (struct value){ .type = VAL_NULL };
		if (is_text(c[i].type)) {
			/* By offset: the text may move. */
			if ((at = keep_text(h, c[i].v.s.ptr, c[i].v.s.len)) < 0)
				return -1;
			c[i].v.s.ptr = (const char *)(uintptr_t)at;
		}
		out_scale_see(&h->scale[i], &c[i]);
	}
	h->nrows++;
	return 0;
}

void
out_rows_choose(struct out_rows *h)
{
	size_t i;

	for (i = 0; i < h->ncols; i++)
		out_scale_choose(&h->scale[i]);
}

const struct value *
out_rows_get(struct out_rows *h, size_t r)
{
	const struct value *c = h->cells + r * (h->ncols_cap ?
	    h->ncols_cap : 1);
	size_t i;

	for (i = 0; i < h->ncols; i++) {
		h->row[i] = c[i];
		if (is_text(c[i].type))
			h->row[i].v.s.ptr = h->text + (uintptr_t)c[i].v.s.ptr;
	}
	return h->row;
}

void
out_rows_free(struct out_rows *h)
{
	free(h->cols);
	free(h->scale);
	free(h->cells);
	free(h->text);
	free(h->names);
	free(h->row);
	memset(h, 0, sizeof(*h));
}
