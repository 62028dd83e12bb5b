/*
 * queryjoin.c - rustc self-profiles joined to the trace (queryjoin.h):
 * what the sections hold, kept for the join (queryjoin_match.c).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/seconds.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "mmprof/mmprof_decode.h"
#include "proclabel.h"
#include "querysegs.h"
#include "queryjoin.h"
#include "queryjoin_state.h"
#include "sched.h"

/* ---- the clock ---- */


static struct qj_section *
cur(struct queryjoin *qj)
{
	return qj->open ? &qj->sec[qj->nsec - 1] : NULL;
}

/* A time of the current section on the join's clock. */
static int64_t
clock_of(struct queryjoin *qj, int64_t ts)
{
	struct qj_section *s = cur(qj);

	return s != NULL ? seconds_add_sat(s->base, ts) : ts;
}

/* The section's start in UTC: its place on the clock. */
static void
on_trace(struct queryjoin *qj, const struct stream_trace *t)
{
	struct qj_section *s = cur(qj);
	int64_t d;

	if (s == NULL)
		return;
	s->profile = 0;
	if (t->format != NULL && strcmp(t->format, "mm_profdata") == 0) {
		struct qj_profile *p = array_slot_grow(&qj->profiles,
		    &qj->profilecap, qj->nprofiles, sizeof(*p));

		if (p == NULL) {
			qj->oom = 1;
			return;
		}
		p->section = (uint32_t)(qj->nsec - 1);
		s->profile = (int)++qj->nprofiles;
	}
	if (t->source != NULL && (s->source = intern_add(&qj->texts,
	    t->source, strlen(t->source) + 1, NULL)) == 0)
		qj->oom = 1;
	if (t->start_utc == 0)
		return;
	if (!qj->has_base) {
		qj->base_utc = t->start_utc;
		qj->has_base = 1;
	}
	/* FILETIMEs centuries apart do not meet: no clock for it. */
	d = (int64_t)(t->start_utc - qj->base_utc);
	if (d > INT64_MAX / 200 || d < -(INT64_MAX / 200))
		return;
	s->base = d * 100;
	s->clock = 1;
}

/* ---- sections ---- */

static uint32_t
text_of(struct queryjoin *qj, const char *t)
{
	uint32_t id;

	if (t == NULL || *t == '\0')
		return 0;
	if ((id = intern_add(&qj->texts, t, strlen(t) + 1, NULL)) == 0)
		qj->oom = 1;
	return id;
}

const char *
qj_text(const struct queryjoin *qj, uint32_t id, size_t *len)
{
	size_t n = 1;
	const char *t = id != 0 ? intern_key(&qj->texts, id, &n) : "";

	/* Texts are kept with their NUL. */
	if (len != NULL)
		*len = n - 1;
	return t;
}

/*
 * The labels of a trace section's processes, named together as
 * proclabel.h names a section's instances.
 */
static void
label_procs(struct queryjoin *qj, uint32_t section)
{
	struct proclabels pl;
	size_t i, il, cl;
	const char *im, *cm, *label;
	uint32_t *ids;
	size_t first = qj->nprocs, n;

	while (first > 0 && qj->procs[first - 1].section == section)
		first--;
	if ((n = qj->nprocs - first) == 0)
		return;
	memset(&pl, 0, sizeof(pl));
	if ((ids = calloc(n, sizeof(*ids))) == NULL) {
		qj->oom = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		const struct qj_proc *p = &qj->procs[first + i];

		im = qj_text(qj, p->image, &il);
		cm = qj_text(qj, p->cmdline, &cl);
		if ((ids[i] = proclabels_add(&pl, p->pid, p->start_ns, im, il,
		    cm, cl)) == 0)
			qj->oom = 1;
	}
	for (i = 0; i < n && !qj->oom; i++) {
		label = proclabels_get(&pl, ids[i], &il);
		if ((qj->procs[first + i].label = intern_add(&qj->texts,
		    label, il + 1, NULL)) == 0)
			qj->oom = 1;
	}
	free(ids);
	proclabels_release(&pl);
}

