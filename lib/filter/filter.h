/*
 * filter.h - etlfilter's predicate: which events of a stream to keep.
 *
 * A filter is built from etlfilter's options (filter_add_*(), then
 * filter_compile()) and then told every record of an input in order;
 * for each event it answers keep or drop.  Definitions, trace records
 * and tables are not judged here: etlfilter passes all of them on, so
 * that every id a kept event uses still resolves (see etlfilter(1)).
 *
 * The criteria given are all required (and); the values of one option,
 * or of one option given several times, are alternatives (or).  -v
 * inverts the whole, so a filter and its inverse split the events of a
 * stream in two.
 *
 * Context.  A context switch is kept if the thread switched in or the
 * one switched out is of a kept process, and a ready event if the
 * readying or the readied thread is; the lifetimes of every process and
 * thread are kept.  With a window, the events that carry state into it
 * (switches, readies, VirtualAlloc, lifetimes, losses) are kept outside
 * it.  What is kept only as context does not count: the output's SCOPE
 * records (filter_scope_window(), filter_scope_kept()) say what does.
 *
 * Processes.  An event belongs to the process its pid denotes at that
 * point of the stream (stream_process_by_pid()); when the pid has had no
 * definition yet in the section, to the first process the section
 * defines later with that pid, since traces without a rundown at their
 * start define such processes only when they end.  A process matches by
 * its own definition (name, command line, pid), or with children by its
 * parent's: the process its ppid denotes where it is defined (or, if none
 * yet, the first one defined later; in a section with a process rundown,
 * only if the rundown defines it: see enum rundown_state), unless both
 * start times are known and the parent's is later.  Verdicts are cached by PROCESS id, so a
 * reused pid is a new process that matches only on its own or through
 * its own parent; the first definition of a PROCESS id in a section is
 * the one that counts.  A pid or ppid of 4294967295 (the source does not
 * say) denotes no process.
 *
 * Because of the look-ahead, process criteria may decide an event only
 * after some records that follow it.  Two ways to use a filter:
 *
 * One pass: give every record of an input in order to filter_next(),
 * which says keep, drop, or FILTER_WAIT when the verdict on an event
 * waits for a definition to come; such an event, and every record after
 * it, must then be held back in order (filter_out.h does that), and
 * filter_held() asked again for the first one held after each PROCESS
 * record, and after filter_section_end() at the section's end (END, the
 * next HEADER, or the end of the input), when nothing waits any more.
 *
 * Two passes: if filter_needs_scan(), give every record of the input
 * to filter_scan() first, then read the input again through
 * filter_record().  filter_reset() starts a new input.  Without process
 * criteria that need definitions, one pass through filter_record() is
 * enough.  Both ways give every event the same verdict.
 *
 * Memory: the filter copies what it keeps of the options and records; it
 * allocates at definitions, never at events.  Functions returning int
 * give 0 (or a verdict), or -1 when out of memory or, for the option
 * functions, when the argument is bad: filter_error() then says why.
 */
#ifndef FILTER_H
#define FILTER_H

#include "stream/stream.h"

enum filter_flags {
	FILTER_ICASE = 1 << 0,		/* -i: regexes ignore case */
	FILTER_CHILDREN = 1 << 1,	/* descendants of a match match */
	FILTER_INVERT = 1 << 2		/* -v: keep what does not match */
};

struct filter;

/* @return : NULL if out of memory. */
struct filter *filter_new(void);
void filter_free(struct filter *f);

/* ---- Options; each returns 0, or -1 (see filter_error()). ---- */

/* PCRE2 regexes on the image name (-p) and the command line. */
int filter_add_process(struct filter *f, const char *regex);
int filter_add_cmdline(struct filter *f, const char *regex);
/* Comma-separated lists: "123,456". */
int filter_add_pids(struct filter *f, const char *list);
int filter_add_tids(struct filter *f, const char *list);
/* Kind names of stream_kind_name(), and "stack": events with a stack. */
int filter_add_kinds(struct filter *f, const char *list);
/* A provider name, or its GUID with or without braces; any case. */
int filter_add_provider(struct filter *f, const char *name);
/*
 * Times: seconds from the trace's start ("12.5", "-0.001") or an ISO
 * 8601 UTC time ("2020-07-29T00:07:00.62Z").  Events from `from` (kept)
 * up to `to` (not kept).
 */
int filter_set_from(struct filter *f, const char *time);
int filter_set_to(struct filter *f, const char *time);
/* --rustc: the processes of a Rust build and their children. */
int filter_add_rustc(struct filter *f);
/* Adds enum filter_flags. */
void filter_add_flags(struct filter *f, unsigned flags);

/*
 * Compiles the regexes, once all options are in (-i may come last).
 * A bad one gives "bad regex 'x(': missing closing parenthesis (at
 * offset 2)".
 */
int filter_compile(struct filter *f);

/* What the last failing call found wrong. */
const char *filter_error(const struct filter *f);

/* ---- Records ---- */

/* Forgets what was scanned: call before each input. */
void filter_reset(struct filter *f);

/* Whether each input must go through filter_scan() first. */
int filter_needs_scan(const struct filter *f);

/* The first pass: learns the processes.  @return : 0, or -1 (memory). */
int filter_scan(struct filter *f, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * The second (or only) pass.  `r` must be the reader that returned
 * `rec`.  @return : 1 to keep the record, 0 to drop it (only events are
 * ever dropped), -1 when out of memory.
 */
int filter_record(struct filter *f, const struct stream_reader *r,
    const struct stream_record *rec);

/* ---- One pass ---- */

#define FILTER_WAIT 2	/* the verdict waits for a definition to come */

/*
 * Says what to do with `rec`, the next record of the input: 1 keep, 0
 * drop (only events are ever dropped), -1 out of memory, or FILTER_WAIT
 * (events only): *ticket then gets what filter_held() needs to decide it
 * later.  `holding`: events are held back already; an event then gets
 * a verdict now only if that costs nothing, else FILTER_WAIT.
 */
int filter_next(struct filter *f, const struct stream_reader *r,
    const struct stream_record *rec, int holding, uint64_t *ticket);

/*
 * The verdict now on the first event held back: 1, 0, or FILTER_WAIT.
 * Ask for events in the order they came.
 */
int filter_held(struct filter *f, uint64_t ticket);

/* The section has ended: from now on filter_held() does not wait. */
void filter_section_end(struct filter *f);

/* ---- What the output holds (REC_SCOPE, etl-stream(5)) ---- */

/*
 * The window of the section, once its start is known: @return 1 and
 * *sc set, or 0 if there is none (yet).
 */
int filter_scope_window(const struct filter *f, struct stream_scope *sc);

/*
 * At the section's end: the processes whose events count.  @return 1
 * and *sc set (valid until the next call), 0 without process criteria,
 * -1 out of memory.
 */
int filter_scope_kept(struct filter *f, struct stream_scope *sc);

#endif
