/*
 * etw_decode.c - from raw .etl events to stream records.
 *
 * Each event is classified (its class is interned and counted), decoded
 * into named fields, encoded as a record and put in a queue ordered by
 * time.  Records leave the queue when they are older than the hold
 * window, so stack walks logged after their event (etl-format.md 5.6)
 * and ImageID events logged with their image (section 6) can still be
 * joined to them.  Definitions that an event needs are written just
 * before it leaves the queue, so the stream stays in time order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "etw_decode.h"
#include "etw_kernel.h"
#include "etw_names.h"
#include "idmap.h"
#include "intern.h"
#include "tracelogging.h"
#include "value.h"

#define QUEUE_SLOTS	65536		/* events held at most */
#define QUEUE_BYTES	(16u << 20)	/* their encoded bytes, at most */
#define PENDING_MAX	64		/* kernel-only stacks a thread awaits */
#define IMAGES_MAX	4096		/* images awaiting ImageID joins */
#define FACTS_MAX	256		/* ImageID events awaiting images */
#define SCRATCH		(96 * 1024)
#define NO_SLOT		UINT32_MAX
/* An event record: a 64 KiB payload, its fields (UTF-16 grows by half). */
#define EVENT_RECORD_MAX (3 * 65536 + 4096)

struct qentry {
	uint64_t seq;		/* 0 once written out */
	uint64_t ts;		/* raw clock */
	size_t off, len;	/* the record in the byte ring */
	size_t waste;		/* ring bytes skipped after it by a wrap */
	uint32_t tid;		/* the thread that owns a stack, or ETL_NO_ID */
	uint32_t image;		/* slot of an image def to write first */
	uint16_t cpu;
	uint8_t stackable;	/* may own a stack walk */
	uint8_t has_stack;
};

/* An image waiting for the writing of its definition. */
struct pending_image {
	struct stream_image def;
	uint64_t ts;
	uint32_t header_pid;
	char path[520], pdb_name[260], original_name[260];
	int used;
};

/* An ImageID or DbgID event waiting for its image. */
struct image_fact {
	uint64_t ts, base;
	uint32_t pid, header_pid;
	enum etw_krec kind;
	uint32_t timestamp, age;
	unsigned char guid[16];
	char name[260];
	int used;
};

/* A kernel-only stack fragment waiting for the user part (5.6 step 4). */
struct pending_stack {
	stream_id id;		/* promised to the event */
	stream_id kernel;	/* the kernel part */
	uint64_t seq;		/* the event's queue entry, while queued */
	uint32_t slot;
};

struct thread_pending {
	uint32_t tid;
	uint32_t n;
	struct pending_stack s[PENDING_MAX];
};

struct etw_decoder {
	struct stream_writer *w;
	struct etl_header h;
	struct etw_decode_stats stats;

	/* Classes: key bytes -> id; counts of records seen and written. */
	struct intern classes;
	struct idmap kernel_classes;	/* hook<<8|version -> class id */
	struct intern guid_classes;	/* class_key -> slot of ... */
	stream_id *guid_class_ids;	/* ... the class id */
	size_t guid_class_cap;
	uint64_t *class_seen, *class_written;
	size_t class_cap;

	/* Identities. */
	struct idmap tid_pid, pid_process, tid_thread;
	stream_id next_process, next_thread, next_image;

	/* Stacks: interned frame lists, promised ids, cached keys. */
	struct intern stacks;
	stream_id *stack_ids;		/* intern id -> stream id */
	size_t stack_ids_cap;
	stream_id next_stack;
	struct idmap kernel_keys, user_keys;	/* key -> promised id */
	struct thread_pending *pending;		/* by thread ... */
	struct idmap pending_index;		/* ... found by tid */
	size_t npending, pending_cap;
	uint64_t frames[STREAM_STACK_MAX];

	/* The hold queue. */
	struct qentry *q;
	size_t qhead, qcount;
	unsigned char *ring;
	size_t ring_head, ring_tail, ring_used;
	uint64_t hold_ticks;
	uint64_t ns_per_tick;		/* when whole: no division a time stamp */

	struct pending_image images[IMAGES_MAX];
	size_t image_next;
	struct image_fact facts[FACTS_MAX];
	size_t fact_next;

	struct buf held;		/* a captured definition */
	struct tl_decoder *tl;
	struct stream_field fields[STREAM_EVENT_FIELDS_MAX];
	char scratch[SCRATCH];
	char name[256];
	uint64_t memory_bytes;		/* from SystemConfig/CPU */
	char computer[64];
	uint64_t last_ts;
	uint64_t next_seq;		/* numbers queue entries */
	int failed;
};

/* ---- time ---- */

/* Nanoseconds since trace start for a raw timestamp (section 4). */
static int64_t
to_ns(const struct etw_decoder *d, uint64_t ts)
{
	int neg = ts < d->h.t0;
	uint64_t delta = neg ? d->h.t0 - ts : ts - d->h.t0, ns;

	switch (d->h.clock_type) {
	case 2:		/* system time: already 100 ns units */
		ns = delta * 100;
		break;
	case 3:		/* CPU cycles */
		ns = d->h.cpu_mhz ? delta * 1000 / d->h.cpu_mhz : delta;
		break;
	default:	/* QPC; split to keep the product in 64 bits */
		if (d->ns_per_tick != 0)
			ns = delta * d->ns_per_tick;	/* 10 MHz and the like */
		else if (d->h.perf_freq == 0)
			ns = delta * 100;
		else
			ns = delta / d->h.perf_freq * 1000000000ULL +
			    delta % d->h.perf_freq * 1000000000ULL /
			    d->h.perf_freq;
		break;
	}
	return neg ? -(int64_t)ns : (int64_t)ns;
}

/* ---- classes ---- */

struct class_key {
	unsigned char guid[16];
	int32_t hook, event_id;
	uint8_t version, opcode, level, pad;
	uint16_t task;
};

