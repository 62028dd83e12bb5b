/*
 * test_value.c - type names and the text form of every value type.
 */
#include <math.h>
#include <stdint.h>

#include "base/value.h"
#include "harness.h"

static char text[128];

/* Formats v into text and checks that the return is the text's length. */
static const char *
fmt(struct value v)
{
	size_t n = value_format(&v, text, sizeof(text));

	CHECK_EQ_INT(n, strlen(text));
	return text;
}

static struct value
i64(int64_t i)
{
	struct value v = { .type = VAL_I64, .v.i = i };

	return v;
}

static struct value
u64(enum value_type type, uint64_t u)
{
	struct value v = { .type = type, .v.u = u };

	return v;
}

static struct value
f64(double f)
{
	struct value v = { .type = VAL_F64, .v.f = f };

	return v;
}

static struct value
ns(int64_t i)
{
	struct value v = { .type = VAL_NS, .v.i = i };

	return v;
}

static struct value
bytes(enum value_type type, const void *p, size_t len)
{
	struct value v = { .type = type, .v.s = { p, len } };

	return v;
}

static const unsigned char guid[16] = {
	0xc4, 0x14, 0xd6, 0x0a, 0xf4, 0x0e, 0x25, 0x42,
	0x8a, 0x0b, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab
};

static void
test_type_names(void)
{
	static const char *const want[] = { "null", "i64", "u64", "f64",
	    "str", "hex", "ns", "utc", "guid", "bytes", "bool" };
	int t;

	for (t = 0; t <= VAL_TYPE_MAX; t++)
		CHECK_EQ_STR(value_type_name((enum value_type)t), want[t]);
	CHECK_EQ_STR(value_type_name((enum value_type)(VAL_TYPE_MAX + 1)),
	    "unknown");
}

static void
test_integers(void)
{
	CHECK_EQ_STR(fmt(i64(0)), "0");
	CHECK_EQ_STR(fmt(i64(-42)), "-42");
	CHECK_EQ_STR(fmt(i64(INT64_MIN)), "-9223372036854775808");
	CHECK_EQ_STR(fmt(u64(VAL_U64, UINT64_MAX)), "18446744073709551615");
	CHECK_EQ_STR(fmt(u64(VAL_HEX, 0)), "0x0");
	CHECK_EQ_STR(fmt(u64(VAL_HEX, 0x1f)), "0x1f");
	CHECK_EQ_STR(fmt(u64(VAL_HEX, UINT64_MAX)), "0xffffffffffffffff");
	CHECK_EQ_STR(fmt(u64(VAL_BOOL, 1)), "true");
	CHECK_EQ_STR(fmt(u64(VAL_BOOL, 0)), "false");
}

static void
test_f64(void)
{
	CHECK_EQ_STR(fmt(f64(0)), "0");
	CHECK_EQ_STR(fmt(f64(-0.0)), "-0");
	CHECK_EQ_STR(fmt(f64(1)), "1");
	CHECK_EQ_STR(fmt(f64(0.1)), "0.1");
	CHECK_EQ_STR(fmt(f64(-2.5)), "-2.5");
	CHECK_EQ_STR(fmt(f64(1e300)), "1e+300");
	CHECK_EQ_STR(fmt(f64(0.1 + 0.2)), "0.30000000000000004");
	CHECK_EQ_STR(fmt(f64(1.0 / 3)), "0.3333333333333333");
	CHECK_EQ_STR(fmt(f64(1 + 0x1p-52)), "1.0000000000000002");
	CHECK_EQ_STR(fmt(f64(9007199254740992.0)), "9007199254740992");
	CHECK_EQ_STR(fmt(f64(5e-324)), "4.94065645841247e-324");
	CHECK_EQ_STR(fmt(f64(INFINITY)), "inf");
	CHECK_EQ_STR(fmt(f64(-INFINITY)), "-inf");
	CHECK_EQ_STR(fmt(f64(NAN)), "nan");
	CHECK_EQ_STR(fmt(f64(-NAN)), "nan");
}

static void
test_ns(void)
{
	CHECK_EQ_STR(fmt(ns(0)), "0.000000000");
	CHECK_EQ_STR(fmt(ns(1000000250)), "1.000000250");
	CHECK_EQ_STR(fmt(ns(-1)), "-0.000000001");
	CHECK_EQ_STR(fmt(ns(-1500000000)), "-1.500000000");
	CHECK_EQ_STR(fmt(ns(INT64_MAX)), "9223372036.854775807");
	CHECK_EQ_STR(fmt(ns(INT64_MIN)), "-9223372036.854775808");
}

