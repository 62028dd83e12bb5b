/*
 * model.c - the parts of a stream that views share, each fed once a
 * record (model.h).
 */
#include <stdlib.h>

#include "stream/frames.h"

#include "model.h"
#include "proctab.h"
#include "sched.h"

/* Sets of frame flags, and windows, views ask for: few (their options). */
#define FRAME_SETS	8
#define WINDOWS		8

struct model {
	struct proctab *pt;
	struct frames *frames[FRAME_SETS];
	unsigned frame_flags[FRAME_SETS];
	int nframes;
	struct sched *scheds[WINDOWS];	/* one a window */
	int nscheds;
};

struct model *
model_new(void)
{
	return calloc(1, sizeof(struct model));
}

void
model_free(struct model *m)
{
	int i;

	if (m == NULL)
		return;
	proctab_free(m->pt);
	for (i = 0; i < m->nframes; i++)
		frames_free(m->frames[i]);
	for (i = 0; i < m->nscheds; i++)
		sched_free(m->scheds[i]);
	free(m);
}

struct proctab *
model_proctab(struct model *m)
{
	if (m->pt == NULL)
		m->pt = proctab_new();
	return m->pt;
}

struct frames *
model_frames(struct model *m, unsigned flags)
{
	int i;

	for (i = 0; i < m->nframes; i++)
		if (m->frame_flags[i] == flags)
			return m->frames[i];
	if (m->nframes == FRAME_SETS ||
	    (m->frames[m->nframes] = frames_new(flags)) == NULL)
		return NULL;
	m->frame_flags[m->nframes] = flags;
	return m->frames[m->nframes++];
}

struct sched *
model_sched(struct model *m, int64_t from, int64_t to)
{
	int64_t f, t;
	int i;

	for (i = 0; i < m->nscheds; i++) {
		sched_window_of(m->scheds[i], &f, &t);
		if (f == from && t == to)
			return m->scheds[i];
	}
	if (m->nscheds == WINDOWS ||
	    (m->scheds[m->nscheds] = sched_new()) == NULL)
		return NULL;
	sched_set_window(m->scheds[m->nscheds], from, to);
	return m->scheds[m->nscheds++];
}

int
model_record(struct model *m, const struct stream_reader *r,
    const struct stream_record *rec)
{
	int i;

	if (m->pt != NULL && proctab_record(m->pt, r, rec) != 0)
		return -1;
	for (i = 0; i < m->nframes; i++)
		if (frames_record(m->frames[i], r, rec) != 0)
			return -1;
	/* After the frames: a view may name a switch's stack at once. */
	for (i = 0; i < m->nscheds; i++)
		if (sched_record(m->scheds[i], r, rec) != 0)
			return -1;
	return 0;
}

void
model_close(struct model *m)
{
	int i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nscheds; i++)
		sched_close(m->scheds[i]);
}

int
model_before(struct model *m, const struct stream_reader *r,
    const struct stream_record *rec)
{
	return m == NULL || rec->type == REC_HEADER ? 0 :
	    model_record(m, r, rec);
}

int
model_after(struct model *m, const struct stream_reader *r,
    const struct stream_record *rec)
{
	return m != NULL && rec->type == REC_HEADER ?
	    model_record(m, r, rec) : 0;
}
