/*
 * test_lzxpress.c - MS-XCA Plain LZ77: the spec's worked examples, exact
 * encodings of every length form, round trips, hostile input, and the
 * compressed buffers of real ETW traces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/lzxpress.h"
#include "harness.h"

#define BUF_HEADER	0x48
#define BUF_COMPRESSED	0x40

static const unsigned char spec_alphabet[] = {
	0x3f, 0x00, 0x00, 0x00, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67,
	0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72,
	0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a
};

/* "abc" then a match of offset 3, length 297 (u16 form 0x126). */
static const unsigned char spec_abc[] = {
	0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff,
	0x26, 0x01
};

static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz";

static uint64_t rng_state;

static uint32_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static unsigned char *
abc300(void)
{
	unsigned char *p = malloc(300);
	int i;

	for (i = 0; i < 300; i++)
		p[i] = "abc"[i % 3];
	return p;
}

static void
fill_random(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = rng() & 0xff;
}

static void
fill_text(unsigned char *p, size_t n)
{
	static const char *words[] = { "the ", "event ", "process ",
	    "thread ", "Microsoft-Windows-Kernel ", "0x7ff6a3c0 ", "image ",
	    "load ", "C:\\Windows\\System32\\", "ntdll.dll", ".\n", ", " };
	size_t i = 0, k;
	const char *w;

	while (i < n) {
		w = words[rng() % (sizeof(words) / sizeof(words[0]))];
		for (k = 0; w[k] != '\0' && i < n; k++)
			p[i++] = w[k];
	}
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static unsigned
get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

/* One ETW-like record: kernel header, timestamp, small fields, padding. */
static size_t
event_record(unsigned char *p, uint64_t ts)
{
	static const uint32_t tids[] = { 4, 1234, 1240, 5312, 77 };
	size_t size = 0x18 + 8 * (rng() % 12), i;

	memset(p, 0, size);
	put32(p, 0xc0021000 | (rng() % 4));
	put32(p + 4, (uint32_t)size);
	put32(p + 8, tids[rng() % 5]);
	put32(p + 12, 4);
	put32(p + 16, (uint32_t)ts);
	put32(p + 20, (uint32_t)(ts >> 32));
	for (i = 0x18; i + 8 <= size; i += 8) {
		put32(p + i, rng() % 3 == 0 ? rng() : 0xa3c00000 + (rng() & 0xff0));
		put32(p + i + 4, rng() % 2 ? 0xfffff803 : 0);
	}
	return size;
}

static void
fill_events(unsigned char *p, size_t n)
{
	unsigned char rec[0x18 + 8 * 12];
	uint64_t ts = 0x1d2a3b4c5d6e7f;
	size_t i = 0, size;

	while (i < n) {
		ts += rng() % 5000;
		size = event_record(rec, ts);
		if (size > n - i)
			size = n - i;
		memcpy(p + i, rec, size);
		i += size;
	}
}

/* Compresses `in`, checks the bound, decodes it back and compares. */
static long
roundtrip(const unsigned char *in, size_t n)
{
	size_t cap = lzxpress_bound(n), err = 0;
	unsigned char *z = malloc(cap), *back = malloc(n ? n : 1);
	long zlen, got = -2;

	zlen = lzxpress_compress(in, n, z, cap);
	CHECK(zlen >= 4);
	CHECK(zlen >= 0 && (size_t)zlen <= cap);
	if (zlen >= 0) {
		got = lzxpress_decompress(z, (size_t)zlen, back, n, &err);
		CHECK_EQ_INT(got, n);
		CHECK(got < 0 || memcmp(in, back, n) == 0);
	}
	free(z);
	free(back);
	return zlen;
}

static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 8191, 8192, 65536,
    1 << 20 };

static void
roundtrip_sizes(void (*fill)(unsigned char *, size_t))
{
	unsigned char *buf = malloc(1 << 20);
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		rng_state = 0x9e3779b97f4a7c15ULL + i;
		fill(buf, sizes[i]);
		roundtrip(buf, sizes[i]);
	}
	free(buf);
}

