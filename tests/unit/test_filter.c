/*
 * test_filter.c - the predicate of etlfilter on small streams written
 * here: which events it keeps, through both passes.  Events are told
 * apart by their time stamps.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "filter/filter.h"
#include "stream/stream.h"
#include "harness.h"

#define MAX_KEPT 64
#define START_UTC 132400000000000000ULL	/* FILETIME of the trace start */

static void
process(struct stream_writer *w, stream_id id, uint32_t pid, uint32_t ppid,
    int64_t start_ns, const char *name)
{
	struct stream_process p = { .id = id, .pid = pid, .ppid = ppid,
	    .start_ns = start_ns, .name = name, .cmdline = name };

	CHECK(stream_write_process(w, &p) == 0);
}

static void
event(struct stream_writer *w, int64_t ts, uint32_t pid, uint32_t tid,
    enum stream_ev_kind kind, stream_id stack)
{
	struct stream_event ev = { .h = { .kind = kind, .ts = ts, .pid = pid,
	    .tid = tid, .cls = kind == EV_SAMPLE ? 1 : 2, .stack = stack } };

	CHECK(stream_write_event(w, &ev) == 0);
}

/* A section with a trace record and two classes: samples are kernel events. */
static struct stream_writer *
begin(FILE *fp)
{
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_trace t = { .source = "t.etl", .format = "etl",
	    .start_utc = START_UTC };
	struct stream_class k1 = { .id = 1, .provider = "Windows Kernel",
	    .event = "PerfInfo/Sample", .hook = 0x0f2e, .event_id = -1,
	    .guid = { 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
	    0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde } };
	struct stream_class k2 = { .id = 2, .provider = "Rust-Compiler",
	    .event = "Query", .hook = -1, .event_id = 7 };

	CHECK(w != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_trace(w, &t) == 0);
	CHECK(stream_write_class(w, &k1) == 0);
	CHECK(stream_write_class(w, &k2) == 0);
	return w;
}

static void
end(struct stream_writer *w)
{
	struct stream_end e = { 0 };

	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
}

/*
 * Runs the filter over the stream in fp, both passes as etlfilter does;
 * kept[] gets the time stamps of the events kept.  @return : how many.
 */
static int
run(struct filter *f, FILE *fp, int64_t kept[MAX_KEPT])
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	int n = 0, keep;

	if (r == NULL)
		return -1;
	filter_reset(f);
	if (filter_needs_scan(f)) {
		rewind(fp);
		stream_reader_open_file(r, fp, "scan");
		while (stream_reader_next(r, &rec) == STREAM_OK)
			CHECK(filter_scan(f, r, &rec) == 0);
	}
	rewind(fp);
	stream_reader_open_file(r, fp, "filter");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		keep = filter_record(f, r, &rec);
		CHECK(keep == 1 || (keep == 0 && rec.type == REC_EVENT));
		if (keep == 1 && rec.type == REC_EVENT && n < MAX_KEPT)
			kept[n++] = rec.u.event.h.ts;
	}
	CHECK(!stream_reader_truncated(r));
	stream_reader_free(r);
	return n;
}

/* The kept time stamps as "1 2 3". */
static const char *
kept_text(struct filter *f, FILE *fp)
{
	static char text[MAX_KEPT * 24];
	int64_t kept[MAX_KEPT];
	int i, n = run(f, fp, kept);
	size_t len = 0;

	text[0] = '\0';
	for (i = 0; i < n; i++)
		len += snprintf(text + len, sizeof(text) - len, "%s%lld",
		    i ? " " : "", (long long)kept[i]);
	return text;
}

static struct filter *
new_filter(const char *regex, unsigned flags)
{
	struct filter *f = filter_new();

	if (f == NULL)
		return NULL;
	if (regex != NULL && filter_add_process(f, regex) != 0)
		printf("  %s\n", filter_error(f));
	filter_add_flags(f, flags);
	if (filter_compile(f) != 0)
		printf("  %s\n", filter_error(f));
	return f;
}

/*
 * Pid 100 is rustc.exe, ends, and comes back as other.exe; pid 300 is
 * never defined; pid 200 is defined only after its first events.
 */
