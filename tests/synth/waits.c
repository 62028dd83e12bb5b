/*
 * waits.c - the waits scenario: a schedule of a few threads on a few
 * processors, written as ordinary CSwitch events (version 2 or 5, with
 * the incoming thread's stack) or as compact CSwitch batches (HookId
 * 0x0525, etl-events-2.md section 2), with ReadyThread events from other
 * threads and from interrupts.  Threads block, get readied and then wait
 * for a processor, are preempted without a ReadyThread, and one thread
 * id is reused by a thread of another process.
 *
 * Each switch-in has its stack walk, compact or not, as the kernel logs
 * it (etl-events-2.md 2.1).
 *
 * The manifest gives, per thread instance, what WPA's CPU Usage
 * (Precise) computes (etl-events-2.md 3.5), from the schedule itself:
 *
 *	thread TID PID START_NS RUNNING_NS READY_NS WAITING_NS SWITCHES
 *
 * START_NS is 0 for threads of the rundown.  Running time is switch-in
 * to switch-out, closed at the trace's last event; ready time is
 * switch-in minus ready time (the ReadyThread, or the switch-out of a
 * preempted thread); waiting time is ready time minus the last
 * switch-out; a switch-in without an earlier switch-out adds neither.
 * SWITCHES counts switch-ins (not those of the idle thread, tid 0,
 * whose row has its running time only).  Every processor switches to
 * idle at the trace's last event, so that a compact trace (whose last
 * switch on each processor names no incoming thread) says the same.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kevents.h"
#include "manifest.h"
#include "rng.h"
#include "waits.h"

#define T0		79812345678ULL	/* as the rustc-build scenario */
#define NS_PER_TICK	100
#define NCPUS		2
#define NTHREADS	7		/* instances; idle apart */
#define NONE		UINT64_MAX
#define WAIT_TICK	156250		/* NewThreadWaitTime counts 15.6 ms */
#define MAX_REASON	40		/* KWAIT_REASON count, build 19045 */
#define BATCH_BYTES	(0x400 - 0x10 - 0x58)
#define BATCH_TICKS	100000		/* flush a batch after 10 ms */
#define HOOK_CSWITCH_BATCH 0x0525
#define REUSED		2		/* the instance whose tid is reused */
#define REUSER		6		/* the instance that reuses it */

enum tstate { T_NEW, T_RUN, T_READY, T_WAIT, T_DEAD };

struct wthread {
	uint32_t tid, pid;
	uint64_t start;			/* tick of Thread/Start, or 0 */
	int prio;
	enum tstate state;
	int cpu;
	uint64_t since, ready_at, last_out;
	uint64_t running, ready, waiting, switches;
};

struct batch {
	uint64_t first, last;
	uint32_t tids[16];
	int8_t base[16];
	int ntids;
	unsigned char rec[BATCH_BYTES];
	size_t len;
};

struct waits {
	struct etl_writer *w;
	const struct waits_options *o;
	struct rng rng;
	struct wthread t[NTHREADS];
	int current[NCPUS];		/* instance, or -1 for idle */
	uint64_t idle_since[NCPUS], idle_running;
	int queue[NTHREADS], nqueue;	/* readied, waiting for a CPU */
	struct batch b[NCPUS];
	uint64_t now, events;
};

static const struct {
	uint32_t tid, pid;
	int prio;
} threads[NTHREADS] = {
	{ 1001, 1000, 8 }, { 1002, 1000, 8 }, { 1003, 1000, 9 },
	{ 1004, 1000, 10 }, { 2001, 2000, 8 }, { 2002, 2000, 12 },
	{ 1003, 2000, 8 }		/* REUSER: tid 1003 again */
};

static const unsigned reasons[] = { 6, 13, 15, 4, 37, 27 };

static uint64_t
tick(struct waits *s)
{
	s->now += rng_range(&s->rng, 5, 500);
	return s->now;
}

/* ---- compact batches (2.2, 2.3) ---- */

