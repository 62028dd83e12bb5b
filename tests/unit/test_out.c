/*
 * test_out.c - the exact bytes of the text, csv and jsonl table formats,
 * and what out does when the output device fails.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "out/out.h"
#include "out/out_scale.h"
#include "stream/colname.h"
#include "harness.h"

static FILE *mem;
static char *mem_text;
static size_t mem_len;

/* Opens a writer on a fresh memory stream. */
static struct out *
open_mem(const char *format)
{
	free(mem_text);
	mem_text = NULL;
	if ((mem = open_memstream(&mem_text, &mem_len)) == NULL)
		return NULL;
	return out_open(format, mem);
}

/* Closes the writer and the stream; returns what was written. */
static const char *
close_mem(struct out *o)
{
	CHECK_EQ_INT(out_close(o), 0);
	fclose(mem);
	return mem_text;
}

static struct value
str(const char *s)
{
	struct value v = { .type = VAL_STR, .v.s = { s, strlen(s) } };

	return v;
}

static struct value
i64(enum value_type type, int64_t i)
{
	struct value v = { .type = type, .v.i = i };

	return v;
}

static struct value
u64(enum value_type type, uint64_t u)
{
	struct value v = { .type = type, .v.u = u };

	return v;
}

static struct value
f64(double f)
{
	struct value v = { .type = VAL_F64, .v.f = f };

	return v;
}

static const struct value null = { .type = VAL_NULL };

/* Writes one table of `nrows` rows of `ncols` cells each. */
static int
put_table(struct out *o, const char *name, const struct out_column *cols,
    size_t ncols, const struct value *cells, size_t nrows)
{
	size_t r;

	if (out_table_begin(o, name, cols, ncols) == -1)
		return -1;
	for (r = 0; r < nrows; r++)
		if (out_table_row(o, cells + r * ncols) == -1)
			return -1;
	return out_table_end(o);
}

static void
test_names(void)
{
	const char *const *names = out_format_names();

	REQUIRE(names != NULL);
	CHECK_EQ_STR(names[0], "text");
	CHECK_EQ_STR(names[1], "csv");
	CHECK_EQ_STR(names[2], "csv-raw");
	CHECK_EQ_STR(names[3], "jsonl");
	CHECK(names[4] == NULL);
}

static void
test_unknown_format(void)
{
	errno = 0;
	CHECK(out_open("xml", stdout) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(out_open("", stdout) == NULL);
}

static void
test_csv_quoting(void)
{
	static const struct out_column cols[] = {
		{ "name", VAL_STR, "" },
		{ "n", VAL_I64, "" },
		{ "note", VAL_STR, "" },
		{ "t", VAL_NS, "s" },
	};
	struct value cells[] = {
		str("plain"), i64(VAL_I64, 1), str("a,b"), i64(VAL_NS, 0),
		str("say \"hi\""), i64(VAL_I64, -2), str("l1\r\nl2\rl3\n"),
		null,
		str("\xc3\xbcn\xc3\xaf"), null, str(""), i64(VAL_NS, -1),
	};
	struct out *o = open_mem("csv");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "stats", cols, 4, cells, 3), 0);
	CHECK_EQ_STR(close_mem(o),
	    "name,n,note,t_s\r\n"
	    "plain,1,\"a,b\",0.000000000\r\n"
	    "\"say \"\"hi\"\"\",-2,\"l1\r\nl2\rl3\n\",\r\n"
	    "\xc3\xbcn\xc3\xaf,,,-0.000000001\r\n");
}

/*
 * A text cell a spreadsheet would evaluate gets a quote, in a quoted
 * field (OWASP); numbers keep their signs, a number written as text in
 * a number column too, but not other text in it; csv-raw changes nothing.
 */
