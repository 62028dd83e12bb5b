/*
 * sched.c - the schedule of threads from CSwitch and ReadyThread events
 * (etl-events-2.md 3.4, 3.5); see sched.h.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/frames.h"
#include "base/idmap.h"
#include "base/seconds.h"
#include "scope.h"
#include "sched.h"

#define SCHED_CPUS	1024
#define NO_ID		0xffffffffu

/* A view's handler of switches or spans, and the threads it picked. */
struct sub {
	union {
		sched_switch_fn sw;
		sched_span_fn span;
	} fn;
	void *ctx;
	const struct sched_pick *pick;
};

struct sched {
	struct sub subs[SCHED_SUBS], span_subs[SCHED_SUBS];
	int nsubs, nspan_subs;
	int64_t from, to;		/* the section's window */
	int64_t opt_from, opt_to;	/* the view's own */
	struct scope *sc;
	size_t sec_first;		/* the section's first instance */
	struct sched_thread *t;		/* instances; [0] is idle */
	size_t n, cap;
	struct idmap by_tid;		/* tid -> current instance + 1 */
	uint32_t cpu_tid[SCHED_CPUS];	/* running on each processor */
	uint8_t cpu_known[SCHED_CPUS];
	int64_t idle_in[SCHED_CPUS];	/* idle since, or INT64_MIN */
	int64_t last_ns;
	int open;			/* events since the last REC_END */
	struct sched_stats st;
};

static uint64_t
field_u(const struct stream_event *ev, const char *name, uint64_t dflt)
{
	const struct value *v = stream_event_field(ev, name);

	return v != NULL && (v->type == VAL_U64 || v->type == VAL_HEX ||
	    v->type == VAL_I64) ? v->v.u : dflt;
}

static void
field_str(const struct stream_event *ev, const char *name, char *buf,
    size_t cap)
{
	const struct value *v = stream_event_field(ev, name);
	size_t n = 0;

	if (v != NULL && v->type == VAL_STR) {
		n = v->v.s.len < cap - 1 ? v->v.s.len : cap - 1;
		memcpy(buf, v->v.s.ptr, n);
	}
	buf[n] = '\0';
}

/* The part of [a, b) inside the window. */
static uint64_t
clip(const struct sched *s, int64_t a, int64_t b)
{
	if (a < s->from)
		a = s->from;
	if (b > s->to)
		b = s->to;
	return b > a ? (uint64_t)(b - a) : 0;
}

/*
 * A span of `t` in `state` from a to b: its clipped length, and the span
 * handed to the views that take spans, of the threads they picked.
 */
static uint64_t
span(struct sched *s, const struct sched_thread *t, enum sched_state state,
    int64_t a, int64_t b)
{
	struct sched_span sp;
	uint64_t len = clip(s, a, b);
	int i;

	if (len == 0 || s->nspan_subs == 0 || t == &s->t[0])
		return len;
	memset(&sp, 0, sizeof(sp));
	sp.t = t;
	sp.state = state;
	sp.from = a > s->from ? a : s->from;
	sp.to = sp.from + (int64_t)len;
	sp.cpu = t->in_cpu;
	if (state != SCHED_RUNNING) {
		sp.out_state = t->out_state;
		sp.out_reason = t->out_reason;
		sp.readied = t->readied;
		if (t->readied) {
			sp.readier_tid = t->readier_tid;
			sp.readier_pid = t->readier_pid;
			sp.readier_image = t->readier_image;
		}
	}
	for (i = 0; i < s->nspan_subs; i++)
		if (sched_picked(s->span_subs[i].pick, t->tid))
			s->span_subs[i].fn.span(s->span_subs[i].ctx, &sp);
	return len;
}

static void
image_of(const struct stream_reader *r, uint32_t pid, char *buf)
{
	const struct stream_process *p = stream_process_by_pid(r, pid);

	snprintf(buf, SCHED_NAME, "%s", p != NULL && p->name ? p->name : "");
}

/* A new instance of `tid`, now the one its id names. */
static struct sched_thread *
add_thread(struct sched *s, const struct stream_reader *r, uint32_t tid,
    uint32_t pid, int64_t start)
{
	struct sched_thread *t;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;

		if ((t = realloc(s->t, cap * sizeof(*t))) == NULL)
			return NULL;
		s->t = t;
		s->cap = cap;
	}
	t = &s->t[s->n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	t->start_ns = start;
	t->proc_start_ns = INT64_MIN;
	t->last_out_ns = INT64_MIN;
	if (r != NULL && pid != NO_ID) {
		const struct stream_process *p = stream_process_by_pid(r, pid);

		t->proc = p != NULL ? p->id : 0;
		t->proc_start_ns = p != NULL ? p->start_ns : INT64_MIN;
		image_of(r, pid, t->image);
	}
	if (tid != 0 && idmap_put(&s->by_tid, tid, (uint32_t)s->n + 1) != 0)
		return NULL;
	return &s->t[s->n++];
}

