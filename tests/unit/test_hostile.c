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

#include "base/buf.h"
#include "etw/etw_decode.h"
#include "../fuzz/craft.h"
#include "etl/in_etl.h"
#include "mmprof/in_mmprof.h"
#include "base/intern.h"
#include "etl/lzxpress.h"
#include "mmprof/mmprof_decode.h"
#include "stream/stream.h"
#include "harness.h"

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The first buffer of testdata/sample.etl: the trace header alone. */
static unsigned char *
header_buffer(void)
{
	size_t len;
	unsigned char *etl = harness_slurp("testdata/sample.etl", &len);

	if (etl != NULL && len < CRAFT_HDR_LEN) {
		free(etl);
		return NULL;
	}
	return etl;
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

static void
test_etl_truncated_fill(void)
{
	unsigned char *hdr = header_buffer();
	struct buf b = { 0 };
	struct etl_counts c;
	uint32_t fill;

	if (hdr == NULL)
		SKIP("testdata/sample.etl absent");
	for (fill = 0; fill < CRAFT_BUF_HDR; fill += 0x20) {
		b.len = 0;
		REQUIRE(craft_etl_truncated_fill(&b, hdr, fill) == 0);
		CHECK(read_etl(b.data, b.len, &c) >= 0);
		CHECK(c.bad_buffers >= 1);
	}
	buf_release(&b);
	free(hdr);
}

static void
test_etl_compressed_claims(void)
{
	unsigned char *hdr = header_buffer();
	struct buf b = { 0 };
	struct etl_counts c;
	double t0;

	if (hdr == NULL)
		SKIP("testdata/sample.etl absent");
	REQUIRE(craft_etl_compressed_claims(&b, hdr, 16) == 0);
	CHECK(b.len < 4096);
	t0 = seconds();
	CHECK(read_etl(b.data, b.len, &c) >= 0);
	CHECK_EQ_INT(c.bad_buffers, 16);
	CHECK(seconds() - t0 < 1.0);
	buf_release(&b);
	free(hdr);
}

/* A trace header event too short for its layout: not an .etl file. */
static void
test_etl_short_header(void)
{
	unsigned char *hdr = header_buffer(), *copy;
	struct buf b = { 0 };
	struct etl_counts c;

	if (hdr == NULL)
		SKIP("testdata/sample.etl absent");
	REQUIRE(craft_etl_short_header(&b, hdr) == 0);
	/* A copy of its exact size, so that AddressSanitizer sees the end. */
	REQUIRE((copy = malloc(b.len)) != NULL);
	memcpy(copy, b.data, b.len);
	CHECK_EQ_INT(read_etl(copy, b.len, &c), -1);
	free(copy);
	buf_release(&b);
	free(hdr);
}

/*
 * An event larger than 64 KiB made a record too large for the stream,
 * which the writer refused (and etlcat blamed its output).
 */
static void
test_etl_big_event(void)
{
	unsigned char *hdr = header_buffer();
	struct buf b = { 0 };
	struct etl_reader *r;
	struct etw_decoder *d;
	struct stream_writer *w;
	struct etl_event ev;
	enum etl_status st;
	FILE *fp = tmpfile();
	int failed = 0;

	if (hdr == NULL)
		SKIP("testdata/sample.etl absent");
	REQUIRE((r = etl_reader_new()) != NULL && fp != NULL &&
	    (w = stream_writer_new(fp, 1)) != NULL);
	REQUIRE(craft_etl_big_event(&b, hdr) == 0);
	REQUIRE(etl_reader_open_mem(r, b.data, b.len) != ETL_FATAL);
	REQUIRE(stream_write_header(w, "test") == 0);
	REQUIRE((d = etw_decoder_new(w, etl_reader_header(r), "x")) != NULL);
	while ((st = etl_reader_next(r, &ev)) != ETL_EOF)
		if (st == ETL_OK && etw_decoder_event(d, &ev) != 0)
			failed = 1;
	CHECK(!failed);
	CHECK(etw_decoder_finish(d, etl_reader_counts(r)) == 0);
	CHECK_EQ_INT(etl_reader_counts(r)->bad_events, 1);
	CHECK(stream_writer_close(w) == 0);
	etw_decoder_free(d);
	etl_reader_free(r);
	fclose(fp);
	buf_release(&b);
	free(hdr);
}

/* Reads a stream to its end; the last status, and the message. */
static enum stream_status
read_stream(const struct buf *b, char *msg, size_t cap)
{
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_record rec;
	enum stream_status st;

	if (r == NULL)
		return STREAM_ERROR;
	stream_reader_open_mem(r, b->data, b->len, "x.st");
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK)
		continue;
	snprintf(msg, cap, "%s", stream_reader_error(r));
	stream_reader_free(r);
	return st;
}

