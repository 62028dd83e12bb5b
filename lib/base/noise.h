/*
 * noise.h - how much of a change between two runs is beyond their
 * noise, for the ranking of etlagg --diff (views/view_diff.h): the
 * standard error of the change of a count of samples (a random draw), of
 * a measured figure (by the spread that the other figures of the two
 * runs show), and the change left once twice its error is taken off.
 */
#ifndef NOISE_H
#define NOISE_H

#include <stddef.h>

/*
 * The change of a row's share of the samples, scaled to the second
 * run's total, into *change: b - a B / A (a, b its samples in the two
 * runs, A, B their totals; b when A is 0).
 * @return : its binomial standard error,
 *	B sqrt(pa (1 - pa) / A + pb (1 - pb) / B), pa = a / A, pb = b / B.
 */
double noise_samples(double a, double b, double A, double B, double *change);

/*
 * The relative spread of the changes r[0..n) of a measured figure
 * between two runs: 1.4826 times their median absolute deviation (a
 * standard deviation that the few rows that really changed do not
 * move), or `least` if that is larger or n is under 3.  Sorts r.
 */
double noise_spread(double *r, size_t n, double least);

/*
 * The standard error of the change of a measured figure of size m (the
 * larger of its two values): sqrt((spread m)^2 + grain^2), the grain
 * being the least error its unit has.
 */
double noise_measured(double spread, double m, double grain);

/*
 * The change beyond its noise: the change less twice its error sigma,
 * with its sign, and 0 within: sign(change) max(0, |change| - 2 sigma).
 */
double noise_beyond(double change, double sigma);

#endif
