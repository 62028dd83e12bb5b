/*
 * view_heap.c - "etlagg heap": heap allocations (the Heap Trace Provider
 * events, etl-format.md 5.8) by process, allocating stack, function or
 * module.
 *
 * Each process instance keeps its live blocks by address: an alloc adds
 * one, charged to its stack; a free removes it, and its bytes count as
 * freed for the stack that allocated it; a realloc is the free of the
 * old block and the alloc of the new one by the realloc's stack; a heap
 * destroy frees the blocks still live on that heap.  A free (or realloc)
 * of a block the trace never allocated is counted as unmatched, per
 * process, as is an alloc at the address of a live block (a free was
 * missed: the old block is taken as freed).  A process that exits keeps
 * what it held at exit.  Blocks allocated before tracing started are
 * unknown: their frees are the unmatched ones.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "model/memstacks.h"
#include "model/model.h"
#include "model/proctab.h"
#include "view.h"
#include "view_merge.h"

enum by { BY_PROCESS = -1 };	/* else enum memstacks_by */

enum w {
	W_ALLOCATED, W_FREED, W_ALLOCS, W_FREES, W_REALLOCS, W_UNMATCHED,
	W_DESTROYED, W_COUNT, W_OUTSTANDING, W_PEAK
};

struct block {
	uint64_t addr;			/* 0: empty slot */
	uint64_t size, heap;
	uint32_t key;
};

/* A process's live blocks: open addressing, linear probing. */
struct blocks {
	struct block *b;
	size_t cap, n;
};

struct hproc {
	struct blocks live;
	struct memw w;
	int64_t end_ns;
	int used, ended;
	int cut;			/* ended by its section's end */
};

struct view {
	int by;
	struct model *mine;		/* its own model, or NULL: shared */
	struct proctab *pt;
	struct memstacks *ms;
	const struct stream_reader *reader;
	struct hproc *procs;
	size_t procs_cap;
	int section_open;
	uint64_t after_exit, over_live, null_frees;
};

static void heap_destroy_view(struct view *v);

static const char *const tables[] = { "heap", NULL };

static const struct option longopts[] = {
	{ "addresses", no_argument, NULL, 'a' },
	{ "by", required_argument, NULL, 'b' },
	{ "instances", no_argument, NULL, 'i' },
	{ NULL, 0, NULL, 0 }
};

static struct view *
heap_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	unsigned flags = 0;
	int ch, bad = 0, instances = 0;

	if (v == NULL)
		return NULL;
	v->by = BY_PROCESS;
	optind = 0;
	while (!bad && (ch = getopt_long(argc, argv, "+", longopts,
	    NULL)) != -1) {
		if (ch == 'a')
			flags |= FRAMES_ADDRESSES;
		else if (ch == 'i')
			instances = 1;
		else if (ch == 'b' && strcmp(optarg, "process") == 0)
			v->by = BY_PROCESS;
		else if (ch == 'b' && (v->by = memstacks_parse_by(optarg)) < 0) {
			view_warn("heap: --by wants process, stack, "
			    "function or module, not '%s'", optarg);
			bad = 1;
		} else if (ch != 'b')
			bad = 1;
	}
	*used = optind;
	if (!bad && instances && v->by != MS_BY_STACK) {
		view_warn("heap: --instances roots stacks: it wants --by stack");
		bad = 1;
	}
	if (bad) {
		free(v);
		return NULL;
	}
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->pt = model_proctab(m)) == NULL ||
	    (v->ms = memstacks_new(flags)) == NULL) {
		heap_destroy_view(v);
		errno = ENOMEM;
		return NULL;
	}
	if (instances)
		memstacks_root_instances(v->ms);
	return v;
}

/* ---- live blocks ---- */

static size_t
hash_addr(uint64_t a, size_t cap)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return (size_t)a & (cap - 1);
}

static struct block *
find(const struct blocks *t, uint64_t addr)
{
	size_t i;

	if (t->cap == 0)
		return NULL;
	for (i = hash_addr(addr, t->cap); t->b[i].addr != 0;
	    i = (i + 1) & (t->cap - 1))
		if (t->b[i].addr == addr)
			return &t->b[i];
	return NULL;
}

