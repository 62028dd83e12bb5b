/*
 * memscen.c - the "memory" scenario (etlsynth --scenario memory): a short
 * scripted trace holding what the vmem, heap and heapsnap views must get
 * right, and their expected figures, computed here with a page map and
 * a block list (brute force, unlike the views' interval maps):
 *
 *	memtest.exe	running before the trace: a VirtualAllocDCStart
 *			rundown region, partly released in the trace; a
 *			heap with stack tracking, two heap snapshots
 *			(etl-events-2.md section 1, over several chunks)
 *	rustc.exe	started in the trace (pid 2100): commits by several
 *			stacks, a reserve-only alloc, re-commits by another
 *			stack, a MEM_DECOMMIT inside a commit, a release
 *			spanning several commits, a free of memory never
 *			committed; heap allocs, reallocs in place and moved,
 *			a free of an unknown block, a heap destroyed with
 *			live blocks; it exits holding memory
 *	cargo.exe	commits into rustc.exe with VirtualAllocEx
 *	rustc.exe	pid 2100 again, a second life
 *
 * Manifest lines besides the usual process/hook/guid/total ones:
 *
 *	vmem PID START_NS IMAGE COMMITTED DECOMMITTED OUTSTANDING PEAK
 *	    COMMITS FREES BEFORE_TRACE
 *	vstack IMAGE STACK OUTSTANDING COMMITTED
 *	heap PID START_NS IMAGE ALLOCATED FREED ALLOCS FREES
 *	    OUTSTANDING_COUNT OUTSTANDING UNMATCHED
 *	hstack IMAGE STACK OUTSTANDING_COUNT OUTSTANDING
 *	snapshot PID INSTANCE ALLOCATIONS BYTES
 *	snapstack PID INSTANCE STACK COUNT BYTES
 *
 * STACK is the scenario's stack number (0-5), "before" for rundown
 * memory, "none" for untracked snapshot blocks.  With memory-lossy the
 * chunk of sequence 1 of snapshot 2 is lost (counted as a lost event):
 * the snapshot lines still say what the snapshot held.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"
#include "kevents.h"
#include "manifest.h"
#include "memscen.h"

#define MS_TICKS	10000ULL	/* QPC at 10 MHz */
#define START_QPC	79812345678ULL
#define PAGE		((uint64_t)4096)
#define KB		((uint64_t)1024)
#define MB		(1024 * KB)
#define NSTACKS		6
#define BEFORE		NSTACKS		/* the rundown's pseudo stack */
#define NONE		(NSTACKS + 1)	/* untracked snapshot blocks */
#define MAX_PAGES	8192
#define MAX_BLOCKS	2048
#define MAX_PROCS	4
#define CHUNK		0x4000
#define SNAP_FRAMES	11		/* two segments: 8 + 3 */
#define SNAP_BLOCKS	700

static const struct etl_guid heap_snapshot_guid = {
	0x901d2afa, 0x4ff6, 0x46d7,
	{ 0x8d, 0x0e, 0x53, 0x64, 0x5e, 0x1a, 0x47, 0xf5 }
};

struct page {
	uint64_t addr;
	int stack;
};

struct block {
	uint64_t addr, size, heap;
	int stack;
};

struct mproc {
	uint32_t pid, tid;
	uint64_t start_ns;
	const char *image;
	struct page *pages;
	int npages;
	uint64_t committed, decommitted, peak, commits, frees, before;
	struct block *blocks;
	int nblocks;
	uint64_t allocated, freed, allocs, hfrees, unmatched;
};

struct ms {
	struct etl_writer *w;
	FILE *manifest;
	int ps;
	uint64_t t;			/* ticks since the start */
	struct mproc procs[MAX_PROCS];
	int nprocs;
	/* Per image (0 memtest, 1 rustc) and stack: outstanding, committed. */
	int64_t vstack[2][NSTACKS + 2][2];
	int snapshots;
	int lossy;			/* lose chunk 1 of snapshot 2 */
};

static uint64_t
ts(const struct ms *m)
{
	return START_QPC + m->t;
}

static int
image_slot(const struct mproc *p)
{
	return strcmp(p->image, "memtest.exe") == 0 ? 0 : 1;
}

static uint64_t
at(const struct ms *m, enum image_id id, uint64_t off)
{
	return image_base(id, m->ps) + off % image_size(id, m->ps);
}

