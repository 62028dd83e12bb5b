/*
 * test_hostile.c - inputs crafted to break a limit of a reader: each
 * test builds a small file whose sizes or ids lie, and checks that the
 * reader refuses the lie with a message, within bounded memory and time.
 * Each one crashed, hung or asked for gigabytes before its fix.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zstd.h>

#include "buf.h"
#include "harness.h"
#include "in_etl.h"
#include "in_mmprof.h"
#include "lzxpress.h"
#include "stream.h"

#define BUF_HEADER_LEN	0x48

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/* The first buffer of testdata/sample.etl: the trace header alone. */
static unsigned char *
header_buffer(struct buf *b)
{
	size_t len;
	unsigned char *etl = harness_slurp("testdata/sample.etl", &len);

	if (etl == NULL || len < 512) {
		free(etl);
		return NULL;
	}
	buf_put(b, etl, 512);
	free(etl);
	return b->data;
}

/* Reads every event; returns how many, and the reader's counts. */
static long
read_etl(const unsigned char *data, size_t len, struct etl_counts *counts)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_event ev;
	enum etl_status st;
	long n = 0;

	if (r == NULL)
		return -1;
	if (etl_reader_open_mem(r, data, len) == ETL_FATAL) {
		etl_reader_free(r);
		return -1;
	}
	while ((st = etl_reader_next(r, &ev)) != ETL_EOF)
		n += st == ETL_OK;
	*counts = *etl_reader_counts(r);
	etl_reader_free(r);
	return n;
}

/*
 * The last buffer, uncompressed, cut short by the end of the file, with
 * a fill size below its 0x48-byte header: `filled - header` wrapped and
 * the event walk went on through the address space.
 */
static void
test_etl_truncated_fill(void)
{
	struct buf b = { 0 };
	unsigned char *p;
	struct etl_counts c;
	uint32_t fill;

	for (fill = 0; fill < BUF_HEADER_LEN; fill += 0x20) {
		b.len = 0;
		if (header_buffer(&b) == NULL)
			SKIP("testdata/sample.etl absent");
		REQUIRE((p = buf_reserve(&b, 0x100)) != NULL);
		memset(p, 0, 0x100);
		put32(p, 0x10000);		/* BufferSize: past the end */
		put32(p + 4, fill);
		put32(p + 0x30, fill);
		/* A WNODE block claiming 2 GiB, then the end of the file. */
		put32(p + BUF_HEADER_LEN, 0x7fffff00);
		b.len += 0x100;
		CHECK(read_etl(b.data, b.len, &c) >= 0);
		CHECK(c.bad_buffers >= 1);
	}
	buf_release(&b);
}

/*
 * A compressed buffer of a few dozen bytes claiming 64 MiB of events:
 * with sixteen sharing one start time the merge held 1 GiB and spent
 * seconds decompressing.
 */
static void
test_etl_compressed_claims(void)
{
	const size_t area = (64u << 20) - BUF_HEADER_LEN;
	unsigned char *events = calloc(1, area), *z, *p;
	size_t zcap = lzxpress_bound(area);
	struct buf b = { 0 };
	struct etl_counts c;
	long zlen;
	double t0;
	int i;

	REQUIRE(events != NULL && (z = malloc(zcap)) != NULL);
	if (header_buffer(&b) == NULL)
		SKIP("testdata/sample.etl absent");
	/* One PERFINFO event at time 1000, then the end marker. */
	put32(events, 0xc0110000);
	events[4] = 0x10;
	put32(events + 8, 1000);
	put32(events + 16, 0xffffffff);
	REQUIRE((zlen = lzxpress_compress(events, area, z, zcap)) > 0);
	REQUIRE(zlen < 4096);
	for (i = 0; i < 16; i++) {
		REQUIRE((p = buf_reserve(&b, BUF_HEADER_LEN + zlen)) != NULL);
		memset(p, 0, BUF_HEADER_LEN);
		put32(p, BUF_HEADER_LEN + (uint32_t)zlen);
		put32(p + 4, 64u << 20);
		put32(p + 0x30, 64u << 20);
		p[0x34] = 0x40;			/* compressed */
		p[0x28] = (unsigned char)i;	/* processor */
		memcpy(p + BUF_HEADER_LEN, z, (size_t)zlen);
		b.len += BUF_HEADER_LEN + zlen;
	}
	t0 = seconds();
	CHECK(read_etl(b.data, b.len, &c) >= 0);
	CHECK_EQ_INT(c.bad_buffers, 16);
	CHECK(seconds() - t0 < 1.0);
	buf_release(&b);
	free(events);
	free(z);
}

int
main(void)
{
	RUN(test_etl_truncated_fill);
	RUN(test_etl_compressed_claims);
	HARNESS_EXIT();
}
