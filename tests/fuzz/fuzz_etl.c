/*
 * fuzz_etl.c - an .etl file through etlcat's whole decode path: the
 * reader (in_etl, with MS-XCA), the payload decoder (etw_decode) and the
 * stream writer, whose output must read back.
 */
#include "etw_decode.h"
#include "fuzz.h"
#include "in_etl.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_reader *r = etl_reader_new();
	struct etw_decoder *d = NULL;
	struct stream_writer *w;
	struct fuzz_sink sink;
	struct etl_event ev;
	enum etl_status st;

	if (r == NULL || (w = fuzz_sink_open(&sink)) == NULL)
		abort();
	if (etl_reader_open_mem(r, data, size) == ETL_FATAL)
		goto done;
	if (stream_write_header(w, "fuzz") != 0 ||
	    (d = etw_decoder_new(w, etl_reader_header(r), "fuzz.etl")) == NULL)
		fuzz_fail("the writer failed", "header");
	while ((st = etl_reader_next(r, &ev)) != ETL_EOF)
		if (st == ETL_OK && etw_decoder_event(d, &ev) != 0)
			fuzz_fail("the writer failed on an event", NULL);
	if (etw_decoder_finish(d, etl_reader_counts(r)) != 0)
		fuzz_fail("the writer failed", "finish");
done:
	etw_decoder_free(d);
	fuzz_sink_close(&sink, w);
	fuzz_check_stream(sink.buf, sink.len);
	fuzz_sink_free(&sink);
	etl_reader_free(r);
	return 0;
}
