/*
 * test_cswitch.c - context switches through the decoder (etw_decode,
 * etw_cswitch): CSwitch versions 1, 2 and 5, ReadyThread's readying
 * thread, compact batches expanded (etl-events-2.md 2.4), and batches cut
 * short or with bad records counted, never a crash.  The fuzz target's
 * seed is replayed too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etw/etw_decode.h"
#include "etl/in_etl.h"
#include "stream/stream.h"
#include "harness.h"

#define MAXEV 16

struct run {
	struct etw_decoder *d;
	struct stream_writer *w;
	FILE *fp;
	char *buf;
	size_t len;
};

/* What a run wrote: its switches and readies, and its DIAG counts. */
struct seen {
	int n;
	int64_t ts[MAXEV];
	uint32_t tid[MAXEV], old[MAXEV], stack[MAXEV];
	char state[MAXEV][24], reason[MAXEV][24], extra[MAXEV][512];
	int kind[MAXEV];
	uint64_t cut, bad, late;
};

static void
start(struct run *r)
{
	struct etl_header h;

	memset(&h, 0, sizeof(h));
	h.perf_freq = 10000000;
	h.clock_type = 1;
	h.pointer_size = 8;
	h.cpus = 2;
	h.provider_version = 19045;	/* MaxWaitReason 40 */
	r->buf = NULL;
	r->len = 0;
	r->fp = open_memstream(&r->buf, &r->len);
	r->w = stream_writer_new(r->fp, 1);
	stream_write_header(r->w, "test");
	r->d = etw_decoder_new(r->w, &h, "test.etl");
}

static void
event(struct run *r, uint16_t hook, unsigned version, uint16_t cpu,
    uint64_t ts, const void *p, size_t len)
{
	struct etl_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.hdr = ETL_HDR_PERFINFO;
	ev.ptr_size = 8;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.pid = ev.tid = ETL_NO_ID;
	ev.hook = hook;
	ev.version = (uint8_t)version;
	ev.payload = p;
	ev.payload_len = len;
	etw_decoder_event(r->d, &ev);
}

static const char *
str_field(const struct stream_event *ev, const char *name, char *buf)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < ev->nfields; i++)
		if (strcmp(ev->fields[i].name, name) == 0) {
			if (ev->fields[i].val.type == VAL_STR)
				snprintf(buf, 24, "%.*s",
				    (int)ev->fields[i].val.v.s.len,
				    ev->fields[i].val.v.s.ptr);
			else
				snprintf(buf, 24, "%llu", (unsigned long long)
				    ev->fields[i].val.v.u);
		}
	return buf;
}

static void
finish(struct run *r, struct seen *s)
{
	struct etl_counts c;
	struct stream_reader *rd = stream_reader_new(0);
	struct stream_record rec;
	char tmp[24];
	size_t i;

	memset(&c, 0, sizeof(c));
	memset(s, 0, sizeof(*s));
	etw_decoder_finish(r->d, &c);
	etw_decoder_free(r->d);
	stream_writer_close(r->w);
	fclose(r->fp);
	stream_reader_open_mem(rd, r->buf, r->len, "test");
	while (stream_reader_next(rd, &rec) == STREAM_OK) {
		const struct stream_event *ev = &rec.u.event;

		if (rec.type == REC_DIAG) {
			if (strstr(rec.u.diag.what, "cut short"))
				s->cut = rec.u.diag.count;
			else if (strstr(rec.u.diag.what, "bad thread state"))
				s->bad = rec.u.diag.count;
			else if (strstr(rec.u.diag.what, "older than"))
				s->late = rec.u.diag.count;
		}
		if (rec.type != REC_EVENT || s->n == MAXEV ||
		    (ev->h.kind != EV_CSWITCH && ev->h.kind != EV_READY))
			continue;
		s->kind[s->n] = ev->h.kind;
		s->ts[s->n] = ev->h.ts;
		s->tid[s->n] = ev->h.tid;
		s->stack[s->n] = ev->h.stack;
		s->old[s->n] = (uint32_t)strtoul(str_field(ev, "old_tid", tmp),
		    NULL, 10);
		str_field(ev, "old_state", s->state[s->n]);
		str_field(ev, "old_wait_reason", s->reason[s->n]);
		s->extra[s->n][0] = '\0';
		for (i = 0; i < ev->nfields; i++) {
			strncat(s->extra[s->n], ev->fields[i].name, 511 -
			    strlen(s->extra[s->n]));
			strncat(s->extra[s->n], " ", 511 - strlen(s->extra[s->n]));
		}
		s->n++;
	}
	stream_reader_free(rd);
	free(r->buf);
}