static int
grow_class_counts(struct etw_decoder *d, uint32_t id)
{
	size_t cap = d->class_cap ? d->class_cap * 2 : 256;
	uint64_t *seen, *written;

	while (cap <= id)
		cap *= 2;
	if ((seen = realloc(d->class_seen, cap * sizeof(*seen))) == NULL)
		return -1;
	d->class_seen = seen;
	if ((written = realloc(d->class_written, cap * sizeof(*written))) == NULL)
		return -1;
	d->class_written = written;
	memset(seen + d->class_cap, 0, (cap - d->class_cap) * sizeof(*seen));
	memset(written + d->class_cap, 0,
	    (cap - d->class_cap) * sizeof(*written));
	d->class_cap = cap;
	return 0;
}

/* Makes (*ids)[need] addressable.  @return : 0, or -1 if out of memory. */
static int
grow_ids(stream_id **ids, size_t *cap, uint32_t need)
{
	size_t n = *cap ? *cap : 256;
	stream_id *p;

	if (need < *cap)
		return 0;
	while (n <= need)
		n *= 2;
	if ((p = realloc(*ids, n * sizeof(*p))) == NULL)
		return -1;
	*ids = p;
	*cap = n;
	return 0;
}

/*
 * The class id of an event with key `k` and names provider/event (the
 * event name is part of the identity: TraceLogging events differ only
 * by name).  Writes REC_CLASS the first time.
 */
static stream_id
class_id(struct etw_decoder *d, const struct class_key *k,
    const char *provider, const char *event)
{
	unsigned char key[sizeof(*k) + 256];
	size_t elen = strlen(event), klen;
	int added;
	uint32_t id;

	if (elen > 255)
		elen = 255;
	memcpy(key, k, sizeof(*k));
	memcpy(key + sizeof(*k), event, elen);
	klen = sizeof(*k) + elen;
	if ((id = intern_add(&d->classes, key, klen, &added)) == 0)
		return 0;
	if (id >= d->class_cap && grow_class_counts(d, id) != 0)
		return 0;
	if (added) {
		struct stream_class c = { .id = id, .provider = provider,
		    .event = event, .hook = k->hook, .event_id = k->event_id,
		    .version = k->version, .opcode = k->opcode,
		    .level = k->level, .task = k->task };

		memcpy(c.guid, k->guid, 16);
		if (stream_write_class(d->w, &c) != 0)
			d->failed = 1;
	}
	d->class_seen[id]++;
	return id;
}

/* The class of a classic kernel event. */
static stream_id
kernel_class(struct etw_decoder *d, const struct etl_event *ev, int hook)
{
	struct class_key k = { .hook = hook, .event_id = -1,
	    .version = ev->version, .opcode = hook & 0xff };
	uint64_t cache_key = (uint64_t)hook << 8 | ev->version;
	uint32_t id;

	/* Kernel classes are few and hot: skip naming and hashing. */
	if (idmap_get(&d->kernel_classes, cache_key, &id)) {
		d->class_seen[id]++;
		return id;
	}
	etw_group_guid((unsigned)hook >> 8, k.guid);
	etw_kernel_event_name((unsigned)hook, d->name, sizeof(d->name));
	id = class_id(d, &k, ETW_KERNEL_PROVIDER, d->name);
	if (id != 0)
		idmap_put(&d->kernel_classes, cache_key, id);
	return id;
}

/* Names a GUID event (from the tables where the caller has no name). */
static stream_id
named_guid_class(struct etw_decoder *d, const struct class_key *k,
    const struct etl_event *ev, const char *provider, const char *event)
{
	char pname[37];
	const char *known;

	if (provider == NULL &&
	    (provider = etw_provider_name(ev->guid)) == NULL) {
		value_format_guid(ev->guid, pname);
		provider = pname;
	}
	if (event == NULL) {
		if (ev->hdr != ETL_HDR_EVENT &&
		    (known = etw_guid_event_name(ev->guid, ev->opcode, d->name,
		    sizeof(d->name))) != NULL)
			event = known;
		else if (ev->hdr == ETL_HDR_EVENT)
			snprintf(d->name, sizeof(d->name), "EventID(%u)", ev->id);
		else
			snprintf(d->name, sizeof(d->name), "Opcode(%u)",
			    ev->opcode);
		if (event == NULL)
			event = d->name;
	}
	return class_id(d, k, provider, event);
}

/*
 * The class of a GUID event named from the tables only: its key says
 * everything, so remember the id by key and skip the naming.
 */
static stream_id
unnamed_class(struct etw_decoder *d, const struct class_key *k,
    const struct etl_event *ev)
{
	int added;
	uint32_t slot = intern_add(&d->guid_classes, k, sizeof(*k), &added);
	stream_id id;

	if (slot == 0 ||
	    grow_ids(&d->guid_class_ids, &d->guid_class_cap, slot) != 0)
		return 0;
	if (!added) {
		id = d->guid_class_ids[slot];
		d->class_seen[id]++;
		return id;
	}
	id = named_guid_class(d, k, ev, NULL, NULL);
	d->guid_class_ids[slot] = id;
	return id;
}

/* The class of an event that has a GUID but no known schema. */
static stream_id
guid_class(struct etw_decoder *d, const struct etl_event *ev,
    const char *provider, const char *event)
{
	struct class_key k = { .hook = -1, .version = ev->version,
	    .opcode = ev->opcode, .level = ev->level, .task = ev->task };

	memcpy(k.guid, ev->guid, 16);
	k.event_id = ev->hdr == ETL_HDR_EVENT ? ev->id : -1;
	if (provider == NULL && event == NULL)
		return unnamed_class(d, &k, ev);
	return named_guid_class(d, &k, ev, provider, event);
}


/* ---- identities ---- */

static uint32_t
pid_of_tid(struct etw_decoder *d, uint32_t tid)
{
	uint32_t pid;

	return idmap_get(&d->tid_pid, tid, &pid) ? pid : ETL_NO_ID;
}

/* ---- the queue ---- */

static int
write_image_def(struct etw_decoder *d, uint32_t slot)
{
	struct pending_image *pi = &d->images[slot];
	int rc = stream_write_image(d->w, &pi->def);

	pi->used = 0;
	return rc;
}

