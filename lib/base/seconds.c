/*
 * seconds.c - see seconds.h.
 *
 * The digits are read as integers, not through strtod(): a double holds
 * 16 digits, fewer than the 19 of a time in nanoseconds, and strtod()
 * takes "nan", "inf", hexadecimal and exponents, none of which the
 * manuals call a time.
 */
#include <stdio.h>
#include <string.h>

#include "seconds.h"

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * The digits of `s` into *mant while they fit (the rest shift *exp
 * instead, or are cut off after the point), from *p on; *ndigits counts
 * every digit.
 */
static void
read_digits(const char **p, int after_point, uint64_t *mant, int64_t *exp,
    int64_t *ndigits)
{
	for (; is_digit(**p); (*p)++, (*ndigits)++) {
		unsigned d = (unsigned)(**p - '0');

		if (*mant <= (UINT64_MAX - 9) / 10) {
			*mant = *mant * 10 + d;
			*exp -= after_point;
		} else if (!after_point)
			(*exp)++;
		/* Else a digit far below the unit: cut off. */
	}
}

int
seconds_scaled(const char *s, int scale, int64_t *v)
{
	const char *p = s + (*s == '-' || *s == '+');
	uint64_t mant = 0, limit = *s == '-' ? (uint64_t)INT64_MAX + 1 :
	    (uint64_t)INT64_MAX;
	int64_t exp = scale, ndigits = 0;

	read_digits(&p, 0, &mant, &exp, &ndigits);
	if (*p == '.') {
		p++;
		read_digits(&p, 1, &mant, &exp, &ndigits);
	}
	if (ndigits == 0 || *p != '\0')
		return -1;
	for (; mant != 0 && exp > 0; exp--) {
		if (mant > limit / 10)
			return -1;
		mant *= 10;
	}
	for (; mant != 0 && exp < 0; exp++)
		mant /= 10;
	if (mant > limit)
		return -1;
	/* -2^63 fits, but not its magnitude as an int64_t. */
	*v = *s != '-' ? (int64_t)mant : mant == 0 ? 0 :
	    -(int64_t)(mant - 1) - 1;
	return 0;
}

int
seconds_parse(const char *s, int64_t *ns)
{
	return seconds_scaled(s, 9, ns);
}

int
seconds_parse_ms(const char *s, int64_t max_ns, int64_t *ns)
{
	int64_t v;

	if (seconds_scaled(s, 6, &v) != 0 || v <= 0 || v > max_ns)
		return -1;
	*ns = v;
	return 0;
}

const char *
seconds_message(char *buf, size_t cap, const char *opt, const char *arg,
    const char *what)
{
	int len = (int)strlen(arg);

	/* Room for the rest of the message: a long argument is cut. */
	if (len > 64)
		len = 64;
	snprintf(buf, cap, "%s: '%.*s%s' is not %s", opt, len, arg,
	    (int)strlen(arg) > len ? "..." : "", what);
	return buf;
}
