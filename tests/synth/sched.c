/*
 * sched.c - what the processors do: run threads, switch between them
 * (CSwitch, with the incoming thread's stack), ready waiting threads
 * (ReadyThread, with the readying thread's stack) and take a profile
 * sample every millisecond (SampledProfile, with the interrupted stack).
 */
#include <stdint.h>

#include "chains.h"
#include "kevents.h"
#include "sim.h"
#include "stacks.h"

#define SAMPLE_INTERVAL		TICKS_PER_MS
#define STACKLESS_ONE_IN	500	/* samples whose stack walk failed */
#define CACHED_PERCENT		50	/* samples using stack keys */
#define WAIT_TICK		156250	/* waits count 15.6 ms ticks */

/* KTHREAD_STATE and KWAIT_REASON values (5.3). */
#define STATE_READY		1
#define STATE_TERMINATED	4
#define STATE_WAITING		5
#define WAIT_EXECUTIVE		0
#define WAIT_USER_REQUEST	6
#define WAIT_PREEMPTED		32
#define WAIT_ALERT_BY_THREAD_ID	37
#define MODE_KERNEL		0
#define MODE_USER		1
#define ADJUST_NONE		0
#define ADJUST_UNWAIT		1
#define READIED_FROM_DPC	0x01

void
sched_init_cpus(struct sim *s)
{
	struct cpu *c;
	struct thread *t;
	int i;

	for (i = 0; i < s->ncpus; i++) {
		c = &s->cpus[i];
		c->current = c->idle_thread;
		t = &s->threads[c->current];
		t->state = TS_RUNNING;
		t->cpu = i;
		c->next_sample = s->now + SAMPLE_INTERVAL +
		    (uint64_t)i * SAMPLE_INTERVAL / (uint64_t)s->ncpus;
		c->next_switch = s->now + sim_between(s, 1, 5) * TICKS_PER_US;
		c->next_action = NEVER;
	}
}

static int
is_busy_role(const struct sim *s, const struct thread *t)
{
	return t->role == TR_COMPILER || t->role == TR_CODEGEN ||
	    (t->role == TR_MAIN && s->procs[t->proc].prog == PROG_LINK);
}

int
sched_wants_cpu(const struct sim *s, const struct thread *t)
{
	const struct proc *p = &s->procs[t->proc];

	if (t->role == TR_IDLE || t->role == TR_SYSTEM)
		return 0;
	if (t->first_run)
		return 1;
	if (s->now < t->blocked_until || t->paused)
		return 0;
	if (t->role == TR_COMPILER)
		return p->phase == PH_FRONTEND || p->phase == PH_CODEGEN ||
		    p->phase == PH_FINISHING;
	if (t->role == TR_CODEGEN)
		return p->phase == PH_CODEGEN;
	if (p->prog == PROG_LINK)
		return 1;
	return s->now >= t->wake_at;
}

static uint64_t
quantum(struct sim *s, const struct thread *t)
{
	if (t->role == TR_IDLE)
		return sim_between(s, 200, 1000) * TICKS_PER_US;
	if (is_busy_role(s, t))
		return sim_between(s, 3, 30) * TICKS_PER_MS;
	return sim_between(s, 100, 500) * TICKS_PER_US;
}

/* Some runnable thread not on a processor, searched from a random place. */
static int
find_candidate(struct sim *s)
{
	const struct thread *t;
	int i, start, slot;

	start = (int)rng_below(&s->rng, (uint64_t)s->threads_used);
	for (i = 0; i < s->threads_used; i++) {
		slot = (start + i) % s->threads_used;
		t = &s->threads[slot];
		if (t->live && t->state != TS_RUNNING && sched_wants_cpu(s, t))
			return slot;
	}
	return -1;
}

static uint32_t
pid_of(struct sim *s, const struct thread *t)
{
	return s->procs[t->proc].pid;
}

static enum program
prog_of(const struct sim *s, const struct thread *t)
{
	return s->procs[t->proc].prog;
}

/*
 * ReadyThread for `thread`, readied by what runs on `cpu`: a thread
 * setting an event, or a timer DPC when the processor is idle or its
 * thread has just exited (and may log nothing more).
 */
static void
ready_thread(struct sim *s, int cpu, int thread, int after_exit)
{
	struct thread *t = &s->threads[thread];
	struct thread *by = &s->threads[s->cpus[cpu].current];
	uint64_t ts = sim_stamp(s);

	if (by->role == TR_IDLE || after_exit) {
		kev_ready_thread(s->w, cpu, ts, t->tid, ADJUST_UNWAIT, 1,
		    READIED_FROM_DPC);
		stacks_event(&s->stacks, cpu, ts, 0, 0, CH_K_READY_TIMER,
		    PROG_IDLE, NO_CHAIN, NO_CHAIN);
	} else {
		kev_ready_thread(s->w, cpu, ts, t->tid, ADJUST_UNWAIT, 1, 0);
		stacks_event(&s->stacks, cpu, ts, pid_of(s, by), by->tid,
		    CH_K_READY_SET_EVENT, prog_of(s, by), by->body,
		    CH_TAIL_SET_EVENT);
	}
	t->state = TS_READY;
}

