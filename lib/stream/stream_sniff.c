/*
 * stream_sniff.c - see stream_sniff.h.
 */
#include <stdint.h>
#include <string.h>

#include "stream_sniff.h"

#define ADVICE	"; pass it as a file instead (-o FILE)"

enum text_encoding { ENC_BYTES, ENC_UTF8, ENC_UTF16LE, ENC_UTF16BE };

/*
 * Reads character i of text in encoding e, from p[*at].  Byte-wise
 * decoding is enough here: only whether a character is '(', '/', '?'
 * or beyond ASCII matters.  @return : the character, or -1 at the end.
 */
static long
next_char(const unsigned char *p, size_t len, size_t *at, enum text_encoding e)
{
	size_t i = *at;
	long c;

	switch (e) {
	case ENC_UTF16LE:
	case ENC_UTF16BE:
		if (len - i < 2)
			return -1;
		c = e == ENC_UTF16LE ? p[i] | p[i + 1] << 8 :
		    p[i] << 8 | p[i + 1];
		*at = i + 2;
		return c;
	case ENC_UTF8:
		if (i >= len)
			return -1;
		c = p[i++];
		if (c >= 0xc0)	/* a lead byte: skip its continuation */
			while (i < len && (p[i] & 0xc0) == 0x80)
				i++;
		*at = i;
		return c;
	default:
		if (i >= len)
			return -1;
		*at = i + 1;
		return p[i];
	}
}

/*
 * Whether the text starts with the zstd magic number as a text pipe
 * leaves it: '(' , a character that is not ASCII (or '?'), '/', another.
 */
static int
mangled_magic(const unsigned char *p, size_t len, enum text_encoding e)
{
	size_t at = 0;
	long c[4];
	int i;

	for (i = 0; i < 4; i++)
		if ((c[i] = next_char(p, len, &at, e)) < 0)
			return 0;
	return c[0] == '(' && c[2] == '/' &&
	    (c[1] > 0x7f || c[1] == '?') && (c[3] > 0x7f || c[3] == '?');
}

/* Every LF preceded by a CR, and at least one LF. */
static int
crlf_only(const unsigned char *p, size_t len)
{
	const unsigned char *lf = p, *end = p + len;
	int seen = 0;

	while ((lf = memchr(lf, '\n', (size_t)(end - lf))) != NULL) {
		if (lf == p || lf[-1] != '\r')
			return 0;
		seen = 1;
		lf++;
	}
	return seen;
}

const char *
stream_text_damage(const unsigned char *p, size_t len, int damaged)
{
	if (len >= 2 && p[0] == 0xff && p[1] == 0xfe &&
	    mangled_magic(p + 2, len - 2, ENC_UTF16LE))
		return "stream mangled by a text pipe: re-encoded as UTF-16"
		    ADVICE;
	if (len >= 2 && p[0] == 0xfe && p[1] == 0xff &&
	    mangled_magic(p + 2, len - 2, ENC_UTF16BE))
		return "stream mangled by a text pipe: re-encoded as UTF-16"
		    ADVICE;
	if (mangled_magic(p, len, ENC_UTF16LE) ||
	    mangled_magic(p, len, ENC_UTF16BE))
		return "stream mangled by a text pipe: re-encoded as UTF-16"
		    ADVICE;
	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf &&
	    mangled_magic(p + 3, len - 3, ENC_UTF8))
		return "stream mangled by a text pipe: re-encoded as UTF-8"
		    ADVICE;
	if (mangled_magic(p, len, ENC_BYTES) && p[1] == '?' && p[3] == '?')
		return "stream mangled by a text pipe: bytes above 0x7f "
		    "replaced by '?'" ADVICE;
	if (mangled_magic(p, len, ENC_UTF8) && p[1] >= 0xc0)
		return "stream mangled by a text pipe: re-encoded as UTF-8"
		    ADVICE;
	if (damaged && len >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0 &&
	    crlf_only(p, len))
		return "stream mangled by a text pipe: LF bytes turned into "
		    "CRLF" ADVICE;
	return NULL;
}
