/*
 * test_seconds.c - times on a command line read exactly into whole
 * nanoseconds, what is refused (NaN, infinities, hexadecimal,
 * exponents, beyond int64_t), and the one message about a time that is
 * not one.
 */
#include <stdint.h>

#include "base/seconds.h"
#include "harness.h"

/* seconds_parse() of s: its ns, or the sentinel when refused. */
#define REFUSED INT64_C(0x7abcdef012345678)

static int64_t
ns_of(const char *s)
{
	int64_t ns = REFUSED;

	if (seconds_parse(s, &ns) != 0)
		CHECK_EQ_INT(ns, REFUSED);	/* left as it was */
	return ns;
}

static void
test_decimals(void)
{
	CHECK_EQ_INT(ns_of("0"), 0);
	CHECK_EQ_INT(ns_of("-0"), 0);
	CHECK_EQ_INT(ns_of("12"), INT64_C(12000000000));
	CHECK_EQ_INT(ns_of("+2.5"), INT64_C(2500000000));
	CHECK_EQ_INT(ns_of("-0.001"), -1000000);
	CHECK_EQ_INT(ns_of(".25"), 250000000);
	CHECK_EQ_INT(ns_of("3."), INT64_C(3000000000));
	CHECK_EQ_INT(ns_of("0.000000001"), 1);
	/* Below a nanosecond is cut off, toward 0. */
	CHECK_EQ_INT(ns_of("0.0000000019"), 1);
	CHECK_EQ_INT(ns_of("-0.0000000019"), -1);
	/* Leading zeros take no room. */
	CHECK_EQ_INT(ns_of("0000000000000000000000000001.5"),
	    INT64_C(1500000000));
	/* Exact to the nanosecond where a double is not. */
	CHECK_EQ_INT(ns_of("1234567890.123456789"),
	    INT64_C(1234567890123456789));
}

/* An argument of very many digits: the zeros before and after count. */
static const char *
many_digits(int zeros_first)
{
	static char s[200016];

	memset(s, '0', sizeof(s));
	if (zeros_first) {	/* 0.000...0001 */
		s[1] = '.';
		snprintf(s + 200001, sizeof(s) - 200001, "1");
	} else			/* 1000...000 */
		s[0] = '1', s[200000] = '\0';
	return s;
}

static void
test_long_and_exponents(void)
{
	CHECK_EQ_INT(ns_of(many_digits(1)), 0);
	CHECK_EQ_INT(ns_of(many_digits(0)), REFUSED);
	/* Exponents are no time the manuals show: strtod() took them. */
	CHECK_EQ_INT(ns_of("1e-3"), REFUSED);
	CHECK_EQ_INT(ns_of("1E3"), REFUSED);
	CHECK_EQ_INT(ns_of("2.5e+1"), REFUSED);
	CHECK_EQ_INT(ns_of("1e"), REFUSED);
	CHECK_EQ_INT(ns_of("e3"), REFUSED);
}

static void
test_range(void)
{
	CHECK_EQ_INT(ns_of("9223372036.854775807"), INT64_MAX);
	CHECK_EQ_INT(ns_of("-9223372036.854775808"), INT64_MIN);
	CHECK_EQ_INT(ns_of("9223372036.854775808"), REFUSED);
	CHECK_EQ_INT(ns_of("-9223372036.854775809"), REFUSED);
	CHECK_EQ_INT(ns_of("9223372037"), REFUSED);
	CHECK_EQ_INT(ns_of("1e300"), REFUSED);
	CHECK_EQ_INT(ns_of("-1e300"), REFUSED);
	CHECK_EQ_INT(ns_of("1e10"), REFUSED);
	CHECK_EQ_INT(ns_of("99999999999999999999999999"), REFUSED);
}

static void
test_not_numbers(void)
{
	static const char *const bad[] = { "nan", "NaN", "-nan", "inf",
	    "-inf", "+Infinity", "0x10", "0x1p3", " 1", "1 ", "", "-", "+",
	    ".", "-.", "1.5s", "1..2", "--1", "+-1", "1e3.5", "1,5" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ns_of(bad[i]) != REFUSED)
			printf("  accepted '%s'\n", bad[i]);
		CHECK_EQ_INT(ns_of(bad[i]), REFUSED);
	}
}

static void
test_milliseconds(void)
{
	int64_t ns = 0;

	CHECK_EQ_INT(seconds_parse_ms("100", INT64_MAX, &ns), 0);
	CHECK_EQ_INT(ns, 100000000);
	CHECK_EQ_INT(seconds_parse_ms("0.5", INT64_MAX, &ns), 0);
	CHECK_EQ_INT(ns, 500000);
	CHECK_EQ_INT(seconds_parse_ms("0", INT64_MAX, &ns), -1);
	CHECK_EQ_INT(seconds_parse_ms("-1", INT64_MAX, &ns), -1);
	CHECK_EQ_INT(seconds_parse_ms("0.0000001", INT64_MAX, &ns), -1);
	CHECK_EQ_INT(seconds_parse_ms("nan", INT64_MAX, &ns), -1);
	CHECK_EQ_INT(seconds_parse_ms("2", 1000000, &ns), -1);
	CHECK_EQ_INT(ns, 500000);
}

static void
test_message(void)
{
	char buf[SECONDS_MESSAGE_MAX], arg[300];

	CHECK_EQ_STR(seconds_message(buf, sizeof(buf), "--from", "nan",
	    SECONDS_WHAT), "--from: 'nan' is not a time in seconds");
	CHECK_EQ_STR(seconds_message(buf, sizeof(buf), "--step", "-1",
	    SECONDS_WHAT_MS),
	    "--step: '-1' is not a positive time in milliseconds");
	memset(arg, '7', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	seconds_message(buf, sizeof(buf), "--to", arg, SECONDS_WHAT);
	CHECK(strlen(buf) < sizeof(buf) - 1);
	CHECK(strstr(buf, "...' is not a time in seconds") != NULL);
}

int
main(void)
{
	RUN(test_decimals);
	RUN(test_long_and_exponents);
	RUN(test_range);
	RUN(test_not_numbers);
	RUN(test_milliseconds);
	RUN(test_message);
	HARNESS_EXIT();
}