static void
test_csv_formula_cells(void)
{
	static const struct out_column cols[] = {
		{ "=name", VAL_STR, "" },
		{ "n", VAL_I64, "" },
		{ "pct", VAL_F64, "" },
	};
	struct value cells[] = {
		str("=1+1+1+11"), i64(VAL_I64, -2), str("-14.00"),
		str("+cmd|' /C calc'!A0"), f64(-0.5), str("-1+2"),
		str("@SUM(A1)"), i64(VAL_I64, 3), str("=a,\"b\""),
		str("\tx"), null, str("\r=1"),
		str("a=1"), null, str("1e-3"),
	};
	struct out *o = open_mem("csv");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "t", cols, 3, cells, 5), 0);
	CHECK_EQ_STR(close_mem(o),
	    "\"'=name\",n,pct\r\n"
	    "\"'=1+1+1+11\",-2,-14.00\r\n"
	    "\"'+cmd|' /C calc'!A0\",-0.5,\"'-1+2\"\r\n"
	    "\"'@SUM(A1)\",3,\"'=a,\"\"b\"\"\"\r\n"
	    "\"'\tx\",,\"'\r=1\"\r\n"
	    "a=1,,1e-3\r\n");
	REQUIRE((o = open_mem("csv-raw")) != NULL);
	CHECK_EQ_INT(put_table(o, "t", cols, 3, cells, 2), 0);
	CHECK_EQ_STR(close_mem(o),
	    "=name,n,pct\r\n"
	    "=1+1+1+11,-2,-14.00\r\n"
	    "+cmd|' /C calc'!A0,-0.5,-1+2\r\n");
}

/*
 * Headers keep their units; UTC times are what spreadsheets read as a
 * date and time.
 */
static void
test_csv_units_and_dates(void)
{
	static const struct out_column cols[] = {
		{ "start", VAL_NS, "s" }, { "cpu_ms", VAL_F64, "ms" },
		{ "self", VAL_I64, "ns" }, { "share", VAL_F64, "%" },
		{ "memory", VAL_U64, "MiB" }, { "freq", VAL_U64, "Hz" },
		{ "bytes", VAL_U64, "bytes" }, { "end", VAL_NS, "" },
		{ "start_utc", VAL_UTC, "" }, { "exit_status", VAL_I64, "" },
	};
	struct value cells[] = {
		i64(VAL_NS, 1500000000), { .type = VAL_F64, .v.f = 2.5 },
		i64(VAL_I64, 7), { .type = VAL_F64, .v.f = 12.5 },
		u64(VAL_U64, 3), u64(VAL_U64, 10), u64(VAL_U64, 1),
		i64(VAL_NS, 0),
		/* 2024-11-20T09:14:07.1234567Z */
		u64(VAL_UTC, 133765676471234567ULL), i64(VAL_I64, 0),
	};
	char buf[64];
	struct out *o = open_mem("csv");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "t", cols, 10, cells, 1), 0);
	CHECK_EQ_STR(close_mem(o),
	    "start_s,cpu_ms,self_ns,share_pct,memory_mib,freq_hz,bytes,end_s,"
	    "start_utc,exit_status\r\n"
	    "1.500000000,2.5,7,12.5,3,10,1,0.000000000,"
	    "2024-11-20 09:14:07.123,0\r\n");
	CHECK_EQ_STR(out_csv_header(&cols[3], buf, sizeof(buf)), "share_pct");
	CHECK_EQ_STR(out_csv_header(&cols[1], buf, 4), "cpu");
}

/*
 * One rule for units in names (colname.h): the unit's word last, and
 * nowhere else; a derived column puts its role before it.
 */
static void
test_column_names(void)
{
	static const struct {
		const char *name, *unit, *role, *want;
	} derived[] = {
		{ "cpu_ms", "ms", "base", "cpu_base_ms" },
		{ "cpu_ms", "ms", "delta", "cpu_delta_ms" },
		{ "cpu_ms", "ms", "delta_pct", "cpu_delta_pct" },
		{ "running_ns", "ns", "base", "running_base_ns" },
		{ "peak_commit_bytes", "B", "base", "peak_commit_base_bytes" },
		{ "peak_commit_bytes", "B", "delta",
		    "peak_commit_delta_bytes" },
		{ "share_pct", "%", "base", "share_base_pct" },
		{ "wall", "s", "base", "wall_base" },
		{ "count", "events", "base", "count_base" },
		{ "samples", "", "delta_pct", "samples_delta_pct" },
		{ "ns", "ns", "base", "base_ns" },
		/* A name that only looks like its unit's: "bytes" of B. */
		{ "lost_b", "B", "base", "lost_b_base" },
	};
	static const struct {
		const char *name;
		enum value_type type;
		const char *unit, *csv, *jsonl;
	} heads[] = {
		{ "wall_base", VAL_NS, "s", "wall_base_s", "wall_base_ns" },
		{ "time", VAL_NS, "", "time_s", "time_ns" },
		{ "cpu_base_ms", VAL_F64, "ms", "cpu_base_ms", "cpu_base_ms" },
		{ "count_base", VAL_U64, "events", "count_base_events",
		    "count_base_events" },
		{ "peak_commit", VAL_U64, "B", "peak_commit_bytes",
		    "peak_commit_bytes" },
		{ "t", VAL_I64, "\xc2\xb5s", "t_us", "t_us" },
		{ "pid", VAL_U64, "", "pid", "pid" },
		{ "ns", VAL_U64, "ns", "ns", "ns" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(derived) / sizeof(derived[0]); i++)
		CHECK_EQ_STR(colname_derive(derived[i].name, derived[i].unit,
		    derived[i].role, buf, sizeof(buf)), derived[i].want);
	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		CHECK_EQ_STR(colname_header(heads[i].name, heads[i].type,
		    heads[i].unit, "s", buf, sizeof(buf)), heads[i].csv);
		CHECK_EQ_STR(colname_header(heads[i].name, heads[i].type,
		    heads[i].unit, "ns", buf, sizeof(buf)), heads[i].jsonl);
	}
}