/* The instance `tid` names now; made (and counted) if never named. */
static struct sched_thread *
thread_of(struct sched *s, const struct stream_reader *r, uint32_t tid,
    uint32_t pid, uint64_t *unknown)
{
	uint32_t i;

	if (tid == 0)
		return &s->t[0];
	if (idmap_get(&s->by_tid, tid, &i))
		return &s->t[i - 1];
	(*unknown)++;
	return add_thread(s, r, tid, pid, INT64_MIN);
}

static void
switch_out(struct sched *s, struct sched_thread *o, int64_t ts,
    const struct stream_event *ev)
{
	/* The event says how it went out, whatever was seen before. */
	field_str(ev, "old_state", o->out_state, sizeof(o->out_state));
	field_str(ev, "old_wait_reason", o->out_reason, sizeof(o->out_reason));
	if (!o->running)
		return;
	o->running_ns += span(s, o, SCHED_RUNNING, o->in_ns, ts);
	o->running = 0;
	o->out = 1;
	o->readied = 0;
	o->out_ns = o->last_out_ns = ts;
}

static int
switch_in(struct sched *s, const struct stream_reader *r,
    struct sched_thread *n, const struct stream_event *ev,
    struct sched_switch *sw)
{
	int64_t ts = ev->h.ts;
	int i;

	n->switches += ts >= s->from && ts < s->to;
	sw->in = n;
	sw->stack = ev->h.stack;
	if (n->out) {
		int64_t rt = n->readied ? n->ready_ns_at : n->out_ns;

		sw->has_prev = 1;
		sw->last_out_ns = n->out_ns;
		sw->ready_time_ns = rt;
		sw->prev_state = n->out_state;
		sw->prev_reason = n->out_reason;
		sw->readied = n->readied;
		if (n->readied) {
			sw->readier_tid = n->readier_tid;
			sw->readier_pid = n->readier_pid;
			sw->readier_image = n->readier_image;
			sw->ready_stack = n->ready_stack;
		}
		sw->waiting_ns = span(s, n, SCHED_WAITING, n->out_ns, rt);
		sw->ready_ns = span(s, n, SCHED_READY, rt, ts);
		n->ready_ns += sw->ready_ns;
		n->waiting_ns += sw->waiting_ns;
	}
	n->running = 1;
	n->out = n->readied = 0;
	n->in_ns = ts;
	n->in_cpu = ev->h.cpu;
	if (ts < s->from || ts >= s->to)
		return 0;
	for (i = 0; i < s->nsubs; i++)
		if (sched_picked(s->subs[i].pick, n->tid) &&
		    s->subs[i].fn.sw(s->subs[i].ctx, r, sw) != 0)
			return -1;
	return 0;
}

static int
on_cswitch(struct sched *s, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint16_t c = ev->h.cpu < SCHED_CPUS ? ev->h.cpu : SCHED_CPUS - 1;
	uint32_t old = (uint32_t)field_u(ev, "old_tid", NO_ID);
	struct sched_switch sw;
	struct sched_thread *o, *n;

	s->st.switches++;
	s->st.compact += stream_event_field(ev, "compact") != NULL;
	s->st.cswitch_stacks |= ev->h.stack != 0;
	memset(&sw, 0, sizeof(sw));
	sw.ts = ev->h.ts;
	sw.cpu = ev->h.cpu;
	sw.old_tid = old;
	sw.old_pid = (uint32_t)field_u(ev, "old_pid", NO_ID);
	if (old == 0) {
		sw.old_pid = 0;
		if (s->idle_in[c] != INT64_MIN)
			s->t[0].running_ns += clip(s, s->idle_in[c], ev->h.ts);
		s->idle_in[c] = INT64_MIN;
	} else if (old != NO_ID) {
		if ((o = thread_of(s, r, old, sw.old_pid,
		    &s->st.unknown_switch)) == NULL)
			return -1;
		switch_out(s, o, ev->h.ts, ev);
		sw.old_state = o->out_state;
		sw.old_reason = o->out_reason;
	}
	s->cpu_tid[c] = ev->h.tid;
	s->cpu_known[c] = ev->h.tid != NO_ID;
	if (ev->h.tid == 0) {
		s->idle_in[c] = ev->h.ts;
		return 0;
	}
	if (ev->h.tid == NO_ID)
		return 0;	/* a compact trace's last switch: no one named */
	if ((n = thread_of(s, r, ev->h.tid, ev->h.pid,
	    &s->st.unknown_switch)) == NULL)
		return -1;
	if (n->running)		/* never switched out: close it here */
		n->running_ns += span(s, n, SCHED_RUNNING, n->in_ns, ev->h.ts);
	return switch_in(s, r, n, ev, &sw);
}

