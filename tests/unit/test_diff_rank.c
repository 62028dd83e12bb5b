/*
 * test_diff_rank.c - the score of --diff's rows and their order
 * (views/view_diff_rank.h): a change within noise scores 0 however large,
 * one beyond it scores what is left of it, the noise of a measured figure
 * comes from the table, that of samples from their count, and a cut row
 * never comes before a complete one.
 */
#include <math.h>
#include <stdint.h>

#include "views/view_diff_rank.h"
#include "harness.h"

#define S	1000000000.0	/* ns */
#define MS	1000000.0

static struct value cells[2][32];

/* A row of times in seconds; base or input < 0: the side lacks it. */
static struct diff_row
row(int i, const char *key, double base, double input, int cut)
{
	struct diff_row r = { NULL, NULL, key, strlen(key), 0, 0, 1, cut };

	if (base >= 0) {
		cells[0][i] = (struct value){ .type = VAL_NS,
		    .v.i = (int64_t)(base * S) };
		r.base = &cells[0][i];
	}
	if (input >= 0) {
		cells[1][i] = (struct value){ .type = VAL_NS,
		    .v.i = (int64_t)(input * S) };
		r.input = &cells[1][i];
	}
	r.delta = ((input >= 0 ? input : 0) - (base >= 0 ? base : 0)) * S;
	return r;
}

static const struct diff_weight wall = { 0, VAL_NS, "s", 0, 0, 0 };

/*
 * A crate 50% slower (+250 ms) comes before a large one whose +300 ms
 * is 3%, within the 2% spread of a build; a crate cut off by the end of
 * a trace comes last, its lower bound's +4.8 s notwithstanding.
 */
static void
test_beyond_noise_first(void)
{
	struct diff_row o[6];

	o[0] = row(0, "cut", 2, 6.8, 1);
	o[1] = row(1, "large", 10, 10.3, 0);
	o[2] = row(2, "slow", 0.5, 0.75, 0);
	o[3] = row(3, "same1", 1, 1, 0);
	o[4] = row(4, "same2", 2, 2, 0);
	o[5] = row(5, "same3", 3, 3, 0);
	REQUIRE(diff_rank(o, 6, &wall) == 0);
	CHECK_EQ_STR(o[0].key, "slow");
	CHECK_EQ_STR(o[1].key, "large");
	CHECK_EQ_STR(o[5].key, "cut");
	/* 0.25 s less twice sqrt((0.02 * 0.75 s)^2 + (15.625 ms)^2). */
	CHECK(fabs(o[0].score - (0.25 * S - 2 * sqrt(0.015 * 0.015 +
	    0.015625 * 0.015625) * S)) < 1);
	CHECK(o[1].score == 0);
	CHECK(o[5].score == 0);
}

/* A shorter crate: 60 ms to 70 ms is within a clock tick's noise. */
static void
test_grain(void)
{
	struct diff_row o[2];

	o[0] = row(0, "tiny", 0.060, 0.070, 0);
	o[1] = row(1, "faster", 0.5, 0.4, 0);
	REQUIRE(diff_rank(o, 2, &wall) == 0);
	CHECK(o[1].score == 0);
	CHECK_EQ_STR(o[0].key, "faster");
	CHECK(o[0].score < -50 * MS);
}

/*
 * Two noisy runs, their rows 10% apart either way: a row 15% slower is
 * within that noise, one 60% slower is not, though both are beyond the
 * least spread of 2%.
 */
static void
test_spread_of_the_table(void)
{
	static const double r[] = { -0.10, -0.08, -0.05, 0, 0.05, 0.08, 0.10,
	    0.12, -0.12 };
	struct diff_row o[11];
	char keys[11][8];
	size_t i;

	for (i = 0; i < 9; i++) {
		snprintf(keys[i], sizeof(keys[i]), "n%zu", i);
		o[i] = row((int)i, keys[i], 1, 1 + r[i], 0);
	}
	o[9] = row(9, "plus15", 1, 1.15, 0);
	o[10] = row(10, "plus60", 1, 1.6, 0);
	REQUIRE(diff_rank(o, 11, &wall) == 0);
	CHECK_EQ_STR(o[0].key, "plus60");
	/*
	 * The median change is 5%, the median deviation from it 10%: the
	 * spread 14.8%, and plus60 keeps 0.6 s less twice
	 * sqrt((0.148 * 1.6 s)^2 + (15.625 ms)^2).
	 */
	CHECK(fabs(o[0].score - (0.6 - 2 * sqrt(pow(1.4826 * 0.10 * 1.6, 2) +
	    0.015625 * 0.015625)) * S) < 1000);
	for (i = 1; i < 11; i++)
		CHECK(o[i].score == 0);
}

/*
 * Samples: the same share of a trace twice as long is no change; twice
 * the share is, less its binomial error; the rest's share fell by as
 * much, but its error is larger.
 */
static void
test_samples(void)
{
	static struct value c[2][3];
	struct diff_weight w = { 0, VAL_U64, "", 1, 10000, 20000 };
	struct diff_row o[3];
	const uint64_t a[] = { 100, 100, 9800 }, b[] = { 200, 400, 19400 };
	double sigma = 20000 * sqrt(0.01 * 0.99 / 10000 +
	    0.02 * 0.98 / 20000);
	double rest = 20000 * sqrt(0.98 * 0.02 / 10000 + 0.97 * 0.03 / 20000);
	int i;

	for (i = 0; i < 3; i++) {
		c[0][i] = (struct value){ .type = VAL_U64, .v.u = a[i] };
		c[1][i] = (struct value){ .type = VAL_U64, .v.u = b[i] };
		o[i] = (struct diff_row){ &c[0][i], &c[1][i], i == 0 ? "same" :
		    i == 1 ? "twice" : "rest", 4 + (i == 1), (double)b[i] -
		    (double)a[i], 0, 1, 0 };
	}
	REQUIRE(diff_rank(o, 3, &w) == 0);
	CHECK_EQ_STR(o[0].key, "twice");
	CHECK(fabs(o[0].score - (200 - 2 * sigma)) < 1e-6);
	CHECK_EQ_STR(o[1].key, "rest");
	CHECK(fabs(o[1].score - (-200 + 2 * rest)) < 1e-6);
	CHECK(o[2].score == 0);
}

/* A row of one side only is a change from 0; one without the weight has none. */
static void
test_one_side_and_unknown(void)
{
	struct diff_row o[3];

	o[0] = row(0, "unknown", 1, 5, 0);
	o[0].known = 0;
	o[0].delta = 0;
	o[1] = row(1, "removed", 2, -1, 0);
	o[2] = row(2, "same", 1, 1, 0);
	REQUIRE(diff_rank(o, 3, &wall) == 0);
	CHECK_EQ_STR(o[0].key, "removed");
	CHECK(o[0].score < -1.9 * S);
	CHECK(o[1].score == 0 && o[2].score == 0);
}

int
main(void)
{
	RUN(test_beyond_noise_first);
	RUN(test_grain);
	RUN(test_spread_of_the_table);
	RUN(test_samples);
	RUN(test_one_side_and_unknown);
	HARNESS_EXIT();
}