/* A column's cells in one unit, its largest to 4 digits; the header's. */
static void
test_text_scaled(void)
{
	static const struct out_column cols[] = {
		{ "running_ns", VAL_U64, "ns" },
		{ "peak_commit_bytes", VAL_U64, "B" },
		{ "wall", VAL_NS, "s" }, { "cpu_ms", VAL_F64, "ms" },
		{ "delta_pct", VAL_F64, "%" }, { "small_ns", VAL_U64, "ns" },
		{ "when", VAL_NS, "" }, { "count", VAL_U64, "events" },
	};
	struct value cells[] = {
		u64(VAL_U64, 783620200), u64(VAL_U64, 21823488),
		i64(VAL_NS, 42894078000), f64(0.25), f64(167.0145701640273),
		u64(VAL_U64, 999), i64(VAL_NS, 42894078100),
		u64(VAL_U64, 123456),

		u64(VAL_U64, 50000000), u64(VAL_U64, 524288),
		i64(VAL_NS, -2000000000), f64(2.5), f64(-0.04),
		u64(VAL_U64, 0), i64(VAL_NS, 100), null,
	};
	struct out *o = open_mem("text");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "t", cols, 8, cells, 2), 0);
	CHECK_EQ_STR(close_mem(o),
	    "t\n"
	    "running (ms)  peak commit (MiB)  wall (s)  cpu (ms)  delta (%)"
	    "  small (ns)      when (s)  count (events)\n"
	    "------------  -----------------  --------  --------  ---------"
	    "  ----------  ------------  --------------\n"
	    "       783.6              20.81     42.89     0.250      167.0"
	    "         999  42.894078100          123456\n"
	    "        50.0               0.50     -2.00     2.500        0.0"
	    "           0   0.000000100\n");
}

/* A record column: a nested object in JSON, "x[N]" fields an array. */
static void
test_jsonl_record(void)
{
	static const struct out_column cols[] = {
		{ "kind", VAL_STR, "" }, { "fields", VAL_STR, "" },
	};
	struct value cells[] = { str("alloc"), str("size=5; a[0]=1; a[1]=2") };
	struct out_field f[] = {
		{ "size", u64(VAL_U64, 5) }, { "a[0]", u64(VAL_U64, 1) },
		{ "a[1]", u64(VAL_U64, 2) }, { "s.x", str("q") },
		{ "b[0]", str("z") }, { "x[", i64(VAL_I64, -1) },
	};
	struct out *o = open_mem("jsonl");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(out_table_begin(o, "events", cols, 2), 0);
	CHECK_EQ_INT(out_table_row_record(o, cells, f, 6), 0);
	CHECK_EQ_INT(out_table_row_record(o, cells, f, 0), 0);
	CHECK_EQ_INT(out_table_end(o), 0);
	CHECK_EQ_STR(close_mem(o),
	    "{\"kind\":\"alloc\",\"fields\":{\"size\":5,\"a\":[1,2],"
	    "\"s.x\":\"q\",\"b\":[\"z\"],\"x[\":-1}}\n"
	    "{\"kind\":\"alloc\",\"fields\":{}}\n");
	/* The other formats write the record's text. */
	REQUIRE((o = open_mem("csv")) != NULL);
	CHECK_EQ_INT(out_table_begin(o, "events", cols, 2), 0);
	CHECK_EQ_INT(out_table_row_record(o, cells, f, 6), 0);
	CHECK_EQ_INT(out_table_end(o), 0);
	CHECK_EQ_STR(close_mem(o), "kind,fields\r\nalloc,size=5; a[0]=1; "
	    "a[1]=2\r\n");
}

