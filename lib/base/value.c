/*
 * value.c - names and text forms of typed values.
 *
 * Dates are computed here rather than with gmtime(): its time_t is 32-bit
 * on some platforms, gmtime_r() is missing on Windows, and a FILETIME
 * reaches years (up to 60056) that no C library promises to handle.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

#define NS_PER_SEC	1000000000u
#define TICKS_PER_SEC	10000000u	/* FILETIME counts 100 ns ticks */
#define SECS_PER_DAY	86400u

/*
 * Days from 0000-03-01 (proleptic Gregorian) to 1601-01-01.  Counting from
 * a March 1st puts the leap day at the end of the year, where it does not
 * disturb the month arithmetic below.
 */
#define DAYS_0000_03_01_TO_1601	584694u

static const char *const type_names[VAL_TYPE_MAX + 1] = {
	[VAL_NULL] = "null",
	[VAL_I64] = "i64",
	[VAL_U64] = "u64",
	[VAL_F64] = "f64",
	[VAL_STR] = "str",
	[VAL_HEX] = "hex",
	[VAL_NS] = "ns",
	[VAL_UTC] = "utc",
	[VAL_GUID] = "guid",
	[VAL_BYTES] = "bytes",
	[VAL_BOOL] = "bool"
};

const char *
value_type_name(enum value_type type)
{
	/* The type may come straight from a stream, so check its range. */
	if ((unsigned)type > VAL_TYPE_MAX)
		return "unknown";
	return type_names[type];
}

/* Copies `len` bytes of `src` into buf as snprintf would; returns len. */
static size_t
put(char *buf, size_t cap, const char *src, size_t len)
{
	size_t n;

	if (cap == 0)
		return len;
	n = len < cap ? len : cap - 1;
	if (n > 0)
		memcpy(buf, src, n);
	buf[n] = '\0';
	return len;
}

/* Turns snprintf's int result into value_format's return. */
static size_t
put_printed(int n)
{
	return n < 0 ? 0 : (size_t)n;
}

static size_t
format_hexbytes(const unsigned char *p, size_t len, char *buf, size_t cap)
{
	static const char digits[] = "0123456789abcdef";
	size_t i, room;

	room = cap > 0 ? (cap - 1) / 2 : 0;
	for (i = 0; i < len && i < room; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 0xf];
	}
	if (cap > 0)
		buf[2 * i] = '\0';
	return 2 * len;
}

/*
 * The shortest of %.15g, %.16g and %.17g that reads back as the same
 * double.  A double whose shortest form has at most 15 digits prints as
 * exactly that form under %.15g, so most values cost one try.
 */
static size_t
format_f64(double f, char *buf, size_t cap)
{
	char tmp[32];
	int prec, n = 0;

	/* Spelled out so that every C library prints the same. */
	if (isnan(f))
		return put(buf, cap, "nan", 3);
	if (isinf(f))
		return f < 0 ? put(buf, cap, "-inf", 4) :
		    put(buf, cap, "inf", 3);
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(tmp, sizeof(tmp), "%.*g", prec, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	return put(buf, cap, tmp, put_printed(n));
}

/*
 * Writes v in decimal at p, zero-padded to `width` (at most 20) digits;
 * returns the end.  By hand because snprintf() is most of the cost of a
 * long CSV or JSON table.
 */
static char *
decimal(char *p, uint64_t v, int width)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 || n < width);
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

/* The magnitude of i, in unsigned arithmetic so that INT64_MIN works. */
static uint64_t
magnitude(int64_t i)
{
	return i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
}

static size_t
format_i64(int64_t i, char *buf, size_t cap)
{
	char tmp[24], *p = tmp;

	if (i < 0)
		*p++ = '-';
	p = decimal(p, magnitude(i), 1);
	return put(buf, cap, tmp, (size_t)(p - tmp));
}

static size_t
format_u64(uint64_t u, char *buf, size_t cap)
{
	char tmp[24], *p;

	p = decimal(tmp, u, 1);
	return put(buf, cap, tmp, (size_t)(p - tmp));
}

