/*
 * etw_state.h - the state of the .etl decoder, shared by the files that
 * make it up; included only by them:
 *
 *	etw_decode.c	dispatch: per-kind handlers, fields, life cycle
 *	etw_class.c	event classes (REC_CLASS), interned and counted
 *	etw_queue.c	the hold queue that keeps the stream in time order
 *	etw_stacks.c	stack walks joined to their events (etl-format.md 5.6)
 *	etw_imageid.c	ImageID/DbgID joined to their images (section 6)
 *	etw_heapsnap.c	WPR heap snapshots reassembled (etl-events-2.md 1)
 *	etw_cswitch.c	context switch names, compact CSwitch batches
 *
 * The public interface is etw_decode.h.
 */
#ifndef ETW_STATE_H
#define ETW_STATE_H

#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "stream/stream.h"
#include "etw_decode.h"
#include "etw_kernel.h"
#include "etw_shapes.h"
#include "tracelogging.h"

#define QUEUE_SLOTS	65536		/* events held at most */
#define QUEUE_BYTES	(16u << 20)	/* their encoded bytes, at most */
#define PENDING_MAX	64		/* kernel-only stacks a thread awaits */
#define LATE_MS		500		/* a stackless sample waits for its walk */
#define UNOWNED_MAX	4096		/* walks whose event has not come */
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
	uint8_t sample;		/* a SampledProfile */
	uint8_t tid_guessed;	/* tid is what ran on cpu, not in the event */
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

/*
 * A stack walk whose event was not found: a compact batch's switch is
 * expanded after its walk was logged (etl-events-2.md 2.4).
 */
struct unowned_walk {
	uint64_t ts;
	uint32_t tid;
	stream_id id;			/* 0 once taken */
	uint32_t prev;			/* slot + 1 of the walk before with
					   the same time and thread, or 0 */
	uint8_t kernel_only;
};

struct thread_pending {
	uint32_t tid;
	uint32_t n;
	struct pending_stack s[PENDING_MAX];
};


#define KCLASS_CACHE	64

struct etw_decoder {
	struct stream_writer *w;
	struct etl_header h;
	struct etw_decode_stats stats;

	/* Classes: key bytes -> id; counts of records seen and written. */
	struct intern classes;
	struct idmap kernel_classes;	/* hook<<8|version -> class id */
	/* The last kernel classes looked up, by a hash of the key: most
	 * events find theirs here without the map. */
	struct {
		uint32_t key;		/* hook<<8|version, plus 1; 0: empty */
		stream_id id;
	} kclass_cache[KCLASS_CACHE];
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
	/*
	 * Threads just ended, whose last event's kernel-only walk awaits no
	 * user part: a tid leaves at that walk, or when a thread reuses it.
	 */
	struct idmap ended;
	size_t npending, pending_cap;
	/*
	 * The stack being interned, laid out as its intern key: the ids of
	 * the parts it joins, then the frames, loaded straight into place.
	 */
	struct stack_key {
		uint32_t head, next;
		uint64_t frames[STREAM_STACK_MAX];
	} key;

	/* The hold queue. */
	struct qentry *q;
	size_t qhead, qcount;
	unsigned char *ring;
	size_t ring_head, ring_tail, ring_used;
	uint64_t hold_ticks;
	uint64_t late_ticks;		/* LATE_MS in clock ticks */
	int sample_stacks;		/* samples of this trace have stacks */
	uint64_t ns_per_tick;		/* when whole: no division a time stamp */

	struct pending_image images[IMAGES_MAX];
	size_t image_next;
	struct image_fact facts[FACTS_MAX];
	size_t fact_next;

