/*
 * sim.h - the state of the rustc-build simulation, shared by its parts:
 *
 *	sim.c		the clock, the main loop, limits, start and end
 *	sched.c		processors: switches, ready threads, samples
 *	procs.c		processes, threads, images, ids, rundowns
 *	memory.c	heap blocks and virtual memory regions
 *	build.c		what cmd, python, cargo, rustc and link.exe do
 *
 * Tables have fixed sizes chosen at start from --cpus; a slot is reused
 * when its process or thread ends.
 */
#ifndef SIM_H
#define SIM_H

#include <stdint.h>
#include <stdio.h>

#include "chains.h"
#include "etlwrite.h"
#include "programs.h"
#include "rng.h"
#include "scenario.h"
#include "stacks.h"

#define MAX_CPUS		64
#define HEAP_BLOCKS		64
#define REGIONS			16
#define CMDLINE_MAX		2048
#define MAX_PROCESS_THREADS	MAX_CPUS	/* Idle: one per processor */
#define THREADS_PER_PROCESS	8		/* sizing: rustc has 6 */
#define FREED_IDS		64
#define FIRST_NEW_ID		10240	/* above the residents' ids */
#define NEVER			UINT64_MAX
#define QUERY_DEPTH		4	/* open queries a thread nests */

/* QPC ticks at 10 MHz. */
#define TICKS_PER_US		10
#define TICKS_PER_MS		10000

enum thread_role {
	TR_IDLE,		/* a processor's idle thread, tid 0 */
	TR_SYSTEM,		/* a kernel worker of System */
	TR_MAIN,		/* a process's first thread */
	TR_COMPILER,		/* rustc's compiler thread */
	TR_CODEGEN		/* an LLVM worker of rustc */
};

enum thread_state {
	TS_WAITING,		/* blocked; needs ReadyThread to run */
	TS_READY,		/* runnable, not on a processor */
	TS_RUNNING
};

/* Phases of a rustc or link.exe process (others stay in PH_RUNNING). */
enum phase {
	PH_RUNNING,
	PH_FRONTEND,
	PH_CODEGEN,
	PH_LINKING,		/* waiting for link.exe */
	PH_FINISHING
};

struct heap_block {
	int		live;
	int		heap;		/* 0 process, 1 private heap */
	uint64_t	address;
	uint64_t	size;
};

struct region {
	int		live;
	uint64_t	base;
	uint64_t	size;
};

struct proc {
	int			live;
	enum program		prog;
	uint32_t		pid;
	uint32_t		parent_pid;
	int			parent;		/* slot, or -1 */
	uint64_t		start_ts;
	int			from_rundown;	/* predates the trace */
	int			nimages;	/* loaded, of prog's */
	char			cmdline[CMDLINE_MAX];
	int			threads[MAX_PROCESS_THREADS]; /* slots */
	int			nthreads;
	/* What the process is working on (build.c). */
	enum phase		phase;
	uint64_t		phase_start;
	uint64_t		phase_end;
	int			build;		/* python and below: which */
	int			step;		/* python, cargo */
	int			crate;		/* rustc, link.exe */
	uint64_t		ident;		/* its place in the build, or 0 */
	int			next_crate;	/* cargo: next to start */
	int			children;	/* live child processes */
	/* Memory (memory.c) and the manifest's ground truth. */
	struct heap_block	blocks[HEAP_BLOCKS];
	struct region		regions[REGIONS];
	uint64_t		samples;
	uint64_t		committed;
	uint64_t		freed;
	uint64_t		heap_outstanding;
	int			prof;		/* selfprof.c's, + 1; 0: none */
};

struct thread {
	int			live;
	uint32_t		tid;
	int			proc;		/* slot */
	enum thread_role	role;
	enum thread_state	state;
	int			cpu;		/* when running */
	int			first_run;	/* has never run */
	uint64_t		wake_at;	/* when it wants the CPU */
	uint64_t		blocked_until;	/* in a file read */
	uint64_t		switched_out_at;
	enum chain_id		body;		/* what it is doing */
	int			priority;
	const char		*name;
	/* A codegen worker between two work items (--self-profile). */
	int			awaiting_work;
	/* --pause: blocked on the lock; readied by its holder. */
	int			paused;
	int			resumed;
	/* --self-profile: its rustc ThreadId and open queries. */
	uint32_t		rust_tid;	/* 0: none yet */
	int			nq;
	int			q[QUERY_DEPTH];	/* labels, outermost first */
	uint64_t		q_start[QUERY_DEPTH];
};

struct cpu {
	int		current;	/* thread slot */
	int		idle_thread;	/* slot */
	uint64_t	next_sample;
	uint64_t	next_switch;
	uint64_t	next_action;
};

/*
 * How far a run got, by the places of the build's processes (struct
 * proc's ident): those started and those ended, and when it stopped.
 * --slow-crate runs the build without the slow crate first, to learn
 * its reach, then runs the slow build to it (sim.c).
 */
struct reach {
	uint64_t	 end;		/* ticks after the trace's start */
	uint64_t	*started, *ended;
	size_t		 nstarted, nended, cap_started, cap_ended;
	/* The shares of durations drawn (sim_share()), by process, phase. */
	struct share {
		uint64_t	 key;
		uint64_t	 share;
	}		*shares;
	size_t		 nshares, cap_shares;
	int		 oom;
};

