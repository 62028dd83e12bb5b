/*
 * etlcat - decode .etl traces into the event stream.
 *
 * For each input: map it, let each reader bid on its first bytes, and
 * pump the winner's records into one stream writer.  Errors name the file
 * and offset, and the next input is still read; the exit status says
 * whether anything went wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "etw_decode.h"
#include "in_etl.h"
#include "mmprof_decode.h"
#include "platform.h"
#include "stream.h"

#define PRODUCER	"etlcat 0.1"
#define MAX_WARNINGS	10	/* messages a file; the rest are counted */

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
		    "  -q        no summary of skipped or lost data on stderr\n"
		    "  -v        a summary of every input on stderr\n"
		    "  -z level  zstd level, -7 to 19 (default -1)\n"
		    "  --help    this text\n"
		    "  --version the version\n"
		    "With no file, or when file is -, read standard input.\n"
		    "Event streams given as input are passed through.\n");
	exit(status);
}

struct options {
	int quiet, verbose;
	struct progress *progress;
	unsigned read;		/* inputs read */
};

/* Adds a count to the loss, under the text of its DIAG record. */
static void
lost(struct loss *l, const char *what, uint64_t count, uint64_t bytes)
{
	struct stream_diag d = { what, count, 0, bytes };

	loss_add_diag(l, &d);
}

/*
 * Prints what the decoder skipped or could not join: one line, in the
 * words of the DIAG records the decoder wrote (lib/etw_decode.c), as the
 * tools after etlcat say it; more with -v.
 */
static void
summarize(const char *name, const struct etl_reader *r,
    const struct etw_decoder *d, const struct options *o)
{
	const struct etl_counts *c = etl_reader_counts(r);
	const struct etl_header *h = etl_reader_header(r);
	const struct etw_decode_stats *s = etw_decoder_stats(d);
	struct loss l = { 0 };

	if (o->quiet)
		return;
	lost(&l, "corrupt or truncated buffers", c->bad_buffers,
	    c->bad_buffer_bytes);
	lost(&l, "corrupt event headers", c->bad_events, c->bad_event_bytes);
	lost(&l, "payloads too short for their layout", s->bad_payloads, 0);
	lost(&l, "TraceLogging payloads not matching their schema",
	    s->bad_tracelogging, 0);
	lost(&l, "events lost by the logger", h->events_lost, 0);
	lost(&l, "buffers lost by the logger", h->buffers_lost, 0);
	lost(&l, "buffers flagged as losing events", c->lost_flagged, 0);
	lost(&l, "stack walks without an owner event", s->stacks_orphaned, 0);
	lost(&l, "stack keys never defined", s->keys_unresolved, 0);
	lost(&l, "ImageID events without an image", s->image_ids_unjoined, 0);
	if (o->verbose)
		cli_warn("%s: %llu events in %llu buffers (%llu compressed); "
		    "%llu stacks attached", name,
		    (unsigned long long)c->events,
		    (unsigned long long)c->buffers,
		    (unsigned long long)c->compressed,
		    (unsigned long long)s->stacks_attached);
	cli_loss_summary(name, &l);
	if (o->verbose)
		cli_warn("%s: %llu ImageID/DbgID events joined to images, %llu "
		    "without an image", name,
		    (unsigned long long)s->images_joined,
		    (unsigned long long)s->image_ids_unjoined);
	if (o->verbose && (s->stacks_orphaned || s->keys_unresolved))
		cli_warn("%s: %llu stack walks without owner, %llu stack keys "
		    "never defined", name,
		    (unsigned long long)s->stacks_orphaned,
		    (unsigned long long)s->keys_unresolved);
}

/*
 * The bytes read so far, for the progress line: buffers are read in the
 * order of their first event, not of the file, so their share of the
 * file's size stands for it.
 */
static uint64_t
buffers_done(const struct etl_reader *r, uint64_t len)
{
	size_t total, done = etl_reader_buffers_opened(r, &total);

	return total > 0 ? (uint64_t)((double)len * (double)done /
	    (double)total) : 0;
}

