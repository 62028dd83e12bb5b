/*
 * etw_stacks.c - stacks (etl-format.md 5.6): stack walks, cached stack
 * keys and their definitions, and stacks in EVENT_HEADER extended items,
 * interned as REC_STACK and attached to the queued events that own them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_state.h"

static stream_id
new_stack_id(struct etw_decoder *d)
{
	return ++d->next_stack;
}

/*
 * The id of the join of head, the first n frames of d->key and next,
 * defining it on first use.
 */
static stream_id
intern_frames(struct etw_decoder *d, stream_id head, uint32_t n,
    stream_id next)
{
	const uint64_t *frames = d->key.frames;
	int added;
	uint32_t iid;

	_Static_assert(offsetof(struct stack_key, frames) == 8,
	    "a stack key is two ids and the frames");
	d->key.head = head;
	d->key.next = next;
	iid = intern_add(&d->stacks, &d->key, 8 + (size_t)n * 8, &added);
	if (iid == 0 || etw_grow_ids(&d->stack_ids, &d->stack_ids_cap, iid) != 0)
		return 0;
	if (added) {
		struct stream_stack s = { .id = new_stack_id(d), .head = head,
		    .next = next, .nframes = n, .frames = frames };

		d->stack_ids[iid] = s.id;
		if (stream_write_stack(d->w, &s) != 0)
			d->failed = 1;
	}
	return d->stack_ids[iid];
}

/* Defines a promised id as the join of head and next. */
static void
define_join(struct etw_decoder *d, stream_id id, stream_id head,
    stream_id next, int unresolved)
{
	struct stream_stack s = { .id = id, .head = head, .next = next,
	    .unresolved = (uint8_t)unresolved };

	if (stream_write_stack(d->w, &s) != 0)
		d->failed = 1;
}

static uint32_t
load_frames(struct etw_decoder *d, const unsigned char *raw, uint32_t n,
    int ptr_size)
{
	uint32_t i;

	if (n > STREAM_STACK_MAX)
		n = STREAM_STACK_MAX;
	if (ptr_size == 8)
		for (i = 0; i < n; i++)
			d->key.frames[i] = le64(raw + (size_t)i * 8);
	else
		for (i = 0; i < n; i++)
			d->key.frames[i] = le32(raw + (size_t)i * 4);
	return n;
}

/*
 * Drops the threads that await nothing, so that the table holds the
 * threads awaiting a user part now, not every thread the trace ever had
 * (a build of thousands of processes grew it by 15 MB a GiB of trace).
 * @return : 0, or -1 if out of memory.
 */
static int
pending_compact(struct etw_decoder *d)
{
	size_t i, n = 0;

	idmap_release(&d->pending_index);
	memset(&d->pending_index, 0, sizeof(d->pending_index));
	for (i = 0; i < d->npending; i++) {
		if (d->pending[i].n == 0)
			continue;
		if (n != i)
			d->pending[n] = d->pending[i];
		if (idmap_put(&d->pending_index, d->pending[n].tid,
		    (uint32_t)n) != 0)
			return -1;
		n++;
	}
	d->npending = n;
	return 0;
}

