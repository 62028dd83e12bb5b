/*
 * queryjoin_state.h - the state of the query join, shared by its two
 * files: queryjoin.c keeps what the sections hold, queryjoin_match.c
 * joins it and walks samples and waits beside the queries.
 */
#ifndef QUERYJOIN_STATE_H
#define QUERYJOIN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "mmprof/mmprof_decode.h"
#include "querysegs.h"
#include "queryjoin.h"
#include "stream/stream.h"

struct sched;

#define NO_ID		0xffffffffu

struct qj_section {
	int profile;			/* its profile + 1; 0: a trace */
	int clock;			/* its start in UTC is known */
	int64_t base;			/* its start on the join's clock */
	int64_t end;			/* its last time on that clock */
	uint32_t source;		/* text */
};

struct qj_proc {
	uint32_t section, pid;
	stream_id def;
	int64_t start, end;		/* on the clock; INT64_MIN/MAX */
	int64_t start_ns;		/* as its section gives it */
	uint32_t image, cmdline, label;	/* texts */
	uint64_t samples;
	uint32_t profile;		/* joined + 1 */
	int has_spans;
};

struct qj_thread {
	uint32_t proc, tid;
	int64_t start, end;		/* its life; INT64_MIN, INT64_MAX */
	struct buf spans, samples;	/* delta-encoded, see put_span() */
	int64_t last_span, last_sample;
	uint64_t nspans, nsamples;
	uint32_t pthread;		/* its profile thread + 1 */
};

struct qj_profile {
	uint32_t section, pid;
	int has_start, built;
	int64_t start;
	uint32_t cmdline;		/* text: rustc's arguments */
	struct querysegs segs;
	uint32_t proc;			/* joined to + 1 */
	uint32_t *wthread;		/* by profile thread: Windows + 1 */
};

struct queryjoin {
	struct sched *s;		/* shared (model.h), or its own */
	int own_sched;
	struct query_input in;
	struct intern texts;		/* NUL-terminated: qj_text() */
	struct intern paths;
	struct qj_section *sec;
	size_t nsec, seccap;
	struct qj_proc *procs;
	size_t nprocs, proccap;
	struct qj_thread *threads;
	size_t nthreads, threadcap;
	struct qj_profile *profiles;
	size_t nprofiles, profilecap;
	struct idmap proc_by_def;	/* the section's PROCESS id -> + 1 */
	struct idmap thread_by_key;	/* proc << 32 | tid -> + 1 */
	uint64_t base_utc;		/* FILETIME of the clock's zero */
	int has_base;
	int64_t last_ts;		/* the section's latest event */
	/* The last sample's process and thread, which the next one is
	   likely to share: until a PROCESS or section comes. */
	uint32_t memo_pid, memo_tid, memo_thread;
	int memo;
	int open;			/* a section is open */
	uint64_t left_out;
	uint32_t *inst;			/* joined procs */
	size_t ninst;
	uint32_t *by_proc;		/* thread indices sorted by proc */
	size_t *proc_first;		/* by proc: its first in by_proc */
	struct buf notes;		/* NUL-terminated, one after another */
	size_t *note_at;
	unsigned char *note_failed;
	size_t nnotes, notecap;
	int oom;
};

/* A span of a thread's schedule, and a sample, decoded. */
struct span {
	int64_t from, to;
	int state;
	uint32_t readier_tid, readier_pid;	/* tid NO_ID: none */
};

struct sample {
	int64_t ts;
	uint32_t tag;
};

/* Ends the section left open by a stream cut short, and the schedule. */
void qj_close(struct queryjoin *qj);

/* The text of id `id` ("" for 0); *len, if not NULL, its length. */
const char *qj_text(const struct queryjoin *qj, uint32_t id, size_t *len);

/*
 * A thread's spans and samples, in time order, *n of them.
 * @return : a malloc'd array, or NULL if out of memory.
 */
struct span *qj_spans(const struct qj_thread *t, size_t *n);
struct sample *qj_samples(const struct qj_thread *t, size_t *n);

#endif