/* Process id 4294967280 asked for a table of 32 GiB. */
static void
test_stream_big_id(void)
{
	struct buf b = { 0 };
	char msg[512];

	REQUIRE(craft_stream_big_id(&b) == 0);
	CHECK(b.len < 100);
	CHECK_EQ_INT(read_stream(&b, msg, sizeof(msg)), STREAM_ERROR);
	CHECK(strstr(msg, "x.st: definition id 4294967280 would need a table")
	    == msg);
	CHECK(strstr(msg, "(offset 0x0)") != NULL);
	buf_release(&b);
}

/* Definitions kept until the next HEADER: 40 MB from a few KB. */
static void
test_stream_many_defs(void)
{
	struct buf b = { 0 };
	char msg[512];

	REQUIRE(craft_stream_many_defs(&b, 400000) == 0);
	CHECK(b.len < 64 * 1024);
	CHECK_EQ_INT(read_stream(&b, msg, sizeof(msg)), STREAM_ERROR);
	CHECK(strstr(msg, "definitions over the limit of 16 MiB") != NULL);
	buf_release(&b);
}

/* The n-th string has id n and a text of its own (etl-stream.5). */
static void
test_stream_string_ids(void)
{
	static const uint32_t ids[] = { 2 }, dup_ids[] = { 1, 2 };
	static const char *const texts[] = { "a", "a" };
	struct buf b = { 0 };
	char msg[512];

	REQUIRE(craft_stream_strings(&b, ids, texts, 1) == 0);
	CHECK_EQ_INT(read_stream(&b, msg, sizeof(msg)), STREAM_ERROR);
	CHECK_EQ_STR(msg, "x.st: string id 2 out of order (expected 1) "
	    "(offset 0x0)");
	b.len = 0;
	REQUIRE(craft_stream_strings(&b, dup_ids, texts, 2) == 0);
	CHECK_EQ_INT(read_stream(&b, msg, sizeof(msg)), STREAM_ERROR);
	CHECK_EQ_STR(msg, "x.st: string id 2 repeats the text of an earlier "
	    "string (id 1) (offset 0x0)");
	buf_release(&b);
}

/* Stacks joining one another twice a level: 2^64 parts to visit. */
static void
test_stream_stack_fanout(void)
{
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_record rec;
	struct buf b = { 0 };
	uint64_t frames[STREAM_STACK_MAX];
	double t0;

	REQUIRE(r != NULL && craft_stream_stack_fanout(&b) == 0);
	stream_reader_open_mem(r, b.data, b.len, "x.st");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		continue;
	t0 = seconds();
	CHECK(stream_stack_frames(r, 1, frames, STREAM_STACK_MAX) < 0);
	CHECK(stream_stack_frames(r, 60, frames, STREAM_STACK_MAX) == 31);
	CHECK(seconds() - t0 < 1.0);
	stream_reader_free(r);
	buf_release(&b);
}

