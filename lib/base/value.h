/*
 * value.h - one typed value: a table cell, a decoded event field.
 *
 * The stream carries tables and decoded fields as typed values so that
 * etlreport can render any of them without knowing who made them.  A value
 * never owns memory: strings and byte runs point into a record or a buffer
 * whose owner says how long it lives.
 */
#ifndef VALUE_H
#define VALUE_H

#include <stddef.h>
#include <stdint.h>

enum value_type {
	VAL_NULL = 0,	/* empty cell */
	VAL_I64 = 1,	/* signed integer */
	VAL_U64 = 2,	/* unsigned integer */
	VAL_F64 = 3,	/* IEEE double */
	VAL_STR = 4,	/* UTF-8 text, `len` bytes, not NUL-terminated */
	VAL_HEX = 5,	/* unsigned integer shown as 0x... (addresses, flags) */
	VAL_NS = 6,	/* i64 nanoseconds since trace start */
	VAL_UTC = 7,	/* u64 FILETIME: 100 ns units since 1601-01-01 UTC */
	VAL_GUID = 8,	/* 16 bytes, Windows layout (Data1-3 little-endian) */
	VAL_BYTES = 9,	/* opaque bytes, `len` of them */
	VAL_BOOL = 10,	/* u64 0 or 1 */
	VAL_TYPE_MAX = 10
};

struct value {
	enum value_type type;
	union {
		int64_t i;
		uint64_t u;
		double f;
		struct {
			const char *ptr;	/* VAL_STR, VAL_BYTES, VAL_GUID */
			size_t len;
		} s;
	} v;
};

/* The name of a type as the stream format and the man pages spell it. */
const char *value_type_name(enum value_type type);

/*
 * Formats `val` as text into `buf` (always NUL-terminated when cap > 0):
 * integers in decimal, VAL_HEX as 0x%llx, VAL_NS as seconds with 9 decimals,
 * VAL_UTC as ISO 8601 with 7 decimals and Z, GUIDs in the registry form
 * without braces, bytes as hex, VAL_NULL as the empty string.  Strings are
 * copied as they are.
 * @return : the length the full text needs (as snprintf does).
 */
size_t value_format(const struct value *val, char *buf, size_t cap);

/*
 * A number's value as a double, for sums and comparisons of table cells:
 * 0 for an empty cell and for text, GUIDs and bytes.
 */
double value_number(const struct value *val);

/* Cells made in one expression: a number, or text of `len` bytes. */
static inline struct value
value_u64(uint64_t u)
{
	return (struct value){ .type = VAL_U64, .v.u = u };
}

static inline struct value
value_f64(double f)
{
	return (struct value){ .type = VAL_F64, .v.f = f };
}

static inline struct value
value_str(const char *s, size_t len)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, len } };
}

/* Formats a 16-byte Windows GUID as 8-4-4-4-12 lower-case hex into buf[37]. */
void value_format_guid(const unsigned char guid[16], char buf[37]);

/*
 * The key of a PDB in a symbol store ("name.pdb/KEY/name.pdb"): its
 * GUID as 32 upper-case hex digits, then its age in hex.
 */
void value_format_pdb_key(const unsigned char guid[16], uint32_t age,
    char out[41]);

#endif
