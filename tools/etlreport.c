/*
 * etlreport - render the tables and events of a stream: text, CSV, JSON
 * Lines, and the formats of report/formats.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "render/render.h"
#include "report/formats.h"
#include "stream/stream.h"

enum {
	OPT_TITLE = 256,
	OPT_MIN_PERCENT,
	OPT_MAX_DEPTH,
	OPT_TABLE,
	OPT_CSV_RAW
};

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlreport [-q] [-f format] [-o file] [--csv-raw] "
	    "[--max-depth n]\n                 [--min-percent p] [--table name] "
	    "[--title text] [file ...]\n");
	if (status == CLI_OK) {
		fprintf(fp, "Render the tables and events of an event stream.  "
		    "Formats:\n");
		render_list(fp);
		fprintf(fp,
		    "Options may come before or after the files.\n"
		    "  -f format        the output format (default text)\n"
		    "  -o file          write to file instead of standard output\n"
		    "  -q               no line on what an input lost; errors are\n"
		    "                   still said\n"
		    "  --csv-raw        csv: text cells as they are, for programs;\n"
		    "                   by default a cell a spreadsheet would\n"
		    "                   evaluate (=, +, -, @, tab, CR first) gets\n"
		    "                   a ' before it\n"
		    "  --max-depth n    html: show n levels of nesting at most\n"
		    "  --min-percent p  svg, html: leave out what is below p%%\n"
		    "  --table name     text, csv, jsonl: only the tables so named\n"
		    "  --title text     svg, html, speedscope: the title\n"
		    "  -h, --help       this text\n"
		    "  --version        the version\n"
		    "With no file, or when file is -, read standard input.\n"
		    "A trace (.etl) or rustc profile (.mm_profdata) named as\n"
		    "file is decoded first, as etlcat -q decodes it.\n");
	}
	exit(status);
}

struct rendering {
	const struct render_ops *ops;
	struct render *rd;
	const char *out;
};

static int
render_record(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct rendering *g = ctx;
	int rc = g->ops->record(g->rd, r, rec);

	if (rc == RENDER_SAID)	/* the renderer has named the file */
		exit(CLI_DATA_ERROR);
	if (rc != 0)
		cli_write_error(g->out);
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "min-percent", required_argument, NULL, OPT_MIN_PERCENT },
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "table", required_argument, NULL, OPT_TABLE },
		{ "csv-raw", no_argument, NULL, OPT_CSV_RAW },
		{ NULL, 0, NULL, 0 }
	};
	struct render_options opt = { 0 };
	const struct render_format *fmt;
	const char *format = "text", *out = NULL;
	struct stream_reader *r;
	struct render *rd;
	struct rendering g;
	struct cli_inputs in;
	int ch, quiet = 0, status = CLI_OK, i, rc;
	FILE *fp;

	cli_init(argv[0]);
	argv[0] = (char *)cli_progname();
	while ((ch = getopt_long(argc, argv, "f:ho:q", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			format = optarg;
			break;
		case 'h':
			usage(stdout, CLI_OK);
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'V':
			printf("etlreport 0.1\n");
			return CLI_OK;
		case OPT_CSV_RAW:
			opt.csv_raw = 1;
			break;
		case OPT_TITLE:
			opt.title = optarg;
			break;
		case OPT_MIN_PERCENT:
			opt.min_percent = cli_decimal(optarg, 0, 100,
			    "--min-percent");
			opt.min_percent_given = 1;
			break;
		case OPT_TABLE:
			opt.table = optarg;
			break;
		case OPT_MAX_DEPTH:
			opt.max_depth = (int)cli_number(optarg, 0, 100000,
			    "--max-depth");
			break;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if ((fmt = render_find(format)) == NULL) {
		cli_warn("unknown format '%s'", format);
		usage(stderr, CLI_USAGE);
	}
	if (strcmp(format, "xlsx") == 0 && (out == NULL ||
	    strcmp(out, "-") == 0)) {
		cli_warn("xlsx: a workbook is a file: give -o file.xlsx");
		usage(stderr, CLI_USAGE);
	}
	opt.out = out;
	opt.warn = cli_warn;
	/* csv -o writes a file a table itself. */
	fp = render_writes_files(format, &opt) ? NULL :
	    cli_open_output(out, 0, 0, argc, argv);
	r = stream_reader_new(fmt->ops->reader_flags);
	if (r == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	cli_inputs_init(&in, r);
	in.quiet = quiet;
	opt.loss = &in.loss;
	if ((rd = fmt->ops->open(fp, format, &opt)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	g = (struct rendering){ fmt->ops, rd, out };
	if (argc == 0)
		status = cli_read_stream(&in, "-", render_record, &g);
	for (i = 0; i < argc; i++)
		if (cli_read_stream(&in, argv[i], render_record, &g) != CLI_OK)
			status = CLI_DATA_ERROR;
	if ((rc = fmt->ops->close(rd)) < 0)
		cli_write_error(out);
	if (rc == 1)
		cli_warn("nothing to draw as %s: %s", format, fmt->ops->nothing);
	if (rc > 0)
		status = CLI_DATA_ERROR;
	stream_reader_free(r);
	if (fp != NULL && cli_close_output(fp, out, in.read > 0) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
