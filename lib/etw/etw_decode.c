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
 *
 * This file dispatches each event to its handler and runs the life cycle;
 * etw_state.h lists the files that do the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/value.h"
#include "etw_names.h"
#include "etw_state.h"

/* ---- identities ---- */

static uint32_t
pid_of_tid(struct etw_decoder *d, uint32_t tid)
{
	uint32_t pid;

	return idmap_get(&d->tid_pid, tid, &pid) ? pid : ETL_NO_ID;
}

/* ---- fields ---- */

/*
 * An event's fields: named, or the values of a shape (etw_shapes.h),
 * which the hot kernel events give, in the shape's order.
 */
struct fields {
	struct stream_field *f;
	size_t n;
	int dynamic;	/* a name is not a string literal (TraceLogging) */
	const struct stream_shape *shape;
	struct value *v;
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
		    .start_ns = k->op == EVOP_START ? etw_to_ns(d, ev->ts) :
		    INT64_MIN, .session = k->u.process.session,
		    .key = k->u.process.key, .name = k->u.process.name,
		    .cmdline = k->u.process.cmdline };

		id = p.id;
		idmap_put(&d->pid_process, p.pid, id);
		stream_capture_next(d->w);
		if (stream_write_process(d->w, &p) != 0)
			d->failed = 1;
		etw_queue_definition(d, ev->ts);
	}
	sev->h.pid = k->u.process.pid;
	fs->shape = &etw_shape_process;
	fs->v[0].v.u = id;
	fs->v[1].v.u = k->u.process.ppid;
	fs->v[2].v.i = k->u.process.exit_status;
	fs->v[3].v.u = k->u.process.flags;
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
		    etw_to_ns(d, ev->ts) : INT64_MIN, .name = k->u.thread.name };

		id = t.id;
		idmap_put(&d->tid_thread, t.tid, id);
		stream_capture_next(d->w);
		if (stream_write_thread(d->w, &t) != 0)
			d->failed = 1;
		etw_queue_definition(d, ev->ts);
	}
	idmap_put(&d->tid_pid, k->u.thread.tid, k->u.thread.pid);
	if (k->op == EVOP_END || k->op == EVOP_START)
		etw_thread_ended(d, k->u.thread.tid, k->op == EVOP_END);
	/* Start is logged by the creating thread; the event is the new one's. */
	sev->h.pid = k->u.thread.pid;
	sev->h.tid = k->u.thread.tid;
	if (k->u.thread.affinity != 0) {
		fs->shape = &etw_shape_thread_affinity;
		fs->v[1].v.u = k->u.thread.affinity;
	} else {
		fs->shape = &etw_shape_thread_start;
		fs->v[1].v.u = k->u.thread.start_addr;
	}
	fs->v[0].v.u = id;
	fs->v[2].v.u = k->u.thread.win32_start;
	return 1;
}

static int
on_sample(struct etw_decoder *d, const struct etw_kernel *k,
    struct stream_event *sev, struct fields *fs)
{
	sev->h.tid = k->u.sample.tid;
	sev->h.pid = pid_of_tid(d, k->u.sample.tid);
	fs->shape = &etw_shape_sample;
	fs->v[0].v.u = k->u.sample.ip;
	fs->v[1].v.u = k->u.sample.count;
	fs->v[2].v.u = k->u.sample.flags >> 3;
	fs->v[3].v.u = k->u.sample.flags & 7;
	fs->v[4].v.u = k->u.sample.rank;
	return 1;
}

static int
on_vmem(const struct etw_kernel *k, struct stream_event *sev,
    struct fields *fs)
{
	/* PERFINFO events carry no ids: the payload names the process. */
	sev->h.pid = k->u.vmem.pid;
	fs->shape = &etw_shape_vmem;
	fs->v[0].v.u = k->u.vmem.base;
	fs->v[1].v.u = k->u.vmem.size;
	fs->v[2].v.u = k->u.vmem.flags;
	if (k->op == EVOP_DCSTART || k->op == EVOP_DCEND) {
		fs->shape = &etw_shape_vmem_rundown;
		fs->v[3].v.u = k->u.vmem.commit;
	}
	return 1;
}

