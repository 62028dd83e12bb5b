/*
 * test_utf.c - UTF-16LE and 8-bit text to UTF-8 (lib/base/utf.c).
 */
#include "base/utf.h"
#include "harness.h"

/* Converts an ASCII C string to UTF-16LE in out, with its NUL. */
static size_t
u16(const char *s, unsigned char *out)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		out[2 * i] = (unsigned char)s[i];
		out[2 * i + 1] = 0;
	}
	out[2 * i] = out[2 * i + 1] = 0;
	return 2 * i + 2;
}

static void
test_utf16_ascii(void)
{
	unsigned char in[64];
	char out[64];
	size_t n = u16("Hello, world", in), used = 99;

	CHECK_EQ_INT(utf16_to_utf8(in, n, out, sizeof(out), &used), 12);
	CHECK_EQ_STR(out, "Hello, world");
	CHECK_EQ_INT(used, n);
	/* consumed may be NULL */
	CHECK_EQ_INT(utf16_to_utf8(in, n, out, sizeof(out), NULL), 12);
}

/* A NUL inside, or a non-ASCII unit inside, the four-unit fast path. */
static void
test_utf16_nul_and_high_in_block(void)
{
	unsigned char in[64];
	char out[64];
	size_t used;

	u16("abcde", in);
	u16("fghij", in + 12);	/* bytes after the first NUL */
	CHECK_EQ_INT(utf16_to_utf8(in, 24, out, sizeof(out), &used), 5);
	CHECK_EQ_STR(out, "abcde");
	CHECK_EQ_INT(used, 12);

	u16("abcXefghij", in);
	in[6] = 0xE9;	/* U+00E9 */
	CHECK_EQ_INT(utf16_to_utf8(in, 22, out, sizeof(out), &used), 11);
	CHECK_EQ_STR(out, "abc\xc3\xa9" "efghij");
	CHECK_EQ_INT(used, 22);

	in[6] = 0x2D;	/* U+4E2D: ASCII low byte, non-zero high byte */
	in[7] = 0x4E;
	CHECK_EQ_INT(utf16_to_utf8(in, 22, out, sizeof(out), &used), 12);
	CHECK_EQ_STR(out, "abc\xe4\xb8\xad" "efghij");
}

static void
test_utf16_bmp(void)
{
	/* U+00E9, U+20AC, U+FFFF (a noncharacter, still encoded) */
	static const unsigned char in[] = {
		0xE9, 0x00, 0xAC, 0x20, 0xFF, 0xFF, 0x00, 0x00
	};
	char out[16];

	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, sizeof(out), NULL),
	    8);
	CHECK_EQ_STR(out, "\xc3\xa9\xe2\x82\xac\xef\xbf\xbf");
}

static void
test_utf16_surrogate_pair(void)
{
	/* U+1F600 = D83D DE00, then U+10FFFF = DBFF DFFF */
	static const unsigned char in[] = {
		0x3D, 0xD8, 0x00, 0xDE, 0xFF, 0xDB, 0xFF, 0xDF
	};
	char out[16];
	size_t used;

	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, sizeof(out), &used),
	    8);
	CHECK_EQ_STR(out, "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
	CHECK_EQ_INT(used, 8);
}

static void
test_utf16_unpaired_surrogates(void)
{
	/* high then 'A'; lone low; high then high then low */
	static const unsigned char in[] = {
		0x3D, 0xD8, 'A', 0x00, 0x00, 0xDE, 0x3D, 0xD8,
		0x3D, 0xD8, 0x00, 0xDE
	};
	/* high surrogate as the last unit, then before a NUL */
	static const unsigned char end[] = { 'x', 0x00, 0x3D, 0xD8 };
	static const unsigned char nul[] = { 0x3D, 0xD8, 0x00, 0x00, 'y', 0 };
	char out[32];
	size_t used;

	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, sizeof(out), NULL),
	    14);
	CHECK_EQ_STR(out, "\xef\xbf\xbd" "A" "\xef\xbf\xbd\xef\xbf\xbd"
	    "\xf0\x9f\x98\x80");
	CHECK_EQ_INT(utf16_to_utf8(end, sizeof(end), out, sizeof(out), &used),
	    4);
	CHECK_EQ_STR(out, "x\xef\xbf\xbd");
	CHECK_EQ_INT(used, 4);
	CHECK_EQ_INT(utf16_to_utf8(nul, sizeof(nul), out, sizeof(out), &used),
	    3);
	CHECK_EQ_STR(out, "\xef\xbf\xbd");
	CHECK_EQ_INT(used, 4);
}

