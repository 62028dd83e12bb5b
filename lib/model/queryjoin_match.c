/*
 * queryjoin_match.c - the join of profiles and trace (queryjoin.h): each
 * profile to its process, each profile thread to a Windows thread, the
 * notes that say so, and the walks of samples and waits beside the
 * queries of their threads.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "mmprof/mmprof_decode.h"
#include "proctab.h"
#include "querysegs.h"
#include "queryjoin.h"
#include "queryjoin_state.h"
#include "sched.h"

#define TOL		QUERYJOIN_TOLERANCE_NS
#define NOTE_MAX	1024

/* ---- notes ---- */

static void
add_note(struct queryjoin *qj, int failed, const char *fmt, ...)
{
	char text[NOTE_MAX];
	size_t *at;
	unsigned char *f;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if ((at = array_room_grow(&qj->note_at, &qj->notecap, qj->nnotes,
	    sizeof(*at))) == NULL || (f = realloc(qj->note_failed,
	    qj->notecap)) == NULL) {
		qj->oom = 1;
		return;
	}
	qj->note_failed = f;
	at[0] = qj->notes.len;
	f[qj->nnotes++] = (unsigned char)failed;
	buf_put(&qj->notes, text, strlen(text) + 1);
	if (qj->notes.oom)
		qj->oom = 1;
}

/* The last part of a path, with either separator. */
static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/'), *b = strrchr(path, '\\');

	if (b != NULL && (s == NULL || b > s))
		s = b;
	return s != NULL ? s + 1 : path;
}

static const char *
profile_name(const struct queryjoin *qj, const struct qj_profile *pf)
{
	const char *src = qj_text(qj, qj->sec[pf->section].source, NULL);

	return *src != '\0' ? base_name(src) : "a profile";
}

/* ---- the threads of a process ---- */

/*
 * The threads in order of their process (a counting sort): those of
 * process p are by_proc[proc_first[p] .. proc_first[p + 1] - 1].
 */
static int
index_threads(struct queryjoin *qj)
{
	size_t i, *at;

	qj->by_proc = malloc((qj->nthreads + 1) * sizeof(*qj->by_proc));
	qj->proc_first = calloc(qj->nprocs + 2, sizeof(*qj->proc_first));
	if (qj->by_proc == NULL || qj->proc_first == NULL)
		return -1;
	for (i = 0; i < qj->nthreads; i++)
		qj->proc_first[qj->threads[i].proc + 2]++;
	for (i = 2; i < qj->nprocs + 2; i++)
		qj->proc_first[i] += qj->proc_first[i - 1];
	/* proc_first[p + 1] is where p's next thread goes, then its end. */
	at = qj->proc_first + 1;
	for (i = 0; i < qj->nthreads; i++)
		qj->by_proc[at[qj->threads[i].proc]++] = (uint32_t)i;
	return 0;
}

/* The threads of process `proc`: *n indices at the result. */
static const uint32_t *
threads_of(const struct queryjoin *qj, uint32_t proc, size_t *n)
{
	*n = qj->proc_first[proc + 1] - qj->proc_first[proc];
	return qj->by_proc + qj->proc_first[proc];
}

/* ---- how well a Windows thread fits a profile thread ---- */

/*
 * What a Windows thread did during [a, b): `within` of it (running ns,
 * or samples) and `inside` the spans of queries `sg`.
 */
struct fit {
	int64_t inside, within;
};

static int64_t
overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static void
fit_running(const struct span *sp, size_t n, const struct qseg *sg,
    size_t nsg, int64_t a, int64_t b, struct fit *f)
{
	size_t i, j = 0;

	f->inside = f->within = 0;
	for (i = 0; i < n; i++) {
		if (sp[i].state != SCHED_RUNNING || sp[i].to <= a ||
		    sp[i].from >= b)
			continue;
		f->within += overlap(sp[i].from, sp[i].to, a, b);
		while (j < nsg && sg[j].to <= sp[i].from)
			j++;
		for (; j < nsg && sg[j].from < sp[i].to; j++) {
			f->inside += overlap(sp[i].from, sp[i].to, sg[j].from,
			    sg[j].to);
			if (sg[j].to > sp[i].to)
				break;	/* it goes on past this span */
		}
	}
}