static void
test_spec_alphabet_decode(void)
{
	unsigned char out[26];
	size_t err = 0;

	CHECK_EQ_INT(lzxpress_decompress(spec_alphabet, sizeof(spec_alphabet),
	    out, 26, &err), 26);
	CHECK(memcmp(out, alphabet, 26) == 0);
}

static void
test_spec_abc_decode(void)
{
	unsigned char out[300], *want = abc300();
	size_t err = 0;

	CHECK_EQ_INT(lzxpress_decompress(spec_abc, sizeof(spec_abc), out, 300,
	    &err), 300);
	CHECK(memcmp(out, want, 300) == 0);
	free(want);
}

static void
test_spec_alphabet_compress(void)
{
	unsigned char z[64];

	CHECK_EQ_INT(lzxpress_compress((const unsigned char *)alphabet, 26, z,
	    sizeof(z)), sizeof(spec_alphabet));
	CHECK(memcmp(z, spec_alphabet, sizeof(spec_alphabet)) == 0);
}

static void
test_spec_abc_compress(void)
{
	unsigned char z[400], *in = abc300();

	CHECK_EQ_INT(lzxpress_compress(in, 300, z, sizeof(z)),
	    sizeof(spec_abc));
	CHECK(memcmp(z, spec_abc, sizeof(spec_abc)) == 0);
	roundtrip(in, 300);
	free(in);
}

static void
test_empty(void)
{
	unsigned char z[8], out[1];
	size_t err = 0;

	/* Nothing but the terminating flag word. */
	CHECK_EQ_INT(lzxpress_compress(z, 0, z, sizeof(z)), 4);
	CHECK_EQ_INT(get32(z), 0xffffffff);
	CHECK_EQ_INT(lzxpress_decompress(z, 4, out, 0, &err), 0);
	CHECK_EQ_INT(lzxpress_compress(z, 0, z, 3), -1);
	CHECK_EQ_INT(lzxpress_bound(0), 4);
}

/*
 * A literal 'a' and one match (offset 1) of length `len`: the stream is
 * the flag word 0x7fffffff, 'a', then exactly `tail`.
 */
static void
check_run(size_t len, const unsigned char *tail, size_t tail_len)
{
	size_t n = 1 + len;
	unsigned char *in = malloc(n), *z = malloc(lzxpress_bound(n));
	long zlen;

	memset(in, 'a', n);
	zlen = lzxpress_compress(in, n, z, lzxpress_bound(n));
	CHECK_EQ_INT(zlen, 5 + tail_len);
	if (zlen == (long)(5 + tail_len)) {
		CHECK_EQ_INT(get32(z), 0x7fffffff);
		CHECK_EQ_INT(z[4], 'a');
		CHECK(memcmp(z + 5, tail, tail_len) == 0);
	}
	roundtrip(in, n);
	free(in);
	free(z);
}

static void
test_length_forms(void)
{
	/* 3-bit form: length 9 is (9 - 3) in the token. */
	check_run(9, (const unsigned char []){ 0x06, 0x00 }, 2);
	/* Half byte: 10 and 24 are nibbles 0 and 14. */
	check_run(10, (const unsigned char []){ 0x07, 0x00, 0x00 }, 3);
	check_run(24, (const unsigned char []){ 0x07, 0x00, 0x0e }, 3);
	/* Byte: 25 and 279 are 0 and 254. */
	check_run(25, (const unsigned char []){ 0x07, 0x00, 0x0f, 0x00 }, 4);
	check_run(279, (const unsigned char []){ 0x07, 0x00, 0x0f, 0xfe }, 4);
	/* u16 of length - 3, from 280 to 65538. */
	check_run(280, (const unsigned char []){ 0x07, 0x00, 0x0f, 0xff,
	    0x15, 0x01 }, 6);
	check_run(65538, (const unsigned char []){ 0x07, 0x00, 0x0f, 0xff,
	    0xff, 0xff }, 6);
	/* u16 0 then u32 of length - 3. */
	check_run(65539, (const unsigned char []){ 0x07, 0x00, 0x0f, 0xff,
	    0x00, 0x00, 0x00, 0x00, 0x01, 0x00 }, 10);
	check_run(3000000, (const unsigned char []){ 0x07, 0x00, 0x0f, 0xff,
	    0x00, 0x00, 0xbd, 0xc6, 0x2d, 0x00 }, 10);
}

