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

#include "base/buf.h"
#include "cli/cli.h"
#include "filter/filter.h"
#include "filter/filter_link.h"
#include "filter/filter_out.h"
#include "model/model.h"
#include "stream/holdback.h"
#include "stream/loss.h"
#include "stream/stream.h"
#include "views/view.h"
#include "base/platform.h"
#include "views/view_diff.h"
#include "views/view_merge.h"

#define PRODUCER "etlagg 0.1"

enum {
	OPT_VIEW = 256, OPT_CMDLINE, OPT_PID, OPT_RUSTC, OPT_CHILDREN,
	OPT_NOTE_FILTERS
};

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlagg [-fq] [--note-filters] [-o file] view "
	    "[view-options]\n              [filters] [+ view [view-options] "
	    "[filters] ...] [file ...]\n");
	if (status == CLI_OK) {
		fprintf(fp, "Aggregate the event stream into a table.  Views:\n");
		view_list(fp);
		fprintf(fp,
		    "Options, before or after the view and the files:\n"
		    "  -f         write the stream even to a terminal\n"
		    "  -o file    write to file instead of standard output\n"
		    "  -q         no warnings: what an input lost, the events it\n"
		    "             lacks, how the trace was recorded; errors are\n"
		    "             still said\n"
		    "  --note-filters  a view with filters says them in a note\n"
		    "             (\"note: processes: --rustc\"), which etlreport\n"
		    "             titles what it draws with\n"
		    "  --diff base  of cpu, vmem, heap, threads, waits, crates,\n"
		    "             processes or stats: the view of base and of\n"
		    "             the input, joined, with the changes\n"
		    "  -h, --help this text\n"
		    "  --version  the version\n"
		    "Filters, of the view they are given with, as etlfilter's:\n"
		    "  -p regex, --process regex  processes by image name\n"
		    "  --cmdline regex  processes by command line\n"
		    "  --pid list  processes by pid (123,456)\n"
		    "  --rustc    the processes of a Rust build\n"
		    "  --children and the descendants of those\n"
		    "  -i, --ignore-case  regexes ignore case\n"
		    "  -v, --invert  the processes that do not match\n"
		    "A view with filters counts what `etlfilter filters |\n"
		    "etlagg view` counts, in the same pass as the others.\n"
		    "Views joined by + are computed in one pass over the\n"
		    "inputs; the output is their streams one after another,\n"
		    "the bytes separate runs would write.\n"
		    "With no file, or when file is -, read standard input.\n"
		    "A trace (.etl) or rustc profile (.mm_profdata) named as\n"
		    "file is decoded first, as etlcat -q decodes it.\n");
	}
	exit(status);
}

#define VIEWS_MAX	32	/* views joined by + */
#define FWORDS_MAX	256	/* bytes of a view's filters in its note */

/* One view of the command line: its name and options. */
struct vspec {
	const struct view_ops *ops;
	int merge;
	char *diff;		/* --diff BASE, for a view without its own */
	char **vargv;		/* the view's name and options */
	int vargc;
	char **vopt;		/* while parsing: its options as given */
	int nv;
	/* Its filters, as etlfilter's, and their options in a line. */
	struct filter *filter;
	struct buf fkey;
	/* Its filters as words, for --note-filters: "-v --pid 0". */
	char fwords[FWORDS_MAX];
};

