/*
 * test_tracelogging.c - TraceLogging decoding (lib/etw/tracelogging.c) on
 * metadata built by hand from etl-format.md section 7, then on the events
 * of real traces checked against PerfView's output.
 */
#include <stdint.h>

#include "base/buf.h"
#include "etw/tracelogging.h"
#include "harness.h"

/* InType values and count kinds, from the table in section 7.2. */
enum {
	IN_UNICODESTRING = 1,
	IN_ANSISTRING = 2,
	IN_INT8 = 3,
	IN_UINT8 = 4,
	IN_INT16 = 5,
	IN_UINT16 = 6,
	IN_INT32 = 7,
	IN_UINT32 = 8,
	IN_INT64 = 9,
	IN_UINT64 = 10,
	IN_FLOAT = 11,
	IN_DOUBLE = 12,
	IN_BOOL32 = 13,
	IN_BINARY = 14,
	IN_GUID = 15,
	IN_POINTER = 16,
	IN_FILETIME = 17,
	IN_SYSTEMTIME = 18,
	IN_SID = 19,
	IN_HEXINT32 = 20,
	IN_HEXINT64 = 21,
	IN_COUNTEDSTRING = 22,
	IN_COUNTEDANSISTRING = 23,
	IN_STRUCT = 24,
	IN_COUNTEDBINARY = 25,
	FIXED = 0x20,
	VARIABLE = 0x40,
	CUSTOM = 0x60
};

enum {
	OUT_STRING = 2,
	OUT_BOOLEAN = 3,
	OUT_HEX = 4
};

/* A metadata, traits or payload blob built by hand. */
struct blob {
	unsigned char	b[4096];
	size_t		len;
};

static struct tl_decoder *dec;

static void
put(struct blob *x, const void *p, size_t n)
{
	if (n > sizeof(x->b) - x->len) {
		printf("  test blob overflow\n");
		abort();
	}
	memcpy(x->b + x->len, p, n);
	x->len += n;
}

static void
put_u8(struct blob *x, unsigned v)
{
	unsigned char b = (unsigned char)v;

	put(x, &b, 1);
}

static void
put_le(struct blob *x, uint64_t v, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++)
		put_u8(x, (unsigned)(v >> (8 * i)) & 0xFF);
}

static void
put_u16(struct blob *x, unsigned v)
{
	put_le(x, v, 2);
}

/* A string with its NUL. */
static void
put_str(struct blob *x, const char *s)
{
	put(x, s, strlen(s) + 1);
}

/* An ASCII string as UTF-16LE, with its NUL unless counted. */
static void
put_u16str(struct blob *x, const char *s, int counted)
{
	size_t n = strlen(s), i;

	if (counted)
		put_u16(x, (unsigned)(2 * n));
	for (i = 0; i < n; i++)
		put_u16(x, (unsigned char)s[i]);
	if (!counted)
		put_u16(x, 0);
}

/* Event metadata up to its name, with one zero tag byte. */
static void
meta_begin(struct blob *m, const char *name)
{
	m->len = 0;
	put_u16(m, 0);
	put_u8(m, 0);
	put_str(m, name);
}

/* Fills in TotalSize. */
static void
meta_end(struct blob *m)
{
	m->b[0] = m->len & 0xFF;
	m->b[1] = (m->len >> 8) & 0xFF;
}

/* A field definition: name, InMeta, and OutMeta when out is not 0. */
static void
meta_field(struct blob *m, const char *name, unsigned in, unsigned out)
{
	put_str(m, name);
	if (out == 0)
		put_u8(m, in);
	else {
		put_u8(m, in | 0x80);
		put_u8(m, out);
	}
}

static unsigned char *
heap_copy(const struct blob *x)
{
	unsigned char *p = malloc(x->len ? x->len : 1);

	if (p == NULL)
		abort();
	memcpy(p, x->b, x->len);
	return p;
}

/*
 * Decodes from exact-size heap copies that are freed at once: ASan then
 * reports any read past the input, and any value that still points into
 * it.  traits may be NULL.
 */
static int
decode_with(const struct blob *t, const struct blob *m, const struct blob *p,
    int ptr_size, struct tl_event *ev)
{
	unsigned char *tc = t ? heap_copy(t) : NULL;
	unsigned char *mc = heap_copy(m), *pc = heap_copy(p);
	int rc;

	rc = tl_decode(dec, tc, t ? t->len : 0, mc, m->len, pc, p->len,
	    ptr_size, ev);
	free(tc);
	free(mc);
	free(pc);
	return rc;
}

static int
decode(const struct blob *m, const struct blob *p, struct tl_event *ev)
{
	return decode_with(NULL, m, p, 8, ev);
}

/* The value of a field, or one whose type matches nothing when absent. */
static const struct value *
field(const struct tl_event *ev, const char *name)
{
	static const struct value missing = { (enum value_type)-1, { 0 } };
	size_t i;

	for (i = 0; i < ev->nfields; i++)
		if (strcmp(ev->fields[i].name, name) == 0)
			return &ev->fields[i].val;
	printf("  no field %s\n", name);
	return &missing;
}

/* A VAL_STR as a C string, for CHECK_EQ_STR. */
static const char *
str(const struct value *v)
{
	static char buf[512];

	if (v->type != VAL_STR)
		return "(not a string)";
	snprintf(buf, sizeof(buf), "%.*s", (int)v->v.s.len, v->v.s.ptr);
	return buf;
}

static int
error_has(const char *what)
{
	if (strstr(tl_decoder_error(dec), what) != NULL)
		return 1;
	printf("  error \"%s\" lacks \"%s\"\n", tl_decoder_error(dec), what);
	return 0;
}

