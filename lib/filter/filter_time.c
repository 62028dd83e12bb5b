/*
 * filter_time.c - see filter_time.h.
 */
#include <stdint.h>

#include "filter_time.h"

#define TICKS_PER_SEC	10000000LL	/* FILETIME: 100 ns ticks */
#define DAYS_1601_TO_1970 134774LL

/* Reads up to `max` digits as a number; *end gets what follows. */
static int64_t
digits(const char *s, int max, const char **end)
{
	int64_t n = 0;
	int i;

	for (i = 0; i < max && s[i] >= '0' && s[i] <= '9'; i++)
		n = n * 10 + (s[i] - '0');
	*end = s + i;
	return n;
}

/* Days from 1970-01-01 to y-m-d, after Howard Hinnant's days_from_civil(). */
static int64_t
days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
days_in_month(int64_t y, int64_t m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* Expects the character c at *p and steps over it. */
static int
expect(const char **p, char c)
{
	if (**p != c)
		return -1;
	(*p)++;
	return 0;
}

/*
 * ISO 8601 in UTC: "2020-07-29T00:07:00.62Z"; the seconds, the fraction
 * and the Z are optional, and so is the whole time of day.
 */
int
filter_parse_utc(const char *s, uint64_t *ticks)
{
	const char *p = s, *q;
	int64_t y, mo, d, h = 0, mi = 0, sec = 0, frac = 0, days;
	int scale;

	y = digits(p, 4, &q);
	if (q - p != 4 || expect(&q, '-') != 0)
		return -1;
	mo = digits(p = q, 2, &q);
	if (q - p != 2 || expect(&q, '-') != 0)
		return -1;
	d = digits(p = q, 2, &q);
	if (q - p != 2 || y < 1601 || mo < 1 || mo > 12 || d < 1 ||
	    d > days_in_month(y, mo))
		return -1;
	if (*q == 'T' || *q == ' ') {
		h = digits(p = q + 1, 2, &q);
		if (q - p != 2 || expect(&q, ':') != 0)
			return -1;
		mi = digits(p = q, 2, &q);
		if (q - p != 2)
			return -1;
		if (*q == ':') {
			sec = digits(p = q + 1, 2, &q);
			if (q - p != 2)
				return -1;
		}
		if (*q == '.') {
			frac = digits(p = q + 1, 7, &q);
			for (scale = (int)(q - p); scale < 7; scale++)
				frac *= 10;
			while (*q >= '0' && *q <= '9')
				q++;
		}
		if (h > 23 || mi > 59 || sec > 60)
			return -1;
	}
	if (*q == 'Z')
		q++;
	if (*q != '\0')
		return -1;
	days = days_from_civil(y, mo, d) + DAYS_1601_TO_1970;
	*ticks = (uint64_t)((days * 86400 + h * 3600 + mi * 60 + sec) *
	    TICKS_PER_SEC + frac);
	return 0;
}

/* FILETIME `ticks` as ns from `start`, clamped to what fits. */
int64_t
filter_ticks_to_ns(uint64_t ticks, uint64_t start)
{
	int64_t d;

	if (ticks >= start)
		d = ticks - start > (uint64_t)(INT64_MAX / 100) ?
		    INT64_MAX / 100 : (int64_t)(ticks - start);
	else
		d = start - ticks > (uint64_t)(INT64_MAX / 100) ?
		    -(INT64_MAX / 100) : -(int64_t)(start - ticks);
	return d * 100;
}
