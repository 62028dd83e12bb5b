/*
 * test_views.c - the processes, tree and cpu views on streams made here:
 * frame names, stacks defined after their samples, pid reuse, parents,
 * the sampling interval, and --merge; vmem's timeline and its peaks.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/proctab.h"
#include "stream/stream.h"
#include "views/view.h"
#include "harness.h"

#define TRACE_UTC	132400000000000000ULL
#define KBASE		0xfffff80000000000ULL
#define DRIVER		0x7ff000000000ULL
#define MAX_ROWS	64

/* A view's output: its rows, cells as text joined by '|'. */
struct table {
	char rows[MAX_ROWS][512];
	int n;
	uint64_t diags;
};

static const struct stream_class sample_class = { .id = 1,
    .provider = "Windows Kernel", .event = "PerfInfo/Sample", .hook = 0x0f2e,
    .event_id = -1 };
static const struct stream_class interval_class = { .id = 2,
    .provider = "Windows Kernel", .event = "PerfInfo/CollectionStart",
    .hook = 0x0f48, .event_id = -1 };
static const struct stream_class process_class = { .id = 3,
    .provider = "Windows Kernel", .event = "Process/End", .hook = 0x0302,
    .event_id = -1 };
static const struct stream_class vmem_class = { .id = 4,
    .provider = "Windows Kernel", .event = "PageFault/VirtualAlloc",
    .hook = 0x0562, .event_id = -1 };

static void
open_section(struct stream_writer *w)
{
	struct stream_trace t = { .source = "t.etl", .format = "etl",
	    .logger = "", .start_utc = TRACE_UTC };

	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_trace(w, &t) == 0);
	CHECK(stream_write_class(w, &sample_class) == 0);
	CHECK(stream_write_class(w, &interval_class) == 0);
	CHECK(stream_write_class(w, &process_class) == 0);
	CHECK(stream_write_class(w, &vmem_class) == 0);
}

static void
close_section(struct stream_writer *w)
{
	struct stream_end e = { 0 };

	CHECK(stream_write_end(w, &e) == 0);
}

static void
process_event(struct stream_writer *w, int64_t ts, enum stream_ev_op op,
    stream_id id, uint32_t pid, int64_t status)
{
	struct stream_field f[2] = {
		{ "process", { .type = VAL_U64, .v.u = id } },
		{ "exit_status", { .type = VAL_I64, .v.i = status } },
	};
	struct stream_event ev = { .h = { .kind = EV_PROCESS, .op = (uint8_t)op,
	    .ts = ts, .pid = pid, .cls = 3 }, .nfields = 2, .fields = f };

	CHECK(stream_write_event(w, &ev) == 0);
}

/* A process definition, and its start or rundown event. */
static void
process(struct stream_writer *w, stream_id id, uint32_t pid, uint32_t ppid,
    int64_t start, const char *name)
{
	struct stream_process p = { .id = id, .pid = pid, .ppid = ppid,
	    .start_ns = start, .name = name, .cmdline = name };

	CHECK(stream_write_process(w, &p) == 0);
	process_event(w, start == INT64_MIN ? 0 : start, start == INT64_MIN ?
	    EVOP_DCSTART : EVOP_START, id, pid, 259);
}

static void
image(struct stream_writer *w, stream_id id, uint32_t pid,
    stream_id proc, uint64_t base, uint64_t size, const char *path)
{
	struct stream_image im = { .id = id, .pid = pid, .process = proc,
	    .base = base, .size = size, .path = path, .pdb_name = "",
	    .original_name = "" };

	CHECK(stream_write_image(w, &im) == 0);
}

static void
stack(struct stream_writer *w, stream_id id, const uint64_t *frames,
    uint32_t n, int unresolved)
{
	struct stream_stack s = { .id = id, .nframes = n, .frames = frames,
	    .unresolved = (uint8_t)unresolved };

	CHECK(stream_write_stack(w, &s) == 0);
}