static void
fit_samples(const struct sample *s, size_t n, const struct qseg *sg,
    size_t nsg, int64_t a, int64_t b, struct fit *f)
{
	size_t i, j = 0;

	f->inside = f->within = 0;
	for (i = 0; i < n; i++) {
		if (s[i].ts < a || s[i].ts >= b)
			continue;
		f->within++;
		while (j < nsg && sg[j].to <= s[i].ts)
			j++;
		f->inside += j < nsg && sg[j].from <= s[i].ts;
	}
}

/* What one Windows thread of the process did, decoded once. */
struct wt {
	uint32_t index;			/* in qj->threads */
	struct span *spans;
	struct sample *samples;
	size_t nspans, nsamples;
};

static void
fit_of(const struct wt *w, int by_time, const struct qseg *sg, size_t nsg,
    int64_t a, int64_t b, struct fit *f)
{
	if (by_time)
		fit_running(w->spans, w->nspans, sg, nsg, a, b, f);
	else
		fit_samples(w->samples, w->nsamples, sg, nsg, a, b, f);
}

/* Whether Windows thread t lived from `start` to `end`, give or take. */
static int
alive(const struct qj_thread *t, int64_t start, int64_t end)
{
	return (t->start == INT64_MIN || t->start <= start + TOL) &&
	    (t->end == INT64_MAX || t->end >= end - TOL);
}

struct pair {
	int64_t score;
	uint32_t p, w;			/* profile thread, struct wt */
};

static int
cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->w > b->w) - (a->w < b->w);
}

/* The state of one profile's mapping. */
struct mapping {
	struct wt *w;
	size_t nw, np;
	int by_time;
	struct pair *pairs;		/* np * nw; score INT64_MIN: unfit */
	struct fit *fits;		/* np * nw */
	uint32_t *taken;		/* by wt: its profile thread + 1 */
	uint32_t *best;			/* by profile thread: best + 1 */
};

static void
mapping_release(struct mapping *m)
{
	size_t i;

	for (i = 0; i < m->nw; i++) {
		free(m->w[i].spans);
		free(m->w[i].samples);
	}
	free(m->w);
	free(m->pairs);
	free(m->fits);
	free(m->taken);
	free(m->best);
}

/* Decodes the process's threads and scores every pair. */
static int
score_pairs(struct queryjoin *qj, struct qj_profile *pf, uint32_t proc,
    struct mapping *m)
{
	const struct qseg_thread *pt;
	const struct qseg *sg;
	const uint32_t *list;
	size_t i, j, nsg;
	struct fit *f;

	list = threads_of(qj, proc, &m->nw);
	m->np = pf->segs.nthreads;
	m->by_time = qj->procs[proc].has_spans;
	m->w = calloc(m->nw + 1, sizeof(*m->w));
	m->pairs = calloc(m->np * m->nw + 1, sizeof(*m->pairs));
	m->fits = calloc(m->np * m->nw + 1, sizeof(*m->fits));
	m->taken = calloc(m->nw + 1, sizeof(*m->taken));
	m->best = calloc(m->np + 1, sizeof(*m->best));
	if (m->w == NULL || m->pairs == NULL || m->fits == NULL ||
	    m->taken == NULL || m->best == NULL)
		return -1;
	for (j = 0; j < m->nw; j++) {
		m->w[j].index = list[j];
		if ((m->by_time && (m->w[j].spans = qj_spans(&qj->threads[
		    list[j]], &m->w[j].nspans)) == NULL) || (!m->by_time &&
		    (m->w[j].samples = qj_samples(&qj->threads[list[j]],
		    &m->w[j].nsamples)) == NULL))
			return -1;
	}
	for (i = 0; i < m->np; i++) {
		pt = &pf->segs.threads[i];
		sg = querysegs_spans(&pf->segs, i, &nsg);
		for (j = 0; j < m->nw; j++) {
			struct pair *p = &m->pairs[i * m->nw + j];

			f = &m->fits[i * m->nw + j];
			p->p = (uint32_t)i;
			p->w = (uint32_t)j;
			p->score = INT64_MIN;
			if (!alive(&qj->threads[list[j]], pt->start, pt->end))
				continue;
			fit_of(&m->w[j], m->by_time, sg, nsg, pt->start,
			    pt->end, f);
			/* Running in its queries, less running between them. */
			p->score = f->inside - (f->within - f->inside);
			if (p->score > 0 && (m->best[i] == 0 || p->score >
			    m->pairs[i * m->nw + m->best[i] - 1].score))
				m->best[i] = (uint32_t)j + 1;
		}
	}
	return 0;
}