static void
test_half_byte_shared(void)
{
	/* Two matches of 20 share the byte 0xaa: low nibble first. */
	static const unsigned char want[] = { 0xff, 0xff, 0xff, 0x5f, 'a',
	    0x07, 0x00, 0xaa, 'b', 0x07, 0x00 };
	unsigned char in[42], z[64], out[42];
	size_t err = 0;

	memset(in, 'a', 21);
	memset(in + 21, 'b', 21);
	CHECK_EQ_INT(lzxpress_compress(in, 42, z, sizeof(z)), sizeof(want));
	CHECK(memcmp(z, want, sizeof(want)) == 0);
	CHECK_EQ_INT(lzxpress_decompress(want, sizeof(want), out, 42, &err),
	    42);
	CHECK(memcmp(out, in, 42) == 0);
}

static void
test_half_byte_decode(void)
{
	/*
	 * Three nibble matches: the third takes a fresh byte after the
	 * shared one is used up.  Lengths 10 + 0x3, 10 + 0x1, 10 + 0x4.
	 */
	static const unsigned char z[] = { 0xff, 0xff, 0xff, 0x5f, 'x',
	    0x07, 0x00, 0x13, 'y', 0x07, 0x00, 0x07, 0x00, 0x04 };
	unsigned char out[1 + 13 + 1 + 11 + 14], want[sizeof(out)];
	size_t err = 0;

	memset(want, 'x', 14);
	memset(want + 14, 'y', 12 + 14);
	CHECK_EQ_INT(lzxpress_decompress(z, sizeof(z), out, sizeof(out),
	    &err), sizeof(out));
	CHECK(memcmp(out, want, sizeof(out)) == 0);
}

static void
test_flag_words(void)
{
	unsigned char in[64], z[128];
	int i;

	for (i = 0; i < 64; i++)
		in[i] = (unsigned char)(i * 37);
	/* 32 literals fill a word; the next word is all padding. */
	CHECK_EQ_INT(lzxpress_compress(in, 32, z, sizeof(z)), 40);
	CHECK_EQ_INT(get32(z), 0);
	CHECK(memcmp(z + 4, in, 32) == 0);
	CHECK_EQ_INT(get32(z + 36), 0xffffffff);
	/* The 33rd literal follows the second word. */
	CHECK_EQ_INT(lzxpress_compress(in, 33, z, sizeof(z)), 41);
	CHECK_EQ_INT(get32(z + 36), 0x7fffffff);
	CHECK_EQ_INT(z[40], in[32]);
	/* Incompressible input meets the bound exactly. */
	CHECK_EQ_INT(lzxpress_compress(in, 64, z, sizeof(z)),
	    lzxpress_bound(64));
	/* A match as the 32nd item, then a literal in the next word. */
	memcpy(in + 31, in, 8);
	in[39] = 0xee;
	CHECK_EQ_INT(lzxpress_compress(in, 40, z, sizeof(z)), 4 + 31 + 2 +
	    4 + 1);
	CHECK_EQ_INT(get32(z), 1);
	CHECK_EQ_INT(get16(z + 35), (30 << 3) | 5);
	CHECK_EQ_INT(get32(z + 37), 0x7fffffff);
	CHECK_EQ_INT(z[41], 0xee);
	roundtrip(in, 40);
}

static void
test_roundtrip_random(void)
{
	unsigned char *buf = malloc(65536);

	roundtrip_sizes(fill_random);
	rng_state = 42;
	fill_random(buf, 65536);
	CHECK_EQ_INT(roundtrip(buf, 65536), lzxpress_bound(65536));
	free(buf);
}

static void
fill_zero(unsigned char *p, size_t n)
{
	memset(p, 0, n);
}

static void
test_roundtrip_zero(void)
{
	roundtrip_sizes(fill_zero);
}

