/*
 * stackjoins.c - the stack-joins scenario: a short trace of the cases
 * where a stack walk is hard to join to its sample (etl-format.md 5.6):
 *
 *	idle	idle samples (thread 0) at one time on three processors,
 *		each followed in its own buffer by its own kernel walk
 *	late	a sample in user mode whose walk comes 100 ms later, on
 *		another processor (past the decoder's 50 ms hold)
 *	split	a kernel-only walk, then its user part 120 ms later
 *	lost	a sample whose walk comes 660 ms later: too late to join,
 *		so the sample stays without a stack and the walk is counted
 *	reused	a kernel-only walk whose thread then ends; a new thread
 *		with its id has a user-mode sample: its user part is not
 *		the old one's, which stays kernel-only (a thread that ends
 *		does not return to user mode)
 *
 * while a busy thread is sampled every millisecond with its walk right
 * after it.  The manifest lists the stacks the samples must end up with,
 * as the rustc-build one does (stack COUNT FRAMES, outermost first), and
 * the totals samples, samples_without_stack and stack_walks_orphaned.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kevents.h"
#include "manifest.h"
#include "stackjoins.h"

#define T0		79812345678ULL	/* as the rustc-build scenario */
#define MS		10000ULL	/* ticks of the 10 MHz clock */
#define APP_PID		500
#define BUSY_TID	601
#define LATE_TID	600
#define SPLIT_TID	602
#define LOST_TID	603
#define REUSED_TID	604
#define USER_BASE	0x7ff712340000ULL
#define KERNEL_BASE	0xfffff80312340000ULL
#define END_MS		800

static void
process(struct etl_writer *w, uint32_t pid, const char *image)
{
	struct kev_process p;

	memset(&p, 0, sizeof(p));
	p.unique_key = 0xffffc00000000000ULL + pid;
	p.pid = pid;
	p.account = pid == 0 ? ACCOUNT_SYSTEM : ACCOUNT_USER;
	p.image_file_name = image;
	p.command_line = image;
	kev_process(w, 0, HOOK_PROCESS_DCSTART, pid, 0, T0 + 1, &p);
}

static void
thread_at(struct etl_writer *w, unsigned hook, uint32_t pid, uint32_t tid,
    uint64_t ts)
{
	struct kev_thread t;

	memset(&t, 0, sizeof(t));
	t.pid = pid;
	t.tid = tid;
	t.stack_base = 0xffffd00000000000ULL + tid * 0x10000ULL;
	t.stack_limit = t.stack_base - 0x6000;
	t.base_priority = 8;
	kev_thread(w, 0, hook, pid, tid, ts, &t);
}

static void
thread(struct etl_writer *w, uint32_t pid, uint32_t tid)
{
	thread_at(w, HOOK_THREAD_DCSTART, pid, tid, T0 + 1);
}

/* Prints frames (innermost first) outermost first, as the manifest has. */
static void
manifest_stack(FILE *fp, const uint64_t *f, int n)
{
	int i;

	fprintf(fp, "stack\t1\t");
	for (i = n - 1; i >= 0; i--)
		fprintf(fp, "0x%" PRIx64 "%s", f[i], i ? ";" : "\n");
}

static void
sample(struct etl_writer *w, int cpu, uint64_t ts, uint32_t tid,
    const uint64_t *f)
{
	kev_sample(w, cpu, ts, f[0], tid, 8, 0);
}

