/*
 * procs.c - processes, threads and their images: ids, the Process,
 * Thread and Image events, and the rundowns that open and close the
 * trace (DCStart and DCEnd, etl-format.md 5.2 to 5.4, with the
 * KernelTraceControl identity of every image, section 6).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chains.h"
#include "images.h"
#include "kevents.h"
#include "manifest.h"
#include "programs.h"
#include "sim.h"

#define STATUS_PENDING		259	/* exit status while running */
#define ID_REUSE_PERCENT	50
#define NORMAL_PRIORITY		8
#define KERNEL_IMAGES		(FIRST_USER_IMAGE - IMG_NTOSKRNL)
#define MAX_RESIDENT_THREADS	4

/* The processes running when the trace starts. */
static const struct {
	enum program	 prog;
	uint32_t	 pid;
	uint32_t	 parent_pid;
	uint32_t	 tids[MAX_RESIDENT_THREADS];	/* 0 ends the list */
	const char	*cmdline;
} resident[] = {
	{ PROG_IDLE, 0, 0, { 0 }, "" },
	{ PROG_SYSTEM, 4, 0, { 8, 12, 16, 20 }, "" },
	{ PROG_CSRSS, 612, 600, { 616, 620 },
	    "%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows "
	    "SharedSection=1024,20480,768 Windows=On SubSystemType=Windows "
	    "ServerDll=basesrv,1 "
	    "ServerDll=winsrv:UserServerDllInitialization,3 "
	    "ServerDll=sxssrv,4 ProfileControl=Off MaxRequestThreads=16" },
	{ PROG_EXPLORER, 5340, 5296, { 5344, 5348, 5352 },
	    "C:\\Windows\\Explorer.EXE" },
	{ PROG_CMD, 7468, 5340, { 7472 },
	    "\"C:\\Windows\\system32\\cmd.exe\"" },
	{ PROG_WPR, 9812, 4712, { 9816 },
	    "wpr  -start CPU -start VirtualAllocation -start Heap -filemode" },
};

#define RESIDENTS	(sizeof(resident) / sizeof(resident[0]))

struct proc *
proc_of(struct sim *s, const struct thread *t)
{
	return &s->procs[t->proc];
}

/*
 * Windows hands out process and thread ids from one table, in steps of
 * four, and soon reuses freed ones; so do we, half the time, the most
 * recently freed first.
 */
static uint32_t
new_id(struct sim *s)
{
	uint32_t id;

	if (s->nfreed > 0 && rng_percent(&s->rng, ID_REUSE_PERCENT))
		return s->freed_ids[--s->nfreed];
	id = s->next_id;
	s->next_id += 4;
	return id;
}

/* When the list is full the oldest freed id is forgotten. */
static void
free_id(struct sim *s, uint32_t id)
{
	if (s->nfreed == FREED_IDS)
		memmove(s->freed_ids, s->freed_ids + 1,
		    sizeof(s->freed_ids[0]) * (size_t)--s->nfreed);
	s->freed_ids[s->nfreed++] = id;
}

static int
free_proc_slot(const struct sim *s)
{
	int i;

	for (i = 0; i < s->nprocs; i++)
		if (!s->procs[i].live)
			return i;
	return -1;
}

static int
free_thread_slot(const struct sim *s)
{
	int i;

	for (i = 0; i < s->nthreads; i++)
		if (!s->threads[i].live)
			return i;
	return -1;
}

/* Kernel objects live at addresses derived from the ids. */
static void
process_payload(const struct sim *s, const struct proc *p,
    int32_t exit_status, struct kev_process *kp)
{
	uint64_t n = p->pid % 0x4000;
	int system = p->prog <= PROG_CSRSS;

	memset(kp, 0, sizeof(*kp));
	kp->unique_key = s->ps == 4 ? 0x85000000 + n * 0x400 :
	    0xffffa48c30000000ULL + n * 0x1000;
	kp->directory_table_base = s->ps == 4 ? 0x3f000000 + n * 0x20 :
	    0x1a0000000ULL + n * 0x1000;
	kp->pid = p->pid;
	kp->parent_pid = p->parent_pid;
	kp->session_id = system ? 0 : 1;
	kp->exit_status = exit_status;
	kp->account = system ? ACCOUNT_SYSTEM : ACCOUNT_USER;
	kp->image_file_name = program_desc(p->prog)->image_file_name;
	kp->command_line = p->cmdline;
}