/* Every InType but Struct, one field each (Pointer 8 bytes). */
static void
every_intype(struct blob *m, struct blob *p)
{
	static const unsigned char guid[16] = {
		0xc4, 0x14, 0xd6, 0x0a, 0xf4, 0x0e, 0x25, 0x42,
		0x80, 0x13, 0xf4, 0x4f, 0x37, 0xcb, 0x03, 0x97
	};
	static const unsigned short systime[8] = {
		2021, 9, 4, 9, 14, 59, 35, 799
	};
	size_t i;

	meta_begin(m, "AllTypes");
	p->len = 0;
	meta_field(m, "u16z", IN_UNICODESTRING, 0);
	put_u16(p, 'h');
	put_u16(p, 0xE9);
	put_u16(p, 0);
	meta_field(m, "az", IN_ANSISTRING, 0);
	put_str(p, "abc");
	meta_field(m, "i8", IN_INT8, 0);
	put_u8(p, 0xFF);
	meta_field(m, "u8", IN_UINT8, 0);
	put_u8(p, 0xFF);
	meta_field(m, "i16", IN_INT16, 0);
	put_u16(p, 0x8000);
	meta_field(m, "u16", IN_UINT16, 0);
	put_u16(p, 0xFFFF);
	meta_field(m, "i32", IN_INT32, 0);
	put_le(p, 0xFFFFFFFE, 4);
	meta_field(m, "u32", IN_UINT32, 0);
	put_le(p, 0xFFFFFFFF, 4);
	meta_field(m, "i64", IN_INT64, 0);
	put_le(p, 0x8000000000000000ULL, 8);
	meta_field(m, "u64", IN_UINT64, 0);
	put_le(p, UINT64_MAX, 8);
	meta_field(m, "f32", IN_FLOAT, 0);
	put_le(p, 0x3FC00000, 4);		/* 1.5f */
	meta_field(m, "f64", IN_DOUBLE, 0);
	put_le(p, 0xC002000000000000ULL, 8);	/* -2.25 */
	meta_field(m, "b32", IN_BOOL32, 0);
	put_le(p, 1, 4);
	meta_field(m, "bin", IN_BINARY, 0);
	put_u16(p, 3);
	put(p, "\x01\x02\x03", 3);
	meta_field(m, "guid", IN_GUID, 0);
	put(p, guid, 16);
	meta_field(m, "ptr", IN_POINTER, 0);
	put_le(p, 0x00007FF612345678ULL, 8);
	meta_field(m, "ft", IN_FILETIME, 0);
	put_le(p, 132756731757990000ULL, 8);
	meta_field(m, "st", IN_SYSTEMTIME, 0);
	for (i = 0; i < 8; i++)
		put_u16(p, systime[i]);
	meta_field(m, "sid", IN_SID, 0);
	put(p, "\x01\x04\x00\x00\x00\x00\x00\x05", 8);
	put_le(p, 21, 4);
	put_le(p, 1, 4);
	put_le(p, 2, 4);
	put_le(p, 4294967295U, 4);
	meta_field(m, "hex32", IN_HEXINT32, 0);
	put_le(p, 0xDEADBEEF, 4);
	meta_field(m, "hex64", IN_HEXINT64, 0);
	put_le(p, 0x0123456789ABCDEFULL, 8);
	meta_field(m, "cstr", IN_COUNTEDSTRING, 0);
	put_u16str(p, "hi", 1);
	meta_field(m, "castr", IN_COUNTEDANSISTRING, 0);
	put_u16(p, 3);
	put(p, "xyz", 3);
	meta_field(m, "cbin", IN_COUNTEDBINARY, 0);
	put_u16(p, 2);
	put(p, "\xAA\xBB", 2);
	meta_end(m);
}

static void
test_every_intype(void)
{
	struct blob m, p;
	struct tl_event ev;
	const struct value *v;

	every_intype(&m, &p);
	REQUIRE(decode(&m, &p, &ev) == 0);
	CHECK_EQ_STR(tl_decoder_error(dec), "");
	CHECK_EQ_STR(ev.provider, "");
	CHECK_EQ_STR(ev.name, "AllTypes");
	CHECK_EQ_INT(ev.nfields, 24);
	CHECK_EQ_STR(str(field(&ev, "u16z")), "h\xc3\xa9");
	CHECK_EQ_STR(str(field(&ev, "az")), "abc");
	v = field(&ev, "i8");
	CHECK(v->type == VAL_I64 && v->v.i == -1);
	v = field(&ev, "u8");
	CHECK(v->type == VAL_U64 && v->v.u == 255);
	v = field(&ev, "i16");
	CHECK(v->type == VAL_I64 && v->v.i == -32768);
	v = field(&ev, "u16");
	CHECK(v->type == VAL_U64 && v->v.u == 65535);
	v = field(&ev, "i32");
	CHECK(v->type == VAL_I64 && v->v.i == -2);
	v = field(&ev, "u32");
	CHECK(v->type == VAL_U64 && v->v.u == 0xFFFFFFFF);
	v = field(&ev, "i64");
	CHECK(v->type == VAL_I64 && v->v.i == INT64_MIN);
	v = field(&ev, "u64");
	CHECK(v->type == VAL_U64 && v->v.u == UINT64_MAX);
	v = field(&ev, "f32");
	CHECK(v->type == VAL_F64 && v->v.f == 1.5);
	v = field(&ev, "f64");
	CHECK(v->type == VAL_F64 && v->v.f == -2.25);
	v = field(&ev, "b32");
	CHECK(v->type == VAL_BOOL && v->v.u == 1);
	v = field(&ev, "bin");
	CHECK(v->type == VAL_BYTES && v->v.s.len == 3 &&
	    memcmp(v->v.s.ptr, "\x01\x02\x03", 3) == 0);
	v = field(&ev, "guid");
	CHECK(v->type == VAL_GUID && v->v.s.len == 16 &&
	    memcmp(v->v.s.ptr, "\xc4\x14\xd6\x0a", 4) == 0);
	v = field(&ev, "ptr");
	CHECK(v->type == VAL_HEX && v->v.u == 0x00007FF612345678ULL);
	v = field(&ev, "ft");
	CHECK(v->type == VAL_UTC && v->v.u == 132756731757990000ULL);
	v = field(&ev, "st");
	CHECK(v->type == VAL_UTC && v->v.u == 132756731757990000ULL);
	CHECK_EQ_STR(str(field(&ev, "sid")), "S-1-5-21-1-2-4294967295");
	v = field(&ev, "hex32");
	CHECK(v->type == VAL_HEX && v->v.u == 0xDEADBEEF);
	v = field(&ev, "hex64");
	CHECK(v->type == VAL_HEX && v->v.u == 0x0123456789ABCDEFULL);
	CHECK_EQ_STR(str(field(&ev, "cstr")), "hi");
	CHECK_EQ_STR(str(field(&ev, "castr")), "xyz");
	v = field(&ev, "cbin");
	CHECK(v->type == VAL_BYTES && v->v.s.len == 2 &&
	    memcmp(v->v.s.ptr, "\xAA\xBB", 2) == 0);
}