static void
sample(struct stream_writer *w, int64_t ts, uint32_t pid, stream_id stk,
    uint64_t ip, uint64_t flags)
{
	struct stream_field f[2] = {
		{ "ip", { .type = VAL_HEX, .v.u = ip } },
		{ "flags", { .type = VAL_HEX, .v.u = flags } },
	};
	struct stream_event ev = { .h = { .kind = EV_SAMPLE, .stack = stk,
	    .ts = ts, .pid = pid, .tid = pid + 1, .cls = 1 }, .nfields = 2,
	    .fields = f };

	CHECK(stream_write_event(w, &ev) == 0);
}

static void
interval(struct stream_writer *w, uint64_t units)
{
	struct stream_field f[2] = {
		{ "source", { .type = VAL_U64, .v.u = 0 } },
		{ "new_interval", { .type = VAL_U64, .v.u = units } },
	};
	struct stream_event ev = { .h = { .kind = EV_GENERIC, .cls = 2 },
	    .nfields = 2, .fields = f };

	CHECK(stream_write_event(w, &ev) == 0);
}


/*
 * Samples whose stacks come after them: rustc.exe (pid 100) with a
 * kernel frame, a frame of its DLL and one outside any image; a stack
 * that does not start with the sample's ip; an idle sample without a
 * stack; and a stack the source never defined.  Interval 0.5 ms.
 */
static void
write_samples(FILE *fp)
{
	struct stream_writer *w = stream_writer_new(fp, 1);
	static const uint64_t s5[] = { KBASE + 0x1234, DRIVER + 0x100, 0x123 };
	static const uint64_t s6[] = { DRIVER + 0x300 };

	REQUIRE(w != NULL);
	open_section(w);
	interval(w, 5000);
	process(w, 1, 0, 0, INT64_MIN, "Idle");
	process(w, 2, 100, 4, 1000, "rustc.exe");
	image(w, 1, 0, 1, KBASE, 0x100000,
	    "\\SystemRoot\\system32\\ntoskrnl.exe");
	image(w, 2, 100, 2, DRIVER, 0x10000, "C:\\x\\rustc_driver.dll");
	sample(w, 2000, 100, 5, KBASE + 0x1234, 0);
	sample(w, 3000, 100, 5, KBASE + 0x1234, 0);
	sample(w, 4000, 100, 6, DRIVER + 0x200, 0);
	sample(w, 5000, 0, 0, KBASE + 0x5, 0);
	sample(w, 5500, 0, 0, KBASE + 0x5, 1);	/* a DPC on the idle thread */
	sample(w, 6000, 100, 7, DRIVER + 0x400, 0);
	stack(w, 5, s5, 3, 0);
	stack(w, 6, s6, 1, 0);
	stack(w, 7, NULL, 0, 1);
	close_section(w);
	CHECK(stream_writer_close(w) == 0);
}

static void
read_table(FILE *fp, struct table *t)
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	char cell[256];
	size_t i, len;

	memset(t, 0, sizeof(*t));
	REQUIRE(r != NULL);
	rewind(fp);
	stream_reader_open_file(r, fp, "out");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (rec.type == REC_DIAG)
			t->diags += rec.u.diag.count;
		if (rec.type != REC_ROW || t->n == MAX_ROWS)
			continue;
		t->rows[t->n][0] = '\0';
		for (i = 0; i < rec.u.row.ncells; i++) {
			value_format(&rec.u.row.cells[i], cell, sizeof(cell));
			len = strlen(t->rows[t->n]);
			snprintf(t->rows[t->n] + len, sizeof(t->rows[0]) - len,
			    "%s%s", i ? "|" : "", cell);
		}
		t->n++;
	}
	stream_reader_free(r);
}

