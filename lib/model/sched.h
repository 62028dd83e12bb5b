/*
 * sched.h - the schedule of threads rebuilt from context switches and
 * ready threads (etl-events-2.md 3.4 and 3.5), shared by the views
 * threads, waits and switches.
 *
 * Fed every record of the stream in order, it keeps per thread instance
 * (thread id and start: a reused id is another thread) the time it ran,
 * was ready (waiting for a processor) and waited, as WPA's CPU Usage
 * (Precise) computes them:
 *
 *	running	switch-in to the next switch-out; an interval open at the
 *		end of a section is closed at its last event (REC_END)
 *	ready	switch-in minus ready time: the ReadyThread after the last
 *		switch-out, else (preempted) the switch-out itself
 *	waiting	ready time minus the last switch-out
 *
 * A switch-in with no earlier switch-out of that thread in the trace adds
 * to neither.  The idle thread (tid 0) runs on every processor at once:
 * it has running time only, and its switch-ins are not counted.  Each
 * switch-in of another thread is also handed to the views that take
 * switches (struct sched_switch), with the readying thread inferred,
 * when the ReadyThread names none, from the thread running on its
 * processor (3.2).  Several views share one schedule (model.h): each
 * gets the switches and spans of the threads it picked.
 *
 * --from and --to clip every interval to the window, and so does the
 * window of a filter upstream (scope.h); the threads of processes that
 * such a filter kept only as context are `hidden` once their section
 * ends: views give them no row.  Memory: one entry
 * per thread instance and per processor.
 */
#ifndef SCHED_H
#define SCHED_H

#include <getopt.h>
#include <stdint.h>

#include "stream/stream.h"

#define SCHED_NAME	64

struct sched_thread {
	uint32_t tid, pid;
	int64_t start_ns;		/* INT64_MIN: there before the trace */
	char image[SCHED_NAME];
	uint64_t running_ns, ready_ns, waiting_ns, switches;
	/* The state: running since in_ns; or out since out_ns, readied. */
	int running, out, readied;
	int64_t in_ns, out_ns, ready_ns_at;
	uint16_t in_cpu;		/* the processor it runs on */
	int64_t last_out_ns;		/* its last switch-out, or the end of
					   the section it ran to; INT64_MIN */
	char out_state[24], out_reason[24];
	uint32_t readier_tid, readier_pid;
	char readier_image[SCHED_NAME];
	stream_id ready_stack;
	stream_id proc;			/* its PROCESS id, 0 if not known */
	int64_t proc_start_ns;		/* that process's start; INT64_MIN */
	int hidden;			/* context only: no row (scope.h) */
};

/* A switch-in of a thread that had been switched out (3.5's row). */
struct sched_switch {
	int64_t ts;
	uint16_t cpu;
	const struct sched_thread *in;	/* the thread switched in */
	uint32_t old_tid, old_pid;
	const char *old_state, *old_reason;	/* of the thread going out */
	int has_prev;			/* `in` had a switch-out before */
	int64_t last_out_ns, ready_time_ns;
	const char *prev_state, *prev_reason;	/* at that switch-out */
	int readied;			/* by a ReadyThread */
	uint32_t readier_tid, readier_pid;
	const char *readier_image;
	stream_id ready_stack;		/* the readying context's stack */
	uint64_t ready_ns, waiting_ns;	/* clipped to the window */
	stream_id stack;		/* where `in` blocked (3.3) */
};

typedef int (*sched_switch_fn)(void *ctx, const struct stream_reader *r,
    const struct sched_switch *sw);

/*
 * A span of one thread's time in one state, as the sums of struct
 * sched_thread count it, clipped to the window: a thread runs from its
 * switch-in to its switch-out (or the end of its section), waits from
 * its switch-out until it is readied (or switched in without a ready
 * event), and is ready from then to its switch-in.  The idle thread has
 * none.
 */
enum sched_state { SCHED_RUNNING, SCHED_READY, SCHED_WAITING };

struct sched_span {
	const struct sched_thread *t;
	enum sched_state state;
	int64_t from, to;		/* from < to, inside the window */
	uint16_t cpu;			/* running: its processor */
	/* Waiting and ready: how it went out, and who readied it. */
	const char *out_state, *out_reason;
	int readied;
	uint32_t readier_tid, readier_pid;
	const char *readier_image;
};

