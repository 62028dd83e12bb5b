/*
 * querysegs.c - a profile's threads as spans of their innermost query;
 * see querysegs.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "querysegs.h"

struct qseg_interval {
	int64_t start, end;
	uint32_t tid, label;
	uint64_t index;			/* the order it came in */
};

/* An open interval of the sweep. */
struct open {
	int64_t end;
	uint32_t path;
};

int
querysegs_add(struct querysegs *q, uint32_t tid, int64_t start, int64_t end,
    uint32_t label)
{
	struct qseg_interval *iv;

	if (end <= start || label == 0)
		return 0;	/* no time: nothing runs in it */
	if ((iv = array_room_grow(&q->iv, &q->ivcap, q->niv, sizeof(*iv))) ==
	    NULL)
		return -1;
	iv->start = start;
	iv->end = end;
	iv->tid = tid;
	iv->label = label;
	iv->index = q->niv++;
	return 0;
}

/* By thread, then start, the longer first, the later written first. */
static int
cmp_interval(const void *pa, const void *pb)
{
	const struct qseg_interval *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->index > b->index ? -1 : a->index < b->index;
}

/* The state of the sweep of one thread. */
struct sweep {
	struct querysegs *q;
	struct qseg_thread *t;
	struct open stack[QUERYSEGS_DEPTH];
	uint32_t labels[QUERYSEGS_DEPTH];
	size_t depth;
	int64_t cursor;
};

static int
emit(struct sweep *w, int64_t to)
{
	struct querysegs *q = w->q;
	struct qseg *s;

	if (w->depth == 0 || to <= w->cursor)
		return 0;
	s = &q->segs[q->nsegs++];
	s->from = w->cursor;
	s->to = to;
	s->path = w->stack[w->depth - 1].path;
	w->t->query_ns += (uint64_t)(to - w->cursor);
	w->cursor = to;
	return 0;
}

/* Closes the open intervals that end by `at`. */
static void
close_to(struct sweep *w, int64_t at)
{
	while (w->depth > 0 && w->stack[w->depth - 1].end <= at) {
		emit(w, w->stack[w->depth - 1].end);
		w->depth--;
	}
}

static int
open_interval(struct sweep *w, struct intern *paths,
    const struct qseg_interval *iv)
{
	int64_t start = iv->start, end = iv->end;
	uint32_t path;

	close_to(w, start);
	if (w->depth > 0 && end > w->stack[w->depth - 1].end) {
		end = w->stack[w->depth - 1].end;	/* does not nest */
		w->q->cut++;
	}
	if (w->depth == QUERYSEGS_DEPTH) {
		w->q->cut++;
		return 0;
	}
	emit(w, start);
	w->cursor = start;
	w->labels[w->depth] = iv->label;
	if ((path = intern_add(paths, w->labels, (w->depth + 1) *
	    sizeof(w->labels[0]), NULL)) == 0)
		return -1;
	w->stack[w->depth].end = end;
	w->stack[w->depth++].path = path;
	return 0;
}

int
querysegs_build(struct querysegs *q, struct intern *paths)
{
	struct sweep *w;
	struct qseg_thread *t = NULL;
	size_t i, nthreads = 0;

	free(q->segs);
	free(q->threads);
	q->segs = NULL;
	q->threads = NULL;
	q->nsegs = q->nthreads = 0;
	if (q->niv == 0)
		return 0;
	qsort(q->iv, q->niv, sizeof(*q->iv), cmp_interval);
	for (i = 0; i < q->niv; i++)
		nthreads += i == 0 || q->iv[i].tid != q->iv[i - 1].tid;
	/* Each interval ends at most two spans: one before it, one after. */
	q->segs = malloc(2 * q->niv * sizeof(*q->segs));
	q->threads = calloc(nthreads, sizeof(*q->threads));
	if ((w = calloc(1, sizeof(*w))) == NULL || q->segs == NULL ||
	    q->threads == NULL) {
		free(w);
		return -1;
	}
	w->q = q;
	for (i = 0; i < q->niv; i++) {
		if (t == NULL || q->iv[i].tid != t->tid) {
			if (t != NULL) {
				close_to(w, INT64_MAX);
				t->n = q->nsegs - t->first;
			}
			t = &q->threads[q->nthreads++];
			t->tid = q->iv[i].tid;
			t->first = q->nsegs;
			t->start = q->iv[i].start;
			t->end = q->iv[i].end;
			w->t = t;
			w->depth = 0;
		}
		if (q->iv[i].end > t->end)
			t->end = q->iv[i].end;
		if (open_interval(w, paths, &q->iv[i]) != 0) {
			free(w);
			return -1;
		}
	}
	close_to(w, INT64_MAX);
	t->n = q->nsegs - t->first;
	free(w);
	free(q->iv);
	q->iv = NULL;
	q->niv = q->ivcap = 0;
	return 0;
}

const struct qseg *
querysegs_spans(const struct querysegs *q, size_t i, size_t *n)
{
	*n = q->threads[i].n;
	return q->segs + q->threads[i].first;
}

void
querysegs_release(struct querysegs *q)
{
	free(q->iv);
	free(q->segs);
	free(q->threads);
	memset(q, 0, sizeof(*q));
}