/* Writes the oldest queued record (and the definition it needs). */
static int
release_oldest(struct etw_decoder *d)
{
	struct qentry *e = &d->q[d->qhead];
	int rc = 0;

	if (e->image != NO_SLOT)
		rc = write_image_def(d, e->image);
	if (rc == 0)
		rc = stream_write_encoded(d->w, d->ring + e->off, e->len);
	d->ring_tail = e->off + e->len + e->waste;
	d->ring_used -= e->len + e->waste;
	if (d->ring_used == 0)
		d->ring_head = d->ring_tail = 0;
	e->seq = 0;
	d->qhead = (d->qhead + 1) % QUEUE_SLOTS;
	d->qcount--;
	if (rc != 0)
		d->failed = 1;
	return rc;
}

/* Releases what is older than the hold window before `now`. */
static int
release_until(struct etw_decoder *d, uint64_t now)
{
	while (d->qcount > 0 && d->q[d->qhead].ts + d->hold_ticks < now)
		if (release_oldest(d) != 0)
			return -1;
	return 0;
}

/*
 * Space for `len` bytes at the head of the byte ring (records are
 * contiguous; a record that does not fit before the end wraps to 0).
 */
static unsigned char *
ring_alloc(struct etw_decoder *d, size_t len, size_t *off)
{
	for (;;) {
		size_t head = d->ring_head;

		if (d->ring_used == 0) {
			d->ring_head = d->ring_tail = head = 0;
		}
		if (head >= d->ring_tail || d->ring_used == 0) {
			if (QUEUE_BYTES - head >= len) {
				*off = head;
				return d->ring + head;
			}
			if (d->ring_tail > len && d->ring_used > 0) {
				/* Wrap: the tail end of the ring stays unused. */
				d->ring_used += QUEUE_BYTES - head;
				d->ring_head = 0;
				d->q[(d->qhead + d->qcount - 1) %
				    QUEUE_SLOTS].waste = QUEUE_BYTES - head;
				continue;
			}
		} else if (d->ring_tail - head >= len) {
			*off = head;
			return d->ring + head;
		}
		if (d->qcount == 0 || release_oldest(d) != 0)
			return NULL;
	}
}

/*
 * Takes the next queue slot, for a record of raw time `ts`, with `cap`
 * bytes of ring at *dst; queue_commit() then says how many were used.
 */
static struct qentry *
queue_slot(struct etw_decoder *d, uint64_t ts, size_t cap, unsigned char **dst)
{
	struct qentry *e;
	size_t off;

	if (d->qcount == QUEUE_SLOTS && release_oldest(d) != 0)
		return NULL;
	if ((*dst = ring_alloc(d, cap, &off)) == NULL)
		return NULL;
	e = &d->q[(d->qhead + d->qcount) % QUEUE_SLOTS];
	memset(e, 0, sizeof(*e));
	e->seq = ++d->next_seq;
	e->ts = ts;
	e->off = off;
	e->tid = ETL_NO_ID;
	e->image = NO_SLOT;
	return e;
}

static void
queue_commit(struct etw_decoder *d, struct qentry *e, size_t len)
{
	e->len = len;
	d->ring_head = e->off + len;
	d->ring_used += len;
	d->qcount++;
}

/*
 * Encodes an event and queues it.  `tid` is the thread that may own a
 * stack walk (ETL_NO_ID for none); `image` an image slot or NO_SLOT.
 * @return : the queue entry, or NULL on failure.
 */
static struct qentry *
queue_event(struct etw_decoder *d, const struct stream_event *sev,
    const struct etl_event *ev, uint32_t tid, uint32_t image)
{
	struct qentry *e;
	size_t len;
	unsigned char *dst;

	/* Encode into the ring directly, with room for the largest event. */
	if ((e = queue_slot(d, ev->ts, EVENT_RECORD_MAX, &dst)) == NULL)
		return NULL;
	if ((len = stream_encode_event(d->w, sev, dst, EVENT_RECORD_MAX)) == 0)
		return NULL;
	e->tid = tid;
	e->cpu = ev->cpu;
	e->image = image;
	e->stackable = 1;
	e->has_stack = sev->h.stack != 0;
	queue_commit(d, e, len);
	d->class_written[sev->h.cls]++;
	d->stats.events++;
	return e;
}

/*
 * Queues the definition record just captured from the writer, so that it
 * reaches the stream after the events logged before it (a reused pid must
 * not rename the events of the process that had it).
 */
static void
queue_definition(struct etw_decoder *d, uint64_t ts)
{
	size_t len;
	const unsigned char *rec = stream_captured(d->w, &len);
	struct qentry *e;
	unsigned char *dst;

	/* Releasing room may write records: copy the capture first. */
	d->held.len = 0;
	buf_put(&d->held, rec, len);
	if (d->held.oom || (e = queue_slot(d, ts, len, &dst)) == NULL) {
		d->failed = 1;
		return;
	}
	memcpy(dst, d->held.data, len);
	queue_commit(d, e, len);
}

/* ---- stacks (section 5.6) ---- */

static stream_id
new_stack_id(struct etw_decoder *d)
{
	return ++d->next_stack;
}

/* The id of a plain frame list, defining it on first use. */
static stream_id
intern_frames(struct etw_decoder *d, stream_id head, const uint64_t *frames,
    uint32_t n, stream_id next)
{
	unsigned char key[8 + STREAM_STACK_MAX * 8];
	int added;
	uint32_t iid;

	memcpy(key, &head, 4);
	memcpy(key + 4, &next, 4);
	memcpy(key + 8, frames, (size_t)n * 8);
	iid = intern_add(&d->stacks, key, 8 + (size_t)n * 8, &added);
	if (iid == 0 || grow_ids(&d->stack_ids, &d->stack_ids_cap, iid) != 0)
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
	for (i = 0; i < n; i++)
		d->frames[i] = etw_ptr(raw + (size_t)i * ptr_size, ptr_size);
	return n;
}

