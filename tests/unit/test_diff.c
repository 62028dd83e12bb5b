/*
 * test_diff.c - the order of --diff's rows (views/view_diff.h) on tables
 * made here: the wall time ranks crates, not their CPU; a change within
 * noise scores 0 however large, one beyond it what is left; a row cut
 * off by the end of either trace is marked and comes after every
 * complete row, whatever its lower bound.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "stream/stream.h"
#include "views/view_diff.h"
#include "harness.h"

#define S		1000000000.0
#define MAX_ROWS	16
#define MAX_COLS	32

/* A crate in one run: wall in seconds, CPU in ms, cut or not. */
struct crate {
	const char *name;
	double wall, cpu_ms;
	int cut;
};

static const struct stream_column crate_cols[] = {
	{ "crate", VAL_STR, "" }, { "wall", VAL_NS, "s" },
	{ "wall_cut", VAL_BOOL, "" }, { "cpu_ms", VAL_F64, "ms" },
};

/* The joined table: its columns' names and its rows' cells as text. */
struct joined {
	char cols[MAX_COLS][40];
	size_t ncols;
	char cells[MAX_ROWS][MAX_COLS][64];
	int n;
};

/* A stream of one crates table of `n` rows, in a scratch file. */
static FILE *
side(const struct crate *c, int n)
{
	FILE *fp = tmpfile();
	struct stream_writer *w = fp ? stream_writer_new(fp, 1) : NULL;
	struct stream_table t = { 1, "crates", 4, crate_cols };
	struct stream_end e = { 0 };
	struct value cells[4];
	struct stream_row r = { 1, 4, cells };
	int i;

	if (w == NULL)
		return NULL;
	CHECK(stream_write_header(w, "test") == 0);
	CHECK(stream_write_table(w, &t) == 0);
	for (i = 0; i < n; i++) {
		cells[0] = (struct value){ .type = VAL_STR,
		    .v.s = { c[i].name, strlen(c[i].name) } };
		cells[1] = (struct value){ .type = VAL_NS,
		    .v.i = (int64_t)(c[i].wall * S + 0.5) };
		cells[2] = (struct value){ .type = VAL_BOOL,
		    .v.u = (uint64_t)c[i].cut };
		cells[3] = (struct value){ .type = VAL_F64, .v.f = c[i].cpu_ms };
		CHECK(stream_write_row(w, &r) == 0);
	}
	CHECK(stream_write_end(w, &e) == 0);
	CHECK(stream_writer_close(w) == 0);
	rewind(fp);
	return fp;
}

/* Joins two sides as etlagg --diff does, into j. */
static int
join(const struct crate *a, int na, const struct crate *b, int nb,
    struct joined *j)
{
	FILE *fa = side(a, na), *fb = side(b, nb), *out = tmpfile();
	struct view_diff *d = view_diff_new();
	struct stream_writer *w = out ? stream_writer_new(out, 1) : NULL;
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	struct stream_end e = { 0 };
	size_t i;
	int ok;

	memset(j, 0, sizeof(*j));
	ok = fa && fb && d && w && r && view_diff_read(d, 0, fa) == 0 &&
	    view_diff_read(d, 1, fb) == 0 &&
	    stream_write_header(w, "test") == 0 &&
	    view_diff_write(d, w, 1) == 0 && stream_write_end(w, &e) == 0 &&
	    stream_writer_close(w) == 0;
	if (ok) {
		rewind(out);
		stream_reader_open_file(r, out, "out");
		while (stream_reader_next(r, &rec) == STREAM_OK) {
			if (rec.type == REC_TABLE)
				for (j->ncols = 0; j->ncols < MAX_COLS &&
				    j->ncols < rec.u.table.ncols; j->ncols++)
					snprintf(j->cols[j->ncols], 40, "%s",
					    rec.u.table.cols[j->ncols].name);
			if (rec.type != REC_ROW || j->n == MAX_ROWS)
				continue;
			for (i = 0; i < rec.u.row.ncells && i < MAX_COLS; i++)
				value_format(&rec.u.row.cells[i],
				    j->cells[j->n][i], 64);
			j->n++;
		}
	}
	stream_reader_free(r);
	view_diff_free(d);
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	if (out)
		fclose(out);
	return ok;
}

