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
#include <string.h>

#include "cli/cli.h"
#include "stream/loss.h"
#include "stream/stream.h"
#include "views/view.h"

#define PRODUCER "etlagg 0.1"

enum { OPT_VIEW = 256 };

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlagg [-fq] [-o file] view [view-options] "
	    "[file ...]\n");
	if (status == CLI_OK) {
		fprintf(fp, "Aggregate the event stream into a table.  Views:\n");
		view_list(fp);
		fprintf(fp,
		    "Options, before or after the view and the files:\n"
		    "  -f         write the stream even to a terminal\n"
		    "  -o file    write to file instead of standard output\n"
		    "  -q         no line on what an input lost or on the events\n"
		    "             it lacks; errors are still said\n"
		    "  --help     this text\n"
		    "  --version  the version\n"
		    "With no file, or when file is -, read standard input.\n"
		    "A trace (.etl) or rustc profile (.mm_profdata) named as\n"
		    "file is decoded first, as etlcat -q decodes it.\n");
	}
	exit(status);
}

/* What the command line says. */
struct args {
	const struct view_ops *ops;
	int force, merge, quiet;
	const char *out;
	char **vargv;		/* the view's name and options */
	int vargc;
	char **files;
	int nfiles;
	struct option *all;	/* while parsing */
	char **vopt;
};

/*
 * The options of etlagg and of every view in one table, so that they can
 * come before the view's name and after the files; each view option
 * returns OPT_VIEW, and its name tells which.
 */