static void
batch_flush(struct waits *s, int cpu, uint64_t ts)
{
	struct batch *b = &s->b[cpu];
	struct etlw_payload p;
	int i;

	if (b->len == 0)
		return;
	payload_start(&p, s->o->pointer_size);
	payload_u64(&p, b->first);
	for (i = 0; i < 16; i++)
		payload_u32(&p, i < b->ntids ? b->tids[i] : 0);
	for (i = 0; i < 16; i++)
		payload_u8(&p, (uint8_t)b->base[i]);
	memcpy(p.bytes + p.len, b->rec, b->len);
	p.len += b->len;
	etlw_perfinfo(s->w, cpu, HOOK_CSWITCH_BATCH, 2, ts, &p);
	b->len = 0;
	b->ntids = 0;
	s->events++;
}

static void
put32(struct batch *b, uint32_t v)
{
	b->rec[b->len++] = v & 0xff;
	b->rec[b->len++] = v >> 8 & 0xff;
	b->rec[b->len++] = v >> 16 & 0xff;
	b->rec[b->len++] = v >> 24;
}

/* One switch as a record describing the thread switched out. */
static void
batch_switch(struct waits *s, int cpu, uint64_t ts, int old, unsigned state,
    unsigned reason, uint32_t wait_ticks)
{
	struct batch *b = &s->b[cpu];
	uint32_t tid = old < 0 ? 0 : s->t[old].tid, delta;
	unsigned wr = state == 5 ? reason : state + MAX_REASON;
	int idx = -1, i, prio = old < 0 ? 0 : s->t[old].prio;

	for (i = 0; old >= 0 && i < b->ntids; i++)
		if (b->tids[i] == tid)
			idx = i;
	if (b->len > 0 && (b->len + 8 > BATCH_BYTES ||
	    ts - b->first > BATCH_TICKS || (old >= 0 && idx < 0 &&
	    b->ntids == 16)))
		batch_flush(s, cpu, ts);
	if (b->len == 0) {
		b->first = b->last = ts;
		idx = -1;
	}
	delta = (uint32_t)(ts - b->last);
	b->last = ts;
	if (old >= 0 && idx < 0) {
		idx = b->ntids++;
		b->tids[idx] = tid;
		b->base[idx] = (int8_t)s->t[old].prio;
	}
	if (old < 0 && delta < 0x4000) {
		b->rec[b->len++] = (uint8_t)(delta << 2);
		b->rec[b->len++] = (uint8_t)(delta >> 6);
	} else if (old < 0)
		put32(b, 1 | delta << 2);
	else if (wait_ticks <= 1 && delta < 0x20000 &&
	    prio - b->base[idx] >= 0 && prio - b->base[idx] <= 7)
		put32(b, 2 | (uint32_t)idx << 2 |
		    (uint32_t)(prio - b->base[idx]) << 6 | wr << 9 |
		    delta << 15);
	else {
		put32(b, 3 | delta << 2);
		put32(b, (uint32_t)idx | wr << 4 | (uint32_t)(prio & 0x1f) << 10 |
		    (wait_ticks > 0x1ffff ? 0x1ffff : wait_ticks) << 15);
	}
}

/* ---- the schedule ---- */

static void
stack_of(struct waits *s, int in, unsigned reason, uint64_t *f)
{
	f[0] = 0xfffff80312400000ULL;		/* KiSwapContext */
	f[1] = 0xfffff80312410000ULL + reason * 0x10;	/* the wait */
	f[2] = 0x7ffe00100000ULL + reason * 0x10;	/* NtWaitFor... */
	f[3] = 0x7ff700000000ULL + (uint64_t)s->t[in].tid * 0x100;
}

/*
 * Switches `cpu` from its thread to `in` (-1: idle) at `ts`; the thread
 * going out is left in `state` (5 Waiting, 1 Ready) for `reason`.
 */