/* Pairs best first, no Windows thread twice. */
static void
assign(struct qj_profile *pf, struct mapping *m)
{
	size_t n = m->np * m->nw, i;

	qsort(m->pairs, n, sizeof(*m->pairs), cmp_pair);
	for (i = 0; i < n && m->pairs[i].score > 0; i++) {
		const struct pair *p = &m->pairs[i];

		if (pf->wthread[p->p] != 0 || m->taken[p->w] != 0)
			continue;
		pf->wthread[p->p] = p->w + 1;
		m->taken[p->w] = p->p + 1;
	}
}

static double
share(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* One profile thread's part of the note. */
static void
thread_note(struct queryjoin *qj, struct qj_profile *pf,
    const struct mapping *m, size_t i, struct buf *b)
{
	char t[256];
	uint32_t w = pf->wthread[i], best = m->best[i];
	const struct fit *f;
	int n;

	if (w != 0) {
		f = &m->fits[i * m->nw + w - 1];
		n = snprintf(t, sizeof(t), "%s%" PRIu32 " = tid %" PRIu32
		    " (%.1f%%", b->len ? ", " : "", pf->segs.threads[i].tid,
		    qj->threads[m->w[w - 1].index].tid, share(f->inside,
		    f->within));
	} else
		n = snprintf(t, sizeof(t), "%s%" PRIu32 " unmapped (",
		    b->len ? ", " : "", pf->segs.threads[i].tid);
	if (best != 0 && best != w)
		n += snprintf(t + n, sizeof(t) - (size_t)n, "%snot tid %" PRIu32
		    ", its best fit: thread %" PRIu32 "'s", w ? ", " : "",
		    qj->threads[m->w[best - 1].index].tid,
		    pf->segs.threads[m->taken[best - 1] - 1].tid);
	else if (w == 0)
		n += snprintf(t + n, sizeof(t) - (size_t)n, "no thread of the "
		    "process ran in its queries");
	snprintf(t + n, sizeof(t) - (size_t)n, ")");
	buf_put(b, t, strlen(t));
}

/*
 * The note of a joined profile: its mapping, and the share of the
 * process's running time (or samples) during the profile that falls
 * in a query of the thread it ran.
 */
static void
join_note(struct queryjoin *qj, struct qj_profile *pf, uint32_t proc,
    const struct mapping *m)
{
	const struct qseg_thread *th = pf->segs.threads;
	int64_t a = INT64_MAX, b = INT64_MIN, inside = 0, within = 0;
	struct buf list = { 0 };
	struct fit f;
	size_t i;

	for (i = 0; i < m->np; i++) {
		a = th[i].start < a ? th[i].start : a;
		b = th[i].end > b ? th[i].end : b;
		thread_note(qj, pf, m, i, &list);
		if (pf->wthread[i] != 0)
			inside += m->fits[i * m->nw + pf->wthread[i] -
			    1].inside;
	}
	for (i = 0; i < m->nw; i++) {
		fit_of(&m->w[i], m->by_time, NULL, 0, a, b, &f);
		within += f.within;
	}
	buf_put_u8(&list, 0);
	add_note(qj, 0, "note: query join: %s: %s: threads %s; %.1f%% of its "
	    "%s in a query%s", profile_name(qj, pf), qj_text(qj,
	    qj->procs[proc].label, NULL), list.oom ? "?" :
	    (const char *)list.data, share(inside, within), m->by_time ?
	    "running time" : "samples (no context switches)",
	    pf->segs.cut ? "; intervals that do not nest cut" : "");
	buf_release(&list);
}

static int
map_threads(struct queryjoin *qj, struct qj_profile *pf, uint32_t proc)
{
	struct mapping m;
	size_t i;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	if ((pf->wthread = calloc(pf->segs.nthreads + 1,
	    sizeof(*pf->wthread))) == NULL)
		return -1;
	if (score_pairs(qj, pf, proc, &m) == 0) {
		assign(pf, &m);
		for (i = 0; i < m.np; i++)
			if (pf->wthread[i] != 0)
				qj->threads[m.w[pf->wthread[i] - 1].index]
				    .pthread = (uint32_t)i + 1;
		join_note(qj, pf, proc, &m);
		/* From here on, wthread holds qj->threads indices. */
		for (i = 0; i < m.np; i++)
			if (pf->wthread[i] != 0)
				pf->wthread[i] = m.w[pf->wthread[i] - 1].index +
				    1;
		rc = 0;
	}
	mapping_release(&m);
	return rc;
}

/* ---- each profile to its process ---- */

/* How far `at` lies from [a, b]: 0 inside. */
static int64_t
distance(int64_t at, int64_t a, int64_t b)
{
	if (at < a)
		return a - at;
	return at > b ? at - b : 0;
}

/* The trace section nearest to `at`, and its distance; -1 if none. */
static long
nearest_trace(const struct queryjoin *qj, int64_t at, int64_t *d)
{
	long best = -1;
	int64_t x;
	size_t i;

	for (i = 0; i < qj->nsec; i++) {
		const struct qj_section *s = &qj->sec[i];

		if (s->profile != 0 || !s->clock)
			continue;
		x = distance(at, s->base, s->end);
		if (best < 0 || x < *d) {
			best = (long)i;
			*d = x;
		}
	}
	return best;
}

/*
 * Whether a process of the trace may have written the profile: when the
 * profile names a crate, a process whose command line names another, or
 * none, is not its rustc (a pid reused by another program).
 */
static int
same_crate(const struct queryjoin *qj, const struct qj_profile *pf,
    const struct qj_proc *p)
{
	size_t pl, ql, pn = 0, qn = 0;
	const char *pc = qj_text(qj, pf->cmdline, &pl);
	const char *qc = qj_text(qj, p->cmdline, &ql);
	const char *a = proctab_crate(pc, pl, &pn);
	const char *b = proctab_crate(qc, ql, &qn);

	if (a == NULL || ql == 0)
		return 1;	/* nothing to tell them apart by */
	return b != NULL && pn == qn && memcmp(a, b, pn) == 0;
}

/*
 * The process of the profile's pid alive at its start (*d: how far
 * from it); -1 if none.  *why says why none: 0 no process has its pid,
 * 1 none was alive then, 2 the one alive compiles another crate.
 */
static long
find_proc(const struct queryjoin *qj, const struct qj_profile *pf,
    int64_t *d, int *why)
{
	long best = -1;
	int64_t x, a, b;
	size_t i;

	*why = 0;
	for (i = 0; i < qj->nprocs; i++) {
		const struct qj_proc *p = &qj->procs[i];
		const struct qj_section *s = &qj->sec[p->section];

		if (p->pid != pf->pid || !s->clock)
			continue;
		a = p->start != INT64_MIN ? p->start : s->base;
		b = p->end != INT64_MAX ? p->end : s->end;
		x = distance(pf->start, a, b);
		if (*why < 1)
			*why = 1;
		if (x <= TOL && !same_crate(qj, pf, p)) {
			*why = 2;
			continue;
		}
		if (best < 0 || x < *d) {
			best = (long)i;
			*d = x;
		}
	}
	return best;
}

static void
join_profile(struct queryjoin *qj, struct qj_profile *pf)
{
	const char *name = profile_name(qj, pf);
	int64_t d = 0;
	int why;
	long sec, proc;

	if (!pf->has_start || !qj->sec[pf->section].clock) {
		add_note(qj, 1, "note: query join: %s: not joined: its start "
		    "time is not known", name);
		return;
	}
	/* A filter upstream leaves the profiles of other processes empty. */
	if (pf->segs.nthreads == 0) {
		add_note(qj, 0, "note: query join: %s: not joined: it holds no "
		    "query intervals", name);
		return;
	}
	if ((sec = nearest_trace(qj, pf->start, &d)) < 0 || d > TOL) {
		add_note(qj, 1, "note: query join: %s (pid %" PRIu32 "): not "
		    "joined: %s", name, pf->pid, sec < 0 ? "no trace with a "
		    "UTC start to join it to" : pf->start < qj->sec[sec].base ?
		    "its clock lies outside the trace: it starts before it" :
		    "its clock lies outside the trace: it starts after its "
		    "end");
		if (sec >= 0)
			add_note(qj, 1, "note: query join: %s starts %.3f s %s "
			    "the trace", name, (double)d / 1e9,
			    pf->start < qj->sec[sec].base ? "before" : "after");
		return;
	}
	if ((proc = find_proc(qj, pf, &d, &why)) < 0 || d > TOL) {
		add_note(qj, 1, "note: query join: %s (pid %" PRIu32 "): not "
		    "joined: %s", name, pf->pid, why == 0 ? "its pid matches "
		    "no process of the trace" : why == 1 ? "no process of its "
		    "pid was alive at its start" : "the process of its pid "
		    "alive at its start compiles another crate, or none");
		return;
	}
	if (qj->procs[proc].profile != 0) {
		add_note(qj, 1, "note: query join: %s: not joined: %s already "
		    "has %s", name, qj_text(qj, qj->procs[proc].label, NULL),
		    profile_name(qj, &qj->profiles[qj->procs[proc].profile -
		    1]));
		return;
	}
	qj->procs[proc].profile = (uint32_t)(pf - qj->profiles) + 1;
	pf->proc = (uint32_t)proc + 1;
	if (map_threads(qj, pf, (uint32_t)proc) != 0)
		qj->oom = 1;
}

int
queryjoin_finish(struct queryjoin *qj)
{
	size_t i;

	qj_close(qj);
	if (qj->oom || index_threads(qj) != 0 ||
	    (qj->inst = malloc((qj->nprocs + 1) * sizeof(*qj->inst))) == NULL)
		return -1;
	for (i = 0; i < qj->nprofiles && !qj->oom; i++)
		join_profile(qj, &qj->profiles[i]);
	for (i = 0; i < qj->nprocs; i++) {
		if (qj->procs[i].profile != 0)
			qj->inst[qj->ninst++] = (uint32_t)i;
		else
			qj->left_out += qj->procs[i].samples;
	}
	return qj->oom ? -1 : 0;
}

/* ---- what the views read ---- */

size_t
queryjoin_count(const struct queryjoin *qj)
{
	return qj->ninst;
}

void
queryjoin_instance(const struct queryjoin *qj, size_t i,
    struct queryjoin_instance *out)
{
	const struct qj_proc *p = &qj->procs[qj->inst[i]];

	out->label = qj_text(qj, p->label, NULL);
	out->pid = p->pid;
	out->start_ns = p->start_ns;
	out->samples = p->samples;
	out->profile = profile_name(qj, &qj->profiles[p->profile - 1]);
}

uint64_t
queryjoin_left_out(const struct queryjoin *qj)
{
	return qj->left_out;
}

const uint32_t *
queryjoin_path(const struct queryjoin *qj, uint32_t path, size_t *n)
{
	const void *key;
	size_t len;

	if (path == 0 || path > qj->paths.count) {
		*n = 0;
		return NULL;
	}
	key = intern_key(&qj->paths, path, &len);
	*n = len / sizeof(uint32_t);
	return key;
}

const char *
queryjoin_label(const struct queryjoin *qj, uint32_t label, size_t *len)
{
	return query_input_text(&qj->in, label, len);
}

size_t
queryjoin_notes(const struct queryjoin *qj)
{
	return qj->nnotes;
}

const char *
queryjoin_note(const struct queryjoin *qj, size_t i, int *failed)
{
	if (failed != NULL)
		*failed = qj->note_failed[i];
	return (const char *)qj->notes.data + qj->note_at[i];
}

/* The spans of queries of the profile thread a Windows thread ran. */
static const struct qseg *
segs_of(const struct queryjoin *qj, const struct qj_thread *t, size_t *n)
{
	const struct qj_proc *p = &qj->procs[t->proc];

	*n = 0;
	if (t->pthread == 0 || p->profile == 0)
		return NULL;
	return querysegs_spans(&qj->profiles[p->profile - 1].segs,
	    t->pthread - 1, n);
}

int
queryjoin_samples(const struct queryjoin *qj, queryjoin_sample_fn fn,
    void *ctx)
{
	const struct qseg *sg;
	const uint32_t *list;
	struct sample *s;
	size_t i, k, n, nsg, ns, j, x;
	int rc = 0;

	for (i = 0; i < qj->ninst && rc == 0; i++) {
		list = threads_of(qj, qj->inst[i], &n);
		for (k = 0; k < n && rc == 0; k++) {
			const struct qj_thread *t = &qj->threads[list[k]];

			if ((s = qj_samples(t, &ns)) == NULL)
				return -1;
			sg = segs_of(qj, t, &nsg);
			for (x = j = 0; x < ns && rc == 0; x++) {
				while (j < nsg && sg[j].to <= s[x].ts)
					j++;
				rc = fn(ctx, i, j < nsg && sg[j].from <=
				    s[x].ts ? sg[j].path : 0, s[x].tag);
			}
			free(s);
		}
	}
	return rc;
}

/* The pieces of one blocked span, cut at the bounds of queries. */
static int
wait_pieces(const struct qseg *sg, size_t nsg, int64_t a, int64_t b,
    struct queryjoin_wait *w, queryjoin_wait_fn fn, void *ctx)
{
	size_t j = 0;
	int64_t end;
	int rc = 0;

	while (j < nsg && sg[j].to <= a)
		j++;
	while (a < b && rc == 0) {
		if (j < nsg && sg[j].from <= a) {
			end = sg[j].to < b ? sg[j].to : b;
			w->path = sg[j].path;
		} else {
			end = j < nsg && sg[j].from < b ? sg[j].from : b;
			w->path = 0;
		}
		w->ns = (uint64_t)(end - a);
		rc = fn(ctx, w);
		w->begins = 0;
		a = end;
		if (j < nsg && a >= sg[j].to)
			j++;
	}
	return rc;
}

static int
thread_waits(const struct queryjoin *qj, size_t inst,
    const struct qj_thread *t, int64_t from, int64_t to,
    queryjoin_wait_fn fn, void *ctx)
{
	struct queryjoin_wait w;
	const struct qseg *sg;
	struct span *sp;
	size_t n, i, nsg;
	int64_t a, b;
	int rc = 0, after_wait;

	sg = segs_of(qj, t, &nsg);
	if ((sp = qj_spans(t, &n)) == NULL)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		if (sp[i].state == SCHED_RUNNING)
			continue;
		after_wait = i > 0 && sp[i - 1].state == SCHED_WAITING &&
		    sp[i - 1].to == sp[i].from;
		a = sp[i].from > from ? sp[i].from : from;
		b = sp[i].to < to ? sp[i].to : to;
		if (b <= a)
			continue;
		memset(&w, 0, sizeof(w));
		w.instance = inst;
		w.ready = sp[i].state == SCHED_READY;
		w.begins = a == sp[i].from && !(w.ready && after_wait);
		w.wait_ns = (uint64_t)(sp[i].to - sp[i].from);
		if (!w.ready && i + 1 < n && sp[i + 1].state == SCHED_READY &&
		    sp[i + 1].from == sp[i].to)
			w.wait_ns += (uint64_t)(sp[i + 1].to - sp[i + 1].from);
		w.readied = sp[i].readier_tid != NO_ID;
		w.readier_tid = sp[i].readier_tid;
		w.readier_pid = sp[i].readier_pid;
		rc = wait_pieces(sg, nsg, a, b, &w, fn, ctx);
	}
	free(sp);
	return rc;
}

