/*
 * view.h - the aggregations etlagg offers, one file each (view_*.c).
 *
 * A view sees every record of the input stream in order through its
 * record() and, at the end, writes its tables with its finish().
 * Records are the reader's (see stream.h): a view copies what it keeps.
 * Views keep sums, counts and the like, so that tables of several inputs
 * could be merged.
 */
#ifndef VIEW_H
#define VIEW_H

#include <getopt.h>
#include <stdio.h>

#include "stream/stream.h"

struct model;
struct view;
struct view_merge_spec;

struct view_ops {
	const char *name;
	const char *usage;		/* its options, "[--by key]", or "" */
	const char *summary;		/* one line for usage messages */
	unsigned reader_flags;		/* STREAM_KEEP_STACKS if it needs them */
	/*
	 * The event kinds whose fields it reads (STREAM_KIND bits): the
	 * reader skips the fields of the others.  0 for every kind.
	 */
	uint32_t field_kinds;
	/*
	 * The view's options, all long ones, for etlagg to parse with its
	 * own (so that both mix in any order, with the files); NULL if none.
	 */
	const struct option *options;
	/*
	 * Those of its options that take a second value, the word after
	 * the first ("--diff A B"), NULL-terminated; NULL if none.  etlagg
	 * hands that word on after the option.
	 */
	const char *const *pair_options;
	/*
	 * Those of its options whose value is a file it reads (the --diff
	 * base of queries), NULL-terminated; NULL if none.  etlagg never
	 * writes its output over one, as over an input.
	 */
	const char *const *file_options;
	/*
	 * The event kind (EV_*) without which it has nothing to count, and
	 * what to say of an input of events that holds none: which events
	 * the trace lacks, and which WPR profile of pipelines/rustc.wprp
	 * records them.  etlagg says it once and writes it as a DIAG note
	 * (LOSS_MISSING, stream/loss.h) for etlreport to show with the
	 * table, whose figures the view leaves empty.  0 and NULL if none.
	 */
	int needs_kind;
	const char *needs;
	/* The names of the tables it writes and merges, NULL-terminated. */
	const char *const *tables;
	/*
	 * For a view whose tables add up row by row (view_merge.h): how;
	 * etlagg then takes --merge for it, and merges with view_merge.c
	 * in place of the view.  NULL for the others.
	 */
	const struct view_merge_spec *merge;
	/*
	 * Creates the view from its arguments: argv[0] is the view's name,
	 * options follow (parse them with getopt_long after optind = 0) and
	 * the files after them.  *used gets how many arguments were options
	 * (the name counted).  etlagg passes its options as "--name" or
	 * "--name=value", and no files.  @return : NULL on a usage error
	 * (after a message on stderr; errno EINVAL), when out of memory
	 * (errno ENOMEM), or when a file an option names cannot be read
	 * (after a message; errno EIO).  `m` is the model the views of its
	 * stream share (model.h), from which it takes the parts it needs,
	 * or NULL: it then makes a model of its own.
	 */
	struct view *(*create)(int argc, char *argv[], int *used,
	    struct model *m);
	/* @return : 0, or -1 if out of memory. */
	int (*record)(struct view *v, const struct stream_reader *r,
	    const struct stream_record *rec);
	/* Writes the view's tables.  @return : 0, or -1 on a write error. */
	int (*finish)(struct view *v, struct stream_writer *w);
	void (*destroy)(struct view *v);
};

/* The view named `name`, or NULL. */
const struct view_ops *view_find(const char *name);

/*
 * The model a view reads: `m`, the one its stream's views share; or a
 * model of its own, made into *mine, when there is none or when `own`
 * (its options change what the parts hold).  The view feeds *mine
 * itself (model_record()), and frees it.  @return : NULL if out of
 * memory.
 */
struct model *view_model(struct model *m, int own, struct model **mine);

/* For views without options: takes only the name.  Returns `v`. */
struct view *view_no_options(struct view *v, int *used);

/* The i-th view, or NULL past the last: for listing them. */
const struct view_ops *view_at(size_t i);

/* Lists the views, one a line, for usage messages. */
void view_list(FILE *fp);

/* Whether `table` names one of the view's tables. */
int view_has_table(const struct view_ops *ops, const char *table);

/* "etlagg: message" on stderr: a view's message about its arguments. */
void view_warn(const char *fmt, ...);

/*
 * The same for a warning about the input, which leaves the status as it
 * is: said unless view_quiet() was set (etlagg -q).
 */
void view_warning(const char *fmt, ...);
void view_quiet(int quiet);

struct intern;

/* Text `id` of `t` as a cell; NULL (an empty cell) for 0. */
struct value view_text_cell(const struct intern *t, uint32_t id);

/* Writes a table's schema.  Table ids are per writer section. */
int view_write_table(struct stream_writer *w, stream_id id, const char *name,
    const struct stream_column *cols, size_t ncols);

extern const struct view_ops view_stats_ops;
extern const struct view_ops view_sysconfig_ops;
extern const struct view_ops view_processes_ops;
extern const struct view_ops view_tree_ops;
extern const struct view_ops view_cpu_ops;
extern const struct view_ops view_queries_ops;
extern const struct view_ops view_querystacks_ops;
extern const struct view_ops view_vmem_ops;
extern const struct view_ops view_heap_ops;
extern const struct view_ops view_heapsnap_ops;
extern const struct view_ops view_threads_ops;
extern const struct view_ops view_waits_ops;
extern const struct view_ops view_switches_ops;
extern const struct view_ops view_timeline_ops;
extern const struct view_ops view_threadtime_ops;
extern const struct view_ops view_images_ops;
extern const struct view_ops view_crates_ops;

#endif
