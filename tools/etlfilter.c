/*
 * etlfilter - keep or drop the events of a stream.
 *
 * Every record but the events passes on unchanged, so the output's ids
 * still resolve; lib/filter.c decides for each event.  Each section gets
 * a fresh END (the counts are the writer's) and a DIAG that counts the
 * events left out.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter.h"
#include "platform.h"
#include "stream.h"

#define PRODUCER "etlfilter 0.1"

enum {
	OPT_CMDLINE = 256,
	OPT_PID,
	OPT_TID,
	OPT_CHILDREN,
	OPT_RUSTC,
	OPT_KIND,
	OPT_PROVIDER,
	OPT_FROM,
	OPT_TO
};

/* The output's section: is one open, and what has it left out. */
struct out_section {
	int open;
	uint64_t dropped;
};

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlfilter [-fiqv] [-o file] [-p regex] "
	    "[--cmdline regex] [--pid list]\n"
	    "                 [--tid list] [--children] [--rustc] "
	    "[--kind list]\n"
	    "                 [--provider name] [--from time] [--to time] "
	    "[file ...]\n");
	if (status == CLI_OK)
		fprintf(fp,
		    "Keep the events that match every criterion given.\n"
		    "Options may come before or after the files.\n"
		    "  -f                write the stream even to a terminal\n"
		    "  -i, --ignore-case  regexes ignore case\n"
		    "  -o file           write to file instead of standard "
		    "output\n"
		    "  -p, --process regex  process image name (PCRE2)\n"
		    "  -q                no line on what an input lost\n"
		    "  -v, --invert      keep the events that do not match\n"
		    "  --cmdline regex   process command line (PCRE2)\n"
		    "  --pid list        process ids, comma-separated\n"
		    "  --tid list        thread ids, comma-separated\n"
		    "  --children        also the descendants of matching "
		    "processes\n"
		    "  --rustc           rustc, cargo, link, lld-link, rustdoc, "
		    "build scripts,\n"
		    "                    and their children\n"
		    "  --kind list       event kinds: generic, process, thread, "
		    "image, sample,\n"
		    "                    alloc, heap, heapsnap, cswitch, ready, "
		    "lost, query, stack\n"
		    "  --provider name   provider name or GUID\n"
		    "  --from time       from this time: seconds from the "
		    "start, or UTC\n"
		    "  --to time         up to (not including) this time\n"
		    "  --help            this text\n"
		    "  --version         the version\n"
		    "With no file, or when file is -, read standard input.\n");
	exit(status);
}

/* Counts what the section left out, in the section. */
static int
write_dropped(struct stream_writer *w, struct out_section *s)
{
	struct stream_diag d = { .what = "note: events filtered out" };

	if (s->dropped == 0)
		return 0;
	d.count = s->dropped;
	s->dropped = 0;
	return stream_write_diag(w, &d);
}

static int
write_record(struct stream_writer *w, const struct stream_record *rec,
    int keep, struct out_section *s)
{
	switch (rec->type) {
	case REC_HEADER:
		/* A section cut short in the input stays so. */
		if (s->open && write_dropped(w, s) != 0)
			return -1;
		s->open = 1;
		return stream_write_record(w, rec);
	case REC_END:
		s->open = 0;
		if (write_dropped(w, s) != 0)
			return -1;
		return stream_write_end(w, &rec->u.end);
	case REC_EVENT:
		if (!keep) {
			s->dropped++;
			return 0;
		}
		return stream_write_record(w, rec);
	default:
		return stream_write_record(w, rec);
	}
}

/*
 * The first pass, when the filter needs one.  Errors in the input are
 * reported by the second pass, which meets them at the same place.
 */
