/*
 * memory.c - heap blocks and virtual memory regions of a process, with
 * the Heap (5.8) and VirtualAlloc/VirtualFree (5.7) events and their
 * stacks, and the per-process totals the manifest reports.
 *
 * Each live block or region has a slot of the process's fixed tables and
 * a window of address space of its own, so live ones never overlap.
 */
#include <stdint.h>

#include "chains.h"
#include "kevents.h"
#include "sim.h"
#include "stacks.h"

#define HEAP_HEADER		0x10000
#define PAGE_64K		0x10000
#define MAX_BLOCK		49152
#define HEAP_REALLOC_PERCENT	25
#define REGION_ALLOC_PERCENT	55

struct layout {
	uint64_t	heap_base[2];	/* process heap, private heap */
	uint64_t	heap_window;	/* room of one block slot */
	uint64_t	region_base;
	uint64_t	region_window;	/* room of one region slot */
};

static const struct layout layout64 = {
	{ 0x00000249a5b00000ULL, 0x00000249c0000000ULL }, 0x100000,
	0x0000020000000000ULL, 0x10000000
};

static const struct layout layout32 = {
	{ 0x02400000, 0x02c00000 }, 0x10000, 0x04000000, 0x04000000
};

static const struct layout *
layout(const struct sim *s)
{
	return s->ps == 4 ? &layout32 : &layout64;
}

static uint64_t
block_window(const struct sim *s, int heap, int slot)
{
	const struct layout *l = layout(s);

	return l->heap_base[heap] + HEAP_HEADER + (uint64_t)slot *
	    l->heap_window;
}

/* Mostly small blocks, as a compiler's allocations are. */
static uint64_t
block_size(struct sim *s)
{
	uint64_t r = rng_below(&s->rng, 100);

	if (r < 70)
		return sim_between(s, 16, 256);
	if (r < 90)
		return sim_between(s, 257, 4096);
	if (r < 98)
		return sim_between(s, 4097, 32768);
	return sim_between(s, 32769, MAX_BLOCK);
}

/* A 16-byte aligned place for `size` bytes in the slot's window. */
static uint64_t
block_address(struct sim *s, int heap, int slot, uint64_t size)
{
	uint64_t room = layout(s)->heap_window - size;

	return block_window(s, heap, slot) + sim_between(s, 0, room / 16) * 16;
}

static uint64_t
heap_handle(const struct sim *s, int heap)
{
	return layout(s)->heap_base[heap];
}

/* The stack of a memory event of thread t, as stacks_event() writes it. */
static void
memory_stack(struct sim *s, int cpu, uint64_t ts, const struct thread *t,
    enum chain_id kernel, enum chain_id tail)
{
	const struct proc *p = &s->procs[t->proc];

	stacks_event(&s->stacks, cpu, ts, p->pid, t->tid, kernel, p->prog,
	    t->body, tail);
}

void
memory_heap_create(struct sim *s, int cpu, int thread, int heap)
{
	struct thread *t = &s->threads[thread];
	uint64_t reserve = HEAP_HEADER + HEAP_BLOCKS * layout(s)->heap_window;

	kev_heap_create(s->w, cpu, proc_of(s, t)->pid, t->tid, sim_stamp(s),
	    heap_handle(s, heap), reserve, HEAP_HEADER);
}

static void
heap_alloc(struct sim *s, int cpu, struct thread *t, int heap, int slot)
{
	struct proc *p = proc_of(s, t);
	struct heap_block *b = &p->blocks[slot];
	uint64_t ts = sim_stamp(s);

	b->live = 1;
	b->heap = heap;
	b->size = block_size(s);
	b->address = block_address(s, heap, slot, b->size);
	p->heap_outstanding += b->size;
	kev_heap_alloc(s->w, cpu, p->pid, t->tid, ts, heap_handle(s, heap),
	    b->size, b->address);
	memory_stack(s, cpu, ts, t, NO_CHAIN, CH_TAIL_ALLOC);
}

/* Grows a block, in place when it still fits its window. */
static void
heap_realloc(struct sim *s, int cpu, struct thread *t, int heap, int slot)
{
	struct proc *p = proc_of(s, t);
	struct heap_block *b = &p->blocks[slot];
	uint64_t ts = sim_stamp(s), old_address = b->address;
	uint64_t old_size = b->size, window = block_window(s, heap, slot);

	b->size = old_size * sim_between(s, 3, 5) / 2;
	if (b->size > MAX_BLOCK)
		b->size = MAX_BLOCK;
	if (b->address + b->size > window + layout(s)->heap_window)
		b->address = block_address(s, heap, slot, b->size);
	p->heap_outstanding += b->size - old_size;
	kev_heap_realloc(s->w, cpu, p->pid, t->tid, ts, heap_handle(s, heap),
	    b->address, old_address, b->size, old_size);
	memory_stack(s, cpu, ts, t, NO_CHAIN, CH_TAIL_REALLOC);
}