/* The user frames of stack k, innermost first; n of them. */
static int
user_frames(const struct ms *m, int k, uint64_t *f, int n)
{
	int i = 0;

	f[i++] = at(m, IMG_NTDLL, 0x3000 + (uint64_t)k * 0x10);
	f[i++] = at(m, IMG_DRIVER_STAGE1, 0x100000 + (uint64_t)k * 0x400);
	f[i++] = at(m, IMG_DRIVER_STAGE1, 0x200000 + (uint64_t)(k % 3) *
	    0x400);
	for (; i < n - 1; i++)
		f[i] = at(m, IMG_DRIVER_STAGE1, 0x300000 + (uint64_t)i * 0x40);
	f[i++] = at(m, IMG_RUSTC_STAGE1, 0x1200);
	return i;
}

/* A stack walk of kernel and user frames for an event at now. */
static void
walk(struct ms *m, uint32_t pid, uint32_t tid, int k, int kernel)
{
	uint64_t f[16];
	int n = 0;

	if (kernel) {
		f[n++] = at(m, IMG_NTOSKRNL, 0x31000);
		f[n++] = at(m, IMG_NTOSKRNL, 0x52000);
	}
	n += user_frames(m, k, f + n, 5);
	kev_stack(m->w, 0, ts(m), pid, tid, f, n);
}

static void
step(struct ms *m, uint64_t ms_)
{
	m->t += ms_ * MS_TICKS;
}

/* ---- processes ---- */

static struct mproc *
new_proc(struct ms *m, uint32_t pid, const char *image, int before_trace)
{
	struct mproc *p = &m->procs[m->nprocs++];

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->tid = pid + 4;
	p->image = image;
	p->start_ns = before_trace ? 0 : m->t * 100;
	p->pages = calloc(MAX_PAGES, sizeof(*p->pages));
	p->blocks = calloc(MAX_BLOCKS, sizeof(*p->blocks));
	return p;
}

static void
log_process(struct ms *m, unsigned hook, const struct mproc *p,
    uint32_t hdr_pid, uint32_t parent)
{
	struct kev_process kp;

	memset(&kp, 0, sizeof(kp));
	kp.unique_key = m->ps == 4 ? 0x85000000 + p->pid * 0x400ULL :
	    0xffffa48c30000000ULL + p->pid * 0x1000ULL;
	kp.directory_table_base = 0x1a0000ULL + p->pid * 0x1000ULL;
	kp.pid = p->pid;
	kp.parent_pid = parent;
	kp.session_id = 1;
	kp.account = ACCOUNT_USER;
	kp.image_file_name = p->image;
	kp.command_line = p->image;
	kev_process(m->w, 0, hook, hdr_pid, hdr_pid + 4, ts(m), &kp);
}

static void
load_images(struct ms *m, const struct mproc *p)
{
	static const enum image_id ids[] = {
		IMG_NTDLL, IMG_RUSTC_STAGE1, IMG_DRIVER_STAGE1
	};
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		kev_image(m->w, 0, HOOK_IMAGE_LOAD, p->pid, p->tid, ts(m),
		    ids[i], p->pid);
}

/* ---- virtual memory: the page map ---- */

static int
find_page(const struct mproc *p, uint64_t addr)
{
	int i;

	for (i = 0; i < p->npages; i++)
		if (p->pages[i].addr == addr)
			return i;
	return -1;
}

static void
model_commit(struct ms *m, struct mproc *p, uint64_t base, uint64_t size,
    int k)
{
	int slot = image_slot(p), i;
	uint64_t a;

	for (a = base; a < base + size; a += PAGE) {
		if ((i = find_page(p, a)) >= 0) {
			m->vstack[slot][p->pages[i].stack][0] -= PAGE;
			p->pages[i].stack = k;
		} else {
			p->pages[p->npages].addr = a;
			p->pages[p->npages++].stack = k;
			if (k == BEFORE)
				p->before += PAGE;
			else {
				p->committed += PAGE;
				m->vstack[slot][k][1] += PAGE;
			}
		}
		m->vstack[slot][k][0] += PAGE;
	}
	if ((uint64_t)p->npages * PAGE > p->peak)
		p->peak = (uint64_t)p->npages * PAGE;
}