static struct thread_pending *
pending_of(struct etw_decoder *d, uint32_t tid, int create)
{
	uint32_t i;

	if (idmap_get(&d->pending_index, tid, &i))
		return &d->pending[i];
	if (!create)
		return NULL;
	if (d->npending == d->pending_cap) {
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
		full = intern_frames(d, ps->kernel, d->frames, 0, user);
	if (e->seq == ps->seq)
		stream_event_set_stack(d->ring + e->off, full);
	else
		define_join(d, ps->id, full, 0, 0);
}

/* A user part arrived on `tid`: complete every kernel-only stack there. */
static void
resolve_pending(struct etw_decoder *d, uint32_t tid, stream_id user)
{
	struct thread_pending *tp = pending_of(d, tid, 0);
	uint32_t i;

	if (tp == NULL)
		return;
	for (i = 0; i < tp->n; i++)
		complete_pending(d, &tp->s[i], user);
	tp->n = 0;
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
 * logged on `cpu` (5.6 steps 1 to 3), or NULL.
 */
static struct qentry *
find_owner(struct etw_decoder *d, uint64_t ts, uint32_t tid, uint16_t cpu)
{
	struct qentry *same_cpu = NULL;
	size_t i;

	for (i = d->qcount; i-- > 0;) {
		struct qentry *e = &d->q[(d->qhead + i) % QUEUE_SLOTS];

		if (e->ts < ts)
			break;
		if (e->ts != ts || !e->stackable)
			continue;
		if (e->tid == tid)
			return e;
		if (e->tid == ETL_NO_ID && e->cpu == cpu && same_cpu == NULL)
			same_cpu = e;
	}
	return same_cpu;
}

static void
give_stack(struct etw_decoder *d, struct qentry *owner, stream_id id)
{
	stream_event_set_stack(d->ring + owner->off, id);
	owner->has_stack = 1;
	d->stats.stacks_attached++;
}

/*
 * Attaches a stack part with id `part` for (ts, tid) to its owner.
 * `kernel_only` says whether it is a kernel fragment awaiting a user part.
 */
static void
attach_stack(struct etw_decoder *d, uint64_t ts, uint32_t tid, uint16_t cpu,
    stream_id part, int kernel_only)
{
	struct qentry *owner = find_owner(d, ts, tid, cpu);

	if (!kernel_only)
		resolve_pending(d, tid, part);
	if (owner == NULL) {
		if (kernel_only || pending_of(d, tid, 0) == NULL)
			d->stats.stacks_orphaned++;
		return;
	}
	if (owner->has_stack)
		return;		/* its user part, already joined above */
	give_stack(d, owner, kernel_only ? await_user_part(d, tid, part, owner) :
	    part);
}

static void
on_stack_walk(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k)
{
	uint32_t n = load_frames(d, k->u.stack.frames, k->u.stack.nframes,
	    ev->ptr_size);
	stream_id id;
	int kernel_only;

	if (n == 0)
		return;
	kernel_only = etw_kernel_address(d->frames[n - 1], ev->ptr_size);
	if ((id = intern_frames(d, 0, d->frames, n, 0)) != 0)
		attach_stack(d, k->u.stack.event_ts, k->u.stack.tid, ev->cpu, id,
		    kernel_only);
}

static void
on_stack_key(struct etw_decoder *d, const struct etl_event *ev,
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

static void
on_key_definition(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k)
{
	uint32_t n = load_frames(d, k->u.stack.frames, k->u.stack.nframes,
	    ev->ptr_size), id;
	struct idmap *keys;
	stream_id frames;

	if (n == 0)
		return;
	/* A definition serves the kernel table if it ends in the kernel. */
	keys = etw_kernel_address(d->frames[n - 1], ev->ptr_size) ?
	    &d->kernel_keys : &d->user_keys;
	if (!idmap_get(keys, k->u.stack.key, &id))
		return;		/* never referenced */
	if ((frames = intern_frames(d, 0, d->frames, n, 0)) != 0)
		define_join(d, id, frames, 0, 0);
	/* Keys are reused after a delete (5.6 step 5). */
	idmap_del(keys, k->u.stack.key);
}

/*
 * Steps *p over the EVENT_HEADER extended item (3.7) it points at.
 * @return : the item's data, with *type and *size, or NULL at `end` or
 *	at an item that runs past it.
 */
static const unsigned char *
next_ext_item(const unsigned char **p, const unsigned char *end,
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
static stream_id
inline_stack(struct etw_decoder *d, const struct etl_event *ev)
{
	const unsigned char *p = ev->ext, *data;
	unsigned type, size;
	stream_id kernel = 0, user = 0;

	while ((data = next_ext_item(&p, ev->ext + ev->ext_len, &type,
	    &size)) != NULL) {
		int ptr = type == 6 ? 8 : 4;

		if ((type == 5 || type == 6) && size >= 8) {
			uint32_t n = load_frames(d, data + 8,
			    (size - 8) / ptr, ptr);
			stream_id id = n ? intern_frames(d, 0, d->frames, n, 0) : 0;

			if (n && etw_kernel_address(d->frames[n - 1], ptr))
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

/* ---- images and their ImageID/DbgID rows (section 6) ---- */

/* What an ImageID or DbgID event says, from the decoder's scratch. */
static void
make_fact(const struct etl_event *ev, const struct etw_kernel *k,
    struct image_fact *f)
{
	const char *name;

	memset(f, 0, sizeof(*f));
	f->used = 1;
	f->ts = ev->ts;
	f->header_pid = ev->pid;
	f->kind = k->type;
	if (k->type == KREC_IMAGE_ID) {
		f->base = k->u.image_id.base;
		f->pid = k->u.image_id.pid;
		f->timestamp = k->u.image_id.timestamp;
		name = k->u.image_id.original_name;
	} else {
		f->base = k->u.dbg_id.base;
		f->pid = k->u.dbg_id.pid;
		f->age = k->u.dbg_id.age;
		memcpy(f->guid, k->u.dbg_id.guid, 16);
		name = k->u.dbg_id.pdb_name;
	}
	snprintf(f->name, sizeof(f->name), "%s", name ? name : "");
}

static void
apply_fact(struct etw_decoder *d, struct pending_image *pi,
    const struct image_fact *f)
{
	if (f->kind == KREC_IMAGE_ID) {
		snprintf(pi->original_name, sizeof(pi->original_name), "%s",
		    f->name);
		if (pi->def.timestamp == 0)
			pi->def.timestamp = f->timestamp;
	} else {
		memcpy(pi->def.pdb_guid, f->guid, 16);
		pi->def.pdb_age = f->age;
		snprintf(pi->pdb_name, sizeof(pi->pdb_name), "%s", f->name);
	}
	d->stats.images_joined++;
}

/*
 * Whether a fact describes the image: the same time and base, and the
 * payload pid, else the header pid (merged Win7/8 files log payload pid 0).
 */
static int
fact_matches(const struct image_fact *f, const struct pending_image *pi)
{
	if (!f->used || f->ts != pi->ts || f->base != pi->def.base)
		return 0;
	if (f->pid != 0)
		return f->pid == pi->def.pid;
	return f->header_pid == pi->header_pid || f->header_pid == pi->def.pid;
}

/* An image just decoded takes the facts logged before it. */
static void
take_facts(struct etw_decoder *d, struct pending_image *pi)
{
	size_t i;

	for (i = 0; i < FACTS_MAX; i++)
		if (fact_matches(&d->facts[i], pi)) {
			apply_fact(d, pi, &d->facts[i]);
			d->facts[i].used = 0;
		}
}

static uint32_t
add_pending_image(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, stream_id id)
{
	uint32_t slot = (uint32_t)(d->image_next++ % IMAGES_MAX);
	struct pending_image *pi = &d->images[slot];
	uint32_t process = 0;

	if (pi->used && write_image_def(d, slot) != 0)
		d->failed = 1;	/* too many in flight: write it unjoined */
	memset(pi, 0, sizeof(*pi));
	pi->used = 1;
	pi->ts = ev->ts;
	pi->header_pid = ev->pid;
	snprintf(pi->path, sizeof(pi->path), "%s", k->u.image.path ?
	    k->u.image.path : "");
	idmap_get(&d->pid_process, k->u.image.pid, &process);
	pi->def = (struct stream_image){ .id = id, .pid = k->u.image.pid,
	    .process = process, .base = k->u.image.base,
	    .size = k->u.image.size, .checksum = k->u.image.checksum,
	    .timestamp = k->u.image.timestamp, .path = pi->path,
	    .pdb_name = pi->pdb_name, .original_name = pi->original_name };
	take_facts(d, pi);
	return slot;
}

/*
 * ImageID and DbgID events carry the time of their image event, and in
 * time order may come before or after it: join now or keep the fact.
 */
static void
on_image_id(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k)
{
	struct image_fact f, *slot;
	size_t i;

	make_fact(ev, k, &f);
	/* Images are in time order: look back only over this time stamp. */
	for (i = 1; i <= IMAGES_MAX && i <= d->image_next; i++) {
		struct pending_image *pi =
		    &d->images[(d->image_next - i) % IMAGES_MAX];

		if (pi->ts < f.ts)
			break;
		if (pi->used && fact_matches(&f, pi)) {
			apply_fact(d, pi, &f);
			return;
		}
	}
	slot = &d->facts[d->fact_next++ % FACTS_MAX];
	if (slot->used)
		d->stats.image_ids_unjoined++;
	*slot = f;
}

/* ---- fields ---- */

struct fields {
	struct stream_field *f;
	size_t n;
};

static void
field_u(struct fields *fs, const char *name, enum value_type type, uint64_t v)
{
	fs->f[fs->n].name = name;
	fs->f[fs->n].val.type = type;
	fs->f[fs->n].val.v.u = v;
	fs->n++;
}

static void
field_i(struct fields *fs, const char *name, int64_t v)
{
	fs->f[fs->n].name = name;
	fs->f[fs->n].val.type = VAL_I64;
	fs->f[fs->n].val.v.i = v;
	fs->n++;
}

static void
field_s(struct fields *fs, const char *name, const char *s)
{
	fs->f[fs->n].name = name;
	fs->f[fs->n].val.type = VAL_STR;
	fs->f[fs->n].val.v.s.ptr = s ? s : "";
	fs->f[fs->n].val.v.s.len = s ? strlen(s) : 0;
	fs->n++;
}

/* ---- per-kind handlers: fill the event, return the owning thread ---- */

static int
on_process(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, struct stream_event *sev, struct fields *fs)
{
	uint32_t id = 0;
	int have = idmap_get(&d->pid_process, k->u.process.pid, &id);

	/* Start and rundown begin an identity; DCEnd/End only if unseen. */
	if (k->op == EVOP_START || k->op == EVOP_DCSTART || !have) {
		struct stream_process p = { .id = ++d->next_process,
		    .pid = k->u.process.pid, .ppid = k->u.process.ppid,
		    .start_ns = k->op == EVOP_START ? to_ns(d, ev->ts) :
		    INT64_MIN, .session = k->u.process.session,
		    .key = k->u.process.key, .name = k->u.process.name,
		    .cmdline = k->u.process.cmdline };

		id = p.id;
		idmap_put(&d->pid_process, p.pid, id);
		stream_capture_next(d->w);
		if (stream_write_process(d->w, &p) != 0)
			d->failed = 1;
		queue_definition(d, ev->ts);
	}
	sev->h.pid = k->u.process.pid;
	field_u(fs, "process", VAL_U64, id);
	field_u(fs, "ppid", VAL_U64, k->u.process.ppid);
	field_i(fs, "exit_status", k->u.process.exit_status);
	field_u(fs, "flags", VAL_HEX, k->u.process.flags);
	return 1;
}

static int
on_thread(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, struct stream_event *sev, struct fields *fs)
{
	uint32_t id = 0, process = 0;
	int have = idmap_get(&d->tid_thread, k->u.thread.tid, &id);

	idmap_get(&d->pid_process, k->u.thread.pid, &process);
	if (k->op == EVOP_START || k->op == EVOP_DCSTART || !have) {
		struct stream_thread t = { .id = ++d->next_thread,
		    .tid = k->u.thread.tid, .pid = k->u.thread.pid,
		    .process = process, .start_ns = k->op == EVOP_START ?
		    to_ns(d, ev->ts) : INT64_MIN, .name = k->u.thread.name };

		id = t.id;
		idmap_put(&d->tid_thread, t.tid, id);
		stream_capture_next(d->w);
		if (stream_write_thread(d->w, &t) != 0)
			d->failed = 1;
		queue_definition(d, ev->ts);
	}
	idmap_put(&d->tid_pid, k->u.thread.tid, k->u.thread.pid);
	/* Start is logged by the creating thread; the event is the new one's. */
	sev->h.pid = k->u.thread.pid;
	sev->h.tid = k->u.thread.tid;
	field_u(fs, "thread", VAL_U64, id);
	if (k->u.thread.affinity != 0)
		field_u(fs, "affinity", VAL_HEX, k->u.thread.affinity);
	else
		field_u(fs, "start_address", VAL_HEX, k->u.thread.start_addr);
	field_u(fs, "win32_start_address", VAL_HEX, k->u.thread.win32_start);
	return 1;
}

static int
on_sample(struct etw_decoder *d, const struct etw_kernel *k,
    struct stream_event *sev, struct fields *fs)
{
	sev->h.tid = k->u.sample.tid;
	sev->h.pid = pid_of_tid(d, k->u.sample.tid);
	field_u(fs, "ip", VAL_HEX, k->u.sample.ip);
	field_u(fs, "count", VAL_U64, k->u.sample.count);
	field_u(fs, "priority", VAL_U64, k->u.sample.flags >> 3);
	field_u(fs, "flags", VAL_HEX, k->u.sample.flags & 7);
	field_u(fs, "rank", VAL_U64, k->u.sample.rank);
	return 1;
}

static int
on_vmem(const struct etw_kernel *k, struct stream_event *sev,
    struct fields *fs)
{
	/* PERFINFO events carry no ids: the payload names the process. */
	sev->h.pid = k->u.vmem.pid;
	field_u(fs, "base", VAL_HEX, k->u.vmem.base);
	field_u(fs, "size", VAL_U64, k->u.vmem.size);
	field_u(fs, "flags", VAL_HEX, k->u.vmem.flags);
	return 1;
}

static int
on_heap(const struct etw_kernel *k, struct fields *fs)
{
	field_u(fs, "heap", VAL_HEX, k->u.heap.heap);
	if (k->op == EVOP_CREATE)
		field_u(fs, "flags", VAL_HEX, k->u.heap.flags);
	if (k->op == EVOP_ALLOC || k->op == EVOP_REALLOC ||
	    k->op == EVOP_FREE) {
		field_u(fs, "address", VAL_HEX, k->u.heap.address);
		if (k->op != EVOP_FREE)
			field_u(fs, "size", VAL_U64, k->u.heap.size);
		if (k->op == EVOP_REALLOC) {
			field_u(fs, "old_address", VAL_HEX,
			    k->u.heap.old_address);
			field_u(fs, "old_size", VAL_U64, k->u.heap.old_size);
		}
		field_u(fs, "source", VAL_U64, k->u.heap.source);
	}
	return 1;
}

static int
on_cswitch(struct etw_decoder *d, const struct etw_kernel *k,
    struct stream_event *sev, struct fields *fs)
{
	sev->h.tid = k->u.cswitch.new_tid;
	sev->h.pid = pid_of_tid(d, k->u.cswitch.new_tid);
	field_u(fs, "old_tid", VAL_U64, k->u.cswitch.old_tid);
	field_u(fs, "old_pid", VAL_U64, pid_of_tid(d, k->u.cswitch.old_tid));
	field_i(fs, "new_priority", k->u.cswitch.new_priority);
	field_i(fs, "old_priority", k->u.cswitch.old_priority);
	field_u(fs, "old_wait_reason", VAL_U64, k->u.cswitch.old_wait_reason);
	field_u(fs, "old_wait_mode", VAL_U64, k->u.cswitch.old_wait_mode);
	field_u(fs, "old_state", VAL_U64, k->u.cswitch.old_state);
	field_u(fs, "ideal_cpu", VAL_U64, k->u.cswitch.ideal_cpu);
	field_u(fs, "new_wait_time", VAL_U64, k->u.cswitch.new_wait_time);
	return 1;
}

static int
on_ready(struct etw_decoder *d, const struct etw_kernel *k,
    struct stream_event *sev, struct fields *fs)
{
	if (sev->h.pid == ETL_NO_ID && sev->h.tid != ETL_NO_ID)
		sev->h.pid = pid_of_tid(d, sev->h.tid);
	field_u(fs, "readied_tid", VAL_U64, k->u.ready.tid);
	field_u(fs, "readied_pid", VAL_U64, pid_of_tid(d, k->u.ready.tid));
	field_i(fs, "reason", k->u.ready.reason);
	field_i(fs, "increment", k->u.ready.increment);
	field_u(fs, "flags", VAL_HEX, k->u.ready.flags);
	return 1;
}

/* SystemConfig/CPU: a generic event, and facts for REC_END. */
static int
on_cpu_config(struct etw_decoder *d, const struct etw_kernel *k,
    struct fields *fs)
{
	d->memory_bytes = (uint64_t)k->u.cpu.memory_mb << 20;
	snprintf(d->computer, sizeof(d->computer), "%s", k->u.cpu.computer ?
	    k->u.cpu.computer : "");
	field_u(fs, "mhz", VAL_U64, k->u.cpu.mhz);
	field_u(fs, "processors", VAL_U64, k->u.cpu.cpus);
	field_u(fs, "memory_mb", VAL_U64, k->u.cpu.memory_mb);
	field_u(fs, "page_size", VAL_U64, k->u.cpu.page_size);
	field_s(fs, "computer", d->computer);
	return 1;
}

/* ---- dispatch ---- */

/* The hook of a classic kernel event, also for FULL_HEADER kernel GUIDs. */
static int
hook_of(const struct etl_event *ev)
{
	int group;

	if (ev->hdr == ETL_HDR_SYSTEM || ev->hdr == ETL_HDR_PERFINFO)
		return ev->hook;
	if ((ev->hdr == ETL_HDR_FULL || ev->hdr == ETL_HDR_INSTANCE) &&
	    (group = etw_group_by_guid(ev->guid)) >= 0)
		return group << 8 | ev->opcode;
	return -1;
}

/* Finds extended item `type` (3.7); NULL if absent. */
static const unsigned char *
ext_item(const struct etl_event *ev, unsigned type, size_t *len)
{
	const unsigned char *p = ev->ext, *data;
	unsigned t, size;

	while ((data = next_ext_item(&p, ev->ext + ev->ext_len, &t,
	    &size)) != NULL)
		if (t == type) {
			*len = size;
			return data;
		}
	return NULL;
}

/* A TraceLogging event: decoded fields, or raw if the schema fails. */
static stream_id
tracelogging_class(struct etw_decoder *d, const struct etl_event *ev,
    struct fields *fs, int *decoded)
{
	size_t mlen = 0, tlen = 0, i;
	const unsigned char *meta = ext_item(ev, 11, &mlen);
	const unsigned char *traits = ext_item(ev, 12, &tlen);
	struct tl_event te;

	*decoded = 0;
	if (meta == NULL)
		return 0;
	if (tl_decode(d->tl, traits, tlen, meta, mlen, ev->payload,
	    ev->payload_len, ev->ptr_size, &te) != 0) {
		d->stats.bad_tracelogging++;
		return guid_class(d, ev, te.provider && *te.provider ?
		    te.provider : NULL, te.name && *te.name ? te.name : NULL);
	}
	for (i = 0; i < te.nfields && fs->n < STREAM_EVENT_FIELDS_MAX; i++) {
		fs->f[fs->n].name = te.fields[i].name;
		fs->f[fs->n].val = te.fields[i].val;
		fs->n++;
	}
	*decoded = 1;
	return guid_class(d, ev, *te.provider ? te.provider : NULL, te.name);
}

/* Events without a first-class kind: kept whole, with a class. */
static int
on_generic(struct etw_decoder *d, const struct etl_event *ev, int hook,
    struct stream_event *sev, struct fields *fs)
{
	int decoded = 0, ext = ev->hdr == ETL_HDR_EVENT && ev->ext_len > 0;

	sev->h.kind = EV_GENERIC;
	if (hook >= 0)
		sev->h.cls = kernel_class(d, ev, hook);
	else if (!ext ||
	    (sev->h.cls = tracelogging_class(d, ev, fs, &decoded)) == 0)
		sev->h.cls = guid_class(d, ev, NULL, NULL);
	if (!decoded) {
		sev->payload = ev->payload;
		sev->payload_len = ev->payload_len;
	}
	if (ext)
		sev->h.stack = inline_stack(d, ev);
	return ev->tid != ETL_NO_ID;
}

/*
 * Handles an event decoded by etw_kernel.  Returns 1 to queue the event,
 * 0 when it became a definition only.
 */
static int
on_kernel(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, struct stream_event *sev, struct fields *fs,
    uint32_t *image_slot)
{
	switch (k->type) {
	case KREC_PROCESS:
		sev->h.kind = EV_PROCESS;
		return on_process(d, ev, k, sev, fs);
	case KREC_THREAD:
		sev->h.kind = EV_THREAD;
		return on_thread(d, ev, k, sev, fs);
	case KREC_IMAGE: {
		stream_id id = ++d->next_image;

		sev->h.kind = EV_IMAGE;
		sev->h.pid = k->u.image.pid;
		*image_slot = add_pending_image(d, ev, k, id);
		field_u(fs, "image", VAL_U64, id);
		field_u(fs, "base", VAL_HEX, k->u.image.base);
		field_u(fs, "size", VAL_U64, k->u.image.size);
		return 1;
	}
	case KREC_SAMPLE:
		sev->h.kind = EV_SAMPLE;
		return on_sample(d, k, sev, fs);
	case KREC_VMEM:
		sev->h.kind = EV_VMEM;
		return on_vmem(k, sev, fs);
	case KREC_HEAP:
		sev->h.kind = EV_HEAP;
		return on_heap(k, fs);
	case KREC_CSWITCH:
		sev->h.kind = EV_CSWITCH;
		return on_cswitch(d, k, sev, fs);
	case KREC_READY:
		sev->h.kind = EV_READY;
		return on_ready(d, k, sev, fs);
	case KREC_LOST:
		sev->h.kind = EV_LOST;
		return 1;
	case KREC_STACK:
		on_stack_walk(d, ev, k);
		return 0;
	case KREC_STACK_KEY:
		on_stack_key(d, ev, k);
		return 0;
	case KREC_KEY_DEF:
		on_key_definition(d, ev, k);
		return 0;
	case KREC_IMAGE_ID:
	case KREC_DBG_ID:
		on_image_id(d, ev, k);
		return 0;
	case KREC_TRACE_HEADER:
		return 0;	/* already in REC_TRACE */
	case KREC_CPU_CONFIG:
		sev->h.kind = EV_GENERIC;
		return on_cpu_config(d, k, fs);
	case KREC_INTERVAL:
		sev->h.kind = EV_GENERIC;
		field_u(fs, "source", VAL_U64, k->u.interval.source);
		field_u(fs, "new_interval", VAL_U64, k->u.interval.new_interval);
		field_u(fs, "old_interval", VAL_U64, k->u.interval.old_interval);
		field_s(fs, "source_name", k->u.interval.name);
		return 1;
	case KREC_NONE:
		break;
	}
	return -1;
}

int
etw_decoder_event(struct etw_decoder *d, const struct etl_event *ev)
{
	struct stream_event sev = { .h = { .cpu = ev->cpu, .pid = ev->pid,
	    .tid = ev->tid, .ts = to_ns(d, ev->ts) } };
	struct fields fs = { d->fields, 0 };
	struct etw_kernel k;
	uint32_t image_slot = NO_SLOT;
	int hook = hook_of(ev), owns;

	if (d->failed)
		return -1;
	if (release_until(d, ev->ts) != 0)
		return -1;
	d->last_ts = ev->ts;
	if (etw_kernel_decode(ev, hook, &k, d->scratch, sizeof(d->scratch)) != 0)
		d->stats.bad_payloads++;
	sev.h.op = k.op;
	owns = k.type == KREC_NONE ? -1 :
	    on_kernel(d, ev, &k, &sev, &fs, &image_slot);
	if (owns < 0) {
		/* Not the layout's record after all: no op of its own. */
		sev.h.op = EVOP_NONE;
		owns = on_generic(d, ev, hook, &sev, &fs);
	} else if (hook >= 0)
		sev.h.cls = kernel_class(d, ev, hook);
	else
		sev.h.cls = guid_class(d, ev, NULL, NULL);
	if (d->failed || sev.h.cls == 0)
		return -1;
	if (sev.h.kind == 0)
		return 0;	/* absorbed into definitions */
	sev.nfields = fs.n;
	sev.fields = fs.f;
	if (queue_event(d, &sev, ev, owns ? sev.h.tid : ETL_NO_ID,
	    image_slot) == NULL) {
		d->failed = 1;
		return -1;
	}
	return 0;
}

/* ---- life cycle ---- */

static void
fill_trace(const struct etl_header *h, const char *source,
    struct stream_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->source = source;
	t->format = "etl";
	t->logger = h->logger_name;
	t->start_utc = h->start_time;
	t->end_utc = h->end_time;
	t->boot_utc = h->boot_time;
	t->perf_freq = h->perf_freq;
	t->clock_type = h->clock_type;
	t->os_major = h->version & 0xff;
	t->os_minor = (h->version >> 8) & 0xff;
	t->os_build = h->provider_version;
	t->cpus = h->cpus;
	t->cpu_mhz = h->cpu_mhz;
	t->pointer_size = h->pointer_size;
	t->log_file_mode = h->log_file_mode;
	t->buffer_size = h->buffer_size;
	t->buffers_written = h->buffers_written;
	t->buffers_lost = h->buffers_lost;
	t->events_lost = h->events_lost;
	t->tz_bias_minutes = h->tz_bias;
}

struct etw_decoder *
etw_decoder_new(struct stream_writer *w, const struct etl_header *h,
    const char *source)
{
	struct etw_decoder *d = calloc(1, sizeof(*d));
	struct stream_trace t;

	if (d == NULL)
		return NULL;
	d->w = w;
	d->h = *h;
	d->q = calloc(QUEUE_SLOTS, sizeof(*d->q));
	d->ring = malloc(QUEUE_BYTES);
	d->tl = tl_decoder_new();
	if (d->q == NULL || d->ring == NULL || d->tl == NULL) {
		etw_decoder_free(d);
		return NULL;
	}
	if (h->perf_freq != 0 && 1000000000ULL % h->perf_freq == 0)
		d->ns_per_tick = 1000000000ULL / h->perf_freq;
	switch (h->clock_type) {
	case 2:
		d->hold_ticks = ETW_HOLD_MS * 10000ULL;
		break;
	case 3:
		d->hold_ticks = ETW_HOLD_MS * 1000ULL * h->cpu_mhz;
		break;
	default:
		d->hold_ticks = h->perf_freq ? h->perf_freq * ETW_HOLD_MS / 1000 :
		    ETW_HOLD_MS * 10000ULL;
	}
	fill_trace(h, source, &t);
	if (stream_write_trace(w, &t) != 0) {
		etw_decoder_free(d);
		return NULL;
	}
	return d;
}

static void
write_diag(struct etw_decoder *d, const char *what, uint64_t count,
    uint64_t offset, uint64_t bytes)
{
	struct stream_diag dg = { what, count, offset, bytes };

	if (count > 0 && stream_write_diag(d->w, &dg) != 0)
		d->failed = 1;
}

/* Completes every stack still promised: their parts never came. */
static void
settle_stacks(struct etw_decoder *d)
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
	for (t = 0; t < 2; t++) {
		for (i = 0; i < tables[t]->cap; i++) {
			if (!tables[t]->used[i])
				continue;
			define_join(d, tables[t]->vals[i], 0, 0, 1);
			d->stats.keys_unresolved++;
		}
	}
}

int
etw_decoder_finish(struct etw_decoder *d, const struct etl_counts *c)
{
	struct stream_end e = { .source_events = c->events,
	    .source_bytes = c->bytes, .memory_bytes = d->memory_bytes,
	    .computer = d->computer };
	uint32_t id;

	/* Settle stacks first: their events, still queued, take them. */
	settle_stacks(d);
	while (d->qcount > 0 && !d->failed)
		release_oldest(d);
	for (id = 0; id < IMAGES_MAX; id++)
		if (d->images[id].used && write_image_def(d, id) != 0)
			d->failed = 1;
	for (id = 0; id < FACTS_MAX; id++)
		d->stats.image_ids_unjoined += d->facts[id].used;
	for (id = 1; id <= d->classes.count; id++)
		if (d->class_seen[id] > d->class_written[id] &&
		    stream_write_count(d->w, id,
		    d->class_seen[id] - d->class_written[id]) != 0)
			d->failed = 1;
	write_diag(d, "corrupt or truncated buffers", c->bad_buffers,
	    c->first_bad_offset, c->bad_buffer_bytes);
	write_diag(d, "corrupt event headers", c->bad_events,
	    c->first_bad_offset, c->bad_event_bytes);
	write_diag(d, "payloads too short for their layout",
	    d->stats.bad_payloads, 0, 0);
	write_diag(d, "TraceLogging payloads not matching their schema",
	    d->stats.bad_tracelogging, 0, 0);
	write_diag(d, "stack walks without an owner event",
	    d->stats.stacks_orphaned, 0, 0);
	write_diag(d, "stack keys never defined", d->stats.keys_unresolved, 0, 0);
	write_diag(d, "ImageID events without an image",
	    d->stats.image_ids_unjoined, 0, 0);
	write_diag(d, "events lost by the logger", d->h.events_lost, 0, 0);
	write_diag(d, "buffers lost by the logger", d->h.buffers_lost, 0, 0);
	write_diag(d, "buffers flagged as losing events", c->lost_flagged, 0, 0);
	e.end_ns = (uint64_t)to_ns(d, d->last_ts);
	if (d->failed || stream_write_end(d->w, &e) != 0)
		return -1;
	return 0;
}

const struct etw_decode_stats *
etw_decoder_stats(const struct etw_decoder *d)
{
	return &d->stats;
}

void
etw_decoder_free(struct etw_decoder *d)
{
	if (d == NULL)
		return;
	intern_release(&d->classes);
	idmap_release(&d->kernel_classes);
	intern_release(&d->guid_classes);
	free(d->guid_class_ids);
	intern_release(&d->stacks);
	idmap_release(&d->tid_pid);
	idmap_release(&d->pid_process);
	idmap_release(&d->tid_thread);
	idmap_release(&d->kernel_keys);
	idmap_release(&d->user_keys);
	free(d->class_seen);
	free(d->class_written);
	free(d->stack_ids);
	free(d->pending);
	idmap_release(&d->pending_index);
	free(d->q);
	free(d->ring);
	tl_decoder_free(d->tl);
	buf_release(&d->held);
	free(d);
}