static void
test_roundtrip_text(void)
{
	roundtrip_sizes(fill_text);
}

static void
test_roundtrip_events(void)
{
	roundtrip_sizes(fill_events);
}

/* Runs of every long form, mixed with data, across flag words. */
/*
 * `period` literals, then one match `period` back of length `len`: the
 * decoder widens short periods to copy words, and must give what byte
 * by byte copying gives, also when the output ends inside the match.
 */
static void
check_period(size_t period, size_t len)
{
	unsigned char z[64], want[2100], out[2100];
	size_t i, n = 0, cut, err = 0;
	uint32_t l3 = (uint32_t)(len - 3);

	put32(z, 0x80000000u >> period);
	n = 4;
	for (i = 0; i < period; i++)
		z[n++] = want[i] = (unsigned char)(0x41 + i);
	z[n++] = (unsigned char)(((period - 1) << 3) | (l3 < 7 ? l3 : 7));
	z[n++] = (unsigned char)((period - 1) >> 5);
	if (l3 >= 7 && l3 < 22)
		z[n++] = (unsigned char)(l3 - 7);
	else if (l3 >= 22 && l3 < 22 + 255) {
		z[n++] = 15;
		z[n++] = (unsigned char)(l3 - 22);
	} else if (l3 >= 22) {
		z[n++] = 15;
		z[n++] = 255;
		z[n++] = l3 & 0xff;
		z[n++] = (unsigned char)(l3 >> 8);
	}
	for (i = period; i < period + len; i++)
		want[i] = want[i - period];
	for (cut = 0; cut < 20 && cut < len; cut += 3) {
		memset(out, 0xee, sizeof(out));
		CHECK_EQ_INT(lzxpress_decompress(z, n, out, period + len - cut,
		    &err), period + len - cut);
		CHECK(memcmp(out, want, period + len - cut) == 0);
		CHECK_EQ_INT(out[period + len - cut], 0xee);
	}
}

static void
test_short_periods(void)
{
	static const size_t lens[] = { 3, 4, 7, 8, 9, 10, 15, 16, 17, 23,
	    31, 33, 64, 100, 299, 1000, 2048 };
	size_t period, k;

	for (period = 1; period <= 20; period++)
		for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
			check_period(period, lens[k]);
}

static void
test_long_runs(void)
{
	static const size_t runs[] = { 276, 277, 278, 279, 280, 281, 65537,
	    65538, 65539, 65540, 200000, 3 << 20 };
	size_t n = 0, i, total = 0;
	unsigned char *buf;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		total += runs[i] + 100;
	buf = malloc(total);
	rng_state = 7;
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		fill_text(buf + n, 100);
		n += 100;
		memset(buf + n, (int)i, runs[i]);
		n += runs[i];
	}
	roundtrip(buf, n);
	free(buf);
}

static void
test_out_cap(void)
{
	unsigned char *in = malloc(20000), *z = malloc(lzxpress_bound(20000));
	long zlen;
	int kind;

	for (kind = 0; kind < 3; kind++) {
		rng_state = 99;
		if (kind == 0)
			fill_random(in, 20000);
		else if (kind == 1)
			fill_events(in, 20000);
		else
			fill_zero(in, 20000);
		zlen = lzxpress_compress(in, 20000, z, lzxpress_bound(20000));
		REQUIRE(zlen > 0);
		CHECK_EQ_INT(lzxpress_compress(in, 20000, z, (size_t)zlen),
		    zlen);
		CHECK_EQ_INT(lzxpress_compress(in, 20000, z, (size_t)zlen - 1),
		    -1);
	}
	free(in);
	free(z);
}

static void
test_short_out_len(void)
{
	unsigned char *want = abc300(), *out;
	size_t n, err = 0;

	/* A match cut at out_len, including mid-way through its length. */
	for (n = 1; n <= 300; n++) {
		out = malloc(n);
		CHECK_EQ_INT(lzxpress_decompress(spec_abc, sizeof(spec_abc), out,
		    n, &err), n);
		CHECK(memcmp(out, want, n) == 0);
		free(out);
	}
	out = malloc(10);
	CHECK_EQ_INT(lzxpress_decompress(spec_alphabet, 8, out, 4, &err), 4);
	CHECK(memcmp(out, alphabet, 4) == 0);
	free(out);
	free(want);
}

