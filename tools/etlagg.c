/*
 * etlagg - aggregate the event stream into tables.
 *
 * Reads the stream from the files named (or standard input), feeds every
 * record to the chosen view, and writes the view's tables as a stream.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "stream.h"
#include "view.h"

#define PRODUCER "etlagg 0.1"

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlagg [-f] [-o file] view [view-options] "
	    "[file ...]\n");
	if (status == CLI_OK) {
		fprintf(fp, "Aggregate the event stream into a table.  Views:\n");
		view_list(fp);
		fprintf(fp,
		    "  -f        write the stream even to a terminal\n"
		    "  -o file   write to file instead of standard output\n"
		    "  --help    this text;  --version  the version\n"
		    "With no file, or when file is -, read standard input.\n");
	}
	exit(status);
}

struct aggregation {
	const struct view_ops *ops;
	struct view *v;
	struct stream_writer *w;
};

/* Feeds a record to the view; records of unknown types pass on. */
static int
aggregate(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct aggregation *a = ctx;

	if (a->ops->record(a->v, r, rec) != 0)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (!stream_rec_known(rec->type) &&
	    stream_write_record(a->w, rec) != 0)
		cli_write_error(NULL);
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const struct view_ops *ops;
	struct stream_reader *r;
	struct stream_writer *w;
	struct stream_end end = { 0 };
	struct view *v;
	struct aggregation agg;
	const char *out = NULL;
	int ch, force = 0, status = CLI_OK, i, used;
	FILE *fp;

	cli_init(argv[0]);
	/* "+": options after the view's name belong to the view. */
	while ((ch = getopt_long(argc, argv, "+fo:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout, CLI_OK);
		case 'o':
			out = optarg;
			break;
		case 'V':
			printf("%s\n", PRODUCER);
			return CLI_OK;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(stderr, CLI_USAGE);
	if ((ops = view_find(argv[0])) == NULL) {
		cli_warn("unknown view '%s'", argv[0]);
		usage(stderr, CLI_USAGE);
	}
	errno = 0;
	if ((v = ops->create(argc, argv, &used)) == NULL) {
		if (errno == ENOMEM)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
		usage(stderr, CLI_USAGE);
	}
	argc -= used;
	argv += used;
	fp = cli_open_output(out, 1, force);
	r = stream_reader_new(ops->reader_flags);
	w = stream_writer_new(fp, 1);
	if (r == NULL || w == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (stream_write_header(w, PRODUCER) != 0)
		cli_write_error(out);
	agg = (struct aggregation){ ops, v, w };
	if (argc == 0)
		status = cli_read_stream("-", r, aggregate, &agg);
	for (i = 0; i < argc; i++)
		if (cli_read_stream(argv[i], r, aggregate, &agg) != CLI_OK)
			status = CLI_DATA_ERROR;
	if (ops->finish(v, w) != 0 || stream_write_end(w, &end) != 0 ||
	    stream_writer_close(w) != 0)
		cli_write_error(out);
	ops->destroy(v);
	stream_reader_free(r);
	if (cli_close_output(fp, out) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
