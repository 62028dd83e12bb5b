/*
 * stacks.h - StackWalk events (etl-format.md 5.6) for the events the
 * scenario writes, and the sample count per distinct stack for the
 * manifest.
 *
 * A stack is logged right after its event, with EventTimeStamp equal to
 * the event's timestamp and StackThread equal to its thread.  When the
 * event happened in kernel mode on a user thread the stack comes in two
 * Stack events, the kernel fragment first and then the user fragment;
 * the idle thread only has a kernel fragment and a user-mode event only a
 * user fragment.  A sample may instead refer to its fragments through the
 * stack cache: StackKeyKernel/StackKeyUser events carry a key whose
 * frames the next KeyDelete (when the cache entry is evicted) or
 * KeyRundown (at the end of the trace) with that key defines.
 */
#ifndef STACKS_H
#define STACKS_H

#include <stdint.h>
#include <stdio.h>

#include "chains.h"
#include "etlwrite.h"
#include "programs.h"

/* Where a profile interrupt found the CPU. */
enum sample_kernel {
	SK_USER,		/* in user code: no kernel fragment */
	SK_PAGE_FAULT,		/* resolving a page fault */
	SK_READ,		/* in NtReadFile on behalf of the thread */
	SK_DPC,			/* a DPC on top of the thread */
	SK_IDLE,		/* the idle loop */
	SK_IDLE_DPC,		/* a DPC on top of the idle loop */
	SAMPLE_KERNEL_COUNT
};

struct sample_stack {
	enum program		prog;
	enum chain_id		body;	/* NO_CHAIN: idle thread */
	enum sample_kernel	kernel;
};

#define STACK_CACHE_SLOTS	48
#define STACK_FRAGMENTS	(PROGRAM_COUNT * CHAIN_COUNT * \
			    SAMPLE_KERNEL_COUNT + SAMPLE_KERNEL_COUNT)

struct stack_cache_slot {
	int		fragment;	/* -1 when free */
	uint64_t	key;
	uint64_t	used_at;	/* timestamp of the last reference */
};

struct stacks {
	struct etl_writer	*w;
	int			 pointer_size;
	struct chain_addresses	 addresses;
	struct stack_cache_slot	 slots[STACK_CACHE_SLOTS];
	int			 next_victim;
	int			 live_keys;
	int			 fragment_slot[STACK_FRAGMENTS];
	uint64_t		 samples[PROGRAM_COUNT][CHAIN_COUNT + 1]
				    [SAMPLE_KERNEL_COUNT];
	/* Samples written without their stack, by the same key. */
	uint64_t		 stackless[PROGRAM_COUNT][CHAIN_COUNT + 1]
				    [SAMPLE_KERNEL_COUNT];
};

void	stacks_init(struct stacks *s, struct etl_writer *w);
/* The StackWalk events an uncached sample stack takes (1 or 2). */
int	stacks_sample_fragments(const struct sample_stack *st);
/* The interrupted instruction: the innermost frame. */
uint64_t stacks_sample_ip(const struct stacks *s,
	    const struct sample_stack *st);
/* SampledProfile Flags bits for the stack (ExecutingDpc). */
unsigned stacks_sample_flags(const struct sample_stack *st);
/* Writes the stack of a sample just written, cached or not, and counts it. */
void	stacks_sample(struct stacks *s, int cpu, uint64_t ts, uint32_t pid,
	    uint32_t tid, const struct sample_stack *st, int cached);
/*
 * Writes the stack of another event as Stack events: the kernel chain (if
 * not NO_CHAIN), then the user stack body + tail (if body is not
 * NO_CHAIN).
 */
void	stacks_event(struct stacks *s, int cpu, uint64_t ts, uint32_t pid,
	    uint32_t tid, enum chain_id kernel, enum program prog,
	    enum chain_id body, enum chain_id tail);
/* Counts a sample written without its stack. */
void	stacks_count_stackless(struct stacks *s,
	    const struct sample_stack *st);
/* KeyRundown for every live cache entry. */
void	stacks_rundown(struct stacks *s, int cpu, uint64_t ts);
/* Writes "stack COUNT FRAMES" manifest lines. */
void	stacks_write_manifest(const struct stacks *s, FILE *fp);
/*
 * The frames of the samples counted under (prog, body, kind) as the
 * manifest lists them: user frames root first, then kernel frames, so
 * that the last is the interrupted instruction.  `body` is a chain, or
 * CHAIN_COUNT for the idle thread.  @return : the count.
 */
int	stacks_manifest_frames(const struct stacks *s, enum program prog,
	    int body, enum sample_kernel kind, uint64_t *out);

#endif
