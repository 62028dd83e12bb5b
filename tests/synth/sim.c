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
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

	c->next_action = NEVER;
	build_act(s, cpu, c->current);
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

static int
should_stop(struct sim *s)
{
	uint64_t budget;

	if (s->w->failed)
		return 1;
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

int
scenario_run(const struct scenario_options *o, struct etl_writer *w,
    FILE *manifest)
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
	if (alloc_tables(s) == -1) {
		free(s);
		return -1;
	}
	programs_init();
	start(s);
	run(s);
	procs_end_rundown(s, 0);
	stacks_write_manifest(&s->stacks, manifest);
	status = symbols_write_manifest(&s->stacks, manifest);
	manifest_total(manifest, "samples", s->samples);
	manifest_total(manifest, "samples_without_stack",
	    s->samples_without_stack);
	manifest_total(manifest, "processes", s->process_lines);
	free(s->procs);
	free(s->threads);
	free(s);
	return status;
}
