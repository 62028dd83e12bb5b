/*
 * cli.c - see cli.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "platform.h"
#include "stream.h"

static const char *progname = "etl";

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

static void
vwarn(const char *fmt, va_list ap)
{
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

void
cli_fatal(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

FILE *
cli_open_output(const char *path, int binary, int force)
{
	FILE *fp;

	if (path == NULL || strcmp(path, "-") == 0) {
		fp = stdout;
		path = "standard output";
	} else if ((fp = fopen(path, binary ? "wb" : "w")) == NULL)
		cli_fatal(CLI_DATA_ERROR, "%s: %s", path, strerror(errno));
	if (binary) {
		if (!force && platform_is_terminal(fp))
			cli_fatal(CLI_USAGE, "%s is a terminal: the event stream "
			    "is binary (use -f to write it anyway, or pipe it "
			    "to etlreport)", path);
		platform_binary_mode(fp);
	}
	return fp;
}

static int
pipe_closed(int err)
{
	/* Windows reports a vanished reader as EINVAL on some runtimes. */
	return err == EPIPE
#ifdef _WIN32
	    || err == EINVAL
#endif
	    ;
}

void
cli_write_error(const char *path)
{
	int err = errno;

	if (pipe_closed(err)) {
#ifdef SIGPIPE
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
#endif
		exit(CLI_DATA_ERROR);
	}
	cli_fatal(CLI_DATA_ERROR, "%s: write error: %s", path ? path :
	    "standard output", strerror(err));
}

int
cli_close_output(FILE *fp, const char *path)
{
	if (path == NULL || strcmp(path, "-") == 0)
		path = NULL;
	errno = 0;
	if (fflush(fp) != 0 || ferror(fp)) {
		if (errno == 0)
			errno = EIO;
		cli_write_error(path);
	}
	if (fp != stdout && fclose(fp) != 0)
		cli_write_error(path);
	return CLI_OK;
}

int
cli_read_stream(const char *path, struct stream_reader *r,
    int (*fn)(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec), void *ctx)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	const char *name = fp == stdin ? "(stdin)" : path;
	struct stream_record rec;
	enum stream_status st;
	int status;

	if (fp == NULL) {
		cli_warn("%s: %s", path, strerror(errno));
		return CLI_DATA_ERROR;
	}
	stream_reader_open_file(r, fp, name);
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK)
		if (fn(ctx, r, &rec) != 0)
			break;
	status = st == STREAM_OK ? CLI_DATA_ERROR :
	    cli_stream_status(r, st, name);
	if (fp != stdin)
		fclose(fp);
	return status;
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