	struct etw_cswitch *cs;		/* etw_cswitch.c, on first use */
	struct etw_late *late;		/* etw_queue.c, with the first batch */
	struct unowned_walk *unowned;	/* a ring, on first use, ... */
	size_t unowned_head, unowned_count;
	struct idmap unowned_index;	/* ... (ts, tid) -> newest slot + 1 */
	uint64_t written_ts;		/* raw time of the last event out */
	struct buf held;		/* a captured definition */
	struct tl_decoder *tl;
	struct stream_field fields[STREAM_EVENT_FIELDS_MAX];
	struct value vals[ETW_CS_FIELDS];	/* the values of a shape */
	struct etw_shapes shapes;
	char scratch[SCRATCH];
	char name[256];
	uint64_t memory_bytes;		/* from SystemConfig/CPU */
	char computer[64];
	uint64_t last_ts;
	uint64_t next_seq;		/* numbers queue entries */
	struct etw_heapsnap *heapsnap;	/* snapshots being reassembled */
	int failed;
};

/* A value of text `s`, for the values of a shape. */
static inline void
etw_set_text(struct value *v, const char *s)
{
	v->v.s.ptr = s;
	v->v.s.len = strlen(s);
}

/* etw_time.c */
int64_t etw_to_ns(const struct etw_decoder *d, uint64_t ts);

/* etw_class.c */
int etw_grow_ids(stream_id **ids, size_t *cap, uint32_t need);
stream_id etw_kernel_class(struct etw_decoder *d, const struct etl_event *ev,
    int hook);
stream_id etw_guid_class(struct etw_decoder *d, const struct etl_event *ev,
    const char *provider, const char *event);

/* etw_queue.c */
int etw_write_image_def(struct etw_decoder *d, uint32_t slot);
int etw_release_oldest(struct etw_decoder *d);
int etw_release_until(struct etw_decoder *d, uint64_t now);
struct qentry *etw_queue_event(struct etw_decoder *d,
    const struct stream_event *sev, const struct etl_event *ev, uint32_t tid,
    uint32_t image);
void etw_queue_definition(struct etw_decoder *d, uint64_t ts);
/* The store of late records: 0, or -1 if out of memory. */
int etw_late_init(struct etw_decoder *d);
/* Puts a late record of raw time `ts` (made in the past) in the store. */
void etw_queue_late(struct etw_decoder *d, uint64_t ts,
    const struct stream_event *sev);
int etw_release_late_until(struct etw_decoder *d, uint64_t ts);
void etw_queue_free(struct etw_decoder *d);

/* etw_stacks.c */
void etw_on_stack_walk(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k);
void etw_on_stack_key(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k);
void etw_on_key_definition(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k);
const unsigned char *etw_next_ext_item(const unsigned char **p,
    const unsigned char *end, unsigned *type, unsigned *size);
stream_id etw_inline_stack(struct etw_decoder *d, const struct etl_event *ev);
void etw_settle_stacks(struct etw_decoder *d);
/* A thread ended (ended 1), or one started with that id (0). */
void etw_thread_ended(struct etw_decoder *d, uint32_t tid, int ended);
stream_id etw_take_unowned_walk(struct etw_decoder *d, uint64_t ts,
    uint32_t tid);

/* etw_imageid.c */
uint32_t etw_add_pending_image(struct etw_decoder *d,
    const struct etl_event *ev, const struct etw_kernel *k, stream_id id);
void etw_on_image_id(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k);

/* etw_heapsnap.c: 1 if the event was a heap snapshot's (consumed). */
int etw_heapsnap_event(struct etw_decoder *d, const struct etl_event *ev);
void etw_heapsnap_finish(struct etw_decoder *d);
void etw_heapsnap_free(struct etw_decoder *d);
/* etw_cswitch.c */
const char *etw_wait_reason_name(unsigned r);
const char *etw_thread_state_name(unsigned s);
const char *etw_ready_reason_name(int r);
void etw_cswitch_running(struct etw_decoder *d, uint16_t cpu, uint32_t tid);
uint32_t etw_cswitch_running_tid(const struct etw_decoder *d, uint16_t cpu);
void etw_on_cswitch_batch(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, stream_id cls);
void etw_cswitch_finish(struct etw_decoder *d);
void etw_cswitch_free(struct etw_decoder *d);

#endif
