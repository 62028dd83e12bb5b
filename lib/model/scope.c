/*
 * scope.c - the window and the processes a section counts; see scope.h.
 */
#include <stdlib.h>
#include <string.h>

#include "base/idmap.h"
#include "scope.h"

/* One KEPT record: sets of PROCESS ids and of bare pids. */
struct kept {
	int except;
	struct idmap procs, pids;
};

struct scope {
	int64_t from, to;
	struct kept *kept;
	size_t nkept, cap;
	struct idmap first;		/* pid -> its first PROCESS id + 0 */
};

struct scope *
scope_new(void)
{
	struct scope *sc = calloc(1, sizeof(*sc));

	if (sc != NULL) {
		sc->from = INT64_MIN;
		sc->to = INT64_MAX;
	}
	return sc;
}

static void
forget(struct scope *sc)
{
	size_t i;

	for (i = 0; i < sc->nkept; i++) {
		idmap_release(&sc->kept[i].procs);
		idmap_release(&sc->kept[i].pids);
	}
	sc->nkept = 0;
	idmap_release(&sc->first);
	memset(&sc->first, 0, sizeof(sc->first));
	sc->from = INT64_MIN;
	sc->to = INT64_MAX;
}

void
scope_free(struct scope *sc)
{
	if (sc == NULL)
		return;
	forget(sc);
	free(sc->kept);
	free(sc);
}

static int
add_list(struct idmap *m, const unsigned char *list, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (idmap_put(m, stream_scope_item(list, i), 1) != 0)
			return -1;
	return 0;
}

static int
add_kept(struct scope *sc, const struct stream_scope *s)
{
	struct kept *k;

	if (sc->nkept == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 2;

		if ((k = realloc(sc->kept, cap * sizeof(*k))) == NULL)
			return -1;
		sc->kept = k;
		sc->cap = cap;
	}
	k = &sc->kept[sc->nkept++];
	memset(k, 0, sizeof(*k));
	k->except = s->except != 0;
	return add_list(&k->procs, s->procs, s->nprocs) != 0 ||
	    add_list(&k->pids, s->pids, s->npids) != 0 ? -1 : 0;
}

int
scope_record(struct scope *sc, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_scope *s = &rec->u.scope;
	uint32_t unused;

	(void)r;
	switch (rec->type) {
	case REC_HEADER:
		forget(sc);
		return 0;
	case REC_PROCESS:
		if (rec->u.process.id == 0 ||
		    idmap_get(&sc->first, rec->u.process.pid, &unused))
			return 0;
		return idmap_put(&sc->first, rec->u.process.pid,
		    rec->u.process.id);
	case REC_SCOPE:
		if (s->what == SCOPE_KEPT)
			return add_kept(sc, s);
		if (s->from_ns > sc->from)
			sc->from = s->from_ns;
		if (s->to_ns < sc->to)
			sc->to = s->to_ns;
		return 0;
	default:
		return 0;
	}
}

void
scope_window(const struct scope *sc, int64_t *from, int64_t *to)
{
	if (sc->from > *from)
		*from = sc->from;
	if (sc->to < *to)
		*to = sc->to;
}

int
scope_limited(const struct scope *sc)
{
	return sc->nkept > 0;
}

int
scope_keeps(const struct scope *sc, stream_id proc, uint32_t pid)
{
	uint32_t first, unused;
	size_t i;
	int in;

	if (proc == 0 && idmap_get(&sc->first, pid, &first))
		proc = first;
	for (i = 0; i < sc->nkept; i++) {
		const struct kept *k = &sc->kept[i];

		in = proc != 0 ? idmap_get(&k->procs, proc, &unused) :
		    idmap_get(&k->pids, pid, &unused);
		if (in == k->except)
			return 0;
	}
	return 1;
}
