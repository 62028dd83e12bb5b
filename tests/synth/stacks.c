/*
 * stacks.c - stack fragments, the stack cache and the per-stack sample
 * counts (etl-format.md 5.6).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chains.h"
#include "etlwrite.h"
#include "kevents.h"
#include "programs.h"
#include "stacks.h"

/* Cache keys look like the kernel pool addresses real traces show. */
#define KEY_BASE64	0xffffb20c4a3e0000ULL
#define KEY_BASE32	0x8f3e0000u
#define KEY_STRIDE	0x40

/* Flags bit of SampledProfile (5.5). */
#define SAMPLE_EXECUTING_DPC	0x01

/* The kernel fragment and the user tail of each kind of sample. */
static const struct {
	enum chain_id	kernel;
	enum chain_id	tail;
	unsigned	flags;
} sample_kinds[SAMPLE_KERNEL_COUNT] = {
	[SK_USER] = { NO_CHAIN, NO_CHAIN, 0 },
	[SK_PAGE_FAULT] = { CH_K_PAGE_FAULT, NO_CHAIN, 0 },
	[SK_READ] = { CH_K_READ, CH_TAIL_READ, 0 },
	[SK_DPC] = { CH_K_DPC, NO_CHAIN, SAMPLE_EXECUTING_DPC },
	[SK_IDLE] = { CH_K_IDLE, NO_CHAIN, 0 },
	[SK_IDLE_DPC] = { CH_K_IDLE_DPC, NO_CHAIN, SAMPLE_EXECUTING_DPC },
};

void
stacks_init(struct stacks *s, struct etl_writer *w)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->w = w;
	s->pointer_size = w->info.pointer_size;
	chain_addresses_init(&s->addresses, s->pointer_size);
	for (i = 0; i < STACK_CACHE_SLOTS; i++) {
		s->slots[i].fragment = -1;
		s->slots[i].key = s->pointer_size == 4 ?
		    KEY_BASE32 + (uint64_t)i * KEY_STRIDE :
		    KEY_BASE64 + (uint64_t)i * KEY_STRIDE;
	}
	for (i = 0; i < STACK_FRAGMENTS; i++)
		s->fragment_slot[i] = -1;
}

/* Root-first frames of a user stack: body with its parents, then tail. */
static int
user_frames(const struct stacks *s, enum program prog, enum chain_id body,
    enum chain_id tail, uint64_t *out)
{
	int n;

	n = chain_frames(&s->addresses, body, prog, out, 0);
	if (tail != NO_CHAIN)
		n = chain_frames(&s->addresses, tail, prog, out, n);
	return n;
}

/* The same, innermost first, as StackWalk events list them. */
static int
user_frames_innermost(const struct stacks *s, enum program prog,
    enum chain_id body, enum chain_id tail, uint64_t *out)
{
	int n = 0;

	if (tail != NO_CHAIN)
		n = chain_frames_innermost(&s->addresses, tail, prog, out, n);
	return chain_frames_innermost(&s->addresses, body, prog, out, n);
}

/* Fragments are numbered: user ones by (program, body, kind), then kernel. */
static int
user_fragment(const struct sample_stack *st)
{
	enum sample_kernel kind = st->kernel;

	/* Kinds whose user frames are the same share one fragment. */
	if (sample_kinds[kind].tail == NO_CHAIN)
		kind = SK_USER;
	return ((int)st->prog * CHAIN_COUNT + (int)st->body) *
	    SAMPLE_KERNEL_COUNT + (int)kind;
}

static int
kernel_fragment(const struct sample_stack *st)
{
	return PROGRAM_COUNT * CHAIN_COUNT * SAMPLE_KERNEL_COUNT +
	    (int)st->kernel;
}

/* The frames of a fragment, innermost first. */
static int
fragment_frames(const struct stacks *s, int fragment, uint64_t *out)
{
	int kernels = PROGRAM_COUNT * CHAIN_COUNT * SAMPLE_KERNEL_COUNT;
	int kind, body, prog;

	if (fragment >= kernels)
		return chain_frames_innermost(&s->addresses,
		    sample_kinds[fragment - kernels].kernel, PROG_IDLE, out, 0);
	kind = fragment % SAMPLE_KERNEL_COUNT;
	body = fragment / SAMPLE_KERNEL_COUNT % CHAIN_COUNT;
	prog = fragment / SAMPLE_KERNEL_COUNT / CHAIN_COUNT;
	return user_frames_innermost(s, (enum program)prog,
	    (enum chain_id)body, sample_kinds[kind].tail, out);
}

int
stacks_sample_fragments(const struct sample_stack *st)
{
	return (sample_kinds[st->kernel].kernel != NO_CHAIN) +
	    (st->body != NO_CHAIN);
}

uint64_t
stacks_sample_ip(const struct stacks *s, const struct sample_stack *st)
{
	uint64_t frames[MAX_STACK_FRAMES];

	if (sample_kinds[st->kernel].kernel != NO_CHAIN)
		fragment_frames(s, kernel_fragment(st), frames);
	else
		fragment_frames(s, user_fragment(st), frames);
	return frames[0];
}

unsigned
stacks_sample_flags(const struct sample_stack *st)
{
	return sample_kinds[st->kernel].flags;
}

/*
 * Picks the cache entry to reuse, round robin, never one referenced at
 * `ts`: its key must keep meaning the same frames until the group ends.
 */
static int
pick_victim(struct stacks *s, uint64_t ts)
{
	int slot;

	do {
		slot = s->next_victim;
		s->next_victim = (s->next_victim + 1) % STACK_CACHE_SLOTS;
	} while (s->slots[slot].fragment != -1 && s->slots[slot].used_at == ts);
	return slot;
}

