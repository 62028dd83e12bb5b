/*
 * fuzz_cswitch.c - compact CSwitch batches (HookId 0x0525,
 * etl-events-2.md 2.4) through the decoder: the input is cut into
 * batches (each prefixed by a byte: its processor, and whether a
 * ReadyThread, an ordinary CSwitch and a stack walk for the batch's first
 * switch come first), given raw timestamps
 * that mostly rise, then the decoder finishes; the stream written must
 * read back, in time order.
 *
 * Built with clang -fsanitize=fuzzer it is a libFuzzer target; with a
 * main() that feeds it files (the regression driver) it replays seeds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etw/etw_decode.h"
#include "etl/in_etl.h"
#include "stream/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fail(const char *why)
{
	fprintf(stderr, "fuzz_cswitch: %s\n", why);
	abort();
}

/* What was written reads back, and its switches keep time order. */
static void
check(const char *buf, size_t len)
{
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_record rec;
	enum stream_status st;
	int64_t last = INT64_MIN;

	if (r == NULL)
		abort();
	stream_reader_open_mem(r, buf, len, "written");
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK) {
		if (rec.type != REC_EVENT)
			continue;
		if (rec.u.event.h.ts < last)
			fail("events out of time order");
		last = rec.u.event.h.ts;
	}
	if (st == STREAM_ERROR)
		fail(stream_reader_error(r));
	stream_reader_free(r);
}

static void
event(struct etw_decoder *d, uint16_t hook, uint16_t cpu, uint64_t ts,
    const unsigned char *p, size_t len)
{
	struct etl_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.hdr = ETL_HDR_PERFINFO;
	ev.ptr_size = 8;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.pid = ev.tid = ETL_NO_ID;
	ev.hook = hook;
	ev.version = 2;
	ev.payload = p;
	ev.payload_len = len;
	if (etw_decoder_event(d, &ev) != 0)
		fail("the writer failed on an event");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char ready[8] = { 0xe9, 3 };
	static const unsigned char cswitch[24] = { 0xe9, 3, 0, 0, 0xea, 3 };
	struct etl_header h;
	struct etl_counts counts;
	struct etw_decoder *d;
	struct stream_writer *w;
	FILE *fp;
	char *buf = NULL;
	size_t len = 0, i = 0, n;
	uint64_t ts = 1000;

	if ((fp = open_memstream(&buf, &len)) == NULL ||
	    (w = stream_writer_new(fp, 1)) == NULL)
		abort();
	memset(&h, 0, sizeof(h));
	h.perf_freq = 10000000;
	h.clock_type = 1;
	h.pointer_size = 8;
	h.cpus = 4;
	h.provider_version = 19045;
	memset(&counts, 0, sizeof(counts));
	if (stream_write_header(w, "fuzz") != 0 ||
	    (d = etw_decoder_new(w, &h, "fuzz.etl")) == NULL)
		fail("the writer failed on the header");
	/* Batches: a control byte, a length byte, then the payload. */
	while (i + 2 <= size) {
		unsigned ctl = data[i], blen = data[i + 1] * 8u;

		i += 2;
		n = size - i < blen ? size - i : blen;
		ts += (ctl >> 4) * 977u;
		if (ctl & 4)
			event(d, 0x0532, ctl & 3, ts++, ready, sizeof(ready));
		if (ctl & 8)
			event(d, 0x0524, ctl & 3, ts++, cswitch,
			    sizeof(cswitch));
		/* A stack walk for the batch's first switch, before it. */
		if ((ctl & 4) && n >= 12) {
			unsigned char walk[32] = { 0 };

			memcpy(walk, data + i, 8);
			memcpy(walk + 12, data + i + 8, 4);
			walk[23] = ctl & 8 ? 0xff : 0x7f;	/* kernel or user */
			event(d, 0x1820, ctl & 3, ts++, walk, sizeof(walk));
		}
		event(d, 0x0525, ctl & 3, ts, data + i, n);
		i += n;
	}
	if (etw_decoder_finish(d, &counts) != 0)
		fail("the writer failed on finishing");
	etw_decoder_free(d);
	if (stream_writer_close(w) != 0)
		fail("the writer failed on closing");
	fclose(fp);
	check(buf, len);
	free(buf);
	return 0;
}
