/*
 * test_summarize.c - the text format's summarize layout of the query
 * tables: Rust's {:.2?} and {:?} of a Duration at the unit boundaries,
 * on rounding ties, at 0 and at the ends of i64; and whole tables drawn
 * through etlreport's text format (columns left out when all zero, dots,
 * the total line, NaN for a total of 0, escaped control characters, the
 * view's percentages when no total follows).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/formats.h"
#include "render/render_summarize.h"
#include "stream/stream.h"
#include "harness.h"

#define STR(lit)	{ .type = VAL_STR, .v.s = { (lit), sizeof(lit) - 1 } }
#define U64(n)	{ .type = VAL_U64, .v.u = (n) }
#define I64(n)	{ .type = VAL_I64, .v.i = (n) }
#define F64(x)	{ .type = VAL_F64, .v.f = (x) }

/* {:.2?} of ns, in a static buffer. */
static const char *
fixed(int64_t ns)
{
	static char buf[SUMMARIZE_DURATION_MAX];

	summarize_duration(buf, ns, 1);
	return buf;
}

/* {:?} of ns. */
static const char *
debug(int64_t ns)
{
	static char buf[SUMMARIZE_DURATION_MAX];

	summarize_duration(buf, ns, 0);
	return buf;
}

static void
test_units(void)
{
	CHECK_EQ_STR(fixed(1), "1.00ns");
	CHECK_EQ_STR(fixed(120), "120.00ns");
	CHECK_EQ_STR(fixed(999), "999.00ns");
	CHECK_EQ_STR(fixed(1000), "1.00\xc2\xb5s");
	CHECK_EQ_STR(fixed(999994), "999.99\xc2\xb5s");
	CHECK_EQ_STR(fixed(1000000), "1.00ms");
	CHECK_EQ_STR(fixed(999994999), "999.99ms");
	CHECK_EQ_STR(fixed(1000000000), "1.00s");
	CHECK_EQ_STR(fixed(61000000000), "61.00s");
	/* A round-up carries into the whole part but keeps the unit. */
	CHECK_EQ_STR(fixed(999999), "1000.00\xc2\xb5s");
	CHECK_EQ_STR(fixed(999999999), "1000.00ms");
	CHECK_EQ_STR(fixed(1999999999), "2.00s");
}

static void
test_ties(void)
{
	/* Ties go to the even digit, judged on the exact ns value. */
	CHECK_EQ_STR(fixed(3265), "3.26\xc2\xb5s");
	CHECK_EQ_STR(fixed(10155), "10.16\xc2\xb5s");
	CHECK_EQ_STR(fixed(1005), "1.00\xc2\xb5s");
	CHECK_EQ_STR(fixed(1015), "1.02\xc2\xb5s");
	CHECK_EQ_STR(fixed(999995), "1000.00\xc2\xb5s");
	CHECK_EQ_STR(fixed(12345000), "12.34ms");
	CHECK_EQ_STR(fixed(12355000), "12.36ms");
	CHECK_EQ_STR(fixed(2345000000), "2.34s");
	CHECK_EQ_STR(fixed(2355000000), "2.36s");
	/* Just off a tie rounds to nearest. */
	CHECK_EQ_STR(fixed(1004), "1.00\xc2\xb5s");
	CHECK_EQ_STR(fixed(1006), "1.01\xc2\xb5s");
	CHECK_EQ_STR(fixed(12345001), "12.35ms");
	CHECK_EQ_STR(fixed(2344999999), "2.34s");
}

static void
test_zero_and_huge(void)
{
	CHECK_EQ_STR(fixed(0), "0.00ns");
	CHECK_EQ_STR(debug(0), "0ns");
	CHECK_EQ_STR(fixed(INT64_MAX), "9223372036.85s");
	CHECK_EQ_STR(debug(INT64_MAX), "9223372036.854775807s");
	CHECK_EQ_STR(fixed(INT64_MIN), "-9223372036.85s");
	CHECK_EQ_STR(debug(INT64_MIN), "-9223372036.854775808s");
	CHECK_EQ_STR(fixed(-1500), "-1.50\xc2\xb5s");
	CHECK_EQ_INT(summarize_duration((char [SUMMARIZE_DURATION_MAX]){ 0 },
	    INT64_MIN, 0), strlen("-9223372036.854775808s"));
}

