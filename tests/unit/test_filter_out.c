/*
 * test_filter_out.c - etlfilter's one pass against its two passes: on
 * streams written here where the verdict on events waits (processes
 * defined after their events, parents after their children, reused pids
 * and PROCESS ids, cycles, several sections, cut streams), every filter
 * must write the same bytes both ways, holding back only where the
 * manual says, in memory and in the temporary file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "filter/filter.h"
#include "filter/filter_out.h"
#include "stream/stream.h"
#include "harness.h"

#define PID_NONE 4294967295u

/* ---- Writing streams ---- */

static void
process(struct stream_writer *w, stream_id id, uint32_t pid, uint32_t ppid,
    int64_t start_ns, const char *name)
{
	struct stream_process p = { .id = id, .pid = pid, .ppid = ppid,
	    .start_ns = start_ns, .name = name, .cmdline = name };

	CHECK(stream_write_process(w, &p) == 0);
}

static void
thread(struct stream_writer *w, stream_id id, uint32_t tid, uint32_t pid)
{
	struct stream_thread t = { .id = id, .tid = tid, .pid = pid,
	    .start_ns = INT64_MIN, .name = "" };

	CHECK(stream_write_thread(w, &t) == 0);
}

static void
event(struct stream_writer *w, int64_t ts, uint32_t pid, uint32_t tid,
    enum stream_ev_kind kind)
{
	struct stream_field fl[1] = { { .name = "n",
	    .val = { .type = VAL_U64, .v.u = (uint64_t)ts } } };
	struct stream_event ev = { .h = { .kind = kind, .ts = ts, .pid = pid,
	    .tid = tid, .cls = 1 }, .nfields = 1, .fields = fl };

	CHECK(stream_write_event(w, &ev) == 0);
}

static struct stream_writer *
begin(FILE *fp)
{
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_trace t = { .source = "t.etl", .format = "etl",
	    .start_utc = 132400000000000000ULL };
	struct stream_class k = { .id = 1, .provider = "Windows Kernel",
	    .event = "PerfInfo/Sample", .hook = 0x0f2e, .event_id = -1 };

	if (w == NULL)
		return NULL;
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_trace(w, &t) == 0);
	CHECK(stream_write_class(w, &k) == 0);
	return w;
}

static void
end(struct stream_writer *w, int with_end)
{
	struct stream_end e = { 0 };

	if (with_end)
		CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
}

/*
 * A trace without rundown: pid 500 (rustc, child of cargo 400) and 400
 * are defined when they end, after their events; 600's parent 700 is
 * never defined; 800 is never defined; 900 is rustc started in the
 * trace.  Threads and strings come between the events.
 */
static void
write_late(FILE *fp, int with_end)
{
	struct stream_writer *w = begin(fp);

	if (w == NULL)
		return;
	event(w, 1, 500, 1, EV_SAMPLE);
	event(w, 2, 600, 2, EV_SAMPLE);
	process(w, 1, 600, 700, INT64_MIN, "svchost.exe");
	event(w, 3, 600, 2, EV_SAMPLE);
	thread(w, 1, 3, 400);
	event(w, 4, 400, 3, EV_SAMPLE);
	event(w, 5, 800, 4, EV_CSWITCH);
	event(w, 6, PID_NONE, 5, EV_READY);
	process(w, 2, 900, 400, 60, "rustc.exe");
	event(w, 7, 900, 6, EV_SAMPLE);
	process(w, 3, 500, 400, INT64_MIN, "rustc.exe");
	event(w, 8, 500, 1, EV_PROCESS);
	event(w, 9, 400, 3, EV_SAMPLE);
	process(w, 4, 400, 4, INT64_MIN, "cargo.exe");
	event(w, 10, 400, 3, EV_PROCESS);
	event(w, 11, 500, 1, EV_SAMPLE);
	/* pid 900 again: a new process, not rustc. */
	process(w, 5, 900, 4, 120, "sh.exe");
	event(w, 12, 900, 7, EV_SAMPLE);
	end(w, with_end);
}

/*
 * Parents after children, a cycle, a chain defined from the leaf up,
 * a PROCESS id defined twice, and pid 4294967295 defined.
 */
