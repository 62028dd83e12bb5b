/*
 * vmem_map.h - the committed pages of one address space, as PerfView's
 * "Net Virtual Alloc" keeps them (etl-events-2.md 4.2): a sorted list of
 * disjoint committed ranges, each labelled with the caller's key (the
 * stack that committed it) and the time it was committed.  Free space
 * is what no range covers.
 *
 *	commit over free space		a new range: the bytes are "added"
 *	commit over committed space	the range is relabelled to the new
 *					key (the last committer owns it),
 *					keeping its commit time
 *	free (decommit or release)	the covered parts are removed, each
 *					reported to the caller with its key
 *	free over free space		nothing
 *
 * Ranges are split where an operation starts or ends inside them, so
 * partial frees and frees spanning several commits come out exact;
 * neighbours with the same key and time are joined again.
 *
 * Memory: the map owns its array; vmem_map_release() frees it.
 */
#ifndef VMEM_MAP_H
#define VMEM_MAP_H

#include <stddef.h>
#include <stdint.h>

struct vmem_range {
	uint64_t start, end;		/* [start, end) */
	int64_t commit_ns;		/* when it was committed */
	uint32_t key;
};

struct vmem_map {
	struct vmem_range *r;
	size_t n, cap;
	struct vmem_range *scratch;	/* an operation's new ranges */
	size_t scratch_cap;
	uint64_t committed;		/* bytes the ranges cover */
};

/*
 * Called for each piece of committed space an operation takes over:
 * `len` bytes of `old_key`, committed at `commit_ns`.  For a commit the
 * piece goes to the new key; for a free it goes away.
 */
typedef void vmem_piece_fn(void *ctx, uint32_t old_key, uint64_t len,
    int64_t commit_ns);

/*
 * Commits [start, end) for `key` at time `ns`; *added gets the bytes
 * that were free.  @return : 0, or -1 if out of memory (map unchanged).
 */
int vmem_map_commit(struct vmem_map *m, uint64_t start, uint64_t end,
    uint32_t key, int64_t ns, vmem_piece_fn *relabel, void *ctx,
    uint64_t *added);

/*
 * Frees [start, end); *removed gets the bytes that were committed.
 * @return : 0, or -1 if out of memory (map unchanged).
 */
int vmem_map_free(struct vmem_map *m, uint64_t start, uint64_t end,
    vmem_piece_fn *freed, void *ctx, uint64_t *removed);

/* Calls fn for every range still committed. */
void vmem_map_each(const struct vmem_map *m, vmem_piece_fn *fn, void *ctx);

void vmem_map_clear(struct vmem_map *m);
void vmem_map_release(struct vmem_map *m);

/*
 * commitcurve: the outstanding commit of each process over time, as
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