static int
on_heap(const struct etw_kernel *k, struct fields *fs)
{
	struct value *v = fs->v;

	v[0].v.u = k->u.heap.heap;
	switch (k->op) {
	case EVOP_CREATE:
		fs->shape = &etw_shape_heap_create;
		v[1].v.u = k->u.heap.flags;
		break;
	case EVOP_ALLOC:
		fs->shape = &etw_shape_heap_alloc;
		v[1].v.u = k->u.heap.address;
		v[2].v.u = k->u.heap.size;
		v[3].v.u = k->u.heap.source;
		break;
	case EVOP_REALLOC:
		fs->shape = &etw_shape_heap_realloc;
		v[1].v.u = k->u.heap.address;
		v[2].v.u = k->u.heap.size;
		v[3].v.u = k->u.heap.old_address;
		v[4].v.u = k->u.heap.old_size;
		v[5].v.u = k->u.heap.source;
		break;
	case EVOP_FREE:
		fs->shape = &etw_shape_heap_free;
		v[1].v.u = k->u.heap.address;
		v[2].v.u = k->u.heap.source;
		break;
	default:
		fs->shape = &etw_shape_heap;
		break;
	}
	return 1;
}

/* CSwitch v1 to v5 (etl-events-2.md 3.1): the event is the new thread's. */
static int
on_cswitch(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, struct stream_event *sev, struct fields *fs)
{
	const struct etw_cswitch_fields *c = &k->u.cswitch;
	unsigned bits = (c->version < 2 ? ETW_CS_V1 : 0) |
	    (c->old_state == 5 ? ETW_CS_WAIT : 0) |
	    (c->has_quantum ? ETW_CS_QUANTUM : 0) |
	    (c->version >= 3 ? ETW_CS_QOS : 0) |
	    (c->has_extra ? ETW_CS_EXTRA : 0);
	struct value *v = fs->v;
	size_t i = 0;

	etw_cswitch_running(d, ev->cpu, c->new_tid);
	sev->h.tid = c->new_tid;
	sev->h.pid = pid_of_tid(d, c->new_tid);
	/* In the order of etw_shapes.c's make_cswitch(). */
	fs->shape = &d->shapes.cs[bits];
	v[i++].v.u = c->old_tid;
	v[i++].v.u = pid_of_tid(d, c->old_tid);
	v[i++].v.i = c->new_priority;
	v[i++].v.i = c->old_priority;
	v[i++].v.u = c->byte10;		/* new_quantum or previous_cstate */
	v[i++].v.u = c->byte11;
	/* The wait reason means something only for a waiting thread. */
	if (bits & ETW_CS_WAIT)
		etw_set_text(&v[i++], etw_wait_reason_name(c->old_wait_reason));
	v[i++].v.u = c->old_wait_mode;
	etw_set_text(&v[i++], etw_thread_state_name(c->old_state));
	v[i++].v.u = c->ideal_cpu;
	v[i++].v.u = c->new_wait_time;
	if (bits & ETW_CS_QUANTUM)
		v[i++].v.i = c->remaining_quantum;
	if (bits & ETW_CS_QOS) {
		v[i++].v.u = c->flags >> 1 & 7;
		v[i++].v.u = c->flags >> 4 & 7;
	}
	if (bits & ETW_CS_EXTRA)
		v[i++].v.u = c->extra_flags;
	return 1;
}

/*
 * ReadyThread (3.2): logged by the readying context, whose thread is the
 * one running on the processor (the walk's StackThread says the same).
 */
