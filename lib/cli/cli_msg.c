/*
 * cli_msg.c - what every program says and how it ends: its name, its
 * messages and the progress line they clear, its exit status, and the
 * numbers its options take.  The rest of lib/cli/ builds on it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"
#include "stream/stream.h"
#include "cli.h"

static const char *progname = "etl";

/* The progress line, cleared before a message. */
static struct progress progress;
static int progress_ready;

void
cli_init(const char *argv0)
{
	const char *slash;

	if (argv0 == NULL)
		return;
	progname = argv0;
	if ((slash = strrchr(argv0, '/')) != NULL)
		progname = slash + 1;
	if ((slash = strrchr(progname, '\\')) != NULL)
		progname = slash + 1;
	platform_init();
}

const char *
cli_progname(void)
{
	return progname;
}

struct progress *
cli_progress(void)
{
	if (!progress_ready) {
		progress_init(&progress, progname);
		progress_ready = 1;
	}
	return &progress;
}

static void
vwarn(const char *fmt, va_list ap)
{
	char line[1024];
	va_list again;
	int n;

	if (progress_ready)
		progress_end(&progress);
	/* One write, so that a decoding thread's lines come out whole. */
	va_copy(again, ap);
	n = vsnprintf(line, sizeof(line), fmt, again);
	va_end(again);
	if (n >= 0 && (size_t)n < sizeof(line)) {
		fprintf(stderr, "%s: %s\n", progname, line);
		return;
	}
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

_Noreturn void
cli_fatal(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

int
cli_threads(void)
{
	const char *env = getenv("ETL_THREADS");

	return env == NULL || *env == '\0' || strtol(env, NULL, 10) > 1;
}

void
cli_loss_summary(const char *name, const struct loss *l)
{
	char text[512];

	if (!loss_any(l))
		return;
	loss_format(l, text, sizeof(text));
	cli_warn("%s: lossy input: %s", name, text);
}

int
cli_stream_status(const struct stream_reader *r, int st, const char *name)
{
	if (st == STREAM_ERROR) {
		cli_warn("%s", stream_reader_error(r));
		return CLI_DATA_ERROR;
	}
	if (stream_reader_truncated(r)) {
		cli_warn("%s: stream ends without its end record (truncated)",
		    name);
		return CLI_DATA_ERROR;
	}
	return CLI_OK;
}

double
cli_decimal(const char *arg, double min, double max, const char *opt)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || !(v >= min && v <= max))
		cli_fatal(CLI_USAGE, "option %s: '%s' is not a number from "
		    "%g to %g", opt, arg, min, max);
	return v;
}

long long
cli_number(const char *arg, long long min, long long max, const char *opt)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < min || v > max)
		cli_fatal(CLI_USAGE, "option %s: '%s' is not a number from "
		    "%lld to %lld", opt, arg, min, max);
	return v;
}