static FILE *
reuse_stream(void)
{
	FILE *fp = tmpfile();
	struct stream_writer *w;

	if (fp == NULL)
		return NULL;
	w = begin(fp);
	event(w, 1, 200, 1, EV_SAMPLE, 0);
	process(w, 1, 100, 4, INT64_MIN, "rustc.exe");
	event(w, 2, 100, 1, EV_SAMPLE, 0);
	event(w, 3, 300, 1, EV_SAMPLE, 0);
	event(w, 4, 200, 1, EV_SAMPLE, 0);
	process(w, 2, 200, 4, INT64_MIN, "RUSTC.EXE");
	event(w, 5, 200, 1, EV_PROCESS, 0);
	process(w, 3, 100, 4, 50, "other.exe");
	event(w, 6, 100, 1, EV_SAMPLE, 0);
	end(w);
	return fp;
}

static void
test_pid_reuse(void)
{
	FILE *fp = reuse_stream();
	struct filter *f = new_filter("^rustc\\.exe$", 0);

	REQUIRE(fp != NULL && f != NULL);
	CHECK(filter_needs_scan(f));
	/* 5, a process event of pid 200, is kept as context: a lifetime. */
	CHECK_EQ_STR(kept_text(f, fp), "2 5");
	filter_free(f);
	/* -i; and pid 200's events before its definition are its own. */
	f = new_filter("^rustc\\.exe$", FILTER_ICASE);
	CHECK_EQ_STR(kept_text(f, fp), "1 2 4 5");
	filter_free(f);
	f = new_filter("^rustc\\.exe$", FILTER_ICASE | FILTER_INVERT);
	CHECK_EQ_STR(kept_text(f, fp), "3 5 6");
	filter_free(f);
	fclose(fp);
}

static void
test_pid_only(void)
{
	FILE *fp = reuse_stream();
	struct filter *f = filter_new();

	REQUIRE(fp != NULL && f != NULL);
	CHECK(filter_add_pids(f, "300,100") == 0);
	CHECK(!filter_needs_scan(f));
	/* 5, a process event, stays as context (a lifetime). */
	CHECK_EQ_STR(kept_text(f, fp), "2 3 5 6");
	/* A regex excludes what has no definition. */
	CHECK(filter_add_process(f, "e") == 0 && filter_compile(f) == 0);
	CHECK(filter_needs_scan(f));
	CHECK_EQ_STR(kept_text(f, fp), "2 5 6");
	filter_free(f);
	fclose(fp);
}

/*
 * A tree: cargo (10) starts rustc (11), which starts link (12); cargo
 * ends and pid 10 comes back as sh (again 10), whose child (13) is not
 * cargo's.  A rundown lists child 21 before its parent 20 (cargo).
 * Process 31 names 30 as its parent, but 30 started after it.  40 and
 * 41 are each other's parent.
 */
static FILE *
tree_stream(void)
{
	FILE *fp = tmpfile();
	struct stream_writer *w;

	if (fp == NULL)
		return NULL;
	w = begin(fp);
	process(w, 1, 21, 20, INT64_MIN, "rustc.exe");
	event(w, 1, 21, 1, EV_SAMPLE, 0);
	process(w, 2, 20, 4, INT64_MIN, "cargo.exe");
	process(w, 3, 10, 4, 100, "cargo.exe");
	process(w, 4, 11, 10, 200, "rustc.exe");
	process(w, 5, 12, 11, 300, "link.exe");
	event(w, 2, 12, 1, EV_SAMPLE, 0);
	process(w, 6, 10, 4, 400, "sh.exe");
	process(w, 7, 13, 10, 500, "cc.exe");
	event(w, 3, 13, 1, EV_SAMPLE, 0);
	event(w, 4, 11, 1, EV_SAMPLE, 0);
	process(w, 8, 30, 4, 700, "cargo.exe");
	process(w, 9, 31, 30, 600, "cc.exe");
	event(w, 5, 31, 1, EV_SAMPLE, 0);
	process(w, 10, 40, 41, INT64_MIN, "a.exe");
	process(w, 11, 41, 40, INT64_MIN, "b.exe");
	event(w, 6, 41, 1, EV_SAMPLE, 0);
	event(w, 7, 10, 1, EV_SAMPLE, 0);
	end(w);
	return fp;
}