static int
on_ready(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, struct stream_event *sev, struct fields *fs)
{
	if (sev->h.tid == ETL_NO_ID)
		sev->h.tid = etw_cswitch_running_tid(d, ev->cpu);
	if (sev->h.pid == ETL_NO_ID && sev->h.tid != ETL_NO_ID)
		sev->h.pid = pid_of_tid(d, sev->h.tid);
	fs->shape = &etw_shape_ready;
	fs->v[0].v.u = k->u.ready.tid;
	fs->v[1].v.u = pid_of_tid(d, k->u.ready.tid);
	etw_set_text(&fs->v[2], etw_ready_reason_name(k->u.ready.reason));
	fs->v[3].v.i = k->u.ready.increment;
	fs->v[4].v.u = k->u.ready.flags;
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

	while ((data = etw_next_ext_item(&p, ev->ext + ev->ext_len, &t,
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
		return etw_guid_class(d, ev, te.provider && *te.provider ?
		    te.provider : NULL, te.name && *te.name ? te.name : NULL);
	}
	for (i = 0; i < te.nfields && fs->n < STREAM_EVENT_FIELDS_MAX; i++) {
		fs->f[fs->n].name = te.fields[i].name;
		fs->f[fs->n].val = te.fields[i].val;
		fs->n++;
		fs->dynamic = 1;
	}
	*decoded = 1;
	return etw_guid_class(d, ev, *te.provider ? te.provider : NULL, te.name);
}

/* Events without a first-class kind: kept whole, with a class. */
static int
on_generic(struct etw_decoder *d, const struct etl_event *ev, int hook,
    struct stream_event *sev, struct fields *fs)
{
	int decoded = 0, ext = ev->hdr == ETL_HDR_EVENT && ev->ext_len > 0;

	sev->h.kind = EV_GENERIC;
	if (hook >= 0)
		sev->h.cls = etw_kernel_class(d, ev, hook);
	else if (!ext ||
	    (sev->h.cls = tracelogging_class(d, ev, fs, &decoded)) == 0)
		sev->h.cls = etw_guid_class(d, ev, NULL, NULL);
	if (!decoded) {
		sev->payload = ev->payload;
		sev->payload_len = ev->payload_len;
	}
	if (ext)
		sev->h.stack = etw_inline_stack(d, ev);
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
		*image_slot = etw_add_pending_image(d, ev, k, id);
		fs->shape = &etw_shape_image;
		fs->v[0].v.u = id;
		fs->v[1].v.u = k->u.image.base;
		fs->v[2].v.u = k->u.image.size;
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
		return on_cswitch(d, ev, k, sev, fs);
	case KREC_CSWITCH_BATCH: {
		/* Counted once as seen by the caller, written per switch. */
		stream_id cls = etw_kernel_class(d, ev, hook_of(ev));

		if (cls != 0)
			d->class_seen[cls]--;
		etw_on_cswitch_batch(d, ev, k, cls);
		return 0;
	}
	case KREC_READY:
		sev->h.kind = EV_READY;
		return on_ready(d, ev, k, sev, fs);
	case KREC_LOST:
		sev->h.kind = EV_LOST;
		return 1;
	case KREC_STACK:
		etw_on_stack_walk(d, ev, k);
		return 0;
	case KREC_STACK_KEY:
		etw_on_stack_key(d, ev, k);
		return 0;
	case KREC_KEY_DEF:
		etw_on_key_definition(d, ev, k);
		return 0;
	case KREC_IMAGE_ID:
	case KREC_DBG_ID:
		etw_on_image_id(d, ev, k);
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

/*
 * The thread whose stack walk an event may own (5.6 step 2): the one that
 * logged it.  Process and thread start are logged by the parent, so their
 * header's thread, not the new one the event is about.
 */
static uint32_t
owner_tid(const struct etl_event *ev, const struct etw_kernel *k,
    const struct stream_event *sev)
{
	if ((k->type == KREC_PROCESS || k->type == KREC_THREAD) &&
	    ev->tid != ETL_NO_ID)
		return ev->tid;
	return sev->h.tid;
}

int
etw_decoder_event(struct etw_decoder *d, const struct etl_event *ev)
{
	struct stream_event sev = { .h = { .cpu = ev->cpu, .pid = ev->pid,
	    .tid = ev->tid, .ts = etw_to_ns(d, ev->ts) } };
	struct fields fs = { d->fields, 0, 0, NULL, d->vals };
	struct etw_kernel k;
	uint32_t image_slot = NO_SLOT;
	struct qentry *e;
	int hook = hook_of(ev), owns;

	if (d->failed)
		return -1;
	if (etw_release_until(d, ev->ts) != 0)
		return -1;
	d->last_ts = ev->ts;
	if (etw_heapsnap_event(d, ev))
		return d->failed ? -1 : 0;
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
		sev.h.cls = etw_kernel_class(d, ev, hook);
	else
		sev.h.cls = etw_guid_class(d, ev, NULL, NULL);
	if (d->failed || sev.h.cls == 0)
		return -1;
	if (sev.h.kind == 0)
		return 0;	/* absorbed into definitions */
	sev.shape = fs.shape;
	sev.vals = fs.v;
	sev.nfields = fs.n;
	sev.fields = fs.f;
	sev.static_names = !fs.dynamic;
	if ((e = etw_queue_event(d, &sev, ev, owns ? owner_tid(ev, &k, &sev) :
	    ETL_NO_ID, image_slot)) == NULL) {
		d->failed = 1;
		return -1;
	}
	/*
	 * A ReadyThread names no readying thread: the one running on its
	 * processor is our guess, and its walk may say another (a DPC's, 0),
	 * so it stays a candidate without a thread id too (5.6 step 3).
	 */
	e->tid_guessed = sev.h.kind == EV_READY && ev->tid == ETL_NO_ID;
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
	etw_shapes_init(&d->shapes);
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
	d->late_ticks = d->hold_ticks / ETW_HOLD_MS * LATE_MS;
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


int
etw_decoder_finish(struct etw_decoder *d, const struct etl_counts *c)
{
	struct stream_end e = { .source_events = c->events,
	    .source_bytes = c->bytes, .memory_bytes = d->memory_bytes,
	    .computer = d->computer };
	uint32_t id;

	/*
	 * The last compact switches take their walks, then the stacks still
	 * promised are settled: their events, still queued, take them.
	 */
	etw_cswitch_finish(d);
	etw_settle_stacks(d);
	etw_heapsnap_finish(d);
	while (d->qcount > 0 && !d->failed)
		etw_release_oldest(d);
	if (etw_release_late_until(d, UINT64_MAX) != 0)
		d->failed = 1;
	for (id = 0; id < IMAGES_MAX; id++)
		if (d->images[id].used && etw_write_image_def(d, id) != 0)
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
	write_diag(d, "compact CSwitch batches cut short",
	    d->stats.cswitch_batches_cut, 0, 0);
	write_diag(d, "compact CSwitch records with a bad thread state",
	    d->stats.cswitch_bad_records, 0, 0);
	write_diag(d, "compact CSwitch records older than events written",
	    d->stats.cswitch_late, 0, 0);
	write_diag(d, "ImageID events without an image",
	    d->stats.image_ids_unjoined, 0, 0);
	write_diag(d, "events lost by the logger", d->h.events_lost, 0, 0);
	write_diag(d, "buffers lost by the logger", d->h.buffers_lost, 0, 0);
	write_diag(d, "buffers flagged as losing events", c->lost_flagged, 0, 0);
	e.end_ns = (uint64_t)etw_to_ns(d, d->last_ts);
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
	idmap_release(&d->ended);
	free(d->unowned);
	idmap_release(&d->unowned_index);
	etw_queue_free(d);
	tl_decoder_free(d->tl);
	etw_heapsnap_free(d);
	etw_cswitch_free(d);
	buf_release(&d->held);
	free(d);
}