/* Runs `etlagg ARGS` over the streams in[0..nin) into t. */
static void
run(const char *args, FILE **in, int nin, struct table *t, FILE **keep)
{
	char buf[256], *argv[8];
	int argc = 0, used, i;
	const struct view_ops *ops;
	struct stream_reader *r;
	struct stream_writer *w;
	struct stream_record rec;
	struct stream_end end = { 0 };
	struct view *v;
	FILE *out = tmpfile();

	snprintf(buf, sizeof(buf), "%s", args);
	for (argv[argc] = strtok(buf, " "); argv[argc] != NULL && argc < 7;)
		argv[++argc] = strtok(NULL, " ");
	REQUIRE(out != NULL && (ops = view_find(argv[0])) != NULL);
	REQUIRE((v = ops->create(argc, argv, &used, NULL)) != NULL);
	CHECK_EQ_INT(used, argc);
	r = stream_reader_new(ops->reader_flags);
	w = stream_writer_new(out, 1);
	REQUIRE(r != NULL && w != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	for (i = 0; i < nin; i++) {
		rewind(in[i]);
		stream_reader_open_file(r, in[i], "in");
		while (stream_reader_next(r, &rec) == STREAM_OK)
			CHECK(ops->record(v, r, &rec) == 0);
	}
	CHECK(ops->finish(v, w) == 0);
	CHECK(stream_write_end(w, &end) == 0);
	CHECK(stream_writer_close(w) == 0);
	ops->destroy(v);
	stream_reader_free(r);
	read_table(out, t);
	if (keep != NULL)
		*keep = out;
	else
		fclose(out);
}

static int
has_row(const struct table *t, const char *row)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->rows[i], row) == 0)
			return 1;
	printf("  no row \"%s\" among:\n", row);
	for (i = 0; i < t->n; i++)
		printf("    %s\n", t->rows[i]);
	return 0;
}

static void
test_cpu_by_stack(void)
{
	FILE *in = tmpfile();
	struct table t;

	REQUIRE(in != NULL);
	write_samples(in);
	run("cpu --by stack", &in, 1, &t, NULL);
	CHECK_EQ_INT(t.n, 4);
	CHECK(has_row(&t, "rustc.exe;0x123;rustc_driver.dll!0x100;"
	    "ntoskrnl.exe!0x1234|2|33.33|1"));
	CHECK(has_row(&t, "rustc.exe;rustc_driver.dll!0x300;"
	    "rustc_driver.dll!0x200|1|16.67|0.5"));
	CHECK(has_row(&t, "Idle;[no stack];ntoskrnl.exe!0x5|2|33.33|1"));
	CHECK(has_row(&t, "rustc.exe;[stack not defined];"
	    "rustc_driver.dll!0x400|1|16.67|0.5"));
	CHECK_EQ_INT(t.diags, 1);	/* the stack never defined */
	run("cpu --by stack --addresses --no-idle", &in, 1, &t, NULL);
	CHECK(has_row(&t, "rustc.exe;0x123;0x7ff000000100;0xfffff80000001234"
	    "|2|40|1"));
	/* PerfView's rule: the DPC on the idle thread stays. */
	CHECK(has_row(&t, "Idle;[no stack];0xfffff80000000005|1|20|0.5"));
	fclose(in);
}

static void
test_cpu_by_function_module_process(void)
{
	FILE *in = tmpfile();
	struct table t;

	REQUIRE(in != NULL);
	write_samples(in);
	run("cpu --by function", &in, 1, &t, NULL);
	CHECK(has_row(&t, "ntoskrnl.exe!0x1234|ntoskrnl.exe|2|33.33|2|33.33|"
	    "1"));
	CHECK(has_row(&t, "rustc_driver.dll!0x100|rustc_driver.dll|0|0|2|"
	    "33.33|0"));
	CHECK(has_row(&t, "0x123|unknown|0|0|2|33.33|0"));
	run("cpu --by module", &in, 1, &t, NULL);
	CHECK_EQ_INT(t.n, 3);
	CHECK(has_row(&t, "ntoskrnl.exe|4|66.67|4|66.67|2"));
	CHECK(has_row(&t, "rustc_driver.dll|2|33.33|4|66.67|1"));
	CHECK(has_row(&t, "unknown|0|0|2|33.33|0"));
	run("cpu", &in, 1, &t, NULL);
	CHECK_EQ_INT(t.n, 2);
	CHECK(has_row(&t, "rustc.exe|100|2020-07-23T17:46:40.0000010Z|"
	    "0.000001000|4|"
	    "66.67|2"));
	CHECK(has_row(&t, "Idle|0|||2|33.33|1"));
	fclose(in);
}