static size_t
format_ns(int64_t ns, char *buf, size_t cap)
{
	char tmp[24], *p = tmp;
	uint64_t mag = magnitude(ns);

	if (ns < 0)
		*p++ = '-';
	p = decimal(p, mag / NS_PER_SEC, 1);
	*p++ = '.';
	p = decimal(p, mag % NS_PER_SEC, 9);
	return put(buf, cap, tmp, (size_t)(p - tmp));
}

/*
 * Gregorian date of day `z` counted from 0000-03-01, after Howard
 * Hinnant's civil_from_days(): 400-year eras of 146097 days, then the year
 * of the era, then the month from a March-based day of the year.
 */
static void
civil_from_days(uint64_t z, uint64_t *year, unsigned *month, unsigned *day)
{
	uint64_t era, doe, yoe, doy, mp;

	era = z / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*year = era * 400 + yoe + (*month <= 2);
}

static size_t
format_utc(uint64_t ticks, char *buf, size_t cap)
{
	char tmp[40], *p = tmp;
	uint64_t secs, sod, year;
	unsigned month, day;

	/* A zero FILETIME means "no time" in Windows structures. */
	if (ticks == 0)
		return put(buf, cap, "", 0);
	secs = ticks / TICKS_PER_SEC;
	sod = secs % SECS_PER_DAY;
	civil_from_days(secs / SECS_PER_DAY + DAYS_0000_03_01_TO_1601, &year,
	    &month, &day);
	p = decimal(p, year, 4);
	*p++ = '-';
	p = decimal(p, month, 2);
	*p++ = '-';
	p = decimal(p, day, 2);
	*p++ = 'T';
	p = decimal(p, sod / 3600, 2);
	*p++ = ':';
	p = decimal(p, sod / 60 % 60, 2);
	*p++ = ':';
	p = decimal(p, sod % 60, 2);
	*p++ = '.';
	p = decimal(p, ticks % TICKS_PER_SEC, 7);
	*p++ = 'Z';
	return put(buf, cap, tmp, (size_t)(p - tmp));
}

void
value_format_guid(const unsigned char g[16], char buf[37])
{
	snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x",
	    g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6],
	    g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static size_t
format_guid(const struct value *val, char *buf, size_t cap)
{
	char tmp[37];

	/* A malformed GUID still shows its bytes rather than nothing. */
	if (val->v.s.len != 16)
		return format_hexbytes((const unsigned char *)val->v.s.ptr,
		    val->v.s.len, buf, cap);
	value_format_guid((const unsigned char *)val->v.s.ptr, tmp);
	return put(buf, cap, tmp, 36);
}

size_t
value_format(const struct value *val, char *buf, size_t cap)
{
	switch (val->type) {
	case VAL_I64:
		return format_i64(val->v.i, buf, cap);
	case VAL_U64:
		return format_u64(val->v.u, buf, cap);
	case VAL_F64:
		return format_f64(val->v.f, buf, cap);
	case VAL_STR:
		return put(buf, cap, val->v.s.ptr, val->v.s.len);
	case VAL_HEX:
		return put_printed(snprintf(buf, cap, "0x%" PRIx64, val->v.u));
	case VAL_NS:
		return format_ns(val->v.i, buf, cap);
	case VAL_UTC:
		return format_utc(val->v.u, buf, cap);
	case VAL_GUID:
		return format_guid(val, buf, cap);
	case VAL_BYTES:
		return format_hexbytes((const unsigned char *)val->v.s.ptr,
		    val->v.s.len, buf, cap);
	case VAL_BOOL:
		return val->v.u ? put(buf, cap, "true", 4) :
		    put(buf, cap, "false", 5);
	default:
		/* VAL_NULL, and types from a newer stream: an empty cell. */
		return put(buf, cap, "", 0);
	}
}

void
value_format_pdb_key(const unsigned char g[16], uint32_t age, char out[41])
{
	snprintf(out, 41, "%02X%02X%02X%02X%02X%02X%02X%02X"
	    "%02X%02X%02X%02X%02X%02X%02X%02X%X",
	    g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6],
	    g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15], age);
}

double
value_number(const struct value *val)
{
	switch (val->type) {
	case VAL_I64:
	case VAL_NS:
		return (double)val->v.i;
	case VAL_F64:
		return val->v.f;
	case VAL_U64:
	case VAL_HEX:
	case VAL_UTC:
	case VAL_BOOL:
		return (double)val->v.u;
	default:
		return 0;
	}
}