/* A batch: FirstTimeStamp, TidTable, base priorities 8, then records. */
static size_t
batch(unsigned char *b, uint64_t first, const uint32_t *tids, int ntids,
    const unsigned char *recs, size_t len)
{
	int i;

	memset(b, 0, 0x58);
	memcpy(b, &first, 8);
	for (i = 0; i < ntids; i++)
		memcpy(b + 8 + 4 * i, &tids[i], 4);
	memset(b + 0x48, 8, 16);
	memcpy(b + 0x58, recs, len);
	return 0x58 + len;
}

static void
put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void
test_cswitch_versions(void)
{
	unsigned char p[28] = { 0 };
	struct run r;
	struct seen s;

	put32(p, 1001);
	put32(p + 4, 1002);
	p[12] = 15;		/* WrQueue */
	p[14] = 5;		/* Waiting */
	p[24] = 0x5;		/* v5 ExtraFlags */
	start(&r);
	event(&r, 0x0524, 1, 0, 100, p, 20);
	event(&r, 0x0524, 2, 0, 200, p, 24);
	event(&r, 0x0524, 5, 0, 300, p, 28);
	finish(&r, &s);
	REQUIRE(s.n == 3);
	CHECK_EQ_STR(s.reason[0], "WrQueue");
	CHECK_EQ_STR(s.state[1], "Waiting");
	CHECK(strstr(s.extra[0], "new_quantum") != NULL);
	CHECK(strstr(s.extra[0], "old_remaining_quantum") == NULL);
	CHECK(strstr(s.extra[1], "previous_cstate") != NULL);
	CHECK(strstr(s.extra[1], "old_remaining_quantum") != NULL);
	CHECK(strstr(s.extra[1], "extra_flags") == NULL);
	CHECK(strstr(s.extra[2], "old_qos") != NULL);
}

/* The readying thread is the one the last switch put on the processor. */
static void
test_ready_thread(void)
{
	unsigned char c[24] = { 0 }, rd[8] = { 0 };
	struct run r;
	struct seen s;

	put32(c, 1001);
	c[14] = 2;
	put32(rd, 1002);
	start(&r);
	event(&r, 0x0524, 2, 1, 100, c, 24);
	event(&r, 0x0532, 2, 1, 200, rd, 8);
	event(&r, 0x0532, 2, 0, 300, rd, 8);	/* nothing known on cpu 0 */
	finish(&r, &s);
	REQUIRE(s.n == 3);
	CHECK_EQ_INT(s.tid[1], 1001);
	CHECK_EQ_INT(s.tid[2], ETL_NO_ID);
}

/* IdleShort, Lite, Full: three switches, the last with no one in. */
static void
test_compact_expanded(void)
{
	static const uint32_t tids[2] = { 1001, 1002 };
	unsigned char recs[16], b[0x58 + 16];
	struct run r;
	struct seen s;
	size_t len;

	recs[0] = 0;		/* IdleShort, delta 0 */
	recs[1] = 0;
	put32(recs + 2, 2 | 0 << 2 | 1 << 6 | 6 << 9 | 100u << 15);
	put32(recs + 6, 3 | 200u << 2);	/* Full, old idx 1, Ready */
	put32(recs + 10, 1 | (40 + 1) << 4 | 9 << 10 | 3u << 15);
	len = batch(b, 1000, tids, 2, recs, 14);
	start(&r);
	event(&r, 0x0525, 2, 0, 5000, b, len);
	finish(&r, &s);
	REQUIRE(s.n == 3);
	CHECK_EQ_INT(s.ts[0], 100000);		/* 1000 ticks of 100 ns */
	CHECK_EQ_INT(s.tid[0], 1001);
	CHECK_EQ_INT(s.old[0], 0);
	CHECK_EQ_INT(s.ts[1], 110000);
	CHECK_EQ_INT(s.tid[1], 1002);
	CHECK_EQ_INT(s.old[1], 1001);
	CHECK_EQ_STR(s.state[1], "Waiting");
	CHECK_EQ_STR(s.reason[1], "UserRequest");
	CHECK_EQ_INT(s.ts[2], 130000);
	CHECK_EQ_INT(s.tid[2], ETL_NO_ID);
	CHECK_EQ_STR(s.state[2], "Ready");
	CHECK_EQ_INT(s.cut, 0);
}