static void
test_pointer_size(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	const struct value *v;

	meta_begin(&m, "P");
	meta_field(&m, "ptr", IN_POINTER, 0);
	meta_end(&m);
	put_le(&p, 0x80001234, 4);
	REQUIRE(decode_with(NULL, &m, &p, 4, &ev) == 0);
	v = field(&ev, "ptr");
	CHECK(v->type == VAL_HEX && v->v.u == 0x80001234);
	CHECK_EQ_INT(decode_with(NULL, &m, &p, 8, &ev), -1);
	CHECK(error_has("'ptr' needs 8 bytes at payload offset 0x0"));
	CHECK_EQ_INT(decode_with(NULL, &m, &p, 5, &ev), -1);
	CHECK(error_has("pointer size 5"));
}

static void
test_outtypes(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	const struct value *v;

	meta_begin(&m, "Out");
	meta_field(&m, "bool8", IN_UINT8, OUT_BOOLEAN);
	put_u8(&p, 2);
	meta_field(&m, "char8", IN_UINT8, OUT_STRING);
	put_u8(&p, 'A');
	meta_field(&m, "char8_1252", IN_UINT8, OUT_STRING);
	put_u8(&p, 0x80);
	meta_field(&m, "char16", IN_UINT16, OUT_STRING);
	put_u16(&p, 0x20AC);
	meta_field(&m, "hex8", IN_UINT8, OUT_HEX);
	put_u8(&p, 0xFE);
	meta_field(&m, "hex_signed", IN_INT32, OUT_HEX);
	put_le(&p, 0xFFFFFFFF, 4);
	meta_field(&m, "bool32", IN_BOOL32, 0);
	put_le(&p, 7, 4);
	meta_field(&m, "utf8", IN_COUNTEDANSISTRING, 0x23);
	put_u16(&p, 2);
	put(&p, "\xc3\xa9", 2);
	meta_end(&m);
	REQUIRE(decode(&m, &p, &ev) == 0);
	v = field(&ev, "bool8");
	CHECK(v->type == VAL_BOOL && v->v.u == 1);
	CHECK_EQ_STR(str(field(&ev, "char8")), "A");
	CHECK_EQ_STR(str(field(&ev, "char8_1252")), "\xe2\x82\xac");
	CHECK_EQ_STR(str(field(&ev, "char16")), "\xe2\x82\xac");
	v = field(&ev, "hex8");
	CHECK(v->type == VAL_HEX && v->v.u == 0xFE);
	v = field(&ev, "hex_signed");
	CHECK(v->type == VAL_HEX && v->v.u == 0xFFFFFFFF);
	v = field(&ev, "bool32");
	CHECK(v->type == VAL_BOOL && v->v.u == 1);
	CHECK_EQ_STR(str(field(&ev, "utf8")), "\xc3\xa9");
}

/*
 * Tags: 7 bits a byte, most significant first, bit 7 = more follow; the
 * first byte holds bits 27-21 (TLD AddTags).  Field tags are skipped.
 */
static void
test_tags(void)
{
	static const struct {
		const char	*bytes;
		size_t		 len;
		uint32_t	 tags;
	} cases[] = {
		{ "\x00", 1, 0 },
		{ "\x01", 1, 0x00200000 },
		{ "\x7f", 1, 0x0FE00000 },
		{ "\x80\x00", 2, 0 },
		{ "\x81\x00", 2, 0x00200000 },
		{ "\x80\x80\x80\x01", 4, 0x00000001 },
		{ "\x89\x8d\x8a\x67", 4, 0x01234567 },
		{ "\xff\xff\xff\x7f", 4, 0x0FFFFFFF },
	};
	struct blob m, p;
	struct tl_event ev;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		m.len = 0;
		p.len = 0;
		put_u16(&m, 0);
		put(&m, cases[i].bytes, cases[i].len);
		put_str(&m, "Tagged");
		put_str(&m, "x");
		put_u8(&m, IN_UINT8 | 0x80);
		put_u8(&m, OUT_HEX | 0x80);	/* field tags follow */
		put(&m, "\x81\x82\x03", 3);
		meta_field(&m, "y", IN_UINT8, 0);
		meta_end(&m);
		put(&p, "\x11\x22", 2);
		CHECK_EQ_INT(decode(&m, &p, &ev), 0);
		CHECK_EQ_INT(ev.tags, cases[i].tags);
		CHECK_EQ_STR(ev.name, "Tagged");
		CHECK_EQ_INT(ev.nfields, 2);
		CHECK(field(&ev, "x")->type == VAL_HEX);
		CHECK_EQ_INT(field(&ev, "y")->v.u, 0x22);
	}
}

