/*
 * filter_onepass.c - the filter in one pass (filter.h): verdicts that
 * wait for a definition still to come, the walk up a process's parents,
 * and the two sides of a switch or ready event held back.
 */
#include <stdlib.h>
#include <string.h>

#include "filter_state.h"

/* ---- One pass ---- */

/* A ticket names a PROCESS id with this bit, else a pid. */
#define TICKET_PROCESS (1ull << 32)
/* Both sides of a held switch or ready wait: the second is in pairq. */
#define TICKET_PAIR (1ull << 33)

/* A new section: the notes of the one before go. */
static int
onepass_enter(struct filter *f)
{
	filter_reset(f);
	if (filter_new_section(f) != 0)
		return -1;
	f->cur = 1;
	f->sections[0].resolved = 1;	/* by filter_section_end() */
	f->pq_head = f->pq_len = 0;
	f->kept_defs.len = 0;
	f->onepass = 1;
	filter_clear_section_state(f);
	return 1;
}

/*
 * Whether what filter_parent_of() will say of the parent of `n`, defined
 * after it, is known before the section's end: a process of the rundown
 * is the parent with a rundown or without; another is not with one,
 * and the first one may still come until the rundown is over.
 */
static int
parent_known(const struct section *s, const struct proc_note *n)
{
	uint32_t first;

	if (idmap_get(&s->first, n->ppid, &first))
		return (s->procs[first].flags & NOTE_EARLY) ||
		    s->rundown != RUNDOWN_NONE;
	return s->rundown == RUNDOWN_OVER;
}

/*
 * Settles the parent of process `x` (filter_parent_of()) once it is
 * known: at once for a parent defined before the child; for one not
 * defined yet, as parent_known() says, at the latest at the section's
 * end.  @return : 0, or -1 while it may still change.
 */
static int
settle_parent(const struct filter *f, struct section *s, stream_id x)
{
	struct proc_note *n = &s->procs[x];

	if (n->flags & NOTE_SETTLED)
		return 0;
	if ((n->flags & NOTE_PENDING) && !f->final && !parent_known(s, n))
		return -1;
	n->parent = filter_parent_of(s, x);
	n->flags = (n->flags & ~NOTE_PENDING) | NOTE_SETTLED;
	return 0;
}

/* Gives the processes from `from` up to `to` their verdict. */
static void
mark_path(struct section *s, stream_id from, stream_id to, int match)
{
	for (;; from = s->procs[from].parent) {
		if (!(s->procs[from].flags & NOTE_DONE))
			s->procs[from].flags |= NOTE_DONE |
			    (match ? NOTE_MATCH : 0);
		if (from == to)
			return;
	}
}

/*
 * Decides process `start` as resolve_match() will with the whole
 * section, as soon as the notes so far allow: walks up its parents to
 * a decided process, one that matches on its own, one without a
 * parent, or one already on the way (a cycle).  A parent not defined
 * yet stops the walk: @return FILTER_WAIT, and the next call for
 * `start` goes on from there, so that no process is walked over twice
 * while the first held event waits.  Else @return 1 or 0.
 */
static int
walk(struct filter *f, struct section *s, stream_id start)
{
	struct proc_note *n;
	stream_id x;
	int match;

	if (f->walk_start != start) {
		f->walk_start = f->walk_at = start;
		if (++f->epoch == 0) {
			for (x = 0; x < s->cap; x++)
				s->procs[x].seen = 0;
			f->epoch = 1;
		}
	}
	for (x = f->walk_at;; x = n->parent) {
		n = &s->procs[x];
		n->seen = f->epoch;
		if (n->flags & (NOTE_DONE | NOTE_OWN)) {
			match = !(n->flags & NOTE_DONE) ||
			    (n->flags & NOTE_MATCH);
			break;
		}
		if (settle_parent(f, s, x) != 0) {
			f->walk_at = x;
			return FILTER_WAIT;
		}
		if (n->parent == 0 || s->procs[n->parent].seen == f->epoch) {
			match = 0;
			break;
		}
	}
	mark_path(s, start, x, match);
	f->walk_start = 0;
	return match;
}

/* The verdict on process `id` (defined), or FILTER_WAIT. */
static int
decide(struct filter *f, struct section *s, stream_id id, int may_walk)
{
	unsigned char fl;

	if (id >= s->cap)
		return 0;	/* never: a definition gets a note */
	fl = s->procs[id].flags;
	if (fl & NOTE_DONE)
		return (fl & NOTE_MATCH) != 0;
	if (!(f->flags & FILTER_CHILDREN))
		return (fl & NOTE_OWN) != 0;
	return may_walk ? walk(f, s, id) : FILTER_WAIT;
}

/* A verdict as given out: -v turns a match round, not a wait. */
static int
verdict(const struct filter *f, int v)
{
	if (v == FILTER_WAIT)
		return v;
	return v ^ ((f->flags & FILTER_INVERT) != 0);
}

/*
 * One side of an event in one pass: whether process `pid` matches (-v
 * not applied), or FILTER_WAIT with *ticket for side_held().
 */
