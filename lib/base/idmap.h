/*
 * idmap.h - a hash map from 64-bit keys to 32-bit values (thread id to
 * process id, stack key to stack id, ...).  Open addressing with linear
 * probing and backward-shift deletion, so there are no tombstones.
 * The map owns its memory; zero-initialise a struct idmap to start.
 */
#ifndef IDMAP_H
#define IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	unsigned char *used;
	size_t cap, count;
};

/* @return : 0, or -1 if out of memory. */
int idmap_put(struct idmap *m, uint64_t key, uint32_t val);
/* @return : 1 and *val if present, else 0. */
int idmap_get(const struct idmap *m, uint64_t key, uint32_t *val);
void idmap_del(struct idmap *m, uint64_t key);
void idmap_release(struct idmap *m);

#endif