static int
on_ready(struct sched *s, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint16_t c = ev->h.cpu < SCHED_CPUS ? ev->h.cpu : SCHED_CPUS - 1;
	uint32_t tid = (uint32_t)field_u(ev, "readied_tid", NO_ID);
	uint32_t by = ev->h.tid, i;
	struct sched_thread *t, *b;

	s->st.readies++;
	if (tid == NO_ID || tid == 0)
		return 0;
	if ((t = thread_of(s, r, tid, (uint32_t)field_u(ev, "readied_pid",
	    NO_ID), &s->st.unknown_ready)) == NULL)
		return -1;
	if (!t->out || ev->h.ts < t->out_ns)
		return 0;	/* new, or readied before it was out */
	/* No readying thread in the event: the one on that processor. */
	if (by == NO_ID && s->cpu_known[c])
		by = s->cpu_tid[c];
	t->readied = 1;
	t->ready_ns_at = ev->h.ts;
	t->readier_tid = by;
	t->readier_pid = NO_ID;
	t->readier_image[0] = '\0';
	b = NULL;
	if (by == 0)
		b = &s->t[0];
	else if (by != NO_ID && idmap_get(&s->by_tid, by, &i))
		b = &s->t[i - 1];
	if (b != NULL) {
		t->readier_pid = b->pid;
		memcpy(t->readier_image, b->image, SCHED_NAME);
	} else if (by != NO_ID && ev->h.pid != NO_ID) {
		/* Not seen yet (a filter kept only this of it): the event's. */
		t->readier_pid = ev->h.pid;
		image_of(r, ev->h.pid, t->readier_image);
	}
	t->ready_stack = ev->h.stack;
	return 0;
}

static int
on_thread(struct sched *s, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t i;

	if (ev->h.tid == 0 || ev->h.tid == NO_ID)
		return 0;
	/* A start is a new thread, even under an id seen before. */
	if (ev->h.op == EVOP_START)
		return add_thread(s, r, ev->h.tid, ev->h.pid, ev->h.ts) ?
		    0 : -1;
	if (!idmap_get(&s->by_tid, ev->h.tid, &i))
		return add_thread(s, r, ev->h.tid, ev->h.pid, INT64_MIN) ?
		    0 : -1;
	if (s->t[i - 1].image[0] == '\0')
		image_of(r, ev->h.pid, s->t[i - 1].image);
	return 0;
}

/*
 * A filter upstream said which processes count (scope.h): the others'
 * threads of the section, there as context, are hidden.
 */
static void
hide_context(struct sched *s)
{
	size_t i;

	if (!scope_limited(s->sc))
		return;
	if (!scope_keeps(s->sc, 0, 0))
		s->t[0].hidden = 1;
	for (i = s->sec_first > 0 ? s->sec_first : 1; i < s->n; i++)
		if (!scope_keeps(s->sc, s->t[i].proc, s->t[i].pid))
			s->t[i].hidden = 1;
}

/* The section ended at `end`: close what runs. */
static void
close_section(struct sched *s, int64_t end)
{
	size_t i;

	hide_context(s);
	for (i = 1; i < s->n; i++)
		if (s->t[i].running) {
			s->t[i].running_ns += span(s, &s->t[i], SCHED_RUNNING,
			    s->t[i].in_ns, end);
			s->t[i].running = 0;
			s->t[i].last_out_ns = end;
		}
	for (i = 0; i < SCHED_CPUS; i++) {
		if (s->idle_in[i] != INT64_MIN)
			s->t[0].running_ns += clip(s, s->idle_in[i], end);
		s->idle_in[i] = INT64_MIN;
		s->cpu_known[i] = 0;
	}
	for (i = 1; i < s->n; i++)
		s->t[i].out = s->t[i].readied = 0;
	idmap_release(&s->by_tid);
	memset(&s->by_tid, 0, sizeof(s->by_tid));
}