static uint64_t
thread_start_address(const struct sim *s, const struct thread *t,
    const struct proc *p)
{
	const struct program_desc *pd = program_desc(p->prog);

	switch (t->role) {
	case TR_IDLE:
		return 0;
	case TR_SYSTEM:
		return image_function_address(IMG_NTOSKRNL,
		    "ExpWorkerThread", s->ps);
	case TR_MAIN:
		return image_function_address(pd->modules[MOD_EXE],
		    "mainCRTStartup", s->ps);
	default:
		return image_function_address(pd->modules[MOD_STD],
		    "std::sys::pal::windows::thread::Thread::new::thread_start",
		    s->ps);
	}
}

static void
thread_stacks(const struct sim *s, const struct thread *t,
    struct kev_thread *kt)
{
	uint64_t n = t->tid % 0x8000;
	uint64_t slot = (uint64_t)(t - s->threads) % 32;
	int user = t->role != TR_IDLE && t->role != TR_SYSTEM;

	if (s->ps == 4) {
		kt->stack_base = 0x9a000000 + n * 0x3000;
		kt->stack_limit = kt->stack_base - 0x3000;
		if (user) {
			kt->user_stack_base = 0x44100000 + slot * 0x100000;
			kt->teb = 0x7ffdf000 - slot * 0x1000;
		}
	} else {
		kt->stack_base = 0xffffe28000000000ULL + n * 0x6000;
		kt->stack_limit = kt->stack_base - 0x6000;
		if (user) {
			kt->user_stack_base = 0x000000e000000000ULL +
			    n * 0x100000;
			kt->teb = 0x000000d000000000ULL + n * 0x2000;
		}
	}
	if (user)
		kt->user_stack_limit = kt->user_stack_base - 0x10000;
}

static void
thread_payload(const struct sim *s, const struct thread *t,
    struct kev_thread *kt)
{
	const struct proc *p = &s->procs[t->proc];

	memset(kt, 0, sizeof(*kt));
	kt->pid = p->pid;
	kt->tid = t->tid;
	thread_stacks(s, t, kt);
	kt->affinity = s->ncpus == 64 ? UINT64_MAX :
	    ((uint64_t)1 << s->ncpus) - 1;
	kt->win32_start = thread_start_address(s, t, p);
	kt->base_priority = (unsigned)t->priority;
	kt->name = t->name;
}

static void
log_thread(struct sim *s, int cpu, unsigned hook, uint32_t hdr_pid,
    uint32_t hdr_tid, uint64_t ts, const struct thread *t)
{
	struct kev_thread kt;

	thread_payload(s, t, &kt);
	kev_thread(s->w, cpu, hook, hdr_pid, hdr_tid, ts, &kt);
}

static void
log_process(struct sim *s, int cpu, unsigned hook, uint32_t hdr_tid,
    uint64_t ts, const struct proc *p, int32_t exit_status)
{
	struct kev_process kp;
	uint32_t hdr_pid = p->pid;

	process_payload(s, p, exit_status, &kp);
	/* A new process is announced by its parent (5.3). */
	if (hook == HOOK_PROCESS_START)
		hdr_pid = p->parent_pid;
	kev_process(s->w, cpu, hook, hdr_pid, hdr_tid, ts, &kp);
}