static void
model_free(struct ms *m, struct mproc *p, uint64_t base, uint64_t size)
{
	int slot = image_slot(p), i;
	uint64_t a;

	for (a = base; a < base + size; a += PAGE)
		if ((i = find_page(p, a)) >= 0) {
			m->vstack[slot][p->pages[i].stack][0] -= PAGE;
			p->decommitted += PAGE;
			p->pages[i] = p->pages[--p->npages];
		}
	p->frees++;
}

/* A commit of `target` by a thread of `by`, with stack k. */
static void
commit(struct ms *m, struct mproc *by, struct mproc *target, uint64_t base,
    uint64_t size, int k, uint32_t flags)
{
	step(m, 1);
	kev_virtual(m->w, 0, HOOK_VIRTUAL_ALLOC, ts(m), base, size,
	    target->pid, flags);
	walk(m, by->pid, by->tid, k, 1);
	if (flags & MEM_COMMIT) {
		model_commit(m, target, base, size, k);
		target->commits++;
	}
}

static void
vfree(struct ms *m, struct mproc *p, uint64_t base, uint64_t size,
    uint32_t flags)
{
	step(m, 1);
	kev_virtual(m->w, 0, HOOK_VIRTUAL_FREE, ts(m), base, size, p->pid,
	    flags);
	walk(m, p->pid, p->tid, 5, 1);
	model_free(m, p, base, size);
}

/* ---- heap: the block list ---- */

static int
find_block(const struct mproc *p, uint64_t addr)
{
	int i;

	for (i = 0; i < p->nblocks; i++)
		if (p->blocks[i].addr == addr)
			return i;
	return -1;
}

static void
drop_block(struct mproc *p, int i)
{
	p->freed += p->blocks[i].size;
	p->hfrees++;
	p->blocks[i] = p->blocks[--p->nblocks];
}

static void
halloc(struct ms *m, struct mproc *p, uint64_t heap, uint64_t addr,
    uint64_t size, int k, int walk_it)
{
	struct block *b = &p->blocks[p->nblocks++];

	step(m, walk_it ? 1 : 0);
	m->t += 10;
	kev_heap_alloc(m->w, 0, p->pid, p->tid, ts(m), heap, size, addr);
	walk(m, p->pid, p->tid, k, 0);
	b->addr = addr;
	b->size = size;
	b->heap = heap;
	b->stack = k;
	p->allocated += size;
	p->allocs++;
}

static void
hfree(struct ms *m, struct mproc *p, uint64_t heap, uint64_t addr)
{
	int i = find_block(p, addr);

	m->t += 10;
	kev_heap_free(m->w, 0, p->pid, p->tid, ts(m), heap, addr);
	walk(m, p->pid, p->tid, 5, 0);
	if (i >= 0)
		drop_block(p, i);
	else
		p->unmatched++;
}

static void
hrealloc(struct ms *m, struct mproc *p, uint64_t heap, uint64_t addr,
    uint64_t old, uint64_t size, int k)
{
	int i = find_block(p, old);
	uint64_t old_size = i >= 0 ? p->blocks[i].size : 0;
	struct block *b;

	m->t += 10;
	kev_heap_realloc(m->w, 0, p->pid, p->tid, ts(m), heap, addr, old,
	    size, old_size);
	walk(m, p->pid, p->tid, k, 0);
	if (i >= 0)
		drop_block(p, i);
	else
		p->unmatched++;
	b = &p->blocks[p->nblocks++];
	b->addr = addr;
	b->size = size;
	b->heap = heap;
	b->stack = k;
	p->allocated += size;
	p->allocs++;
}

static void
hdestroy(struct ms *m, struct mproc *p, uint64_t heap)
{
	int i;

	m->t += 10;
	kev_heap_destroy(m->w, 0, p->pid, p->tid, ts(m), heap);
	for (i = p->nblocks - 1; i >= 0; i--)
		if (p->blocks[i].heap == heap)
			drop_block(p, i);
}

/* ---- heap snapshots (etl-events-2.md 1.2-1.4) ---- */

struct snapbuf {
	unsigned char *b;
	size_t len, cap;
};

static void
put(struct snapbuf *s, uint64_t v, int n)
{
	int i;

	if (s->len + (size_t)n > s->cap) {
		s->cap = (s->cap + (size_t)n) * 2;
		s->b = realloc(s->b, s->cap);
	}
	for (i = 0; i < n; i++)
		s->b[s->len++] = (unsigned char)(v >> (8 * i));
}

