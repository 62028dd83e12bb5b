/*
 * fuzz_seconds.c - the times of every tool's command line (--from, --to,
 * --at, --step; base/seconds.h): the input is the argument as given.
 *
 * Invariants beyond the sanitizers: a time taken is one strtod() reads
 * whole as a finite number, within a nanosecond (and a part in 10^15)
 * of it; a decimal number in range is taken, and NaN, an infinity,
 * hexadecimal or an exponent never is; the message about one refused stays in its
 * buffer and quotes the argument.
 */
#include <math.h>

#include "base/seconds.h"
#include "fuzz.h"

/* Only what a time is made of ("nan", "0x1p3", "1e3" are not). */
static int
decimal_chars(const char *s)
{
	return *s != '\0' && strspn(s, "0123456789.+-") == strlen(s);
}

static void
check(const char *s)
{
	char msg[SECONDS_MESSAGE_MAX], *end;
	int64_t ns = 0;
	int rc = seconds_parse(s, &ns);
	double v = strtod(s, &end), want = v * 1e9;
	int whole = end != s && *end == '\0' && isfinite(v);

	if (rc == 0 && (!whole || !decimal_chars(s)))
		fuzz_fail("a time taken that is not a decimal number", s);
	if (rc == 0 && fabs((double)ns - want) > 1 + fabs(want) * 1e-15)
		fuzz_fail("a time taken as another", s);
	/* Well inside the range: no rounding of strtod() matters. */
	if (rc != 0 && whole && decimal_chars(s) && fabs(want) < 9e18)
		fuzz_fail("a decimal number in range refused", s);
	if (rc != 0) {
		seconds_message(msg, sizeof(msg), "--from", s, SECONDS_WHAT);
		if (strncmp(msg, "--from: '", 9) != 0 ||
		    strstr(msg, "' is not a time in seconds") == NULL)
			fuzz_fail("the message is not the one", msg);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	/* An argument is a C string: up to its first NUL. */
	if ((s = malloc(size + 1)) == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	check(s);
	free(s);
	return 0;
}