static void
test_truncated(void)
{
	unsigned char *in = malloc(8192), *z = malloc(lzxpress_bound(8192));
	unsigned char *out = malloc(8192), *cut;
	size_t k, err;
	long zlen, got;

	rng_state = 5;
	fill_events(in, 8192);
	zlen = lzxpress_compress(in, 8192, z, lzxpress_bound(8192));
	REQUIRE(zlen > 8);
	/* Copies give ASan an exact end to watch. */
	for (k = 0; k + 4 < (size_t)zlen; k++) {
		cut = malloc(k ? k : 1);
		memcpy(cut, z, k);
		err = (size_t)-1;
		got = lzxpress_decompress(cut, k, out, 8192, &err);
		CHECK_EQ_INT(got, -1);
		/* The failing field started at most 3 bytes before the end. */
		CHECK(err <= k && err + 3 >= k);
		free(cut);
	}
	/* Past the last item only the terminating flag word may be lost. */
	for (; k < (size_t)zlen; k++) {
		got = lzxpress_decompress(z, k, out, 8192, &err);
		CHECK(got == -1 || got == 8192);
	}
	free(in);
	free(z);
	free(out);
}

static void
test_corrupt(void)
{
	/* Offset 2 with one byte of output. */
	static const unsigned char far[] = { 0x00, 0x00, 0x00, 0x40, 'a',
	    0x08, 0x00 };
	/* u16 length 21: below what the u16 form may hold. */
	static const unsigned char low[] = { 0x00, 0x00, 0x00, 0x40, 'a',
	    0x07, 0x00, 0x0f, 0xff, 0x15, 0x00 };
	/* u32 length 21 after a u16 0. */
	static const unsigned char low32[] = { 0x00, 0x00, 0x00, 0x40, 'a',
	    0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00 };
	/* A match at the very start. */
	static const unsigned char first[] = { 0x00, 0x00, 0x00, 0x80,
	    0x00, 0x00 };
	/* A huge u32 length is simply cut at out_len. */
	static const unsigned char huge[] = { 0x00, 0x00, 0x00, 0x40, 'a',
	    0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff };
	unsigned char out[64];
	size_t err = 0;

	CHECK_EQ_INT(lzxpress_decompress(far, sizeof(far), out, 10, &err), -1);
	CHECK_EQ_INT(err, 5);
	CHECK_EQ_INT(lzxpress_decompress(low, sizeof(low), out, 64, &err), -1);
	CHECK_EQ_INT(err, 9);
	CHECK_EQ_INT(lzxpress_decompress(low32, sizeof(low32), out, 64, &err),
	    -1);
	CHECK_EQ_INT(err, 11);
	CHECK_EQ_INT(lzxpress_decompress(first, sizeof(first), out, 1, &err),
	    -1);
	CHECK_EQ_INT(err, 4);
	CHECK_EQ_INT(lzxpress_decompress(huge, sizeof(huge), out, 64, &err),
	    64);
	CHECK(out[0] == 'a' && out[63] == 'a');
	/* err_at may be NULL. */
	CHECK_EQ_INT(lzxpress_decompress(far, sizeof(far), out, 10, NULL), -1);
	CHECK_EQ_INT(lzxpress_decompress(far, 0, out, 10, &err), -1);
	CHECK_EQ_INT(err, 0);
}

