/*
 * intern.h - gives byte strings small dense ids (1, 2, 3, ...).
 *
 * An open-addressing hash table over copies of the keys, kept in one
 * arena, so interning allocates only when the table or the arena grows.
 * Used for the stream's string and stack definitions and for event
 * classes.  The table owns its copies; a pointer from intern_key() stays
 * valid until the next intern_add() (which may move the arena),
 * intern_clear() or intern_release().
 */
#ifndef INTERN_H
#define INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
	uint64_t *slots;	/* hash << 32 | id, or 0 for empty */
	size_t nslots;
	size_t *offs;		/* offs[id]: key start in the arena */
	size_t *lens;
	uint32_t *hashes;
	uint32_t count;		/* ids handed out so far */
	size_t idcap;
	unsigned char *arena;
	size_t arena_len, arena_cap;
};

/*
 * Returns the id of the key, adding it if new; *added (if not NULL) says
 * which.  @return : the id, or 0 if out of memory.
 */
uint32_t intern_add(struct intern *t, const void *key, size_t len, int *added);

/* The id of a key already added, or 0; never adds. */
uint32_t intern_find(const struct intern *t, const void *key, size_t len);

/* The key of `id` (1..count); *len gets its length. */
const void *intern_key(const struct intern *t, uint32_t id, size_t *len);

/* Forgets every key but keeps the memory. */
void intern_clear(struct intern *t);
void intern_release(struct intern *t);

uint32_t intern_hash(const void *key, size_t len);

#endif
