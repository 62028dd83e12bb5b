/*
 * test_noise.c - the error of a change between two runs and what is left
 * of it beyond (base/noise.h), against the formulas done by hand.
 */
#include <math.h>

#include "base/noise.h"
#include "harness.h"

#define NEAR(a, b)	(fabs((a) - (b)) < 1e-9 * (1 + fabs((double)(b))))

/*
 * The same share of a run twice as long is no change; twice the share
 * is, less its binomial error; a base without samples leaves the count.
 */
static void
test_samples(void)
{
	double d, s;

	s = noise_samples(100, 200, 10000, 20000, &d);
	CHECK(NEAR(d, 0));
	CHECK(NEAR(s, 20000 * sqrt(0.01 * 0.99 / 10000 + 0.01 * 0.99 /
	    20000)));
	s = noise_samples(100, 400, 10000, 20000, &d);
	CHECK(NEAR(d, 200));
	CHECK(NEAR(s, 20000 * sqrt(0.01 * 0.99 / 10000 + 0.02 * 0.98 /
	    20000)));
	s = noise_samples(0, 50, 0, 1000, &d);
	CHECK(NEAR(d, 50));
	CHECK(NEAR(s, 1000 * sqrt(0.05 * 0.95 / 1000)));
}

/*
 * The spread: 1.4826 times the median absolute deviation, from the
 * median, of the changes; never under the least, nor from under 3.
 */
static void
test_spread(void)
{
	double r[] = { -0.10, -0.08, -0.05, 0, 0.05, 0.08, 0.10, 0.12, -0.12,
	    0.15, 0.6 };
	double same[] = { 0, 0, 0, 0, 0.01, 3 };
	double two[] = { 1, -1 };

	/* Median 0.05; deviations' median 0.10, whatever the 0.6. */
	CHECK(NEAR(noise_spread(r, 11, 0.02), 1.4826 * 0.10));
	CHECK(NEAR(noise_spread(same, 6, 0.02), 0.02));
	CHECK(NEAR(noise_spread(two, 2, 0.02), 0.02));
}

static void
test_measured(void)
{
	CHECK(NEAR(noise_measured(0.02, 10, 0.015625),
	    sqrt(0.2 * 0.2 + 0.015625 * 0.015625)));
	CHECK(NEAR(noise_measured(0.02, 0, 64), 64));
}

/* What is beyond twice the error keeps its sign; within, 0. */
static void
test_beyond(void)
{
	CHECK(NEAR(noise_beyond(0.25, 0.02), 0.21));
	CHECK(NEAR(noise_beyond(-0.25, 0.02), -0.21));
	CHECK(noise_beyond(0.3, 0.2) == 0);
	CHECK(noise_beyond(-0.04, 0.02) == 0);
	CHECK(noise_beyond(0, 0) == 0);
}

int
main(void)
{
	RUN(test_samples);
	RUN(test_spread);
	RUN(test_measured);
	RUN(test_beyond);
	HARNESS_EXIT();
}