static void
write_tree(FILE *fp)
{
	struct stream_writer *w = begin(fp);
	int i;

	if (w == NULL)
		return;
	process(w, 1, 21, 20, INT64_MIN, "cc.exe");
	event(w, 1, 21, 1, EV_SAMPLE);
	process(w, 2, 40, 41, INT64_MIN, "a.exe");
	event(w, 2, 40, 1, EV_SAMPLE);
	process(w, 3, 41, 40, INT64_MIN, "b.exe");
	event(w, 3, 41, 1, EV_SAMPLE);
	/* 100 <- 101 <- ... <- 110, defined from 100 on; 110 is cargo. */
	for (i = 0; i < 10; i++) {
		process(w, 4 + i, 100 + i, 101 + i, INT64_MIN, "x.exe");
		event(w, 10 + i, 100, 1, EV_SAMPLE);
		event(w, 30 + i, 100 + i, 1, EV_SAMPLE);
	}
	process(w, 14, 110, 4, INT64_MIN, "cargo.exe");
	event(w, 50, 105, 1, EV_SAMPLE);
	process(w, 15, 20, 4, INT64_MIN, "cargo.exe");
	event(w, 51, 21, 1, EV_SAMPLE);
	/* Id 15 again, for another pid and name: the first one stays. */
	process(w, 15, 22, 4, INT64_MIN, "rustc.exe");
	event(w, 52, 22, 1, EV_SAMPLE);
	event(w, 53, 20, 1, EV_SAMPLE);
	event(w, 54, PID_NONE, 1, EV_SAMPLE);
	process(w, 19, 70, PID_NONE, INT64_MIN, "cc.exe");
	event(w, 58, 70, 1, EV_SAMPLE);
	process(w, 16, PID_NONE, 4, INT64_MIN, "rustc.exe");
	event(w, 55, PID_NONE, 1, EV_SAMPLE);
	event(w, 59, 70, 1, EV_SAMPLE);
	/* A child whose parent's pid is reused later. */
	process(w, 17, 61, 60, 1000, "rustc.exe");
	event(w, 56, 61, 1, EV_SAMPLE);
	process(w, 18, 60, 4, 2000, "cargo.exe");
	event(w, 57, 61, 1, EV_SAMPLE);
	end(w, 1);
}

/*
 * Many events wait at once, in two waits that overlap: 1000 waits for
 * 1001's definition, which comes after 1002 waits for 1003's, and more
 * events come while the first ones are let go.
 */
static void
write_many(FILE *fp)
{
	struct stream_writer *w = begin(fp);
	int i, t = 0;

	if (w == NULL)
		return;
	process(w, 1, 1, 4, INT64_MIN, "rustc.exe");
	event(w, t++, 1000, 1, EV_SAMPLE);
	for (i = 0; i < 300; i++)
		event(w, t++, 1, 1, EV_SAMPLE);
	event(w, t++, 1002, 1, EV_SAMPLE);
	for (i = 0; i < 300; i++)
		event(w, t++, 1, 1, i % 2 ? EV_SAMPLE : EV_CSWITCH);
	process(w, 2, 1000, 1001, INT64_MIN, "x.exe");
	for (i = 0; i < 300; i++)
		event(w, t++, i % 3 ? 1 : 1000, 1, EV_SAMPLE);
	process(w, 3, 1001, 1, INT64_MIN, "y.exe");
	for (i = 0; i < 300; i++)
		event(w, t++, 1000, 1, EV_SAMPLE);
	process(w, 4, 1002, 4, INT64_MIN, "rustc.exe");
	for (i = 0; i < 300; i++)
		event(w, t++, 1002, 1, EV_SAMPLE);
	end(w, 1);
}

/* ---- Filtering both ways ---- */

struct opts {
	const char *name, *regex, *cmdline, *pids, *kinds;
	unsigned flags;
	int rustc;
};

static const struct opts all_opts[] = {
	{ "-p rustc", "rustc", NULL, NULL, NULL, 0, 0 },
	{ "-p cargo --children", "^cargo", NULL, NULL, NULL,
	    FILTER_CHILDREN, 0 },
	{ "--rustc", NULL, NULL, NULL, NULL, 0, 1 },
	{ "--cmdline x", NULL, "x", NULL, NULL, 0, 0 },
	{ "--pid 20,400 --children", NULL, NULL, "20,400", NULL,
	    FILTER_CHILDREN, 0 },
	{ "--pid 500,4294967295", NULL, NULL, "500,4294967295", NULL, 0, 0 },
	{ "-p e --kind sample", "e", NULL, NULL, "sample", 0, 0 },
	{ "-p b --children -i", "B", NULL, NULL, NULL,
	    FILTER_CHILDREN | FILTER_ICASE, 0 },
	{ "-p a --children", "^a", NULL, NULL, NULL, FILTER_CHILDREN, 0 },
	{ "--kind process", NULL, NULL, NULL, "process", 0, 0 },
};

