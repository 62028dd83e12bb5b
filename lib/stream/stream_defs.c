/*
 * stream_defs.c - the definitions a stream reader keeps for a section,
 * and their lookup by id.
 *
 * Definitions are copied into an arena of fixed chunks, so pointers into
 * it stay put until the next HEADER starts a new section.
 *
 * Limits (etl-stream.5, LIMITS): the n-th STRING of a section has id n
 * and a text of its own, and what a section's definitions take (arena
 * and the tables by id) stays under DEF_FIXED plus DEF_RATIO times the
 * compressed bytes read, so that a small, very compressible stream, or
 * one naming id 4294967295, cannot claim gigabytes.  Other ids need not
 * be in order: a decoder hands out stack ids before it writes them.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "stream.h"
#include "stream_read_state.h"

/*
 * The compressed bytes read so far, of every input the reader was
 * opened on: a section's tables, which it keeps for the next section
 * (reader_section_reset()), may have grown on an earlier input.
 */
uint64_t
reader_input_read(const struct stream_reader *r)
{
	return r->read_before + r->in_offset + r->in.pos;
}

/*
 * Accounts `n` more bytes to the section's definitions.
 * @return : 0, or -1 if that passes the limit (over_budget set).
 */
int
reader_charge(struct stream_reader *r, size_t n)
{
	uint64_t limit = DEF_FIXED + DEF_RATIO * reader_input_read(r);

	if (r->def_bytes + n > limit || r->def_bytes + n < n) {
		r->over_budget = 1;
		return -1;
	}
	r->def_bytes += n;
	return 0;
}

void *
reader_arena_alloc(struct stream_reader *r, size_t n)
{
	struct arena_chunk *c = r->arena;

	n = (n + 7) & ~(size_t)7;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		if (reader_charge(r, sizeof(*c) + cap) != 0 ||
		    (c = malloc(sizeof(*c) + cap)) == NULL)
			return NULL;
		c->next = r->arena;
		c->used = 0;
		c->cap = cap;
		r->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

char *
reader_strndup(struct stream_reader *r, const unsigned char *s, size_t len)
{
	char *p = reader_arena_alloc(r, len + 1);

	if (p != NULL) {
		if (len > 0)
			memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

static void
arena_free(struct stream_reader *r)
{
	while (r->arena != NULL) {
		struct arena_chunk *next = r->arena->next;

		free(r->arena);
		r->arena = next;
	}
}

/* Whether `id` may name a definition; the reason set if not. */
int
reader_def_id_ok(struct stream_reader *r, uint64_t id)
{
	if (id != 0 && id <= UINT32_MAX)
		return 1;
	r->bad_why = "definition id %llu out of range (1 to %llu)";
	r->bad_id = id;
	r->bad_arg = UINT32_MAX;
	return 0;
}

/*
 * Sets definition `id`, growing the table to hold it: the limit on
 * definition bytes bounds the ids a stream may use.
 */
int
reader_deftab_set(struct stream_reader *r, struct deftab *t, uint64_t id,
    void *item)
{
	if (!reader_def_id_ok(r, id))
		return -1;
	if (id >= t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		void **items;

		while (cap <= id)
			cap *= 2;
		if (reader_charge(r, (cap - t->cap) * sizeof(*items)) != 0) {
			r->bad_why = "definition id %llu would need a table "
			    "of %llu bytes";
			r->bad_id = id;
			r->bad_arg = (uint64_t)cap * sizeof(*items);
			return -1;
		}
		if ((items = realloc(t->items, cap * sizeof(*items))) == NULL)
			return -1;
		memset(items + t->cap, 0, (cap - t->cap) * sizeof(*items));
		t->items = items;
		t->cap = cap;
	}
	t->items[id] = item;
	if (id >= t->hi)
		t->hi = id + 1;
	return 0;
}

static void
deftab_clear(struct deftab *t)
{
	/* Only what was set: a small section after a large one (a profile
	   after its trace) would clear the large one's table again. */
	if (t->items != NULL)
		memset(t->items, 0, t->hi * sizeof(*t->items));
	t->hi = 0;
}

/*
 * Adds string `id` to the set, which must be the next id and a text not
 * yet in the section (etl-stream.5: a writer passing the section through
 * hands out the same ids only then).
 * @return : 0, -1 if out of memory or over the limit, -2 if the id is not
 *	the next one, -3 if the text is there already.
 */
int
reader_strset_add(struct stream_reader *r, uint64_t id, const char *s,
    size_t len)
{
	struct strset *t = &r->strset;
	size_t mask, i;
	uint32_t *lens;

	r->bad_arg = (uint64_t)t->count + 1;
	if (id != (uint64_t)t->count + 1 || len > UINT32_MAX)
		return -2;
	if ((t->count + 1) * 2 > t->nslots) {
		size_t n = t->nslots ? t->nslots * 2 : 1024;
		uint32_t *slots;
		uint32_t k;

		if (reader_charge(r, (n - t->nslots) * sizeof(*slots)) != 0 ||
		    (slots = calloc(n, sizeof(*slots))) == NULL)
			return -1;
		free(t->slots);
		t->slots = slots;
		t->nslots = n;
		for (k = 1; k <= t->count; k++) {
			const char *ks = deftab_get(&r->strings, k);

			for (i = intern_hash(ks, t->lens[k]) & (n - 1);
			    slots[i] != 0; i = (i + 1) & (n - 1))
				continue;
			slots[i] = k;
		}
	}
	mask = t->nslots - 1;
	for (i = intern_hash(s, len) & mask; t->slots[i] != 0;
	    i = (i + 1) & mask) {
		uint32_t k = t->slots[i];

		if (t->lens[k] == len &&
		    memcmp(deftab_get(&r->strings, k), s, len) == 0) {
			r->bad_arg = k;
			return -3;
		}
	}
	if (id >= t->lencap) {
		size_t cap = t->lencap ? t->lencap * 2 : 256;

		while (cap <= id)
			cap *= 2;
		if (reader_charge(r, (cap - t->lencap) * sizeof(*lens)) != 0 ||
		    (lens = realloc(t->lens, cap * sizeof(*lens))) == NULL)
			return -1;
		t->lens = lens;
		t->lencap = cap;
	}
	t->lens[id] = (uint32_t)len;
	t->slots[i] = (uint32_t)id;
	t->count++;
	return 0;
}

/* Formats the reason a definition was refused into r->why, with ": ". */
void
reader_set_why(struct stream_reader *r)
{
	int n = snprintf(r->why, sizeof(r->why) - 2, r->bad_why,
	    (unsigned long long)r->bad_id, (unsigned long long)r->bad_arg);

	if (n > 0 && r->over_budget && (size_t)n < sizeof(r->why) - 2)
		strcat(r->why, ": ");
}

/*
 * Empties the set of texts: slot by slot when the section used few of
 * them (a profile after a trace whose strings made the set large), all
 * at once else.  Strings must still be the section's.
 */
static void
strset_clear(struct stream_reader *r)
{
	struct strset *t = &r->strset;
	size_t i, mask = t->nslots - 1;
	uint32_t k;

	if (t->slots == NULL)
		return;
	if (t->count * 16 >= t->nslots)
		memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	else
		for (k = 1; k <= t->count; k++) {
			i = intern_hash(deftab_get(&r->strings, k),
			    t->lens[k]) & mask;
			while (t->slots[i] != k)
				i = (i + 1) & mask;
			t->slots[i] = 0;
		}
	t->count = 0;
}

void
reader_section_reset(struct stream_reader *r)
{
	strset_clear(r);	/* before the strings' texts are freed */
	arena_free(r);
	/* The tables keep their size; what they take stays accounted. */
	r->def_bytes = (r->strings.cap + r->classes.cap + r->processes.cap +
	    r->threads.cap + r->images.cap + r->stacks.cap + r->schemas.cap) *
	    sizeof(void *) +
	    r->strset.nslots * sizeof(uint32_t) +
	    r->strset.lencap * sizeof(uint32_t);
	r->over_budget = 0;
	deftab_clear(&r->strings);
	deftab_clear(&r->classes);
	deftab_clear(&r->processes);
	deftab_clear(&r->threads);
	deftab_clear(&r->images);
	deftab_clear(&r->stacks);
	deftab_clear(&r->schemas);
	r->nschemas = 0;
	r->last_ts = 0;
	idmap_release(&r->pids);
	r->pids_version++;
	r->trace = NULL;
}

const char *
stream_string(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->strings, id);
}

const struct stream_class *
stream_class(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->classes, id);
}

const struct stream_process *
stream_process(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->processes, id);
}