static void
test_utf16_missing_nul(void)
{
	unsigned char in[64];
	char out[64];
	size_t used;

	u16("abcdefghijk", in);
	CHECK_EQ_INT(utf16_to_utf8(in, 22, out, sizeof(out), &used), 11);
	CHECK_EQ_STR(out, "abcdefghijk");
	CHECK_EQ_INT(used, 22);
	/* an odd trailing byte is ignored */
	CHECK_EQ_INT(utf16_to_utf8(in, 7, out, sizeof(out), &used), 3);
	CHECK_EQ_STR(out, "abc");
	CHECK_EQ_INT(used, 6);
	CHECK_EQ_INT(utf16_to_utf8(in, 1, out, sizeof(out), &used), 0);
	CHECK_EQ_STR(out, "");
	CHECK_EQ_INT(used, 0);
}

/* The output is cut at a sequence boundary; consumed still spans it all. */
static void
test_utf16_truncation(void)
{
	/* "a", U+20AC, U+1F600 */
	static const unsigned char in[] = {
		'a', 0, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE, 0, 0, 'b', 0
	};
	unsigned char ascii[64];
	char out[16];
	size_t used;

	u16("abcdefghijkl", ascii);
	CHECK_EQ_INT(utf16_to_utf8(ascii, 26, out, 6, &used), 5);
	CHECK_EQ_STR(out, "abcde");
	CHECK_EQ_INT(used, 26);
	/* The euro sign needs 3 bytes: with 2 left it is not split. */
	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, 4, &used), 1);
	CHECK_EQ_STR(out, "a");
	CHECK_EQ_INT(used, 10);
	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, 8, &used), 4);
	CHECK_EQ_STR(out, "a\xe2\x82\xac");
	CHECK_EQ_INT(used, 10);
	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, 9, &used), 8);
	CHECK_EQ_INT(used, 10);
	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, 1, &used), 0);
	CHECK_EQ_STR(out, "");
	CHECK_EQ_INT(used, 10);
	out[0] = 'z';
	CHECK_EQ_INT(utf16_to_utf8(in, sizeof(in), out, 0, &used), 0);
	CHECK(out[0] == 'z');
	CHECK_EQ_INT(used, 10);
	/* Cut short and without a NUL: the string runs to in_len. */
	CHECK_EQ_INT(utf16_to_utf8(in, 8, out, 4, &used), 1);
	CHECK_EQ_INT(used, 8);
}

static void
test_utf16_span(void)
{
	unsigned char in[32];

	u16("abc", in);
	CHECK_EQ_INT(utf16_span(in, 8), 8);
	CHECK_EQ_INT(utf16_span(in, 32), 8);
	CHECK_EQ_INT(utf16_span(in, 7), 6);
	CHECK_EQ_INT(utf16_span(in, 1), 0);
	CHECK_EQ_INT(utf16_span(in, 0), 0);
	/* a zero byte that is half of a unit is not a NUL */
	in[0] = 0x00;
	in[1] = 0x01;
	CHECK_EQ_INT(utf16_span(in, 8), 8);
	CHECK_EQ_INT(utf16_span(in, 6), 6);
}

static void
test_ansi_ascii_and_utf8(void)
{
	static const unsigned char utf8[] =
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
	char out[64];
	size_t used;

	CHECK_EQ_INT(ansi_to_utf8((const unsigned char *)"kernel32.dll", 13,
	    out, sizeof(out), &used), 12);
	CHECK_EQ_STR(out, "kernel32.dll");
	CHECK_EQ_INT(used, 13);
	CHECK_EQ_INT(ansi_to_utf8(utf8, sizeof(utf8), out, sizeof(out),
	    &used), sizeof(utf8) - 1);
	CHECK_EQ_STR(out, (const char *)utf8);
	CHECK_EQ_INT(used, sizeof(utf8));
}

static void
test_ansi_cp1252(void)
{
	/* euro, left double quote, e acute, undefined 0x81, y diaeresis */
	static const unsigned char in[] = { 0x80, 0x93, 0xE9, 0x81, 0xFF, 0 };
	/* valid UTF-8 followed by a stray byte: all of it is CP1252 */
	static const unsigned char mixed[] = "\xc3\xa9 \xe9";
	char out[64];
	size_t used;

	CHECK_EQ_INT(ansi_to_utf8(in, sizeof(in), out, sizeof(out), &used),
	    12);
	CHECK_EQ_STR(out, "\xe2\x82\xac\xe2\x80\x9c\xc3\xa9\xc2\x81\xc3\xbf");
	CHECK_EQ_INT(used, 6);
	CHECK_EQ_INT(ansi_to_utf8(mixed, sizeof(mixed), out, sizeof(out),
	    NULL), 7);
	CHECK_EQ_STR(out, "\xc3\x83\xc2\xa9 \xc3\xa9");
}

