/*
 * fuzz.h - what the fuzz targets share: a stream writer into memory, and
 * the rule that a writer to memory never fails on its own, so a failure
 * is the input's doing and would be reported as a write error.
 *
 * Each tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput() over one
 * parser's memory-open API.  Built with clang -fsanitize=fuzzer it is a
 * libFuzzer target (make fuzz); linked with regression_driver.c it
 * replays its seeds and tests/fuzz/regress/NAME/ (make check).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A finding that no sanitizer would catch: say what, then crash. */
static inline void
fuzz_fail(const char *why, const char *detail)
{
	fprintf(stderr, "fuzz: %s: %s\n", why, detail ? detail : "");
	abort();
}

/* A memory stream for the writer; *buf and *len as open_memstream(). */
struct fuzz_sink {
	FILE *fp;
	char *buf;
	size_t len;
};

static inline struct stream_writer *
fuzz_sink_open(struct fuzz_sink *s)
{
	s->buf = NULL;
	s->len = 0;
	if ((s->fp = open_memstream(&s->buf, &s->len)) == NULL)
		abort();
	return stream_writer_new(s->fp, 1);
}

/* Closes the writer; the bytes stay in s->buf until fuzz_sink_free(). */
static inline void
fuzz_sink_close(struct fuzz_sink *s, struct stream_writer *w)
{
	if (stream_writer_close(w) != 0)
		fuzz_fail("the writer failed on closing", NULL);
	fclose(s->fp);
}

static inline void
fuzz_sink_free(struct fuzz_sink *s)
{
	free(s->buf);
}

/*
 * Reads back what a writer wrote, looking every stack up: the toolkit's
 * own output must always read (a tool downstream would refuse it).
 */
static inline void
fuzz_check_stream(const void *data, size_t len)
{
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_record rec;
	enum stream_status st;
	uint64_t frames[64];

	if (r == NULL)
		abort();
	stream_reader_open_mem(r, data, len, "written");
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK)
		if (rec.type == REC_EVENT && rec.u.event.h.stack != 0)
			stream_stack_frames(r, rec.u.event.h.stack, frames, 64);
	/*
	 * The one refusal allowed is the definitions limit: it is reckoned
	 * on the compressed bytes read (etl-stream.5, Limits), and the
	 * writer may compress a hostile stream's definitions better than
	 * it came.
	 */
	if (st == STREAM_ERROR &&
	    strstr(stream_reader_error(r), "over the limit") == NULL)
		fuzz_fail("what the writer wrote does not read",
		    stream_reader_error(r));
	stream_reader_free(r);
}

#endif