static void
do_switch(struct waits *s, int cpu, int in, unsigned state, unsigned reason,
    uint64_t ts)
{
	int out = s->current[cpu];
	struct wthread *o = out >= 0 ? &s->t[out] : NULL;
	struct wthread *n = in >= 0 ? &s->t[in] : NULL;
	uint32_t wait_ticks = 0;
	uint64_t f[4];

	if (o != NULL) {
		o->running += ts - o->since;
		o->last_out = ts;
		o->state = state == 5 ? T_WAIT : T_READY;
		o->ready_at = NONE;
		if (o->state == T_READY)
			s->queue[s->nqueue++] = out;
	} else if (s->idle_since[cpu] != NONE)
		s->idle_running += ts - s->idle_since[cpu];
	if (n != NULL) {
		if (n->last_out != NONE) {
			uint64_t rt = n->ready_at != NONE ? n->ready_at :
			    n->last_out;

			n->ready += ts - rt;
			n->waiting += rt - n->last_out;
			wait_ticks = (uint32_t)((ts - n->last_out) / WAIT_TICK);
		}
		n->switches++;
		n->state = T_RUN;
		n->cpu = cpu;
		n->since = ts;
		n->ready_at = NONE;
	} else
		s->idle_since[cpu] = ts;
	s->current[cpu] = in;
	if (s->o->compact)
		batch_switch(s, cpu, ts, out, o ? state : 2, reason,
		    wait_ticks);
	else {
		struct kev_cswitch c = { .new_tid = n ? n->tid : 0,
		    .old_tid = o ? o->tid : 0, .new_priority = n ? n->prio : 0,
		    .old_priority = o ? o->prio : 0,
		    .old_wait_reason = o && state == 5 ? reason : 0,
		    .old_wait_mode = 1, .old_state = o ? state : 2,
		    .old_ideal_processor = (unsigned)cpu,
		    .new_wait_time = wait_ticks };

		kev_cswitch_version(s->w, cpu, ts, &c, s->o->cswitch_version);
		s->events++;
	}
	/* The walk of the switch-in: logged with compact batches too. */
	if (n != NULL) {
		stack_of(s, in, reason, f);
		kev_stack(s->w, cpu, ts, n->pid, n->tid, f, 4);
		s->events++;
	}
}

static void
ready(struct waits *s, int th, int cpu, unsigned flags, uint64_t ts)
{
	struct wthread *r = &s->t[th];
	uint64_t f[3] = { 0xfffff80312500000ULL, 0xfffff80312510000ULL,
	    0x7ff800000000ULL + (uint64_t)cpu * 0x100 };

	kev_ready_thread(s->w, cpu, ts, r->tid, 1, 1, flags);
	s->events++;
	/* The readying context's stack; none from an interrupt. */
	if (!(flags & 1) && s->current[cpu] >= 0) {
		struct wthread *by = &s->t[s->current[cpu]];

		kev_stack(s->w, cpu, ts, by->pid, by->tid, f, 3);
		s->events++;
	}
	r->state = T_READY;
	r->ready_at = ts;
	s->queue[s->nqueue++] = th;
}

static int
pick(struct waits *s, enum tstate st)
{
	int cand[NTHREADS], n = 0, i;

	for (i = 0; i < NTHREADS; i++)
		if (s->t[i].state == st)
			cand[n++] = i;
	return n ? cand[rng_below(&s->rng, (uint64_t)n)] : -1;
}

static void
dequeue(struct waits *s, int th)
{
	int i;

	for (i = 0; i < s->nqueue; i++)
		if (s->queue[i] == th) {
			memmove(s->queue + i, s->queue + i + 1,
			    (size_t)(s->nqueue - i - 1) * sizeof(int));
			s->nqueue--;
			return;
		}
}

static void
kthread(struct waits *s, unsigned hook, int th, uint64_t ts)
{
	struct kev_thread k;

	memset(&k, 0, sizeof(k));
	k.pid = s->t[th].pid;
	k.tid = s->t[th].tid;
	k.stack_base = 0xffffd00000000000ULL + k.tid * 0x10000ULL;
	k.base_priority = (unsigned)s->t[th].prio;
	kev_thread(s->w, 0, hook, hook == HOOK_THREAD_START ? 4 : k.pid,
	    hook == HOOK_THREAD_START ? 8 : k.tid, ts, &k);
	s->events++;
}

static void
kprocess(struct waits *s, uint32_t pid, const char *image)
{
	struct kev_process p;

	memset(&p, 0, sizeof(p));
	p.unique_key = 0xffffc00000000000ULL + pid;
	p.pid = pid;
	p.account = pid == 0 ? ACCOUNT_SYSTEM : ACCOUNT_USER;
	p.image_file_name = image;
	p.command_line = image;
	kev_process(s->w, 0, HOOK_PROCESS_DCSTART, pid, 0, T0 + 1, &p);
	s->events++;
}

