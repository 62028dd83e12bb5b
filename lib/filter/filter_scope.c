/*
 * filter_scope.c - what the filter's output holds, as SCOPE records
 * (etl-stream(5), "Scope"): the window, and the processes kept.
 */
#include <string.h>

#include "filter_state.h"

/* ---- What the output says it holds (REC_SCOPE) ---- */

int
filter_scope_window(const struct filter *f, struct stream_scope *sc)
{
	if (!(f->from.set || f->to.set) || !f->window_known || f->whole)
		return 0;
	memset(sc, 0, sizeof(*sc));
	sc->what = SCOPE_WINDOW;
	sc->from_ns = f->from.set ? f->from_ns : INT64_MIN;
	sc->to_ns = f->to.set ? f->to_ns : INT64_MAX;
	return 1;
}

static int
put_id(struct buf *b, uint32_t id)
{
	unsigned char le[4] = { id & 0xff, id >> 8 & 0xff, id >> 16 & 0xff,
	    id >> 24 };

	buf_put(b, le, sizeof(le));
	return b->oom ? -1 : 0;
}

/* The PROCESS ids that match in the section, as little-endian items. */
static int
matching_procs(struct filter *f, struct buf *out)
{
	struct section *s;
	const uint32_t *ids;
	size_t i, n;

	if (!filter_needs_scan(f)) {
		ids = (const uint32_t *)f->kept_defs.data;
		n = f->kept_defs.len / sizeof(*ids);
		for (i = 0; i < n; i++)
			if (put_id(out, ids[i]) != 0)
				return -1;
		return 0;
	}
	if (f->cur == 0 || f->cur > f->nsections)
		return 0;
	s = &f->sections[f->cur - 1];
	if (f->onepass)
		filter_section_end(f);	/* decides who was never asked */
	for (i = 1; i < s->cap; i++)
		if ((s->procs[i].flags & (NOTE_DEFINED | NOTE_MATCH)) ==
		    (NOTE_DEFINED | NOTE_MATCH) && put_id(out, (uint32_t)i) != 0)
			return -1;
	return 0;
}

int
filter_scope_kept(struct filter *f, struct stream_scope *sc)
{
	const uint32_t *pids = (const uint32_t *)f->pid_list.data;
	size_t i, n = f->pid_list.len / sizeof(*pids);

	if (!filter_by_process(f))
		return 0;
	f->scope_procs.len = f->scope_pids.len = 0;
	if (matching_procs(f, &f->scope_procs) != 0)
		return -1;
	/* Pids never defined match by pid alone, without regexes. */
	if (f->names.n == 0 && f->cmdlines.n == 0)
		for (i = 0; i < n; i++)
			if (put_id(&f->scope_pids, pids[i]) != 0)
				return -1;
	memset(sc, 0, sizeof(*sc));
	sc->what = SCOPE_KEPT;
	sc->except = (f->flags & FILTER_INVERT) != 0;
	sc->nprocs = (uint32_t)(f->scope_procs.len / 4);
	sc->procs = f->scope_procs.data;
	sc->npids = (uint32_t)(f->scope_pids.len / 4);
	sc->pids = f->scope_pids.data;
	return 1;
}