int
queryjoin_waits(const struct queryjoin *qj, int64_t from, int64_t to,
    queryjoin_wait_fn fn, void *ctx)
{
	const uint32_t *list;
	int64_t base;
	size_t i, k, n;
	int rc = 0;

	for (i = 0; i < qj->ninst && rc == 0; i++) {
		base = qj->sec[qj->procs[qj->inst[i]].section].base;
		list = threads_of(qj, qj->inst[i], &n);
		for (k = 0; k < n && rc == 0; k++)
			rc = thread_waits(qj, i, &qj->threads[list[k]],
			    from == INT64_MIN ? INT64_MIN : from + base,
			    to == INT64_MAX ? INT64_MAX : to + base, fn, ctx);
	}
	return rc;
}

/* ---- the intervals of queries, nested again ---- */

/* The open intervals of a thread's walk, outermost first. */
struct nest {
	uint32_t label[QUERYSEGS_DEPTH];
	int64_t from[QUERYSEGS_DEPTH];
	size_t n;
	struct queryjoin_query q;	/* the thread's part of each */
	int64_t base, lo, hi;		/* the section's start, the window */
};

/* Ends the open intervals from depth `keep` on, at `at`, deepest first. */
static int
nest_close(struct nest *st, size_t keep, int64_t at, queryjoin_query_fn fn,
    void *ctx)
{
	int64_t a, b;
	int rc = 0;

	while (st->n > keep && rc == 0) {
		st->n--;
		a = st->from[st->n] > st->lo ? st->from[st->n] : st->lo;
		b = at < st->hi ? at : st->hi;
		if (b <= a)
			continue;
		st->q.label = st->label[st->n];
		st->q.depth = (uint32_t)st->n;
		st->q.from = a - st->base;
		st->q.to = b - st->base;
		rc = fn(ctx, &st->q);
	}
	return rc;
}