static void
test_arrays(void)
{
	static const char *names[] = {
		"a[0]", "a[1]", "a[2]", "v[0]", "v[1]", "ss[0]", "ss[1]",
		"last"
	};
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	size_t i;

	meta_begin(&m, "Arrays");
	meta_field(&m, "a", IN_UINT16 | FIXED, 0);
	put_u16(&m, 3);
	put_u16(&p, 10);
	put_u16(&p, 11);
	put_u16(&p, 12);
	meta_field(&m, "v", IN_INT32 | VARIABLE, 0);
	put_u16(&p, 2);
	put_le(&p, (uint32_t)-5, 4);
	put_le(&p, 6, 4);
	meta_field(&m, "none", IN_UINT8 | VARIABLE, 0);
	put_u16(&p, 0);
	meta_field(&m, "ss", IN_UNICODESTRING | VARIABLE, 0);
	put_u16(&p, 2);
	put_u16str(&p, "ab", 0);
	put_u16str(&p, "c", 0);
	meta_field(&m, "last", IN_UINT8, 0);
	put_u8(&p, 9);
	meta_end(&m);
	REQUIRE(decode(&m, &p, &ev) == 0);
	REQUIRE(ev.nfields == sizeof(names) / sizeof(names[0]));
	for (i = 0; i < ev.nfields; i++)
		CHECK_EQ_STR(ev.fields[i].name, names[i]);
	CHECK_EQ_INT(field(&ev, "a[2]")->v.u, 12);
	CHECK_EQ_INT(field(&ev, "v[0]")->v.i, -5);
	CHECK_EQ_STR(str(field(&ev, "ss[1]")), "c");
	CHECK_EQ_INT(field(&ev, "last")->v.u, 9);
}

static void
test_nested_structs(void)
{
	static const char *names[] = {
		"outer.x", "outer.inner.y", "outer.inner.s", "outer.z", "w"
	};
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	size_t i;

	meta_begin(&m, "Nested");
	meta_field(&m, "outer", IN_STRUCT, 3);
	meta_field(&m, "x", IN_UINT8, 0);
	meta_field(&m, "inner", IN_STRUCT, 2);
	meta_field(&m, "y", IN_UINT16, 0);
	meta_field(&m, "s", IN_ANSISTRING, 0);
	meta_field(&m, "z", IN_INT8, 0);
	meta_field(&m, "w", IN_UINT32, 0);
	meta_end(&m);
	put_u8(&p, 1);
	put_u16(&p, 2);
	put_str(&p, "hi");
	put_u8(&p, 0xFD);
	put_le(&p, 4, 4);
	REQUIRE(decode(&m, &p, &ev) == 0);
	REQUIRE(ev.nfields == sizeof(names) / sizeof(names[0]));
	for (i = 0; i < ev.nfields; i++)
		CHECK_EQ_STR(ev.fields[i].name, names[i]);
	CHECK_EQ_STR(str(field(&ev, "outer.inner.s")), "hi");
	CHECK_EQ_INT(field(&ev, "outer.z")->v.i, -3);
	CHECK_EQ_INT(field(&ev, "w")->v.u, 4);
}

static void
test_struct_arrays(void)
{
	static const char *names[] = {
		"s[0].x", "s[0].y", "s[1].x", "s[1].y", "f[0].g", "f[1].g", "t"
	};
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	size_t i;

	meta_begin(&m, "StructArrays");
	meta_field(&m, "s", IN_STRUCT | VARIABLE, 2);
	meta_field(&m, "x", IN_UINT8, 0);
	meta_field(&m, "y", IN_UINT16, 0);
	put_u16(&p, 2);
	put_u8(&p, 1);
	put_u16(&p, 0x0102);
	put_u8(&p, 2);
	put_u16(&p, 0x0203);
	/* An empty array of structs: its members must still be skipped. */
	meta_field(&m, "e", IN_STRUCT | VARIABLE, 1);
	meta_field(&m, "n", IN_UINT8, 0);
	put_u16(&p, 0);
	meta_field(&m, "f", IN_STRUCT | FIXED, 1);
	put_u16(&m, 2);
	meta_field(&m, "g", IN_INT8, 0);
	put_u8(&p, 0xFF);
	put_u8(&p, 0xFE);
	meta_field(&m, "t", IN_UINT8, 0);
	put_u8(&p, 9);
	meta_end(&m);
	REQUIRE(decode(&m, &p, &ev) == 0);
	REQUIRE(ev.nfields == sizeof(names) / sizeof(names[0]));
	for (i = 0; i < ev.nfields; i++)
		CHECK_EQ_STR(ev.fields[i].name, names[i]);
	CHECK_EQ_INT(field(&ev, "s[1].y")->v.u, 0x0203);
	CHECK_EQ_INT(field(&ev, "f[1].g")->v.i, -2);
	CHECK_EQ_INT(field(&ev, "t")->v.u, 9);
}

/* TL_MAX_DEPTH nested structs decode; one more is refused. */
static void
test_struct_depth(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	int i;

	meta_begin(&m, "Deep");
	for (i = 0; i < TL_MAX_DEPTH; i++)
		meta_field(&m, "s", IN_STRUCT, 1);
	meta_field(&m, "x", IN_UINT8, 0);
	meta_end(&m);
	put_u8(&p, 7);
	REQUIRE(decode(&m, &p, &ev) == 0);
	REQUIRE(ev.nfields == 1);
	CHECK_EQ_INT(strlen(ev.fields[0].name), 2 * TL_MAX_DEPTH + 1);

	meta_begin(&m, "Deeper");
	for (i = 0; i < TL_MAX_DEPTH + 1; i++)
		meta_field(&m, "s", IN_STRUCT, 1);
	meta_field(&m, "x", IN_UINT8, 0);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("nested deeper than 32 at metadata offset"));
}

static void
test_custom_field(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	const struct value *v;

	meta_begin(&m, "Custom");
	meta_field(&m, "c", IN_BINARY | CUSTOM, 0);
	put_u16(&m, 3);
	put(&m, "\x01\x02\x03", 3);	/* the schema, skipped */
	meta_field(&m, "d", IN_UINT8, 0);
	meta_end(&m);
	put_u16(&p, 2);
	put(&p, "\xAA\xBB", 2);
	put_u8(&p, 5);
	REQUIRE(decode(&m, &p, &ev) == 0);
	v = field(&ev, "c");
	CHECK(v->type == VAL_BYTES && v->v.s.len == 2 &&
	    memcmp(v->v.s.ptr, "\xAA\xBB", 2) == 0);
	CHECK_EQ_INT(field(&ev, "d")->v.u, 5);
}