static struct filter *
make_filter(const struct opts *o, int invert)
{
	struct filter *f = filter_new();

	if (f == NULL)
		return NULL;
	if (o->regex != NULL)
		CHECK(filter_add_process(f, o->regex) == 0);
	if (o->cmdline != NULL)
		CHECK(filter_add_cmdline(f, o->cmdline) == 0);
	if (o->pids != NULL)
		CHECK(filter_add_pids(f, o->pids) == 0);
	if (o->kinds != NULL)
		CHECK(filter_add_kinds(f, o->kinds) == 0);
	if (o->rustc)
		CHECK(filter_add_rustc(f) == 0);
	filter_add_flags(f, o->flags | (invert ? FILTER_INVERT : 0));
	CHECK(filter_compile(f) == 0);
	return f;
}

/* The bytes of fp, from its start, into b. */
static void
slurp(FILE *fp, struct buf *b)
{
	unsigned char chunk[4096];
	size_t n;

	b->len = 0;
	rewind(fp);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_put(b, chunk, n);
}

/*
 * Filters the stream in `in` (len bytes) into *out, in one pass with
 * `hold` bytes of memory, or in two; *st gets what was held back.
 */
static void
filter_mem(const struct opts *o, int invert, const struct buf *in,
    int two, size_t hold, struct buf *out, struct holdback_stats *st)
{
	struct stream_reader *r = stream_reader_new(STREAM_EVENT_HEADS);
	struct filter *f = make_filter(o, invert);
	FILE *fp = tmpfile();
	struct stream_writer *w = fp ? stream_writer_new(fp, 1) : NULL;
	struct filter_out *fo = w ? filter_out_new(f, w, hold) : NULL;
	struct stream_record rec;
	int keep;

	out->len = 0;
	if (r == NULL || f == NULL || fo == NULL) {
		CHECK(!"set up");
		goto done;
	}
	filter_reset(f);
	if (two && filter_needs_scan(f)) {
		stream_reader_open_mem(r, in->data, in->len, "scan");
		while (stream_reader_next(r, &rec) == STREAM_OK)
			CHECK(filter_scan(f, r, &rec) == 0);
	}
	stream_reader_open_mem(r, in->data, in->len, "in");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (!two)
			CHECK(filter_out_next(fo, r, &rec) == 0);
		else if ((keep = filter_record(f, r, &rec)) >= 0)
			CHECK(filter_out_write(fo, &rec, keep) == 0);
		else
			CHECK(!"memory");
	}
	CHECK(filter_out_finish(fo) == 0);
	filter_out_stats(fo, st);
	CHECK(stream_writer_close(w) == 0);
	w = NULL;
	slurp(fp, out);
done:
	if (w != NULL)
		stream_writer_close(w);
	filter_out_free(fo);
	if (fp != NULL)
		fclose(fp);
	filter_free(f);
	stream_reader_free(r);
}

/*
 * Every filter, and its inverse, both ways on `in`; the outputs must be
 * the same bytes.  @return : records held back in all, one pass.
 */
static uint64_t
compare_all(const char *what, const struct buf *in, size_t hold,
    uint64_t *spilled)
{
	struct buf one = { 0 }, two = { 0 };
	struct holdback_stats st;
	uint64_t held = 0;
	size_t i;
	int inv;

	*spilled = 0;
	for (i = 0; i < sizeof(all_opts) / sizeof(all_opts[0]); i++)
		for (inv = 0; inv < 2; inv++) {
			filter_mem(&all_opts[i], inv, in, 1, hold, &two, &st);
			CHECK(st.records == 0);
			filter_mem(&all_opts[i], inv, in, 0, hold, &one, &st);
			held += st.records;
			*spilled += st.spilled;
			if (one.len != two.len || (one.len > 0 &&
			    memcmp(one.data, two.data, one.len) != 0)) {
				printf("  %s, %s%s: one pass %zu bytes, two "
				    "passes %zu\n", what, all_opts[i].name,
				    inv ? " -v" : "", one.len, two.len);
				CHECK(!"the same output");
			}
		}
	buf_release(&one);
	buf_release(&two);
	return held;
}

