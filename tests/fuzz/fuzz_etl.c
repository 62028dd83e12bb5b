/*
 * fuzz_etl.c - an .etl file through etlcat's whole decode path: the
 * reader (in_etl, with MS-XCA), the payload decoder (etw_decode) and the
 * stream writer, whose output must read back.
 *
 * Decoded twice, on one thread from memory and with the reader's threads
 * (reading ahead, merging) from a file, whose index pass reads the head
 * of each buffer: both must give the same bytes and the same messages.
 */
#include <stdlib.h>
#include <unistd.h>

#include "etw/etw_decode.h"
#include "etl/in_etl.h"
#include "base/platform.h"
#include "fuzz.h"

/*
 * Decodes the input, from memory or else from `file`; its messages are
 * appended to `msgs`.
 */
static void
decode(const uint8_t *data, size_t size, const struct mapped_file *file,
    int threads, struct fuzz_sink *sink, FILE *msgs)
{
	struct etl_reader *r = etl_reader_new();
	struct etw_decoder *d = NULL;
	struct stream_writer *w;
	struct etl_event ev;
	enum etl_status st;

	if (r == NULL || (w = fuzz_sink_open(sink)) == NULL)
		abort();
	etl_reader_threads(r, threads);
	if (threads)
		stream_writer_async(w);
	if ((file != NULL ? etl_reader_open_file(r, file) :
	    etl_reader_open_mem(r, data, size)) == ETL_FATAL)
		goto done;
	if (stream_write_header(w, "fuzz") != 0 ||
	    (d = etw_decoder_new(w, etl_reader_header(r), "fuzz.etl")) == NULL)
		fuzz_fail("the writer failed", "header");
	while ((st = etl_reader_next(r, &ev)) != ETL_EOF)
		if (st == ETL_WARN)
			fprintf(msgs, "%s\n", etl_reader_error(r));
		else if (etw_decoder_event(d, &ev) != 0)
			fuzz_fail("the writer failed on an event", NULL);
	if (etw_decoder_finish(d, etl_reader_counts(r)) != 0)
		fuzz_fail("the writer failed", "finish");
done:
	etw_decoder_free(d);
	fuzz_sink_close(sink, w);
	etl_reader_free(r);
}

/* The input as a file, mapped as etlcat maps its inputs. */
static void
map_input(const uint8_t *data, size_t size, struct mapped_file *m)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "%s/fuzz_etl.XXXXXX", dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0 || (fp = fdopen(fd, "wb")) == NULL ||
	    fwrite(data, 1, size, fp) != size || fclose(fp) != 0 ||
	    platform_map_file_for_reads(path, m) != 0)
		abort();
	unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_sink one, two, msg1 = { 0 }, msg2 = { 0 };
	struct mapped_file file;

	if ((msg1.fp = open_memstream(&msg1.buf, &msg1.len)) == NULL ||
	    (msg2.fp = open_memstream(&msg2.buf, &msg2.len)) == NULL)
		abort();
	map_input(data, size, &file);
	decode(data, size, NULL, 0, &one, msg1.fp);
	decode(data, size, &file, 1, &two, msg2.fp);
	platform_unmap_file(&file);
	fflush(msg1.fp);
	fflush(msg2.fp);
	if (one.len != two.len || memcmp(one.buf, two.buf, one.len) != 0)
		fuzz_fail("the threads changed the stream", NULL);
	if (msg1.len != msg2.len || memcmp(msg1.buf, msg2.buf, msg1.len) != 0)
		fuzz_fail("the threads changed the messages", msg2.buf);
	fuzz_check_stream(one.buf, one.len);
	fuzz_sink_free(&one);
	fuzz_sink_free(&two);
	fclose(msg1.fp);
	fclose(msg2.fp);
	fuzz_sink_free(&msg1);
	fuzz_sink_free(&msg2);
	return 0;
}