static void
test_debug(void)
{
	/* {:?}: every significant decimal, no trailing zeros. */
	CHECK_EQ_STR(debug(63427511), "63.427511ms");
	CHECK_EQ_STR(debug(1126689109), "1.126689109s");
	CHECK_EQ_STR(debug(1010005339), "1.010005339s");
	CHECK_EQ_STR(debug(2000000000), "2s");
	CHECK_EQ_STR(debug(2500000000), "2.5s");
	CHECK_EQ_STR(debug(1000), "1\xc2\xb5s");
	CHECK_EQ_STR(debug(1500), "1.5\xc2\xb5s");
	CHECK_EQ_STR(debug(1000001), "1.000001ms");
	CHECK_EQ_STR(debug(120), "120ns");
}

/* ---- whole tables ---- */

static void
put_table(struct stream_writer *w, stream_id id, const char *name,
    const struct stream_column *cols, size_t ncols)
{
	struct stream_table t = { id, name, ncols, cols };

	CHECK(stream_write_table(w, &t) == 0);
}

static void
put_row(struct stream_writer *w, stream_id id, struct value *cells, size_t n)
{
	struct stream_row r = { id, n, cells };

	CHECK(stream_write_row(w, &r) == 0);
}

static const struct stream_column qcols[] = {
	{ "item", VAL_STR, "" }, { "self_ns", VAL_I64, "ns" },
	{ "self_pct", VAL_F64, "%" }, { "total_ns", VAL_I64, "ns" },
	{ "count", VAL_U64, "" }, { "cache_hits", VAL_U64, "" },
	{ "blocked_ns", VAL_I64, "ns" },
	{ "incremental_load_ns", VAL_I64, "ns" },
	{ "incremental_hashing_ns", VAL_I64, "ns" },
};

/*
 * Queries as the view writes them; `total` < 0 leaves the total table
 * out.  Blocked time is all zero and hashing negative: neither is shown.
 */