/* Ends the open section: at its END, or cut short by the next one. */
static void
close_section(struct queryjoin *qj, int64_t end_ns)
{
	struct qj_section *s = cur(qj);
	struct qj_profile *p;

	if (s == NULL)
		return;
	s->end = clock_of(qj, end_ns > qj->last_ts ? end_ns : qj->last_ts);
	if (s->profile != 0) {
		p = &qj->profiles[s->profile - 1];
		if (querysegs_build(&p->segs, &qj->paths) != 0)
			qj->oom = 1;
		p->built = 1;
	} else
		label_procs(qj, (uint32_t)(qj->nsec - 1));
	idmap_release(&qj->proc_by_def);
	idmap_release(&qj->thread_by_key);
	memset(&qj->proc_by_def, 0, sizeof(qj->proc_by_def));
	memset(&qj->thread_by_key, 0, sizeof(qj->thread_by_key));
	qj->open = 0;
}

static void
open_section(struct queryjoin *qj)
{
	struct qj_section *s;

	close_section(qj, 0);
	if ((s = array_slot_grow(&qj->sec, &qj->seccap, qj->nsec,
	    sizeof(*s))) == NULL) {
		qj->oom = 1;
		return;
	}
	qj->nsec++;
	qj->open = 1;
	qj->last_ts = 0;
	qj->memo = 0;
}

/* A PROCESS definition: a process of a trace, or a profile's rustc. */
static void
on_process(struct queryjoin *qj, const struct stream_process *d)
{
	struct qj_section *s = cur(qj);
	struct qj_profile *pf;
	struct qj_proc *p;

	if (s == NULL)
		return;
	if (s->profile != 0) {
		pf = &qj->profiles[s->profile - 1];
		if (!pf->has_start && d->start_ns != INT64_MIN) {
			pf->pid = d->pid;
			pf->start = clock_of(qj, d->start_ns);
			pf->cmdline = text_of(qj, d->cmdline);
			pf->has_start = 1;
		}
		return;
	}
	if ((p = array_slot_grow(&qj->procs, &qj->proccap, qj->nprocs,
	    sizeof(*p))) == NULL) {
		qj->oom = 1;
		return;
	}
	p->section = (uint32_t)(qj->nsec - 1);
	p->pid = d->pid;
	p->def = d->id;
	p->start_ns = d->start_ns;
	p->start = d->start_ns == INT64_MIN ? INT64_MIN :
	    clock_of(qj, d->start_ns);
	p->end = INT64_MAX;
	p->image = text_of(qj, d->name);
	p->cmdline = text_of(qj, d->cmdline);
	if (idmap_put(&qj->proc_by_def, d->id, (uint32_t)++qj->nprocs) != 0)
		qj->oom = 1;
}

/* The process of `pid` at the reader's place, or NO_ID. */
static uint32_t
proc_of(struct queryjoin *qj, const struct stream_reader *r, uint32_t pid,
    stream_id def)
{
	const struct stream_process *d;
	uint32_t i;

	if (def == 0) {
		if ((d = stream_process_by_pid(r, pid)) == NULL)
			return NO_ID;
		def = d->id;
	}
	return idmap_get(&qj->proc_by_def, def, &i) ? i - 1 : NO_ID;
}

/* The Windows thread `tid` of process `proc`, made if new. */
static struct qj_thread *
thread_of(struct queryjoin *qj, uint32_t proc, uint32_t tid)
{
	uint64_t key = (uint64_t)proc << 32 | tid;
	struct qj_thread *t;
	uint32_t i;

	if (idmap_get(&qj->thread_by_key, key, &i))
		return &qj->threads[i - 1];
	if ((t = array_slot_grow(&qj->threads, &qj->threadcap, qj->nthreads,
	    sizeof(*t))) == NULL || idmap_put(&qj->thread_by_key, key,
	    (uint32_t)qj->nthreads + 1) != 0) {
		qj->oom = 1;
		return NULL;
	}
	qj->nthreads++;
	t->proc = proc;
	t->tid = tid;
	t->start = INT64_MIN;
	t->end = INT64_MAX;
	return t;
}

/*
 * A span of the schedule, kept for its thread:
 *	state (0 running, 1 ready, 2 waiting), from less the last from
 *	(zigzag), the length; ready and waiting: the readier's tid + 1
 *	(0: none known) and, when known, its pid.
 */