static uint64_t
stack_id(const struct ms *m, int k)
{
	return (m->ps == 4 ? 0x00a10000ULL : 0x000001d2a0010000ULL) +
	    (uint64_t)k * 0x200;
}

static uint64_t
segment_id(const struct ms *m, int k, int i)
{
	return stack_id(m, k) + 0x80000 + (uint64_t)i * 0x40;
}

/* The stack database: each stack of SNAP_FRAMES in its own segments. */
static size_t
encode_stackdb(const struct ms *m, struct snapbuf *s)
{
	int P = m->ps, v2 = P == 8, segs = (SNAP_FRAMES + 7) / 8, k, i, j, n;
	uint64_t f[SNAP_FRAMES];

	put(s, (uint64_t)(NSTACKS * segs), 4);
	put(s, NSTACKS, 4);
	put(s, v2 ? 2 : 1, 2);
	put(s, (uint64_t)P, 2);
	for (k = 0; k < NSTACKS; k++) {
		user_frames(m, k, f, SNAP_FRAMES);
		for (i = 0; i < segs; i++) {
			n = SNAP_FRAMES - 8 * i < 8 ? SNAP_FRAMES - 8 * i : 8;
			put(s, v2 ? (uint64_t)n << 56 | 1 : (uint64_t)n << 24 | 1,
			    v2 ? 8 : 4);
			put(s, segment_id(m, k, i), P);
			for (j = 0; j < n; j++)
				put(s, f[8 * i + j], P);
		}
	}
	for (k = 0; k < NSTACKS; k++) {
		put(s, v2 ? (uint64_t)SNAP_FRAMES << 56 :
		    (uint64_t)SNAP_FRAMES << 24, v2 ? 8 : 4);
		put(s, stack_id(m, k), P);
		for (i = 0; i < segs; i++)
			put(s, segment_id(m, k, i), P);
	}
	return s->len;
}

static void
encode_heaps(const struct ms *m, const struct mproc *p, struct snapbuf *s,
    const uint64_t *heaps, int nheaps, int64_t counts[][2])
{
	int P = m->ps, h, i, k;

	for (h = 0; h < nheaps; h++) {
		put(s, 2, 2);
		put(s, (uint64_t)P, 2);
		if (P == 8)
			put(s, 0, 4);
		put(s, heaps[h], P);
		put(s, 4 * MB, P);
		put(s, 16 * MB, P);
		for (i = 0; i < p->nblocks; i++) {
			const struct block *b = &p->blocks[i];

			if (b->heap != heaps[h])
				continue;
			/* The first blocks predate tracking: no stack. */
			k = b->addr < heaps[h] + 0x10000 + 20 * 0x100 ? NONE :
			    b->stack;
			put(s, b->addr, P);
			put(s, k == NONE ? 0 : stack_id(m, k), P);
			put(s, b->size, P);
			counts[k][0]++;
			counts[k][1] += (int64_t)b->size;
		}
		put(s, 0x1234cdef, P);
		put(s, 0, P);
		put(s, 0xffffffff, P);
	}
}

/* Writes bytes [from, to) of the stream as chunk events, then an End. */
static void
emit_chunks(struct ms *m, const struct mproc *p, const struct snapbuf *s,
    size_t from, size_t to, uint32_t instance, uint32_t *seq)
{
	struct etlw_payload pl;
	size_t n;

	while (from < to) {
		n = to - from < CHUNK ? to - from : CHUNK;
		payload_start(&pl, m->ps);
		payload_u32(&pl, instance);
		payload_u32(&pl, (*seq)++);
		payload_u32(&pl, (uint32_t)n);
		memcpy(pl.bytes + pl.len, s->b + from, n);
		pl.len += n;
		m->t += 5;
		from += n;
		if (m->lossy && instance == 2 && *seq == 2) {
			etlw_lost(m->w, 0, 1);
			continue;
		}
		etlw_event(m->w, 0, &heap_snapshot_guid, 100, 1, p->pid,
		    p->tid, ts(m), &pl);
	}
	payload_start(&pl, m->ps);
	payload_u32(&pl, instance);
	payload_u32(&pl, (uint32_t)to);
	m->t += 5;
	etlw_event(m->w, 0, &heap_snapshot_guid, 200, 1, p->pid, p->tid,
	    ts(m), &pl);
}