static void
test_csv_header_and_tables(void)
{
	static const struct out_column a[] = {
		{ "x,y", VAL_U64, "" },
		{ "say \"z\"", VAL_BOOL, "" },
	};
	static const struct out_column b[] = { { "only", VAL_HEX, "" } };
	struct value ra[] = { u64(VAL_U64, 7), u64(VAL_BOOL, 1) };
	struct value rb[] = { u64(VAL_HEX, 255) };
	struct out *o = open_mem("csv");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "a", a, 2, ra, 1), 0);
	CHECK_EQ_INT(put_table(o, "b", b, 1, rb, 1), 0);
	CHECK_EQ_INT(put_table(o, "c", b, 1, rb, 0), 0);
	CHECK_EQ_STR(close_mem(o),
	    "\"x,y\",\"say \"\"z\"\"\"\r\n"
	    "7,true\r\n"
	    "\r\n"
	    "only\r\n"
	    "0xff\r\n"
	    "\r\n"
	    "only\r\n");
}

static void
test_text_alignment(void)
{
	static const struct out_column cols[] = {
		{ "name", VAL_STR, "" },
		{ "count", VAL_U64, NULL },
		{ "dur", VAL_NS, "s" },
		{ "at", VAL_NS, "" },
	};
	struct value cells[] = {
		str("caf\xc3\xa9"), u64(VAL_U64, 3), i64(VAL_NS, 1500000000),
		i64(VAL_NS, 1500000000),
		str("x"), u64(VAL_U64, 12345), i64(VAL_NS, -1), i64(VAL_NS, -1),
		null, null, null, null,
	};
	struct out *o = open_mem("text");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "", cols, 4, cells, 3), 0);
	/* A figure scaled, never "-0.000"; a time stamp exact. */
	CHECK_EQ_STR(close_mem(o),
	    "name  count  dur (s)        at (s)\n"
	    "----  -----  -------  ------------\n"
	    "caf\xc3\xa9      3    1.500   1.500000000\n"
	    "x     12345    0.000  -0.000000001\n"
	    "\n");
}

/* Padding that nothing follows is not written. */
static void
test_text_no_trailing_spaces(void)
{
	static const struct out_column cols[] = {
		{ "a", VAL_STR, "" },
		{ "b", VAL_STR, "" },
		{ "n", VAL_F64, "" },
	};
	struct value cells[] = {
		str("long value"), null, null,
		null, str("z"), null,
		str("\xe2\x82\xac\xe2\x82\xac"), str(""), f64(0.5),
	};
	struct out *o = open_mem("text");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "", cols, 3, cells, 3), 0);
	CHECK_EQ_STR(close_mem(o),
	    "a           b    n\n"
	    "----------  -  ---\n"
	    "long value\n"
	    "            z\n"
	    "\xe2\x82\xac\xe2\x82\xac             0.5\n");
}

static void
test_text_tables(void)
{
	static const struct out_column k[] = { { "k", VAL_STR, "" } };
	static const struct out_column n[] = { { "n", VAL_I64, "" } };
	struct value rk[] = { str("v") };
	struct value rn[] = { i64(VAL_I64, 7) };
	struct out *o = open_mem("text");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "first", k, 1, rk, 1), 0);
	CHECK_EQ_INT(put_table(o, "", n, 1, rn, 1), 0);
	CHECK_EQ_INT(put_table(o, "third", n, 1, rn, 0), 0);
	CHECK_EQ_STR(close_mem(o),
	    "first\nk\n-\nv\n"
	    "\nn\n-\n7\n"
	    "\nthird\nn\n-\n");
}

static void
test_text_control_chars(void)
{
	static const struct out_column cols[] = {
		{ "s", VAL_STR, "" },
		{ "e", VAL_STR, "" },
	};
	struct value cells[] = { str("a\tb\x1b[31m\r\n\x7f"), str("e"),
	    str("f"), str("g") };
	struct out *o = open_mem("text");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "t\nx", cols, 2, cells, 2), 0);
	CHECK_EQ_STR(close_mem(o),
	    "t\\nx\n"
	    "s                     e\n"
	    "--------------------  -\n"
	    "a\\tb\\x1b[31m\\r\\n\\x7f  e\n"
	    "f                     g\n");
}