/* The creator readies a thread it has just made. */
void
sched_ready_new(struct sim *s, int cpu, int creator, int thread,
    enum chain_id kernel)
{
	struct thread *by = &s->threads[creator];
	uint64_t ts = sim_stamp(s);

	kev_ready_thread(s->w, cpu, ts, s->threads[thread].tid, ADJUST_NONE,
	    0, 0);
	stacks_event(&s->stacks, cpu, ts, pid_of(s, by), by->tid, kernel,
	    prog_of(s, by), by->body, NO_CHAIN);
	s->threads[thread].state = TS_READY;
}

/* The stack of a thread being switched in: where it stopped. */
static void
switch_in_stack(struct sim *s, int cpu, uint64_t ts, const struct thread *t)
{
	enum chain_id kernel, body, tail = NO_CHAIN;

	if (t->role == TR_IDLE)
		return;
	if (t->first_run) {
		kernel = CH_K_THREAD_START;
		body = CH_NEW_THREAD;
	} else if (t->resumed) {
		/* Readied by the holder of the lock it waited on. */
		kernel = CH_K_WAIT_ADDRESS;
		body = t->body;
	} else if (t->awaiting_work) {
		kernel = CH_K_WAIT;
		body = t->body;
	} else if (t->state == TS_READY) {
		kernel = CH_K_PREEMPT;
		body = t->body;
	} else if (t->blocked_until != 0) {
		kernel = CH_K_READ_WAIT;
		body = t->body;
		tail = CH_TAIL_READ;
	} else {
		kernel = prog_of(s, t) == PROG_CARGO ? CH_K_WAIT_ADDRESS :
		    CH_K_WAIT;
		body = build_wait_body(s, t);
	}
	stacks_event(&s->stacks, cpu, ts, pid_of(s, t), t->tid, kernel,
	    prog_of(s, t), body, tail);
}

static void
old_thread_fields(const struct sim *s, const struct thread *old,
    int terminated, struct kev_cswitch *c)
{
	if (terminated) {
		c->old_state = STATE_TERMINATED;
		c->old_wait_reason = WAIT_EXECUTIVE;
		c->old_wait_mode = MODE_KERNEL;
	} else if (old->paused) {
		/* A Rust Mutex: WaitOnAddress. */
		c->old_state = STATE_WAITING;
		c->old_wait_reason = WAIT_ALERT_BY_THREAD_ID;
		c->old_wait_mode = MODE_USER;
	} else if (old->awaiting_work && s->now < old->blocked_until) {
		c->old_state = STATE_WAITING;
		c->old_wait_reason = WAIT_USER_REQUEST;
		c->old_wait_mode = MODE_USER;
	} else if (s->now < old->blocked_until) {
		c->old_state = STATE_WAITING;
		c->old_wait_reason = WAIT_EXECUTIVE;
		c->old_wait_mode = MODE_KERNEL;
	} else if (old->role == TR_IDLE || sched_wants_cpu(s, old)) {
		c->old_state = STATE_READY;
		c->old_wait_reason = old->role == TR_IDLE ? WAIT_EXECUTIVE :
		    WAIT_PREEMPTED;
		c->old_wait_mode = MODE_KERNEL;
	} else {
		c->old_state = STATE_WAITING;
		c->old_wait_reason = prog_of(s, old) == PROG_CARGO ?
		    WAIT_ALERT_BY_THREAD_ID : WAIT_USER_REQUEST;
		c->old_wait_mode = MODE_USER;
	}
}

static void
log_cswitch(struct sim *s, int cpu, int terminated, const struct thread *old,
    const struct thread *new)
{
	struct kev_cswitch c;
	uint64_t ts = sim_stamp(s), waited;

	c.new_tid = new->tid;
	c.old_tid = old->tid;
	c.new_priority = new->priority;
	c.old_priority = old->priority;
	c.previous_cstate = old->role == TR_IDLE ? 1 : 0;
	old_thread_fields(s, old, terminated, &c);
	c.old_ideal_processor = (unsigned)cpu;
	waited = (s->now - new->switched_out_at) / WAIT_TICK;
	c.new_wait_time = waited > UINT32_MAX ? UINT32_MAX : (uint32_t)waited;
	kev_cswitch(s->w, cpu, ts, &c);
	switch_in_stack(s, cpu, ts, new);
	if (old->paused)
		s->pause.out_ts = ts;
}

/* How long a thread with nothing to do sleeps before it looks again. */
static uint64_t
sleep_interval(struct sim *s, const struct thread *t)
{
	switch (prog_of(s, t)) {
	case PROG_CARGO:
		return sim_between(s, 2, 20) * TICKS_PER_MS;
	case PROG_PYTHON:
		return sim_between(s, 20, 200) * TICKS_PER_MS;
	default:
		return NEVER;
	}
}

