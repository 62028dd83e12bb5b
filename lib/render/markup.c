/*
 * markup.c - safe text and stable colours for svg and html output.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "markup.h"

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

/*
 * The length of the valid UTF-8 sequence at s[0..len), or 0 if it is not
 * one (overlong forms, surrogates and values above U+10FFFF included).
 */
static size_t
sequence_len(const unsigned char *s, size_t len)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

static void
put_char(FILE *fp, unsigned char c)
{
	switch (c) {
	case '&':
		fputs("&amp;", fp);
		break;
	case '<':
		fputs("&lt;", fp);
		break;
	case '>':
		fputs("&gt;", fp);
		break;
	case '"':
		fputs("&quot;", fp);
		break;
	case '\'':
		fputs("&#39;", fp);
		break;
	default:
		if (c >= 0x20 || c == '\t')
			putc(c, fp);
	}
}

/* Writes the first `max` code points of s[0..len). */
static void
put_text(FILE *fp, const unsigned char *p, size_t len, size_t max)
{
	size_t i = 0, n, shown;

	for (shown = 0; i < len && shown < max; shown++) {
		if ((n = sequence_len(p + i, len - i)) == 0) {
			fputs(replacement, fp);
			i++;
		} else if (n == 1)
			put_char(fp, p[i++]);
		else {
			fwrite(p + i, 1, n, fp);
			i += n;
		}
	}
}

/* Code points as put_text() counts them: a bad byte is one. */
static size_t
code_points(const unsigned char *p, size_t len)
{
	size_t i = 0, n, cps;

	for (cps = 0; i < len; cps++)
		i += (n = sequence_len(p + i, len - i)) > 0 ? n : 1;
	return cps;
}

void
markup_text_cut(FILE *fp, const char *s, size_t len, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;

	if (max < 2 || code_points(p, len) <= max) {
		put_text(fp, p, len, max);
		return;
	}
	put_text(fp, p, len, max - 2);
	fputs("..", fp);
}

void
markup_text(FILE *fp, const char *s, size_t len)
{
	put_text(fp, (const unsigned char *)s, len, SIZE_MAX);
}

uint32_t
markup_hash(const char *name, size_t len)
{
	/*
	 * FNV-1a over 8-byte words, folded: what intern_hash() was when
	 * the colours were chosen.  Kept apart from it, so that a faster
	 * hash table never changes the colours of a flame graph.
	 */
	const unsigned char *p = (const unsigned char *)name;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 32;
	return (uint32_t)h;
}

void
markup_color(const char *name, size_t len, char out[24])
{
	uint32_t h = markup_hash(name, len);
	unsigned r = 205 + (h & 0xff) * 50 / 255;
	unsigned g = ((h >> 8) & 0xff) * 230 / 255;
	unsigned b = ((h >> 16) & 0xff) * 55 / 255;

	snprintf(out, 24, "rgb(%u,%u,%u)", r, g, b);
}