static void
test_children(void)
{
	FILE *fp = tree_stream();
	struct filter *f = new_filter("^cargo", FILTER_CHILDREN);

	REQUIRE(fp != NULL && f != NULL);
	CHECK_EQ_STR(kept_text(f, fp), "1 2 4");
	filter_free(f);
	f = new_filter("^cargo", 0);
	CHECK_EQ_STR(kept_text(f, fp), "");
	filter_free(f);
	f = new_filter("^sh", FILTER_CHILDREN);
	CHECK_EQ_STR(kept_text(f, fp), "3 7");
	filter_free(f);
	/* --pid with --children follows the tree of each process of the pid. */
	f = filter_new();
	REQUIRE(f != NULL);
	CHECK(filter_add_pids(f, "10") == 0);
	filter_add_flags(f, FILTER_CHILDREN);
	CHECK(filter_needs_scan(f));
	CHECK_EQ_STR(kept_text(f, fp), "2 3 4 7");
	filter_free(f);
	/* --rustc: rustc, cargo and link by name, not sh's child. */
	f = filter_new();
	REQUIRE(f != NULL);
	CHECK(filter_add_rustc(f) == 0 && filter_compile(f) == 0);
	CHECK_EQ_STR(kept_text(f, fp), "1 2 4");
	filter_free(f);
	/* A cycle of parents ends, and matches through a member. */
	f = new_filter("^a\\.exe$", FILTER_CHILDREN);
	CHECK_EQ_STR(kept_text(f, fp), "6");
	filter_free(f);
	f = new_filter("^cc", FILTER_CHILDREN);
	CHECK_EQ_STR(kept_text(f, fp), "3 5");
	filter_free(f);
	fclose(fp);
}

/*
 * A rundown that lists a child (cc, 21) before its parent (cargo, 20),
 * when `rundown`, else the same definitions without rundown events;
 * then a later cargo.exe with the pid of the ended parent of 22.
 */
static FILE *
rundown_stream(int rundown)
{
	FILE *fp = tmpfile();
	struct stream_writer *w;
	struct stream_event dc = { .h = { .kind = EV_PROCESS,
	    .op = EVOP_DCSTART, .ts = 1, .pid = 21, .tid = 1, .cls = 2 } };
	struct stream_event st = { .h = { .kind = EV_THREAD,
	    .op = EVOP_START, .ts = 2, .pid = 21, .tid = 1, .cls = 2 } };

	if (fp == NULL)
		return NULL;
	w = begin(fp);
	process(w, 1, 21, 20, INT64_MIN, "cc.exe");
	if (rundown)
		CHECK(stream_write_event(w, &dc) == 0);
	process(w, 2, 22, 30, INT64_MIN, "cc.exe");
	process(w, 3, 20, 4, INT64_MIN, "cargo.exe");
	event(w, 3, 21, 1, EV_SAMPLE, 0);
	event(w, 4, 22, 1, EV_SAMPLE, 0);
	if (rundown)
		CHECK(stream_write_event(w, &st) == 0);
	process(w, 4, 30, 4, 100, "cargo.exe");
	event(w, 5, 30, 1, EV_SAMPLE, 0);
	end(w);
	return fp;
}

/*
 * A parent defined after its child: without a rundown, the first process
 * of its pid; with one, only a process of the rundown, since a process
 * alive at the child's start is in it or started before the child.
 */
static void
test_rundown(void)
{
	FILE *plain = rundown_stream(0), *rd = rundown_stream(1);
	struct filter *f = new_filter("^cargo", FILTER_CHILDREN);

	REQUIRE(plain != NULL && rd != NULL && f != NULL);
	CHECK_EQ_STR(kept_text(f, plain), "3 4 5");
	/* 1 and 2 are lifetimes, kept as context; 22's cargo came later. */
	CHECK_EQ_STR(kept_text(f, rd), "1 3 2 5");
	filter_free(f);
	fclose(plain);
	fclose(rd);
}

