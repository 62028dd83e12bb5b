/*
 * etlfilter - keep or drop the events of a stream.
 *
 * Every record but the events passes on unchanged, so the output's ids
 * still resolve; lib/filter/filter.c decides for each event and
 * lib/filter/filter_out.c writes, in one pass.  Each section gets a fresh END
 * (the counts are the writer's) and a DIAG that counts the events left
 * out.
 *
 * ETLFILTER_TWO_PASS=1 in the environment reads each input twice
 * instead, as etlfilter once did: tests/cli/onepass.sh compares the two.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "filter/filter.h"
#include "filter/filter_out.h"
#include "base/platform.h"
#include "stream/stream.h"

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
	OPT_TO,
	OPT_VERBOSE
};

/* Memory for records held back; the rest waits in a temporary file. */
#define HOLD_MEMORY (8u << 20)

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlfilter [-fiqv] [-o file] [-p regex] "
	    "[--cmdline regex] [--pid list]\n"
	    "                 [--tid list] [--children] [--rustc] "
	    "[--kind list]\n"
	    "                 [--provider name] [--from time] [--to time] "
	    "[--verbose]\n"
	    "                 [file ...]\n");
	if (status == CLI_OK)
		fprintf(fp,
		    "Keep the events that match every criterion given.\n"
		    "Options may come before or after the files.\n"
		    "  -f                write the stream even to a terminal\n"
		    "  -i, --ignore-case  regexes ignore case\n"
		    "  -o file           write to file instead of standard "
		    "output\n"
		    "  -p, --process regex  process image name (PCRE2)\n"
		    "  -q                no line on what an input lost; errors are\n"
		    "                    still said\n"
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
		    "  --verbose         say how much was held back\n"
		    "  -h, --help        this text\n"
		    "  --version         the version\n"
		    "With no file, or when file is -, read standard input.\n"
		    "A trace (.etl) or rustc profile (.mm_profdata) named as\n"
		    "file is decoded first, as etlcat -q decodes it.\n");
	exit(status);
}

/* The verdicts and the output of one input. */
struct run {
	struct cli_inputs in;
	struct filter *f;
	struct filter_out *o;
	const char *out;
	int two_pass;
	int verbose;
};

static void
out_error(struct run *run, int rc)
{
	if (rc == FILTER_OUT_WRITE)
		cli_write_error(run->out);
	if (rc != 0)
		cli_fatal(CLI_DATA_ERROR, "%s: records held back: %s",
		    run->in.name, strerror(errno));
}

/*
 * The first pass of the two, learning the processes.  Errors in the
 * input are reported by the second pass, which meets them at the same
 * place.
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

/* Two passes (standard input copied to a temporary file first). */
static enum stream_status
filter_two_pass(struct run *run, FILE *fp)
{
	struct stream_reader *r = run->in.r;
	struct stream_record rec;
	enum stream_status st;
	int keep;

	if (filter_needs_scan(run->f)) {
		scan_input(run->f, fp, run->in.name);
		stream_reader_open_file(r, fp, run->in.name);
	}
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK) {
		cli_input_record(&run->in, &rec);
		if ((keep = filter_record(run->f, r, &rec)) < 0)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
		out_error(run, filter_out_write(run->o, &rec, keep));
	}
	return st;
}

/* One pass, holding back what waits for a verdict. */
static enum stream_status
filter_one_pass(struct run *run)
{
	struct stream_reader *r = run->in.r;
	struct stream_record rec;
	enum stream_status st;

	while ((st = stream_reader_next(r, &rec)) == STREAM_OK) {
		cli_input_record(&run->in, &rec);
		out_error(run, filter_out_next(run->o, r, &rec));
	}
	return st;
}

/* Filters one input.  @return : CLI_OK or CLI_DATA_ERROR. */
static int
filter_input(struct run *run, const char *path)
{
	struct holdback_stats hs;
	enum stream_status st;

	filter_reset(run->f);
	if (cli_input_open(&run->in, path,
	    run->two_pass && filter_needs_scan(run->f)) != 0)
		return CLI_DATA_ERROR;
	/* A scan is read from fp, which is then a file (seekable). */
	st = run->two_pass ? filter_two_pass(run, run->in.fp) :
	    filter_one_pass(run);
	out_error(run, filter_out_finish(run->o));
	filter_out_stats(run->o, &hs);
	if (run->verbose)
		cli_warn("%s: held back %llu records, %llu bytes at most "
		    "(%llu records at once, %llu in a temporary file)",
		    run->in.name, (unsigned long long)hs.records,
		    (unsigned long long)hs.max_bytes,
		    (unsigned long long)hs.max_records,
		    (unsigned long long)hs.spilled);
	return cli_input_close(&run->in, st);
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
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct stream_reader *r;
	struct stream_writer *w;
	struct run run = { 0 };
	struct filter *f;
	const char *out = NULL, *env;
	int ch, force = 0, quiet = 0, status = CLI_OK, i;
	FILE *fp;

	cli_init(argv[0]);
	argv[0] = (char *)cli_progname();
	if ((f = filter_new()) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	while ((ch = getopt_long(argc, argv, "fhio:p:qv", longopts, NULL)) != -1) {
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
		case OPT_VERBOSE:
			run.verbose = 1;
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
	 * as it was read: decoding its fields would be work for nothing,
	 * but for the other side of a switch or a ready event.
	 */
	if ((r = stream_reader_new(0)) != NULL)
		stream_reader_fields_of(r, STREAM_KIND(EV_CSWITCH) |
		    STREAM_KIND(EV_READY));
	w = cli_stream_writer(fp, CLI_STREAM_LEVEL);
	if (r == NULL || w == NULL ||
	    (run.o = filter_out_new(f, w, HOLD_MEMORY)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	cli_inputs_init(&run.in, r);
	run.in.quiet = quiet;
	run.f = f;
	run.out = out;
	run.two_pass = (env = getenv("ETLFILTER_TWO_PASS")) != NULL &&
	    strcmp(env, "1") == 0;
	if (argc == 0)
		status = filter_input(&run, "-");
	for (i = 0; i < argc; i++)
		if (filter_input(&run, argv[i]) != CLI_OK)
			status = CLI_DATA_ERROR;
	if (stream_writer_close(w) != 0)
		cli_write_error(out);
	filter_out_free(run.o);
	stream_reader_free(r);
	filter_free(f);
	if (cli_close_output(fp, out, run.in.read > 0) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
