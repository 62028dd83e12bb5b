/*
 * sim.c - the clock and the main loop of the rustc-build scenario.
 *
 * Each processor has three timers: the next profile sample (every
 * millisecond), the next scheduling decision and the next thing its
 * running thread does.  The loop serves the earliest timer; every group
 * of events (an event with its stacks and companions) takes the next tick
 * of a single clock, so timestamps never repeat or go backwards.
 *
 * With --events N the trace holds exactly N events: the loop keeps the
 * size of the closing rundown in view, stops switching threads and
 * starting work when few events are left ("winding down"), and from then
 * on writes only samples, without their stacks once those would not fit.
 *
 * With --slow-crate the limits are the baseline's: the build without the
 * slow crate runs first, into a scratch file, to learn its reach (struct
 * reach: which processes of the build it started and ended, when it
 * stopped, and the durations it drew for them).  The slow build takes
 * the other processes' durations from it, starts none that it did not,
 * and runs until each one the baseline started has started and each one
 * it ended has ended, and at least as long as the baseline: its trace
 * holds the same crates, is longer rather than cut short, and cuts none
 * that the baseline completed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"
#include "etlwrite.h"
#include "manifest.h"
#include "programs.h"
#include "scenario.h"
#include "sim.h"
#include "stacks.h"
#include "symbols.h"

/* QPC 2 h 13 min after boot, and 2024-11-20 09:14:07.1234567 UTC. */
#define START_QPC		79812345678ULL
#define START_FILETIME		133765676471234567ULL
#define FILETIME_UNIX_EPOCH	116444736000000000ULL	/* 1970 in FILETIME */
#define OS_BUILD		19045		/* Windows 10 22H2 */
#define CPU_MHZ			2995
#define WPR_PID			9812
#define WPR_TID			9816
#define SHELL_WAKES		(2 * TICKS_PER_MS)
#define WIND_DOWN_EVENTS	512	/* more than any one action writes */
#define FIRST_LOSS_MIN		2000
#define FIRST_LOSS_MAX		6000
#define LOSS_GAP_MIN		150000
#define LOSS_GAP_MAX		1500000
#define LOST_MAX		25
/* A slow run ends by this many seconds past (factor + 1) baselines. */
#define SLOW_SLACK_S		60

enum timer {
	TIMER_SAMPLE,
	TIMER_SWITCH,
	TIMER_ACTION
};

void
scenario_trace_info(const struct scenario_options *o,
    struct etlw_trace_info *info)
{
	memset(info, 0, sizeof(*info));
	info->pointer_size = o->pointer_size;
	info->ncpus = o->ncpus;
	info->start_qpc = START_QPC;
	info->start_filetime = START_FILETIME;
	info->header_pid = WPR_PID;
	info->header_tid = WPR_TID;
	info->os_build = OS_BUILD;
	info->cpu_mhz = CPU_MHZ;
	info->logger_name = "NT Kernel Logger";
	info->log_file_name = "C:\\src\\rust\\build.etl";
}

uint64_t
scenario_min_events(const struct scenario_options *o)
{
	return 1 + procs_start_rundown_events(o->ncpus) +
	    procs_end_rundown_events(o->ncpus);
}

/* The timestamp of the next group of events. */
uint64_t
sim_stamp(struct sim *s)
{
	return s->now++;
}

uint64_t
sim_between(struct sim *s, uint64_t lo, uint64_t hi)
{
	return rng_range(&s->rng, lo, hi);
}

/* Events that may still be written before the closing rundown. */
uint64_t
sim_budget(const struct sim *s)
{
	uint64_t used;

	if (s->opt.event_limit == 0)
		return UINT64_MAX;
	used = s->w->events + s->closing + (uint64_t)s->stacks.live_keys;
	return used >= s->opt.event_limit ? 0 : s->opt.event_limit - used;
}

/* Whether `ident` is listed in `list`. */
static int
listed(const uint64_t *list, size_t n, uint64_t ident)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == ident)
			return 1;
	return 0;
}

static void
add_ident(uint64_t **list, size_t *n, size_t *cap, uint64_t ident, int *oom)
{
	uint64_t *p;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((p = realloc(*list, *cap * sizeof(*p))) == NULL) {
			*oom = 1;
			*cap /= 2;
			return;
		}
		*list = p;
	}
	(*list)[(*n)++] = ident;
}

static void
add_share(struct reach *r, uint64_t key, uint64_t share)
{
	struct share *p;

	if (r->nshares == r->cap_shares) {
		r->cap_shares = r->cap_shares ? r->cap_shares * 2 : 64;
		if ((p = realloc(r->shares, r->cap_shares *
		    sizeof(*p))) == NULL) {
			r->oom = 1;
			r->cap_shares /= 2;
			return;
		}
		r->shares = p;
	}
	r->shares[r->nshares].key = key;
	r->shares[r->nshares++].share = share;
}