/* What the command line says. */
struct args {
	struct vspec views[VIEWS_MAX];
	int nviews;
	int force, quiet, note_filters;
	const char *out;
	char **files;
	int nfiles;
	/*
	 * Every file read: the inputs ("-" for none), the --diff base and
	 * the files views' options name, which the output must not be.
	 */
	char **reads;
	int nreads;
	struct option *all;	/* while parsing */
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
		{ "process", required_argument, NULL, 'p' },
		{ "cmdline", required_argument, NULL, OPT_CMDLINE },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "rustc", no_argument, NULL, OPT_RUSTC },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "ignore-case", no_argument, NULL, 'i' },
		{ "invert", no_argument, NULL, 'v' },
		{ "note-filters", no_argument, NULL, OPT_NOTE_FILTERS },
	};
	const size_t nown = sizeof(own) / sizeof(own[0]);
	const struct view_ops *ops;
	struct option *all;
	size_t n = 0, cap = nown + 1, i, j, k;

	for (i = 0; (ops = view_at(i)) != NULL; i++)
		for (j = 0; ops->options != NULL && ops->options[j].name; j++)
			cap++;
	if ((all = calloc(cap, sizeof(*all))) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	for (i = 0; i < nown; i++)
		all[n++] = own[i];
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

	if (strcmp(name, "merge") == 0 && ops->merge != NULL)
		return 1;
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

/* Whether the view's option `name` names a file it reads. */
static int
is_file_option(const struct view_ops *ops, const char *name)
{
	size_t j;

	for (j = 0; ops->file_options != NULL && ops->file_options[j]; j++)
		if (strcmp(ops->file_options[j], name) == 0)
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
set_view(struct vspec *vs, const char *name)
{
	if ((vs->ops = view_find(name)) == NULL) {
		cli_warn("unknown view '%s'", name);
		usage(stderr, CLI_USAGE);
	}
	vs->vargv[0] = (char *)name;
}

/* A word that is not an option: a view's name, "+" or a file. */
static void
take_word(struct args *a, char *word, int *want_view)
{
	struct vspec *vs = &a->views[a->nviews - 1];

	if (strcmp(word, "+") == 0) {
		if (vs->ops == NULL) {
			cli_warn("no view before +");
			usage(stderr, CLI_USAGE);
		}
		if (a->nviews == VIEWS_MAX) {
			cli_warn("more than %d views", VIEWS_MAX);
			usage(stderr, CLI_USAGE);
		}
		a->views[a->nviews].vargv = vs->vargv + vs->nv + 1;
		a->views[a->nviews].vopt = vs->vopt + vs->nv;
		a->nviews++;
		*want_view = 1;
	} else if (*want_view) {
		set_view(vs, word);
		*want_view = 0;
	} else
		a->files[a->nfiles++] = word;
}

/*
 * The views that count, whose tables --diff BASE joins with BASE's
 * (views/view_diff.h); queries and heapsnap have a --diff of their own.
 */
static int
is_diffable(const struct view_ops *ops)
{
	static const char *const names[] = { "cpu", "vmem", "heap",
	    "threads", "waits", "crates", "processes", "stats", NULL };
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(ops->name, names[i]) == 0)
			return 1;
	return 0;
}

/*
 * Checks a view's options against the view and makes its argument
 * vector: the name, then "--name" or "--name=value" and second values;
 * the files they name go to a->reads.
 */
static void
view_args(struct args *a, struct vspec *vs)
{
	int i;

	vs->vargc = 1;
	for (i = 0; i < vs->nv; i++) {
		size_t len;
		char name[64];

		/* Only a second value does not start with "--". */
		if (strncmp(vs->vopt[i], "--", 2) != 0) {
			vs->vargv[vs->vargc++] = vs->vopt[i];
			continue;
		}
		len = strcspn(vs->vopt[i] + 2, "=");
		snprintf(name, sizeof(name), "%.*s", (int)len, vs->vopt[i] + 2);
		if (strcmp(name, "diff") == 0 && !view_has_option(vs->ops,
		    name) && is_diffable(vs->ops)) {
			if ((vs->diff = strdup(vs->vopt[i] + 2 + len + 1)) ==
			    NULL)
				cli_fatal(CLI_DATA_ERROR, "out of memory");
			a->reads[a->nreads++] = vs->diff;
			free(vs->vopt[i]);
			continue;
		}
		if (!view_has_option(vs->ops, name)) {
			cli_warn("view %s has no option --%s", vs->ops->name,
			    name);
			usage(stderr, CLI_USAGE);
		}
		if (strcmp(name, "merge") == 0) {
			vs->merge = 1;
			/* view_merge.c merges it: the view never sees it. */
			if (vs->ops->merge != NULL) {
				free(vs->vopt[i]);
				continue;
			}
		}
		if (is_file_option(vs->ops, name) && vs->vopt[i][2 + len] ==
		    '=')
			a->reads[a->nreads++] = vs->vopt[i] + 2 + len + 1;
		vs->vargv[vs->vargc++] = vs->vopt[i];
	}
	if (vs->filter == NULL)
		return;
	/* A filter judges events; --merge reads tables. */
	if (vs->merge) {
		cli_warn("view %s: --merge adds up tables, and a filter "
		    "judges events: filter the events before the tables are "
		    "made", vs->ops->name);
		usage(stderr, CLI_USAGE);
	}
	if (filter_compile(vs->filter) != 0)
		cli_fatal(CLI_USAGE, "%s", filter_error(vs->filter));
}

/* Adds a filter option to the view's words, as etlfilter spells it. */
static void
filter_words(struct vspec *vs, int ch, const char *arg)
{
	const char *name = ch == 'p' ? "-p" : ch == OPT_CMDLINE ? "--cmdline" :
	    ch == OPT_PID ? "--pid" : ch == OPT_RUSTC ? "--rustc" :
	    ch == OPT_CHILDREN ? "--children" : ch == 'i' ? "-i" : "-v";
	size_t len = strlen(vs->fwords);
	int takes = ch == 'p' || ch == OPT_CMDLINE || ch == OPT_PID;

	/* Cut at FWORDS_MAX: a note, not a record of the command line. */
	snprintf(vs->fwords + len, sizeof(vs->fwords) - len, "%s%s%s%s",
	    len > 0 ? " " : "", name, takes ? " " : "", takes ? arg : "");
}

/*
 * A filter option `ch` of the view `vs`: etlfilter's, through the same
 * calls, so that it means what it means there.  Its text goes to the
 * view's key, which tells the views that share a filter.
 */
static void
filter_option(struct vspec *vs, int ch, const char *arg)
{
	struct filter *f;
	int rc = 0;

	if (vs->filter == NULL && (vs->filter = filter_new()) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	f = vs->filter;
	switch (ch) {
	case 'p':
		rc = filter_add_process(f, arg);
		break;
	case OPT_CMDLINE:
		rc = filter_add_cmdline(f, arg);
		break;
	case OPT_PID:
		rc = filter_add_pids(f, arg);
		break;
	case OPT_RUSTC:
		rc = filter_add_rustc(f);
		break;
	case OPT_CHILDREN:
		filter_add_flags(f, FILTER_CHILDREN);
		break;
	case 'i':
		filter_add_flags(f, FILTER_ICASE);
		break;
	case 'v':
		filter_add_flags(f, FILTER_INVERT);
		break;
	}
	if (rc != 0)
		cli_fatal(CLI_USAGE, "%s", filter_error(f));
	filter_words(vs, ch, arg);
	buf_put_u8(&vs->fkey, (unsigned)ch & 0xff);
	buf_put_str(&vs->fkey, arg);
	buf_put_u8(&vs->fkey, 0);
}

/*
 * Parses the command line GNU style: options anywhere, the first word
 * that is not an option's the view, the rest files.  A word "+" begins
 * another view: the word after it is its name, and the view options
 * after it are its own (those before the first view's name are the
 * first view's).  The views' options are checked against their views
 * and handed to their create() afterwards.
 */
static void
parse_args(int argc, char *argv[], struct args *a)
{
	struct option *all;
	char **vopt;
	int ch, idx, i, want_view = 1;
	struct vspec *vs;

	a->all = all = all_options();
	/* Every view's arguments in one array, each after the last's. */
	a->views[0].vargv = calloc((size_t)argc * 2 + 2, sizeof(char *));
	a->files = calloc((size_t)argc + 1, sizeof(char *));
	a->reads = calloc((size_t)argc + 2, sizeof(char *));
	a->views[0].vopt = vopt = calloc((size_t)argc + 1, sizeof(char *));
	if (a->views[0].vargv == NULL || a->files == NULL ||
	    a->reads == NULL || vopt == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	a->nviews = 1;
	/* "-": words that are not options come back in order, as 1. */
	while ((ch = getopt_long(argc, argv, "-fhio:p:qv", all, &idx)) !=
	    -1) {
		vs = &a->views[a->nviews - 1];
		switch (ch) {
		case 1:
			take_word(a, optarg, &want_view);
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
		case OPT_NOTE_FILTERS:
			a->note_filters = 1;
			break;
		case 'V':
			printf("%s\n", PRODUCER);
			exit(CLI_OK);
		case 'i':
		case 'p':
		case 'v':
		case OPT_CMDLINE:
		case OPT_PID:
		case OPT_RUSTC:
		case OPT_CHILDREN:
			filter_option(vs, ch, optarg);
			break;
		case OPT_VIEW:
			vs->vopt[vs->nv++] = view_token(all[idx].name,
			    all[idx].has_arg ? optarg : NULL);
			/* Its second value, known once the view is. */
			if (vs->ops != NULL && is_pair_option(vs->ops,
			    all[idx].name) && optind < argc &&
			    (vs->vopt[vs->nv++] = strdup(argv[optind++])) ==
			    NULL)
				cli_fatal(CLI_DATA_ERROR, "out of memory");
			break;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	for (i = optind; i < argc; i++)	/* after "--" */
		take_word(a, argv[i], &want_view);
	if (want_view) {
		cli_warn(a->nviews > 1 ? "no view after +" : "no view given");
		usage(stderr, CLI_USAGE);
	}
	/* Each file read is a word of argv, or the "-" of no file. */
	for (i = 0; i < a->nfiles; i++)
		a->reads[a->nreads++] = a->files[i];
	if (a->nfiles == 0)
		a->reads[a->nreads++] = (char *)"-";
	for (i = 0; i < a->nviews; i++)
		view_args(a, &a->views[i]);
	free(vopt);
	free(all);
	a->all = NULL;
}

static void
args_release(struct args *a)
{
	int i, j;

	for (j = 0; j < a->nviews; j++) {
		for (i = 1; i < a->views[j].vargc; i++)
			free(a->views[j].vargv[i]);
		free(a->views[j].diff);
		filter_free(a->views[j].filter);
		buf_release(&a->views[j].fkey);
	}
	free(a->views[0].vargv);
	free(a->files);
	free(a->reads);
}

/* A view being computed, and what the input held for it. */
struct aggview {
	const struct view_ops *ops;
	struct view *v;
	int merge;
	int group;		/* of its pass (struct pass) */
	unsigned ours;		/* tables in the input of the view's */
	uint64_t needed;	/* events of the kind it needs_kind */
	char other[64];		/* the name of one that is not */
	/* The records passed on, for a view whose output waits its turn. */
	struct holdback *passed;
	/* --merge of a view that view_merge.c merges in its place. */
	struct view_merge *mg;
	/* --diff: the base's tables, joined with the view's at the end. */
	struct view_diff *dd;
};

/*
 * Views fed by one reader: the views without filters by the reader of
 * the inputs, and the views that share a filter by the reader of a
 * filter link (filter/filter_link.h), on a thread of its own.
 */
struct aggregation {
	struct aggview *views[VIEWS_MAX];
	int nviews;
	/* Where the records passed on go at once, or NULL if held. */
	struct stream_writer *w;
	const char *out;
	unsigned tables;	/* tables in the input */
	uint64_t events;
	uint64_t all_events;	/* of every input */
	/* Behind a filter: the filter (the first view's), and its link. */
	struct vspec *spec;
	struct filter_link *link;
	/* What its views share of the stream: fed once, before them. */
	struct model *m;
};

/* One pass over the inputs: groups[0] has the views without filters. */
struct pass {
	struct aggregation groups[VIEWS_MAX + 1];
	int ngroups;
};

/* The reader flags that make it read less, not more. */
#define LESS_FLAGS	(STREAM_EVENT_HEADS | STREAM_QUERY_LABELS)

/* Records the views hold back in memory, then in a file. */
#define PASSED_MEM_MAX	(1u << 20)

/* What a filter link holds back in memory, as etlfilter (then a file). */
#define LINK_HOLD_MAX	(16u << 20)

/*
 * Feeds a record to the views.  DIAG records pass on, so that what the
 * input lost reaches etlreport; so do records of unknown types.  The
 * first view's go to the output at once, the others' are held until
 * their turn.
 */
static int
aggregate(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct aggregation *a = ctx;
	struct aggview *av;
	int i;

	if (model_before(a->m, r, rec) != 0)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	for (i = 0; i < a->nviews; i++) {
		av = a->views[i];
		if ((av->mg != NULL ? view_merge_record(av->mg, rec) :
		    av->ops->record(av->v, r, rec)) != 0)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
		if (rec->type == REC_EVENT &&
		    rec->u.event.h.kind == av->ops->needs_kind)
			av->needed++;
		if (rec->type != REC_TABLE)
			continue;
		if (view_has_table(av->ops, rec->u.table.name))
			av->ours++;
		else
			snprintf(av->other, sizeof(av->other), "%s",
			    rec->u.table.name);
	}
	if (model_after(a->m, r, rec) != 0)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (rec->type == REC_EVENT) {
		a->events++;
		a->all_events++;
	}
	if (rec->type == REC_TABLE)
		a->tables++;
	if (stream_rec_known(rec->type) && rec->type != REC_DIAG)
		return 0;
	if (a->w != NULL && stream_write_record(a->w, rec) != 0)
		cli_write_error(a->out);
	for (i = 0; i < a->nviews; i++)
		if (a->views[i]->passed != NULL &&
		    holdback_push(a->views[i]->passed, rec, 0) != 0)
			cli_fatal(CLI_DATA_ERROR, "cannot hold records back: "
			    "%s", strerror(errno));
	return 0;
}

/*
 * Feeds a record of the input to a pass: to the views without filters,
 * and to each filter link, whose thread feeds its views.
 */
static int
pass_record(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct pass *p = ctx;
	int g, rc;

	aggregate(&p->groups[0], r, rec);
	for (g = 1; g < p->ngroups; g++)
		if ((rc = filter_link_next(p->groups[g].link, r, rec)) != 0)
			cli_fatal(CLI_DATA_ERROR, "%s: %s", rc ==
			    FILTER_OUT_WRITE ? "a filter's views stopped" :
			    "records held back", strerror(errno));
	return 0;
}

static int start_view(struct aggview *, struct vspec *, struct model *);

/*
 * Adds the view `av` of `vs` to the group of its filters, made if new,
 * and makes the view, with the model of its group.
 * @return : 0, or -1 when its create() failed (see start_view()).
 */
static int
pass_add(struct pass *p, struct aggview *av, struct vspec *vs)
{
	struct aggregation *a;
	int g = 0;

	if (p->ngroups == 0)
		p->ngroups = 1;
	if (vs->filter != NULL) {
		for (g = 1; g < p->ngroups; g++)
			if (p->groups[g].spec->fkey.len == vs->fkey.len &&
			    memcmp(p->groups[g].spec->fkey.data, vs->fkey.data,
			    vs->fkey.len) == 0)
				break;
		if (g == p->ngroups)
			p->groups[p->ngroups++].spec = vs;
	}
	a = &p->groups[g];
	if (a->m == NULL && (a->m = model_new()) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	av->group = g;
	a->views[a->nviews++] = av;
	/* A view that merges tables reads none of the stream's events. */
	return start_view(av, vs, vs->merge ? NULL : a->m);
}

/* The inputs have ended: what they left open is closed, for every view. */
static void
pass_close(struct pass *p)
{
	int g;

	for (g = 0; g < p->ngroups; g++)
		model_close(p->groups[g].m);
}

/* Frees what the views of the pass shared, after the views. */
static void
pass_free(struct pass *p)
{
	int g;

	for (g = 0; g < p->ngroups; g++) {
		model_free(p->groups[g].m);
		p->groups[g].m = NULL;
	}
}

/*
 * What a reader for the views of `a` must read: its flags (*less keeps
 * those that read less only if every view does without) and the kinds
 * whose fields it decodes (0: every kind).
 */
static void
reader_needs(const struct aggregation *a, unsigned *flags, unsigned *less,
    uint32_t *kinds, int *all_kinds)
{
	int i;

	for (i = 0; i < a->nviews; i++) {
		const struct view_ops *ops = a->views[i]->ops;

		*flags |= ops->reader_flags & ~LESS_FLAGS;
		*less &= ops->reader_flags;
		*kinds |= ops->field_kinds;
		*all_kinds |= ops->field_kinds == 0;
	}
}

/*
 * The reader of the inputs: what every view needs, since the filter
 * links pass on what it read; and, with links, what etlfilter reads
 * (every event's fields but for the kinds it leaves alone).
 */
static struct stream_reader *
pass_reader(const struct pass *p)
{
	struct stream_reader *r;
	unsigned flags = 0, less = LESS_FLAGS;
	uint32_t kinds = 0;
	int g, all_kinds = 0;

	for (g = 0; g < p->ngroups; g++)
		reader_needs(&p->groups[g], &flags, &less, &kinds, &all_kinds);
	if (p->ngroups > 1) {
		less &= ~STREAM_EVENT_HEADS;
		kinds |= STREAM_KIND(EV_CSWITCH) | STREAM_KIND(EV_READY);
	}
	if ((r = stream_reader_new(flags | less)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (!all_kinds)
		stream_reader_fields_of(r, kinds);
	return r;
}

/* Starts the filter links of the pass, each on a thread. */
static void
pass_start(struct pass *p)
{
	struct aggregation *a;
	unsigned flags, less;
	uint32_t kinds;
	int g, all_kinds;

	for (g = 1; g < p->ngroups; g++) {
		a = &p->groups[g];
		flags = 0, less = LESS_FLAGS, kinds = 0, all_kinds = 0;
		reader_needs(a, &flags, &less, &kinds, &all_kinds);
		if ((a->link = filter_link_new(a->spec->filter, flags | less,
		    all_kinds ? 0 : kinds, LINK_HOLD_MAX, aggregate, a)) ==
		    NULL)
			cli_fatal(CLI_DATA_ERROR, "cannot start a filter: %s",
			    strerror(errno));
	}
}

/* An input has ended: what the links held goes to their views. */
static void
pass_input_end(struct pass *p)
{
	int g;

	for (g = 1; g < p->ngroups; g++)
		if (filter_link_input_end(p->groups[g].link) != 0)
			cli_fatal(CLI_DATA_ERROR, "records held back: %s",
			    strerror(errno));
}

/* The inputs have ended: waits for the links' views to have it all. */
static void
pass_join(struct pass *p)
{
	char err[256];
	int g;

	for (g = 1; g < p->ngroups; g++) {
		if (filter_link_close(p->groups[g].link, err, sizeof(err)) < 0)
			cli_fatal(CLI_DATA_ERROR, "a filter's stream: %s",
			    err);
		p->groups[g].link = NULL;
	}
}

/*
 * Whether `av`, merged by view_merge.c, can use the input just read, of
 * `status`: only its own tables; events it would leave out unsaid.
 * @return : 0, or -1 after saying which input it got and which it needs.
 */
static int
check_merge_input(const struct aggview *av, const struct aggregation *agg,
    const char *name, int status)
{
	const char *view = av->ops->name;

	if (agg->events > 0)
		cli_warn("%s: holds events, which %s --merge leaves out: it "
		    "adds up the tables that etlagg %s writes", name, view,
		    view);
	else if (agg->tables > 0 && av->ours == 0)
		cli_warn("%s: no %s table to merge (it holds %s tables, of "
		    "another view)", name, view, av->other);
	else if (av->ours == 0 && status == CLI_OK)
		cli_warn("%s: holds neither events nor tables: %s --merge adds "
		    "up the tables that etlagg %s writes", name, view, view);
	else
		return 0;
	return -1;
}

/*
 * Reads one input.  With --merge, an input of tables none of which is
 * the view's is an error: merging it would give an empty table.  So is
 * an input of tables and no events without --merge, and an input with
 * events for a view that view_merge.c merges: it reads only tables.
 * Views with filters never merge: only those without are looked at.
 */
static int
read_input(struct cli_inputs *in, const char *path, struct pass *p)
{
	struct aggregation *agg = &p->groups[0];
	int status, i, merge = p->ngroups == 1;

	for (i = 0; i < agg->nviews; i++) {
		agg->views[i]->ours = 0;
		merge &= agg->views[i]->merge;
	}
	agg->tables = 0;
	agg->events = 0;
	status = cli_read_stream(in, path, pass_record, p);
	pass_input_end(p);
	if (!merge && agg->tables > 0 && agg->events == 0) {
		cli_warn("%s: holds tables, not events (--merge adds up "
		    "tables of this view)", in->name);
		return CLI_DATA_ERROR;
	}
	for (i = 0; i < agg->nviews; i++) {
		const struct aggview *av = agg->views[i];

		if (av->mg != NULL) {
			if (check_merge_input(av, agg, in->name, status) != 0)
				status = CLI_DATA_ERROR;
		} else if (av->merge && agg->tables > 0 && av->ours == 0) {
			cli_warn("%s: no %s table to merge (it holds %s "
			    "tables, of another view)", in->name,
			    av->ops->name, av->other);
			status = CLI_DATA_ERROR;
		}
	}
	return status;
}
/*
 * Makes the view that vs names in av, with what merges it in its place
 * under --merge.  @return : 0, or -1 when its create() failed (errno
 * says why, and it said why unless for memory).
 */
static int
start_view(struct aggview *av, struct vspec *vs, struct model *m)
{
	int used;

	av->ops = vs->ops;
	av->merge = vs->merge;
	if ((av->v = vs->ops->create(vs->vargc, vs->vargv, &used, m)) == NULL)
		return -1;
	if (vs->merge && vs->ops->merge != NULL &&
	    (av->mg = view_merge_new(vs->ops->merge)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	return 0;
}

/* Writes a view's tables, or its merged tables with --merge. */
static int
write_tables(struct aggview *av, struct stream_writer *w)
{
	return av->mg != NULL ? view_merge_write(av->mg, w) :
	    av->ops->finish(av->v, w);
}

/*
 * --diff: a stream of what `av` would write into a scratch file, read
 * back as `side` of its join; base, when not NULL, is a stream of the
 * base's DIAG records, read before it.  @return : 0, or -1 (said why).
 */
static int
tables_to_diff(struct aggview *av, int side, FILE *base)
{
	FILE *fp = platform_scratch_file();
	struct stream_writer *w;
	struct stream_end end = { 0 };
	int rc;

	if (fp == NULL || (w = stream_writer_new(fp, CLI_STREAM_LEVEL)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "--diff: no scratch file: %s",
		    strerror(errno));
	if (stream_write_header(w, PRODUCER) != 0 || write_tables(av, w) != 0 ||
	    stream_write_end(w, &end) != 0 || stream_writer_close(w) != 0)
		cli_fatal(CLI_DATA_ERROR, "--diff: cannot write a scratch file");
	rewind(fp);
	if (base != NULL)
		rewind(base);
	rc = (base != NULL && view_diff_read(av->dd, side, base) != 0) ||
	    view_diff_read(av->dd, side, fp) != 0 ? -1 : 0;
	fclose(fp);
	if (rc != 0)
		cli_warn("--diff: %s", view_diff_error(av->dd));
	return rc;
}

/* The view's tables joined with the base's. */
static int
write_diff(struct aggview *av, struct stream_writer *w)
{
	if (tables_to_diff(av, 1, NULL) != 0)
		return 0;	/* said; the view writes no table */
	return view_diff_write(av->dd, w, 1);
}


/* The one BASE that the views' --diff name, or NULL if none does. */
static const char *
diff_base(const struct args *a)
{
	const char *base = NULL;
	int i;

	for (i = 0; i < a->nviews; i++)
		if (a->views[i].diff != NULL) {
			if (base != NULL && strcmp(base, a->views[i].diff) != 0)
				cli_fatal(CLI_USAGE, "--diff: one base for all "
				    "the views of a pass (%s, %s)", base,
				    a->views[i].diff);
			base = a->views[i].diff;
		}
	return base;
}

/*
 * --diff BASE: the views that take it computed over BASE in a pass of
 * their own, before the inputs, each behind its filters as over the
 * inputs; each keeps its tables, and the DIAG records its reader of BASE
 * saw (what it lost, what a filter left out), for its join.  Every view
 * names one BASE.  @return : CLI_OK, or CLI_DATA_ERROR (said why).
 */
static int
read_base(struct args *a, struct aggview *main_views)
{
	static struct pass p;
	static struct aggview views[VIEWS_MAX];
	FILE *diags[VIEWS_MAX + 1];
	struct stream_diag cut = { LOSS_CUT, 0, 0, 0 };
	struct stream_end end = { 0 };
	struct stream_reader *r;
	struct cli_inputs in;
	const char *base;
	int i, g, n = 0, status;

	if ((base = diff_base(a)) == NULL)
		return CLI_OK;
	for (i = 0; i < a->nviews; i++) {
		struct vspec *vs = &a->views[i];

		if (vs->diff == NULL)
			continue;
		/* Its arguments were taken once already: only memory fails. */
		if ((main_views[i].dd = view_diff_new()) == NULL ||
		    pass_add(&p, &views[n], vs) != 0)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
		views[n++].dd = main_views[i].dd;
	}
	/* What each group's reader of BASE saw goes to a stream of its own. */
	for (g = 0; g < p.ngroups; g++) {
		struct aggregation *agg = &p.groups[g];

		if ((diags[g] = platform_scratch_file()) == NULL ||
		    (agg->w = stream_writer_new(diags[g], CLI_STREAM_LEVEL)) ==
		    NULL)
			cli_fatal(CLI_DATA_ERROR, "--diff: no scratch file");
		agg->out = "--diff";
		if (stream_write_header(agg->w, PRODUCER) != 0)
			cli_fatal(CLI_DATA_ERROR, "--diff: cannot write a "
			    "scratch file");
	}
	r = pass_reader(&p);
	cli_inputs_init(&in, r);
	in.quiet = a->quiet;
	pass_start(&p);
	status = read_input(&in, base, &p);
	pass_join(&p);
	pass_close(&p);
	cut.count = in.loss.cut;
	for (g = 0; g < p.ngroups; g++)
		if ((cut.count > 0 && stream_write_diag(p.groups[g].w, &cut)) ||
		    stream_write_end(p.groups[g].w, &end) != 0 ||
		    stream_writer_close(p.groups[g].w))
			cli_fatal(CLI_DATA_ERROR, "--diff: cannot write a "
			    "scratch file");
	for (i = 0; i < n; i++) {
		if (status == CLI_OK &&
		    tables_to_diff(&views[i], 0, diags[views[i].group]))
			status = CLI_DATA_ERROR;
		views[i].ops->destroy(views[i].v);
		view_merge_free(views[i].mg);
	}
	for (g = 0; g < p.ngroups; g++)
		fclose(diags[g]);
	pass_free(&p);
	stream_reader_free(r);
	return status;
}

/*
 * An input of events without those the view counts gives an empty
 * table that is no measurement: says so once on stderr (not under -q)
 * and in a DIAG note, which etlreport shows with the table.
 * @return : 0, or -1 on a write error.
 */
static int
say_missing(const struct aggview *av, struct stream_writer *w,
    uint64_t all_events, int quiet)
{
	char what[LOSS_MISSING_LEN + 32];
	struct stream_diag d = { what, 1, 0, 0 };
	const struct view_ops *ops = av->ops;

	if (av->merge || ops->needs == NULL || all_events == 0 ||
	    av->needed > 0)
		return 0;
	if (!quiet)
		cli_warn("%s: %s", ops->name, ops->needs);
	snprintf(what, sizeof(what), "%s%s: %s", LOSS_MISSING, ops->name,
	    ops->needs);
	return stream_write_diag(w, &d);
}

/*
 * --note-filters: the filters of a view, in a DIAG note of count 0 that
 * states what its tables cover ("note: processes: --rustc"), which
 * etlreport titles them with.  It is the one record by which such a
 * view's output differs from that of etlfilter | etlagg, which cannot
 * know the filters.  @return : 0, or -1 on a write error.
 */
static int
note_filters(const char *words, struct stream_writer *w)
{
	char what[FWORDS_MAX + 32];
	struct stream_diag d = { what, 0, 0, 0 };

	if (words == NULL)
		return 0;
	snprintf(what, sizeof(what), "note: processes: %s", words);
	return stream_write_diag(w, &d);
}

/*
 * Ends a view's stream: what the inputs lost, what they lacked for it,
 * with --note-filters its filters, its tables, the end.  A view that did
 * not write as it read (w NULL) writes a stream of its own after the
 * last one: its header and the records held back for it first.
 */
static void
finish_view(struct aggview *av, struct stream_writer *w, FILE *fp,
    const struct cli_inputs *in, const struct aggregation *agg, int quiet,
    const char *filters)
{
	struct stream_end end = { 0 };
	struct stream_diag cut = { LOSS_CUT, 0, 0, 0 };
	struct stream_record rec;
	uint64_t tag;
	int got;

	if (w == NULL) {
		w = cli_stream_writer(fp, CLI_STREAM_LEVEL);
		if (stream_write_header(w, PRODUCER) != 0)
			cli_write_error(agg->out);
		while ((got = holdback_peek(av->passed, &rec, &tag)) == 1) {
			if (stream_write_record(w, &rec) != 0)
				cli_write_error(agg->out);
			holdback_pop(av->passed);
		}
		if (got < 0)
			cli_fatal(CLI_DATA_ERROR, "cannot read records held "
			    "back: %s", strerror(errno));
	}
	/* The table holds less than the inputs did: say so in it. */
	cut.count = in->loss.cut;
	if ((cut.count > 0 && stream_write_diag(w, &cut) != 0) ||
	    say_missing(av, w, agg->all_events, quiet) != 0 ||
	    note_filters(filters, w) != 0 ||
	    (av->dd != NULL ? write_diff(av, w) : write_tables(av, w)) != 0 ||
	    stream_write_end(w, &end) != 0 || stream_writer_close(w) != 0)
		cli_write_error(agg->out);
}

int
main(int argc, char *argv[])
{
	/* Static: what it holds is still reachable when usage() exits. */
	static struct args a;
	static struct pass p;
	static struct aggview views[VIEWS_MAX];
	struct cli_inputs in;
	struct stream_reader *r;
	struct stream_writer *w = NULL;
	int status = CLI_OK, i, live;
	FILE *fp;

	cli_init(argv[0]);
	argv[0] = (char *)cli_progname();
	parse_args(argc, argv, &a);
	view_quiet(a.quiet);
	for (i = 0; i < a.nviews; i++) {
		struct vspec *vs = &a.views[i];

		errno = 0;
		if (pass_add(&p, &views[i], vs) != 0) {
			if (errno == ENOMEM)
				cli_fatal(CLI_DATA_ERROR, "out of memory");
			if (errno == EIO)
				return CLI_DATA_ERROR;
			usage(stderr, CLI_USAGE);
		}
	}
	/*
	 * The first view without filters writes as it reads; the others
	 * hold what they pass on until their turn.
	 */
	live = views[0].group == 0;
	for (i = live; i < a.nviews; i++)
		if ((views[i].passed = holdback_new(PASSED_MEM_MAX)) == NULL)
			cli_fatal(CLI_DATA_ERROR, "out of memory");
	fp = cli_open_output(a.out, 1, a.force, a.nreads, a.reads);
	r = pass_reader(&p);
	if (live) {
		w = cli_stream_writer(fp, CLI_STREAM_LEVEL);
		if (stream_write_header(w, PRODUCER) != 0)
			cli_write_error(a.out);
		p.groups[0].w = w;
	}
	if (read_base(&a, views) != CLI_OK)
		status = CLI_DATA_ERROR;
	cli_inputs_init(&in, r);
	in.quiet = a.quiet;
	for (i = 0; i < p.ngroups; i++)
		p.groups[i].out = a.out;
	pass_start(&p);
	if (a.nfiles == 0)
		status = read_input(&in, "-", &p);
	for (i = 0; i < a.nfiles; i++)
		if (read_input(&in, a.files[i], &p) != CLI_OK)
			status = CLI_DATA_ERROR;
	pass_join(&p);
	pass_close(&p);
	for (i = 0; i < a.nviews; i++) {
		struct aggview *av = &views[i];

		finish_view(av, i == 0 && live ? w : NULL, fp, &in,
		    &p.groups[av->group], a.quiet, a.note_filters &&
		    a.views[i].filter != NULL ? a.views[i].fwords : NULL);
		av->ops->destroy(av->v);
		view_merge_free(av->mg);
		view_diff_free(av->dd);
		if (av->passed != NULL)
			holdback_free(av->passed);
	}
	pass_free(&p);
	stream_reader_free(r);
	args_release(&a);
	if (cli_close_output(fp, a.out, in.read > 0) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}