const struct stream_thread *
stream_thread(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->threads, id);
}

const struct stream_image *
stream_image(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->images, id);
}

const struct stream_stack *
stream_stack(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->stacks, id);
}

const struct stream_schema *
stream_schema(const struct stream_reader *r, stream_id id)
{
	return deftab_get(&r->schemas, id);
}

/*
 * Appends the frames of `id` at out[n..cap).  A stack's parts may share
 * parts of their own, so a bad chain could fan out twice a level: depth
 * and the number of parts visited (*visits) are bounded.
 */
static long
collect_frames(const struct stream_reader *r, stream_id id, uint64_t *out,
    size_t cap, long n, int depth, unsigned *visits)
{
	const struct stream_stack *s = stream_stack(r, id);
	uint32_t i;

	if (s == NULL || depth > 64 || ++*visits > STACK_VISITS)
		return -1;
	if (s->head != 0 && (n = collect_frames(r, s->head, out, cap, n,
	    depth + 1, visits)) < 0)
		return -1;
	for (i = 0; i < s->nframes && (size_t)n < cap; i++)
		out[n++] = s->frames[i];
	if (s->next != 0)
		n = collect_frames(r, s->next, out, cap, n, depth + 1, visits);
	return n;
}

static int
undefined(const struct stream_reader *r, stream_id id, int depth)
{
	const struct stream_stack *s = stream_stack(r, id);

	if (s == NULL || s->unresolved || depth > 64)
		return 1;
	return (s->head != 0 && undefined(r, s->head, depth + 1)) ||
	    (s->next != 0 && undefined(r, s->next, depth + 1));
}

int
stream_stack_undefined(const struct stream_reader *r, stream_id id)
{
	return undefined(r, id, 0);
}

long
stream_stack_frames(const struct stream_reader *r, stream_id id,
    uint64_t *out, size_t cap)
{
	unsigned visits = 0;

	return collect_frames(r, id, out, cap, 0, 0, &visits);
}

const struct stream_trace *
stream_current_trace(const struct stream_reader *r)
{
	return r->trace;
}

const struct stream_process *
stream_process_by_pid(const struct stream_reader *r, uint32_t pid)
{
	uint32_t id;

	return idmap_get(&r->pids, pid, &id) ? stream_process(r, id) : NULL;
}

uint64_t
stream_pids_version(const struct stream_reader *r)
{
	return r->pids_version;
}