/*
 * The share of its nominal length, in per cent (70 to 130), that phase
 * `what` of a process of the build takes: drawn from the run's
 * generator; but with --slow-crate the baseline's draw for the same
 * process and phase, since the slow crate changes the order of the
 * draws.  The draw is made all the same, so that the run's numbers
 * follow the baseline's until they part.
 */
uint64_t
sim_share(struct sim *s, const struct proc *p, unsigned what)
{
	uint64_t share = sim_between(s, 70, 130);
	uint64_t key = p->ident ^ (uint64_t)what << 56;
	struct reach *r = s->record;
	size_t i;

	if (r != NULL)
		add_share(r, key, share);
	for (i = 0; s->until != NULL && i < s->until->nshares; i++)
		if (s->until->shares[i].key == key)
			return s->until->shares[i].share;
	return share;
}

/* Whether the build's process at `ident` may start (--slow-crate). */
int
sim_may_start(const struct sim *s, uint64_t ident)
{
	return s->until == NULL ||
	    listed(s->until->started, s->until->nstarted, ident);
}

void
sim_started(struct sim *s, const struct proc *p)
{
	struct reach *r = s->record;

	if (r != NULL)
		add_ident(&r->started, &r->nstarted, &r->cap_started,
		    p->ident, &r->oom);
	if (s->until != NULL)
		s->begun++;	/* sim_may_start() let only those through */
}

void
sim_ended(struct sim *s, const struct proc *p)
{
	struct reach *r = s->record;

	if (r != NULL)
		add_ident(&r->ended, &r->nended, &r->cap_ended, p->ident,
		    &r->oom);
	if (s->until != NULL &&
	    listed(s->until->ended, s->until->nended, p->ident))
		s->reached++;
}