static int
side_next(struct filter *f, const struct stream_reader *r, uint32_t pid,
    int holding, uint64_t *ticket)
{
	const struct stream_process *p;
	struct section *s;
	uint32_t id;

	if (!filter_needs_scan(f))
		return filter_process_matches(f, r, pid);
	if (f->nsections == 0)
		return 0;
	s = &f->sections[f->nsections - 1];
	if (pid == PID_NONE)
		return f->names.n == 0 && f->cmdlines.n == 0 &&
		    filter_pid_matches(f, pid);
	if ((p = stream_process_by_pid(r, pid)) != NULL)
		id = p->id;
	else if (!idmap_get(&s->first, pid, &id)) {
		*ticket = pid;
		return FILTER_WAIT;
	}
	*ticket = TICKET_PROCESS | id;
	return decide(f, s, id, !holding);
}

/* The verdict on two sides: kept if either is, after -v. */
static int
either(const struct filter *f, int a, int b)
{
	int inv = (f->flags & FILTER_INVERT) != 0;

	if (a != FILTER_WAIT)
		a ^= inv;
	if (b != FILTER_WAIT)
		b ^= inv;
	if (a == 1 || b == 1)
		return 1;
	return a == 0 && b == 0 ? 0 : FILTER_WAIT;
}

/* Holds the second side's ticket of a held pair, in order. */
static int
pair_push(struct filter *f, uint64_t ticket)
{
	if (f->pq_len == f->pq_cap) {
		size_t cap = f->pq_cap ? f->pq_cap * 2 : 64, i;
		uint64_t *q = malloc(cap * sizeof(*q));

		if (q == NULL)
			return -1;
		for (i = 0; i < f->pq_len; i++)
			q[i] = f->pairq[(f->pq_head + i) % f->pq_cap];
		free(f->pairq);
		f->pairq = q;
		f->pq_cap = cap;
		f->pq_head = 0;
	}
	f->pairq[(f->pq_head + f->pq_len++) % f->pq_cap] = ticket;
	return 0;
}

int
filter_next(struct filter *f, const struct stream_reader *r,
    const struct stream_record *rec, int holding, uint64_t *ticket)
{
	const struct stream_event_head *h = &rec->u.event.h;
	uint64_t ta = 0, tb = 0;
	uint32_t other;
	int a, b, v;

	switch (rec->type) {
	case REC_HEADER:
		return onepass_enter(f);
	case REC_PROCESS:
		if (filter_needs_scan(f) && f->nsections > 0 &&
		    filter_note_process(f, r, &rec->u.process) != 0)
			return -1;
		return filter_note_kept_def(f, &rec->u.process) != 0 ? -1 : 1;
	case REC_EVENT:
		if (filter_needs_scan(f))
			filter_note_rundown(f, rec);
		break;
	default:
		return filter_record(f, r, rec);
	}
	if (!filter_head_matches(f, h))
		return verdict(f, 0);
	if (filter_lifetime(f, &rec->u.event))
		return 1;
	a = side_next(f, r, h->pid, holding, &ta);
	if (!filter_other_pid(f, &rec->u.event, &other)) {
		*ticket = ta;
		return verdict(f, a);
	}
	if (a != FILTER_WAIT && (a ^ ((f->flags & FILTER_INVERT) != 0)))
		return 1;
	b = side_next(f, r, other, holding, &tb);
	if ((v = either(f, a, b)) != FILTER_WAIT)
		return v;
	if (a == FILTER_WAIT && b == FILTER_WAIT) {
		if (pair_push(f, tb) != 0)
			return -1;
		*ticket = TICKET_PAIR | ta;
	} else
		*ticket = a == FILTER_WAIT ? ta : tb;
	return FILTER_WAIT;
}

/* A held side: whether it matches (-v not applied), or FILTER_WAIT. */
static int
side_held(struct filter *f, struct section *s, uint64_t ticket)
{
	uint32_t id, pid = (uint32_t)ticket;

	if (ticket & TICKET_PROCESS)
		id = (uint32_t)ticket;
	else if (!idmap_get(&s->first, pid, &id)) {
		if (!f->final)
			return FILTER_WAIT;
		/* Never defined: only a pid can match it. */
		return f->names.n == 0 && f->cmdlines.n == 0 &&
		    filter_pid_matches(f, pid);
	}
	return decide(f, s, id, 1);
}

int
filter_held(struct filter *f, uint64_t ticket)
{
	struct section *s;
	int v;

	if (f->nsections == 0)
		return verdict(f, 0);
	s = &f->sections[f->nsections - 1];
	if (!(ticket & TICKET_PAIR))
		return verdict(f, side_held(f, s, ticket));
	v = either(f, side_held(f, s, ticket & ~TICKET_PAIR),
	    f->pq_len > 0 ? side_held(f, s, f->pairq[f->pq_head]) : 0);
	if (v != FILTER_WAIT && f->pq_len > 0) {
		f->pq_head = (f->pq_head + 1) % f->pq_cap;
		f->pq_len--;
	}
	return v;
}

void
filter_section_end(struct filter *f)
{
	if (f->nsections > 0)
		filter_resolve_section(f, &f->sections[f->nsections - 1]);
	f->final = 1;
	f->walk_start = 0;
}