typedef void (*sched_span_fn)(void *ctx, const struct sched_span *sp);

struct sched;

/* @return : NULL if out of memory. */
struct sched *sched_new(void);
void sched_free(struct sched *s);

/* The window, in ns from the trace's start (INT64_MIN/MAX: none). */
void sched_set_window(struct sched *s, int64_t from, int64_t to);
/* The window set (not narrowed by a filter's). */
void sched_window_of(const struct sched *s, int64_t *from, int64_t *to);

/* The threads a view picked (--tid): n of them; 0, or no pick: all. */
#define SCHED_TIDS_MAX	64
struct sched_pick {
	uint32_t tids[SCHED_TIDS_MAX];
	size_t n;
};
int sched_picked(const struct sched_pick *pick, uint32_t tid);

/*
 * Hands fn, with ctx, each switch-in in the window of the threads
 * `pick` names (NULL: all), which must last as long as the schedule.
 * @return : 0, or -1 when SCHED_SUBS views take them already.
 */
#define SCHED_SUBS	16
int sched_add_switches(struct sched *s, sched_switch_fn fn, void *ctx,
    const struct sched_pick *pick);
/*
 * The same for spans: hands each span of the picked threads to fn as
 * the schedule learns it, in no order across threads; whether a thread
 * is hidden is known only at its section's end.
 */
int sched_add_spans(struct sched *s, sched_span_fn fn, void *ctx,
    const struct sched_pick *pick);

/* Takes in a record.  @return : 0, or -1 if out of memory or fn failed. */
int sched_record(struct sched *s, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * Closes a section the stream left open (no REC_END: cut short) at its
 * last event.  Call before reading the threads.
 */
void sched_close(struct sched *s);

/* The thread instances, 0 .. sched_count() - 1 (the idle thread first). */
size_t sched_count(const struct sched *s);
const struct sched_thread *sched_thread(const struct sched *s, size_t i);

/*
 * What did not fit: switches and readies of threads never named by a
 * thread event, events out of time order, readies of threads not
 * switched out.
 */
struct sched_stats {
	uint64_t switches, readies, unknown_switch, unknown_ready;
	uint64_t unordered, compact;
	int cswitch_stacks, samples;	/* the trace has them */
};
const struct sched_stats *sched_stats(const struct sched *s);

struct frames;

/*
 * Writes the frames of stack `id` named in process `pid` into buf (cap
 * bytes, NUL-terminated): with `which` 0 all of them, outermost first,
 * joined by ';' ([no stack] for id 0, [stack not defined] if a part
 * never came); 1 the innermost user-mode frame (else the innermost); 2
 * that frame's module.  For the wait views, at the end of a section.
 */
void sched_stack_text(struct frames *f, const struct stream_reader *r,
    stream_id id, uint32_t pid, int which, char *buf, size_t cap);

/*
 * Parses a wait view's options, those of `longopts` (the view's own
 * table, which etlagg reads too; each entry's val one of the SCHED_OPT_
 * letters): --by one of `bys` (nby of them; *by the index), --from and
 * --to seconds, --addresses (*flags gets FRAMES_ADDRESSES), --instances
 * (*flags gets SCHED_INSTANCES, for the view to take out), --tid list
 * (into pick; refused when it is NULL).
 * @return : 0, or -1 after a message.
 */
enum {
	SCHED_OPT_ADDRESSES = 'a',
	SCHED_OPT_BY = 'b',
	SCHED_OPT_FROM = 'f',
	SCHED_OPT_INSTANCES = 'I',
	SCHED_OPT_TID = 'i',
	SCHED_OPT_TO = 't'
};
#define SCHED_INSTANCES	(1u << 16)	/* past the frames.h flags */
int sched_options(int argc, char *argv[], int *used, const char *view,
    const struct option *longopts, const char *const *bys, int nby,
    int *by, int64_t *from, int64_t *to, unsigned *flags,
    struct sched_pick *pick);

/*
 * Says the trace health warnings (etl-events-2.md 2.1) through `warn`,
 * which prefixes the program's name and may drop them (-q): sampling
 * and CSwitch stacks in one trace; compact CSwitch batches; switches of
 * threads never named or out of time order.
 */
void sched_warn(const struct sched *s, const char *view,
    void (*warn)(const char *fmt, ...));

#endif
