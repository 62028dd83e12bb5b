/*
 * idmap.c - see idmap.h.
 */
#include <stdlib.h>

#include "idmap.h"

static size_t
slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int
grow(struct idmap *m)
{
	struct idmap n = { 0 };
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 256;
	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = malloc(n.cap * sizeof(*n.vals));
	n.used = calloc(n.cap, 1);
	if (n.keys == NULL || n.vals == NULL || n.used == NULL) {
		idmap_release(&n);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->used[i])
			idmap_put(&n, m->keys[i], m->vals[i]);
	idmap_release(m);
	*m = n;
	return 0;
}

int
idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->count + 1) * 4 > m->cap * 3 && grow(m) != 0)
		return -1;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return 0;
}

int
idmap_get(const struct idmap *m, uint64_t key, uint32_t *val)
{
	size_t i;

	if (m->cap == 0)
		return 0;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return 1;
		}
	return 0;
}

void
idmap_del(struct idmap *m, uint64_t key)
{
	size_t i, j;

	if (m->cap == 0)
		return;
	for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (!m->used[i])
		return;
	/* Shift later members of the cluster back into the hole. */
	for (j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m->keys[j], m->cap);

		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->count--;
}

void
idmap_release(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = NULL;
	m->vals = NULL;
	m->used = NULL;
	m->cap = m->count = 0;
}