/* An image event and, as a merged trace has, its ImageID and DbgID. */
static void
log_image(struct sim *s, int cpu, unsigned hook, uint32_t hdr_pid,
    uint32_t hdr_tid, enum image_id image, uint32_t pid)
{
	uint64_t ts = sim_stamp(s);

	kev_image(s->w, cpu, hook, hdr_pid, hdr_tid, ts, image, pid);
	kev_image_identity(s->w, cpu, hdr_pid, hdr_tid, ts, image, pid);
}

static int
new_thread(struct sim *s, int proc, uint32_t tid, enum thread_role role,
    const char *name)
{
	struct proc *p = &s->procs[proc];
	struct thread *t;
	int slot;

	slot = free_thread_slot(s);
	if (slot == -1 || p->nthreads == MAX_PROCESS_THREADS)
		return -1;
	if (slot >= s->threads_used)
		s->threads_used = slot + 1;
	t = &s->threads[slot];
	memset(t, 0, sizeof(*t));
	t->live = 1;
	t->tid = tid;
	t->proc = proc;
	t->role = role;
	t->state = TS_WAITING;
	t->cpu = -1;
	t->wake_at = NEVER;
	t->body = NO_CHAIN;
	t->priority = role == TR_IDLE ? 0 : NORMAL_PRIORITY;
	t->name = name;
	p->threads[p->nthreads++] = slot;
	return slot;
}

static int
new_proc(struct sim *s, enum program prog, uint32_t pid, uint32_t parent_pid,
    int parent, const char *cmdline)
{
	struct proc *p;
	int slot;

	slot = free_proc_slot(s);
	if (slot == -1)
		return -1;
	p = &s->procs[slot];
	memset(p, 0, sizeof(*p));
	p->live = 1;
	p->prog = prog;
	p->pid = pid;
	p->parent_pid = parent_pid;
	p->parent = parent;
	snprintf(p->cmdline, sizeof(p->cmdline), "%s", cmdline);
	return slot;
}

/*
 * Starts a process: Process Start and Thread Start logged by the creating
 * thread, the executable and ntdll mapped, and the new thread readied.
 * Its other DLLs load when the thread first runs (procs_load_images).
 * @return : the process slot, or -1 if the tables are full.
 */
int
procs_spawn(struct sim *s, int cpu, int parent_thread, enum program prog,
    const char *cmdline)
{
	struct thread *pt = &s->threads[parent_thread];
	struct proc *p, *pp = proc_of(s, pt);
	const struct thread *main;
	int slot, i;

	if (free_thread_slot(s) == -1)
		return -1;
	slot = new_proc(s, prog, new_id(s), pp->pid, pt->proc, cmdline);
	if (slot == -1)
		return -1;
	p = &s->procs[slot];
	i = new_thread(s, slot, new_id(s), TR_MAIN, NULL);
	main = &s->threads[i];
	s->threads[i].first_run = 1;
	p->start_ts = sim_stamp(s);
	log_process(s, cpu, HOOK_PROCESS_START, pt->tid, p->start_ts, p,
	    STATUS_PENDING);
	log_thread(s, cpu, HOOK_THREAD_START, pp->pid, pt->tid, p->start_ts,
	    main);
	for (p->nimages = 0; p->nimages < 2; p->nimages++)
		log_image(s, cpu, HOOK_IMAGE_LOAD, p->pid, main->tid,
		    program_desc(prog)->images[p->nimages], p->pid);
	s->closing += 2 + 3 * 2;
	pp->children++;
	sched_ready_new(s, cpu, parent_thread, i, CH_K_READY_NEW_PROCESS);
	return slot;
}

/* @return : the thread slot, or -1 if the tables are full. */
int
procs_add_thread(struct sim *s, int cpu, int creator, int proc,
    enum thread_role role, const char *name)
{
	struct thread *ct = &s->threads[creator];
	int slot;

	slot = new_thread(s, proc, new_id(s), role, name);
	if (slot == -1)
		return -1;
	s->threads[slot].first_run = 1;
	log_thread(s, cpu, HOOK_THREAD_START, proc_of(s, ct)->pid, ct->tid,
	    sim_stamp(s), &s->threads[slot]);
	s->closing++;
	sched_ready_new(s, cpu, creator, slot, CH_K_READY_NEW_THREAD);
	return slot;
}

