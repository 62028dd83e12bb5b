/*
 * view_diff_rank.c - the score of a joined row's change, and the order
 * of --diff's rows by it (view_diff_rank.h).  PerfView's and WPA's diffs
 * sort by the change; a change within the noise of two runs says
 * nothing, so here the noise is taken off first: of a sample count by
 * its binomial error, of a measured figure by the spread that the
 * table's other rows show between the two runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view_diff_rank.h"

#define NOISE_Z		2.0	/* a change within 2 errors is noise */
#define SPREAD_MIN	0.02	/* the least relative spread of a figure */
#define MAD_SIGMA	1.4826	/* a median absolute deviation to a sigma */
#define TICK_MS		15.625	/* Windows' clock tick, its scheduler's grain */
#define GRAIN_BYTES	65536.0	/* VirtualAlloc's grain */

/*
 * Complete rows before cut ones; then by the size of the score, of the
 * change, and by key.
 */
static int
cmp_rows(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	double x = fabs(a->score), y = fabs(b->score);
	size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
	int c;

	if (a->cut != b->cut)
		return a->cut ? 1 : -1;
	if (x != y)
		return x > y ? -1 : 1;
	x = fabs(a->delta);
	y = fabs(b->delta);
	if (x != y)
		return x > y ? -1 : 1;
	if ((c = memcmp(a->key, b->key, n)) != 0)
		return c;
	return a->keylen < b->keylen ? -1 : a->keylen > b->keylen;
}

/* The smallest error of a measured figure, in its column's unit. */
static double
grain(const struct diff_weight *w)
{
	if (w->type == VAL_NS || strcmp(w->unit, "ns") == 0)
		return TICK_MS * 1e6;
	if (strcmp(w->unit, "ms") == 0)
		return TICK_MS;
	if (strcmp(w->unit, "s") == 0)
		return TICK_MS / 1e3;
	if (strcmp(w->unit, "B") == 0)
		return GRAIN_BYTES;
	return 1;
}

static int
cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* Sorts v. */
static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The table's relative spread: the median absolute deviation of the
 * relative changes of the rows both sides give complete, as a standard
 * deviation, and SPREAD_MIN at least (fewer than 3 such rows say
 * nothing of it).  @return : it, or -1 if out of memory.
 */
static double
spread(const struct diff_row *o, size_t n, int col)
{
	double *r = calloc(n ? n : 1, sizeof(*r)), mid, k = SPREAD_MIN;
	size_t i, m = 0;

	if (r == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		double a;

		if (o[i].base == NULL || o[i].input == NULL || o[i].cut ||
		    !o[i].known || (a = value_number(&o[i].base[col])) <= 0)
			continue;
		r[m++] = o[i].delta / a;
	}
	if (m >= 3) {
		mid = median(r, m);
		for (i = 0; i < m; i++)
			r[i] = fabs(r[i] - mid);
		if (MAD_SIGMA * median(r, m) > k)
			k = MAD_SIGMA * median(r, m);
	}
	free(r);
	return k;
}

/* |change| less NOISE_Z errors, at least 0, with the change's sign. */
static double
beyond(double change, double sigma)
{
	double m = fabs(change) - NOISE_Z * sigma;

	return m <= 0 ? 0 : change < 0 ? -m : m;
}

/* A sample count's change: its share's, less its binomial error. */
static double
samples_score(double a, double b, double A, double B)
{
	double pa = A > 0 ? a / A : 0, pb = B > 0 ? b / B : 0;

	return beyond(b - (A > 0 ? a * B / A : 0), B *
	    sqrt((A > 0 ? pa * (1 - pa) / A : 0) +
	    (B > 0 ? pb * (1 - pb) / B : 0)));
}

int
diff_rank(struct diff_row *o, size_t n, const struct diff_weight *w)
{
	double k = 0, f = grain(w);
	size_t i;

	if (w->col >= 0 && !w->samples && (k = spread(o, n, w->col)) < 0)
		return -1;
	for (i = 0; w->col >= 0 && i < n; i++) {
		double a = o[i].base ? value_number(&o[i].base[w->col]) : 0;
		double b = o[i].input ? value_number(&o[i].input[w->col]) : 0;
		double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

		o[i].score = 0;
		if (o[i].cut || !o[i].known)
			continue;
		if (w->samples)
			o[i].score = samples_score(a, b, w->base_total,
			    w->input_total);
		else
			o[i].score = beyond(o[i].delta,
			    sqrt(k * m * k * m + f * f));
	}
	qsort(o, n, sizeof(*o), cmp_rows);
	return 0;
}