/* A table of one row reads down: name (unit) and value a line. */
static void
test_text_one_row(void)
{
	static const struct out_column cols[] = {
		{ "source", VAL_STR, "" }, { "cpus", VAL_U64, "" },
		{ "perf_freq", VAL_U64, "Hz" }, { "computer", VAL_STR, "" },
		{ "note", VAL_STR, "" },
	};
	struct value cells[] = { str("a.etl"), u64(VAL_U64, 4),
	    u64(VAL_U64, 10000000), null, str("x\ty") };
	struct out *o = open_mem("text");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "sysconfig", cols, 5, cells, 1), 0);
	CHECK_EQ_STR(close_mem(o),
	    "sysconfig\n"
	    "source          a.etl\n"
	    "cpus            4\n"
	    "perf freq (Hz)  10000000\n"
	    "computer\n"
	    "note            x\\ty\n");
}

/* Widths come from the first OUT_TEXT_ROWS rows; later rows overflow. */
static void
test_text_streaming(void)
{
	static const struct out_column cols[] = {
		{ "id", VAL_U64, "" },
		{ "s", VAL_STR, "" },
	};
	static const char want[] = "4095  ab\n4096  much longer\n123456  ab\n";
	struct value cells[2];
	const char *text;
	struct out *o = open_mem("text");
	uint64_t i;

	REQUIRE(o != NULL);
	REQUIRE(out_table_begin(o, "", cols, 2) == 0);
	cells[1] = str("ab");
	for (i = 0; i < OUT_TEXT_ROWS; i++) {
		cells[0] = u64(VAL_U64, i);
		CHECK_EQ_INT(out_table_row(o, cells), 0);
	}
	/* The held rows are out before the table ends. */
	fflush(mem);
	CHECK(mem_len > 0);
	cells[0] = u64(VAL_U64, OUT_TEXT_ROWS);
	cells[1] = str("much longer");
	CHECK_EQ_INT(out_table_row(o, cells), 0);
	cells[0] = u64(VAL_U64, 123456);
	cells[1] = str("ab");
	CHECK_EQ_INT(out_table_row(o, cells), 0);
	CHECK_EQ_INT(out_table_end(o), 0);
	text = close_mem(o);
	REQUIRE(text != NULL);
	CHECK(strncmp(text, "  id  s\n----  --\n   0  ab\n", 26) == 0);
	REQUIRE(mem_len >= sizeof(want) - 1);
	CHECK_EQ_STR(text + mem_len - (sizeof(want) - 1), want);
}

/*
 * A long table's units are those of its first OUT_TEXT_ROWS rows: a
 * larger figure after them has more digits in the same unit.
 */
static void
test_text_streaming_units(void)
{
	static const struct out_column cols[] = {
		{ "running_ns", VAL_U64, "ns" },
	};
	static const char want[] = "       4.096\n    5000.000\n";
	struct value cell;
	const char *text;
	struct out *o = open_mem("text");
	uint64_t i;

	REQUIRE(o != NULL);
	REQUIRE(out_table_begin(o, "", cols, 1) == 0);
	for (i = 0; i < OUT_TEXT_ROWS; i++) {
		cell = u64(VAL_U64, (i + 1) * 1000);
		CHECK_EQ_INT(out_table_row(o, &cell), 0);
	}
	cell = u64(VAL_U64, 5000000000);
	CHECK_EQ_INT(out_table_row(o, &cell), 0);
	CHECK_EQ_INT(out_table_end(o), 0);
	text = close_mem(o);
	REQUIRE(text != NULL);
	CHECK(strncmp(text, "running (ms)\n------------\n       0.001\n",
	    39) == 0);
	REQUIRE(mem_len >= sizeof(want) - 1);
	CHECK_EQ_STR(text + mem_len - (sizeof(want) - 1), want);
}

/* Rows and columns are the caller's to reuse once a call returns. */
static void
test_copies(void)
{
	char name[8] = "col", val[8] = "aaa";
	struct out_column cols[] = { { name, VAL_STR, "" } };
	struct value cell;
	struct out *o = open_mem("text");

	REQUIRE(o != NULL);
	REQUIRE(out_table_begin(o, "", cols, 1) == 0);
	strcpy(name, "XXX");
	cell = str(val);
	CHECK_EQ_INT(out_table_row(o, &cell), 0);
	strcpy(val, "bbb");
	CHECK_EQ_INT(out_table_row(o, &cell), 0);
	/* out_close() ends the table left open. */
	CHECK_EQ_STR(close_mem(o), "col\n---\naaa\nbbb\n");
}