/*
 * cmd.exe (10) runs cargo.exe (20), which runs rustc.exe (30) and, after
 * it ends, link.exe with pid 30 again.  cargo ends; pid 20 comes back as
 * foo.exe, whose child bar.exe must be foo's, not cargo's.  baz.exe's
 * parent pid 30 is not running when it starts.  Samples of pid 30 go to
 * link.exe once it is defined; pid 99 has no definition.  wpr.exe has
 * a definition but no event (as after etlfilter): it is not listed.
 */
static void
write_family(FILE *fp)
{
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_thread th = { .id = 1, .tid = 31, .pid = 30,
	    .process = 3, .start_ns = 250, .name = "" };
	struct stream_process wpr = { .id = 8, .pid = 60, .ppid = 10,
	    .start_ns = 150, .name = "wpr.exe", .cmdline = "" };

	REQUIRE(w != NULL);
	open_section(w);
	process(w, 1, 10, 1, INT64_MIN, "cmd.exe");
	CHECK(stream_write_process(w, &wpr) == 0);
	process(w, 2, 20, 10, 100, "cargo.exe");
	process(w, 3, 30, 20, 200, "rustc.exe");
	CHECK(stream_write_thread(w, &th) == 0);
	th.id = 2;
	th.tid = 32;
	CHECK(stream_write_thread(w, &th) == 0);
	sample(w, 250, 30, 0, 0x10, 0);
	process_event(w, 300, EVOP_END, 3, 30, 1);
	process(w, 4, 50, 30, 350, "baz.exe");
	process(w, 5, 30, 20, 400, "link.exe");
	sample(w, 450, 30, 0, 0x10, 0);
	sample(w, 460, 30, 0, 0x10, 0);
	sample(w, 470, 99, 0, 0x10, 0);
	process_event(w, 500, EVOP_END, 2, 20, 0);
	process(w, 6, 20, 10, 600, "foo.exe");
	process(w, 7, 40, 20, 700, "bar.exe");
	close_section(w);
	CHECK(stream_writer_close(w) == 0);
}

static void
test_processes(void)
{
	FILE *in = tmpfile();
	struct table t;

	REQUIRE(in != NULL);
	write_family(in);
	run("processes", &in, 1, &t, NULL);
	CHECK_EQ_INT(t.n, 8);
	/* pid|ppid|image|start_utc|start|end_utc|end|duration|exit|threads|
	 * samples|cpu_ms|end_state|last_seen|trace_end|crate|cmdline */
	CHECK_EQ_STR(t.rows[0], "10|1|cmd.exe|||||||0|0|0|unknown|0.000000000|"
	    "0.000000700||"
	    "cmd.exe");
	CHECK_EQ_STR(t.rows[1], "99|0|(unknown)|||||||0|1|1|unknown|"
	    "0.000000470|0.000000700||");
	CHECK(has_row(&t, "30|20|rustc.exe|2020-07-23T17:46:40.0000002Z|"
	    "0.000000200|2020-07-23T17:46:40.0000003Z|0.000000300|"
	    "0.000000100|1|2|1|1|exited|0.000000300|0.000000700||"
	    "rustc.exe"));
	CHECK(has_row(&t, "30|20|link.exe|2020-07-23T17:46:40.0000004Z|"
	    "0.000000400|||||0|2|2|unknown|0.000000460|0.000000700||"
	    "link.exe"));
	fclose(in);
}

