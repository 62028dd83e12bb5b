/*
 * queryjoin.h - rustc self-profiles joined to the trace of the same
 * build: which query each thread of a profiled rustc ran at each
 * instant, so that its samples and its waits are counted by query
 * (etlagg cpu --by query, waits --by query).
 *
 * Fed every record of the inputs, in any order of trace and profile
 * sections (etlcat of a trace and its profiles, or each as an input of
 * its own), it keeps
 *
 *	of each trace section: its processes (pid, start, end), the
 *	running, ready and waiting spans of their threads (sched.h) and
 *	the samples the view hands in, each with a tag of the view's;
 *
 *	of each profile section (format mm_profdata): its pid, its start
 *	and its threads as spans of their innermost query (querysegs.h);
 *
 * all on one clock, ns of UTC from the first section's start (each
 * section's TRACE start_utc plus its times), and joins them when the
 * inputs end (queryjoin_finish(); man/etl-stream.5, "Joining
 * Self-Profiles to a Trace"):
 *
 *	a profile belongs to the process of its pid that was alive at its
 *	start, QUERYJOIN_TOLERANCE_NS either way; of several, the one
 *	alive at the instant, else the nearest;
 *
 *	each profile thread goes to the Windows thread of that process
 *	whose running time (samples when the trace has no context
 *	switches) best fits its queries: the most time running inside
 *	them less the time running between them, among threads alive from
 *	its first query to its last; pairs are taken best first, so that
 *	no two profile threads share a Windows thread, and a profile
 *	thread whose best fit another took says so in the note.
 *
 * Each profile gives a note (queryjoin_note()): its mapping and the
 * share of the instance's running time its queries explain, or why it
 * was not joined (its pid matches no process, none alive at its start,
 * its clock outside the trace).
 *
 * Memory: per Windows thread its spans and samples, delta-encoded
 * (about 6 bytes a span and 4 a sample); per profile its spans of
 * queries; paths of queries interned once.
 */
#ifndef QUERYJOIN_H
#define QUERYJOIN_H

#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"

#define QUERYJOIN_TOLERANCE_NS	16000000	/* a Windows clock tick */

struct queryjoin;
struct sched;

/*
 * A join reading the schedule `shared` (of no window), which its owner
 * feeds every record before the join (model.h), or with `shared` NULL a
 * schedule of its own, which queryjoin_record() feeds.
 * @return : NULL if out of memory, or when the schedule takes no more
 *	views' spans.
 */
struct queryjoin *queryjoin_new(struct sched *shared);
void queryjoin_free(struct queryjoin *qj);

/* Takes in a record.  @return : 0, or -1 if out of memory. */
int queryjoin_record(struct queryjoin *qj, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * A sample of the current trace section, with `tag` (the view's, such
 * as its stack's number; 0 if none), kept for its thread.
 * @return : 0, or -1 if out of memory.
 */
int queryjoin_sample(struct queryjoin *qj, const struct stream_reader *r,
    const struct stream_event *ev, uint32_t tag);

/* Joins what came in.  Call once, after the last record. */
int queryjoin_finish(struct queryjoin *qj);

/* A process with a profile joined to it. */
struct queryjoin_instance {
	const char *label;		/* "crate (pid)", as proclabel.h */
	uint32_t pid;
	int64_t start_ns;		/* since its section's start, or
					   INT64_MIN: before the trace */
	uint64_t samples;		/* of its threads */
	const char *profile;		/* the profile's source */
};

/* The joined processes, 0 .. queryjoin_count() - 1. */
size_t queryjoin_count(const struct queryjoin *qj);
void queryjoin_instance(const struct queryjoin *qj, size_t i,
    struct queryjoin_instance *out);

/* Samples of processes with no profile joined: no row counts them. */
uint64_t queryjoin_left_out(const struct queryjoin *qj);

/*
 * The labels of query path `path`, outermost first (*n of them; 0 for
 * path 0, no query), and the text of a label.
 */
const uint32_t *queryjoin_path(const struct queryjoin *qj, uint32_t path,
    size_t *n);
const char *queryjoin_label(const struct queryjoin *qj, uint32_t label,
    size_t *len);

/*
 * Each sample of a joined process, with the path of queries its thread
 * was in when it was taken (0: none).  @return : 0, or what fn returned
 * first that was not 0.
 */
typedef int (*queryjoin_sample_fn)(void *ctx, size_t instance,
    uint32_t path, uint32_t tag);
int queryjoin_samples(const struct queryjoin *qj, queryjoin_sample_fn fn,
    void *ctx);

/*
 * Each piece of a joined process's blocked time (waiting, then ready
 * for a processor), cut at the bounds of its queries and clipped to the
 * window [from, to) (ns since the start of the trace's section): `ns`
 * of it in `path`; `begins` says the wait began in this piece (count it
 * once there), `wait_ns` is then its whole length (waiting and ready),
 * and the readying thread is named when the trace says it.
 */
struct queryjoin_wait {
	size_t instance;
	uint32_t path;
	int ready;			/* 0 waiting, 1 ready */
	uint64_t ns;
	int begins;
	uint64_t wait_ns;
	int readied;
	uint32_t readier_tid, readier_pid;
};
typedef int (*queryjoin_wait_fn)(void *ctx, const struct queryjoin_wait *w);
int queryjoin_waits(const struct queryjoin *qj, int64_t from, int64_t to,
    queryjoin_wait_fn fn, void *ctx);

/*
 * Each query interval of a joined process, nested again from its
 * thread's spans: the Windows thread that ran it, its label, its depth
 * (0 outermost) and [from, to) in ns since the start of the process's
 * trace section, clipped to the window [from, to).  Two intervals of
 * one query that follow each other with no time between, under the same
 * parent, come out as one (the spans do not tell them apart).
 */
struct queryjoin_query {
	size_t instance;
	uint32_t tid;
	int64_t thread_start;		/* since the section's start, or
					   INT64_MIN: not known */
	uint32_t label, depth;
	int64_t from, to;
};
typedef int (*queryjoin_query_fn)(void *ctx, const struct queryjoin_query *q);
int queryjoin_queries(const struct queryjoin *qj, int64_t from, int64_t to,
    queryjoin_query_fn fn, void *ctx);

/*
 * The notes of the join, "note: query join: ...", 0 .. count - 1;
 * *failed (if not NULL) says whether the note is of a profile that was
 * not joined, which a view says on stderr too.
 */
size_t queryjoin_notes(const struct queryjoin *qj);
const char *queryjoin_note(const struct queryjoin *qj, size_t i,
    int *failed);

#endif