static int
alloc_tables(struct sim *s)
{
	s->nprocs = 16 + 3 * s->ncpus;
	s->nthreads = s->ncpus + s->nprocs * THREADS_PER_PROCESS;
	s->procs = calloc((size_t)s->nprocs, sizeof(*s->procs));
	s->threads = calloc((size_t)s->nthreads, sizeof(*s->threads));
	if (s->procs == NULL || s->threads == NULL) {
		free(s->procs);
		free(s->threads);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static void
start(struct sim *s)
{
	const struct proc *shell;

	rng_seed(&s->rng, s->opt.seed);
	s->ps = s->opt.pointer_size;
	s->t0 = START_QPC;
	s->now = START_QPC + 1;
	s->next_id = FIRST_NEW_ID;
	s->unix_ns0 = (START_FILETIME - FILETIME_UNIX_EPOCH) * 100;
	s->slow_pass = build_slow_pass(s->opt.slow_query);
	s->pause.ticks = s->opt.pause_ms * TICKS_PER_MS;
	stacks_init(&s->stacks, s->w);
	procs_start_rundown(s);
	sched_init_cpus(s);
	shell = &s->procs[s->shell];
	s->threads[shell->threads[0]].wake_at = s->now + SHELL_WAKES;
	s->next_loss = sim_between(s, FIRST_LOSS_MIN, FIRST_LOSS_MAX);
}

static void
next_timer(const struct sim *s, int *cpu, enum timer *which, uint64_t *when)
{
	const struct cpu *c;
	int i;

	*when = NEVER;
	for (i = 0; i < s->ncpus; i++) {
		c = &s->cpus[i];
		if (c->next_sample < *when) {
			*when = c->next_sample;
			*cpu = i;
			*which = TIMER_SAMPLE;
		}
		if (s->winding_down)
			continue;
		if (c->next_switch < *when) {
			*when = c->next_switch;
			*cpu = i;
			*which = TIMER_SWITCH;
		}
		if (c->next_action < *when) {
			*when = c->next_action;
			*cpu = i;
			*which = TIMER_ACTION;
		}
	}
}

static void
act(struct sim *s, int cpu)
{
	struct cpu *c = &s->cpus[cpu];
	int acting = c->current;

	c->next_action = NEVER;
	build_act(s, cpu, acting);
	prof_sync(s, acting);
	/* Unless it switched threads, the same thread acts again later. */
	if (c->next_action == NEVER && s->threads[c->current].role != TR_IDLE)
		c->next_action = s->now +
		    build_action_interval(s, &s->threads[c->current]);
}

/* Now and then the kernel runs out of buffers and drops a few events. */
static void
maybe_lose_events(struct sim *s)
{
	uint64_t lost;
	int cpu;

	if (s->winding_down || s->w->events < s->next_loss)
		return;
	/* Two statements: the order of argument evaluation is unspecified. */
	cpu = (int)rng_below(&s->rng, (uint64_t)s->ncpus);
	lost = sim_between(s, 1, LOST_MAX);
	etlw_lost(s->w, cpu, lost);
	s->next_loss = s->w->events + sim_between(s, LOSS_GAP_MIN,
	    LOSS_GAP_MAX);
}

/* The slow build has reached the baseline's reach, or gone far past. */
static int
reached(const struct sim *s)
{
	uint64_t ran = s->now - s->t0, end = s->until->end;

	if (ran > (uint64_t)((double)end * (s->opt.slow_factor + 1)) +
	    SLOW_SLACK_S * 1000 * (uint64_t)TICKS_PER_MS)
		return 1;
	return ran >= end && s->begun >= s->until->nstarted &&
	    s->reached >= s->until->nended;
}

static int
should_stop(struct sim *s)
{
	uint64_t budget;

	if (s->w->failed)
		return 1;
	if (s->until != NULL)
		return reached(s);
	if (s->opt.size_limit != 0 && s->w->bytes >= s->opt.size_limit)
		return 1;
	budget = sim_budget(s);
	if (budget < WIND_DOWN_EVENTS)
		s->winding_down = 1;
	return budget == 0;
}

static void
run(struct sim *s)
{
	enum timer which = TIMER_SAMPLE;
	uint64_t when;
	int cpu = 0;

	while (!should_stop(s)) {
		next_timer(s, &cpu, &which, &when);
		if (when > s->now)
			s->now = when;
		switch (which) {
		case TIMER_SAMPLE:
			sched_sample(s, cpu);
			break;
		case TIMER_SWITCH:
			sched_switch(s, cpu);
			break;
		case TIMER_ACTION:
			act(s, cpu);
			break;
		}
		maybe_lose_events(s);
	}
}

/*
 * One run of the build into `w`: to its limits, to `until`'s reach, and
 * keeping its own in `record` when not NULL.
 */
static int
simulate(const struct scenario_options *o, struct etl_writer *w,
    FILE *manifest, struct reach *record, const struct reach *until)
{
	struct sim *s;
	int status;

	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -1;
	s->opt = *o;
	s->w = w;
	s->manifest = manifest;
	s->ncpus = o->ncpus;
	s->record = record;
	s->until = until;
	if (alloc_tables(s) == -1) {
		free(s);
		return -1;
	}
	/* The baseline of --slow-crate writes no profiles. */
	if (o->profile_dir != NULL && record == NULL &&
	    (s->prof = selfprof_new(o->profile_dir)) == NULL) {
		free(s->procs);
		free(s->threads);
		free(s);
		return -1;
	}
	if (o->slow_query != NULL)
		fprintf(manifest, "slow_query\t%s\t%g\n", o->slow_query,
		    o->slow_query_factor);
	programs_init();
	start(s);
	run(s);
	if (record != NULL)
		record->end = s->now - s->t0;
	procs_end_rundown(s, 0);
	stacks_write_manifest(&s->stacks, manifest);
	status = symbols_write_manifest(&s->stacks, manifest);
	manifest_total(manifest, "samples", s->samples);
	manifest_total(manifest, "samples_without_stack",
	    s->samples_without_stack);
	manifest_total(manifest, "processes", s->process_lines);
	selfprof_free(s->prof);
	free(s->procs);
	free(s->threads);
	free(s);
	return status;
}

int
scenario_has_crate(const char *name)
{
	return build_has_crate(name);
}

int
scenario_has_query(const char *name)
{
	return build_has_query(name);
}

/*
 * --slow-crate: the build without it, to the limits, into a scratch
 * file, for its reach.  @return : 0, or -1 (errno set).
 */
static int
baseline_reach(const struct scenario_options *o, const struct etl_writer *w,
    struct reach *r)
{
	struct scenario_options base = *o;
	struct etl_writer bw;
	FILE *etl = platform_scratch_file(), *manifest = platform_scratch_file();
	int rc = -1;

	base.slow_crate = NULL;
	base.slow_factor = 1;
	if (etl != NULL && manifest != NULL && etlw_open(&bw, etl,
	    &w->info) == 0) {
		rc = simulate(&base, &bw, manifest, r, NULL);
		if (rc == 0 && (bw.failed || r->oom)) {
			errno = bw.failed ? bw.error : ENOMEM;
			rc = -1;
		}
		etlw_release(&bw);
	}
	if (etl != NULL)
		fclose(etl);
	if (manifest != NULL)
		fclose(manifest);
	return rc;
}

int
scenario_run(const struct scenario_options *o, struct etl_writer *w,
    FILE *manifest)
{
	struct scenario_options slow = *o;
	struct reach r;
	int rc;

	if (o->slow_crate == NULL)
		return simulate(o, w, manifest, NULL, NULL);
	memset(&r, 0, sizeof(r));
	rc = baseline_reach(o, w, &r);
	/* The baseline's reach is the only limit of the slow build. */
	slow.event_limit = slow.size_limit = 0;
	if (rc == 0)
		rc = simulate(&slow, w, manifest, NULL, &r);
	free(r.started);
	free(r.ended);
	free(r.shares);
	return rc;
}