static struct thread_pending *
pending_of(struct etw_decoder *d, uint32_t tid, int create)
{
	uint32_t i;
	int full = d->npending == d->pending_cap;

	if (idmap_get(&d->pending_index, tid, &i))
		return &d->pending[i];
	if (!create)
		return NULL;
	/* Full: compacted first, grown only if it stays half full. */
	if (full && d->pending_cap > 0 && pending_compact(d) != 0)
		return NULL;
	if (full && (d->pending_cap == 0 ||
	    d->npending * 2 > d->pending_cap)) {
		size_t cap = d->pending_cap ? d->pending_cap * 2 : 64;
		struct thread_pending *p = realloc(d->pending, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		d->pending = p;
		d->pending_cap = cap;
	}
	if (idmap_put(&d->pending_index, tid, (uint32_t)d->npending) != 0)
		return NULL;
	d->pending[d->npending].tid = tid;
	d->pending[d->npending].n = 0;
	return &d->pending[d->npending++];
}

/*
 * Completes a kernel-only stack with its user part (0: none came).  The
 * joined stack is interned, so samples with the same two parts share it;
 * an event still in the queue gets its id directly, and only one already
 * written needs its promised id defined.
 */
static void
complete_pending(struct etw_decoder *d, const struct pending_stack *ps,
    stream_id user)
{
	stream_id full = ps->kernel;
	struct qentry *e = &d->q[ps->slot];

	if (user != 0)
		full = intern_frames(d, ps->kernel, 0, user);
	if (e->seq == ps->seq)
		stream_event_set_stack(d->ring + e->off, full);
	else
		define_join(d, ps->id, full, 0, 0);
}

/*
 * A user part arrived on `tid`: complete every kernel-only stack there.
 * @return : how many it completed.
 */
static uint32_t
resolve_pending(struct etw_decoder *d, uint32_t tid, stream_id user)
{
	struct thread_pending *tp = pending_of(d, tid, 0);
	uint32_t i, n;

	if (tp == NULL)
		return 0;
	for (i = 0; i < tp->n; i++)
		complete_pending(d, &tp->s[i], user);
	n = tp->n;
	tp->n = 0;
	return n;
}

/*
 * Promises the queued `owner` a stack made of `kernel` and a user part to
 * come.  @return : the id to give it for now.
 */
static stream_id
await_user_part(struct etw_decoder *d, uint32_t tid, stream_id kernel,
    const struct qentry *owner)
{
	struct thread_pending *tp = pending_of(d, tid, 1);
	struct pending_stack *ps;

	if (tp == NULL)
		return kernel;
	if (tp->n == PENDING_MAX) {
		/* The oldest waited long enough: it stays kernel-only. */
		complete_pending(d, &tp->s[0], 0);
		memmove(tp->s, tp->s + 1, (PENDING_MAX - 1) * sizeof(tp->s[0]));
		tp->n--;
	}
	ps = &tp->s[tp->n++];
	ps->id = new_stack_id(d);
	ps->kernel = kernel;
	ps->seq = owner->seq;
	ps->slot = (uint32_t)(owner - d->q);
	return ps->id;
}

/*
 * The queued event that owns a stack walk for time `ts` on thread `tid`
 * logged on `cpu` (5.6 steps 1 to 3), or NULL.  Of several on the thread
 * (idle samples: thread 0 runs on every processor) the one on the walk's
 * own processor wins.  An event whose thread the decoder guessed counts
 * as one without a thread id too.
 */
static struct qentry *
find_owner(struct etw_decoder *d, uint64_t ts, uint32_t tid, uint16_t cpu)
{
	struct qentry *same_tid = NULL, *same_cpu = NULL;
	size_t i;

	for (i = d->qcount; i-- > 0;) {
		struct qentry *e = &d->q[(d->qhead + i) % QUEUE_SLOTS];

		if (e->ts < ts)
			break;
		if (e->ts != ts || !e->stackable)
			continue;
		if (e->tid == tid && e->cpu == cpu)
			return e;
		if (e->tid == tid && same_tid == NULL)
			same_tid = e;
		if ((e->tid == ETL_NO_ID || e->tid_guessed) && e->cpu == cpu &&
		    same_cpu == NULL)
			same_cpu = e;
	}
	return same_tid != NULL ? same_tid : same_cpu;
}

static void
give_stack(struct etw_decoder *d, struct qentry *owner, stream_id id)
{
	stream_event_set_stack(d->ring + owner->off, id);
	owner->has_stack = 1;
	if (owner->sample)
		d->sample_stacks = 1;
	d->stats.stacks_attached++;
}

/* ---- walks before their events (compact CSwitch, 2.4) ---- */

static uint64_t
unowned_key(uint64_t ts, uint32_t tid)
{
	return ts << 20 ^ ts >> 44 ^ tid;
}

/* Whether ring slot `slot` holds a kept walk (not one overwritten). */
static int
unowned_live(const struct etw_decoder *d, size_t slot)
{
	return (slot + UNOWNED_MAX - d->unowned_head) % UNOWNED_MAX <
	    d->unowned_count;
}

/*
 * Keeps a walk that found no event: a compact batch, logged later, may
 * hold its switch.  The oldest kept walk, when there is no room, and
 * those left at the end join nothing and are counted.
 */
static void
keep_unowned(struct etw_decoder *d, uint64_t ts, uint32_t tid,
    stream_id id, int kernel_only)
{
	uint64_t key = unowned_key(ts, tid);
	struct unowned_walk *u;
	uint32_t newest = 0, slot;

	if (d->unowned == NULL &&
	    (d->unowned = calloc(UNOWNED_MAX, sizeof(*d->unowned))) == NULL) {
		d->stats.stacks_orphaned++;
		return;
	}
	if (d->unowned_count == UNOWNED_MAX) {
		u = &d->unowned[d->unowned_head];
		if (u->id != 0)
			d->stats.stacks_orphaned++;
		if (idmap_get(&d->unowned_index, unowned_key(u->ts, u->tid),
		    &slot) && slot == d->unowned_head + 1)
			idmap_del(&d->unowned_index, unowned_key(u->ts,
			    u->tid));
		d->unowned_head = (d->unowned_head + 1) % UNOWNED_MAX;
		d->unowned_count--;
	}
	slot = (uint32_t)((d->unowned_head + d->unowned_count++) %
	    UNOWNED_MAX);
	u = &d->unowned[slot];
	idmap_get(&d->unowned_index, key, &newest);
	u->ts = ts;
	u->tid = tid;
	u->id = id;
	u->kernel_only = (uint8_t)kernel_only;
	u->prev = newest != 0 && unowned_live(d, newest - 1) ? newest : 0;
	if (idmap_put(&d->unowned_index, key, slot + 1) != 0)
		d->failed = 1;
}

/*
 * The stack of the event at (ts, tid) from the walks kept for it: the
 * kernel part joined to the user part, or the one there is.
 * @return : its id, or 0 if none was kept.
 */
stream_id
etw_take_unowned_walk(struct etw_decoder *d, uint64_t ts, uint32_t tid)
{
	stream_id kernel = 0, user = 0;
	uint32_t slot = 0;
	int hops = 0;

	if (d->unowned == NULL)
		return 0;
	idmap_get(&d->unowned_index, unowned_key(ts, tid), &slot);
	while (slot != 0 && unowned_live(d, slot - 1) && hops++ < 8) {
		struct unowned_walk *u = &d->unowned[slot - 1];

		if (u->ts == ts && u->tid == tid && u->id != 0 &&
		    (u->kernel_only ? kernel : user) == 0) {
			*(u->kernel_only ? &kernel : &user) = u->id;
			u->id = 0;
			d->stats.stacks_attached++;
		}
		slot = u->prev;
	}
	if (kernel != 0 && user != 0)
		return intern_frames(d, kernel, 0, user);
	return kernel != 0 ? kernel : user;
}

/*
 * Thread `tid` has ended: the user parts its kernel-only stacks await
 * will not come (a thread that ends does not return to user mode), so
 * they are completed kernel-only now, as at the trace's end.  Neither
 * does a later thread that reuses the id join its user part to them, nor
 * the table keep every thread the trace had.
 */
void
etw_thread_ended(struct etw_decoder *d, uint32_t tid, int ended)
{
	if (!ended) {
		idmap_del(&d->ended, tid);
		return;
	}
	(void)resolve_pending(d, tid, 0);
	(void)idmap_put(&d->ended, tid, 1);	/* out of memory: it awaits */
}

/* Whether a kernel-only walk of thread `tid` may await its user part. */
static int
may_await(struct etw_decoder *d, uint32_t tid)
{
	uint32_t yes;

	/* The idle thread never returns to user mode: no part will come. */
	if (tid == 0)
		return 0;
	if (d->ended.count == 0 || !idmap_get(&d->ended, tid, &yes))
		return 1;
	idmap_del(&d->ended, tid);
	return 0;
}

/*
 * Attaches a stack part with id `part` for (ts, tid) to its owner.
 * `kernel_only` says whether it is a kernel fragment awaiting a user part;
 * a user part also completes the thread's kernel fragments (step 4).
 */
static void
attach_stack(struct etw_decoder *d, uint64_t ts, uint32_t tid, uint16_t cpu,
    stream_id part, int kernel_only)
{
	struct qentry *owner = find_owner(d, ts, tid, cpu);
	uint32_t completed = kernel_only ? 0 : resolve_pending(d, tid, part);

	if (owner == NULL) {
		/* Kept for an event still to come, else counted. */
		if (completed == 0)
			keep_unowned(d, ts, tid, part, kernel_only);
		return;
	}
	if (owner->has_stack)
		return;		/* its user part, already joined above */
	give_stack(d, owner, kernel_only && may_await(d, tid) ?
	    await_user_part(d, tid, part, owner) : part);
}

void
etw_on_stack_walk(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k)
{
	uint32_t n = load_frames(d, k->u.stack.frames, k->u.stack.nframes,
	    ev->ptr_size);
	stream_id id;
	int kernel_only;

	if (n == 0)
		return;
	kernel_only = etw_kernel_address(d->key.frames[n - 1], ev->ptr_size);
	if ((id = intern_frames(d, 0, n, 0)) != 0)
		attach_stack(d, k->u.stack.event_ts, k->u.stack.tid, ev->cpu, id,
		    kernel_only);
}

void
etw_on_stack_key(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k)
{
	struct idmap *keys = k->u.stack.user ? &d->user_keys : &d->kernel_keys;
	uint32_t id;

	/* The key's frames come later; promise an id per key lifetime. */
	if (!idmap_get(keys, k->u.stack.key, &id)) {
		id = new_stack_id(d);
		idmap_put(keys, k->u.stack.key, id);
	}
	attach_stack(d, k->u.stack.event_ts, k->u.stack.tid, ev->cpu, id,
	    !k->u.stack.user);
}

void
etw_on_key_definition(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k)
{
	uint32_t n = load_frames(d, k->u.stack.frames, k->u.stack.nframes,
	    ev->ptr_size), id;
	struct idmap *keys;
	stream_id frames;

	if (n == 0)
		return;
	/* A definition serves the kernel table if it ends in the kernel. */
	keys = etw_kernel_address(d->key.frames[n - 1], ev->ptr_size) ?
	    &d->kernel_keys : &d->user_keys;
	if (!idmap_get(keys, k->u.stack.key, &id))
		return;		/* never referenced */
	if ((frames = intern_frames(d, 0, n, 0)) != 0)
		define_join(d, id, frames, 0, 0);
	/* Keys are reused after a delete (5.6 step 5). */
	idmap_del(keys, k->u.stack.key);
}

/*
 * Steps *p over the EVENT_HEADER extended item (3.7) it points at.
 * @return : the item's data, with *type and *size, or NULL at `end` or
 *	at an item that runs past it.
 */
const unsigned char *
etw_next_ext_item(const unsigned char **p, const unsigned char *end,
    unsigned *type, unsigned *size)
{
	const unsigned char *item = *p;

	if (item == NULL || end - item < 8)
		return NULL;
	*type = le16(item + 2);
	*size = le16(item + 6);
	if (*size > end - item - 8)
		return NULL;
	*p = item + ((8 + *size + 7) & ~7u);
	return item + 8;
}

/* Stacks inside EVENT_HEADER extended items (3.7, 5.6 step 6). */
stream_id
etw_inline_stack(struct etw_decoder *d, const struct etl_event *ev)
{
	const unsigned char *p = ev->ext, *data;
	unsigned type, size;
	stream_id kernel = 0, user = 0;

	while ((data = etw_next_ext_item(&p, ev->ext + ev->ext_len, &type,
	    &size)) != NULL) {
		int ptr = type == 6 ? 8 : 4;

		if ((type == 5 || type == 6) && size >= 8) {
			uint32_t n = load_frames(d, data + 8,
			    (size - 8) / ptr, ptr);
			stream_id id = n ? intern_frames(d, 0, n, 0) : 0;

			if (n && etw_kernel_address(d->key.frames[n - 1], ptr))
				kernel = id;
			else
				user = id;
		}
	}
	if (kernel && user) {
		stream_id id = new_stack_id(d);

		define_join(d, id, kernel, user, 0);
		return id;
	}
	return kernel ? kernel : user;
}

/* Completes every stack still promised: their parts never came. */
void
etw_settle_stacks(struct etw_decoder *d)
{
	size_t i;
	struct idmap *tables[2] = { &d->kernel_keys, &d->user_keys };
	int t;

	for (i = 0; i < d->npending; i++) {
		uint32_t j;

		for (j = 0; j < d->pending[i].n; j++)
			complete_pending(d, &d->pending[i].s[j], 0);
		d->pending[i].n = 0;
	}
	for (i = 0; i < d->unowned_count; i++)
		if (d->unowned[(d->unowned_head + i) % UNOWNED_MAX].id != 0)
			d->stats.stacks_orphaned++;
	d->unowned_count = 0;
	idmap_release(&d->unowned_index);
	memset(&d->unowned_index, 0, sizeof(d->unowned_index));
	for (t = 0; t < 2; t++) {
		for (i = 0; i < tables[t]->cap; i++) {
			if (!tables[t]->used[i])
				continue;
			define_join(d, tables[t]->vals[i], 0, 0, 1);
			d->stats.keys_unresolved++;
		}
	}
}