static void
test_traits(void)
{
	struct blob t = { .len = 0 }, m, p = { .len = 0 };
	struct tl_event ev;

	meta_begin(&m, "E");
	meta_end(&m);
	put_u16(&t, 0);
	put_str(&t, "MyProvider");
	put_u16(&t, 19);	/* trait: provider group GUID */
	put_u8(&t, 1);
	put(&t, "0123456789abcdef", 16);
	t.b[0] = (unsigned char)t.len;
	REQUIRE(decode_with(&t, &m, &p, 8, &ev) == 0);
	CHECK_EQ_STR(ev.provider, "MyProvider");
	CHECK_EQ_STR(ev.name, "E");
	CHECK_EQ_INT(ev.nfields, 0);

	t.b[0] = (unsigned char)(t.len + 1);
	CHECK_EQ_INT(decode_with(&t, &m, &p, 8, &ev), -1);
	CHECK(error_has("traits"));
	CHECK_EQ_STR(ev.provider, "");

	t.len = 0;
	put_u16(&t, 5);
	put(&t, "abc", 3);	/* no NUL within TotalSize */
	CHECK_EQ_INT(decode_with(&t, &m, &p, 8, &ev), -1);
	CHECK(error_has("unterminated provider name"));
}

/* Names that are not UTF-8 are taken as CP1252, like other 8-bit text. */
static void
test_names_not_utf8(void)
{
	struct blob t = { .len = 0 }, m, p = { .len = 0 };
	struct tl_event ev;

	put_u16(&t, 7);
	put_str(&t, "Pr\xf6v");
	meta_begin(&m, "Ev\x80nt");
	meta_field(&m, "caf\xe9", IN_STRUCT, 1);
	meta_field(&m, "\xc3\xa9t\xe9", IN_UINT8, 0);
	meta_end(&m);
	put_u8(&p, 1);
	REQUIRE(decode_with(&t, &m, &p, 8, &ev) == 0);
	CHECK_EQ_STR(ev.provider, "Pr\xc3\xb6v");
	CHECK_EQ_STR(ev.name, "Ev\xe2\x82\xacnt");
	REQUIRE(ev.nfields == 1);
	/* One bad byte makes the whole composed name CP1252. */
	CHECK_EQ_STR(ev.fields[0].name,
	    "caf\xc3\xa9.\xc3\x83\xc2\xa9t\xc3\xa9");
}

static void
test_systemtime(void)
{
	static const struct {
		unsigned short	 st[8];
		enum value_type	 type;
		uint64_t	 ft;
	} cases[] = {
		{ { 1601, 1, 1, 1, 0, 0, 0, 0 }, VAL_UTC, 0 },
		{ { 2000, 2, 2, 29, 12, 0, 0, 500 }, VAL_UTC,
		  125962992005000000ULL },
		{ { 2100, 3, 1, 1, 0, 0, 0, 0 }, VAL_UTC,
		  157520160000000000ULL },
		{ { 0, 0, 0, 0, 0, 0, 0, 0 }, VAL_NULL, 0 },
		{ { 2021, 13, 0, 1, 0, 0, 0, 0 }, VAL_NULL, 0 },
		{ { 2021, 1, 0, 1, 24, 0, 0, 0 }, VAL_NULL, 0 },
		{ { 2021, 1, 0, 1, 0, 0, 0, 1000 }, VAL_NULL, 0 },
	};
	struct blob m, p;
	struct tl_event ev;
	const struct value *v;
	size_t i, j;

	meta_begin(&m, "T");
	meta_field(&m, "st", IN_SYSTEMTIME, 0);
	meta_end(&m);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p.len = 0;
		for (j = 0; j < 8; j++)
			put_u16(&p, cases[i].st[j]);
		REQUIRE(decode(&m, &p, &ev) == 0);
		v = field(&ev, "st");
		CHECK_EQ_INT(v->type, cases[i].type);
		if (cases[i].type == VAL_UTC)
			CHECK(v->v.u == cases[i].ft);
	}
}

/* As ConvertSidToStringSid: the authority in hex once it passes 32 bits. */
static void
test_sid(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;

	meta_begin(&m, "Sids");
	meta_field(&m, "system", IN_SID, 0);
	put(&p, "\x01\x01\x00\x00\x00\x00\x00\x05", 8);
	put_le(&p, 18, 4);
	meta_field(&m, "wide", IN_SID, 0);
	put(&p, "\x01\x00\x01\x00\x00\x00\x00\x2a", 8);
	meta_field(&m, "cut", IN_SID, 0);
	put(&p, "\x01\x02\x00\x00\x00\x00\x00\x05", 8);
	put_le(&p, 32, 4);	/* one of two sub-authorities */
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("'cut' needs 8 bytes at payload offset 0x1c, 4 left"));
	CHECK_EQ_INT(ev.nfields, 2);
	CHECK_EQ_STR(str(field(&ev, "system")), "S-1-5-18");
	CHECK_EQ_STR(str(field(&ev, "wide")), "S-1-0x01000000002a");
}