/* The crate of a command line, in the forms cargo and people write. */
static void
test_crate(void)
{
	static const char *const cases[][2] = {
		{ "rustc.exe --crate-name core --edition=2021", "core" },
		{ "rustc --edition=2021 --crate-name=cfg_if x.rs", "cfg_if" },
		{ "\"rustc.exe\" \"--crate-name\" \"std\" lib.rs", "std" },
		{ "rustc x.rs --crate-name", "" },
		{ "rustc --crate-names x", "" },
		{ "rustc --crate-type lib x.rs", "" },
		{ "rustc x--crate-name y", "" },
	};
	char got[64];
	const char *s;
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = proctab_crate(cases[i][0], strlen(cases[i][0]), &n);
		snprintf(got, sizeof(got), "%.*s", s ? (int)n : 0, s ? s : "");
		CHECK_EQ_STR(got, cases[i][1]);
	}
}

static void
test_tree(void)
{
	FILE *in = tmpfile();
	struct table t;
	static const char *const want[] = {
		"cmd.exe|0|10", "  cargo.exe|1|20", "    rustc.exe|2|30",
		"    link.exe|2|30", "  foo.exe|1|20", "    bar.exe|2|40",
		"(unknown)|0|99", "baz.exe|0|50",
	};
	char got[64];
	int i;

	REQUIRE(in != NULL);
	write_family(in);
	run("tree", &in, 1, &t, NULL);
	CHECK_EQ_INT(t.n, 8);
	for (i = 0; i < t.n && i < 8; i++) {
		/* The tree, depth and pid cells. */
		snprintf(got, sizeof(got), "%s", t.rows[i]);
		*strchr(strchr(strchr(got, '|') + 1, '|') + 1, '|') = '\0';
		CHECK_EQ_STR(got, want[i]);
	}
	fclose(in);
}

/* A VirtualAlloc (MEM_COMMIT) or VirtualFree (MEM_RELEASE) event. */
static void
vmem(struct stream_writer *w, int64_t ts, enum stream_ev_op op,
    uint32_t pid, uint64_t base, uint64_t size)
{
	struct stream_field f[3] = {
		{ "base", { .type = VAL_HEX, .v.u = base } },
		{ "size", { .type = VAL_U64, .v.u = size } },
		{ "flags", { .type = VAL_HEX, .v.u = op == EVOP_ALLOC ?
		    0x1000 : 0x8000 } },
	};
	struct stream_event ev = { .h = { .kind = EV_VMEM, .op = (uint8_t)op,
	    .ts = ts, .pid = pid, .cls = 4 }, .nfields = 3, .fields = f };

	CHECK(stream_write_event(w, &ev) == 0);
}

/*
 * The peak of a timeline is a row of its own at its time, but where a
 * step (pid 100, at 100 ms) or an exit (pid 200, at 300 ms) falls on
 * its nanosecond: then that row holds it, one row a process and time.
 */
