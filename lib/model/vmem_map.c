/*
 * vmem_map.c - committed ranges of an address space (etl-events-2.md 4.2).
 *
 * A sorted array: an operation finds the first range that ends after its
 * start by binary search, rebuilds the ranges it overlaps in a scratch
 * list (kept with the map, so no allocation an event once it has grown)
 * and puts that list in their place.  Processes hold few regions
 * (hundreds to thousands), so moving the tail of the array is cheap
 * beside a tree's pointers.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "vmem_map.h"

#define SCRATCH_MIN	16

static size_t
first_after(const struct vmem_map *m, uint64_t start)
{
	size_t lo = 0, hi = m->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->r[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
reserve(struct vmem_map *m, size_t extra)
{
	struct vmem_range *r;
	size_t cap;

	if (m->n + extra <= m->cap)
		return 0;
	cap = m->cap ? m->cap * 2 : SCRATCH_MIN;
	while (cap < m->n + extra)
		cap *= 2;
	if ((r = realloc(m->r, cap * sizeof(*r))) == NULL)
		return -1;
	m->r = r;
	m->cap = cap;
	return 0;
}

/* Room for n ranges in the scratch list, kept from call to call. */
static struct vmem_range *
scratch(struct vmem_map *m, size_t n)
{
	struct vmem_range *s;
	size_t cap = m->scratch_cap ? m->scratch_cap : SCRATCH_MIN;

	if (n <= m->scratch_cap)
		return m->scratch;
	while (cap < n)
		cap *= 2;
	if ((s = realloc(m->scratch, cap * sizeof(*s))) == NULL)
		return NULL;
	m->scratch = s;
	m->scratch_cap = cap;
	return s;
}

static void
push(struct vmem_range *out, size_t *n, uint64_t start, uint64_t end,
    uint32_t key, int64_t ns)
{
	struct vmem_range *last = *n > 0 ? &out[*n - 1] : NULL;

	if (start >= end)
		return;
	if (last != NULL && last->end == start && last->key == key &&
	    last->commit_ns == ns) {
		last->end = end;
		return;
	}
	out[*n].start = start;
	out[*n].end = end;
	out[*n].key = key;
	out[*n].commit_ns = ns;
	(*n)++;
}

/*
 * Replaces ranges [i, j) with out[0..n), joining the neighbours on
 * either side when they continue a new range.
 */
static void
splice(struct vmem_map *m, size_t i, size_t j, struct vmem_range *out,
    size_t n)
{
	struct vmem_range *prev = i > 0 ? &m->r[i - 1] : NULL;
	struct vmem_range *next = j < m->n ? &m->r[j] : NULL;

	if (n > 0 && prev != NULL && prev->end == out[0].start &&
	    prev->key == out[0].key && prev->commit_ns == out[0].commit_ns) {
		out[0].start = prev->start;
		i--;
	}
	if (n > 0 && next != NULL && next->start == out[n - 1].end &&
	    next->key == out[n - 1].key &&
	    next->commit_ns == out[n - 1].commit_ns) {
		out[n - 1].end = next->end;
		j++;
	}
	memmove(m->r + i + n, m->r + j, (m->n - j) * sizeof(*m->r));
	memcpy(m->r + i, out, n * sizeof(*out));
	m->n = m->n - (j - i) + n;
}

/* The ranges overlapping [start, end): *i .. *j. */
static void
overlapping(const struct vmem_map *m, uint64_t start, uint64_t end,
    size_t *i, size_t *j)
{
	*i = *j = first_after(m, start);
	while (*j < m->n && m->r[*j].start < end)
		(*j)++;
}

int
vmem_map_commit(struct vmem_map *m, uint64_t start, uint64_t end,
    uint32_t key, int64_t ns, vmem_piece_fn *relabel, void *ctx,
    uint64_t *added)
{
	struct vmem_range *out;
	uint64_t at = start, lo, hi;
	size_t i, j, k, n = 0;

	*added = 0;
	if (start >= end)
		return 0;
	overlapping(m, start, end, &i, &j);
	/* Each old range gives at most three, and the gaps one more each. */
	if (reserve(m, 2 * (j - i) + 3) != 0 ||
	    (out = scratch(m, 2 * (j - i) + 3)) == NULL)
		return -1;
	for (k = i; k < j; k++) {
		const struct vmem_range *r = &m->r[k];

		lo = r->start > start ? r->start : start;
		hi = r->end < end ? r->end : end;
		push(out, &n, r->start, lo, r->key, r->commit_ns);
		if (lo > at) {
			push(out, &n, at, lo, key, ns);
			*added += lo - at;
		}
		if (relabel != NULL && r->key != key)
			relabel(ctx, r->key, hi - lo, r->commit_ns);
		push(out, &n, lo, hi, key, r->commit_ns);
		push(out, &n, hi, r->end, r->key, r->commit_ns);
		at = hi;
	}
	if (at < end) {
		push(out, &n, at, end, key, ns);
		*added += end - at;
	}
	splice(m, i, j, out, n);
	m->committed += *added;
	return 0;
}