static void
snapshot(struct ms *m, const struct mproc *p, const uint64_t *heaps,
    int nheaps)
{
	struct snapbuf s = { NULL, 0, 0 };
	int64_t counts[NSTACKS + 2][2];
	uint32_t instance = (uint32_t)++m->snapshots, seq = 0;
	size_t db;
	int64_t n = 0, bytes = 0;
	int k;

	memset(counts, 0, sizeof(counts));
	db = encode_stackdb(m, &s);
	encode_heaps(m, p, &s, heaps, nheaps, counts);
	/* The serializer flushes twice: after the database, at the end. */
	step(m, 1);
	emit_chunks(m, p, &s, 0, db, instance, &seq);
	emit_chunks(m, p, &s, db, s.len, instance, &seq);
	for (k = 0; k < NSTACKS + 2; k++) {
		n += counts[k][0];
		bytes += counts[k][1];
		if (counts[k][0] == 0)
			continue;
		if (k == NONE)
			fprintf(m->manifest, "snapstack\t%" PRIu32 "\t%" PRIu32
			    "\tnone\t%" PRId64 "\t%" PRId64 "\n", p->pid,
			    instance, counts[k][0], counts[k][1]);
		else
			fprintf(m->manifest, "snapstack\t%" PRIu32 "\t%" PRIu32
			    "\t%d\t%" PRId64 "\t%" PRId64 "\n", p->pid,
			    instance, k, counts[k][0], counts[k][1]);
	}
	fprintf(m->manifest, "snapshot\t%" PRIu32 "\t%" PRIu32 "\t%" PRId64
	    "\t%" PRId64 "\n", p->pid, instance, n, bytes);
	free(s.b);
}

/* ---- the script ---- */

static uint64_t
rbase(const struct ms *m)
{
	return m->ps == 4 ? 0x20000000ULL : 0x000001f000000000ULL;
}

static void
script_rustc(struct ms *m, struct mproc *r, struct mproc *cargo)
{
	uint64_t B = rbase(m), PH = m->ps == 4 ? 0x00500000 :
	    0x0000022a00000000ULL, H1 = PH + 0x1000000;
	uint64_t a1 = PH + 0x10000, a2 = PH + 0x20000;

	commit(m, r, r, B, 1 * MB, 0, MEM_COMMIT | MEM_RESERVE);
	commit(m, r, r, B + 1 * MB, 512 * KB, 1, MEM_COMMIT);
	commit(m, r, r, B + 4 * MB, 4 * MB, 2, MEM_RESERVE);
	commit(m, r, r, B + 768 * KB, 512 * KB, 2, MEM_COMMIT);
	vfree(m, r, B + 256 * KB, 128 * KB, MEM_DECOMMIT);
	vfree(m, r, B + 512 * KB, 768 * KB, MEM_RELEASE);
	vfree(m, r, B + 16 * MB, 64 * KB, MEM_RELEASE);
	commit(m, cargo, r, B + 32 * MB, 192 * KB, 4, MEM_COMMIT |
	    MEM_RESERVE);
	commit(m, r, r, B + 2 * MB, 128 * KB, 1, MEM_COMMIT | MEM_RESERVE);
	commit(m, r, r, B + 2 * MB, 128 * KB, 3, MEM_COMMIT);
	step(m, 1);
	kev_heap_create(m->w, 0, r->pid, r->tid, ts(m), H1, 16 * MB, 64 * KB);
	halloc(m, r, PH, a1, 100, 0, 1);
	halloc(m, r, PH, a2, 5000, 1, 1);
	halloc(m, r, H1, H1 + 0x1000, 300, 2, 1);
	halloc(m, r, H1, H1 + 0x2000, 40, 2, 1);
	halloc(m, r, H1, H1 + 0x3000, 700, 3, 1);
	hrealloc(m, r, PH, a1 + 0x8000, a1, 400, 4);
	hrealloc(m, r, PH, a2, a2, 6000, 1);
	hfree(m, r, PH, PH + 0x77770);
	hfree(m, r, H1, H1 + 0x2000);
	hdestroy(m, r, H1);
	halloc(m, r, PH, PH + 0x30000, 64, 5, 1);
	halloc(m, r, PH, PH + 0x31000, 128, 5, 1);
}