static void
test_jsonl_types(void)
{
	static const unsigned char guid[16] = {
		0xc4, 0x14, 0xd6, 0x0a, 0xf4, 0x0e, 0x25, 0x42,
		0x8a, 0x0b, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab
	};
	static const struct out_column cols[] = {
		{ "n", VAL_NULL, "" }, { "i", VAL_I64, "" },
		{ "u", VAL_U64, "" }, { "f", VAL_F64, "" },
		{ "h", VAL_HEX, "" }, { "t", VAL_NS, "s" },
		{ "d", VAL_UTC, "" }, { "g", VAL_GUID, "" },
		{ "b", VAL_BYTES, "" }, { "ok", VAL_BOOL, "" },
	};
	struct value cells[] = {
		null, i64(VAL_I64, -5), u64(VAL_U64, UINT64_MAX), f64(0.5),
		u64(VAL_HEX, 0x1f), i64(VAL_NS, -1500),
		u64(VAL_UTC, 116444736000000000),
		{ VAL_GUID, .v.s = { (const char *)guid, 16 } },
		{ VAL_BYTES, .v.s = { "\x01\xab", 2 } }, u64(VAL_BOOL, 1),

		null, i64(VAL_I64, INT64_MIN), u64(VAL_U64, 0), f64(INFINITY),
		u64(VAL_HEX, 0), i64(VAL_NS, 0), u64(VAL_UTC, 0), null,
		{ VAL_BYTES, .v.s = { NULL, 0 } }, u64(VAL_BOOL, 0),

		null, null, null, f64(NAN), null, null, null, null, null,
		f64(1e-7),
	};
	struct out *o = open_mem("jsonl");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "events", cols, 10, cells, 3), 0);
	CHECK_EQ_STR(close_mem(o),
	    "{\"n\":null,\"i\":-5,\"u\":18446744073709551615,\"f\":0.5,"
	    "\"h\":\"0x1f\",\"t_ns\":-1500,\"d\":\"1970-01-01T00:00:00.0000000Z\","
	    "\"g\":\"0ad614c4-0ef4-4225-8a0b-0123456789ab\",\"b\":\"01ab\","
	    "\"ok\":true}\n"
	    "{\"n\":null,\"i\":-9223372036854775808,\"u\":0,\"f\":null,"
	    "\"h\":\"0x0\",\"t_ns\":0,\"d\":\"\",\"g\":null,\"b\":\"\","
	    "\"ok\":false}\n"
	    "{\"n\":null,\"i\":null,\"u\":null,\"f\":null,\"h\":null,"
	    "\"t_ns\":null,\"d\":null,\"g\":null,\"b\":null,\"ok\":1e-07}\n");
}

static void
test_jsonl_escaping(void)
{
	static const struct out_column cols[] = {
		{ "k\"\\\x01", VAL_STR, "" },
		{ "\xc3\xa9", VAL_STR, "" },
	};
	struct value cells[] = {
		str("q\"\\\n\r\t\b\f\x01\x1f\x7f/\xc3\xa9"), str(""),
		{ VAL_STR, .v.s = { "a\0b", 3 } }, null,
	};
	struct out *o = open_mem("jsonl");

	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "", cols, 2, cells, 2), 0);
	CHECK_EQ_STR(close_mem(o),
	    "{\"k\\\"\\\\\\u0001\":"
	    "\"q\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\x7f/\xc3\xa9\","
	    "\"\xc3\xa9\":\"\"}\n"
	    "{\"k\\\"\\\\\\u0001\":\"a\\u0000b\",\"\xc3\xa9\":null}\n");
}

/* Each byte that starts no well-formed sequence becomes U+FFFD. */
static void
test_jsonl_invalid_utf8(void)
{
	static const struct out_column cols[] = { { "s", VAL_STR, "" } };
	struct value cells[] = {
		str("\xc0\x80|\x80|\xe2\x82|\xed\xa0\x80|\xf4\x90\x80\x80|"
		    "\xf0\x9f\x98\x80|\xf4\x8f\xbf\xbf|\xef\xbf\xbf|\xe2\x82"),
	};
	struct out *o = open_mem("jsonl");

#define R "\xef\xbf\xbd"
	REQUIRE(o != NULL);
	CHECK_EQ_INT(put_table(o, "", cols, 1, cells, 1), 0);
	CHECK_EQ_STR(close_mem(o),
	    "{\"s\":\"" R R "|" R "|" R R "|" R R R "|" R R R R "|"
	    "\xf0\x9f\x98\x80|\xf4\x8f\xbf\xbf|\xef\xbf\xbf|" R R "\"}\n");
#undef R
}