/* One thread's spans as the intervals they nest in. */
static int
thread_queries(const struct queryjoin *qj, struct nest *st,
    const struct qj_thread *t, queryjoin_query_fn fn, void *ctx)
{
	const struct qseg *sg;
	const uint32_t *path;
	size_t i, k, n, nsg;
	int64_t last = INT64_MIN;
	int rc = 0;

	sg = segs_of(qj, t, &nsg);
	st->n = 0;
	st->q.tid = t->tid;
	st->q.thread_start = t->start == INT64_MIN ? INT64_MIN :
	    t->start - st->base;
	for (i = 0; i < nsg && rc == 0; i++) {
		path = queryjoin_path(qj, sg[i].path, &n);
		if (sg[i].from != last)	/* a gap ends all that was open */
			rc = nest_close(st, 0, last, fn, ctx);
		for (k = 0; k < st->n && k < n && st->label[k] == path[k]; k++)
			;
		if (rc == 0)
			rc = nest_close(st, k, sg[i].from, fn, ctx);
		for (; k < n && k < QUERYSEGS_DEPTH; k++, st->n++) {
			st->label[k] = path[k];
			st->from[k] = sg[i].from;
		}
		last = sg[i].to;
	}
	return rc != 0 ? rc : nest_close(st, 0, last, fn, ctx);
}

int
queryjoin_queries(const struct queryjoin *qj, int64_t from, int64_t to,
    queryjoin_query_fn fn, void *ctx)
{
	struct nest *st = calloc(1, sizeof(*st));
	const uint32_t *list;
	size_t i, k, n;
	int rc = 0;

	if (st == NULL)
		return -1;
	for (i = 0; i < qj->ninst && rc == 0; i++) {
		st->base = qj->sec[qj->procs[qj->inst[i]].section].base;
		st->lo = from == INT64_MIN ? INT64_MIN : from + st->base;
		st->hi = to == INT64_MAX ? INT64_MAX : to + st->base;
		st->q.instance = i;
		list = threads_of(qj, qj->inst[i], &n);
		for (k = 0; k < n && rc == 0; k++)
			rc = thread_queries(qj, st, &qj->threads[list[k]], fn,
			    ctx);
	}
	free(st);
	return rc;
}
