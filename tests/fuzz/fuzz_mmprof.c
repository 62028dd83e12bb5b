/*
 * fuzz_mmprof.c - a rustc self-profile (.mm_profdata) through etlcat's
 * decode path: the reader (in_mmprof) and mmprof_cat() into a stream
 * writer, whose output must read back; whole, and for labels only.
 */
#include <stdarg.h>

#include "mmprof/mmprof_decode.h"
#include "fuzz.h"

static void
quiet(const char *fmt, ...)
{
	(void)fmt;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mapped_file m = { .data = data, .len = size };
	struct stream_writer *w;
	struct fuzz_sink sink;
	unsigned flags;

	/* Both ways of reading ids: whole, and labels only (the views'). */
	for (flags = 0; flags <= MMPROF_LABELS_ONLY; flags += MMPROF_LABELS_ONLY) {
		if ((w = fuzz_sink_open(&sink)) == NULL)
			abort();
		if (mmprof_probe(data, size) && mmprof_cat(w, "fuzz",
		    "fuzz.mm_profdata", &m, 0, flags, quiet) < 0)
			fuzz_fail("the writer failed", NULL);
		fuzz_sink_close(&sink, w);
		fuzz_check_stream(sink.buf, sink.len);
		fuzz_sink_free(&sink);
	}
	return 0;
}
