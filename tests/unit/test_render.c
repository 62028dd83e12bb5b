/*
 * test_render.c - the folded, svg, speedscope and html formats on tables
 * made here: any table with a stack column and an integer weight is
 * drawn, equal stacks add up, markup and JSON are escaped, and the tree
 * timeline keeps to --max-depth.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/markup.h"
#include "render/render.h"
#include "report/formats.h"
#include "stream/stream.h"
#include "harness.h"

#define STR(lit)	{ .type = VAL_STR, .v.s = { (lit), sizeof(lit) - 1 } }
#define U64(n)	{ .type = VAL_U64, .v.u = (n) }
#define I64(n)	{ .type = VAL_I64, .v.i = (n) }
#define NONE	{ .type = VAL_NULL }

/*
 * A table like querystacks' (the weight is its last integer column, not
 * its first), one without a stack column, and a stack table with an i64
 * weight whose negative row is left out.
 */
static void
write_stack_tables(FILE *fp)
{
	static const struct stream_column qcols[] = {
		{ "stack", VAL_STR, "" }, { "count", VAL_U64, "" },
		{ "self_ns", VAL_U64, "ns" }, { "share", VAL_F64, "%" },
	};
	static const struct stream_column other[] = {
		{ "name", VAL_STR, "" }, { "n", VAL_U64, "" },
	};
	static const struct stream_column icols[] = {
		{ "weight", VAL_I64, "" }, { "stack", VAL_STR, "" },
	};
	struct value q1[] = { STR("main;parse"), U64(7), U64(20), NONE };
	struct value q2[] = { STR("main;<&>;\xff"), U64(1), U64(10), NONE };
	struct value q3[] = { STR("main"), U64(9), U64(0), NONE };
	struct value o1[] = { STR("main;parse"), U64(1000) };
	struct value i1[] = { I64(10), STR("main;parse") };
	struct value i2[] = { I64(-5), STR("main;bad") };
	struct stream_table t = { 1, "querystacks", 4, qcols };
	struct stream_row r = { 1, 4, q1 };
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_end e = { 0 };

	REQUIRE(w != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_row(w, &r) == 0);
	r.cells = q2;
	CHECK(stream_write_row(w, &r) == 0);
	r.cells = q3;
	CHECK(stream_write_row(w, &r) == 0);
	t = (struct stream_table){ 2, "other", 2, other };
	r = (struct stream_row){ 2, 2, o1 };
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_row(w, &r) == 0);
	t = (struct stream_table){ 3, "cpu", 2, icols };
	r = (struct stream_row){ 3, 2, i1 };
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_row(w, &r) == 0);
	r.cells = i2;
	CHECK(stream_write_row(w, &r) == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
}

/* The rest of fp as a malloc'd NUL-terminated string. */
static char *
slurp(FILE *fp)
{
	size_t len = 0, cap = 4096, n;
	char *text = malloc(cap), *p;

	while (text != NULL && (n = fread(text + len, 1, cap - len - 1,
	    fp)) > 0) {
		len += n;
		if (cap - len < 2) {
			if ((p = realloc(text, cap * 2)) == NULL) {
				free(text);
				return NULL;
			}
			text = p;
			cap *= 2;
		}
	}
	if (text != NULL)
		text[len] = '\0';
	return text;
}

/* Renders the stream in `in` as `format`; the output in a malloc'd string. */
static char *
render(const char *format, FILE *in, const struct render_options *opt,
    int *rc)
{
	const struct render_format *f = render_find(format);
	struct stream_reader *r;
	struct stream_record rec;
	struct render *rd;
	FILE *out = tmpfile();
	char *text;

	*rc = -2;
	if (f == NULL || out == NULL ||
	    (r = stream_reader_new(f->ops->reader_flags)) == NULL)
		return NULL;
	if ((rd = f->ops->open(out, format, opt)) == NULL) {
		stream_reader_free(r);
		return NULL;
	}
	rewind(in);
	stream_reader_open_file(r, in, "in");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		CHECK(f->ops->record(rd, r, &rec) == 0);
	*rc = f->ops->close(rd);
	stream_reader_free(r);
	rewind(out);
	text = slurp(out);
	fclose(out);
	return text;
}