/* A walk logged before its batch reaches the expanded switch (2.4). */
static void
test_compact_walk(void)
{
	static const uint32_t tids[2] = { 1001, 1002 };
	unsigned char recs[8], b[0x58 + 8], walk[16 + 16];
	uint64_t ts = 1000, frame = 0x7ff700001000ULL;
	uint32_t pid = 1000, tid = 1002;
	struct run r;
	struct seen s;
	size_t len;

	put32(recs, 2 | 0 << 2 | 6 << 9 | 0u << 15);	/* 1001 out */
	put32(recs + 4, 2 | 1 << 2 | 6 << 9 | 100u << 15);	/* 1002 out */
	len = batch(b, 1000, tids, 2, recs, 8);
	memcpy(walk, &ts, 8);
	memcpy(walk + 8, &pid, 4);
	memcpy(walk + 12, &tid, 4);
	memcpy(walk + 16, &frame, 8);
	frame += 0x10;
	memcpy(walk + 24, &frame, 8);
	start(&r);
	event(&r, 0x1820, 2, 0, 1000, walk, sizeof(walk));
	event(&r, 0x0525, 2, 0, 5000, b, len);
	finish(&r, &s);
	REQUIRE(s.n == 2);
	CHECK_EQ_INT(s.tid[0], 1002);
	CHECK(s.stack[0] != 0);
	CHECK_EQ_INT(s.stack[1], 0);
}

/* Cut short, later than the batch, a bad state, too late: counted. */
static void
test_compact_damaged(void)
{
	static const uint32_t tids[1] = { 1001 };
	unsigned char recs[16], b[0x58 + 16];
	struct run r;
	struct seen s;
	size_t len;

	put32(recs, 2 | 0 << 2 | 6 << 9 | 10u << 15);
	put32(recs + 4, 3 | 10u << 2);		/* Full, second word cut */
	len = batch(b, 1000, tids, 1, recs, 8);
	start(&r);
	event(&r, 0x0525, 2, 0, 5000, b, len - 2);
	event(&r, 0x0525, 2, 1, 5001, b, 0x40);	/* header cut */
	put32(recs, 2 | 0 << 2 | 55 << 9 | 10u << 15);	/* state 15 */
	len = batch(b, 1000, tids, 1, recs, 4);
	event(&r, 0x0525, 2, 1, 5002, b, len);
	len = batch(b, 9000, tids, 1, recs, 4);	/* after its batch */
	event(&r, 0x0525, 2, 1, 5003, b, len);
	finish(&r, &s);
	CHECK_EQ_INT(s.cut, 3);
	CHECK_EQ_INT(s.bad, 1);
	CHECK(s.n >= 1);
}

/* A batch logged long after its switches: they are left out, counted. */
static void
test_compact_late(void)
{
	static const uint32_t tids[1] = { 1001 };
	unsigned char recs[4], b[0x58 + 4], c[24] = { 0 };
	struct run r;
	struct seen s;
	size_t len;

	put32(recs, 2 | 0 << 2 | 6 << 9 | 0u << 15);
	len = batch(b, 1000, tids, 1, recs, 4);
	put32(c, 1001);
	start(&r);
	event(&r, 0x0524, 2, 1, 1000000, c, 24);
	event(&r, 0x0524, 2, 1, 2000000, c, 24);	/* 100 ms on */
	event(&r, 0x0525, 2, 0, 2000001, b, len);
	finish(&r, &s);
	CHECK_EQ_INT(s.late, 1);
	CHECK_EQ_INT(s.n, 2);
}

int
main(void)
{
	RUN(test_cswitch_versions);
	RUN(test_ready_thread);
	RUN(test_compact_expanded);
	RUN(test_compact_walk);
	RUN(test_compact_damaged);
	RUN(test_compact_late);
	HARNESS_EXIT();
}