int
vmem_map_free(struct vmem_map *m, uint64_t start, uint64_t end,
    vmem_piece_fn *freed, void *ctx, uint64_t *removed)
{
	struct vmem_range out[2];
	uint64_t lo, hi;
	size_t i, j, k, n = 0;

	*removed = 0;
	if (start >= end)
		return 0;
	overlapping(m, start, end, &i, &j);
	if (i == j)
		return 0;
	for (k = i; k < j; k++) {
		const struct vmem_range *r = &m->r[k];

		lo = r->start > start ? r->start : start;
		hi = r->end < end ? r->end : end;
		*removed += hi - lo;
		if (freed != NULL)
			freed(ctx, r->key, hi - lo, r->commit_ns);
	}
	/* Only the first and the last range can keep a part. */
	push(out, &n, m->r[i].start, start > m->r[i].start ? start :
	    m->r[i].start, m->r[i].key, m->r[i].commit_ns);
	if (m->r[j - 1].end > end)
		push(out, &n, end, m->r[j - 1].end, m->r[j - 1].key,
		    m->r[j - 1].commit_ns);
	memmove(m->r + i + n, m->r + j, (m->n - j) * sizeof(*m->r));
	memcpy(m->r + i, out, n * sizeof(*out));
	m->n = m->n - (j - i) + n;
	m->committed -= *removed;
	return 0;
}

void
vmem_map_each(const struct vmem_map *m, vmem_piece_fn *fn, void *ctx)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		fn(ctx, m->r[i].key, m->r[i].end - m->r[i].start,
		    m->r[i].commit_ns);
}

void
vmem_map_clear(struct vmem_map *m)
{
	m->n = 0;
	m->committed = 0;
}

void
vmem_map_release(struct vmem_map *m)
{
	free(m->r);
	free(m->scratch);
	memset(m, 0, sizeof(*m));
}

/* ---- commitcurve: each process's outstanding commit ---- */

#define MEM_COMMIT	0x1000
#define MEM_DECOMMIT	0x4000
#define MEM_RELEASE	0x8000

struct cproc {
	stream_id proc;			/* its definition; 0: not known */
	uint32_t pid;
	int ended;
	struct vmem_map map;
};

struct commitcurve {
	struct cproc *p;
	size_t n, cap;
};

struct commitcurve *
commitcurve_new(void)
{
	return calloc(1, sizeof(struct commitcurve));
}

static void
clear(struct commitcurve *cc)
{
	size_t i;

	for (i = 0; i < cc->n; i++)
		vmem_map_release(&cc->p[i].map);
	cc->n = 0;
}

void
commitcurve_free(struct commitcurve *cc)
{
	if (cc == NULL)
		return;
	clear(cc);
	free(cc->p);
	free(cc);
}

/* The process of `pid` now, added when `add`; NULL if none. */
static struct cproc *
find(struct commitcurve *cc, const struct stream_reader *r, uint32_t pid,
    int add)
{
	const struct stream_process *def = stream_process_by_pid(r, pid);
	stream_id id = def != NULL ? def->id : 0;
	struct cproc *p;
	size_t i;

	for (i = cc->n; i-- > 0;)
		if (cc->p[i].pid == pid && cc->p[i].proc == id)
			return &cc->p[i];
	if (!add || (p = array_slot(&cc->p, &cc->cap, cc->n,
	    sizeof(*p))) == NULL)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->proc = id;
	p->pid = pid;
	cc->n++;
	return p;
}

static int
on_vmem(struct commitcurve *cc, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t flags = (uint32_t)stream_event_u(ev, "flags", 0);
	uint64_t base = stream_event_u(ev, "base", 0), size, moved;
	struct cproc *p;

	size = stream_event_u(ev, ev->h.op == EVOP_DCSTART ? "commit_size" :
	    "size", 0);
	if (size == 0 || (ev->h.op == EVOP_ALLOC && !(flags & MEM_COMMIT)) ||
	    (ev->h.op == EVOP_FREE && !(flags & (MEM_DECOMMIT | MEM_RELEASE))))
		return 0;
	if (ev->h.op != EVOP_ALLOC && ev->h.op != EVOP_FREE &&
	    ev->h.op != EVOP_DCSTART)
		return 0;
	if ((p = find(cc, r, ev->h.pid, 1)) == NULL)
		return -1;
	if (p->ended)
		return 0;	/* after its exit, as vmem ignores it */
	if (ev->h.op == EVOP_FREE)
		return vmem_map_free(&p->map, base, base + size, NULL, NULL,
		    &moved);
	return vmem_map_commit(&p->map, base, base + size, 1, ev->h.ts, NULL,
	    NULL, &moved);
}

int
commitcurve_record(struct commitcurve *cc, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;
	struct cproc *p;

	if (rec->type == REC_HEADER)
		clear(cc);
	if (rec->type != REC_EVENT)
		return 0;
	if (ev->h.kind == EV_PROCESS && ev->h.op == EVOP_END) {
		if ((p = find(cc, r, ev->h.pid, 0)) != NULL) {
			p->ended = 1;
			vmem_map_release(&p->map);
		}
		return 0;
	}
	return ev->h.kind == EV_VMEM ? on_vmem(cc, r, ev) : 0;
}

int
commitcurve_each(const struct commitcurve *cc, commitcurve_fn fn, void *ctx)
{
	size_t i;
	int rc;

	for (i = 0; i < cc->n; i++)
		if (!cc->p[i].ended &&
		    (rc = fn(ctx, cc->p[i].proc, cc->p[i].pid,
		    cc->p[i].map.committed)) != 0)
			return rc;
	return 0;
}