/* Mutated and random streams must fail cleanly or fill out_len. */
static void
test_hostile(void)
{
	unsigned char *in = malloc(4096), *z = malloc(lzxpress_bound(4096));
	unsigned char *bad = malloc(lzxpress_bound(4096)), *out = malloc(4096);
	long zlen, got;
	size_t err;
	int i, j;

	rng_state = 11;
	fill_events(in, 4096);
	zlen = lzxpress_compress(in, 4096, z, lzxpress_bound(4096));
	REQUIRE(zlen > 0);
	for (i = 0; i < 2000; i++) {
		memcpy(bad, z, (size_t)zlen);
		for (j = 0; j < 1 + i % 4; j++)
			bad[rng() % zlen] ^= 1 << (rng() % 8);
		got = lzxpress_decompress(bad, (size_t)zlen, out, 4096, &err);
		CHECK(got == -1 || got == 4096);
		CHECK(got != -1 || err <= (size_t)zlen);
	}
	for (i = 0; i < 2000; i++) {
		fill_random(bad, 64);
		got = lzxpress_decompress(bad, 64, out, 1 + rng() % 4096, &err);
		CHECK(got == -1 || got > 0);
	}
	free(in);
	free(z);
	free(bad);
	free(out);
}

/*
 * The spec's decoder a byte at a time, with the library's rules for
 * failing: where it fails (*err_at) and what it returns must be the
 * same, whichever path of the library took the item.
 */
static long
reference_decode(const unsigned char *in, size_t in_len, unsigned char *out,
    size_t out_len, size_t *err_at)
{
	size_t ip = 0, op = 0, half = 0, at, tok, offset, len, i;
	int have_half = 0;
	uint32_t flags = 0;
	unsigned nflags = 0, nib;

	while (op < out_len) {
		if (nflags == 0) {
			if (in_len - ip < 4)
				goto fail_here;
			flags = get32(in + ip);
			ip += 4;
			nflags = 32;
		}
		nflags--;
		if (!(flags >> nflags & 1)) {
			if (ip == in_len)
				goto fail_here;
			out[op++] = in[ip++];
			continue;
		}
		at = tok = ip;
		if (in_len - ip < 2)
			goto fail_at;
		offset = (get16(in + ip) >> 3) + 1;
		len = get16(in + ip) & 7;
		ip += 2;
		if (len == 7) {
			if (have_half) {
				nib = in[half] >> 4;
				have_half = 0;
			} else {
				if (ip == in_len)
					goto fail_here;
				nib = in[ip] & 15;
				half = ip++;
				have_half = 1;
			}
			len = 7 + nib;
			if (nib == 15) {
				if (ip == in_len)
					goto fail_here;
				len = 22 + in[ip++];
				if (len == 22 + 255) {
					at = ip;
					if (in_len - ip < 2)
						goto fail_at;
					len = get16(in + ip);
					ip += 2;
					if (len == 0) {
						at = ip;
						if (in_len - ip < 4)
							goto fail_at;
						len = get32(in + ip);
						ip += 4;
					}
					if (len < 22)
						goto fail_at;
				}
			}
		}
		len += 3;
		if (offset > op) {
			at = tok;
			goto fail_at;
		}
		for (i = 0; i < len && op < out_len; i++, op++)
			out[op] = out[op - offset];
	}
	return (long)op;
fail_here:
	at = ip;
fail_at:
	*err_at = at;
	return -1;
}

/* A stream of random items: every offset up to 40, every length form. */
static size_t
random_items(unsigned char *z, size_t cap, size_t *out_len)
{
	size_t n = 0, flagp = 0, out = 0, half = 0, len, offset;
	unsigned nflags = 32, k;
	uint32_t flags = 0;
	int have_half = 0;

	while (n + 16 < cap) {
		if (nflags == 32) {
			if (n > 0)
				put32(z + flagp, flags);
			flagp = n;
			n += 4;
			flags = 0;
			nflags = 0;
		}
		flags <<= 1;
		nflags++;
		if (out == 0 || rng() % 3 == 0) {
			/* Up to 40 literals, cut where the flag word ends. */
			for (k = 1 + rng() % 40;;) {
				z[n++] = (unsigned char)rng();
				out++;
				if (--k == 0 || nflags == 32)
					break;
				flags <<= 1;
				nflags++;
			}
			continue;
		}
		flags |= 1;
		offset = 1 + rng() % (out < 40 ? out : 40);
		switch (rng() % 8) {
		case 0: len = 3 + rng() % 7; break;
		case 1: len = 10 + rng() % 15; break;
		case 2: len = 25 + rng() % 255; break;
		case 3: len = 280 + rng() % 700; break;
		default: len = 3 + rng() % 30; break;
		}
		z[n++] = (unsigned char)((offset - 1) << 3 |
		    (len - 3 < 7 ? len - 3 : 7));
		z[n++] = (unsigned char)((offset - 1) >> 5);
		if (len - 3 >= 7) {
			unsigned nibble = len - 10 < 15 ? (unsigned)(len - 10) : 15;

			if (have_half) {
				z[half] |= (unsigned char)(nibble << 4);
				have_half = 0;
			} else {
				half = n;
				z[n++] = (unsigned char)nibble;
				have_half = 1;
			}
			if (nibble == 15 && len - 25 < 255)
				z[n++] = (unsigned char)(len - 25);
			else if (nibble == 15) {
				z[n++] = 255;
				z[n++] = (unsigned char)((len - 3) & 0xff);
				z[n++] = (unsigned char)((len - 3) >> 8);
			}
		}
		out += len;
	}
	put32(z + flagp, flags << (32 - nflags));
	*out_len = out;
	return n;
}

