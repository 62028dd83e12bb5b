/*
 * commitcurve.h - the outstanding commit of each process over time, as
 * etlagg vmem --timeline draws it (etl-events-2.md 4.2): each process's
 * committed pages kept in a vmem_map.h map, fed the VirtualAlloc events
 * with MEM_COMMIT, the VirtualFree events with MEM_DECOMMIT or
 * MEM_RELEASE, and the rundown's regions (committed before the trace);
 * a process's exit frees all it held.  For views that want the curve
 * but not vmem's stacks (etlagg timeline).
 *
 * Fed every record in order; the caller asks commitcurve_each() for
 * the state at an instant before feeding the first event past it.
 * Memory: a map per process of the section that committed.
 */
#ifndef COMMITCURVE_H
#define COMMITCURVE_H

#include <stdint.h>

#include "stream/stream.h"

struct commitcurve;

/* @return : NULL if out of memory. */
struct commitcurve *commitcurve_new(void);
void commitcurve_free(struct commitcurve *cc);

/* Takes in a record.  @return : 0, or -1 if out of memory. */
int commitcurve_record(struct commitcurve *cc, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * Calls fn for each process alive that has committed in the section:
 * its definition (0: not known), pid and bytes outstanding now.
 */
typedef int (*commitcurve_fn)(void *ctx, stream_id proc, uint32_t pid,
    uint64_t bytes);
int commitcurve_each(const struct commitcurve *cc, commitcurve_fn fn,
    void *ctx);

#endif