/* One step: a switch, a ready, or the end or start of a thread. */
static void
step(struct waits *s, uint64_t i, uint64_t steps)
{
	int cpu = (int)rng_below(&s->rng, NCPUS), th;
	uint64_t ts = tick(s);

	if (i >= steps / 3 && s->t[REUSED].state == T_WAIT) {
		kthread(s, HOOK_THREAD_END, REUSED, ts);
		s->t[REUSED].state = T_DEAD;
		return;
	}
	if (i >= steps / 2 && s->t[REUSED].state == T_DEAD &&
	    s->t[REUSER].state == T_NEW) {
		s->t[REUSER].start = ts;
		kthread(s, HOOK_THREAD_START, REUSER, ts);
		ready(s, REUSER, cpu, 0, tick(s));
		return;
	}
	if (rng_percent(&s->rng, 40) && (th = pick(s, T_WAIT)) >= 0 &&
	    (th != REUSED || i < steps / 3)) {
		/* From an interrupt, or from the thread on that CPU. */
		ready(s, th, cpu, s->current[cpu] < 0 ||
		    rng_percent(&s->rng, 30) ? 1 : 0, ts);
		return;
	}
	if (s->nqueue > 0) {
		th = s->queue[0];
		dequeue(s, th);
		if (s->current[cpu] >= 0 && rng_percent(&s->rng, 30))
			do_switch(s, cpu, th, 1, 32, ts);	/* preempted */
		else
			do_switch(s, cpu, th, 5, reasons[rng_below(&s->rng,
			    sizeof(reasons) / sizeof(reasons[0]))], ts);
	} else if (s->current[cpu] >= 0)
		do_switch(s, cpu, -1, 5, reasons[rng_below(&s->rng,
		    sizeof(reasons) / sizeof(reasons[0]))], ts);
}

int
waits_run(const struct waits_options *o, struct etl_writer *w, FILE *manifest)
{
	static struct waits s;
	uint64_t i, end;
	int th, cpu;

	memset(&s, 0, sizeof(s));
	s.w = w;
	s.o = o;
	rng_seed(&s.rng, o->seed);
	s.now = T0 + 10;
	kprocess(&s, 0, "Idle");
	kprocess(&s, 1000, "rustc.exe");
	kprocess(&s, 2000, "link.exe");
	for (th = 0; th < NTHREADS; th++) {
		s.t[th].tid = threads[th].tid;
		s.t[th].pid = threads[th].pid;
		s.t[th].prio = threads[th].prio;
		s.t[th].state = th == REUSER ? T_NEW : T_WAIT;
		s.t[th].last_out = s.t[th].ready_at = NONE;
		if (th != REUSER)
			kthread(&s, HOOK_THREAD_DCSTART, th, T0 + 2);
	}
	for (cpu = 0; cpu < NCPUS; cpu++) {
		s.current[cpu] = -1;
		s.idle_since[cpu] = NONE;	/* no switch-in seen */
	}
	for (i = 0; i < o->steps; i++)
		step(&s, i, o->steps);
	/*
	 * Every processor runs a thread, then all go idle at the last event:
	 * the one switch whose incoming thread a compact trace cannot name
	 * is then a switch to idle at the end, which adds nothing.
	 */
	for (cpu = 0; cpu < NCPUS; cpu++)
		if (s.current[cpu] < 0) {
			th = s.nqueue > 0 ? s.queue[0] : pick(&s, T_WAIT);
			dequeue(&s, th);
			do_switch(&s, cpu, th, 5, 6, tick(&s));
		}
	end = tick(&s);
	for (cpu = 0; cpu < NCPUS; cpu++) {
		do_switch(&s, cpu, -1, 5, 6, end);
		if (o->compact)
			batch_flush(&s, cpu, end);
	}
	fprintf(manifest, "thread\t0\t0\t0\t%" PRIu64 "\t0\t0\t0\n",
	    s.idle_running * NS_PER_TICK);
	for (th = 0; th < NTHREADS; th++)
		fprintf(manifest, "thread\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64
		    "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		    s.t[th].tid, s.t[th].pid, (uint64_t)(s.t[th].start ?
		    (s.t[th].start - T0) * NS_PER_TICK : 0),
		    s.t[th].running * NS_PER_TICK, s.t[th].ready * NS_PER_TICK,
		    s.t[th].waiting * NS_PER_TICK, s.t[th].switches);
	return 0;
}
