/*
 * mmprof_decode.h - rustc self-profile events in the stream: writing them
 * from a .mm_profdata file (in_mmprof), and reading them back for the
 * query views and formats.  This module is the one place that knows how
 * a query event is laid out in the stream (man/etl-stream.5, "query").
 *
 * Writing: one section per profile.  REC_TRACE (format "mm_profdata";
 * start_utc the profile's start_time as FILETIME; logger the counter,
 * "wall-time"), one REC_PROCESS (pid, command line, start), a REC_THREAD
 * per thread id, an EV_PROCESS start and end, and one EV_QUERY event per
 * profile event.  Each (kind, label) pair is a REC_CLASS whose provider
 * is the kind ("Query", "GenericActivity", ...) and whose event is the
 * label ("typeck").  Fields: "end" (ns) for an interval, "value" (u64)
 * for an integer event, nothing for an instant; then the arguments as
 * "arg0", "arg1", ... (str).
 *
 * Time: the trace starts at start_utc, which is the profile's start_time
 * (ns since the Unix epoch) rounded down to 100 ns; an event's ts is
 * that remainder plus its counter value, so start_utc and ts together
 * give the exact time measureme gives.  Integer events have no time of
 * their own: their ts is that of the record before them in the file.
 *
 * Reading: query_input_event() turns a stream record into a struct
 * query_event with a label id that is stable across sections;
 * query_nest rebuilds the per-thread nesting in one forward pass
 * (measureme-format.md section 7, algorithm B).
 *
 * Ownership: the decoder copies what it writes; a query_event points into
 * the stream reader's record and definitions (valid until the next
 * record) and into the query_input (label texts, valid until it is
 * released).  Functions returning int give 0, or -1 on a write error or
 * when out of memory, unless they say otherwise.
 */
#ifndef MMPROF_DECODE_H
#define MMPROF_DECODE_H

#include <stdint.h>

#include "base/idmap.h"
#include "base/intern.h"
#include "base/platform.h"
#include "stream/stream.h"
#include "in_mmprof.h"

/* ---- Writing ---- */

/*
 * Decodes the profile in `m` into a section of its own: etlcat's whole
 * job for a .mm_profdata input.  Problems go to `warn` as "name: what
 * (offset 0x...)"; `verbosity` -1 leaves out the summary of counted
 * ones, 1 adds a line of counts (etlcat -q and -v); `flags` are
 * mmprof_cat_flags.  The pages of a
 * mapped file are let go of as they are read.
 * @return : 0, 1 if the file had problems (it is still decoded as far as
 *	it goes), or -1 on a write error (errno set).
 */
enum mmprof_cat_flags {
	/* No arguments: mmprof_reader_labels_only() (a view of labels). */
	MMPROF_LABELS_ONLY = 1 << 0
};
int mmprof_cat(struct stream_writer *w, const char *producer,
    const char *name, const struct mapped_file *m, int verbosity,
    unsigned flags, void (*warn)(const char *fmt, ...));

/* ---- Reading back ---- */

/* The event kinds that the views treat apart (measureme-format.md 5.1). */
enum query_kind {
	QK_OTHER = 0,		/* e.g. "LLVM Pass" */
	QK_QUERY,		/* "Query": a provider ran (a cache miss) */
	QK_GENERIC,		/* "GenericActivity" */
	QK_BLOCKED,		/* "QueryBlocked" */
	QK_LOAD,		/* "IncrementalLoadResult" */
	QK_HASHING,		/* "IncrementalResultHashing" */
	QK_CACHE_HIT,		/* "QueryCacheHit", an instant */
	QK_HIT_COUNT,		/* "QueryCacheHitCount", an integer */
	QK_ARTIFACT		/* "ArtifactSize", an integer */
};

enum query_type {
	QT_INTERVAL,
	QT_INSTANT,
	QT_INTEGER
};

struct query_event {
	enum query_type type;
	enum query_kind kind;
	const char *kind_name;	/* the class's provider, "Query" */
	const char *label_text;	/* the class's event, "typeck" */
	uint32_t label;		/* id of the label text in the query_input */
	int64_t start, end;	/* ns since trace start; equal for instants */
	uint64_t value;		/* QT_INTEGER */
	uint32_t pid, tid;
	size_t nargs;
	const struct stream_field *args;
};

struct query_class {
	uint32_t label;		/* 0: not looked up yet */
	uint8_t kind;
};

struct query_input {
	struct intern labels;		/* label text -> id 1, 2, ... */
	struct query_class *classes;	/* this section's, by class id */
	size_t ncap;
};

/*
 * Reads one record.  A REC_HEADER forgets the section's classes (label
 * ids stay).  @return : 1 with *q filled for an EV_QUERY event, 0 for any
 * other record, -1 if out of memory.
 */
int query_input_event(struct query_input *in, const struct stream_reader *r,
    const struct stream_record *rec, struct query_event *q);

/* The id of a label text, adding it.  @return : 0 if out of memory. */
uint32_t query_input_label(struct query_input *in, const char *text,
    size_t len);

/* The text of label `id`; *len gets its length. */
const char *query_input_text(const struct query_input *in, uint32_t id,
    size_t *len);

/* How many labels there are: ids run from 1 to this. */
uint32_t query_input_labels(const struct query_input *in);

void query_input_release(struct query_input *in);

/*
 * The crate a rustc command line names after " --crate-name ", as crox
 * finds it: *len bytes at the result; NULL if it names none.
 */
const char *query_crate_name(const char *cmdline, size_t *len);


/* One finished event waiting for its parent; `node` is the caller's. */
struct query_pending {
	int64_t start, end;
	uint32_t node;
};

/*
 * A thread's nesting state.  `p` holds the finished events no parent has
 * taken yet, in time order; at the end of the section they are the
 * thread's roots.  The span is measured over intervals only.
 */
struct query_thread {
	uint32_t pid, tid;
	struct query_pending *p;
	size_t n, cap;
	int has_intervals;
	int64_t first_start;	/* earliest start */
	int64_t max_end;	/* latest end */
	int64_t last_end;	/* end of the last interval in stream order */
};

struct query_nest {
	struct idmap index;	/* pid << 32 | tid -> thread + 1 */
	struct query_thread *t;
	size_t n, cap;
	uint32_t last;		/* the thread found last */
};

/*
 * The state of thread (pid, tid), made on first use; valid until the next
 * call.  @return : NULL if out of memory.
 */
struct query_thread *query_nest_thread(struct query_nest *nest,
    uint32_t pid, uint32_t tid);

/*
 * Takes from t the pending events that an interval starting at `start`
 * contains (those starting at or after it, since a thread's records come
 * in order of their end): its direct children, in time order.  They stay
 * readable at *children until the next query_nest_push() on t.
 * @return : how many.
 */
size_t query_nest_adopt(struct query_thread *t, int64_t start,
    const struct query_pending **children);

/* Appends a finished event (an interval if `interval`, else an instant). */
int query_nest_push(struct query_thread *t, int64_t start, int64_t end,
    uint32_t node, int interval);

/* Forgets every thread (at the end of a section). */
void query_nest_clear(struct query_nest *nest);
void query_nest_release(struct query_nest *nest);

#endif
