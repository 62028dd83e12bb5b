/*
 * proctab.h - the processes of a stream, for the processes, tree and cpu
 * views: who each process was (pid, parent pid, image, command line),
 * when it started and ended, how it ended, how many threads it had, and
 * how many profile samples (and so how much CPU time) fell in it.
 *
 * Processes are identified by their definitions (REC_PROCESS), not by
 * pid: pids are reused.  An event belongs to the latest definition of
 * its pid at its place in the stream.  A sample whose pid has no
 * definition gets a process of its own, named "Idle" for pid 0 (as WPA
 * names it) and "(unknown)" otherwise, so that every sample is counted.
 *
 * The same process seen in several inputs (sections, or rows of tables
 * being merged) is one entry: entries are keyed by pid, image and start
 * time (UTC), a start before the trace counting as one more value of it.
 * Samples and CPU time add up; a start or end that one input knows is
 * kept; the thread count is the most that one input saw, since threads
 * that lived across two traces show in both.
 *
 * CPU time is samples times the sampling interval, which the
 * PerfInfo/CollectionStart and PerfInfo/SetInterval events of the timer
 * source set; 1 ms (10000 units of 100 ns) until they say otherwise.
 *
 * A process is listed (in proctab_by_start() and proctab_tree()) when
 * the stream holds an event of it: its start, end or rundown, a sample,
 * any event with its pid; or a row of it, when merging.  So after
 * etlfilter, the processes whose events it kept are listed, and those
 * only defined are not.
 *
 * Memory: the table copies every string it keeps.  Indices of entries
 * (0 .. proctab_count() - 1) stay valid for the table's life; the
 * pointers proctab_get() returns, only until the next call that adds.
 */
#ifndef PROCTAB_H
#define PROCTAB_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"

#define PROCTAB_NO_TIME	INT64_MIN	/* a start or end not known */
#define PROCTAB_NONE	UINT32_MAX	/* no entry */

struct proc {
	uint32_t pid, ppid;
	int64_t start_ns, end_ns;	/* since the trace start, or NO_TIME */
	uint64_t start_utc, end_utc;	/* FILETIME; 0 if not known */
	uint64_t start_key, end_key;	/* the times to order and match by */
	int64_t exit_status;
	int has_exit;
	uint64_t threads;
	uint64_t samples;
	uint64_t cpu_ns;
	uint32_t image, cmdline;	/* ids for proctab_str() */
	/*
	 * How its life ends in the trace: ended (an end event), running at
	 * the trace's end (in the end rundown), or not known; last_ns is
	 * the last time the trace saw it (its end, the trace's end, or its
	 * last event), end_section the section it was last seen in.
	 */
	enum proc_fate { FATE_UNKNOWN, FATE_EXITED, FATE_RUNNING } fate;
	int64_t last_ns;
	uint64_t end_section;
	int64_t trace_end_ns;		/* from a merged row; else NO_TIME */
	int listed;			/* an event or row names it */
	/* The threads seen in the section that added the last of them. */
	uint64_t section, section_threads;
};

struct proctab;

/* @return : NULL if out of memory. */
struct proctab *proctab_new(void);
void proctab_free(struct proctab *pt);

/*
 * Takes in one record of the stream: sections, the trace's start time,
 * process and thread definitions, process events, samples and the
 * sampling interval.  @return : 0, or -1 if out of memory.
 */
int proctab_record(struct proctab *pt, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * With --merge: takes in the rows of the tables called `name` (columns
 * are found by name: pid, ppid, image, cmdline, start_utc, start,
 * end_utc, end, exit_status, threads, samples, cpu_ms; any may be
 * missing).  Other records are ignored.
 * @return : 0, or -1 if out of memory.
 */
int proctab_merge(struct proctab *pt, const struct stream_record *rec,
    const char *name);

/*
 * The entry that a sample of `pid` belongs to at the reader's place, made
 * if there is none.  @return : its index, or PROCTAB_NONE if out of
 * memory.
 */
uint32_t proctab_of_pid(struct proctab *pt, const struct stream_reader *r,
    uint32_t pid);

/* The sampling interval at the reader's place, in ns. */
uint64_t proctab_interval_ns(const struct proctab *pt);

uint32_t proctab_count(const struct proctab *pt);
const struct proc *proctab_get(const struct proctab *pt, uint32_t index);
/*
 * The crate a command line compiles: the value of --crate-name (or
 * --crate-name=), as rustc takes it; NULL if it has none.
 */
const char *proctab_crate(const char *cmdline, size_t len, size_t *n);

/* A string of an entry; *len gets its length. */
const char *proctab_str(const struct proctab *pt, uint32_t id, size_t *len);

/*
 * The listed entries in order of start (before the trace first), then
 * pid.  @return : a malloc'd array of *n indices, or NULL if out of
 *	memory.
 */
uint32_t *proctab_by_start(const struct proctab *pt, uint32_t *n);

/*
 * The listed entries as a tree: each after its parent, children in
 * order of start, with depth[index] its depth (0 for a root).  The
 * parent of a process is the listed entry with its parent pid that had
 * started by the time it started and had not ended, the latest such; a
 * parent pid of 0 or of the process itself makes a root.
 * @return : a malloc'd array of *n indices and *depth a malloc'd array
 *	of proctab_count() depths, or NULL if out of memory.
 */
uint32_t *proctab_tree(const struct proctab *pt, uint32_t **depth,
    uint32_t *n);

/*
 * What the views over the table alone (processes, tree) share: the
 * option --merge, and feeding records to the table.
 */
struct proctab_view {
	struct proctab *pt;
	const char *table;		/* the table to merge: the view */
	int merge;
	int shared;			/* pt is fed by its owner, not here */
};

/* Their options, for view_ops.options. */
extern const struct option proctab_view_options[];

/*
 * Parses the view's arguments as view_ops.create() does, and takes
 * `shared`, a table its owner feeds (NULL: none), or makes a table of
 * its own when there is none or when the view merges rows.  @return : 0, -1 if out of memory (errno ENOMEM), or 1 on a
 *	usage error (after a message on stderr).
 */
int proctab_view_init(struct proctab_view *pv, const char *table, int argc,
    char *argv[], int *used, struct proctab *shared);
/* @return : 0, or -1 if out of memory. */
int proctab_view_record(struct proctab_view *pv,
    const struct stream_reader *r, const struct stream_record *rec);
void proctab_view_release(struct proctab_view *pv);

/*
 * The columns of the processes table, and a row of it for an entry.
 * end_state is "exited", "running" (at the end of the trace) or
 * "unknown"; last_seen the end, the trace's end or the last event;
 * trace_end the end of the trace it was seen in (so that a timeline of
 * a few processes still spans the trace); crate the --crate-name of a
 * rustc command line.
 */
enum proctab_col {
	PT_PID, PT_PPID, PT_IMAGE, PT_START_UTC, PT_START, PT_END_UTC, PT_END,
	PT_DURATION, PT_EXIT, PT_THREADS, PT_SAMPLES, PT_CPU_MS, PT_END_STATE,
	PT_LAST_SEEN, PT_TRACE_END, PT_CRATE, PT_CMDLINE, PROCTAB_NCOLS
};
extern const struct stream_column proctab_columns[PROCTAB_NCOLS];
void proctab_cells(const struct proctab *pt, uint32_t index,
    struct value cells[PROCTAB_NCOLS]);

#endif