static void
script_second_life(struct ms *m, struct mproc *r)
{
	uint64_t B = rbase(m), PH = m->ps == 4 ? 0x00500000 :
	    0x0000022a00000000ULL;

	commit(m, r, r, B, 256 * KB, 5, MEM_COMMIT | MEM_RESERVE);
	commit(m, r, r, B + 512 * KB, 64 * KB, 0, MEM_COMMIT | MEM_RESERVE);
	vfree(m, r, B, 64 * KB, MEM_DECOMMIT);
	halloc(m, r, PH, PH + 0x10000, 1000, 0, 1);
	halloc(m, r, PH, PH + 0x11000, 2000, 1, 1);
	halloc(m, r, PH, PH + 0x12000, 3000, 2, 1);
	hfree(m, r, PH, PH + 0x11000);
}

static void
script_memtest(struct ms *m, struct mproc *t, uint64_t R0)
{
	uint64_t PH = m->ps == 4 ? 0x00600000 : 0x0000023b00000000ULL;
	uint64_t H2 = PH + 0x4000000, heaps[2] = { PH, H2 };
	int i, k;

	vfree(m, t, R0 + 128 * KB, 384 * KB, MEM_RELEASE);
	commit(m, t, t, R0 + 512 * KB, 64 * KB, 0, MEM_COMMIT);
	for (i = 0; i < SNAP_BLOCKS; i++)
		halloc(m, t, heaps[i % 7 == 6], heaps[i % 7 == 6] + 0x10000 +
		    (uint64_t)i * 0x100, 16 + (uint64_t)(i * 37) % 200,
		    i % NSTACKS, i % 50 == 0);
	snapshot(m, t, heaps, 2);
	for (i = 0; i < SNAP_BLOCKS; i += 3) {
		k = find_block(t, heaps[i % 7 == 6] + 0x10000 +
		    (uint64_t)i * 0x100);
		if (k >= 0 && i >= 20)
			hfree(m, t, heaps[i % 7 == 6], t->blocks[k].addr);
	}
	for (i = 0; i < 300; i++)
		halloc(m, t, PH, PH + 0x90000 + (uint64_t)i * 0x100,
		    64 + (uint64_t)i % 5 * 100, (i * 5) % NSTACKS, i % 50 == 0);
	snapshot(m, t, heaps, 2);
}

static void
write_manifest(struct ms *m)
{
	static const char *const images[2] = { "memtest.exe", "rustc.exe" };
	int i, k;

	for (i = 0; i < m->nprocs; i++) {
		const struct mproc *p = &m->procs[i];
		uint64_t live = 0;
		int b;

		for (b = 0; b < p->nblocks; b++)
			live += p->blocks[b].size;
		manifest_process(m->manifest, p->pid, p->start_ns, 500,
		    p->image, 0, p->committed, p->decommitted, live,
		    p->image);
		if (p->commits + p->frees + p->before > 0)
			fprintf(m->manifest, "vmem\t%" PRIu32 "\t%" PRIu64
			    "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%"
			    PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			    p->pid, p->start_ns, p->image, p->committed,
			    p->decommitted, (uint64_t)p->npages * PAGE,
			    p->peak, p->commits, p->frees, p->before);
		if (p->allocs + p->hfrees + p->unmatched > 0)
			fprintf(m->manifest, "heap\t%" PRIu32 "\t%" PRIu64
			    "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%"
			    PRIu64 "\t%d\t%" PRIu64 "\t%" PRIu64 "\n", p->pid,
			    p->start_ns, p->image, p->allocated, p->freed,
			    p->allocs, p->hfrees, p->nblocks, live,
			    p->unmatched);
	}
	for (i = 0; i < 2; i++)
		for (k = 0; k <= BEFORE; k++)
			if (m->vstack[i][k][0] != 0 || m->vstack[i][k][1] != 0) {
				char name[16];

				if (k == BEFORE)
					snprintf(name, sizeof(name), "before");
				else
					snprintf(name, sizeof(name), "%d", k);
				fprintf(m->manifest, "vstack\t%s\t%s\t%" PRId64
				    "\t%" PRId64 "\n", images[i], name,
				    m->vstack[i][k][0], m->vstack[i][k][1]);
			}
	for (i = 0; i < 2; i++)
		for (k = 0; k < NSTACKS; k++) {
			int64_t n = 0, bytes = 0;
			int j, b;

			for (j = 0; j < m->nprocs; j++) {
				const struct mproc *p = &m->procs[j];

				if (image_slot(p) != i)
					continue;
				for (b = 0; b < p->nblocks; b++)
					if (p->blocks[b].stack == k) {
						n++;
						bytes += (int64_t)p->blocks[b].size;
					}
			}
			if (n > 0)
				fprintf(m->manifest, "hstack\t%s\t%d\t%" PRId64
				    "\t%" PRId64 "\n", images[i], k, n, bytes);
		}
}