static void
test_vmem_timeline_peaks(void)
{
	FILE *in = tmpfile();
	struct stream_writer *w;
	struct table t;

	REQUIRE(in != NULL && (w = stream_writer_new(in, 1)) != NULL);
	open_section(w);
	process(w, 1, 100, 4, 1000, "rustc.exe");
	process(w, 2, 200, 4, 2000, "link.exe");
	vmem(w, 50000000, EVOP_ALLOC, 100, 0x10000, 0x3000);
	vmem(w, 100000000, EVOP_ALLOC, 100, 0x20000, 0x1000);
	vmem(w, 100000000, EVOP_FREE, 100, 0x20000, 0x1000);
	vmem(w, 120000000, EVOP_ALLOC, 200, 0x10000, 0x1000);
	vmem(w, 150000000, EVOP_FREE, 100, 0x10000, 0x1000);
	vmem(w, 300000000, EVOP_ALLOC, 200, 0x20000, 0x2000);
	process_event(w, 300000000, EVOP_END, 2, 200, 0);
	vmem(w, 310000000, EVOP_ALLOC, 100, 0x30000, 0x1000);
	close_section(w);
	REQUIRE(stream_writer_close(w) == 0);
	run("vmem --timeline", &in, 1, &t, NULL);
	/* link.exe's 4 KiB at 120 ms is a step's, not a peak's. */
	CHECK_EQ_INT(t.n, 5);
	CHECK_EQ_STR(t.rows[0], "0.100000000|rustc.exe (100)|100|0.000001000|"
	    "16384");
	CHECK_EQ_STR(t.rows[1], "0.200000000|rustc.exe (100)|100|0.000001000|"
	    "8192");
	CHECK_EQ_STR(t.rows[2], "0.200000000|link.exe (200)|200|0.000002000|"
	    "4096");
	CHECK_EQ_STR(t.rows[3], "0.300000000|link.exe (200)|200|0.000002000|"
	    "12288");
	CHECK_EQ_STR(t.rows[4], "0.300000000|rustc.exe (100)|100|0.000001000|"
	    "8192");
	run("vmem", &in, 1, &t, NULL);
	CHECK(has_row(&t, "rustc.exe|100|0.000001000||20480|8192|16384|0|3|2|"
	    "12288"));
	CHECK(has_row(&t, "link.exe|200|0.000002000|0.300000000|12288|0|12288|"
	    "0|2|0|12288"));
	fclose(in);
}

/* Tables of one input merged give the table of the input. */
static void
test_merge_same(void)
{
	static const char *const views[] = {
		"processes", "tree", "cpu", "cpu --by stack",
		"cpu --by function", "cpu --by module",
	};
	char merge[64];
	struct table direct, merged;
	FILE *in[2], *tables[2];
	size_t k;
	int i;

	in[0] = tmpfile();
	in[1] = tmpfile();
	REQUIRE(in[0] != NULL && in[1] != NULL);
	write_samples(in[0]);
	write_family(in[1]);
	for (k = 0; k < sizeof(views) / sizeof(views[0]); k++) {
		run(views[k], in, 2, &direct, NULL);
		run(views[k], &in[0], 1, &merged, &tables[0]);
		run(views[k], &in[1], 1, &merged, &tables[1]);
		snprintf(merge, sizeof(merge), "%s --merge", views[k]);
		run(merge, tables, 2, &merged, NULL);
		CHECK_EQ_INT(merged.n, direct.n);
		for (i = 0; i < direct.n; i++)
			CHECK(has_row(&merged, direct.rows[i]));
		fclose(tables[0]);
		fclose(tables[1]);
	}
	/* A table of another --by is left out, and counted. */
	run("cpu --by stack", &in[0], 1, &merged, &tables[0]);
	run("cpu --by module --merge", tables, 1, &merged, NULL);
	CHECK_EQ_INT(merged.n, 0);
	CHECK_EQ_INT(merged.diags, 4);
	fclose(tables[0]);
	fclose(in[0]);
	fclose(in[1]);
}

static void
test_usage(void)
{
	const struct view_ops *ops = view_find("cpu");
	char *argv[] = { "cpu", "--by", "nothing", NULL };
	int used;

	REQUIRE(ops != NULL);
	printf("  (a usage message follows)\n");
	fflush(stdout);
	CHECK(ops->create(3, argv, &used, NULL) == NULL);
}

int
main(void)
{
	RUN(test_cpu_by_stack);
	RUN(test_cpu_by_function_module_process);
	RUN(test_processes);
	RUN(test_crate);
	RUN(test_tree);
	RUN(test_merge_same);
	RUN(test_vmem_timeline_peaks);
	RUN(test_usage);
	HARNESS_EXIT();
}
