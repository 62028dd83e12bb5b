/*
 * noise.c - the error of a change between two runs, and what is left of
 * the change beyond it (noise.h).
 */
#include <math.h>
#include <stdlib.h>

#include "noise.h"

#define NOISE_Z		2.0	/* a change within 2 errors is noise */
#define MAD_SIGMA	1.4826	/* a normal's sigma over its MAD */

double
noise_samples(double a, double b, double A, double B, double *change)
{
	double pa = A > 0 ? a / A : 0, pb = B > 0 ? b / B : 0;

	*change = b - (A > 0 ? a * B / A : 0);
	return B * sqrt((A > 0 ? pa * (1 - pa) / A : 0) +
	    (B > 0 ? pb * (1 - pb) / B : 0));
}

static int
cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The median of v[0..n), n > 0; sorts v. */
static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
noise_spread(double *r, size_t n, double least)
{
	double mid, k;
	size_t i;

	if (n < 3)
		return least;
	mid = median(r, n);
	for (i = 0; i < n; i++)
		r[i] = fabs(r[i] - mid);
	k = MAD_SIGMA * median(r, n);
	return k > least ? k : least;
}

double
noise_measured(double spread, double m, double grain)
{
	return sqrt(spread * m * spread * m + grain * grain);
}

double
noise_beyond(double change, double sigma)
{
	double m = fabs(change) - NOISE_Z * sigma;

	return m <= 0 ? 0 : change < 0 ? -m : m;
}
