/*
 * ahead.c - see ahead.h.  The slots travel through a ring (ring.h): the
 * thread fills them in item order, the caller empties them in the same.
 */
#include <stdlib.h>

#include "ahead.h"
#include "ring.h"

struct ahead {
	struct ring *ring;
	const struct ahead_ops *ops;
	void *arg;
	size_t n;
	unsigned nslots;
	long taken;		/* slot of the last ahead_take(), or -1 */
	struct ahead_slot *slots;
};

static void
work_items(void *p)
{
	struct ahead *a = p;
	size_t k;
	long slot;

	for (k = 0; k < a->n; k++) {
		if ((slot = ring_put_begin(a->ring, a->ops->weigh(a->arg, k)))
		    < 0)
			return;
		a->ops->work(a->arg, k, &a->slots[slot]);
		ring_put_end(a->ring);
	}
	ring_close(a->ring);
}

struct ahead *
ahead_start(const struct ahead_ops *ops, void *arg, size_t n,
    unsigned nslots, size_t budget)
{
	struct ahead *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->ops = ops;
	a->arg = arg;
	a->n = n;
	a->nslots = nslots;
	a->taken = -1;
	if ((a->slots = calloc(nslots, sizeof(*a->slots))) == NULL ||
	    (a->ring = ring_new(nslots, budget)) == NULL ||
	    ring_thread_start(a->ring, work_items, a) != 0) {
		ring_free(a->ring);
		free(a->slots);
		free(a);
		return NULL;
	}
	return a;
}

struct ahead_slot *
ahead_take(struct ahead *a)
{
	if (a->taken >= 0)
		ahead_done(a);
	a->taken = ring_get_begin(a->ring);
	return a->taken >= 0 ? &a->slots[a->taken] : NULL;
}

void
ahead_done(struct ahead *a)
{
	if (a->taken < 0)
		return;
	ring_get_end(a->ring);
	a->taken = -1;
}

void
ahead_free(struct ahead *a)
{
	unsigned i;

	if (a == NULL)
		return;
	ring_stop(a->ring);
	ring_thread_join(a->ring);
	ring_free(a->ring);
	for (i = 0; i < a->nslots; i++)
		free(a->slots[i].data);
	free(a->slots);
	free(a);
}