static void
write_buf(void (*fn)(FILE *), struct buf *b)
{
	FILE *fp = tmpfile();

	if (fp == NULL)
		return;
	fn(fp);
	slurp(fp, b);
	fclose(fp);
}

static void
late_with_end(FILE *fp)
{
	write_late(fp, 1);
}

static void
late_cut(FILE *fp)
{
	write_late(fp, 0);
}

/* Two streams concatenated, the first cut before its END. */
static void
write_sections(FILE *fp)
{
	write_late(fp, 0);
	write_tree(fp);
	write_late(fp, 1);
}

static void
test_late_definitions(void)
{
	struct buf in = { 0 };
	uint64_t spilled;

	write_buf(late_with_end, &in);
	REQUIRE(in.len > 0);
	CHECK(compare_all("late", &in, 8u << 20, &spilled) > 0);
	CHECK(spilled == 0);
	/* Every record through the temporary file. */
	CHECK(compare_all("late, no memory", &in, 0, &spilled) > 0);
	CHECK(spilled > 0);
	write_buf(late_cut, &in);
	CHECK(compare_all("late, cut", &in, 8u << 20, &spilled) > 0);
	buf_release(&in);
}

static void
test_parents(void)
{
	struct buf in = { 0 };
	uint64_t spilled;

	write_buf(write_tree, &in);
	REQUIRE(in.len > 0);
	CHECK(compare_all("tree", &in, 8u << 20, &spilled) > 0);
	CHECK(compare_all("tree, 100 bytes", &in, 100, &spilled) > 0);
	CHECK(spilled > 0);
	buf_release(&in);
}

/*
 * write_tree's processes in a rundown that ends half way (a thread
 * starts): parents defined after their children count only if the
 * rundown defines them, and the verdicts waiting for them are known when
 * it ends, not at the section's end.
 */
static void
write_rundown(FILE *fp)
{
	struct stream_writer *w = begin(fp);
	struct stream_event dc = { .h = { .kind = EV_PROCESS,
	    .op = EVOP_DCSTART, .ts = 1, .pid = 21, .tid = 1, .cls = 1 } };
	struct stream_event st = { .h = { .kind = EV_THREAD,
	    .op = EVOP_START, .ts = 5, .pid = 40, .tid = 2, .cls = 1 } };
	int i;

	if (w == NULL)
		return;
	process(w, 1, 21, 20, INT64_MIN, "cc.exe");
	CHECK(stream_write_event(w, &dc) == 0);
	event(w, 2, 21, 1, EV_SAMPLE);
	process(w, 2, 40, 41, INT64_MIN, "a.exe");
	event(w, 3, 40, 1, EV_SAMPLE);
	process(w, 3, 20, 4, INT64_MIN, "cargo.exe");
	CHECK(stream_write_event(w, &st) == 0);
	for (i = 0; i < 200; i++)
		event(w, 10 + i, 40, 1, EV_SAMPLE);
	process(w, 4, 41, 4, 300, "cargo.exe");
	event(w, 400, 41, 1, EV_SAMPLE);
	event(w, 401, 21, 1, EV_SAMPLE);
	end(w, 1);
}

static void
test_rundown(void)
{
	struct buf in = { 0 };
	uint64_t spilled, held;

	write_buf(write_rundown, &in);
	REQUIRE(in.len > 0);
	held = compare_all("rundown", &in, 8u << 20, &spilled);
	/* a.exe's 200 samples go out when the rundown ends, not held. */
	CHECK(held > 0 && held < 100);
	CHECK(compare_all("rundown, 100 bytes", &in, 100, &spilled) > 0);
	buf_release(&in);
}

static void
test_sections(void)
{
	struct buf in = { 0 };
	uint64_t spilled;

	write_buf(write_sections, &in);
	REQUIRE(in.len > 0);
	CHECK(compare_all("sections", &in, 8u << 20, &spilled) > 0);
	CHECK(compare_all("sections, 1 KiB", &in, 1024, &spilled) > 0);
	buf_release(&in);
}