/* A failed write shows at the latest in out_close(), with its errno. */
static void
test_full_device(void)
{
	static const struct out_column cols[] = { { "s", VAL_STR, "" } };
	struct value cell = str("some text");
	const char *const *f;
	struct out *o;
	FILE *fp;

	for (f = out_format_names(); *f != NULL; f++) {
		if ((fp = fopen("/dev/full", "w")) == NULL)
			SKIP("no /dev/full");
		o = out_open(*f, fp);
		REQUIRE(o != NULL);
		CHECK_EQ_INT(put_table(o, "t", cols, 1, &cell, 1), 0);
		errno = 0;
		CHECK_EQ_INT(out_close(o), -1);
		CHECK_EQ_INT(errno, ENOSPC);
		CHECK(ferror(fp));
		fclose(fp);
	}
}

/* Once stdio's buffer fills, the failure shows in the row that wrote. */
static void
test_full_device_rows(void)
{
	static const struct out_column cols[] = { { "s", VAL_STR, "" } };
	struct value cell = str("some text");
	struct out *o;
	FILE *fp;
	int i, rc = 0;

	if ((fp = fopen("/dev/full", "w")) == NULL)
		SKIP("no /dev/full");
	o = out_open("csv", fp);
	REQUIRE(o != NULL);
	CHECK_EQ_INT(out_table_begin(o, "t", cols, 1), 0);
	for (i = 0; i < 100000 && rc == 0; i++)
		rc = out_table_row(o, &cell);
	CHECK_EQ_INT(rc, -1);
	CHECK_EQ_INT(errno, ENOSPC);
	CHECK_EQ_INT(out_close(o), -1);
	CHECK_EQ_INT(errno, ENOSPC);
	fclose(fp);
}

static void
test_call_order(void)
{
	static const struct out_column cols[] = { { "s", VAL_STR, "" } };
	struct value cell = str("x");
	struct out *o = open_mem("csv");

	REQUIRE(o != NULL);
	errno = 0;
	CHECK_EQ_INT(out_table_row(o, &cell), -1);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK_EQ_INT(out_table_end(o), -1);
	CHECK_EQ_INT(out_table_begin(o, "", cols, 1), 0);
	CHECK_EQ_INT(out_table_begin(o, "", cols, 1), -1);
	CHECK_EQ_INT(out_table_end(o), 0);
	/* Misuse is not a failed write: the output is whole. */
	CHECK_EQ_STR(close_mem(o), "s\r\n");
}

/* A table without columns still has its lines. */
static void
test_no_columns(void)
{
	static const struct out_column cols[1];
	struct value cells[1];
	const char *const *f;
	struct out *o;

	for (f = out_format_names(); *f != NULL; f++) {
		o = open_mem(*f);
		REQUIRE(o != NULL);
		CHECK_EQ_INT(put_table(o, "", cols, 0, cells, 2), 0);
		CHECK(close_mem(o) != NULL);
	}
	CHECK_EQ_STR(mem_text, "{}\n{}\n");
}

int
main(void)
{
	RUN(test_names);
	RUN(test_unknown_format);
	RUN(test_csv_quoting);
	RUN(test_csv_formula_cells);
	RUN(test_csv_header_and_tables);
	RUN(test_csv_units_and_dates);
	RUN(test_column_names);
	RUN(test_text_scaled);
	RUN(test_jsonl_record);
	RUN(test_text_alignment);
	RUN(test_text_no_trailing_spaces);
	RUN(test_text_tables);
	RUN(test_text_control_chars);
	RUN(test_text_one_row);
	RUN(test_text_streaming);
	RUN(test_text_streaming_units);
	RUN(test_copies);
	RUN(test_jsonl_types);
	RUN(test_jsonl_escaping);
	RUN(test_jsonl_invalid_utf8);
	RUN(test_full_device);
	RUN(test_full_device_rows);
	RUN(test_call_order);
	RUN(test_no_columns);
	free(mem_text);
	HARNESS_EXIT();
}
