/*
 * fuzz_diff.c - etlagg --diff's join (views/view_diff.h) on two streams
 * of tables: after a first 4 bytes that give the length of the first
 * (little-endian, cut to what there is), the base's tables, then the
 * input's.  Whatever the
 * tables (schemas that differ, rows of other widths, keys repeated, ids
 * and times in odd places), the join must write a stream the reader
 * takes back whole.
 */
#include "fuzz.h"
#include "views/view_diff.h"

/* A part of the input as a FILE, as view_diff_read() reads its sides. */
static FILE *
part(const uint8_t *data, size_t size)
{
	FILE *fp = tmpfile();

	if (fp == NULL)
		abort();
	if (size > 0 && fwrite(data, 1, size, fp) != size)
		abort();
	rewind(fp);
	return fp;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct view_diff *d;
	struct fuzz_sink sink;
	struct stream_writer *w;
	size_t cut;
	FILE *a, *b;
	int ok;

	if (size < 4)
		return 0;
	cut = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 |
	    (size_t)data[3] << 24;
	if (cut > size - 4)
		cut = size - 4;
	a = part(data + 4, cut);
	b = part(data + 4 + cut, size - 4 - cut);
	if ((d = view_diff_new()) == NULL)
		abort();
	ok = view_diff_read(d, 0, a) == 0 && view_diff_read(d, 1, b) == 0;
	if ((w = fuzz_sink_open(&sink)) == NULL)
		abort();
	if (ok && (stream_write_header(w, "fuzz_diff") != 0 ||
	    view_diff_write(d, w, 1) != 0))
		fuzz_fail("the join failed to write", view_diff_error(d));
	fuzz_sink_close(&sink, w);
	fuzz_check_stream(sink.buf, sink.len);
	fuzz_sink_free(&sink);
	view_diff_free(d);
	fclose(a);
	fclose(b);
	return 0;
}
