/*
 * test_robust.c - hostile input never crashes the decoders.
 *
 * Real traces are damaged on purpose (bytes overwritten at random places,
 * cut at many lengths) and decoded all the way to the stream; under
 * `make check-asan` any out-of-bounds access fails the run.  The same
 * for event streams given to the stream reader.  The random sequence is
 * fixed, so a failure can be replayed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etw/etw_decode.h"
#include "etl/in_etl.h"
#include "stream/stream.h"
#include "harness.h"

#define MUTATIONS 150

static uint64_t
next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Decodes `len` bytes as an .etl file into a stream in `out`. */
static int
decode(const unsigned char *data, size_t len, FILE *out)
{
	struct etl_reader *r = etl_reader_new();
	struct stream_writer *w = stream_writer_new(out, 1);
	struct etw_decoder *d = NULL;
	struct etl_event ev;
	enum etl_status st;
	int events = 0;

	if (r == NULL || w == NULL)
		return -1;
	if (etl_reader_open_mem(r, data, len) != ETL_FATAL &&
	    stream_write_header(w, "test") == 0 &&
	    (d = etw_decoder_new(w, etl_reader_header(r), "fuzz")) != NULL) {
		while ((st = etl_reader_next(r, &ev)) != ETL_EOF)
			if (st == ETL_OK && etw_decoder_event(d, &ev) == 0)
				events++;
		etw_decoder_finish(d, etl_reader_counts(r));
	}
	etw_decoder_free(d);
	stream_writer_close(w);
	etl_reader_free(r);
	return events;
}

/* Reads a stream all the way; returns the records read. */
static int
read_stream(const unsigned char *data, size_t len)
{
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_record rec;
	uint64_t frames[64];
	int n = 0;

	stream_reader_open_mem(r, data, len, "fuzz");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (rec.type == REC_EVENT && rec.u.event.h.stack != 0)
			stream_stack_frames(r, rec.u.event.h.stack, frames, 64);
		n++;
	}
	stream_reader_free(r);
	return n;
}

static unsigned char *
load(const char *name, size_t *len, size_t cap)
{
	char path[8192];
	const char *corpus = harness_corpus();
	unsigned char *data;

	if (corpus == NULL)
		return NULL;
	snprintf(path, sizeof(path), "%s/etl/%s", corpus, name);
	if ((data = harness_slurp(path, len)) != NULL && *len > cap)
		*len = cap;
	return data;
}

static void
mutate_and_decode(const char *name, size_t cap, uint64_t seed)
{
	size_t len, i, k;
	unsigned char *orig = load(name, &len, cap), *copy;
	FILE *out = tmpfile();
	int clean;

	if (orig == NULL)
		SKIP("corpus absent");
	REQUIRE(out != NULL && (copy = malloc(len)) != NULL);
	clean = decode(orig, len, out);
	CHECK(clean > 0);
	for (i = 0; i < MUTATIONS; i++) {
		memcpy(copy, orig, len);
		for (k = 0; k < 1 + i % 16; k++) {
			uint64_t r = next_random(&seed);

			copy[r % len] = (unsigned char)(r >> 32);
		}
		rewind(out);
		CHECK(decode(copy, len, out) >= 0);
	}
	/* Cut at many lengths, buffer headers included. */
	for (i = 0; i < MUTATIONS; i++) {
		size_t cut = next_random(&seed) % len;

		rewind(out);
		CHECK(decode(orig, cut, out) >= 0);
	}
	free(copy);
	free(orig);
	fclose(out);
}

static void
test_mutated_kernel_trace(void)
{
	/* The first four 64 KiB buffers: processes, threads, images. */
	mutate_and_decode("airbus-etl-parser__ShutdownPerfDiagLogger.etl",
	    4 * 65536, 1);
}

static void
test_mutated_compressed_trace(void)
{
	mutate_and_decode("perfview__SelfDescribingSingleEvent.etl", 1 << 20, 2);
}

static void
test_mutated_tracelogging(void)
{
	mutate_and_decode("perfview__primitive-types.etl", 1 << 20, 3);
}

static void
test_mutated_stream(void)
{
	size_t len, i, k, slen;
	unsigned char *orig = load("perfview__primitive-types.etl", &len, 1 << 20);
	unsigned char *stream, *copy;
	FILE *out = tmpfile();
	uint64_t seed = 4;
	long n;

	if (orig == NULL)
		SKIP("corpus absent");
	REQUIRE(out != NULL);
	decode(orig, len, out);
	n = ftell(out);
	REQUIRE(n > 0);
	slen = (size_t)n;
	REQUIRE((stream = malloc(slen)) != NULL && (copy = malloc(slen)));
	rewind(out);
	REQUIRE(fread(stream, 1, slen, out) == slen);
	CHECK(read_stream(stream, slen) > 5);
	for (i = 0; i < MUTATIONS; i++) {
		memcpy(copy, stream, slen);
		for (k = 0; k < 1 + i % 8; k++) {
			uint64_t r = next_random(&seed);

			copy[r % slen] = (unsigned char)(r >> 32);
		}
		CHECK(read_stream(copy, slen) >= 0);
		CHECK(read_stream(stream, next_random(&seed) % slen) >= 0);
	}
	free(copy);
	free(stream);
	free(orig);
	fclose(out);
}

int
main(void)
{
	RUN(test_mutated_kernel_trace);
	RUN(test_mutated_compressed_trace);
	RUN(test_mutated_tracelogging);
	RUN(test_mutated_stream);
	HARNESS_EXIT();
}