int
sched_record(struct sched *s, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;

	if (scope_record(s->sc, r, rec) != 0)
		return -1;
	if (rec->type == REC_HEADER || rec->type == REC_SCOPE) {
		if (rec->type == REC_HEADER)
			s->sec_first = s->n;
		s->from = s->opt_from;
		s->to = s->opt_to;
		scope_window(s->sc, &s->from, &s->to);
		return 0;
	}
	if (rec->type == REC_END) {
		close_section(s, (int64_t)rec->u.end.end_ns > s->last_ns ?
		    (int64_t)rec->u.end.end_ns : s->last_ns);
		s->last_ns = 0;
		s->open = 0;
		return 0;
	}
	if (rec->type != REC_EVENT)
		return 0;
	s->open = 1;
	if (ev->h.ts < s->last_ns && (ev->h.kind == EV_CSWITCH ||
	    ev->h.kind == EV_READY)) {
		s->st.unordered++;
		return 0;
	}
	if (ev->h.ts > s->last_ns)
		s->last_ns = ev->h.ts;
	switch (ev->h.kind) {
	case EV_CSWITCH:
		return on_cswitch(s, r, ev);
	case EV_READY:
		return on_ready(s, r, ev);
	case EV_THREAD:
		return on_thread(s, r, ev);
	case EV_SAMPLE:
		s->st.samples = 1;
		return 0;
	default:
		return 0;
	}
}

struct sched *
sched_new(void)
{
	struct sched *s = calloc(1, sizeof(*s));
	size_t i;

	if (s == NULL)
		return NULL;
	s->from = s->opt_from = INT64_MIN;
	s->to = s->opt_to = INT64_MAX;
	if ((s->sc = scope_new()) == NULL) {
		free(s);
		return NULL;
	}
	for (i = 0; i < SCHED_CPUS; i++)
		s->idle_in[i] = INT64_MIN;
	if (add_thread(s, NULL, 0, 0, INT64_MIN) == NULL) {
		sched_free(s);
		return NULL;
	}
	snprintf(s->t[0].image, SCHED_NAME, "Idle");
	return s;
}

void
sched_free(struct sched *s)
{
	if (s == NULL)
		return;
	idmap_release(&s->by_tid);
	scope_free(s->sc);
	free(s->t);
	free(s);
}

void
sched_set_window(struct sched *s, int64_t from, int64_t to)
{
	s->from = s->opt_from = from;
	s->to = s->opt_to = to;
	scope_window(s->sc, &s->from, &s->to);
}

void
sched_close(struct sched *s)
{
	if (s->open)
		close_section(s, s->last_ns);
	s->open = 0;
}

int
sched_picked(const struct sched_pick *pick, uint32_t tid)
{
	size_t i;

	if (pick == NULL)
		return 1;
	for (i = 0; i < pick->n; i++)
		if (pick->tids[i] == tid)
			return 1;
	return pick->n == 0;
}

int
sched_add_switches(struct sched *s, sched_switch_fn fn, void *ctx,
    const struct sched_pick *pick)
{
	struct sub *sub;

	if (s->nsubs == SCHED_SUBS)
		return -1;
	sub = &s->subs[s->nsubs++];
	sub->fn.sw = fn;
	sub->ctx = ctx;
	sub->pick = pick;
	return 0;
}

int
sched_add_spans(struct sched *s, sched_span_fn fn, void *ctx,
    const struct sched_pick *pick)
{
	struct sub *sub;

	if (s->nspan_subs == SCHED_SUBS)
		return -1;
	sub = &s->span_subs[s->nspan_subs++];
	sub->fn.span = fn;
	sub->ctx = ctx;
	sub->pick = pick;
	return 0;
}

void
sched_window_of(const struct sched *s, int64_t *from, int64_t *to)
{
	*from = s->opt_from;
	*to = s->opt_to;
}

size_t
sched_count(const struct sched *s)
{
	return s->n;
}

const struct sched_thread *
sched_thread(const struct sched *s, size_t i)
{
	return &s->t[i];
}

const struct sched_stats *
sched_stats(const struct sched *s)
{
	return &s->st;
}