static void
test_truncated_payload(void)
{
	struct blob m, p = { .len = 0 }, cut;
	struct tl_event ev;
	size_t full;

	meta_begin(&m, "Cut");
	meta_field(&m, "a", IN_UINT32, 0);
	meta_field(&m, "b", IN_UINT32, 0);
	meta_end(&m);
	put_le(&p, 1, 4);
	put_u16(&p, 2);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("truncated payload: 'b' needs 4 bytes at payload "
	    "offset 0x4, 2 left"));
	CHECK_EQ_STR(ev.name, "Cut");
	REQUIRE(ev.nfields == 1);
	CHECK_EQ_STR(ev.fields[0].name, "a");

	meta_begin(&m, "NoNul");
	meta_field(&m, "s", IN_UNICODESTRING, 0);
	meta_end(&m);
	p.len = 0;
	put_u16(&p, 'x');
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("'s' at payload offset 0x0 has no NUL"));

	/* Every proper prefix of a payload holding every type fails. */
	every_intype(&m, &p);
	for (full = p.len, cut = p; cut.len-- > 0;) {
		CHECK_EQ_INT(decode(&m, &cut, &ev), -1);
		CHECK(ev.nfields < 24);
	}
	p.len = full;
	CHECK_EQ_INT(decode(&m, &p, &ev), 0);
}

static void
test_trailing_bytes(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;

	meta_begin(&m, "Trail");
	meta_field(&m, "a", IN_UINT8, 0);
	meta_end(&m);
	put(&p, "\x01\x02\x03\x04", 4);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("3 trailing bytes at payload offset 0x1"));
	CHECK_EQ_INT(ev.nfields, 1);
	CHECK_EQ_INT(field(&ev, "a")->v.u, 1);
}

/* Metadata that ends early or says impossible things. */
static void
test_malformed_metadata(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;

	m.len = 1;
	m.b[0] = 1;
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("shorter than 2 bytes"));

	meta_begin(&m, "Big");
	meta_end(&m);
	m.b[0]++;
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("size 8 does not fit in its 7 bytes"));

	m.len = 0;
	put_u16(&m, 0);
	put_u8(&m, 0);
	put(&m, "Name", 4);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("unterminated name at metadata offset 0x3"));

	meta_begin(&m, "E");
	meta_field(&m, "u", 26, 0);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("unknown in-type 26 at metadata offset 0x5"));

	meta_begin(&m, "E");
	meta_field(&m, "u", 0, 0);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("unknown in-type 0"));

	meta_begin(&m, "E");
	meta_field(&m, "s", IN_STRUCT, 2);
	meta_field(&m, "x", IN_UINT8, 0);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("struct at metadata offset 0x5"));

	meta_begin(&m, "E");
	meta_field(&m, "a", IN_UINT8 | FIXED, 0);
	put_u8(&m, 1);		/* half a CCount */
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("metadata ends inside a field definition"));

	meta_begin(&m, "E");
	put_str(&m, "o");
	put_u8(&m, IN_UINT8 | 0x80);	/* OutMeta promised, absent */
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("metadata ends inside a field definition"));

	meta_begin(&m, "E");
	meta_field(&m, "c", IN_BINARY | CUSTOM, 0);
	put_u16(&m, 10);
	put(&m, "abc", 3);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("custom schema"));

	m.len = 0;
	put_u16(&m, 0);
	put(&m, "\x81\x81\x81\x81\x01", 5);
	put_str(&m, "E");
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("tags longer than 4 bytes at metadata offset 0x2"));

	meta_begin(&m, "E");
	put(&m, "field", 5);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("unterminated name at metadata offset 0x5"));

	CHECK_EQ_INT(tl_decode(dec, NULL, 0, NULL, 0, NULL, 0, 8, &ev), -1);
	CHECK(error_has("shorter than 2 bytes"));
}

static void
test_long_names(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	char name[TL_MAX_NAME];

	memset(name, 'n', sizeof(name));
	name[299] = '\0';
	meta_begin(&m, "Long");
	meta_field(&m, name, IN_STRUCT, 1);
	meta_field(&m, name, IN_UINT8, 0);
	meta_end(&m);
	put_u8(&p, 1);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("composed field name longer than 511 bytes at "
	    "metadata offset 0x136"));

	/* Array indices count too: name[9] fits, name[10] does not. */
	memset(name, 'n', sizeof(name));
	name[TL_MAX_NAME - 4] = '\0';
	meta_begin(&m, "Long");
	meta_field(&m, name, IN_UINT8 | FIXED, 0);
	put_u16(&m, 11);
	meta_end(&m);
	p.len = 0;
	put(&p, "0123456789a", 11);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("longer than 511 bytes at payload offset 0xa"));
	CHECK_EQ_INT(ev.nfields, 10);
}

/*
 * Nested fixed arrays of empty structs read no payload; without a limit
 * 65535 x 65535 of them would spin for a long time.
 */
static void
test_step_budget(void)
{
	struct blob m, p = { .len = 0 };
	struct tl_event ev;

	meta_begin(&m, "Spin");
	meta_field(&m, "a", IN_STRUCT | FIXED, 1);
	put_u16(&m, 65535);
	meta_field(&m, "b", IN_STRUCT | FIXED, 0);
	put_u16(&m, 65535);
	meta_end(&m);
	CHECK_EQ_INT(decode(&m, &p, &ev), -1);
	CHECK(error_has("more than"));
}

/* Strings larger than a scratch chunk, and a decoder used again. */
static void
test_large_and_reuse(void)
{
	static struct blob big;
	struct blob m, p = { .len = 0 };
	struct tl_event ev;
	unsigned char *payload;
	const struct value *v;
	size_t i, n = 40000;

	meta_begin(&m, "Big");
	meta_field(&m, "s", IN_UNICODESTRING, 0);
	meta_field(&m, "t", IN_ANSISTRING, 0);
	meta_end(&m);
	REQUIRE((payload = malloc(2 * n + 2 + n + 1)) != NULL);
	for (i = 0; i < n; i++) {
		payload[2 * i] = 0xAC;	/* U+20AC: 3 bytes of UTF-8 */
		payload[2 * i + 1] = 0x20;
		payload[2 * n + 2 + i] = 0x80;	/* CP1252 euro: 3 bytes */
	}
	payload[2 * n] = payload[2 * n + 1] = payload[3 * n + 2] = 0;
	REQUIRE(tl_decode(dec, NULL, 0, m.b, m.len, payload, 3 * n + 3, 8,
	    &ev) == 0);
	free(payload);
	v = field(&ev, "s");
	CHECK(v->type == VAL_STR && v->v.s.len == 3 * n &&
	    memcmp(v->v.s.ptr + 3 * n - 3, "\xe2\x82\xac", 3) == 0);
	v = field(&ev, "t");
	CHECK(v->type == VAL_STR && v->v.s.len == 3 * n);

	every_intype(&m, &big);
	REQUIRE(decode(&m, &big, &ev) == 0);
	CHECK_EQ_STR(str(field(&ev, "castr")), "xyz");
	meta_begin(&m, "Small");
	meta_field(&m, "x", IN_UINT8, 0);
	meta_end(&m);
	put_u8(&p, 3);
	REQUIRE(decode(&m, &p, &ev) == 0);
	CHECK_EQ_STR(ev.name, "Small");
	CHECK_EQ_INT(ev.nfields, 1);
}

