/*
 * fuzz_filter.c - etlfilter's one pass against its two passes on any
 * stream: the same bytes out, whatever the definitions, their order and
 * the cut.  The first byte picks the filter (options that wait for
 * definitions, with and without --children and -v) and how much memory
 * the records held back get (a little: the temporary file is used);
 * the rest is the stream, put into a frame as fuzz_stream does when it
 * does not start like one.  What is written must read back, when the
 * input does.
 */
#include <zstd.h>

#include "filter/filter.h"
#include "filter/filter_out.h"
#include "fuzz.h"

static const char *const names[] = { "rustc", "^c", "e", "^$" };

static struct filter *
make_filter(unsigned pick)
{
	struct filter *f = filter_new();

	if (f == NULL)
		abort();
	if (pick & 0x10) {
		if (filter_add_pids(f, "1,2,4,100") != 0)
			abort();
		filter_add_flags(f, FILTER_CHILDREN);
	} else if (filter_add_process(f, names[pick & 3]) != 0)
		abort();
	if (pick & 4)
		filter_add_flags(f, FILTER_CHILDREN);
	if (pick & 8)
		filter_add_flags(f, FILTER_INVERT);
	if ((pick & 0x20) && filter_add_kinds(f, "sample,process") != 0)
		abort();
	if (filter_compile(f) != 0)
		abort();
	return f;
}

/* One way or the other; the output into *sink. */
static void
run(const uint8_t *data, size_t size, unsigned pick, int two,
    struct fuzz_sink *sink)
{
	struct stream_reader *r = stream_reader_new(STREAM_EVENT_HEADS);
	struct filter *f = make_filter(pick);
	struct stream_writer *w = fuzz_sink_open(sink);
	struct filter_out *o;
	struct stream_record rec;
	int keep;

	if (r == NULL || w == NULL ||
	    (o = filter_out_new(f, w, pick & 0x40 ? 256 : 1u << 20)) == NULL)
		abort();
	filter_reset(f);
	if (two && filter_needs_scan(f)) {
		stream_reader_open_mem(r, data, size, "scan");
		while (stream_reader_next(r, &rec) == STREAM_OK)
			if (filter_scan(f, r, &rec) != 0)
				abort();
	}
	stream_reader_open_mem(r, data, size, "fuzz.st");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (two) {
			if ((keep = filter_record(f, r, &rec)) < 0)
				abort();
			if (filter_out_write(o, &rec, keep) != 0)
				fuzz_fail("writing", "two passes");
		} else if (filter_out_next(o, r, &rec) != 0)
			fuzz_fail("writing or holding back", "one pass");
	}
	if (filter_out_finish(o) != 0)
		fuzz_fail("writing what was held back", NULL);
	fuzz_sink_close(sink, w);
	filter_out_free(o);
	filter_free(f);
	stream_reader_free(r);
}

/*
 * Whether a reader that keeps stacks reads the stream without an error.
 * etlfilter's reader, which does not, checks less of a STACK record (its
 * id, the limit on definitions), so only then must the output read.
 */
static int
reads_clean(const uint8_t *data, size_t size)
{
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_record rec;
	enum stream_status st;

	if (r == NULL)
		abort();
	stream_reader_open_mem(r, data, size, "in");
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK)
		;
	stream_reader_free(r);
	return st == STREAM_EOF;
}

static void
compare(const uint8_t *data, size_t size, unsigned pick)
{
	struct fuzz_sink one, two;

	run(data, size, pick, 0, &one);
	run(data, size, pick, 1, &two);
	if (one.len != two.len || memcmp(one.buf, two.buf, one.len) != 0)
		fuzz_fail("one pass and two passes differ", NULL);
	if (reads_clean(data, size))
		fuzz_check_stream(one.buf, one.len);
	fuzz_sink_free(&one);
	fuzz_sink_free(&two);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, n;
	unsigned pick;
	void *frame;

	if (size < 1)
		return 0;
	pick = data[0];
	data++;
	size--;
	if (stream_probe(data, size) || size > STREAM_FRAME_MAX) {
		compare(data, size, pick);
		return 0;
	}
	cap = ZSTD_compressBound(size);
	if ((frame = malloc(cap)) == NULL)
		abort();
	n = ZSTD_compress(frame, cap, data, size, 1);
	if (ZSTD_isError(n))
		abort();
	compare(frame, n, pick);
	free(frame);
	return 0;
}