static void
test_many_waiting(void)
{
	struct buf in = { 0 };
	uint64_t spilled;

	write_buf(write_many, &in);
	REQUIRE(in.len > 0);
	CHECK(compare_all("many", &in, 8u << 20, &spilled) > 0);
	CHECK(spilled == 0);
	CHECK(compare_all("many, 2 KiB", &in, 2048, &spilled) > 0);
	CHECK(spilled > 0);
	buf_release(&in);
}

/* The stream cut anywhere: both ways stop at the same record. */
static void
test_truncated(void)
{
	struct buf in = { 0 }, cut = { 0 };
	uint64_t spilled;
	size_t at;

	write_buf(write_sections, &in);
	REQUIRE(in.len > 64);
	for (at = 1; at < in.len; at += in.len / 23 + 1) {
		cut.len = 0;
		buf_put(&cut, in.data, at);
		compare_all("cut", &cut, 512, &spilled);
	}
	buf_release(&in);
	buf_release(&cut);
}

/* The time stamps of the events in the stream `b`, as "1 2 3". */
static const char *
kept_text(const struct buf *b)
{
	static char text[4096];
	struct stream_reader *r = stream_reader_new(STREAM_EVENT_HEADS);
	struct stream_record rec;
	size_t len = 0;

	text[0] = '\0';
	if (r == NULL)
		return text;
	stream_reader_open_mem(r, b->data, b->len, "out");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		if (rec.type == REC_EVENT && len < sizeof(text) - 24)
			len += snprintf(text + len, sizeof(text) - len, "%s%lld",
			    len ? " " : "", (long long)rec.u.event.h.ts);
	stream_reader_free(r);
	return text;
}

/*
 * What --rustc keeps of the tree: cargo's chain defined from the leaf
 * up, the cc child of cargo defined before it, pid 22 through the first
 * definition of id 15 (cargo), rustc 61; never pid 4294967295 nor the
 * child of ppid 4294967295, though rustc has that pid later.
 */
static void
test_tree_verdicts(void)
{
	static const struct opts rustc = { "--rustc", NULL, NULL, NULL,
	    NULL, 0, 1 };
	struct buf in = { 0 }, out = { 0 };
	struct holdback_stats st;

	write_buf(write_tree, &in);
	REQUIRE(in.len > 0);
	filter_mem(&rustc, 0, &in, 0, 8u << 20, &out, &st);
	CHECK_EQ_STR(kept_text(&out), "1 10 30 11 31 12 32 13 33 14 34 15 35 "
	    "16 36 17 37 18 38 19 39 50 51 52 53 56 57");
	CHECK(st.records > 0);
	buf_release(&in);
	buf_release(&out);
}

/* With definitions first, -p holds nothing back; late ones do. */
static void
test_nothing_held(void)
{
	static const struct opts p = { "-p rustc", "rustc", NULL, NULL, NULL,
	    0, 0 };
	struct buf in = { 0 }, out = { 0 };
	struct holdback_stats st;

	write_buf(write_tree, &in);
	REQUIRE(in.len > 0);
	filter_mem(&p, 0, &in, 0, 8u << 20, &out, &st);
	CHECK_EQ_INT(st.records, 0);
	/*
	 * From the first event of 500 to the END, since 800 is never
	 * defined: 25 records, less the events dropped as they came (of
	 * 600 after its definition, of 4294967295, of the second 900);
	 * what came before 500's definition was let go then.  Of the 25,
	 * 3 are the SCHEMA records before the first switch, ready and
	 * process events (the samples' came before the first event).  One
	 * more is held since the filter keeps every process and thread
	 * event as context (a lifetime, etl-stream(5) "Scope") instead of
	 * dropping it as it comes.
	 */
	write_buf(late_with_end, &in);
	filter_mem(&p, 0, &in, 0, 8u << 20, &out, &st);
	CHECK_EQ_INT(st.records, 23);
	CHECK(st.max_records < st.records);
	buf_release(&in);
	buf_release(&out);
}

int
main(void)
{
	RUN(test_late_definitions);
	RUN(test_parents);
	RUN(test_rundown);
	RUN(test_tree_verdicts);
	RUN(test_sections);
	RUN(test_many_waiting);
	RUN(test_truncated);
	RUN(test_nothing_held);
	HARNESS_EXIT();
}