static void
on_span(void *ctx, const struct sched_span *sp)
{
	struct queryjoin *qj = ctx;
	uint32_t proc, readier = 0;
	struct qj_thread *t;

	if (sp->t->proc == 0 || (proc = proc_of(qj, NULL, sp->t->pid,
	    sp->t->proc)) == NO_ID || (t = thread_of(qj, proc,
	    sp->t->tid)) == NULL)
		return;
	qj->procs[proc].has_spans = 1;
	buf_put_var(&t->spans, (uint64_t)sp->state);
	buf_put_svar(&t->spans, clock_of(qj, sp->from) - t->last_span);
	buf_put_var(&t->spans, (uint64_t)(sp->to - sp->from));
	t->last_span = clock_of(qj, sp->from);
	t->nspans++;
	if (sp->state != SCHED_RUNNING) {
		if (sp->readied && sp->readier_tid != NO_ID)
			readier = sp->readier_tid + 1;
		buf_put_var(&t->spans, readier);
		if (readier != 0)
			buf_put_var(&t->spans, sp->readier_pid);
	}
	if (t->spans.oom)
		qj->oom = 1;
}

/* Lives of processes and threads, from their events. */
static void
on_event(struct queryjoin *qj, const struct stream_reader *r,
    const struct stream_event *ev)
{
	struct qj_thread *t;
	uint32_t proc;

	if (ev->h.kind != EV_PROCESS && ev->h.kind != EV_THREAD)
		return;
	if (ev->h.op != EVOP_START && ev->h.op != EVOP_END)
		return;
	if ((proc = proc_of(qj, r, ev->h.pid, 0)) == NO_ID)
		return;
	if (ev->h.kind == EV_PROCESS) {
		if (ev->h.op == EVOP_END)
			qj->procs[proc].end = clock_of(qj, ev->h.ts);
		return;
	}
	if ((t = thread_of(qj, proc, ev->h.tid)) == NULL)
		return;
	if (ev->h.op == EVOP_START)
		t->start = clock_of(qj, ev->h.ts);
	else
		t->end = clock_of(qj, ev->h.ts);
}

static void
on_query(struct queryjoin *qj, const struct query_event *q)
{
	struct qj_section *s = cur(qj);
	struct qj_profile *p;

	if (s == NULL || s->profile == 0 || q->type != QT_INTERVAL)
		return;
	p = &qj->profiles[s->profile - 1];
	if (querysegs_add(&p->segs, q->tid, clock_of(qj, q->start),
	    clock_of(qj, q->end), q->label) != 0)
		qj->oom = 1;
}

int
queryjoin_record(struct queryjoin *qj, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;
	struct query_event q;
	int rc;

	if (rec->type == REC_HEADER)
		open_section(qj);
	if ((rc = query_input_event(&qj->in, r, rec, &q)) < 0)
		return -1;
	if (rc == 1)
		on_query(qj, &q);
	switch (rec->type) {
	case REC_TRACE:
		on_trace(qj, &rec->u.trace);
		break;
	case REC_PROCESS:
		on_process(qj, &rec->u.process);
		qj->memo = 0;
		break;
	case REC_EVENT:
		if (ev->h.ts > qj->last_ts)
			qj->last_ts = ev->h.ts;
		if (cur(qj) != NULL && cur(qj)->profile == 0)
			on_event(qj, r, ev);
		break;
	default:
		break;
	}
	if (qj->own_sched && sched_record(qj->s, r, rec) != 0)
		return -1;
	if (rec->type == REC_END)
		close_section(qj, (int64_t)rec->u.end.end_ns);
	return qj->oom ? -1 : 0;
}

void
qj_close(struct queryjoin *qj)
{
	sched_close(qj->s);	/* once: a shared one may be closed */
	close_section(qj, 0);
}

int
queryjoin_sample(struct queryjoin *qj, const struct stream_reader *r,
    const struct stream_event *ev, uint32_t tag)
{
	struct qj_section *s = cur(qj);
	struct qj_thread *t;
	uint32_t proc;
	int64_t ts;

	/* The idle loop is no rustc's: not kept. */
	if (s == NULL || s->profile != 0 || ev->h.pid == 0) {
		qj->left_out++;
		return 0;
	}
	if (qj->memo && qj->memo_pid == ev->h.pid && qj->memo_tid == ev->h.tid)
		t = &qj->threads[qj->memo_thread];
	else {
		if ((proc = proc_of(qj, r, ev->h.pid, 0)) == NO_ID) {
			qj->left_out++;
			return 0;
		}
		if ((t = thread_of(qj, proc, ev->h.tid)) == NULL)
			return -1;
		qj->memo = 1;
		qj->memo_pid = ev->h.pid;
		qj->memo_tid = ev->h.tid;
		qj->memo_thread = (uint32_t)(t - qj->threads);
	}
	proc = t->proc;
	ts = clock_of(qj, ev->h.ts);
	buf_put_svar(&t->samples, ts - t->last_sample);
	buf_put_var(&t->samples, tag);
	t->last_sample = ts;
	t->nsamples++;
	qj->procs[proc].samples++;
	return t->samples.oom ? -1 : 0;
}