/* Kinds, stacks, threads, providers and times, with no process. */
static FILE *
events_stream(void)
{
	FILE *fp = tmpfile();
	struct stream_writer *w;
	int64_t s = 1000000000;

	if (fp == NULL)
		return NULL;
	w = begin(fp);
	event(w, -s, 1, 7, EV_GENERIC, 0);
	event(w, 0, 1, 8, EV_SAMPLE, 3);
	event(w, s, 1, 7, EV_CSWITCH, 0);
	event(w, 2 * s + 500000000, 1, 9, EV_HEAP, 4);
	event(w, 3 * s, 1, 7, EV_SAMPLE, 0);
	end(w);
	return fp;
}

static void
test_events(void)
{
	FILE *fp = events_stream();
	struct filter *f;

	REQUIRE(fp != NULL);
	REQUIRE((f = filter_new()) != NULL);
	CHECK(filter_add_kinds(f, "cswitch,stack") == 0);
	CHECK_EQ_STR(kept_text(f, fp),
	    "0 1000000000 2500000000");
	CHECK(filter_add_tids(f, "7") == 0);
	CHECK_EQ_STR(kept_text(f, fp), "1000000000");
	filter_free(f);

	REQUIRE((f = filter_new()) != NULL);
	CHECK(filter_add_provider(f, "rust-compiler") == 0);
	CHECK_EQ_STR(kept_text(f, fp), "-1000000000 1000000000 2500000000");
	filter_free(f);
	REQUIRE((f = filter_new()) != NULL);
	CHECK(filter_add_provider(f,
	    "{B3E675D7-2554-4F18-830B-2762732560DE}") == 0);
	CHECK_EQ_STR(kept_text(f, fp), "0 3000000000");
	filter_free(f);

	REQUIRE((f = filter_new()) != NULL);
	CHECK(filter_set_from(f, "-1") == 0 && filter_set_to(f, "2.5") == 0);
	CHECK_EQ_STR(kept_text(f, fp), "-1000000000 0 1000000000");
	filter_add_flags(f, FILTER_INVERT);
	CHECK_EQ_STR(kept_text(f, fp), "2500000000 3000000000");
	filter_free(f);
	/* START_UTC is 2020-07-23T17:46:40Z. */
	REQUIRE((f = filter_new()) != NULL);
	CHECK(filter_set_from(f, "2020-07-23T17:46:40.0000001Z") == 0);
	CHECK(filter_set_to(f, "2020-07-23 17:46:43") == 0);
	CHECK_EQ_STR(kept_text(f, fp), "1000000000 2500000000");
	filter_free(f);
	fclose(fp);
}

static void
test_bad_options(void)
{
	struct filter *f = filter_new();

	REQUIRE(f != NULL);
	CHECK(filter_add_process(f, "ok") == 0);
	CHECK(filter_add_cmdline(f, "x(") == 0);
	CHECK(filter_compile(f) == -1);
	CHECK_EQ_STR(filter_error(f),
	    "bad regex 'x(': missing closing parenthesis (at offset 2)");
	CHECK(filter_add_kinds(f, "sample,stacks") == -1);
	CHECK(strncmp(filter_error(f), "unknown kind 'stacks' (", 23) == 0);
	CHECK(filter_add_pids(f, "1,,2") == -1);
	CHECK(filter_add_pids(f, "4294967296") == -1);
	CHECK(filter_add_tids(f, "4294967295") == 0);
	CHECK(filter_set_from(f, "") == -1);
	CHECK(filter_set_from(f, ".") == -1);
	CHECK(filter_set_from(f, "1e3") == -1);
	CHECK(filter_set_from(f, "99999999999") == -1);
	CHECK(filter_set_from(f, "2021-02-29") == -1);
	CHECK(filter_set_from(f, "2020-02-29") == 0);
	CHECK(filter_set_to(f, "2020-01-01T24:00:00Z") == -1);
	CHECK(filter_set_to(f, "1.") == 0);
	CHECK(filter_set_to(f, "+.5") == 0);
	filter_free(f);
}

int
main(void)
{
	RUN(test_pid_reuse);
	RUN(test_pid_only);
	RUN(test_children);
	RUN(test_rundown);
	RUN(test_events);
	RUN(test_bad_options);
	HARNESS_EXIT();
}