static void
write_queries(FILE *fp, int64_t total)
{
	static const struct stream_column tcols[] = {
		{ "profiles", VAL_U64, "" }, { "threads", VAL_U64, "" },
		{ "total_ns", VAL_I64, "ns" },
	};
	static const struct stream_column acols[] = {
		{ "item", VAL_STR, "" }, { "bytes", VAL_U64, "bytes" },
	};
	struct value q1[] = { STR("typeck"), I64(2500000), F64(12.3456),
	    I64(4000000), U64(3), U64(7), I64(0), I64(1500), I64(0) };
	struct value q2[] = { STR("ab\tc"), I64(1000), F64(0.5),
	    I64(1000), U64(1), U64(0), I64(0), I64(0), I64(-5) };
	struct value q3[] = { STR("x"), I64(0), F64(0.0), I64(0), U64(0),
	    U64(0), I64(0), I64(0), I64(0) };
	struct value t[] = { U64(1), U64(1), I64(total) };
	struct value a1[] = { STR("object_file"), U64(8232) };
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_end e = { 0 };

	REQUIRE(w != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	put_table(w, 1, "queries", qcols, 9);
	put_row(w, 1, q1, 9);
	put_row(w, 1, q2, 9);
	put_row(w, 1, q3, 9);
	if (total >= 0) {
		put_table(w, 2, "queries_total", tcols, 3);
		put_row(w, 2, t, 3);
	}
	put_table(w, 3, "queries_artifacts", acols, 2);
	put_row(w, 3, a1, 2);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
}

/* The stream in `in` through etlreport's text format, as a string. */
static char *
render_text(FILE *in)
{
	const struct render_format *f = render_find("text");
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	struct render *rd;
	FILE *out = tmpfile();
	char *text = NULL;
	long n;

	if (f == NULL || r == NULL || out == NULL ||
	    (rd = f->ops->open(out, "text", NULL)) == NULL)
		goto done;
	rewind(in);
	stream_reader_open_file(r, in, "in");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		CHECK(f->ops->record(rd, r, &rec) == 0);
	CHECK(f->ops->close(rd) == 0);
	if ((n = ftell(out)) < 0 || (text = calloc(1, (size_t)n + 1)) == NULL)
		goto done;
	rewind(out);
	if (fread(text, 1, (size_t)n, out) != (size_t)n)
		text[0] = '\0';
done:
	stream_reader_free(r);
	if (out != NULL)
		fclose(out);
	return text;
}

#define ARTIFACTS \
	"+-------------+---------------+\n" \
	"| Item        | Artifact Size |\n" \
	"+-------------+---------------+\n" \
	"| object_file | 8232 bytes    |\n" \
	"+-------------+---------------+\n"

static void
test_tables(void)
{
	FILE *in = tmpfile();
	char *text;

	REQUIRE(in != NULL);
	write_queries(in, 5000000);
	text = render_text(in);
	REQUIRE(text != NULL);
	CHECK_EQ_STR(text,
	    "+---------+-----------+-----------------+--------+------------+"
	    "------------+-----------------------+\n"
	    "| Item    | Self time | % of total time | Time   | Item count |"
	    " Cache hits | Incremental load time |\n"
	    "+---------+-----------+-----------------+--------+------------+"
	    "------------+-----------------------+\n"
	    "| typeck  | 2.50ms    | 50.000          | 4.00ms | 3          |"
	    " 7          | 1.50\xc2\xb5s                |\n"
	    "| ab\\tc   | 1.00\xc2\xb5s    | 0.020           | 1.00\xc2\xb5s |"
	    " 1          | 0          | 0.00ns                |\n"
	    "| x ....  | 0.00ns    | 0.000           | 0.00ns | 0          |"
	    " 0          | 0.00ns                |\n"
	    "+---------+-----------+-----------------+--------+------------+"
	    "------------+-----------------------+\n"
	    "Total cpu time: 5ms\n"
	    ARTIFACTS);
	free(text);
	fclose(in);
}

static void
test_total_zero(void)
{
	FILE *in = tmpfile();
	char *text;

	REQUIRE(in != NULL);
	write_queries(in, 0);
	text = render_text(in);
	REQUIRE(text != NULL);
	/* summarize divides by a zero total, and Rust prints the f64. */
	CHECK(strstr(text, "| typeck  | 2.50ms    | inf             |") !=
	    NULL);
	CHECK(strstr(text, "| x ....  | 0.00ns    | NaN             |") !=
	    NULL);
	CHECK(strstr(text, "\nTotal cpu time: 0ns\n+---") != NULL);
	free(text);
	fclose(in);
}

static void
test_no_total(void)
{
	FILE *in = tmpfile();
	char *text;

	REQUIRE(in != NULL);
	write_queries(in, -1);
	text = render_text(in);
	REQUIRE(text != NULL);
	/* Without its total the table shows the view's percentages. */
	CHECK(strstr(text, "| typeck  | 2.50ms    | 12.346          |") !=
	    NULL);
	CHECK(strstr(text, "| ab\\tc   | 1.00\xc2\xb5s    | 0.500           |")
	    != NULL);
	CHECK(strstr(text, "Total cpu time") == NULL);
	CHECK(strstr(text, "-+\n" ARTIFACTS) != NULL);
	free(text);
	fclose(in);
}

/*
 * The --diff tables as summarize diff draws them: its titles, every
 * column, items without dots, signed durations with all their decimals,
 * changes as {:+.2}% (inf for a new item, -100% for a gone one).
 */
static void
test_diff(void)
{
	static const struct stream_column dcols[] = {
		{ "item", VAL_STR, "" }, { "self_ns", VAL_I64, "ns" },
		{ "self_change_pct", VAL_F64, "%" },
		{ "total_ns", VAL_I64, "ns" },
		{ "total_change_pct", VAL_F64, "%" },
		{ "count", VAL_I64, "" }, { "cache_hits", VAL_I64, "" },
		{ "blocked_ns", VAL_I64, "ns" },
		{ "incremental_load_ns", VAL_I64, "ns" },
		{ "incremental_hashing_ns", VAL_I64, "ns" },
	};
	static const struct stream_column tcols[] = {
		{ "base_ns", VAL_I64, "ns" }, { "change_ns", VAL_I64, "ns" },
		{ "total_ns", VAL_I64, "ns" },
	};
	static const struct stream_column acols[] = {
		{ "item", VAL_STR, "" }, { "base_bytes", VAL_U64, "bytes" },
		{ "change_bytes", VAL_U64, "bytes" },
		{ "bytes", VAL_I64, "bytes" },
	};
	struct value d1[] = { STR("typeck"), I64(-2512345), F64(-25.126),
	    I64(1000), F64(0.0), I64(-3), I64(7), I64(0), I64(1500),
	    I64(0) };
	struct value d2[] = { STR("new_query"), I64(1200), F64(1.0 / 0.0),
	    I64(1200), F64(1.0 / 0.0), I64(1), I64(0), I64(0), I64(0),
	    I64(0) };
	struct value t[] = { I64(10000000), I64(7487655), I64(-2512345) };
	struct value a1[] = { STR("object_file"), U64(8232), U64(8000),
	    I64(-232) };
	FILE *in = tmpfile();
	struct stream_writer *w;
	struct stream_end e = { 0 };
	char *text;

	REQUIRE(in != NULL && (w = stream_writer_new(in, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	put_table(w, 1, "queries_diff", dcols, 10);
	put_row(w, 1, d1, 10);
	put_row(w, 1, d2, 10);
	put_table(w, 2, "queries_diff_total", tcols, 3);
	put_row(w, 2, t, 3);
	put_table(w, 3, "queries_diff_artifacts", acols, 4);
	put_row(w, 3, a1, 4);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	text = render_text(in);
	REQUIRE(text != NULL);
	CHECK_EQ_STR(text,
	    "+-----------+-------------+------------------+--------+"
	    "-------------+------------+------------+--------------+"
	    "-----------------------+--------------------------+\n"
	    "| Item      | Self Time   | Self Time Change | Time   |"
	    " Time Change | Item count | Cache hits | Blocked time |"
	    " Incremental load time | Incremental hashing time |\n"
	    "+-----------+-------------+------------------+--------+"
	    "-------------+------------+------------+--------------+"
	    "-----------------------+--------------------------+\n"
	    "| typeck    | -2.512345ms | -25.13%          | +1\xc2\xb5s   |"
	    " +0.00%      | -3         | +7         | +0ns         |"
	    " +1.5\xc2\xb5s                | +0ns                     |\n"
	    "| new_query | +1.2\xc2\xb5s      | +inf%            | +1.2\xc2\xb5s |"
	    " +inf%       | +1         | +0         | +0ns         |"
	    " +0ns                  | +0ns                     |\n"
	    "+-----------+-------------+------------------+--------+"
	    "-------------+------------+------------+--------------+"
	    "-----------------------+--------------------------+\n"
	    "Total cpu time: -2.512345ms\n"
	    "+-------------+----------------------+\n"
	    "| Item        | Artifact Size Change |\n"
	    "+-------------+----------------------+\n"
	    "| object_file | -232 bytes           |\n"
	    "+-------------+----------------------+\n");
	free(text);
	fclose(in);
}

int
main(void)
{
	RUN(test_units);
	RUN(test_ties);
	RUN(test_zero_and_huge);
	RUN(test_debug);
	RUN(test_tables);
	RUN(test_total_zero);
	RUN(test_no_total);
	RUN(test_diff);
	HARNESS_EXIT();
}
