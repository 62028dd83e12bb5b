/*
 * test_stream.c - records through the stream writer and back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream.h"
#include "harness.h"

/* Writes a small section with one record of each kind into fp. */
static void
write_section(FILE *fp, int nevents)
{
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_trace t = { .source = "a.etl", .format = "etl",
	    .logger = "NT Kernel Logger", .start_utc = 132400000000000000ULL,
	    .cpus = 8, .pointer_size = 8, .events_lost = 3 };
	struct stream_class k = { .id = 1, .provider = "Windows Kernel",
	    .event = "PerfInfo/Sample", .hook = 0x0f2e, .event_id = -1,
	    .version = 2, .opcode = 46 };
	struct stream_process p = { .id = 1, .pid = 100, .ppid = 4,
	    .start_ns = INT64_MIN, .name = "rustc.exe",
	    .cmdline = "rustc --crate-name core" };
	uint64_t frames[3] = { 0x7ff600001000ULL, 0x7ff600002000ULL,
	    0xfffff80000001000ULL };
	struct stream_stack s = { .id = 7, .next = 0, .nframes = 3,
	    .frames = frames };
	struct stream_field f[2] = {
		{ "ip", { .type = VAL_HEX, .v.u = 0x7ff600001234ULL } },
		{ "note", { .type = VAL_STR, .v.s = { "hé", 3 } } },
	};
	struct stream_event ev = { .h = { .kind = EV_SAMPLE, .cpu = 3,
	    .stack = 7, .pid = 100, .tid = 200, .cls = 1 }, .nfields = 2,
	    .fields = f };
	struct stream_end e = { .source_events = (uint64_t)nevents };
	int i;

	REQUIRE(w != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_trace(w, &t) == 0);
	CHECK(stream_write_class(w, &k) == 0);
	CHECK(stream_write_process(w, &p) == 0);
	CHECK(stream_write_stack(w, &s) == 0);
	for (i = 0; i < nevents; i++) {
		ev.h.ts = i * 1000;
		CHECK(stream_write_event(w, &ev) == 0);
	}
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
}

static void
test_roundtrip(void)
{
	FILE *fp = tmpfile();
	struct stream_reader *r = stream_reader_new(STREAM_KEEP_STACKS);
	struct stream_record rec;
	enum stream_status st;
	int events = 0, ends = 0;

	REQUIRE(fp != NULL && r != NULL);
	/* Enough events to need several frames. */
	write_section(fp, 100000);
	rewind(fp);
	stream_reader_open_file(r, fp, "tmp");
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK) {
		if (rec.type == REC_EVENT) {
			const struct stream_event *ev = &rec.u.event;

			CHECK_EQ_INT(ev->h.ts, (int64_t)events * 1000);
			if (events == 0) {
				CHECK_EQ_INT(ev->h.kind, EV_SAMPLE);
				CHECK_EQ_INT(ev->h.cpu, 3);
				CHECK_EQ_INT(ev->h.stack, 7);
				CHECK_EQ_INT(ev->nfields, 2);
				CHECK_EQ_STR(ev->fields[0].name, "ip");
				CHECK_EQ_INT(ev->fields[0].val.v.u,
				    0x7ff600001234LL);
				CHECK(ev->fields[1].val.v.s.len == 3 &&
				    memcmp(ev->fields[1].val.v.s.ptr, "hé", 3) == 0);
				CHECK_EQ_STR(stream_class(r, ev->h.cls)->event,
				    "PerfInfo/Sample");
				CHECK_EQ_STR(stream_process_by_pid(r, 100)->name,
				    "rustc.exe");
				CHECK_EQ_INT(stream_stack(r, 7)->frames[2],
				    (int64_t)0xfffff80000001000ULL);
				CHECK_EQ_INT(stream_current_trace(r)->events_lost, 3);
			}
			events++;
		} else if (rec.type == REC_END) {
			CHECK_EQ_INT(rec.u.end.events, 100000);
			ends++;
		}
	}
	CHECK_EQ_INT(st, STREAM_EOF);
	CHECK_EQ_INT(events, 100000);
	CHECK_EQ_INT(ends, 1);
	CHECK(!stream_reader_truncated(r));
	stream_reader_free(r);
	fclose(fp);
}

