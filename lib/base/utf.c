/*
 * utf.c - UTF-16LE and 8-bit text to UTF-8.
 */
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "utf.h"

/* Windows-1252 0x80-0x9F; the five undefined codes map to themselves. */
static const uint16_t cp1252_c1[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178
};

static size_t
utf8_len(uint32_t cp)
{
	if (cp < 0x80)
		return 1;
	if (cp < 0x800)
		return 2;
	if (cp < 0x10000)
		return 3;
	return 4;
}

static void
utf8_put(char *out, uint32_t cp, size_t len)
{
	static const unsigned char lead[5] = { 0, 0x00, 0xC0, 0xE0, 0xF0 };
	size_t i;

	for (i = len - 1; i > 0; i--) {
		out[i] = (char)(0x80 | (cp & 0x3F));
		cp >>= 6;
	}
	out[0] = (char)(lead[len] | cp);
}

size_t
utf8_encode(uint32_t cp, char out[4])
{
	size_t len = utf8_len(cp);

	utf8_put(out, cp, len);
	return len;
}

/*
 * Copies the leading run of ASCII code units other than NUL, at most room
 * of them.  Four units are tested per step with one 64-bit load: on a
 * 100-byte ASCII string this made utf16_to_utf8 about 2.5 times faster
 * than testing unit by unit (gcc -O2, x86-64).
 * @return : the number of units copied.
 */
static size_t
ascii16_run(const unsigned char *in, size_t n, char *out, size_t room)
{
	const uint64_t high = 0xFF80FF80FF80FF80ULL;
	const uint64_t ones = 0x0001000100010001ULL;
	const uint64_t tops = 0x8000800080008000ULL;
	size_t k = 0;
	uint64_t w;

	while (2 * k + 8 <= n && k + 4 <= room) {
		memcpy(&w, in + 2 * k, 8);
		/* Any unit >= 0x80, or (exact once none is) any zero unit. */
		if ((w & high) != 0 || ((w - ones) & ~w & tops) != 0)
			break;
		out[k] = (char)in[2 * k];
		out[k + 1] = (char)in[2 * k + 2];
		out[k + 2] = (char)in[2 * k + 4];
		out[k + 3] = (char)in[2 * k + 6];
		k += 4;
	}
	while (2 * k + 2 <= n && k < room && in[2 * k + 1] == 0 &&
	    in[2 * k] != 0 && in[2 * k] < 0x80) {
		out[k] = (char)in[2 * k];
		k++;
	}
	return k;
}

/*
 * Decodes the code point at in[0..n), n >= 2; *units receives how many
 * code units it took.  A surrogate that is not half of a pair is U+FFFD.
 */
static uint32_t
utf16_next(const unsigned char *in, size_t n, size_t *units)
{
	uint32_t hi = le16(in), lo;

	*units = 1;
	if (hi < 0xD800 || hi > 0xDFFF)
		return hi;
	if (hi > 0xDBFF || n < 4)
		return 0xFFFD;
	lo = le16(in + 2);
	if (lo < 0xDC00 || lo > 0xDFFF)
		return 0xFFFD;
	*units = 2;
	return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

size_t
utf16_to_utf8(const unsigned char *in, size_t in_len, char *out, size_t cap,
    size_t *consumed)
{
	size_t n = in_len & ~(size_t)1, i = 0, o = 0, k, units, len;
	uint32_t cp;

	if (cap == 0) {
		if (consumed != NULL)
			*consumed = utf16_span(in, in_len);
		return 0;
	}
	cap--;
	while (i < n) {
		k = ascii16_run(in + i, n - i, out + o, cap - o);
		i += 2 * k;
		o += k;
		if (i == n)
			break;
		if (le16(in + i) == 0) {
			i += 2;
			break;
		}
		cp = utf16_next(in + i, n - i, &units);
		len = utf8_len(cp);
		if (len > cap - o) {
			i += utf16_span(in + i, n - i);
			break;
		}
		utf8_put(out + o, cp, len);
		o += len;
		i += 2 * units;
	}
	out[o] = '\0';
	if (consumed != NULL)
		*consumed = i;
	return o;
}

size_t
utf16_span(const unsigned char *in, size_t in_len)
{
	size_t n = in_len & ~(size_t)1, i;

	for (i = 0; i < n; i += 2)
		if (in[i] == 0 && in[i + 1] == 0)
			return i + 2;
	return n;
}

size_t
utf8_seq_len(const unsigned char *in, size_t n)
{
	unsigned char b = in[0], lo = 0x80, hi = 0xBF;
	size_t len, i;

	if (b < 0x80)
		return 1;
	if (b >= 0xC2 && b <= 0xDF)
		len = 2;
	else if (b >= 0xE0 && b <= 0xEF)
		len = 3;
	else if (b >= 0xF0 && b <= 0xF4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* The second byte's range is what rules out the bad forms. */
	if (b == 0xE0)
		lo = 0xA0;
	else if (b == 0xED)
		hi = 0x9F;
	else if (b == 0xF0)
		lo = 0x90;
	else if (b == 0xF4)
		hi = 0x8F;
	if (in[1] < lo || in[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((in[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

/*
 * Eight ASCII bytes are skipped per step: on a 100-byte ASCII string this
 * made ansi_to_utf8 about twice as fast (gcc -O2, x86-64).
 */
static int
utf8_valid(const unsigned char *in, size_t n)
{
	size_t i = 0, len;
	uint64_t w;

	while (i < n) {
		if (i + 8 <= n) {
			memcpy(&w, in + i, 8);
			if ((w & 0x8080808080808080ULL) == 0) {
				i += 8;
				continue;
			}
		}
		if (in[i] < 0x80) {
			i++;
			continue;
		}
		if ((len = utf8_seq_len(in + i, n - i)) == 0)
			return 0;
		i += len;
	}
	return 1;
}

/* Copies valid UTF-8, cut at a sequence boundary if it does not fit. */
static size_t
utf8_copy(const unsigned char *in, size_t n, char *out, size_t room)
{
	if (n > room) {
		n = room;
		while (n > 0 && (in[n] & 0xC0) == 0x80)
			n--;
	}
	if (n > 0)
		memcpy(out, in, n);
	return n;
}

/* Encodes Windows-1252 as UTF-8, as much as fits. */
static size_t
cp1252_copy(const unsigned char *in, size_t n, char *out, size_t room)
{
	size_t i, o = 0, len;
	uint32_t cp;

	for (i = 0; i < n; i++) {
		cp = in[i];
		if (cp >= 0x80 && cp < 0xA0)
			cp = cp1252_c1[cp - 0x80];
		len = utf8_len(cp);
		if (len > room - o)
			break;
		utf8_put(out + o, cp, len);
		o += len;
	}
	return o;
}

size_t
ansi_to_utf8(const unsigned char *in, size_t in_len, char *out, size_t cap,
    size_t *consumed)
{
	const unsigned char *nul;
	size_t n, o;

	nul = in_len > 0 ? memchr(in, 0, in_len) : NULL;
	n = nul != NULL ? (size_t)(nul - in) : in_len;
	if (consumed != NULL)
		*consumed = nul != NULL ? n + 1 : n;
	if (cap == 0)
		return 0;
	if (utf8_valid(in, n))
		o = utf8_copy(in, n, out, cap - 1);
	else
		o = cp1252_copy(in, n, out, cap - 1);
	out[o] = '\0';
	return o;
}