static int
grow(struct blocks *t)
{
	struct blocks n = { NULL, t->cap ? t->cap * 2 : 64, 0 };
	size_t i, j;

	if ((n.b = calloc(n.cap, sizeof(*n.b))) == NULL)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (t->b[i].addr == 0)
			continue;
		for (j = hash_addr(t->b[i].addr, n.cap); n.b[j].addr != 0;
		    j = (j + 1) & (n.cap - 1))
			;
		n.b[j] = t->b[i];
		n.n++;
	}
	free(t->b);
	*t = n;
	return 0;
}

/* Adds a block whose address is not in the table. */
static int
insert(struct blocks *t, const struct block *b)
{
	size_t i;

	if ((t->n + 1) * 4 > t->cap * 3 && grow(t) != 0)
		return -1;
	for (i = hash_addr(b->addr, t->cap); t->b[i].addr != 0;
	    i = (i + 1) & (t->cap - 1))
		;
	t->b[i] = *b;
	t->n++;
	return 0;
}

/* Removes the block at `slot`, moving back those its gap would hide. */
static void
remove_at(struct blocks *t, struct block *slot)
{
	size_t i = (size_t)(slot - t->b), j = i, k;

	t->b[i].addr = 0;
	for (;;) {
		j = (j + 1) & (t->cap - 1);
		if (t->b[j].addr == 0)
			break;
		k = hash_addr(t->b[j].addr, t->cap);
		/* Stays if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->b[i] = t->b[j];
		t->b[j].addr = 0;
		i = j;
	}
	t->n--;
}

/* ---- accounting ---- */

static void
peak(struct hproc *hp)
{
	if (hp->w.v[W_OUTSTANDING] > hp->w.v[W_PEAK])
		hp->w.v[W_PEAK] = hp->w.v[W_OUTSTANDING];
}

/* Frees a live block: the bytes go back from its allocating stack. */
static void
free_block(struct view *v, struct hproc *hp, struct block *b)
{
	struct memw *w = memstacks_weight(v->ms, b->key);

	if (w != NULL) {
		memw_add(&w->v[W_FREED], b->size);
		w->v[W_FREES]++;
		w->v[W_COUNT]--;
		memw_sub(&w->v[W_OUTSTANDING], b->size);
	}
	memw_add(&hp->w.v[W_FREED], b->size);
	hp->w.v[W_FREES]++;
	hp->w.v[W_COUNT]--;
	memw_sub(&hp->w.v[W_OUTSTANDING], b->size);
	remove_at(&hp->live, b);
}

static int
alloc_block(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev, uint32_t index, struct hproc *hp,
    uint64_t addr, uint64_t size)
{
	const struct proc *p = proctab_get(v->pt, index);
	const struct stream_process *def = stream_process_by_pid(r, ev->h.pid);
	struct block b = { addr, size, stream_event_u(ev, "heap", 0), 0 }, *old;
	struct memw *w;
	const char *image;
	size_t len;

	if ((old = find(&hp->live, addr)) != NULL) {
		v->over_live++;
		free_block(v, hp, old);
	}
	image = proctab_str(v->pt, p->image, &len);
	if ((b.key = memstacks_key(v->ms, image, len, def,
	    ev->h.stack, NULL)) == 0 ||
	    (w = memstacks_weight(v->ms, b.key)) == NULL ||
	    insert(&hp->live, &b) != 0)
		return -1;
	memw_add(&w->v[W_ALLOCATED], size);
	w->v[W_ALLOCS]++;
	w->v[W_COUNT]++;
	memw_add(&w->v[W_OUTSTANDING], size);
	memw_add(&hp->w.v[W_ALLOCATED], size);
	hp->w.v[W_ALLOCS]++;
	hp->w.v[W_COUNT]++;
	memw_add(&hp->w.v[W_OUTSTANDING], size);
	peak(hp);
	return 0;
}

/* A free of `addr`: 0 if it was live, 1 if unmatched. */
static int
free_addr(struct view *v, struct hproc *hp, uint64_t addr)
{
	struct block *b;

	if (addr == 0) {
		v->null_frees++;
		return 0;
	}
	if ((b = find(&hp->live, addr)) == NULL) {
		hp->w.v[W_UNMATCHED]++;
		return 1;
	}
	free_block(v, hp, b);
	return 0;
}

static void
destroy_heap(struct view *v, struct hproc *hp, uint64_t heap)
{
	size_t i = 0;

	/* Removing moves later blocks back: look at slot i again. */
	while (i < hp->live.cap) {
		struct block *b = &hp->live.b[i];

		if (b->addr != 0 && b->heap == heap) {
			hp->w.v[W_DESTROYED]++;
			free_block(v, hp, b);
			continue;
		}
		i++;
	}
}

static int
on_heap(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t index = proctab_of_pid(v->pt, r, ev->h.pid);
	struct hproc *hp;

	if (index == PROCTAB_NONE || (hp = array_slot(&v->procs,
	    &v->procs_cap, index, sizeof(*hp))) == NULL)
		return -1;
	if (hp->ended) {
		v->after_exit++;
		return 0;
	}
	hp->used = 1;
	v->section_open = 1;
	switch (ev->h.op) {
	case EVOP_ALLOC:
		return alloc_block(v, r, ev, index, hp,
		    stream_event_u(ev, "address", 0),
		    stream_event_u(ev, "size", 0));
	case EVOP_REALLOC:
		hp->w.v[W_REALLOCS]++;
		free_addr(v, hp, stream_event_u(ev, "old_address", 0));
		return alloc_block(v, r, ev, index, hp,
		    stream_event_u(ev, "address", 0),
		    stream_event_u(ev, "size", 0));
	case EVOP_FREE:
		free_addr(v, hp, stream_event_u(ev, "address", 0));
		return 0;
	case EVOP_DESTROY:
		destroy_heap(v, hp, stream_event_u(ev, "heap", 0));
		return 0;
	}
	return 0;
}

static int
on_exit(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t index = proctab_of_pid(v->pt, r, ev->h.pid);
	struct hproc *hp;

	if (index == PROCTAB_NONE || (hp = array_slot(&v->procs,
	    &v->procs_cap, index, sizeof(*hp))) == NULL)
		return -1;
	if (hp->used && !hp->ended) {
		hp->ended = 1;
		hp->end_ns = ev->h.ts;
		free(hp->live.b);
		memset(&hp->live, 0, sizeof(hp->live));
	}
	return 0;
}

static int
end_section(struct view *v, const struct stream_reader *r)
{
	size_t i;

	for (i = 0; i < v->procs_cap; i++)
		if (v->procs[i].used && !v->procs[i].ended) {
			v->procs[i].ended = v->procs[i].cut = 1;
			free(v->procs[i].live.b);
			memset(&v->procs[i].live, 0, sizeof(v->procs[i].live));
		}
	v->section_open = 0;
	return memstacks_end_section(v->ms, r);
}

static int
heap_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;
	size_t i;

	v->reader = r;
	if (rec->type == REC_HEADER && v->section_open &&
	    end_section(v, NULL) != 0)
		return -1;
	if (rec->type == REC_HEADER)
		for (i = 0; i < v->procs_cap; i++)
			if (v->procs[i].cut)
				v->procs[i].ended = v->procs[i].cut = 0;
	if ((v->mine != NULL && model_record(v->mine, r, rec) != 0) ||
	    memstacks_record(v->ms, r, rec) != 0)
		return -1;
	if (rec->type == REC_END)
		return end_section(v, r);
	if (rec->type != REC_EVENT)
		return 0;
	if (ev->h.kind == EV_PROCESS && ev->h.op == EVOP_END)
		return on_exit(v, r, ev);
	return ev->h.kind == EV_HEAP ? on_heap(v, r, ev) : 0;
}

/* ---- tables ---- */

static struct value
u64v(int64_t u)
{
	return (struct value){ .type = VAL_U64, .v.u = (uint64_t)u };
}

static struct value
strv(const char *s, size_t len)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, len } };
}