struct queryjoin *
queryjoin_new(struct sched *shared)
{
	struct queryjoin *qj = calloc(1, sizeof(*qj));

	if (qj == NULL)
		return NULL;
	qj->s = shared;
	if (shared == NULL) {
		qj->own_sched = 1;
		qj->s = sched_new();
	}
	if (qj->s == NULL || sched_add_spans(qj->s, on_span, qj, NULL) != 0) {
		if (qj->own_sched)
			sched_free(qj->s);
		free(qj);
		return NULL;
	}
	return qj;
}

void
queryjoin_free(struct queryjoin *qj)
{
	size_t i;

	if (qj == NULL)
		return;
	if (qj->own_sched)
		sched_free(qj->s);
	query_input_release(&qj->in);
	intern_release(&qj->texts);
	intern_release(&qj->paths);
	for (i = 0; i < qj->nthreads; i++) {
		buf_release(&qj->threads[i].spans);
		buf_release(&qj->threads[i].samples);
	}
	for (i = 0; i < qj->nprofiles; i++) {
		querysegs_release(&qj->profiles[i].segs);
		free(qj->profiles[i].wthread);
	}
	idmap_release(&qj->proc_by_def);
	idmap_release(&qj->thread_by_key);
	buf_release(&qj->notes);
	free(qj->note_at);
	free(qj->note_failed);
	free(qj->sec);
	free(qj->procs);
	free(qj->threads);
	free(qj->profiles);
	free(qj->inst);
	free(qj->by_proc);
	free(qj->proc_first);
	free(qj);
}

/* ---- decoding what a thread kept ---- */

/* A thread's spans, in time order.  @return : a malloc'd array or NULL. */
struct span *
qj_spans(const struct qj_thread *t, size_t *n)
{
	struct span *s = malloc((t->nspans + 1) * sizeof(*s));
	struct cursor c;
	int64_t at = 0;
	uint64_t rt;
	size_t i;

	*n = 0;
	if (s == NULL)
		return NULL;
	cursor_init(&c, t->spans.data, t->spans.len);
	for (i = 0; i < t->nspans; i++) {
		s[i].state = (int)cursor_var(&c);
		at += cursor_svar(&c);
		s[i].from = at;
		s[i].to = at + (int64_t)cursor_var(&c);
		s[i].readier_tid = NO_ID;
		s[i].readier_pid = NO_ID;
		if (s[i].state != SCHED_RUNNING && (rt = cursor_var(&c)) != 0) {
			s[i].readier_tid = (uint32_t)(rt - 1);
			s[i].readier_pid = (uint32_t)cursor_var(&c);
		}
	}
	*n = c.bad ? 0 : t->nspans;
	return s;
}

static int
cmp_sample(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;

	return (a->ts > b->ts) - (a->ts < b->ts);
}

/* A thread's samples, in time order.  @return : a malloc'd array or NULL. */
struct sample *
qj_samples(const struct qj_thread *t, size_t *n)
{
	struct sample *s = malloc((t->nsamples + 1) * sizeof(*s));
	struct cursor c;
	int64_t at = 0;
	int sorted = 1;
	size_t i;

	*n = 0;
	if (s == NULL)
		return NULL;
	cursor_init(&c, t->samples.data, t->samples.len);
	for (i = 0; i < t->nsamples; i++) {
		at += cursor_svar(&c);
		s[i].ts = at;
		s[i].tag = (uint32_t)cursor_var(&c);
		sorted &= i == 0 || s[i].ts >= s[i - 1].ts;
	}
	if (c.bad)
		return s;
	if (!sorted)
		qsort(s, t->nsamples, sizeof(*s), cmp_sample);
	*n = t->nsamples;
	return s;
}