static void
heap_free(struct sim *s, int cpu, struct thread *t, int slot)
{
	struct proc *p = proc_of(s, t);
	struct heap_block *b = &p->blocks[slot];
	uint64_t ts = sim_stamp(s);

	b->live = 0;
	p->heap_outstanding -= b->size;
	kev_heap_free(s->w, cpu, p->pid, t->tid, ts, heap_handle(s, b->heap),
	    b->address);
	memory_stack(s, cpu, ts, t, NO_CHAIN, CH_TAIL_FREE);
}

/*
 * One heap operation by the running thread: a random slot of the block
 * table decides.  A free slot gets a new block on `heap`; a live block is
 * reallocated or freed on its own heap.  Allocation then happens as often
 * as the table is empty, so it settles a little over half full.
 */
void
memory_heap_op(struct sim *s, int cpu, int thread, int heap)
{
	struct thread *t = &s->threads[thread];
	int slot = (int)rng_below(&s->rng, HEAP_BLOCKS);
	const struct heap_block *b = &proc_of(s, t)->blocks[slot];

	if (!b->live)
		heap_alloc(s, cpu, t, heap, slot);
	else if (rng_percent(&s->rng, HEAP_REALLOC_PERCENT))
		heap_realloc(s, cpu, t, b->heap, slot);
	else
		heap_free(s, cpu, t, slot);
}

/* Frees what is left on the heap, then destroys it. */
void
memory_heap_destroy(struct sim *s, int cpu, int thread, int heap)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	int i;

	for (i = 0; i < HEAP_BLOCKS; i++)
		if (p->blocks[i].live && p->blocks[i].heap == heap)
			heap_free(s, cpu, t, i);
	kev_heap_destroy(s->w, cpu, p->pid, t->tid, sim_stamp(s),
	    heap_handle(s, heap));
}

static void
region_alloc(struct sim *s, int cpu, struct thread *t, int slot,
    uint64_t min_size, uint64_t max_size)
{
	struct proc *p = proc_of(s, t);
	struct region *r = &p->regions[slot];
	uint64_t window = layout(s)->region_window, ts;

	if (max_size > window * 3 / 4)
		max_size = window * 3 / 4;
	r->live = 1;
	r->size = sim_between(s, min_size / PAGE_64K, max_size / PAGE_64K) *
	    PAGE_64K;
	r->base = layout(s)->region_base + (uint64_t)slot * window +
	    sim_between(s, 0, (window - r->size) / PAGE_64K) * PAGE_64K;
	p->committed += r->size;
	ts = sim_stamp(s);
	kev_virtual(s->w, cpu, HOOK_VIRTUAL_ALLOC, ts, r->base, r->size,
	    p->pid, MEM_COMMIT | MEM_RESERVE);
	memory_stack(s, cpu, ts, t, CH_K_VIRTUAL_ALLOC,
	    CH_TAIL_VIRTUAL_ALLOC);
}

static void
region_free(struct sim *s, int cpu, struct thread *t, int slot)
{
	struct proc *p = proc_of(s, t);
	struct region *r = &p->regions[slot];
	uint64_t ts = sim_stamp(s);

	r->live = 0;
	p->freed += r->size;
	kev_virtual(s->w, cpu, HOOK_VIRTUAL_FREE, ts, r->base, r->size,
	    p->pid, MEM_RELEASE);
	memory_stack(s, cpu, ts, t, CH_K_VIRTUAL_FREE, CH_TAIL_VIRTUAL_FREE);
}

/*
 * Commits a region of [min_size, max_size] bytes or releases a live one;
 * the heap does this for blocks too big to carve from its segments.
 */
void
memory_virtual_op(struct sim *s, int cpu, int thread, uint64_t min_size,
    uint64_t max_size)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	int i, n = 0, free_slot = -1, pick;

	for (i = 0; i < REGIONS; i++)
		if (p->regions[i].live)
			n++;
		else if (free_slot == -1)
			free_slot = i;
	if (n == 0 || (free_slot != -1 &&
	    rng_percent(&s->rng, REGION_ALLOC_PERCENT))) {
		region_alloc(s, cpu, t, free_slot, min_size, max_size);
		return;
	}
	pick = (int)rng_below(&s->rng, (uint64_t)n);
	for (i = 0; i < REGIONS; i++)
		if (p->regions[i].live && pick-- == 0)
			break;
	region_free(s, cpu, t, i);
}