static void
test_concatenated(void)
{
	FILE *fp = tmpfile();
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	int headers = 0, events = 0;

	REQUIRE(fp != NULL && r != NULL);
	write_section(fp, 10);
	write_section(fp, 20);
	rewind(fp);
	stream_reader_open_file(r, fp, "tmp");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		headers += rec.type == REC_HEADER;
		events += rec.type == REC_EVENT;
	}
	CHECK_EQ_INT(headers, 2);
	CHECK_EQ_INT(events, 30);
	stream_reader_free(r);
	fclose(fp);
}

/* Reads a stream cut at `cut` bytes; it must fail, never crash. */
static void
test_truncated(void)
{
	FILE *fp = tmpfile(), *cutfp;
	unsigned char *all;
	long len;
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	enum stream_status st;

	REQUIRE(fp != NULL && r != NULL);
	write_section(fp, 50000);
	len = ftell(fp);
	REQUIRE((all = malloc(len)) != NULL);
	rewind(fp);
	REQUIRE(fread(all, 1, len, fp) == (size_t)len);
	REQUIRE((cutfp = tmpfile()) != NULL);
	fwrite(all, 1, len - 7, cutfp);
	rewind(cutfp);
	stream_reader_open_file(r, cutfp, "cut.zst");
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK)
		;
	CHECK_EQ_INT(st, STREAM_ERROR);
	CHECK(strstr(stream_reader_error(r), "cut.zst: truncated frame") != NULL);
	free(all);
	fclose(cutfp);
	fclose(fp);
	stream_reader_free(r);
}

/* A section without its END, then a whole one: still a cut stream. */
static void
test_cut_section(void)
{
	FILE *fp = tmpfile();
	struct stream_writer *w;
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	int headers = 0;

	REQUIRE(fp != NULL && r != NULL);
	w = stream_writer_new(fp, 1);
	REQUIRE(w != NULL);
	CHECK(stream_write_header(w, "cut") == 0);
	CHECK(stream_writer_close(w) == 0);
	write_section(fp, 5);
	rewind(fp);
	stream_reader_open_file(r, fp, "tmp");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		headers += rec.type == REC_HEADER;
	CHECK_EQ_INT(headers, 2);
	CHECK(stream_reader_truncated(r));
	stream_reader_free(r);
	fclose(fp);
}

static void
test_not_a_stream(void)
{
	FILE *fp = tmpfile();
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;

	REQUIRE(fp != NULL && r != NULL);
	fputs("this is not zstd at all", fp);
	rewind(fp);
	stream_reader_open_file(r, fp, "text");
	CHECK_EQ_INT(stream_reader_next(r, &rec), STREAM_ERROR);
	CHECK(strstr(stream_reader_error(r),
	    "text: not an event stream (offset 0x0)") != NULL);
	stream_reader_free(r);
	fclose(fp);
}

/* The ip of event i of write_noisy(): no two frames compress alike. */
static uint64_t
noisy_ip(uint64_t i)
{
	return (i * 6364136223846793005ULL + 1442695040888963407ULL) >> 8;
}

/*
 * Events whose fields barely compress, so that the compressed frames
 * (about 1 MiB each) straddle the reader's input buffer.
 */