/* Forms a strict decoder refuses are not UTF-8, so they are CP1252. */
static void
test_ansi_bad_utf8_forms(void)
{
	static const struct {
		const char	*in;
		const char	*out;
	} cases[] = {
		/* overlong */
		{ "\xc0\xaf", "\xc3\x80\xc2\xaf" },
		{ "\xe0\x80\xaf", "\xc3\xa0\xe2\x82\xac\xc2\xaf" },
		/* a surrogate */
		{ "\xed\xa0\x80", "\xc3\xad\xc2\xa0\xe2\x82\xac" },
		/* above U+10FFFF */
		{ "\xf4\x90\x80\x80",
		  "\xc3\xb4\xc2\x90\xe2\x82\xac\xe2\x82\xac" },
		/* cut short */
		{ "\xe2\x82", "\xc3\xa2\xe2\x80\x9a" },
	};
	char out[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ansi_to_utf8((const unsigned char *)cases[i].in,
		    strlen(cases[i].in), out, sizeof(out), NULL);
		CHECK_EQ_STR(out, cases[i].out);
	}
}

static void
test_ansi_missing_nul(void)
{
	static const unsigned char in[] = "0123456789abcdef\xe9";
	char out[64];
	size_t used;

	/* Long enough for the 8-byte fast path before the high byte. */
	CHECK_EQ_INT(ansi_to_utf8(in, 17, out, sizeof(out), &used), 18);
	CHECK_EQ_STR(out, "0123456789abcdef\xc3\xa9");
	CHECK_EQ_INT(used, 17);
	CHECK_EQ_INT(ansi_to_utf8(in, 0, out, sizeof(out), &used), 0);
	CHECK_EQ_STR(out, "");
	CHECK_EQ_INT(used, 0);
}

static void
test_ansi_truncation(void)
{
	static const unsigned char utf8[] = "a\xc3\xa9z";
	static const unsigned char cp[] = "a\x80z";
	char out[16];
	size_t used;

	CHECK_EQ_INT(ansi_to_utf8(utf8, sizeof(utf8), out, 3, &used), 1);
	CHECK_EQ_STR(out, "a");
	CHECK_EQ_INT(used, 5);
	CHECK_EQ_INT(ansi_to_utf8(utf8, sizeof(utf8), out, 4, &used), 3);
	CHECK_EQ_STR(out, "a\xc3\xa9");
	CHECK_EQ_INT(used, 5);
	CHECK_EQ_INT(ansi_to_utf8(cp, sizeof(cp), out, 4, &used), 1);
	CHECK_EQ_STR(out, "a");
	CHECK_EQ_INT(used, 4);
	CHECK_EQ_INT(ansi_to_utf8(cp, sizeof(cp), out, 5, &used), 4);
	CHECK_EQ_STR(out, "a\xe2\x82\xac");
	CHECK_EQ_INT(used, 4);
	out[0] = 'q';
	CHECK_EQ_INT(ansi_to_utf8(cp, sizeof(cp), out, 0, &used), 0);
	CHECK(out[0] == 'q');
	CHECK_EQ_INT(used, 4);
}

/* The first and last code points of each length. */
static void
test_utf8_encode(void)
{
	static const struct {
		uint32_t cp;
		const char *utf8;
	} cases[] = {
		{ 0x01, "\x01" }, { 0x7F, "\x7f" },
		{ 0x80, "\xc2\x80" }, { 0x7FF, "\xdf\xbf" },
		{ 0x800, "\xe0\xa0\x80" }, { 0xFFFF, "\xef\xbf\xbf" },
		{ 0x10000, "\xf0\x90\x80\x80" },
		{ 0x10FFFF, "\xf4\x8f\xbf\xbf" },
	};
	char out[4];
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = strlen(cases[i].utf8);
		CHECK_EQ_INT(utf8_encode(cases[i].cp, out), n);
		CHECK(memcmp(out, cases[i].utf8, n) == 0);
	}
}

int
main(void)
{
	RUN(test_utf16_ascii);
	RUN(test_utf16_nul_and_high_in_block);
	RUN(test_utf16_bmp);
	RUN(test_utf16_surrogate_pair);
	RUN(test_utf16_unpaired_surrogates);
	RUN(test_utf16_missing_nul);
	RUN(test_utf16_truncation);
	RUN(test_utf16_span);
	RUN(test_ansi_ascii_and_utf8);
	RUN(test_ansi_cp1252);
	RUN(test_ansi_bad_utf8_forms);
	RUN(test_ansi_missing_nul);
	RUN(test_ansi_truncation);
	RUN(test_utf8_encode);
	HARNESS_EXIT();
}