static void
scan_input(struct filter *f, FILE *fp, const char *name)
{
	struct stream_record rec;
	struct stream_reader *r;

	/* The scan needs no event's fields: its own reader skips them. */
	if ((r = stream_reader_new(STREAM_EVENT_HEADS)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	stream_reader_open_file(r, fp, name);
	while (stream_reader_next(r, &rec) == STREAM_OK)
		if (filter_scan(f, r, &rec) != 0)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
	stream_reader_free(r);
	rewind(fp);
}

/*
 * Filters one input: read twice if the filter needs a first pass (then
 * standard input is copied to a temporary file, so memory stays flat
 * however long).  @return : CLI_OK or CLI_DATA_ERROR.
 */
static int
filter_input(struct cli_inputs *in, const char *path, struct filter *f,
    struct stream_writer *w, const char *out)
{
	struct out_section s = { 0 };
	struct stream_record rec;
	enum stream_status st;
	int keep;
	FILE *fp;

	filter_reset(f);
	if ((fp = cli_input_open(in, path, filter_needs_scan(f))) == NULL)
		return CLI_DATA_ERROR;
	if (filter_needs_scan(f)) {
		scan_input(f, fp, in->name);
		stream_reader_open_file(in->r, fp, in->name);
	}
	while ((st = stream_reader_next(in->r, &rec)) == STREAM_OK) {
		cli_input_record(in, &rec);
		if ((keep = filter_record(f, in->r, &rec)) < 0)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
		if (write_record(w, &rec, keep, &s) != 0)
			cli_write_error(out);
	}
	if (s.open && write_dropped(w, &s) != 0)
		cli_write_error(out);
	return cli_input_close(in, st);
}

/* An option's argument that the filter refused: a usage error. */
static void
check(struct filter *f, int rc)
{
	if (rc != 0)
		cli_fatal(CLI_USAGE, "%s", filter_error(f));
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "cmdline", required_argument, NULL, OPT_CMDLINE },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ "ignore-case", no_argument, NULL, 'i' },
		{ "invert", no_argument, NULL, 'v' },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "process", required_argument, NULL, 'p' },
		{ "provider", required_argument, NULL, OPT_PROVIDER },
		{ "rustc", no_argument, NULL, OPT_RUSTC },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "to", required_argument, NULL, OPT_TO },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct stream_reader *r;
	struct stream_writer *w;
	struct cli_inputs in;
	struct filter *f;
	const char *out = NULL;
	int ch, force = 0, quiet = 0, status = CLI_OK, i;
	FILE *fp;

	cli_init(argv[0]);
	argv[0] = (char *)cli_progname();
	if ((f = filter_new()) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	while ((ch = getopt_long(argc, argv, "fio:p:qv", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout, CLI_OK);
		case 'i':
			filter_add_flags(f, FILTER_ICASE);
			break;
		case 'o':
			out = optarg;
			break;
		case 'p':
			check(f, filter_add_process(f, optarg));
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			filter_add_flags(f, FILTER_INVERT);
			break;
		case 'V':
			printf("%s\n", PRODUCER);
			return CLI_OK;
		case OPT_CHILDREN:
			filter_add_flags(f, FILTER_CHILDREN);
			break;
		case OPT_CMDLINE:
			check(f, filter_add_cmdline(f, optarg));
			break;
		case OPT_FROM:
			check(f, filter_set_from(f, optarg));
			break;
		case OPT_KIND:
			check(f, filter_add_kinds(f, optarg));
			break;
		case OPT_PID:
			check(f, filter_add_pids(f, optarg));
			break;
		case OPT_PROVIDER:
			check(f, filter_add_provider(f, optarg));
			break;
		case OPT_RUSTC:
			check(f, filter_add_rustc(f));
			break;
		case OPT_TID:
			check(f, filter_add_tids(f, optarg));
			break;
		case OPT_TO:
			check(f, filter_set_to(f, optarg));
			break;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	check(f, filter_compile(f));

	fp = cli_open_output(out, 1, force, argc, argv);
	/*
	 * The filter decides on an event's head, and a kept event passes on
	 * as it was read: decoding its fields would be work for nothing.
	 */
	r = stream_reader_new(STREAM_EVENT_HEADS);
	w = stream_writer_new(fp, 1);
	if (r == NULL || w == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	cli_inputs_init(&in, r);
	in.quiet = quiet;
	if (argc == 0)
		status = filter_input(&in, "-", f, w, out);
	for (i = 0; i < argc; i++)
		if (filter_input(&in, argv[i], f, w, out) != CLI_OK)
			status = CLI_DATA_ERROR;
	if (stream_writer_close(w) != 0)
		cli_write_error(out);
	stream_reader_free(r);
	filter_free(f);
	if (cli_close_output(fp, out, in.read > 0) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