void
sched_warn(const struct sched *s, const char *view,
    void (*warn)(const char *fmt, ...))
{
	const struct sched_stats *st = &s->st;

	if (st->samples && st->cswitch_stacks)
		warn("%s: warning: the trace has both CPU samples and CSwitch "
		    "stacks: their overhead skews the samples", view);
	if (st->compact)
		warn("%s: warning: context switches are compact CSwitch "
		    "batches: fewer fields per switch; stacks joined by time",
		    view);
	if (st->unknown_switch || st->unknown_ready)
		warn("%s: %llu context switches and %llu ready events of "
		    "threads the trace never named", view,
		    (unsigned long long)st->unknown_switch,
		    (unsigned long long)st->unknown_ready);
	if (st->unordered)
		warn("%s: %llu context switch and ready events out of time "
		    "order, skipped", view, (unsigned long long)st->unordered);
}

int
sched_options(int argc, char *argv[], int *used, const char *view,
    const struct option *longopts, const char *const *bys, int nby,
    int *by, int64_t *from, int64_t *to, unsigned *flags,
    struct sched_pick *pick)
{
	uint32_t tids[SCHED_TIDS_MAX];
	char msg[SECONDS_MESSAGE_MAX];
	size_t ntids = 0;
	char *p, *end;
	int ch, i;

	*from = INT64_MIN;
	*to = INT64_MAX;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case SCHED_OPT_ADDRESSES:
			*flags |= FRAMES_ADDRESSES;
			break;
		case SCHED_OPT_INSTANCES:
			*flags |= SCHED_INSTANCES;
			break;
		case SCHED_OPT_BY:
			for (i = 0; i < nby && strcmp(optarg, bys[i]) != 0; i++)
				continue;
			if (i == nby) {
				fprintf(stderr, "etlagg: %s: --by wants", view);
				for (i = 0; i < nby; i++)
					fprintf(stderr, "%s %s", i ? "," : "",
					    bys[i]);
				fprintf(stderr, ", not '%s'\n", optarg);
				return -1;
			}
			*by = i;
			break;
		case SCHED_OPT_TID:
			for (p = optarg; pick != NULL && *p != '\0';
			    p = *end == ',' ? end + 1 : end) {
				unsigned long v = strtoul(p, &end, 10);

				if (end == p || (*end != ',' && *end != '\0') ||
				    v > UINT32_MAX || ntids == SCHED_TIDS_MAX) {
					fprintf(stderr, "etlagg: %s: --tid "
					    "wants up to %d thread ids and "
					    "commas, not '%s'\n", view,
					    SCHED_TIDS_MAX, optarg);
					return -1;
				}
				tids[ntids++] = (uint32_t)v;
			}
			if (pick == NULL)
				return -1;
			memcpy(pick->tids, tids, ntids * sizeof(*tids));
			pick->n = ntids;
			break;
		case SCHED_OPT_FROM:
		case SCHED_OPT_TO:
			/* A negative time is an event's before the start. */
			if (seconds_parse(optarg, ch == SCHED_OPT_FROM ?
			    from : to) != 0) {
				fprintf(stderr, "etlagg: %s: %s\n", view,
				    seconds_message(msg, sizeof(msg),
				    ch == SCHED_OPT_FROM ? "--from" : "--to",
				    optarg, SECONDS_WHAT));
				return -1;
			}
			break;
		default:
			return -1;
		}
	}
	*used = optind;
	return 0;
}

void
sched_stack_text(struct frames *f, const struct stream_reader *r,
    stream_id id, uint32_t pid, int which, char *buf, size_t cap)
{
	const struct stream_process *p = stream_process_by_pid(r, pid);
	const struct stream_trace *t = stream_current_trace(r);
	uint64_t kernel = t != NULL && t->pointer_size == 4 ? 0x80000000ULL :
	    0xffff800000000000ULL;
	stream_id def = p != NULL ? p->id : 0;
	uint64_t addr[512];
	long n = id ? stream_stack_frames(r, id, addr, 512) : 0, i, pick = 0;
	size_t len = 0;
	char name[512];

	buf[0] = '\0';
	if (id == 0 || n <= 0) {
		snprintf(buf, cap, "%s", id == 0 ? FRAMES_NO_STACK :
		    FRAMES_UNDEFINED);
		return;
	}
	if (which) {
		for (i = 0; i < n; i++)
			if (addr[i] < kernel) {
				pick = i;
				break;
			}
		frames_name(f, def, addr[pick], name, sizeof(name));
		if (which == 2 && (len = frames_module_len(name,
		    strlen(name))) > 0)
			name[len] = '\0';
		snprintf(buf, cap, "%s", name);
		return;
	}
	for (i = n - 1; i >= 0 && len + 1 < cap; i--) {
		frames_name(f, def, addr[i], name, sizeof(name));
		len += (size_t)snprintf(buf + len, cap - len, "%s%s",
		    i == n - 1 ? "" : ";", name);
	}
}