static struct option *
all_options(void)
{
	static const struct option own[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	const struct view_ops *ops;
	struct option *all;
	size_t n = 0, cap = 3, i, j, k;

	for (i = 0; (ops = view_at(i)) != NULL; i++)
		for (j = 0; ops->options != NULL && ops->options[j].name; j++)
			cap++;
	if ((all = calloc(cap, sizeof(*all))) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	all[n++] = own[0];
	all[n++] = own[1];
	for (i = 0; (ops = view_at(i)) != NULL; i++)
		for (j = 0; ops->options != NULL && ops->options[j].name; j++) {
			for (k = 0; k < n; k++)
				if (strcmp(all[k].name, ops->options[j].name) ==
				    0)
					break;
			if (k < n)
				continue;
			all[n] = ops->options[j];
			all[n].flag = NULL;
			all[n++].val = OPT_VIEW;
		}
	return all;
}

/* Whether the view has the option `name`. */
static int
view_has_option(const struct view_ops *ops, const char *name)
{
	size_t j;

	for (j = 0; ops->options != NULL && ops->options[j].name; j++)
		if (strcmp(ops->options[j].name, name) == 0)
			return 1;
	return 0;
}

/* Whether the view's option `opt` ("name" or "name=value") takes two. */
static int
is_pair_option(const struct view_ops *ops, const char *opt)
{
	size_t j, len = strcspn(opt, "=");

	for (j = 0; ops->pair_options != NULL && ops->pair_options[j]; j++)
		if (strlen(ops->pair_options[j]) == len &&
		    strncmp(ops->pair_options[j], opt, len) == 0)
			return 1;
	return 0;
}

/* "--name" or "--name=value", as the view's getopt_long reads it again. */
static char *
view_token(const char *name, const char *value)
{
	size_t len = strlen(name) + (value ? strlen(value) + 1 : 0) + 3;
	char *t = malloc(len);

	if (t == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	snprintf(t, len, "--%s%s%s", name, value ? "=" : "",
	    value ? value : "");
	return t;
}

static void
set_view(struct args *a, const char *name)
{
	if ((a->ops = view_find(name)) == NULL) {
		cli_warn("unknown view '%s'", name);
		usage(stderr, CLI_USAGE);
	}
	a->vargv[0] = (char *)name;
}

/*
 * Parses the command line GNU style: options anywhere, the first word
 * that is not an option's the view, the rest files.  The view's options
 * are checked against the view and handed to its create() afterwards.
 */
static void
parse_args(int argc, char *argv[], struct args *a)
{
	struct option *all;
	char **vopt;
	int ch, idx, nv = 0, i;

	a->all = all = all_options();
	a->vargv = calloc((size_t)argc + 1, sizeof(char *));
	a->files = calloc((size_t)argc + 1, sizeof(char *));
	a->vopt = vopt = calloc((size_t)argc + 1, sizeof(char *));
	if (a->vargv == NULL || a->files == NULL || vopt == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	/* "-": words that are not options come back in order, as 1. */
	while ((ch = getopt_long(argc, argv, "-fo:q", all, &idx)) != -1) {
		switch (ch) {
		case 1:
			if (a->ops == NULL)
				set_view(a, optarg);
			else
				a->files[a->nfiles++] = optarg;
			break;
		case 'f':
			a->force = 1;
			break;
		case 'h':
			usage(stdout, CLI_OK);
		case 'o':
			a->out = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'V':
			printf("%s\n", PRODUCER);
			exit(CLI_OK);
		case OPT_VIEW:
			vopt[nv++] = view_token(all[idx].name,
			    all[idx].has_arg ? optarg : NULL);
			/* Its second value, known once the view is. */
			if (a->ops != NULL && is_pair_option(a->ops,
			    all[idx].name) && optind < argc &&
			    (vopt[nv++] = strdup(argv[optind++])) == NULL)
				cli_fatal(CLI_DATA_ERROR, "out of memory");
			if (strcmp(all[idx].name, "merge") == 0)
				a->merge = 1;
			break;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	for (i = optind; i < argc; i++)	/* after "--" */
		if (a->ops == NULL)
			set_view(a, argv[i]);
		else
			a->files[a->nfiles++] = argv[i];
	if (a->ops == NULL) {
		cli_warn("no view given");
		usage(stderr, CLI_USAGE);
	}
	a->vargc = 1;
	for (i = 0; i < nv; i++) {
		size_t len;
		char name[64];

		/* Only a second value does not start with "--". */
		if (strncmp(vopt[i], "--", 2) != 0) {
			a->vargv[a->vargc++] = vopt[i];
			continue;
		}
		len = strcspn(vopt[i] + 2, "=");
		snprintf(name, sizeof(name), "%.*s", (int)len, vopt[i] + 2);
		if (!view_has_option(a->ops, name)) {
			cli_warn("view %s has no option --%s", a->ops->name,
			    name);
			usage(stderr, CLI_USAGE);
		}
		a->vargv[a->vargc++] = vopt[i];
	}
	free(vopt);
	free(all);
	a->vopt = NULL;
	a->all = NULL;
}

static void
args_release(struct args *a)
{
	int i;

	for (i = 1; i < a->vargc; i++)
		free(a->vargv[i]);
	free(a->vargv);
	free(a->files);
}

struct aggregation {
	const struct view_ops *ops;
	struct view *v;
	struct stream_writer *w;
	const char *out;
	unsigned tables, ours;	/* tables in the input, of the view's */
	uint64_t events;
	uint64_t all_events, needed;	/* of every input; of needs_kind */
	char other[64];		/* the name of one that is not */
};

/*
 * Feeds a record to the view.  DIAG records pass on, so that what the
 * input lost reaches etlreport; so do records of unknown types.
 */
static int
aggregate(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct aggregation *a = ctx;

	if (a->ops->record(a->v, r, rec) != 0)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (rec->type == REC_EVENT) {
		a->events++;
		a->all_events++;
		a->needed += rec->u.event.h.kind == a->ops->needs_kind;
	}
	if (rec->type == REC_TABLE) {
		a->tables++;
		if (view_has_table(a->ops, rec->u.table.name))
			a->ours++;
		else
			snprintf(a->other, sizeof(a->other), "%s",
			    rec->u.table.name);
	}
	if ((!stream_rec_known(rec->type) || rec->type == REC_DIAG) &&
	    stream_write_record(a->w, rec) != 0)
		cli_write_error(a->out);
	return 0;
}

/*
 * Reads one input.  With --merge, an input of tables none of which is
 * the view's is an error: merging it would give an empty table.  So is
 * an input of tables and no events without --merge.
 */
static int
read_input(struct cli_inputs *in, const char *path, struct aggregation *agg,
    int merge)
{
	int status;

	agg->tables = agg->ours = 0;
	agg->events = 0;
	status = cli_read_stream(in, path, aggregate, agg);
	if (!merge && agg->tables > 0 && agg->events == 0) {
		cli_warn("%s: holds tables, not events (--merge adds up "
		    "tables of this view)", in->name);
		status = CLI_DATA_ERROR;
	} else if (merge && agg->tables > 0 && agg->ours == 0) {
		cli_warn("%s: no %s table to merge (it holds %s tables, "
		    "of another view)", in->name, agg->ops->name, agg->other);
		status = CLI_DATA_ERROR;
	}
	return status;
}

/*
 * An input of events without those the view counts gives an empty
 * table that is no measurement: says so once on stderr (not under -q)
 * and in a DIAG note, which etlreport shows with the table.
 * @return : 0, or -1 on a write error.
 */
static int
say_missing(const struct aggregation *agg, int merge, int quiet)
{
	char what[LOSS_MISSING_LEN + 32];
	struct stream_diag d = { what, 1, 0, 0 };
	const struct view_ops *ops = agg->ops;

	if (merge || ops->needs == NULL || agg->all_events == 0 ||
	    agg->needed > 0)
		return 0;
	if (!quiet)
		cli_warn("%s: %s", ops->name, ops->needs);
	snprintf(what, sizeof(what), "%s%s: %s", LOSS_MISSING, ops->name,
	    ops->needs);
	return stream_write_diag(agg->w, &d);
}

int
main(int argc, char *argv[])
{
	/* Static: what it holds is still reachable when usage() exits. */
	static struct args a;
	struct cli_inputs in;
	struct stream_reader *r;
	struct stream_writer *w;
	struct stream_end end = { 0 };
	struct stream_diag cut = { LOSS_CUT, 0, 0, 0 };
	struct view *v;
	struct aggregation agg;
	int status = CLI_OK, i, used;
	FILE *fp;

	cli_init(argv[0]);
	argv[0] = (char *)cli_progname();
	parse_args(argc, argv, &a);
	errno = 0;
	if ((v = a.ops->create(a.vargc, a.vargv, &used)) == NULL) {
		if (errno == ENOMEM)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
		if (errno == EIO)
			return CLI_DATA_ERROR;
		usage(stderr, CLI_USAGE);
	}
	fp = cli_open_output(a.out, 1, a.force, a.nfiles, a.files);
	r = stream_reader_new(a.ops->reader_flags);
	if (r != NULL && a.ops->field_kinds != 0)
		stream_reader_fields_of(r, a.ops->field_kinds);
	w = cli_stream_writer(fp, CLI_STREAM_LEVEL);
	if (r == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (stream_write_header(w, PRODUCER) != 0)
		cli_write_error(a.out);
	cli_inputs_init(&in, r);
	in.quiet = a.quiet;
	agg = (struct aggregation){ .ops = a.ops, .v = v, .w = w,
	    .out = a.out };
	if (a.nfiles == 0)
		status = read_input(&in, "-", &agg, a.merge);
	for (i = 0; i < a.nfiles; i++)
		if (read_input(&in, a.files[i], &agg, a.merge) != CLI_OK)
			status = CLI_DATA_ERROR;
	/* The table holds less than the inputs did: say so in it. */
	cut.count = in.loss.cut;
	if ((cut.count > 0 && stream_write_diag(w, &cut) != 0) ||
	    say_missing(&agg, a.merge, a.quiet) != 0 ||
	    a.ops->finish(v, w) != 0 || stream_write_end(w, &end) != 0 ||
	    stream_writer_close(w) != 0)
		cli_write_error(a.out);
	a.ops->destroy(v);
	stream_reader_free(r);
	args_release(&a);
	if (cli_close_output(fp, a.out, in.read > 0) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
