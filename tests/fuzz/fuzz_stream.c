/*
 * fuzz_stream.c - an event stream read to its end with every stack
 * looked up, each record passed on to a writer as etlcat, etlfilter and
 * etlagg pass them: a record the reader accepts must never make the
 * writer fail (it would be blamed on the output), and what is written
 * must read back.
 *
 * An input that starts like a zstd frame is read as it is; any other is
 * taken as the records themselves and put into a frame first, so that
 * mutations reach the records instead of failing the frame's checksum.
 */
#include <zstd.h>

#include "fuzz.h"

static void read_stream(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, n;
	void *frame;

	if (stream_probe(data, size) || size > STREAM_FRAME_MAX) {
		read_stream(data, size);
		return 0;
	}
	cap = ZSTD_compressBound(size);
	if ((frame = malloc(cap)) == NULL)
		abort();
	n = ZSTD_compress(frame, cap, data, size, 1);
	if (ZSTD_isError(n))
		abort();
	read_stream(frame, n);
	free(frame);
	return 0;
}

static void
read_stream(const uint8_t *data, size_t size)
{
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_writer *w;
	struct fuzz_sink sink;
	struct stream_record rec;
	uint64_t frames[STREAM_STACK_MAX];

	if (r == NULL || (w = fuzz_sink_open(&sink)) == NULL)
		abort();
	stream_reader_open_mem(r, data, size, "fuzz.st");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (rec.type == REC_EVENT) {
			/* What the views look up for every event. */
			const struct stream_event_head *h = &rec.u.event.h;
			const struct stream_thread *t = stream_thread(r, h->tid);

			if (h->stack != 0)
				stream_stack_frames(r, h->stack, frames,
				    STREAM_STACK_MAX);
			stream_class(r, h->cls);
			stream_process_by_pid(r, h->pid);
			if (t != NULL)
				stream_process(r, t->process);
		}
		if (stream_write_record(w, &rec) != 0)
			fuzz_fail("the writer refused a record the reader "
			    "accepted", NULL);
	}
	fuzz_sink_close(&sink, w);
	fuzz_check_stream(sink.buf, sink.len);
	fuzz_sink_free(&sink);
	stream_reader_free(r);
}
