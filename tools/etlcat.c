/*
 * etlcat - decode .etl traces into the event stream.
 *
 * Each input is decoded into one stream writer by cli_decode(), which
 * the other tools share for traces given to them directly.  Errors name
 * the file and offset, and the next input is still read; the exit status
 * says whether anything went wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "stream/stream.h"

#define PRODUCER	CLI_DECODER

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlcat [-fqv] [-o file] [-z level] [file ...]\n");
	if (status == CLI_OK)
		fprintf(fp,
		    "Decode Windows ETW traces (.etl) and rustc self-profiles\n"
		    "(.mm_profdata) into the event stream.\n"
		    "Options may come before or after the files.\n"
		    "  -f        write the stream even to a terminal\n"
		    "  -o file   write to file instead of standard output\n"
		    "  -q        only what makes the status 1 on stderr: no lossy\n"
		    "            input line, no counts that leave it at 0\n"
		    "  -v        a summary of every input on stderr\n"
		    "  -z level  zstd level, -7 to 19 (default -1)\n"
		    "  -h, --help  this text\n"
		    "  --version the version\n"
		    "With no file, or when file is -, read standard input.\n"
		    "Event streams given as input are passed through.\n");
	exit(status);
}

struct options {
	struct cli_decode_opts d;
	unsigned read;		/* inputs read */
};

static int
cat_one(struct stream_writer *w, const char *path, struct options *o)
{
	int status, read;

	if ((status = cli_decode(w, path, &o->d, &read)) < 0)
		cli_write_error(NULL);
	o->read += read;
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
	struct options o = { 0 };
	const char *out = NULL;
	int ch, force = 0, level = CLI_STREAM_LEVEL, status = CLI_OK, i;
	struct stream_writer *w;
	FILE *fp;

	cli_init(argv[0]);
	argv[0] = (char *)cli_progname();
	o.d.producer = PRODUCER;
	o.d.progress = cli_progress();
	while ((ch = getopt_long(argc, argv, "fho:qvz:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout, CLI_OK);
			/* NOTREACHED */
		case 'o':
			out = optarg;
			break;
		case 'q':
			o.d.quiet = 1;
			break;
		case 'v':
			o.d.verbose = 1;
			break;
		case 'V':
			printf("%s\n", PRODUCER);
			return CLI_OK;
		case 'z':
			level = (int)cli_number(optarg, -7, 19, "-z");
			break;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	argc -= optind;
	argv += optind;

	fp = cli_open_output(out, 1, force, argc, argv);
	w = cli_stream_writer(fp, level);
	if (argc == 0)
		status = cat_one(w, "-", &o);
	for (i = 0; i < argc; i++)
		if (cat_one(w, argv[i], &o) != CLI_OK)
			status = CLI_DATA_ERROR;
	if (stream_writer_close(w) != 0)
		cli_write_error(out);
	if (cli_close_output(fp, out, o.read > 0) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