/* Decodes one .etl file.  @return : CLI_OK or CLI_DATA_ERROR. */
static int
cat_etl(struct stream_writer *w, const char *name,
    const struct mapped_file *m, struct options *o)
{
	struct etl_reader *r = etl_reader_new();
	struct etw_decoder *d = NULL;
	struct etl_event ev;
	enum etl_status st;
	int status = CLI_OK, warnings = 0;
	uint64_t n = 0;

	if (r == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	etl_reader_threads(r, cli_threads());
	st = etl_reader_open_file(r, m);
	if (st == ETL_FATAL) {
		cli_warn("%s: %s", name, etl_reader_error(r));
		etl_reader_free(r);
		return CLI_DATA_ERROR;
	}
	if (st == ETL_WARN) {
		cli_warn("%s: %s", name, etl_reader_error(r));
		warnings++;
		status = CLI_DATA_ERROR;
	}
	if (stream_write_header(w, PRODUCER) != 0 ||
	    (d = etw_decoder_new(w, etl_reader_header(r), name)) == NULL)
		cli_write_error(NULL);
	progress_start(o->progress, name, m->len);
	while ((st = etl_reader_next(r, &ev)) != ETL_EOF) {
		if (++n % 4096 == 0)
			progress_update(o->progress, buffers_done(r, m->len));
		if (st == ETL_WARN) {
			if (++warnings <= MAX_WARNINGS)
				cli_warn("%s: %s", name, etl_reader_error(r));
			status = CLI_DATA_ERROR;
			continue;
		}
		if (etw_decoder_event(d, &ev) != 0)
			cli_write_error(NULL);
	}
	progress_end(o->progress);
	if (warnings > MAX_WARNINGS)
		cli_warn("%s: %d more problems not shown", name,
		    warnings - MAX_WARNINGS);
	if (etw_decoder_finish(d, etl_reader_counts(r)) != 0)
		cli_write_error(NULL);
	summarize(name, r, d, o);
	etw_decoder_free(d);
	etl_reader_free(r);
	return status;
}

/*
 * Copies an event stream given as input, record by record, and says
 * what its DIAG records say it lost, as the other tools do.
 */
static int
cat_stream(struct stream_writer *w, const char *name,
    const unsigned char *data, size_t len, const struct options *o)
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	enum stream_status st;
	struct loss l = { 0 };
	uint64_t records = 0, events = 0;
	int status;

	if (r == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	stream_reader_open_mem(r, data, len, name);
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK) {
		records++;
		events += rec.type == REC_EVENT;
		if (rec.type == REC_DIAG)
			loss_add_diag(&l, &rec.u.diag);
		if (stream_write_record(w, &rec) != 0)
			cli_write_error(NULL);
	}
	status = cli_stream_status(r, st, name);
	if (o->verbose && !o->quiet)
		cli_warn("%s: %llu records (%llu events) of an event stream "
		    "passed through", name, (unsigned long long)records,
		    (unsigned long long)events);
	if (!o->quiet)
		cli_loss_summary(name, &l);
	stream_reader_free(r);
	return status;
}

static int
cat_one(struct stream_writer *w, const char *path, struct options *o)
{
	const char *name = strcmp(path, "-") == 0 ? "(stdin)" : path;
	struct mapped_file m;
	int status;

	if (platform_map_file_for_reads(path, &m) != 0) {
		cli_warn("%s: %s", name, strerror(errno));
		return CLI_DATA_ERROR;
	}
	if (etl_probe(m.data, m.len))
		status = cat_etl(w, name, &m, o);
	else if (stream_probe(m.data, m.len))
		status = cat_stream(w, name, m.data, m.len, o);
	else if (mmprof_probe(m.data, m.len)) {
		if ((status = mmprof_cat(w, PRODUCER, name, &m,
		    o->quiet ? -1 : o->verbose, cli_warn)) < 0)
			cli_write_error(NULL);
	} else {
		cli_warn("%s: not an ETL file, rustc self-profile or event "
		    "stream (offset 0x0)",
		    name);
		platform_unmap_file(&m);
		return CLI_DATA_ERROR;
	}
	platform_unmap_file(&m);
	o->read++;
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
	o.progress = cli_progress();
	while ((ch = getopt_long(argc, argv, "fo:qvz:", longopts, NULL)) != -1) {
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
			o.quiet = 1;
			break;
		case 'v':
			o.verbose = 1;
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