/*
 * Decodes `z` both ways into `out_len` bytes; they must agree.  The
 * library's output is exactly that long, so that the sanitizer sees a
 * whole-word copy that runs past its end.
 */
static void
agree(const unsigned char *z, size_t zlen, size_t out_len)
{
	unsigned char *a = malloc(out_len ? out_len : 1);
	unsigned char *b = malloc(out_len ? out_len : 1);
	size_t ea = (size_t)-1, eb = (size_t)-2;
	long ga, gb;

	ga = lzxpress_decompress(z, zlen, a, out_len, &ea);
	gb = reference_decode(z, zlen, b, out_len, &eb);
	CHECK_EQ_INT(ga, gb);
	if (ga >= 0 && ga == gb)
		CHECK(memcmp(a, b, (size_t)ga) == 0);
	if (ga < 0 && gb < 0)
		CHECK_EQ_INT(ea, eb);
	free(a);
	free(b);
}

/*
 * Long streams take the decoder's fast path, which copies whole words
 * past a match's end and leaves an item near a bound, or a bad one, to
 * the careful path: cut at every output length near the end and
 * anywhere, truncated, and with bits flipped, it must agree with the
 * byte-at-a-time decoder.
 */
static void
test_fast_path(void)
{
	unsigned char *z = malloc(4096), *bad = malloc(4096);
	size_t zlen, full, cut, i;
	int round, j;

	for (round = 0; round < 200; round++) {
		rng_state = 0x51ed2701ULL + (uint64_t)round;
		zlen = random_items(z, 1000 + rng() % 3000, &full);
		agree(z, zlen, full);
		for (cut = full > 80 ? full - 80 : 0; cut <= full; cut++)
			agree(z, zlen, cut);
		/* Cut where most of the input is still to come. */
		for (j = 0; j < 40; j++)
			agree(z, zlen, rng() % (full + 1));
		for (i = zlen > 40 ? zlen - 40 : 0; i < zlen; i++)
			agree(z, i, full);
		for (j = 0; j < 20; j++) {
			memcpy(bad, z, zlen);
			bad[rng() % zlen] ^= (unsigned char)(1 << rng() % 8);
			agree(bad, zlen, full);
		}
	}
	free(z);
	free(bad);
}

/* Kernel headers keep the event size at +4, the others at +0. */
static int
size_at_4(uint32_t marker)
{
	if ((marker >> 24 & 0xc0) != 0xc0)
		return 0;
	switch ((marker >> 16) & 0xff) {
	case 0x01: case 0x02: case 0x03: case 0x04: case 0x10: case 0x11:
		return 1;
	default:
		return 0;
	}
}

/*
 * Walks the events of a decompressed event area the way a buffer is
 * walked (etl-format.md 1.7); 0 if they tile it, the last one's padding
 * allowed to go past the end.
 */
