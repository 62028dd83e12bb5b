/*
 * commitcurve.c - each process's outstanding commit, kept in a map of
 * its committed pages (commitcurve.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "commitcurve.h"
#include "vmem_map.h"

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
