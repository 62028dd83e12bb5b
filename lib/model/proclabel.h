/*
 * proclabel.h - the names process instances go by in labels: the
 * legend of a chart, the frame of a process in a flame graph, the
 * thread of a wait.
 *
 * A set of instances is named together (a table's, or a section's): a
 * rustc that compiles a crate is "crate (pid)", the crate taken from its
 * command line (proctab_crate()); any other process "image (pid)".  When
 * two instances of the set would have the same name (a pid reused by
 * the same program, or by two rustcs of one crate), each of them gets
 * its start, "image (pid @0.396125s)", or "image (pid, before the trace)",
 * so that no two instances of a set share a label, and a view that keys
 * its rows by label keeps the instances apart.
 *
 * An instance is its pid and start: adding the same pair again gives
 * the same id, its first image and command line kept.
 *
 * Memory: the set copies what it keeps; a label from proclabels_get()
 * is valid until the next call on the set.  A zeroed struct is an empty
 * set; proclabels_release() frees it.
 */
#ifndef PROCLABEL_H
#define PROCLABEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"
#include "stream/stream.h"

#define PROCLABEL_MAX	320	/* bytes of a label, the NUL counted */

struct proclabels {
	struct intern inst;		/* (pid, start) -> instance id */
	struct intern names;		/* "name (pid)" -> name id */
	uint32_t *name_of;		/* by instance id */
	size_t name_cap;
	uint32_t *count;		/* instances by name id */
	size_t count_cap;
	char text[PROCLABEL_MAX];
};

/*
 * Adds the instance of `pid` started at `start_ns` (INT64_MIN: before
 * the trace), of `image` run with `cmdline` (ilen and clen bytes; either
 * may be NULL).  @return : its id (1, 2, ...), or 0 if out of memory.
 */
uint32_t proclabels_add(struct proclabels *pl, uint32_t pid,
    int64_t start_ns, const char *image, size_t ilen, const char *cmdline,
    size_t clen);

/*
 * Adds the instance a PROCESS definition describes: its pid, start,
 * name and command line; with `p` NULL, the instance of `pid` started at
 * `start_ns` of `image` (the name a thread knew it by; NULL: "?").
 * @return : its id, or 0 if out of memory.
 */
uint32_t proclabels_add_def(struct proclabels *pl,
    const struct stream_process *p, uint32_t pid, int64_t start_ns,
    const char *image);

/*
 * The label of instance `id`, NUL-terminated; *len (if not NULL) gets its
 * length.  "?" for an id the set did not give.
 */
const char *proclabels_get(struct proclabels *pl, uint32_t id,
    size_t *len);

/* Forgets every instance, keeping the memory. */
void proclabels_clear(struct proclabels *pl);

/*
 * A view's set of a section, told every record: a HEADER empties it, and
 * each PROCESS definition goes in, so that whether two instances share
 * a name is decided over every process the section defines, the same
 * after a filter (which passes every definition on) as before it.
 * @return : 0, or -1 if out of memory.
 */
int proclabels_record(struct proclabels *pl, const struct stream_record *rec);
void proclabels_release(struct proclabels *pl);

#endif