struct sim {
	struct scenario_options	 opt;
	struct reach		*record;	/* the baseline's, being made */
	const struct reach	*until;		/* the baseline's, to reach */
	size_t			 begun;		/* of until->started, started */
	size_t			 reached;	/* of until->ended, ended */
	int			 builds;	/* started by cmd */
	struct etl_writer	*w;
	FILE			*manifest;
	struct rng		 rng;
	struct stacks		 stacks;
	int			 ncpus;
	int			 ps;		/* pointer size */
	uint64_t		 t0;
	uint64_t		 now;
	struct cpu		 cpus[MAX_CPUS];
	struct proc		*procs;
	int			 nprocs;
	struct thread		*threads;
	int			 nthreads;
	int			 threads_used;	/* slots ever used */
	/* Process and thread ids; freed ones come back, last freed first. */
	uint32_t		 next_id;
	uint32_t		 freed_ids[FREED_IDS];
	int			 nfreed;
	/* Events the rundown at the end will write, stack keys aside. */
	uint64_t		 closing;
	int			 winding_down;
	uint64_t		 next_loss;
	uint64_t		 samples;
	uint64_t		 samples_without_stack;
	uint64_t		 process_lines;
	int			 shell;		/* slot of cmd.exe */
	/* --self-profile (selfprof.c), or NULL; and the Unix time of t0. */
	struct selfprof		*prof;
	uint64_t		 unix_ns0;
	/* --slow-query: the front end's pass it is, or -1. */
	int			 slow_pass;
	/* --pause: one rustc thread blocked on a lock (build.c). */
	struct pause {
		uint64_t	 ticks;		/* how long; 0: none */
		enum { PAUSE_PLANNED, PAUSE_ON, PAUSE_DONE } state;
		int		 waiter, holder;	/* thread slots */
		uint64_t	 until;		/* the holder lets go then */
		uint64_t	 out_ts;	/* the waiter's switch-out */
		int		 label;		/* its query, or -1 */
	}			 pause;
};

/* sim.c */
uint64_t	 sim_stamp(struct sim *s);
uint64_t	 sim_between(struct sim *s, uint64_t lo, uint64_t hi);
uint64_t	 sim_budget(const struct sim *s);
uint64_t	 sim_share(struct sim *s, const struct proc *p, unsigned what);
int		 sim_may_start(const struct sim *s, uint64_t ident);
void		 sim_started(struct sim *s, const struct proc *p);
void		 sim_ended(struct sim *s, const struct proc *p);

/* sched.c */
void		 sched_init_cpus(struct sim *s);
void		 sched_sample(struct sim *s, int cpu);
void		 sched_switch(struct sim *s, int cpu);
void		 sched_ready_new(struct sim *s, int cpu, int creator,
		    int thread, enum chain_id kernel);
void		 sched_leave(struct sim *s, int cpu);
void		 sched_wake(struct sim *s, int thread);
void		 sched_ready_by(struct sim *s, int cpu, int thread);
void		 sched_block_for_work(struct sim *s, int cpu, int thread);
void		 sched_block_on_read(struct sim *s, int cpu, int thread);
int		 sched_wants_cpu(const struct sim *s,
		    const struct thread *t);

/* procs.c */
struct proc	*proc_of(struct sim *s, const struct thread *t);
int		 procs_spawn(struct sim *s, int cpu, int parent_thread,
		    enum program prog, const char *cmdline);
int		 procs_add_thread(struct sim *s, int cpu, int creator,
		    int proc, enum thread_role role, const char *name);
void		 procs_load_images(struct sim *s, int cpu, int thread);
void		 procs_end_thread(struct sim *s, int cpu, int thread);
void		 procs_exit(struct sim *s, int cpu, int thread);
void		 procs_start_rundown(struct sim *s);
void		 procs_end_rundown(struct sim *s, int cpu);
uint64_t	 procs_start_rundown_events(int ncpus);
uint64_t	 procs_end_rundown_events(int ncpus);

/* memory.c */
void		 memory_heap_create(struct sim *s, int cpu, int thread,
		    int heap);
void		 memory_heap_op(struct sim *s, int cpu, int thread,
		    int heap);
void		 memory_heap_destroy(struct sim *s, int cpu, int thread,
		    int heap);
void		 memory_virtual_op(struct sim *s, int cpu, int thread,
		    uint64_t min_size, uint64_t max_size);

/* selfprof.c: --self-profile, the .mm_profdata of each rustc */
struct selfprof	*selfprof_new(const char *dir);
void		 selfprof_free(struct selfprof *sp);
void		 prof_start(struct sim *s, int proc);
void		 prof_sync(struct sim *s, int thread);
void		 prof_thread_end(struct sim *s, int thread);
void		 prof_exit(struct sim *s, struct proc *p, int cut);
void		 prof_sample(struct sim *s, const struct thread *t);
int		 prof_label(const char *name);
const char	*prof_label_name(int label);
int		 prof_innermost(enum chain_id frontend_body);

/* build.c */
int		 build_has_crate(const char *name);
int		 build_has_query(const char *name);
int		 build_slow_pass(const char *name);
void		 build_act(struct sim *s, int cpu, int thread);
void		 build_first_run(struct sim *s, int cpu, int thread);
void		 build_child_exited(struct sim *s, int parent);
void		 build_pick_body(struct sim *s, struct thread *t);
enum chain_id	 build_wait_body(const struct sim *s,
		    const struct thread *t);
uint64_t	 build_action_interval(struct sim *s, const struct thread *t);

#endif
