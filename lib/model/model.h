/*
 * model.h - what the views of one stream share: the stream rebuilt once.
 *
 * Every view of a `+` chain that reads the same records (etlagg's views
 * without filters, or those behind the same filter link) asks one model
 * for the parts it needs, and the model brings each part up to date once
 * a record, however many views read it.  So the processes, and the
 * frames of a set of flags, are rebuilt once per stream, not once per
 * view; and so is the schedule of threads of a window.
 *
 * Parts are made on first use.  A view whose options change what a part
 * holds (one that merges tables into it, or leaves records out of it)
 * keeps a part of its own and feeds it itself, in the same order.
 *
 * The order: the model sees a record before the views, but a HEADER
 * after them.  A HEADER ends the section before it, and views close
 * that section (name its stacks, end its processes) with the model
 * still holding it; the model then starts the new section.
 */
#ifndef MODEL_H
#define MODEL_H

#include "stream/stream.h"

#include <stdint.h>

struct model;
struct proctab;
struct frames;
struct sched;

/* @return : NULL if out of memory. */
struct model *model_new(void);
void model_free(struct model *m);

/* The processes of the stream (proctab.h).  NULL if out of memory. */
struct proctab *model_proctab(struct model *m);

/*
 * The frames of the stream, named with `flags` (frames.h); one part for
 * each set of flags asked for.  NULL if out of memory.
 */
struct frames *model_frames(struct model *m, unsigned flags);

/*
 * The schedule of the stream's threads in the window [from, to) (in ns
 * from the trace's start; INT64_MIN and INT64_MAX: none), sched.h: one
 * part for each window.  A view takes its switches or spans with
 * sched_add_switches() or sched_add_spans().  NULL if out of memory.
 */
struct sched *model_sched(struct model *m, int64_t from, int64_t to);

/*
 * Brings the parts made so far up to date with a record: for a view
 * that feeds a model of its own, at the place in its record() where it
 * would feed the parts.  @return : 0, or -1 if out of memory.
 */
int model_record(struct model *m, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * The same for a model that views share, called around the views of a
 * record: model_before() takes every record but a HEADER, which
 * model_after() takes.  A NULL model (no views to share it) takes none.
 */
int model_before(struct model *m, const struct stream_reader *r,
    const struct stream_record *rec);
int model_after(struct model *m, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * The stream has ended: closes what it left open (a section cut short
 * has no END), before any view writes its tables, so that no view's
 * finish() changes what another's reads.  Nothing for a NULL model.
 */
void model_close(struct model *m);

#endif