int
stackjoins_run(struct etl_writer *w, FILE *manifest)
{
	uint64_t busy[3] = { USER_BASE + 0x1100, USER_BASE + 0x1200,
	    USER_BASE + 0x1300 };
	uint64_t late[3] = { USER_BASE + 0x2100, USER_BASE + 0x2200,
	    USER_BASE + 0x2300 };
	uint64_t split[4] = { KERNEL_BASE + 0x3100, KERNEL_BASE + 0x3200,
	    USER_BASE + 0x3300, USER_BASE + 0x3400 };
	uint64_t lost[2] = { USER_BASE + 0x4100, USER_BASE + 0x4200 };
	uint64_t old[2] = { KERNEL_BASE + 0x5100, KERNEL_BASE + 0x5200 };
	uint64_t reborn[2] = { USER_BASE + 0x6100, USER_BASE + 0x6200 };
	uint64_t idle[2];
	uint64_t ms, samples = 0;
	int cpu;

	process(w, 0, "Idle");
	process(w, APP_PID, "app.exe");
	thread(w, 0, 0);
	thread(w, APP_PID, LATE_TID);
	thread(w, APP_PID, BUSY_TID);
	thread(w, APP_PID, SPLIT_TID);
	thread(w, APP_PID, LOST_TID);
	thread(w, APP_PID, REUSED_TID);
	for (ms = 2; ms <= END_MS; ms++) {
		uint64_t ts = T0 + ms * MS;

		/* The busy thread, its walk right after it. */
		sample(w, 3, ts, BUSY_TID, busy);
		kev_stack(w, 3, ts, APP_PID, BUSY_TID, busy, 3);
		samples++;
		if (ms == 10)
			for (cpu = 0; cpu < 3; cpu++) {
				idle[0] = KERNEL_BASE + 0x100 * (uint64_t)cpu;
				idle[1] = KERNEL_BASE + 0x9000;
				sample(w, cpu, ts + 5, 0, idle);
				/* Logged a tick later: after all three. */
				kev_stack_late(w, cpu, ts + 6, ts + 5, 0, 0,
				    idle, 2);
				manifest_stack(manifest, idle, 2);
				samples++;
			}
		if (ms == 20) {
			sample(w, 1, ts + 5, LATE_TID, late);
			manifest_stack(manifest, late, 3);
			samples++;
		}
		if (ms == 120)
			kev_stack_late(w, 2, ts, T0 + 20 * MS + 5, APP_PID,
			    LATE_TID, late, 3);
		if (ms == 30) {
			sample(w, 0, ts + 5, SPLIT_TID, split);
			kev_stack(w, 0, ts + 5, APP_PID, SPLIT_TID, split, 2);
			manifest_stack(manifest, split, 4);
			samples++;
		}
		if (ms == 150)
			kev_stack_late(w, 1, ts, T0 + 30 * MS + 5, APP_PID,
			    SPLIT_TID, split + 2, 2);
		if (ms == 40) {
			sample(w, 2, ts + 5, LOST_TID, lost);
			samples++;
		}
		if (ms == 50) {
			sample(w, 2, ts + 5, REUSED_TID, old);
			kev_stack(w, 2, ts + 5, APP_PID, REUSED_TID, old, 2);
			manifest_stack(manifest, old, 2);
			samples++;
		}
		if (ms == 55)
			thread_at(w, HOOK_THREAD_END, APP_PID, REUSED_TID, ts);
		if (ms == 56)
			thread_at(w, HOOK_THREAD_START, APP_PID, REUSED_TID, ts);
		if (ms == 60) {
			sample(w, 2, ts + 5, REUSED_TID, reborn);
			kev_stack(w, 2, ts + 5, APP_PID, REUSED_TID, reborn, 2);
			manifest_stack(manifest, reborn, 2);
			samples++;
		}
		if (ms == 700)
			kev_stack_late(w, 0, ts, T0 + 40 * MS + 5, APP_PID,
			    LOST_TID, lost, 2);
	}
	fprintf(manifest, "stack\t%d\t", END_MS - 1);
	fprintf(manifest, "0x%" PRIx64 ";0x%" PRIx64 ";0x%" PRIx64 "\n",
	    busy[2], busy[1], busy[0]);
	manifest_total(manifest, "samples", samples);
	manifest_total(manifest, "samples_without_stack", 1);
	manifest_total(manifest, "stack_walks_orphaned", 1);
	return 0;
}
