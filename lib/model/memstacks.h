/*
 * memstacks.h - byte counts by allocation stack, for the memory views
 * (vmem, heap, heapsnap): what view_cpu does for samples, with a vector
 * of signed weights in place of a sample count.
 *
 * A view asks for the key of (process, stack) of each allocation and
 * adds to its weights (memstacks_weight()).  Stacks may be defined after
 * the events that use them, so keys are named when the section ends
 * (memstacks_end_section(), at REC_END or in finish): each becomes a
 * path of frame names, root first, whose root is the process's image
 * name (as cpu --by stack roots them), or its instance as proclabel.h
 * names those of the section (the views' --instances), and equal paths
 * add up.  Frames
 * are named by frames.h; a key without a stack is [no stack], one whose
 * stack the source never defined is [stack not defined], and a view may
 * put a pseudo frame of its own after the root ([committed before the
 * trace]).
 *
 * Rows: by stack, one a path; by function or module, one a frame or
 * module, each weight summed over the paths through it, a path counted
 * once however often the frame recurs in it (inclusive, as WPA's
 * stack trees show commit).
 *
 * Memory: the module copies what it keeps; row pointers stay valid until
 * the next call.
 */
#ifndef MEMSTACKS_H
#define MEMSTACKS_H

#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"

#define MEMW_MAX	10	/* weights a key holds */

struct memw {
	int64_t v[MEMW_MAX];
};

/*
 * Adds to (takes from) a weight modulo 2^64: sizes come from the input,
 * and a hostile one must not overflow a signed sum.
 */
static inline void
memw_add(int64_t *w, uint64_t x)
{
	*w = (int64_t)((uint64_t)*w + x);
}

static inline void
memw_sub(int64_t *w, uint64_t x)
{
	*w = (int64_t)((uint64_t)*w - x);
}

enum memstacks_by {
	MS_BY_STACK, MS_BY_FUNCTION, MS_BY_MODULE
};

struct memstacks;

/* @return : NULL if out of memory. */
struct memstacks *memstacks_new(unsigned frames_flags);
void memstacks_free(struct memstacks *ms);

/*
 * Roots the paths at the process instances, "serde (4242)", rather than
 * at their images: the label of a key's instance is decided when its
 * section ends, over every process the section defines.
 */
void memstacks_root_instances(struct memstacks *ms);

/* Takes note of images and sections.  @return : 0, or -1 (no memory). */
int memstacks_record(struct memstacks *ms, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * The key of an allocation by stack `stack` (0: none) of a process whose
 * image is `root` and definition `def` (NULL: none; then the image is
 * the root with instances too), with `pseudo` (NULL: none) as the first
 * frame after the root.  @return : a key > 0, or 0 if out of memory.
 * Keys live until memstacks_end_section().
 */
uint32_t memstacks_key(struct memstacks *ms, const char *root,
    size_t rootlen, const struct stream_process *def, stream_id stack,
    const char *pseudo);

/* The weights of a key; NULL if out of memory. */
struct memw *memstacks_weight(struct memstacks *ms, uint32_t key);

/*
 * Names the keys of the section and adds their weights to their paths
 * (r may be NULL when the section was cut: its stacks are then not
 * defined).  @return : 0, or -1 if out of memory.
 */
int memstacks_end_section(struct memstacks *ms,
    const struct stream_reader *r);

/* Sets every weight, of keys and paths, to zero. */
void memstacks_reset(struct memstacks *ms);

/* Stacks counted as [stack not defined]. */
uint64_t memstacks_undefined(const struct memstacks *ms);

/*
 * The rows of `by`: *n rows, row i with the key text key[i] (frames
 * joined by ';', or the function or module name), for functions
 * module[i] (NULL if none), and weights w[i].  @return : 0, or -1 if out
 * of memory.  The arrays are the module's, valid until the next call.
 */
struct memstacks_rows {
	size_t n;
	const char **key;
	size_t *keylen;
	const char **module;
	size_t *modlen;
	const struct memw **w;
};
int memstacks_rows(struct memstacks *ms, enum memstacks_by by,
    struct memstacks_rows *rows);

/* "stack", "function", "module": the --by names; -1 if none. */
int memstacks_parse_by(const char *arg);

#endif
