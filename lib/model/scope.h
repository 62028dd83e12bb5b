/*
 * scope.h - what an etlfilter upstream cut a section to (REC_SCOPE,
 * etl-stream(5) "Scope"), for the model and the views: the time window
 * that counts, and the processes that count.  Events of other processes
 * and times that the filter kept are context: they carry the state of
 * what counts (a switch-out to a dropped thread, a commit before the
 * window), so they are read, but they make no row of their own.  This is
 * what makes `etlfilter F | etlagg V` give the rows of `etlagg V` on the
 * whole trace for what F keeps.
 *
 * Fed every record in order.  A section without SCOPE records counts
 * whole.  Memory: the lists of the section's KEPT records.
 */
#ifndef SCOPE_H
#define SCOPE_H

#include <stdint.h>

#include "stream/stream.h"

struct scope;

/* @return : NULL if out of memory. */
struct scope *scope_new(void);
void scope_free(struct scope *sc);

/* Takes in a record.  @return : 0, or -1 if out of memory. */
int scope_record(struct scope *sc, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * Narrows [*from, *to) (ns from the trace start) to the section's
 * window.
 */
void scope_window(const struct scope *sc, int64_t *from, int64_t *to);

/* Whether the section says which processes count (a KEPT record). */
int scope_limited(const struct scope *sc);

/*
 * Whether the process of PROCESS id `proc` counts; with `proc` 0, the
 * process that events of `pid` belong to (the first the section defines
 * with that pid, as etlfilter judges them), else the bare pid.
 */
int scope_keeps(const struct scope *sc, stream_id proc, uint32_t pid);

#endif