static void
test_folded(void)
{
	struct render_options opt = { 0 };
	FILE *in = tmpfile();
	char *text;
	int rc;

	REQUIRE(in != NULL);
	write_stack_tables(in);
	text = render("folded", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(rc, 0);
	/* Byte order; main of weight 0 kept; the two parse rows add. */
	CHECK_EQ_STR(text, "main 0\nmain;<&>;\xff 10\nmain;parse 30\n");
	free(text);
	fclose(in);
}

static void
test_svg(void)
{
	struct render_options opt = { .title = "Queries & <stacks>" };
	FILE *in = tmpfile();
	char *text;
	int rc;

	REQUIRE(in != NULL);
	write_stack_tables(in);
	text = render("svg", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK(strncmp(text, "<?xml", 5) == 0);
	CHECK(strstr(text, ">Queries &amp; &lt;stacks&gt;</text>") != NULL);
	CHECK(strstr(text, "<title>all (40 ns, 100.00%)</title>") != NULL);
	CHECK(strstr(text, "<title>main (40 ns, 100.00%)</title>") != NULL);
	CHECK(strstr(text, "<title>parse (30 ns, 75.00%)</title>") != NULL);
	CHECK(strstr(text, "<title>&lt;&amp;&gt; (10 ns, 25.00%)</title>") !=
	    NULL);
	/* Invalid UTF-8 becomes U+FFFD. */
	CHECK(strstr(text, "<title>\xef\xbf\xbd (10 ns") != NULL);
	CHECK(strstr(text, "bad") == NULL);
	CHECK(strstr(text, "id=\"search\"") != NULL);
	CHECK(strstr(text, "<script") != NULL);
	CHECK(strstr(text, "</svg>\n") != NULL);
	/* The subtitle's total in a readable unit; it opens at the root. */
	CHECK(strstr(text, "<text id=\"subtitle\" x=\"600\" y=\"44\" "
	    "text-anchor=\"middle\">40 ns in all, 3 stacks;") != NULL);
	CHECK(strstr(text, "window.scrollTo(0,") != NULL);
	free(text);
	/* Without --title, the title says what the widths count. */
	opt.title = NULL;
	text = render("svg", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK(strstr(text, ">Time by stack</text>") != NULL);
	free(text);
	fclose(in);
}

static void
test_nothing(void)
{
	struct render_options opt = { 0 };
	FILE *in = tmpfile();
	struct stream_writer *w;
	struct stream_end e = { 0 };
	char *text;
	int rc;

	REQUIRE(in != NULL && (w = stream_writer_new(in, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	free(render("folded", in, &opt, &rc));
	CHECK_EQ_INT(rc, 1);
	free(render("svg", in, &opt, &rc));
	CHECK_EQ_INT(rc, 1);
	text = render("html", in, &opt, &rc);
	CHECK_EQ_INT(rc, 1);
	CHECK(text != NULL && text[0] == '\0');
	free(text);
	fclose(in);
}

/* A stack table without rows: an empty output, not an error. */
static void
test_empty_table(void)
{
	static const struct stream_column cols[] = {
		{ "stack", VAL_STR, "" }, { "samples", VAL_U64, "" },
	};
	struct stream_table t = { 1, "cpu", 2, cols };
	struct render_options opt = { 0 };
	FILE *in = tmpfile();
	struct stream_writer *w;
	struct stream_end e = { 0 };
	char *text;
	int rc;

	REQUIRE(in != NULL && (w = stream_writer_new(in, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	text = render("folded", in, &opt, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(text != NULL && text[0] == '\0');
	free(text);
	text = render("svg", in, &opt, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(text != NULL && strstr(text, "<g class") == NULL &&
	    strstr(text, ">0 samples in all, 0 stacks") != NULL &&
	    strstr(text, ">CPU samples by call stack</text>") != NULL);
	free(text);
	fclose(in);
}

/*
 * speedscope: the querystacks table is one profile named after it, the
 * cpu table (rooted at a process) a profile per root, named with its
 * table's name since there are two tables; the frames shared, the
 * weight-0 stack and the negative row left out, the invalid byte made
 * U+FFFD.
 */
static void
test_speedscope(void)
{
	struct render_options opt = { 0 };
	FILE *in = tmpfile();
	char *text;
	int rc;

	REQUIRE(in != NULL);
	write_stack_tables(in);
	text = render("speedscope", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_STR(text,
	    "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	    "\"exporter\":\"etlreport\",\"name\":\"querystacks + cpu\","
	    "\"activeProfileIndex\":0,\n"
	    "\"shared\":{\"frames\":[\n"
	    "{\"name\":\"main\"},\n{\"name\":\"<&>\"},\n"
	    "{\"name\":\"\xef\xbf\xbd\"},\n{\"name\":\"parse\"}]},\n"
	    "\"profiles\":[\n"
	    "{\"type\":\"sampled\",\"name\":\"querystacks\","
	    "\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":30,\n"
	    "\"samples\":[\n[0,1,2],\n[0,3]],\n\"weights\":[10,20]},\n"
	    "{\"type\":\"sampled\",\"name\":\"cpu: main\",\"unit\":\"none\","
	    "\"startValue\":0,\"endValue\":10,\n"
	    "\"samples\":[\n[3]],\n\"weights\":[10]}]}\n");
	free(text);
	opt.title = "a \"b\"";
	text = render("speedscope", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK(strstr(text, "\"name\":\"a \\\"b\\\"\",") != NULL);
	free(text);
	fclose(in);
}

/*
 * Names from a trace are untrusted: quotes, backslashes and control
 * characters are escaped, valid UTF-8 kept, and each byte of an invalid
 * sequence (overlong, surrogate, cut short) is U+FFFD.  Profiles come
 * heaviest first, each root's stacks without the root; the frames in
 * byte order of the stacks.
 */
static void
test_speedscope_escapes(void)
{
	static const struct stream_column cols[] = {
		{ "stack", VAL_STR, "" }, { "ns", VAL_U64, "ns" },
	};
	struct value r1[] = { STR("we\"ird (1);a\\b;c\x01\n\t\x7f"), U64(5) };
	struct value r2[] = { STR("\xc3\xa9t\xc3\xa9 (2);\xf0\x9f\x94\xa5;"
	    "\xc0\xaf;\xed\xa0\x80;x\xe2\x82"), U64(7) };
	struct stream_table t = { 1, "threadtime", 2, cols };
	struct stream_row r = { 1, 2, r1 };
	struct render_options opt = { 0 };
	struct stream_end e = { 0 };
	struct stream_writer *w;
	FILE *in = tmpfile();
	char *text;
	int rc;

	REQUIRE(in != NULL && (w = stream_writer_new(in, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_row(w, &r) == 0);
	r.cells = r2;
	CHECK(stream_write_row(w, &r) == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	text = render("speedscope", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK(strstr(text, "{\"name\":\"a\\\\b\"},\n"
	    "{\"name\":\"c\\u0001\\n\\t\x7f\"}") != NULL);
	CHECK(strstr(text, "{\"name\":\"\xf0\x9f\x94\xa5\"},\n"
	    "{\"name\":\"\xef\xbf\xbd\xef\xbf\xbd\"},\n"
	    "{\"name\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"},\n"
	    "{\"name\":\"x\xef\xbf\xbd\xef\xbf\xbd\"}") != NULL);
	/* The heavier first; a root's name escaped too. */
	CHECK(strstr(text, "\"name\":\"\xc3\xa9t\xc3\xa9 (2)\","
	    "\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":7,\n"
	    "\"samples\":[\n[2,3,4,5]],\n\"weights\":[7]},\n"
	    "{\"type\":\"sampled\",\"name\":\"we\\\"ird (1)\",") != NULL);
	CHECK(strstr(text, "\"samples\":[\n[0,1]],\n\"weights\":[5]}]}\n") !=
	    NULL);
	free(text);
	fclose(in);
}

/*
 * A table of etlagg --diff: each root a profile of the input's weights
 * and one of the base's; a root the input lacks has only the base's.
 * An input with nothing to draw says so; a stack table that weighs
 * nothing gives one empty profile, for the app to open.
 */
static void
test_speedscope_diff(void)
{
	static const struct stream_column cols[] = {
		{ "stack", VAL_STR, "" }, { "samples_base", VAL_U64, "" },
		{ "samples", VAL_U64, "" }, { "samples_delta", VAL_I64, "" },
		{ "samples_delta_pct", VAL_F64, "%" },
	};
	struct value r1[] = { STR("a.exe;f"), U64(3), U64(8), I64(5), NONE };
	struct value r2[] = { STR("b.exe;g"), U64(4), NONE, I64(-4), NONE };
	struct stream_table t = { 1, "cpu", 5, cols };
	struct stream_row r = { 1, 5, r1 };
	struct render_options opt = { 0 };
	struct stream_end e = { 0 };
	struct stream_writer *w;
	FILE *in = tmpfile(), *empty = tmpfile();
	char *text;
	int rc;

	REQUIRE(in != NULL && (w = stream_writer_new(in, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_row(w, &r) == 0);
	r.cells = r2;
	CHECK(stream_write_row(w, &r) == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	text = render("speedscope", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK(strstr(text, "\"name\":\"a.exe\",\"unit\":\"none\","
	    "\"startValue\":0,\"endValue\":8,") != NULL);
	CHECK(strstr(text, "\"name\":\"base: a.exe\",\"unit\":\"none\","
	    "\"startValue\":0,\"endValue\":3,") != NULL);
	CHECK(strstr(text, "\"name\":\"base: b.exe\",\"unit\":\"none\","
	    "\"startValue\":0,\"endValue\":4,") != NULL);
	CHECK(strstr(text, "\"name\":\"b.exe\"") == NULL);
	free(text);
	fclose(in);

	REQUIRE(empty != NULL && (w = stream_writer_new(empty, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	free(render("speedscope", empty, &opt, &rc));
	CHECK_EQ_INT(rc, 1);
	fclose(empty);
	REQUIRE((empty = tmpfile()) != NULL &&
	    (w = stream_writer_new(empty, 1)) != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	text = render("speedscope", empty, &opt, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(text != NULL && strstr(text, "\"profiles\":[\n"
	    "{\"type\":\"sampled\",\"name\":\"cpu\",\"unit\":\"none\","
	    "\"startValue\":0,\"endValue\":0,\"samples\":[],\"weights\":[]}]}")
	    != NULL);
	free(text);
	fclose(empty);
}

/* cargo.exe, a rustc under it and a link.exe under that. */
static void
write_tree(FILE *fp)
{
	static const struct stream_column cols[] = {
		{ "tree", VAL_STR, "" }, { "depth", VAL_U64, "" },
		{ "pid", VAL_U64, "" }, { "ppid", VAL_U64, "" },
		{ "image", VAL_STR, "" }, { "start", VAL_NS, "s" },
		{ "end", VAL_NS, "s" }, { "exit_status", VAL_I64, "" },
		{ "cmdline", VAL_STR, "" },
	};
	struct value c1[] = { STR("cargo.exe"), U64(0), U64(10), U64(1),
	    STR("cargo.exe"), NONE, NONE, NONE, STR("cargo build") };
	struct value c2[] = { STR("  rustc.exe"), U64(1), U64(11), U64(10),
	    STR("rustc.exe"), { .type = VAL_NS, .v.i = 1000000000 },
	    { .type = VAL_NS, .v.i = 3000000000 }, I64(1),
	    STR("rustc --crate-name \"a<b>\"") };
	struct value c3[] = { STR("    link.exe"), U64(2), U64(12), U64(11),
	    STR("link.exe"), { .type = VAL_NS, .v.i = 2000000000 },
	    { .type = VAL_NS, .v.i = 2500000000 }, I64(0), STR("link") };
	struct stream_table t = { 1, "tree", 9, cols };
	struct stream_row r = { 1, 9, c1 };
	struct stream_writer *w = stream_writer_new(fp, 1);
	struct stream_end e = { 0 };

	REQUIRE(w != NULL);
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_table(w, &t) == 0);
	CHECK(stream_write_row(w, &r) == 0);
	r.cells = c2;
	CHECK(stream_write_row(w, &r) == 0);
	r.cells = c3;
	CHECK(stream_write_row(w, &r) == 0);
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
}

static int
count(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)) != NULL; text++)
		n++;
	return n;
}

static void
test_html_tree(void)
{
	struct render_options opt = { 0 };
	FILE *in = tmpfile();
	char *text;
	int rc;

	REQUIRE(in != NULL);
	write_tree(in);
	text = render("html", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(rc, 0);
	CHECK(strncmp(text, "<!DOCTYPE html>", 15) == 0);
	CHECK_EQ_INT(count(text, "<div class=\"row\""), 3);
	CHECK(strstr(text, "rustc --crate-name &quot;a&lt;b&gt;&quot;") !=
	    NULL);
	/* From the trace start (0) to the last end (3 s): 1/3 to 3/3. */
	CHECK(strstr(text, "left:33.3333%;width:66.6667%") != NULL);
	CHECK(strstr(text, "class=\"bar before after\"") != NULL);
	CHECK(strstr(text, "class=\"bar failed\"") != NULL);
	free(text);
	opt.max_depth = 2;
	text = render("html", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(count(text, "<div class=\"row\""), 2);
	CHECK(strstr(text, "link.exe (12)") == NULL);
	free(text);
	/* link.exe lived 1/6 of the time: 20% leaves it out, not rustc. */
	opt.max_depth = 0;
	opt.min_percent = 20;
	text = render("html", in, &opt, &rc);
	REQUIRE(text != NULL);
	CHECK_EQ_INT(count(text, "<div class=\"row\""), 2);
	free(text);
	fclose(in);
}

static void
test_markup(void)
{
	FILE *fp = tmpfile();
	char *text;

	REQUIRE(fp != NULL);
	markup_text(fp, "a\"b'c\x01\td", 8);
	fputc('|', fp);
	markup_text_cut(fp, "abcdef", 6, 4);
	fputc('|', fp);
	markup_text_cut(fp, "abcd", 4, 4);
	fputc('|', fp);
	markup_text_cut(fp, "\xc3\xa9\xc3\xa9\xc3\xa9", 6, 3);
	fputc('|', fp);
	markup_text(fp, "\xed\xa0\x80", 3);	/* a surrogate */
	rewind(fp);
	text = slurp(fp);
	REQUIRE(text != NULL);
	CHECK_EQ_STR(text, "a&quot;b&#39;c\td|ab..|abcd|\xc3\xa9\xc3\xa9"
	    "\xc3\xa9|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(text);
	fclose(fp);
}

/*
 * A frame keeps its colour from one version to the next: the colour is
 * made from markup_hash(), never from the hash tables' hash.  Values of
 * 2026-11-25; a name of over 32 bytes too (where the tables' hash once
 * changed).
 */
static void
test_colors_stay(void)
{
	const char *shortname = "rustc.exe!rustc_driver::main";
	const char *longname =
	    "ntoskrnl.exe!KiSwapContext_but_a_long_name_over_32_bytes";
	char out[24];

	markup_color(shortname, strlen(shortname), out);
	CHECK_EQ_STR(out, "rgb(242,9,26)");
	markup_color(longname, strlen(longname), out);
	CHECK_EQ_STR(out, "rgb(217,64,53)");
}

int
main(void)
{
	RUN(test_folded);
	RUN(test_svg);
	RUN(test_nothing);
	RUN(test_empty_table);
	RUN(test_speedscope);
	RUN(test_speedscope_escapes);
	RUN(test_speedscope_diff);
	RUN(test_html_tree);
	RUN(test_markup);
	RUN(test_colors_stay);
	HARNESS_EXIT();
}