/*
 * Every metadata byte of the every-type event replaced by a few values:
 * whatever the outcome, no read may leave the buffers (ASan watches).
 */
static void
test_mutated_metadata(void)
{
	static const unsigned char subst[] = { 0x00, 0x01, 0x20, 0x7F, 0x80,
	    0xFF };
	struct blob m, p, mm;
	struct tl_event ev;
	size_t i, j;
	int ok = 0;

	every_intype(&m, &p);
	for (i = 0; i < m.len; i++)
		for (j = 0; j < sizeof(subst); j++) {
			mm = m;
			mm.b[i] = subst[j];
			if (decode(&mm, &p, &ev) == 0)
				ok++;
			else
				CHECK(tl_decoder_error(dec)[0] != '\0');
		}
	CHECK(ok > 0);
}

/* Corpus: walking .etl buffers just far enough to find the events. */

/* The parts of one EVENT_HEADER event that tl_decode() takes (3.7). */
struct tl_raw {
	const unsigned char	*traits;
	size_t			 traits_len;
	const unsigned char	*meta;
	size_t			 meta_len;
	const unsigned char	*payload;
	size_t			 payload_len;
	int			 ptr_size;
};

struct walk {
	struct tl_raw	ev[16];
	size_t		nev;
	size_t		compressed;	/* buffers left unread */
};

/* The size of the event at e (3.1), or 0 for a kind we cannot skip. */
static size_t
event_size(const unsigned char *e)
{
	unsigned long m = le32(e);
	unsigned type = (m >> 16) & 0xFF;

	if ((m >> 30) != 3)
		return 0;
	if (type <= 4 || type == 0x10 || type == 0x11)
		return le16(e + 4);
	return m & 0xFFFF;
}

/* Finds extended items 11 and 12 and the user data (3.7). */
static int
split_event(const unsigned char *e, size_t size, struct tl_raw *raw)
{
	size_t q = 0x50, ds;
	int more = le16(e + 4) & 1;

	memset(raw, 0, sizeof(*raw));
	raw->ptr_size = le16(e + 2) == 0xC013 ? 8 : 4;
	while (more) {
		if (q + 8 > size || (ds = le16(e + q + 6)) > size - q - 8)
			return 0;
		if (le16(e + q + 2) == 11) {
			raw->meta = e + q + 8;
			raw->meta_len = ds;
		} else if (le16(e + q + 2) == 12) {
			raw->traits = e + q + 8;
			raw->traits_len = ds;
		}
		more = le16(e + q + 4) & 1;
		q += (8 + ds + 7) & ~(size_t)7;
	}
	if (q > size)
		return 0;
	raw->payload = e + q;
	raw->payload_len = size - q;
	return raw->meta != NULL;
}

static void
walk_buffer(const unsigned char *b, size_t filled, struct walk *w)
{
	size_t pos = 0x48, size;
	unsigned type;

	while (filled - pos >= 4 && le32(b + pos) != 0xFFFFFFFF) {
		if ((size = event_size(b + pos)) < 8 || size > filled - pos)
			return;
		type = le16(b + pos + 2);
		if ((type == 0xC012 || type == 0xC013) && size >= 0x50 &&
		    w->nev < sizeof(w->ev) / sizeof(w->ev[0]) &&
		    split_event(b + pos, size, &w->ev[w->nev]))
			w->nev++;
		pos += (size + 7) & ~(size_t)7;
		if (pos > filled)
			return;
	}
}

static void
walk_file(const unsigned char *f, size_t len, struct walk *w)
{
	size_t off = 0, bs, filled;

	memset(w, 0, sizeof(*w));
	while (len - off >= 0x48) {
		bs = le32(f + off);
		if (bs < 0x48 || bs > len - off)
			break;
		if ((filled = le32(f + off + 0x30)) == 0)
			filled = le32(f + off + 4);
		if (le16(f + off + 0x34) & 0x40)
			w->compressed++;
		else if (filled >= 0x48 && filled <= bs)
			walk_buffer(f + off, filled, w);
		off += bs;
	}
}

static unsigned char *
corpus_etl(const char *name, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/etl/%s", harness_corpus(), name);
	return harness_slurp(path, len);
}

/* A FILETIME as PerfView prints it: yy/mm/dd hh:mm:ss.ff (UTC). */
static void
format_filetime(uint64_t ft, char *buf, size_t cap)
{
	uint64_t secs = ft / 10000000;
	long z = (long)(secs / 86400) - 134774 + 719468;  /* from 0000-03-01 */
	long era = z / 146097, doe = z - era * 146097;
	long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long mp = (5 * doy + 2) / 153;
	long day = doy - (153 * mp + 2) / 5 + 1;
	long month = mp < 10 ? mp + 3 : mp - 9;
	long year = yoe + era * 400 + (month <= 2);

	snprintf(buf, cap, "%02ld/%02ld/%02ld %02u:%02u:%02u.%02u",
	    year % 100, month, day, (unsigned)(secs % 86400 / 3600),
	    (unsigned)(secs % 3600 / 60), (unsigned)(secs % 60),
	    (unsigned)(ft % 10000000 / 100000));
}

