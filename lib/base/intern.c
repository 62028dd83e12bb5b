/*
 * intern.c - open addressing with linear probing; keys live in an arena.
 *
 * A slot holds the key's hash beside its id, so that a probe that does
 * not match is told by the slot alone: the stack table outgrows the
 * cache, and each array touched on the way was a miss.
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"

static inline uint64_t
mix_word(uint64_t h, const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	h = (h ^ w) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

uint32_t
intern_hash(const void *key, size_t len)
{
	/*
	 * FNV-1a-like over 8-byte words, folded; four lanes for long keys
	 * (stacks of a few hundred bytes), since one lane waits on its
	 * multiply at every word.
	 */
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i = 0;

	if (len >= 32) {
		uint64_t a = h, b = h ^ 0x9e3779b97f4a7c15ULL,
		    c = h ^ 0xc2b2ae3d27d4eb4fULL, d = h ^ 0x165667b19e3779f9ULL;

		for (; i + 32 <= len; i += 32) {
			a = mix_word(a, p + i);
			b = mix_word(b, p + i + 8);
			c = mix_word(c, p + i + 16);
			d = mix_word(d, p + i + 24);
		}
		h = ((a * 31 + b) * 31 + c) * 31 + d;
		h ^= len;
	}
	for (; i + 8 <= len; i += 8)
		h = mix_word(h, p + i);
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 32;
	return (uint32_t)h;
}

#define SLOT_ID(s)	((uint32_t)(s))
#define SLOT_HASH(s)	((uint32_t)((s) >> 32))
#define SLOT(id, hash)	((uint64_t)(hash) << 32 | (id))

static int
key_equal(const struct intern *t, uint64_t slot, const void *key, size_t len,
    uint32_t hash)
{
	uint32_t id = SLOT_ID(slot);

	return SLOT_HASH(slot) == hash && t->lens[id] == len &&
	    memcmp(t->arena + t->offs[id], key, len) == 0;
}

static int
grow_slots(struct intern *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	uint64_t *slots = calloc(n, sizeof(*slots));
	uint32_t id;

	if (slots == NULL)
		return -1;
	for (id = 1; id <= t->count; id++) {
		size_t i = t->hashes[id] & (n - 1);

		while (slots[i] != 0)
			i = (i + 1) & (n - 1);
		slots[i] = SLOT(id, t->hashes[id]);
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

static int
grow_ids(struct intern *t)
{
	size_t n = t->idcap ? t->idcap * 2 : 1024;
	size_t *offs = realloc(t->offs, n * sizeof(*offs));
	size_t *lens;
	uint32_t *hashes;

	if (offs == NULL)
		return -1;
	t->offs = offs;
	if ((lens = realloc(t->lens, n * sizeof(*lens))) == NULL)
		return -1;
	t->lens = lens;
	if ((hashes = realloc(t->hashes, n * sizeof(*hashes))) == NULL)
		return -1;
	t->hashes = hashes;
	t->idcap = n;
	return 0;
}

/* Allocates even for an empty first key: no key points at NULL. */
static int
arena_append(struct intern *t, const void *key, size_t len)
{
	if (t->arena_cap - t->arena_len < len || t->arena == NULL) {
		size_t cap = t->arena_cap ? t->arena_cap : 65536;
		unsigned char *a;

		while (cap - t->arena_len < len)
			cap *= 2;
		if ((a = realloc(t->arena, cap)) == NULL)
			return -1;
		t->arena = a;
		t->arena_cap = cap;
	}
	if (len > 0)
		memcpy(t->arena + t->arena_len, key, len);
	t->arena_len += len;
	return 0;
}

uint32_t
intern_add(struct intern *t, const void *key, size_t len, int *added)
{
	uint32_t hash = intern_hash(key, len), id;
	size_t i;

	if (added != NULL)
		*added = 0;
	/* Keep the load factor under one half. */
	if ((t->count + 1) * 2 > t->nslots && grow_slots(t) != 0)
		return 0;
	for (i = hash & (t->nslots - 1); t->slots[i] != 0;
	    i = (i + 1) & (t->nslots - 1))
		if (key_equal(t, t->slots[i], key, len, hash))
			return SLOT_ID(t->slots[i]);
	if (t->count + 2 > t->idcap && grow_ids(t) != 0)
		return 0;
	id = t->count + 1;
	t->offs[id] = t->arena_len;
	if (arena_append(t, key, len) != 0)
		return 0;
	t->lens[id] = len;
	t->hashes[id] = hash;
	t->count = id;
	t->slots[i] = SLOT(id, hash);
	if (added != NULL)
		*added = 1;
	return id;
}

uint32_t
intern_find(const struct intern *t, const void *key, size_t len)
{
	uint32_t hash;
	size_t i;

	if (t->nslots == 0)
		return 0;
	hash = intern_hash(key, len);
	for (i = hash & (t->nslots - 1); t->slots[i] != 0;
	    i = (i + 1) & (t->nslots - 1))
		if (key_equal(t, t->slots[i], key, len, hash))
			return SLOT_ID(t->slots[i]);
	return 0;
}

const void *
intern_key(const struct intern *t, uint32_t id, size_t *len)
{
	if (id == 0 || id > t->count)
		return NULL;
	*len = t->lens[id];
	return t->arena + t->offs[id];
}

void
intern_clear(struct intern *t)
{
	if (t->slots != NULL)
		memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	t->count = 0;
	t->arena_len = 0;
}

void
intern_release(struct intern *t)
{
	free(t->slots);
	free(t->offs);
	free(t->lens);
	free(t->hashes);
	free(t->arena);
	memset(t, 0, sizeof(*t));
}
