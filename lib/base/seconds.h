/*
 * seconds.h - a time given on a command line ("2.5", "-0.001" seconds
 * from a trace's start, or a step in milliseconds) read exactly
 * into whole nanoseconds, and the one message about a time that is not
 * one, so that every tool and view that takes a time says the same:
 *
 *	etlagg: threads: --from: 'nan' is not a time in seconds
 *
 * A time is a decimal number: an optional sign, then digits with a
 * point among or around them; digits below a nanosecond are cut off.
 * Refused: NaN, infinities, hexadecimal, exponents ("1e3"), spaces, an
 * empty string, and a count of nanoseconds beyond what int64_t holds
 * (about 292 years).
 */
#ifndef SECONDS_H
#define SECONDS_H

#include <stddef.h>
#include <stdint.h>

/*
 * a + b for times in nanoseconds, held at the ends of int64 instead of
 * overflowing: a hostile stream's times are any int64.
 */
static inline int64_t
seconds_add_sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* What a time is: the end of the message about one that is not. */
#define SECONDS_WHAT		"a time in seconds"
#define SECONDS_WHAT_MS		"a positive time in milliseconds"

/*
 * The decimal number `s` as a whole count of 10^-scale units: scale 9
 * reads seconds as nanoseconds, 6 milliseconds as nanoseconds.
 * @return : 0, or -1 if s is not such a number or the count does not
 *	fit in *v (which is then left as it was).
 */
int seconds_scaled(const char *s, int scale, int64_t *v);

/* Seconds as nanoseconds (a negative time too).  @return : 0, or -1. */
int seconds_parse(const char *s, int64_t *ns);

/*
 * A positive number of milliseconds as nanoseconds, at most `max_ns`.
 * @return : 0, or -1.
 */
int seconds_parse_ms(const char *s, int64_t max_ns, int64_t *ns);

/*
 * The message about `arg` given to option `opt`, into buf: "--from:
 * 'nan' is not a time in seconds"; `what` is SECONDS_WHAT or
 * SECONDS_WHAT_MS.  A long arg is cut short.  @return : buf.
 */
const char *seconds_message(char *buf, size_t cap, const char *opt,
    const char *arg, const char *what);

/* Room for any seconds_message(). */
#define SECONDS_MESSAGE_MAX	256

#endif