/* The loader maps the rest of the program's DLLs on its first run. */
void
procs_load_images(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	const struct program_desc *pd = program_desc(p->prog);

	while (p->nimages < pd->nimages) {
		log_image(s, cpu, HOOK_IMAGE_LOAD, p->pid, t->tid,
		    pd->images[p->nimages], p->pid);
		p->nimages++;
		s->closing += 3;
	}
}

static void
forget_thread(struct sim *s, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	int i;

	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i] == thread)
			break;
	p->threads[i] = p->threads[--p->nthreads];
	free_id(s, t->tid);
	t->live = 0;
	s->closing--;
}

/*
 * Ends a thread other than the one acting: it logs Thread End where it
 * runs and leaves that processor, or is ended from `cpu`.
 */
void
procs_end_thread(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	int where = t->state == TS_RUNNING ? t->cpu : cpu;

	prof_thread_end(s, thread);
	log_thread(s, where, HOOK_THREAD_END, proc_of(s, t)->pid, t->tid,
	    sim_stamp(s), t);
	if (t->state == TS_RUNNING)
		sched_leave(s, where);
	forget_thread(s, thread);
}

static void
write_process_line(struct sim *s, const struct proc *p)
{
	uint64_t start_ns = 0;

	if (!p->from_rundown)
		start_ns = (p->start_ts - s->t0) * 100;
	manifest_process(s->manifest, p->pid, start_ns, p->parent_pid,
	    program_desc(p->prog)->image_file_name, p->samples, p->committed,
	    p->freed, p->heap_outstanding, p->cmdline);
	s->process_lines++;
}

/*
 * The running `thread` ends its process: the other threads end, the
 * images unmap, then its own Thread End and the Process End, and the
 * processor switches away.
 */
void
procs_exit(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	const struct program_desc *pd = program_desc(p->prog);
	int i;

	for (i = p->nthreads - 1; i >= 0; i--)
		if (p->threads[i] != thread)
			procs_end_thread(s, cpu, p->threads[i]);
	for (i = p->nimages - 1; i >= 0; i--)
		kev_image(s->w, cpu, HOOK_IMAGE_UNLOAD, p->pid, t->tid,
		    sim_stamp(s), pd->images[i], p->pid);
	s->closing -= 3 * (uint64_t)p->nimages;
	log_thread(s, cpu, HOOK_THREAD_END, p->pid, t->tid, sim_stamp(s), t);
	log_process(s, cpu, HOOK_PROCESS_END, t->tid, sim_stamp(s), p, 0);
	s->closing--;
	prof_exit(s, p, 0);
	write_process_line(s, p);
	if (p->ident != 0)
		sim_ended(s, p);
	sched_leave(s, cpu);
	forget_thread(s, thread);
	p->live = 0;
	free_id(s, p->pid);
	if (p->parent != -1 && s->procs[p->parent].live &&
	    s->procs[p->parent].pid == p->parent_pid)
		build_child_exited(s, p->parent);
}

/* Logs a process with its threads and images as rundown `hooks`. */
static void
rundown_process(struct sim *s, int cpu, const struct proc *p,
    const unsigned hooks[3])
{
	const struct program_desc *pd = program_desc(p->prog);
	const struct thread *t;
	uint32_t first_tid;
	int i;

	first_tid = s->threads[p->threads[0]].tid;
	log_process(s, cpu, hooks[0], first_tid, sim_stamp(s), p,
	    p->prog == PROG_IDLE ? 0 : STATUS_PENDING);
	for (i = 0; i < p->nthreads; i++) {
		t = &s->threads[p->threads[i]];
		log_thread(s, cpu, hooks[1], p->pid, t->tid, sim_stamp(s), t);
	}
	for (i = 0; i < p->nimages; i++)
		log_image(s, cpu, hooks[2], p->pid, first_tid, pd->images[i],
		    p->pid);
}