/* Reads a profile to its end into counts; returns the events. */
static long
read_profile(const struct buf *b, struct mmprof_counts *c)
{
	struct mmprof_reader *r = mmprof_reader_new();
	struct mmprof_event ev;
	enum mmprof_status st;
	long n = 0;

	if (r == NULL || mmprof_reader_open_mem(r, b->data, b->len) !=
	    MMPROF_OK) {
		mmprof_reader_free(r);
		return -1;
	}
	while ((st = mmprof_reader_next(r, &ev)) != MMPROF_EOF &&
	    st != MMPROF_FATAL)
		n += st == MMPROF_OK;
	*c = *mmprof_reader_counts(r);
	mmprof_reader_free(r);
	return n;
}

static void
warn_nothing(const char *fmt, ...)
{
	(void)fmt;
}

/*
 * An empty kind string: the class key was built by appending zero bytes
 * to a buffer never allocated (an offset from NULL, which clang's UBSan
 * reports), and an empty first string was interned at NULL (memcmp of
 * NULL, which gcc's reports).
 */
static void
test_mmprof_empty_kind(void)
{
	struct buf b = { 0 };
	struct mapped_file m = { 0 };
	struct mmprof_counts c;
	FILE *fp = tmpfile();
	struct stream_writer *w;

	struct intern t = { 0 };
	size_t len = 1;

	/* The class: room for nothing, or an empty key, is not NULL. */
	CHECK(buf_reserve(&b, 0) != NULL);
	CHECK_EQ_INT(intern_add(&t, "", 0, NULL), 1);
	CHECK(intern_key(&t, 1, &len) != NULL && len == 0);
	CHECK_EQ_INT(intern_add(&t, "", 0, NULL), 1);
	intern_release(&t);
	REQUIRE(fp != NULL && (w = stream_writer_new(fp, 1)) != NULL);
	REQUIRE(craft_mmprof_empty_kind(&b) == 0);
	CHECK_EQ_INT(read_profile(&b, &c), 1);
	m.data = b.data;
	m.len = b.len;
	CHECK(mmprof_cat(w, "test", "x.mm_profdata", &m, 1, 0, warn_nothing) >= 0);
	CHECK(stream_writer_close(w) == 0);
	fclose(fp);
	buf_release(&b);
}

/*
 * References fanning out a million ways under every event: a minute for
 * 2000 events.  Expansions of references are remembered, so each string
 * is expanded once.
 */
static void
test_mmprof_deep_refs(void)
{
	struct buf b = { 0 };
	struct mmprof_counts c;
	double t0;

	REQUIRE(craft_mmprof_deep_refs(&b, 2000) == 0);
	CHECK(b.len < 128 * 1024);
	t0 = seconds();
	CHECK_EQ_INT(read_profile(&b, &c), 2000);
	CHECK(seconds() - t0 < 2.0);	/* a minute before */
	CHECK_EQ_INT(c.budget_strings, 0);
	CHECK_EQ_INT(c.invalid_strings, 0);
	buf_release(&b);
}

/*
 * 256 KiB of text under each of 2000 events: the file's budget (16 MiB
 * and 64 bytes a byte) bounds the text, and what is left out is counted.
 */
static void
test_mmprof_wide_refs(void)
{
	struct buf b = { 0 };
	struct mmprof_counts c;

	REQUIRE(craft_mmprof_wide_refs(&b, 2000) == 0);
	CHECK(b.len < 128 * 1024);
	CHECK_EQ_INT(read_profile(&b, &c), 2000);
	CHECK(c.budget_strings > 1900);
	CHECK(c.cut_strings < 100);
	buf_release(&b);
}

int
main(void)
{
	RUN(test_etl_truncated_fill);
	RUN(test_etl_compressed_claims);
	RUN(test_etl_big_event);
	RUN(test_etl_short_header);
	RUN(test_stream_big_id);
	RUN(test_stream_many_defs);
	RUN(test_stream_string_ids);
	RUN(test_stream_stack_fanout);
	RUN(test_mmprof_empty_kind);
	RUN(test_mmprof_deep_refs);
	RUN(test_mmprof_wide_refs);
	HARNESS_EXIT();
}
