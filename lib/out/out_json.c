/*
 * out_json.c - strings as JSON writes them (out_json.h).
 */
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "out_json.h"

/* Whether a byte needs an escape in a JSON string. */
static int
json_special(unsigned char c, int html)
{
	return c < 0x20 || c == '"' || c == '\\' ||
	    (html && (c == '<' || c == '>' || c == '&'));
}

/*
 * One byte that needs an escape, as serde_json writes it, at d.
 * @return : the bytes written (2 or 6).
 */
static size_t
json_escape(unsigned char *d, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char e = c == '"' ? '"' : c == '\\' ? '\\' : c == '\b' ? 'b' :
	    c == '\f' ? 'f' : c == '\n' ? 'n' : c == '\r' ? 'r' :
	    c == '\t' ? 't' : 0;

	d[0] = '\\';
	if (e != 0) {
		d[1] = (unsigned char)e;
		return 2;
	}
	memcpy(d + 1, "u00", 3);
	d[4] = (unsigned char)hex[c >> 4];
	d[5] = (unsigned char)hex[c & 15];
	return 6;
}

/* Whether a byte of w equals c: zero under the xor. */
static uint64_t
has_byte(uint64_t w, unsigned char c)
{
	const uint64_t ones = 0x0101010101010101ULL;
	uint64_t x = w ^ (c * ones);

	return (x - ones) & ~x;
}

/*
 * Whether any of 8 bytes needs an escape: one below 0x20 (the bytes less
 * 0x20 borrow into their top bit; those with it set already are UTF-8,
 * masked out by ~w), or one that is special.
 */
static int
word_special(uint64_t w, int html)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = ones << 7;
	uint64_t m = ((w - 0x20 * ones) & ~w) | has_byte(w, '"') |
	    has_byte(w, '\\');

	if (html)
		m |= has_byte(w, '<') | has_byte(w, '>') | has_byte(w, '&');
	return (m & highs) != 0;
}

static void
string(struct buf *b, const char *s, size_t len, int html)
{
	unsigned char *d = buf_reserve(b, 6 * len + 2), *p;
	size_t i = 0;
	uint64_t w;

	if (d == NULL)
		return;
	p = d;
	*p++ = '"';
	while (i < len) {
		if (i + 8 <= len) {
			memcpy(&w, s + i, 8);
			if (!word_special(w, html)) {
				memcpy(p, &w, 8);
				p += 8;
				i += 8;
				continue;
			}
		}
		if (json_special((unsigned char)s[i], html))
			p += json_escape(p, (unsigned char)s[i]);
		else
			*p++ = (unsigned char)s[i];
		i++;
	}
	*p++ = '"';
	b->len += (size_t)(p - d);
}

void
out_json_string(struct buf *b, const char *s, size_t len)
{
	string(b, s, len, 0);
}

void
out_json_string_html(struct buf *b, const char *s, size_t len)
{
	string(b, s, len, 1);
}
