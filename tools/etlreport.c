/*
 * etlreport - render the tables and events of a stream as text, CSV or
 * JSON Lines.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "report.h"
#include "stream.h"

static _Noreturn void
usage(FILE *fp, int status)
{
	const char *const *f;

	fprintf(fp, "usage: etlreport [-f format] [-o file] [file ...]\n");
	if (status == CLI_OK) {
		fprintf(fp, "Render the tables and events of an event stream.\n"
		    "  -f format  one of:");
		for (f = out_format_names(); *f != NULL; f++)
			fprintf(fp, " %s", *f);
		fprintf(fp, " (default text)\n"
		    "  -o file    write to file instead of standard output\n"
		    "  --help     this text;  --version  the version\n"
		    "With no file, or when file is -, read standard input.\n");
	}
	exit(status);
}

static int
known_format(const char *format)
{
	const char *const *f;

	for (f = out_format_names(); *f != NULL; f++)
		if (strcmp(*f, format) == 0)
			return 1;
	return 0;
}

static int
render(const char *path, struct stream_reader *r, struct report *rp,
    const char *out)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	const char *name = fp == stdin ? "(stdin)" : path;
	struct stream_record rec;
	enum stream_status st;
	int status = CLI_OK;

	if (fp == NULL) {
		cli_warn("%s: %s", path, strerror(errno));
		return CLI_DATA_ERROR;
	}
	stream_reader_open_file(r, fp, name);
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK)
		if (report_record(rp, r, &rec) != 0)
			cli_write_error(out);
	if (st == STREAM_ERROR) {
		cli_warn("%s", stream_reader_error(r));
		status = CLI_DATA_ERROR;
	} else if (stream_reader_truncated(r)) {
		cli_warn("%s: stream ends without its end record (truncated)",
		    name);
		status = CLI_DATA_ERROR;
	}
	if (fp != stdin)
		fclose(fp);
	return status;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *format = "text", *out = NULL;
	struct stream_reader *r;
	struct report *rp;
	struct out *o;
	int ch, status = CLI_OK, i;
	FILE *fp;

	cli_init(argv[0]);
	while ((ch = getopt_long(argc, argv, "f:o:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			format = optarg;
			break;
		case 'h':
			usage(stdout, CLI_OK);
		case 'o':
			out = optarg;
			break;
		case 'V':
			printf("etlreport 0.1\n");
			return CLI_OK;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (!known_format(format)) {
		cli_warn("unknown format '%s'", format);
		usage(stderr, CLI_USAGE);
	}
	fp = cli_open_output(out, 0, 0);
	if ((o = out_open(format, fp)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	r = stream_reader_new(0);
	rp = report_new(o);
	if (r == NULL || rp == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (argc == 0)
		status = render("-", r, rp, out);
	for (i = 0; i < argc; i++)
		if (render(argv[i], r, rp, out) != CLI_OK)
			status = CLI_DATA_ERROR;
	if (report_finish(rp) != 0 || out_close(o) != 0)
		cli_write_error(out);
	report_free(rp);
	stream_reader_free(r);
	if (cli_close_output(fp, out) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