static void
write_noisy(FILE *fp, int nevents)
{
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_field f = { "ip", { .type = VAL_HEX } };
	struct stream_event ev = { .h = { .kind = EV_SAMPLE, .pid = 100,
	    .tid = 200, .cls = 1 }, .nfields = 1, .fields = &f };
	struct stream_end e = { 0 };
	int i;

	REQUIRE(w != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	for (i = 0; i < nevents; i++) {
		ev.h.ts = i;
		f.val.v.u = noisy_ip((uint64_t)i);
		CHECK(stream_write_event(w, &ev) == 0);
	}
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
}

/*
 * Frames larger than the input buffer holds at once, read from a file
 * (whole or streamed across refills), give every event back; a reader
 * of heads only gives the same records, heads and bodies, without the
 * fields.
 */
static void
test_big_frames(void)
{
	FILE *fp = tmpfile();
	struct stream_reader *r = stream_reader_new(0);
	struct stream_reader *h = stream_reader_new(STREAM_EVENT_HEADS);
	struct stream_record a, b;
	enum stream_status st, st2;
	int events = 0, bad = 0;
	unsigned char *mem;
	long size;

	REQUIRE(fp != NULL && r != NULL && h != NULL);
	write_noisy(fp, 600000);
	size = ftell(fp);
	CHECK(size > 3 * (1L << 20));
	mem = malloc((size_t)size);
	REQUIRE(mem != NULL);
	rewind(fp);
	REQUIRE(fread(mem, 1, (size_t)size, fp) == (size_t)size);

	rewind(fp);
	stream_reader_open_file(r, fp, "tmp");
	while ((st = stream_reader_next(r, &a)) == STREAM_OK)
		if (a.type == REC_EVENT) {
			bad += a.u.event.h.ts != events ||
			    a.u.event.nfields != 1 ||
			    a.u.event.fields[0].val.v.u !=
			    noisy_ip((uint64_t)events);
			events++;
		}
	CHECK_EQ_INT(st, STREAM_EOF);
	CHECK_EQ_INT(events, 600000);
	CHECK_EQ_INT(bad, 0);

	/* In step: the whole stream from memory, the heads from the file. */
	rewind(fp);
	stream_reader_open_mem(r, mem, (size_t)size, "mem");
	stream_reader_open_file(h, fp, "tmp");
	bad = 0;
	while ((st = stream_reader_next(r, &a)) == STREAM_OK) {
		if ((st2 = stream_reader_next(h, &b)) != STREAM_OK)
			break;
		bad += a.type != b.type || a.body_len != b.body_len ||
		    memcmp(a.body, b.body, a.body_len) != 0;
		if (a.type == REC_EVENT)
			bad += b.u.event.nfields != 0 ||
			    memcmp(&a.u.event.h, &b.u.event.h,
			    sizeof(a.u.event.h)) != 0;
	}
	if (st != STREAM_EOF)
		printf("  %s\n", stream_reader_error(r));
	CHECK_EQ_INT(st, STREAM_EOF);
	CHECK_EQ_INT(stream_reader_next(h, &b), STREAM_EOF);
	CHECK_EQ_INT(bad, 0);
	free(mem);
	stream_reader_free(r);
	stream_reader_free(h);
	fclose(fp);
}

/*
 * A STACK record with id 0 is refused by every reader, whether it keeps
 * stacks (etlagg) or not (etlfilter): what one tool passes on, the next
 * must read.
 */
static void
test_stack_id_zero(void)
{
	uint64_t frames[1] = { 0x1000 };
	struct stream_stack s = { .id = 0, .nframes = 1, .frames = frames };
	unsigned flags[2] = { 0, STREAM_KEEP_STACKS };
	struct stream_record rec;
	enum stream_status st;
	int i;

	for (i = 0; i < 2; i++) {
		FILE *fp = tmpfile();
		struct stream_writer *w;
		struct stream_reader *r = stream_reader_new(flags[i]);

		REQUIRE(fp != NULL && r != NULL &&
		    (w = stream_writer_new(fp, 1)) != NULL);
		CHECK(stream_write_header(w, "test") == 0);
		CHECK(stream_write_stack(w, &s) == 0);
		CHECK(stream_writer_close(w) == 0);
		rewind(fp);
		stream_reader_open_file(r, fp, "zero.st");
		while ((st = stream_reader_next(r, &rec)) == STREAM_OK)
			;
		CHECK_EQ_INT(st, STREAM_ERROR);
		CHECK(strstr(stream_reader_error(r), "out of range") != NULL);
		stream_reader_free(r);
		fclose(fp);
	}
}

/*
 * stream_reader_fields_of(): events of the kinds asked for come with
 * their fields, the others with their head only.
 */
static void
test_fields_of(void)
{
	FILE *fp = tmpfile();
	struct stream_writer *w;
	struct stream_reader *r;
	struct stream_record rec;
	struct stream_field f = { "size", { .type = VAL_U64, .v.u = 4096 } };
	struct stream_event ev = { .h = { .pid = 100, .tid = 200 },
	    .nfields = 1, .fields = &f, .payload = (const unsigned char *)"p",
	    .payload_len = 1 };
	int kind, seen = 0;

	REQUIRE(fp != NULL && (w = stream_writer_new(fp, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	for (kind = EV_GENERIC; kind <= EV_HEAP; kind++) {
		ev.h.kind = (uint8_t)kind;
		ev.h.ts = kind;
		CHECK(stream_write_event(w, &ev) == 0);
	}
	CHECK(stream_write_end(w, &(struct stream_end){ 0 }) == 0);
	CHECK(stream_writer_close(w) == 0);
	rewind(fp);
	REQUIRE((r = stream_reader_new(0)) != NULL);
	stream_reader_fields_of(r, STREAM_KIND(EV_SAMPLE) |
	    STREAM_KIND(EV_GENERIC));
	stream_reader_open_file(r, fp, "tmp");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		const struct stream_event *e = &rec.u.event;
		int full;

		if (rec.type != REC_EVENT)
			continue;
		full = e->h.kind == EV_SAMPLE || e->h.kind == EV_GENERIC;
		CHECK_EQ_INT(e->h.ts, e->h.kind);
		CHECK_EQ_INT(e->h.pid, 100);
		CHECK_EQ_INT(e->nfields, full ? 1 : 0);
		CHECK_EQ_INT(e->payload_len, full ? 1 : 0);
		if (full && e->nfields == 1)
			CHECK_EQ_INT(stream_event_u(e, "size", 0), 4096);
		seen++;
	}
	CHECK_EQ_INT(seen, EV_HEAP - EV_GENERIC + 1);
	stream_reader_free(r);
	fclose(fp);
}


/* ---- every value type, in both formats and passed on ---- */

static const unsigned char guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 16 };

/* One of each value type, with values at the ends of their encodings. */
static void
typed_values(struct value *v)
{
	v[0] = (struct value){ .type = VAL_NULL };
	v[1] = (struct value){ .type = VAL_I64, .v.i = INT64_MIN };
	v[2] = (struct value){ .type = VAL_U64, .v.u = UINT64_MAX };
	v[3] = (struct value){ .type = VAL_F64, .v.f = -2.5 };
	v[4] = (struct value){ .type = VAL_STR, .v.s = { "héllo", 6 } };
	v[5] = (struct value){ .type = VAL_HEX, .v.u = 0xfffff80012345678ULL };
	v[6] = (struct value){ .type = VAL_NS, .v.i = -1 };
	v[7] = (struct value){ .type = VAL_UTC, .v.u = 132400000000000000ULL };
	v[8] = (struct value){ .type = VAL_GUID,
	    .v.s = { (const char *)guid, 16 } };
	v[9] = (struct value){ .type = VAL_BYTES, .v.s = { "\0\1\2", 3 } };
	v[10] = (struct value){ .type = VAL_BOOL, .v.u = 1 };
}

static const char *const type_names[11] = { "null", "i64", "u64", "f64",
    "str", "hex", "ns", "utc", "guid", "bytes", "bool" };
static const struct stream_column typed_cols[11] = {
	{ "null", VAL_NULL, NULL }, { "i64", VAL_I64, NULL },
	{ "u64", VAL_U64, NULL }, { "f64", VAL_F64, NULL },
	{ "str", VAL_STR, NULL }, { "hex", VAL_HEX, NULL },
	{ "ns", VAL_NS, NULL }, { "utc", VAL_UTC, NULL },
	{ "guid", VAL_GUID, NULL }, { "bytes", VAL_BYTES, NULL },
	{ "bool", VAL_BOOL, NULL },
};
static const struct stream_shape typed_shape = { 11, typed_cols };

/* A HEADER of format `major` as a record passed on, as etlfilter does. */
static void
write_header_of(struct stream_writer *w, unsigned major)
{
	unsigned char body[32] = "ETLSTRM";
	struct stream_record rec = { .type = REC_HEADER, .body = body };

	if (major == STREAM_VERSION_MAJOR) {
		CHECK(stream_write_header(w, "test") == 0);
		return;
	}
	body[8] = (unsigned char)major;
	body[10] = 1;		/* minor */
	body[12] = 4;
	memcpy(body + 13, "test", 4);
	rec.body_len = 17;
	CHECK(stream_write_record(w, &rec) == 0);
}

/*
 * A section of format `major`: the typed values as fields (names not
 * literals), as a shape, a payload and no fields, ids of none, and
 * times that go back and forth.
 */
static void
write_typed(FILE *fp, unsigned major)
{
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_field f[11];
	struct value v[11];
	char names[11][8];
	struct stream_event ev = { .h = { .kind = EV_GENERIC, .cpu = 300,
	    .stack = 70000, .pid = 4, .tid = 8, .cls = 0 } };
	size_t i;

	REQUIRE(w != NULL);
	write_header_of(w, major);
	typed_values(v);
	for (i = 0; i < 11; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", type_names[i]);
		f[i].name = names[i];
		f[i].val = v[i];
	}
	ev.h.ts = 5000000000LL;
	ev.nfields = 11;
	ev.fields = f;
	CHECK(stream_write_event(w, &ev) == 0);
	ev.h.ts = -7;
	ev.h.kind = EV_SAMPLE;
	ev.nfields = 0;
	ev.fields = NULL;
	ev.shape = &typed_shape;
	ev.vals = v;
	CHECK(stream_write_event(w, &ev) == 0);
	ev.h.ts = 1;
	ev.h.pid = ev.h.tid = 0xffffffffu;
	ev.h.stack = 0;
	ev.shape = NULL;
	ev.vals = NULL;
	ev.payload = (const unsigned char *)"raw";
	ev.payload_len = 3;
	CHECK(stream_write_event(w, &ev) == 0);
	CHECK(stream_write_end(w, &(struct stream_end){ 0 }) == 0);
	CHECK(stream_writer_close(w) == 0);
}

/* The events of write_typed() as read back from fp. */
static void
check_typed(FILE *fp, unsigned major)
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	struct value v[11];
	int n = 0;
	size_t i;

	REQUIRE(r != NULL);
	typed_values(v);
	stream_reader_open_file(r, fp, "tmp");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		const struct stream_event *e = &rec.u.event;

		if (rec.type == REC_HEADER)
			CHECK_EQ_INT(rec.u.header.major, major);
		if (rec.type != REC_EVENT)
			continue;
		CHECK((e->schema != NULL) == (major >= 2));
		CHECK_EQ_INT(e->h.cpu, 300);
		if (n < 2) {
			CHECK_EQ_INT(e->h.ts, n == 0 ? 5000000000LL : -7);
			CHECK_EQ_INT(e->h.kind, n == 0 ? EV_GENERIC : EV_SAMPLE);
			CHECK_EQ_INT(e->h.stack, 70000);
			CHECK_EQ_INT(e->h.pid, 4);
			CHECK_EQ_INT(e->nfields, 11);
			CHECK_EQ_INT(e->payload_len, 0);
			for (i = 0; i < 11 && i < e->nfields; i++) {
				const struct value *a = &e->fields[i].val;

				CHECK_EQ_STR(e->fields[i].name, type_names[i]);
				CHECK_EQ_INT(a->type, v[i].type);
				CHECK(stream_event_field(e, type_names[i]) == a);
				if (v[i].type == VAL_F64)
					CHECK(a->v.f == v[i].v.f);
				else if (v[i].type == VAL_STR ||
				    v[i].type == VAL_BYTES || v[i].type == VAL_GUID)
					CHECK(a->v.s.len == v[i].v.s.len &&
					    memcmp(a->v.s.ptr, v[i].v.s.ptr,
					    a->v.s.len) == 0);
				else if (v[i].type != VAL_NULL)
					CHECK_EQ_INT(a->v.u, v[i].v.u);
			}
			CHECK(stream_event_field(e, "none") == NULL);
		} else {
			CHECK_EQ_INT(e->h.ts, 1);
			CHECK_EQ_INT(e->h.stack, 0);
			CHECK_EQ_INT(e->h.pid, 0xffffffffu);
			CHECK_EQ_INT(e->h.tid, 0xffffffffu);
			CHECK_EQ_INT(e->nfields, 0);
			CHECK(e->payload_len == 3 &&
			    memcmp(e->payload, "raw", 3) == 0);
		}
		n++;
	}
	CHECK_EQ_INT(n, 3);
	CHECK(!stream_reader_truncated(r));
	stream_reader_free(r);
}