static void
rundown_kernel_images(struct sim *s, int cpu, unsigned hook)
{
	int i;

	for (i = 0; i < KERNEL_IMAGES; i++)
		log_image(s, cpu, hook, 0, 0, (enum image_id)i, 0);
}

/* Idle has a thread on every processor, all with tid 0. */
static int
resident_threads(size_t r, int ncpus)
{
	int n = 0;

	if (resident[r].prog == PROG_IDLE)
		return ncpus;
	while (n < MAX_RESIDENT_THREADS && resident[r].tids[n] != 0)
		n++;
	return n;
}

static enum thread_role
resident_role(enum program prog)
{
	if (prog == PROG_IDLE)
		return TR_IDLE;
	return prog == PROG_SYSTEM ? TR_SYSTEM : TR_MAIN;
}

/* Creates the processes that were running before the trace began. */
static void
add_residents(struct sim *s)
{
	enum thread_role role;
	int i, proc, thread;
	size_t r;

	for (r = 0; r < RESIDENTS; r++) {
		proc = new_proc(s, resident[r].prog, resident[r].pid,
		    resident[r].parent_pid, -1, resident[r].cmdline);
		s->procs[proc].from_rundown = 1;
		s->procs[proc].nimages =
		    program_desc(resident[r].prog)->nimages;
		role = resident_role(resident[r].prog);
		for (i = 0; i < resident_threads(r, s->ncpus); i++) {
			thread = new_thread(s, proc, role == TR_IDLE ? 0 :
			    resident[r].tids[i], role, NULL);
			if (role == TR_IDLE)
				s->cpus[i].idle_thread = thread;
		}
		if (resident[r].prog == PROG_CMD)
			s->shell = proc;
	}
}

uint64_t
procs_start_rundown_events(int ncpus)
{
	uint64_t n = 3 * KERNEL_IMAGES;
	size_t r;

	for (r = 0; r < RESIDENTS; r++)
		n += 1 + (uint64_t)resident_threads(r, ncpus) +
		    3 * (uint64_t)program_desc(resident[r].prog)->nimages;
	return n;
}

/* The end adds the SystemConfig CPU event to what the start logged. */
uint64_t
procs_end_rundown_events(int ncpus)
{
	return procs_start_rundown_events(ncpus) + 1;
}

void
procs_start_rundown(struct sim *s)
{
	static const unsigned hooks[3] = { HOOK_PROCESS_DCSTART,
	    HOOK_THREAD_DCSTART, HOOK_IMAGE_DCSTART };
	int i;

	add_residents(s);
	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].live)
			rundown_process(s, 0, &s->procs[i], hooks);
	rundown_kernel_images(s, 0, HOOK_IMAGE_DCSTART);
	s->closing = procs_end_rundown_events(s->ncpus);
}

/*
 * The rundown at the end: every live process with its threads and
 * images, the kernel's images, the stack cache, the CPU description
 * (logged by wpr.exe, which stops the trace).
 */
void
procs_end_rundown(struct sim *s, int cpu)
{
	static const unsigned hooks[3] = { HOOK_PROCESS_DCEND,
	    HOOK_THREAD_DCEND, HOOK_IMAGE_DCEND };
	const struct proc *wpr = NULL;
	struct proc *p;
	int i;

	for (i = 0; i < s->nprocs; i++) {
		p = &s->procs[i];
		if (!p->live)
			continue;
		rundown_process(s, cpu, p, hooks);
		prof_exit(s, p, 1);
		write_process_line(s, p);
		if (p->prog == PROG_WPR)
			wpr = p;
	}
	rundown_kernel_images(s, cpu, HOOK_IMAGE_DCEND);
	stacks_rundown(&s->stacks, cpu, sim_stamp(s));
	kev_system_config_cpu(s->w, cpu, wpr->pid,
	    s->threads[wpr->threads[0]].tid, sim_stamp(s));
}
