/*
 * filter_state.h - the filter's state and the functions its three files
 * share: filter.c (options, processes, the second pass), filter_onepass.c
 * (one pass, with verdicts that wait) and filter_scope.c (the SCOPE
 * records of what the output holds).  Not for use outside lib/filter.
 */
#ifndef FILTER_STATE_H
#define FILTER_STATE_H

#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "filter.h"

#define PID_NONE	UINT32_MAX	/* the source does not say */

struct regex {
	char *pattern;
	int icase;		/* always, whatever -i says */
	pcre2_code *code;
	pcre2_match_data *md;
};

struct regex_list {
	struct regex *items;
	size_t n;
};

/* One end of the time window, as given. */
struct bound {
	int set;
	int utc;		/* given as a UTC time: `ticks` */
	int64_t ns;		/* given as seconds from the trace's start */
	uint64_t ticks;
};

enum note_flags {
	NOTE_DEFINED = 1 << 0,
	NOTE_OWN = 1 << 1,	/* matches by its own definition */
	NOTE_PENDING = 1 << 2,	/* parent: the first process of `ppid` */
	NOTE_VISITING = 1 << 3,	/* on the path being resolved */
	NOTE_DONE = 1 << 4,	/* NOTE_MATCH is final */
	NOTE_MATCH = 1 << 5,
	NOTE_SETTLED = 1 << 6,	/* `parent` is final (parent_of()) */
	NOTE_EARLY = 1 << 7	/* defined before the trace, by a rundown */
};

/*
 * Where a section is in its process rundown, the processes alive at the
 * trace's start (DCStart events): from its first DCStart event of a
 * process, thread or image to the first event of those kinds that is
 * not a DCStart.
 */
enum rundown_state { RUNDOWN_NONE, RUNDOWN_IN, RUNDOWN_OVER };

/* What the scan learnt of one PROCESS definition. */
struct proc_note {
	stream_id parent;	/* the parent's PROCESS id; 0: none */
	uint32_t ppid;
	int64_t start_ns;
	uint32_t seen;		/* one pass: the walk that last came by */
	unsigned char flags;	/* note_flags */
};

/* The processes of one section of an input. */
struct section {
	struct proc_note *procs;	/* by PROCESS id */
	size_t cap;
	struct idmap first;		/* pid -> its first PROCESS id */
	int resolved;
	enum rundown_state rundown;
};

struct filter {
	unsigned flags;
	struct regex_list names, cmdlines;
	struct idmap pids, tids;	/* sets: the values are unused */
	struct buf pid_list;		/* uint32_t: the pids, as given */
	uint32_t kinds;			/* 1 << kind */
	int kind_stack;			/* "stack": events with a stack */
	char **providers;
	size_t nproviders;
	struct bound from, to;

	struct section *sections;	/* filled by the scan */
	size_t nsections, sections_cap;
	size_t cur;			/* section of the second pass, + 1 */

	/*
	 * One pass: the walk up the parents of the process whose verdict
	 * the first held event waits for, stopped where a parent is not
	 * defined yet, so that it goes on from there (see walk()).
	 */
	int final;			/* the section is over: no waiting */
	stream_id walk_start, walk_at;
	uint32_t epoch;

	/* The second pass's section. */
	unsigned char *classes;		/* provider verdict by CLASS id */
	size_t classes_cap;
	int64_t from_ns, to_ns;
	int window_known;		/* UTC bounds need the trace start */
	int whole;			/* a self-profile: kept whole */

	/*
	 * One pass: the second side's tickets of the switches and readies
	 * held back whose both sides wait (TICKET_PAIR), in order.
	 */
	int onepass;			/* filter_next() is in use */
	uint64_t *pairq;
	size_t pq_head, pq_len, pq_cap;
	/* Non-scan pid criteria: the section's PROCESS ids of kept pids. */
	struct buf kept_defs;
	/* What filter_scope_kept() hands out. */
	struct buf scope_procs, scope_pids;

	char error[256];
};

/* Whether a process criterion is given at all. */
int filter_by_process(const struct filter *f);
int filter_pid_matches(const struct filter *f, uint32_t pid);
/* The scan's note of a PROCESS definition.  @return : 0, or -1. */
int filter_note_process(struct filter *f, const struct stream_reader *r,
    const struct stream_process *p);
int filter_new_section(struct filter *f);
/* The parent of process `id` as the whole section shows it; 0 if none. */
stream_id filter_parent_of(const struct section *s, stream_id id);
/* Follows the section's rundown (enum rundown_state) through `rec`. */
void filter_note_rundown(struct filter *f, const struct stream_record *rec);
/* Gives every process of the section its verdict. */
void filter_resolve_section(const struct filter *f, struct section *s);
/* Whether the events of `pid` at this point belong to a match. */
int filter_process_matches(struct filter *f, const struct stream_reader *r,
    uint32_t pid);
void filter_clear_section_state(struct filter *f);
/* Pid criteria alone: notes a PROCESS of a kept pid.  @return : 0, -1. */
int filter_note_kept_def(struct filter *f, const struct stream_process *p);
/* Whether an event meets the criteria other than its process's. */
int filter_head_matches(const struct filter *f,
    const struct stream_event_head *h);
/* The other process of a switch or ready event: 1 and *pid, or 0. */
int filter_other_pid(const struct filter *f, const struct stream_event *ev,
    uint32_t *pid);
/* Whether an event is kept as context whatever its process. */
int filter_lifetime(const struct filter *f, const struct stream_event *ev);

#endif