static void
test_utc(void)
{
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 0)), "");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 1)), "1601-01-01T00:00:00.0000001Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 116444736000000000)),
	    "1970-01-01T00:00:00.0000000Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 132404548206234567)),
	    "2020-07-29T00:07:00.6234567Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 132274532961234567)),
	    "2020-02-29T12:34:56.1234567Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 125962560000000000)),
	    "2000-02-29T00:00:00.0000000Z");
	/* 1900 is not a leap year: the day after 02-28 is 03-01. */
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 94405824000000000)),
	    "1900-03-01T00:00:00.0000000Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 94405824000000000 - 1)),
	    "1900-02-28T23:59:59.9999999Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, 2650467743999999999)),
	    "9999-12-31T23:59:59.9999999Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, INT64_MAX)),
	    "30828-09-14T02:48:05.4775807Z");
	CHECK_EQ_STR(fmt(u64(VAL_UTC, UINT64_MAX)),
	    "60056-05-28T05:36:10.9551615Z");
}

static void
test_guid(void)
{
	char buf[37];

	value_format_guid(guid, buf);
	CHECK_EQ_STR(buf, "0ad614c4-0ef4-4225-8a0b-0123456789ab");
	CHECK_EQ_STR(fmt(bytes(VAL_GUID, guid, 16)),
	    "0ad614c4-0ef4-4225-8a0b-0123456789ab");
	/* A GUID of the wrong size shows its bytes. */
	CHECK_EQ_STR(fmt(bytes(VAL_GUID, guid, 3)), "c414d6");
}

static void
test_str_bytes_null(void)
{
	struct value null = { .type = VAL_NULL };

	CHECK_EQ_STR(fmt(bytes(VAL_STR, "h\xc3\xa9llo, \"w\"\n", 12)),
	    "h\xc3\xa9llo, \"w\"\n");
	CHECK_EQ_STR(fmt(bytes(VAL_STR, "abcdef", 3)), "abc");
	CHECK_EQ_STR(fmt(bytes(VAL_STR, NULL, 0)), "");
	CHECK_EQ_STR(fmt(bytes(VAL_BYTES, "\x00\x7f\xff\x10", 4)),
	    "007fff10");
	CHECK_EQ_STR(fmt(bytes(VAL_BYTES, NULL, 0)), "");
	CHECK_EQ_STR(fmt(null), "");
}

/* A short buffer gets a NUL-terminated prefix; the return is the need. */
static void
test_truncation(void)
{
	struct value v;
	char buf[5];

	v = bytes(VAL_STR, "abcdefgh", 8);
	CHECK_EQ_INT(value_format(&v, buf, sizeof(buf)), 8);
	CHECK_EQ_STR(buf, "abcd");
	v = bytes(VAL_BYTES, "\x01\x02\x03\x04", 4);
	CHECK_EQ_INT(value_format(&v, buf, sizeof(buf)), 8);
	CHECK_EQ_STR(buf, "0102");
	v = bytes(VAL_GUID, guid, 16);
	CHECK_EQ_INT(value_format(&v, buf, sizeof(buf)), 36);
	CHECK_EQ_STR(buf, "0ad6");
	v = u64(VAL_UTC, 1);
	CHECK_EQ_INT(value_format(&v, buf, sizeof(buf)), 28);
	CHECK_EQ_STR(buf, "1601");
	v = f64(0.1 + 0.2);
	CHECK_EQ_INT(value_format(&v, buf, sizeof(buf)), 19);
	CHECK_EQ_STR(buf, "0.30");
	v = ns(-1);
	CHECK_EQ_INT(value_format(&v, NULL, 0), 12);
	v = u64(VAL_BOOL, 0);
	CHECK_EQ_INT(value_format(&v, buf, 1), 5);
	CHECK_EQ_STR(buf, "");
}

int
main(void)
{
	RUN(test_type_names);
	RUN(test_integers);
	RUN(test_f64);
	RUN(test_ns);
	RUN(test_utc);
	RUN(test_guid);
	RUN(test_str_bytes_null);
	RUN(test_truncation);
	HARNESS_EXIT();
}