/*
 * perfview__primitive-types.baseline.txt.  The file declares int64_type
 * with InType UInt64 (10), so it decodes as VAL_U64: PerfView prints its
 * bits as signed.  PerfView's system_time_type fraction (.03 on every
 * event) matches neither the milliseconds in the SYSTEMTIME nor the
 * FILETIME, so only the seconds are compared.
 */
static const struct planet {
	const char	*name;
	int		 boolean;
	char		 ch;
	int		 i16, i32, u16, u32;
	long long	 i64;
	unsigned	 u64;
	const char	*guid;
	const char	*filetime;
	const char	*systime;
} planets[] = {
	{ "Mercury", 0, 77, -51, -102, 51, 102, -204, 204,
	  "0ad614c4-0ef4-4225-8", "21/09/09 14:59:35.79", "21/09/09 14:59:35" },
	{ "Venus", 1, 86, -95, -190, 95, 190, -380, 380,
	  "e04ff801-9ea3-494f-a", "21/09/09 14:59:36.23", "21/09/09 14:59:36" },
	{ "Earth", 0, 69, -65, -130, 65, 130, -260, 260,
	  "c7a6c80e-f2a6-4220-a", "21/09/09 14:59:36.67", "21/09/09 14:59:36" },
	{ "Mars", 0, 77, -29, -58, 29, 58, -116, 116,
	  "0a922cee-67c1-4108-b", "21/09/09 14:59:37.04", "21/09/09 14:59:37" },
	{ "Jupiter", 1, 74, -69, -138, 69, 138, -276, 276,
	  "bb11b97b-1110-4eb6-b", "21/09/09 14:59:37.48", "21/09/09 14:59:37" },
};

static void
check_planet(const struct tl_event *ev, const struct planet *pl)
{
	const struct value *v;
	char buf[64];

	CHECK_EQ_STR(ev->provider, "solar_system");
	CHECK_EQ_STR(ev->name, "PrimitiveTypesTest");
	CHECK_EQ_INT(ev->nfields, 12);
	CHECK_EQ_STR(str(field(ev, "string_type")), pl->name);
	v = field(ev, "boolean_type");
	CHECK(v->type == VAL_BOOL && v->v.u == (uint64_t)pl->boolean);
	v = field(ev, "char_type");
	CHECK(v->type == VAL_STR && v->v.s.len == 1 && v->v.s.ptr[0] == pl->ch);
	v = field(ev, "int16_type");
	CHECK(v->type == VAL_I64 && v->v.i == pl->i16);
	v = field(ev, "int32_type");
	CHECK(v->type == VAL_I64 && v->v.i == pl->i32);
	v = field(ev, "uint16_type");
	CHECK(v->type == VAL_U64 && v->v.u == (uint64_t)pl->u16);
	v = field(ev, "uint32_type");
	CHECK(v->type == VAL_U64 && v->v.u == (uint64_t)pl->u32);
	v = field(ev, "int64_type");
	CHECK(v->type == VAL_U64 && (int64_t)v->v.u == pl->i64);
	v = field(ev, "uint64_type");
	CHECK(v->type == VAL_U64 && v->v.u == pl->u64);
	v = field(ev, "guid_type");
	REQUIRE(v->type == VAL_GUID && v->v.s.len == 16);
	value_format_guid((const unsigned char *)v->v.s.ptr, buf);
	CHECK(strncmp(buf, pl->guid, strlen(pl->guid)) == 0);
	v = field(ev, "file_time_type");
	REQUIRE(v->type == VAL_UTC);
	format_filetime(v->v.u, buf, sizeof(buf));
	CHECK_EQ_STR(buf, pl->filetime);
	v = field(ev, "system_time_type");
	REQUIRE(v->type == VAL_UTC);
	format_filetime(v->v.u, buf, sizeof(buf));
	CHECK(strncmp(buf, pl->systime, strlen(pl->systime)) == 0);
}

static void
test_corpus_primitive_types(void)
{
	struct walk w;
	struct tl_event ev;
	unsigned char *file;
	size_t len, i;
	int rc;

	if (harness_corpus() == NULL)
		SKIP("no corpus (../shared/corpus or ETL_CORPUS)");
	if ((file = corpus_etl("perfview__primitive-types.etl", &len)) == NULL)
		SKIP("cannot read perfview__primitive-types.etl");
	walk_file(file, len, &w);
	CHECK_EQ_INT(w.compressed, 0);
	CHECK_EQ_INT(w.nev, 5);
	for (i = 0; i < w.nev && i < 5; i++) {
		rc = tl_decode(dec, w.ev[i].traits, w.ev[i].traits_len,
		    w.ev[i].meta, w.ev[i].meta_len, w.ev[i].payload,
		    w.ev[i].payload_len, w.ev[i].ptr_size, &ev);
		CHECK_EQ_STR(tl_decoder_error(dec), "");
		if (rc == 0)
			check_planet(&ev, &planets[i]);
	}
	free(file);
}

int
main(void)
{
	if ((dec = tl_decoder_new()) == NULL)
		return 2;
	RUN(test_every_intype);
	RUN(test_pointer_size);
	RUN(test_outtypes);
	RUN(test_tags);
	RUN(test_arrays);
	RUN(test_nested_structs);
	RUN(test_struct_arrays);
	RUN(test_struct_depth);
	RUN(test_custom_field);
	RUN(test_traits);
	RUN(test_names_not_utf8);
	RUN(test_systemtime);
	RUN(test_sid);
	RUN(test_truncated_payload);
	RUN(test_trailing_bytes);
	RUN(test_malformed_metadata);
	RUN(test_long_names);
	RUN(test_step_budget);
	RUN(test_large_and_reuse);
	RUN(test_mutated_metadata);
	RUN(test_corpus_primitive_types);
	tl_decoder_free(dec);
	HARNESS_EXIT();
}