/* Every record of `in` passed on by a writer to `out`, as tools do. */
static void
pass_on(FILE *in, FILE *out)
{
	struct stream_reader *r = stream_reader_new(STREAM_EVENT_HEADS);
	struct stream_writer *w = stream_writer_new(out, 1);
	struct stream_record rec;
	int n = 0;

	REQUIRE(r != NULL && w != NULL);
	stream_reader_open_file(r, in, "in");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		/* The first event is left out: the times after it still hold. */
		if (rec.type == REC_EVENT && n++ == 0)
			continue;
		CHECK(stream_write_record(w, &rec) == 0);
	}
	CHECK(stream_writer_close(w) == 0);
	stream_reader_free(r);
}

static void
test_every_type(void)
{
	unsigned major;

	for (major = 1; major <= STREAM_VERSION_MAJOR; major++) {
		FILE *fp = tmpfile(), *passed = tmpfile();
		struct stream_reader *r;
		struct stream_record rec;
		int64_t ts[2];
		int n = 0;

		REQUIRE(fp != NULL && passed != NULL);
		write_typed(fp, major);
		rewind(fp);
		check_typed(fp, major);
		rewind(fp);
		pass_on(fp, passed);
		rewind(passed);
		REQUIRE((r = stream_reader_new(0)) != NULL);
		stream_reader_open_file(r, passed, "passed");
		while (stream_reader_next(r, &rec) == STREAM_OK)
			if (rec.type == REC_HEADER)
				CHECK_EQ_INT(rec.u.header.major, major);
			else if (rec.type == REC_EVENT && n < 2)
				ts[n++] = rec.u.event.h.ts;
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_INT(ts[0], -7);
		CHECK_EQ_INT(ts[1], 1);
		CHECK(!stream_reader_truncated(r));
		stream_reader_free(r);
		fclose(fp);
		fclose(passed);
	}
}

int
main(void)
{
	RUN(test_roundtrip);
	RUN(test_concatenated);
	RUN(test_truncated);
	RUN(test_cut_section);
	RUN(test_not_a_stream);
	RUN(test_big_frames);
	RUN(test_stack_id_zero);
	RUN(test_fields_of);
	RUN(test_every_type);
	HARNESS_EXIT();
}