int
memscen_run(const struct scenario_options *o, struct etl_writer *w,
    FILE *manifest)
{
	struct ms *m = calloc(1, sizeof(*m));
	struct mproc *memtest, *cargo, *rustc, *rustc2;
	uint64_t R0;
	int i;

	if (m == NULL)
		return -1;
	fputs("# The memory scenario adds (tests/synth/memscen.c):\n"
	    "#  vmem PID START_NS IMAGE COMMITTED DECOMMITTED OUTSTANDING PEAK"
	    " COMMITS FREES BEFORE_TRACE\n"
	    "#  vstack IMAGE STACK OUTSTANDING COMMITTED\n"
	    "#  heap PID START_NS IMAGE ALLOCATED FREED ALLOCS FREES"
	    " OUTSTANDING_COUNT OUTSTANDING UNMATCHED\n"
	    "#  hstack IMAGE STACK OUTSTANDING_COUNT OUTSTANDING\n"
	    "#  snapshot PID INSTANCE ALLOCATIONS BYTES\n"
	    "#  snapstack PID INSTANCE STACK COUNT BYTES\n"
	    "# bytes as the vmem, heap and heapsnap views count them; STACK is"
	    " the scenario's\n# stack number, \"before\" for rundown memory,"
	    " \"none\" for untracked blocks.\n", manifest);
	m->w = w;
	m->manifest = manifest;
	m->ps = o->pointer_size;
	m->lossy = o->lossy;
	R0 = m->ps == 4 ? 0x10000000ULL : 0x0000007ff0000000ULL;
	/* The rundown at the start. */
	memtest = new_proc(m, 2000, "memtest.exe", 1);
	cargo = new_proc(m, 2200, "cargo.exe", 1);
	m->t = 1;
	log_process(m, HOOK_PROCESS_DCSTART, memtest, 0, 500);
	log_process(m, HOOK_PROCESS_DCSTART, cargo, 0, 500);
	load_images(m, memtest);
	load_images(m, cargo);
	kev_virtual_rundown(w, 0, HOOK_VIRTUAL_DCSTART, ts(m), R0, 1 * MB,
	    memtest->pid, MEM_COMMIT | MEM_RESERVE, 256 * KB);
	model_commit(m, memtest, R0, 256 * KB, BEFORE);
	/* rustc's first life. */
	step(m, 1);
	rustc = new_proc(m, 2100, "rustc.exe", 0);
	log_process(m, HOOK_PROCESS_START, rustc, cargo->pid, cargo->pid);
	load_images(m, rustc);
	script_rustc(m, rustc, cargo);
	step(m, 2);
	log_process(m, HOOK_PROCESS_END, rustc, rustc->pid, cargo->pid);
	/* Its second. */
	step(m, 2);
	rustc2 = new_proc(m, 2100, "rustc.exe", 0);
	log_process(m, HOOK_PROCESS_START, rustc2, cargo->pid, cargo->pid);
	load_images(m, rustc2);
	script_second_life(m, rustc2);
	script_memtest(m, memtest, R0);
	/* The rundown at the end. */
	step(m, 2);
	kev_virtual_rundown(w, 0, HOOK_VIRTUAL_DCEND, ts(m), R0, 1 * MB,
	    memtest->pid, MEM_COMMIT | MEM_RESERVE, 128 * KB);
	log_process(m, HOOK_PROCESS_DCEND, memtest, 0, 500);
	log_process(m, HOOK_PROCESS_DCEND, cargo, 0, 500);
	log_process(m, HOOK_PROCESS_DCEND, rustc2, 0, cargo->pid);
	write_manifest(m);
	manifest_total(manifest, "processes", (uint64_t)m->nprocs);
	for (i = 0; i < m->nprocs; i++) {
		free(m->procs[i].pages);
		free(m->procs[i].blocks);
	}
	free(m);
	return 0;
}