/* The cell of row `row` in the column named `col`, or "?". */
static const char *
cell(const struct joined *j, int row, const char *col)
{
	size_t i;

	for (i = 0; i < j->ncols; i++)
		if (strcmp(j->cols[i], col) == 0)
			return j->cells[row][i];
	return "?";
}

/*
 * A crate 50% slower (+250 ms) comes first: before a large one whose
 * +300 ms is 3%, within the 2% spread of a build, though its CPU grew
 * most; before a tiny one's +10 ms, under a clock tick; before a crate
 * cut off by the end of the new trace, whose lower bound grew 4.8 s,
 * and one cut in the base only.
 */
static void
test_crates(void)
{
	static const struct crate a[] = {
		{ "cut", 2, 2000, 1 }, { "large", 10, 10000, 0 },
		{ "slow", 0.5, 500, 0 }, { "same1", 1, 1000, 0 },
		{ "same2", 2, 2000, 0 }, { "same3", 3, 3000, 0 },
		{ "tiny", 0.06, 60, 0 }, { "basecut", 1, 1000, 1 },
	}, b[] = {
		{ "cut", 6.8, 6800, 1 }, { "large", 10.3, 13000, 0 },
		{ "slow", 0.75, 750, 0 }, { "same1", 1, 1000, 0 },
		{ "same2", 2, 2000, 0 }, { "same3", 3, 3000, 0 },
		{ "tiny", 0.07, 70, 0 }, { "basecut", 3, 3000, 0 },
	};
	static const char *const order[] = { "slow", "large", "tiny", "same1",
	    "same2", "same3", "cut", "basecut" };
	/*
	 * The complete rows changed by 3%, 50%, 0, 0, 0 and 16.7%: their
	 * median is 1.5%, the median deviation from it 1.5%, the spread
	 * 1.4826 times that; slow keeps 0.25 s less twice
	 * sqrt((spread * 0.75 s)^2 + (15.625 ms)^2).
	 */
	double k = 1.4826 * 0.015;
	double want = 0.25 - 2 * sqrt(k * 0.75 * k * 0.75 +
	    0.015625 * 0.015625);
	struct joined j;
	char text[64];
	int i;

	REQUIRE(join(a, 8, b, 8, &j));
	REQUIRE(j.n == 8);
	for (i = 0; i < 8; i++)
		CHECK_EQ_STR(cell(&j, i, "crate"), order[i]);
	CHECK_EQ_STR(j.cols[j.ncols - 3], "cut");
	CHECK_EQ_STR(j.cols[j.ncols - 2], "score");
	CHECK_EQ_STR(j.cols[j.ncols - 1], "within_noise");
	snprintf(text, sizeof(text), "%.9f", floor(want * S + 0.5) / S);
	CHECK_EQ_STR(cell(&j, 0, "score"), text);
	CHECK_EQ_STR(cell(&j, 0, "within_noise"), "false");
	CHECK_EQ_STR(cell(&j, 0, "cut"), "false");
	CHECK_EQ_STR(cell(&j, 1, "score"), "0.000000000");
	CHECK_EQ_STR(cell(&j, 1, "within_noise"), "true");
	for (i = 6; i < 8; i++) {
		CHECK_EQ_STR(cell(&j, i, "cut"), "true");
		CHECK_EQ_STR(cell(&j, i, "score"), "");
		CHECK_EQ_STR(cell(&j, i, "within_noise"), "");
	}
}

/* A trace against itself: every score 0, every row within noise. */
static void
test_self(void)
{
	static const struct crate a[] = {
		{ "x", 1, 900, 0 }, { "y", 0.1, 90, 0 }, { "z", 5, 4000, 1 },
	};
	struct joined j;
	int i;

	REQUIRE(join(a, 3, a, 3, &j));
	REQUIRE(j.n == 3);
	for (i = 0; i < 2; i++) {
		CHECK_EQ_STR(cell(&j, i, "score"), "0.000000000");
		CHECK_EQ_STR(cell(&j, i, "within_noise"), "true");
	}
	CHECK_EQ_STR(cell(&j, 2, "crate"), "z");
}

int
main(void)
{
	RUN(test_crates);
	RUN(test_self);
	HARNESS_EXIT();
}