static void
put_aside(struct sim *s, struct thread *t)
{
	uint64_t sleep;

	t->cpu = -1;
	t->switched_out_at = s->now;
	if (t->role == TR_IDLE || sched_wants_cpu(s, t)) {
		t->state = TS_READY;
		return;
	}
	t->state = TS_WAITING;
	sleep = sleep_interval(s, t);
	if (t->wake_at == NEVER && sleep != NEVER)
		t->wake_at = s->now + sleep;
}

static void
switch_to(struct sim *s, int cpu, int thread, int terminated)
{
	struct cpu *c = &s->cpus[cpu];
	struct thread *old = &s->threads[c->current];
	struct thread *t = &s->threads[thread];

	if (t->state == TS_WAITING && !t->first_run)
		ready_thread(s, cpu, thread, terminated);
	log_cswitch(s, cpu, terminated, old, t);
	if (!terminated)
		put_aside(s, old);
	t->state = TS_RUNNING;
	t->blocked_until = 0;
	t->awaiting_work = t->resumed = 0;
	t->cpu = cpu;
	c->current = thread;
	c->next_switch = s->now + quantum(s, t);
	c->next_action = NEVER;
	if (t->role == TR_IDLE)
		return;
	if (t->first_run) {
		t->first_run = 0;
		build_first_run(s, cpu, thread);
	} else
		build_pick_body(s, t);
	prof_sync(s, thread);
	c->next_action = s->now + build_action_interval(s, t);
}

void
sched_switch(struct sim *s, int cpu)
{
	struct cpu *c = &s->cpus[cpu];
	struct thread *cur = &s->threads[c->current];
	int next;

	next = find_candidate(s);
	if (next == -1) {
		if (cur->role == TR_IDLE || sched_wants_cpu(s, cur)) {
			c->next_switch = s->now + quantum(s, cur);
			return;
		}
		next = c->idle_thread;
	}
	switch_to(s, cpu, next, 0);
}

/* The thread running on `cpu` has ended; the processor moves on. */
void
sched_leave(struct sim *s, int cpu)
{
	int next;

	next = find_candidate(s);
	switch_to(s, cpu, next == -1 ? s->cpus[cpu].idle_thread : next, 1);
}

/* The running `thread` waits for a file read; its processor moves on. */
void
sched_block_on_read(struct sim *s, int cpu, int thread)
{
	s->threads[thread].blocked_until = s->now +
	    sim_between(s, 100, 3000) * TICKS_PER_US;
	s->cpus[cpu].next_switch = s->now;
}

/*
 * A worker waits for its next work item (--self-profile): blocked for a
 * while, out of its queries; its processor moves on.
 */
void
sched_block_for_work(struct sim *s, int cpu, int thread)
{
	s->threads[thread].awaiting_work = 1;
	sched_block_on_read(s, cpu, thread);
}

/*
 * What runs on `cpu` readies the waiting `thread` (--pause: the holder
 * of the lock lets go of it), which then waits for a processor.
 */
void
sched_ready_by(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];

	t->paused = 0;
	t->resumed = 1;
	if (t->state == TS_WAITING)
		ready_thread(s, cpu, thread, 0);
}

void
sched_wake(struct sim *s, int thread)
{
	struct thread *t = &s->threads[thread];

	if (t->wake_at > s->now)
		t->wake_at = s->now;
}

static enum sample_kernel
sample_kind(struct sim *s, const struct thread *t)
{
	uint64_t r = rng_below(&s->rng, 100);

	if (t->role == TR_IDLE)
		return r < 92 ? SK_IDLE : SK_IDLE_DPC;
	if (r < 84)
		return SK_USER;
	if (r < 91)
		return SK_PAGE_FAULT;
	if (r < 96)
		return SK_READ;
	return SK_DPC;
}

/*
 * A profile interrupt on `cpu`.  Near an --events limit a sample whose
 * stack would not fit is written without one, as when a walk fails.
 */
void
sched_sample(struct sim *s, int cpu)
{
	struct cpu *c = &s->cpus[cpu];
	struct thread *t = &s->threads[c->current];
	struct proc *p = &s->procs[t->proc];
	struct sample_stack st;
	int stackless, cached;
	uint64_t ts;

	c->next_sample += SAMPLE_INTERVAL;
	st.prog = p->prog;
	st.body = t->role == TR_IDLE ? NO_CHAIN : t->body;
	st.kernel = sample_kind(s, t);
	stackless = rng_below(&s->rng, STACKLESS_ONE_IN) == 0 ||
	    1 + (uint64_t)stacks_sample_fragments(&st) > sim_budget(s);
	cached = !s->winding_down && rng_percent(&s->rng, CACHED_PERCENT);
	ts = sim_stamp(s);
	kev_sample(s->w, cpu, ts, stacks_sample_ip(&s->stacks, &st), t->tid,
	    (unsigned)t->priority, stacks_sample_flags(&st));
	if (stackless) {
		s->samples_without_stack++;
		stacks_count_stackless(&s->stacks, &st);
	} else
		stacks_sample(&s->stacks, cpu, ts, p->pid, t->tid, &st,
		    cached);
	p->samples++;
	s->samples++;
	prof_sample(s, t);
}