static int
walk_events(const unsigned char *p, size_t n)
{
	size_t pos = 0, size;
	uint32_t m;

	while (pos + 4 <= n) {
		m = get32(p + pos);
		if (m == 0xffffffff)
			return -1;
		if (size_at_4(m)) {
			if (pos + 6 > n)
				return -1;
			size = get16(p + pos + 4);
		} else
			size = get16(p + pos);
		if (size < 4 || size > n - pos)
			return -1;
		pos += (size + 7) & ~(size_t)7;
	}
	return pos >= n && pos - n < 8 ? 0 : -1;
}

/*
 * Decodes every compressed buffer of one trace, walks its events and
 * round-trips them through the compressor.  Returns how many buffers were
 * compressed, or -1 if the trace is missing.
 */
static int
check_trace(const char *name, long *ours, long *theirs)
{
	char path[4096];
	unsigned char *file, *out;
	size_t len, off, bsize, filled, n, err;
	int count = 0;

	if (snprintf(path, sizeof(path), "%s/etl/%s", harness_corpus(),
	    name) >= (int)sizeof(path) ||
	    (file = harness_slurp(path, &len)) == NULL)
		return -1;
	for (off = 0; len - off >= BUF_HEADER; off += bsize) {
		bsize = get32(file + off);
		if (bsize < BUF_HEADER || bsize > len - off)
			break;
		if ((get16(file + off + 0x34) & BUF_COMPRESSED) == 0)
			continue;
		count++;
		filled = get32(file + off + 0x30);
		if (filled == 0)
			filled = get32(file + off + 4);
		CHECK(filled >= BUF_HEADER);
		if (filled < BUF_HEADER)
			continue;
		n = filled - BUF_HEADER;
		out = malloc(n ? n : 1);
		err = 0;
		CHECK_EQ_INT(lzxpress_decompress(file + off + BUF_HEADER,
		    bsize - BUF_HEADER, out, n, &err), n);
		CHECK_EQ_INT(walk_events(out, n), 0);
		*ours += roundtrip(out, n);
		*theirs += (long)(bsize - BUF_HEADER);
		free(out);
	}
	CHECK_EQ_INT(off, len);
	free(file);
	return count;
}

static void
test_corpus_x64(void)
{
	long ours = 0, theirs = 0;
	int count;

	if (harness_corpus() == NULL)
		SKIP("corpus absent");
	count = check_trace("perfview__net.4.5.2.x64.etl", &ours, &theirs);
	if (count == -1)
		SKIP("perfview__net.4.5.2.x64.etl absent");
	CHECK_EQ_INT(count, 359);
	printf("  x64: %d buffers, Windows %ld bytes, ours %ld bytes\n",
	    count, theirs, ours);
}

static void
test_corpus_others(void)
{
	static const char *names[] = { "demikernel__PktMon.etl",
	    "perfview__smallEtlFile.etl",
	    "perfview__SelfDescribingSingleEvent.etl" };
	long ours = 0, theirs = 0;
	size_t i;
	int count, total = 0;

	if (harness_corpus() == NULL)
		SKIP("corpus absent");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		count = check_trace(names[i], &ours, &theirs);
		if (count == -1)
			SKIP("trace absent");
		/* PktMon is the one named as having compressed buffers. */
		if (i == 0)
			CHECK(count > 0);
		printf("  %s: %d compressed buffers\n", names[i], count);
		total += count;
	}
	CHECK(total > 0);
}

int
main(void)
{
	RUN(test_spec_alphabet_decode);
	RUN(test_spec_abc_decode);
	RUN(test_spec_alphabet_compress);
	RUN(test_spec_abc_compress);
	RUN(test_empty);
	RUN(test_length_forms);
	RUN(test_half_byte_shared);
	RUN(test_half_byte_decode);
	RUN(test_flag_words);
	RUN(test_roundtrip_random);
	RUN(test_roundtrip_zero);
	RUN(test_roundtrip_text);
	RUN(test_roundtrip_events);
	RUN(test_long_runs);
	RUN(test_short_periods);
	RUN(test_out_cap);
	RUN(test_short_out_len);
	RUN(test_truncated);
	RUN(test_corrupt);
	RUN(test_hostile);
	RUN(test_fast_path);
	RUN(test_corpus_x64);
	RUN(test_corpus_others);
	HARNESS_EXIT();
}