#define MAX_COLS	16

static const struct stream_column weight_cols[] = {
	{ "allocated_bytes", VAL_U64, "B" }, { "freed_bytes", VAL_U64, "B" },
	{ "allocs", VAL_U64, "" }, { "frees", VAL_U64, "" },
	{ "outstanding_count", VAL_U64, "" },
	{ "outstanding_bytes", VAL_U64, "B" },
};
static const int weight_index[] = {
	W_ALLOCATED, W_FREED, W_ALLOCS, W_FREES, W_COUNT, W_OUTSTANDING
};
#define NWEIGHTS	(sizeof(weight_index) / sizeof(weight_index[0]))

static const struct stream_column process_cols[] = {
	{ "image", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "start", VAL_NS, "s" }, { "end", VAL_NS, "s" },
	{ "reallocs", VAL_U64, "" }, { "unmatched_frees", VAL_U64, "" },
	{ "destroyed_blocks", VAL_U64, "" },
	{ "peak_outstanding_bytes", VAL_U64, "B" },
};
#define NPCOLS		(sizeof(process_cols) / sizeof(process_cols[0]))

struct prow {
	uint32_t index, pid;
	int64_t allocated;
};

static int
cmp_procs(const void *a, const void *b)
{
	const struct prow *p = a, *q = b;

	if (p->allocated != q->allocated)
		return p->allocated > q->allocated ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

static size_t
weight_cells(const struct memw *w, struct value *c)
{
	size_t i;

	for (i = 0; i < NWEIGHTS; i++)
		c[i] = u64v(w->v[weight_index[i]]);
	return NWEIGHTS;
}

static int
write_processes(struct view *v, struct stream_writer *w)
{
	struct stream_column cols[MAX_COLS];
	struct value cells[MAX_COLS];
	struct stream_row row = { 1, 0, cells };
	struct prow *order;
	uint32_t n = 0, i;
	size_t len;
	int rc;

	memcpy(cols, process_cols, sizeof(process_cols));
	memcpy(cols + NPCOLS, weight_cols, sizeof(weight_cols));
	if ((rc = view_write_table(w, 1, "heap", cols, NPCOLS +
	    NWEIGHTS)) != 0)
		return rc;
	if ((order = malloc((v->procs_cap + 1) * sizeof(*order))) == NULL)
		return -1;
	for (i = 0; i < v->procs_cap; i++)
		if (v->procs[i].used)
			order[n++] = (struct prow){ i,
			    proctab_get(v->pt, i)->pid,
			    v->procs[i].w.v[W_ALLOCATED] };
	qsort(order, n, sizeof(*order), cmp_procs);
	for (i = 0; i < n && rc == 0; i++) {
		const struct proc *p = proctab_get(v->pt, order[i].index);
		const struct hproc *hp = &v->procs[order[i].index];
		const char *image = proctab_str(v->pt, p->image, &len);

		cells[0] = strv(image, len);
		cells[1] = u64v(p->pid);
		cells[2] = (struct value){ .type = p->start_ns !=
		    PROCTAB_NO_TIME ? VAL_NS : VAL_NULL, .v.i = p->start_ns };
		cells[3] = (struct value){ .type = hp->end_ns != 0 ? VAL_NS :
		    VAL_NULL, .v.i = hp->end_ns };
		cells[4] = u64v(hp->w.v[W_REALLOCS]);
		cells[5] = u64v(hp->w.v[W_UNMATCHED]);
		cells[6] = u64v(hp->w.v[W_DESTROYED]);
		cells[7] = u64v(hp->w.v[W_PEAK]);
		row.ncells = NPCOLS + weight_cells(&hp->w, cells + NPCOLS);
		rc = stream_write_row(w, &row);
	}
	free(order);
	return rc;
}

struct srow {
	const char *key, *module;
	size_t len, modlen;
	const struct memw *w;
};

static int
cmp_srows(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;
	int c;

	if (x->w->v[W_OUTSTANDING] != y->w->v[W_OUTSTANDING])
		return x->w->v[W_OUTSTANDING] > y->w->v[W_OUTSTANDING] ?
		    -1 : 1;
	if (x->w->v[W_ALLOCATED] != y->w->v[W_ALLOCATED])
		return x->w->v[W_ALLOCATED] > y->w->v[W_ALLOCATED] ? -1 : 1;
	if ((c = memcmp(x->key, y->key, x->len < y->len ? x->len :
	    y->len)) != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static int
write_stacks(struct view *v, struct stream_writer *w)
{
	static const char *const keys[] = { "stack", "function", "module" };
	struct stream_column cols[MAX_COLS];
	struct value cells[MAX_COLS];
	struct stream_row row = { 1, 0, cells };
	struct memstacks_rows rows;
	struct srow *s;
	size_t k = 0, i;
	int rc;

	cols[k++] = (struct stream_column){ keys[v->by], VAL_STR, "" };
	if (v->by == MS_BY_FUNCTION)
		cols[k++] = (struct stream_column){ "module", VAL_STR, "" };
	memcpy(cols + k, weight_cols, sizeof(weight_cols));
	if ((rc = view_write_table(w, 1, "heap", cols, k + NWEIGHTS)) != 0 ||
	    memstacks_rows(v->ms, (enum memstacks_by)v->by, &rows) != 0)
		return -1;
	if ((s = calloc(rows.n + 1, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i < rows.n; i++)
		s[i] = (struct srow){ rows.key[i], rows.module[i],
		    rows.keylen[i], rows.modlen[i], rows.w[i] };
	qsort(s, rows.n, sizeof(*s), cmp_srows);
	for (i = 0; i < rows.n && rc == 0; i++) {
		cells[0] = strv(s[i].key, s[i].len);
		if (v->by == MS_BY_FUNCTION)
			cells[1] = s[i].module != NULL ?
			    strv(s[i].module, s[i].modlen) :
			    (struct value){ .type = VAL_NULL };
		row.ncells = k + weight_cells(s[i].w, cells + k);
		rc = stream_write_row(w, &row);
	}
	free(s);
	return rc;
}

static int
write_diag(struct stream_writer *w, const char *what, uint64_t count)
{
	struct stream_diag d = { what, count, 0, 0 };

	return count != 0 ? stream_write_diag(w, &d) : 0;
}

static int
heap_finish(struct view *v, struct stream_writer *w)
{
	uint64_t unmatched = 0;
	size_t i;

	if (v->section_open && end_section(v, v->reader) != 0)
		return -1;
	if ((v->by == BY_PROCESS ? write_processes(v, w) :
	    write_stacks(v, w)) != 0)
		return -1;
	for (i = 0; i < v->procs_cap; i++)
		unmatched += (uint64_t)v->procs[i].w.v[W_UNMATCHED];
	return write_diag(w, "heap: frees of blocks not allocated in the "
	    "trace (unmatched_frees)", unmatched) != 0 ||
	    write_diag(w, "heap: allocations at the address of a live block "
	    "(its free was missed)", v->over_live) != 0 ||
	    write_diag(w, "heap: frees of a null pointer", v->null_frees) != 0 ||
	    write_diag(w, "heap: events of processes after their exit",
	    v->after_exit) != 0 ||
	    write_diag(w, "heap: allocation stacks never defined",
	    v->by != BY_PROCESS ? memstacks_undefined(v->ms) : 0) != 0 ?
	    -1 : 0;
}

static void
heap_destroy_view(struct view *v)
{
	size_t i;

	for (i = 0; i < v->procs_cap; i++)
		free(v->procs[i].live.b);
	free(v->procs);
	model_free(v->mine);
	memstacks_free(v->ms);
	free(v);
}

static const char *const merge_keys[] = { "pid", "start", NULL };
static const char *const merge_maxes[] = { "peak_outstanding_bytes", NULL };
static const char *const by_process[] = { "-allocated_bytes", "+pid", NULL };
static const char *const by_stack[] = {
	"-outstanding_bytes", "-allocated_bytes", "+$key", NULL
};
static const struct view_merge_order merge_orders[] = {
	{ "image", by_process }, { NULL, by_stack }
};
/* --merge: tables of traces computed apart, as one stream's. */
static const struct view_merge_spec merge_spec = {
	tables, merge_keys, merge_maxes, merge_orders, NULL
};

const struct view_ops view_heap_ops = {
	.name = "heap",
	.needs_kind = EV_HEAP,
	.needs = "the trace has no Heap events, so no heap allocations to "
	    "count; WPR's own Heap profile records them (pipelines/rustc.wprp "
	    "takes heap snapshots instead: RustcHeap, for heapsnap)",
	.usage = "[--addresses] [--by process|stack|function|module] "
	    "[--instances] [--merge]",
	.summary = "heap allocations (Heap Trace Provider) outstanding and "
	    "freed by process, allocating stack, function or module",
	.reader_flags = STREAM_KEEP_STACKS,
	.options = longopts,
	.tables = tables,
	.merge = &merge_spec,
	.create = heap_create,
	.record = heap_record,
	.finish = heap_finish,
	.destroy = heap_destroy_view,
};