/*
 * Finds or makes the cache entry for `fragment`.  Evicting an entry logs
 * KeyDelete with its frames, which resolves every earlier reference to
 * the key; references made after it belong to the new entry.
 */
static struct stack_cache_slot *
cache_entry(struct stacks *s, int cpu, uint64_t ts, int fragment)
{
	uint64_t frames[MAX_STACK_FRAMES];
	struct stack_cache_slot *e;
	int slot, n;

	slot = s->fragment_slot[fragment];
	if (slot == -1) {
		slot = pick_victim(s, ts);
		e = &s->slots[slot];
		if (e->fragment != -1) {
			n = fragment_frames(s, e->fragment, frames);
			kev_stack_key_frames(s->w, cpu, HOOK_STACK_KEY_DELETE,
			    ts, e->key, frames, n);
			s->fragment_slot[e->fragment] = -1;
		} else
			s->live_keys++;
		e->fragment = fragment;
		s->fragment_slot[fragment] = slot;
	}
	e = &s->slots[slot];
	e->used_at = ts;
	return e;
}

static void
write_fragment(struct stacks *s, int cpu, uint64_t ts, uint32_t pid,
    uint32_t tid, int fragment, int kernel, int cached)
{
	uint64_t frames[MAX_STACK_FRAMES];
	struct stack_cache_slot *e;
	int n;

	if (cached) {
		e = cache_entry(s, cpu, ts, fragment);
		kev_stack_key(s->w, cpu, kernel ? HOOK_STACK_KEY_KERNEL :
		    HOOK_STACK_KEY_USER, ts, pid, tid, e->key);
		return;
	}
	n = fragment_frames(s, fragment, frames);
	kev_stack(s->w, cpu, ts, pid, tid, frames, n);
}

void
stacks_sample(struct stacks *s, int cpu, uint64_t ts, uint32_t pid,
    uint32_t tid, const struct sample_stack *st, int cached)
{
	int body = st->body == NO_CHAIN ? CHAIN_COUNT : (int)st->body;

	if (sample_kinds[st->kernel].kernel != NO_CHAIN)
		write_fragment(s, cpu, ts, pid, tid, kernel_fragment(st), 1,
		    cached);
	if (st->body != NO_CHAIN)
		write_fragment(s, cpu, ts, pid, tid, user_fragment(st), 0,
		    cached);
	s->samples[st->prog][body][st->kernel]++;
}

void
stacks_count_stackless(struct stacks *s, const struct sample_stack *st)
{
	int body = st->body == NO_CHAIN ? CHAIN_COUNT : (int)st->body;

	s->stackless[st->prog][body][st->kernel]++;
}

void
stacks_event(struct stacks *s, int cpu, uint64_t ts, uint32_t pid,
    uint32_t tid, enum chain_id kernel, enum program prog,
    enum chain_id body, enum chain_id tail)
{
	uint64_t frames[MAX_STACK_FRAMES];
	int n;

	if (kernel != NO_CHAIN) {
		n = chain_frames_innermost(&s->addresses, kernel, prog, frames,
		    0);
		kev_stack(s->w, cpu, ts, pid, tid, frames, n);
	}
	if (body != NO_CHAIN) {
		n = user_frames_innermost(s, prog, body, tail, frames);
		kev_stack(s->w, cpu, ts, pid, tid, frames, n);
	}
}

void
stacks_rundown(struct stacks *s, int cpu, uint64_t ts)
{
	uint64_t frames[MAX_STACK_FRAMES];
	int i, n;

	for (i = 0; i < STACK_CACHE_SLOTS; i++) {
		if (s->slots[i].fragment == -1)
			continue;
		n = fragment_frames(s, s->slots[i].fragment, frames);
		kev_stack_key_frames(s->w, cpu, HOOK_STACK_KEY_RUNDOWN, ts,
		    s->slots[i].key, frames, n);
	}
}

int
stacks_manifest_frames(const struct stacks *s, enum program prog, int body,
    enum sample_kernel kind, uint64_t *out)
{
	int n = 0;

	if (body != CHAIN_COUNT)
		n = user_frames(s, prog, (enum chain_id)body,
		    sample_kinds[kind].tail, out);
	if (sample_kinds[kind].kernel != NO_CHAIN)
		n = chain_frames(&s->addresses, sample_kinds[kind].kernel,
		    prog, out, n);
	return n;
}

/* One line: the user frames root first, then the kernel frames. */
static void
write_stack_line(const struct stacks *s, FILE *fp, enum program prog,
    int body, enum sample_kernel kind, uint64_t count)
{
	uint64_t frames[MAX_STACK_FRAMES];
	int i, n;

	n = stacks_manifest_frames(s, prog, body, kind, frames);
	fprintf(fp, "stack\t%" PRIu64 "\t", count);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s0x%" PRIx64, i > 0 ? ";" : "", frames[i]);
	fputc('\n', fp);
}

void
stacks_write_manifest(const struct stacks *s, FILE *fp)
{
	int prog, body, kind;

	for (prog = 0; prog < PROGRAM_COUNT; prog++)
		for (body = 0; body <= CHAIN_COUNT; body++)
			for (kind = 0; kind < SAMPLE_KERNEL_COUNT; kind++)
				if (s->samples[prog][body][kind] != 0)
					write_stack_line(s, fp,
					    (enum program)prog, body,
					    (enum sample_kernel)kind,
					    s->samples[prog][body][kind]);
}
