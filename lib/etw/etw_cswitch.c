/*
 * etw_cswitch.c - context switches (etl-events-2.md sections 2 and 3):
 * the kernel's names of wait reasons, thread states and ready reasons,
 * the thread running on each processor (the readying thread of a
 * ReadyThread, 3.2), and compact CSwitch batches (HookId 0x0525)
 * expanded into ordinary CSwitch events (2.4).  etw_decode.c decodes the
 * ordinary CSwitch and ReadyThread events with the names from here.
 *
 * A batch is logged when it is flushed, after the switches it holds, and
 * the thread a record switches in is only known from the next record of
 * that processor.  So expanded switches are in the past when they are
 * made: they go to the hold queue's store of late records (etw_queue.c),
 * which writes them in their place among the queued events.  The
 * kernel logs the stack walk of a compact switch when it happens, before
 * the batch: etw_stacks.c keeps such walks, and an expanded switch takes
 * the one of its time and incoming thread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_state.h"

#define CS_CPUS		1024		/* processors tracked */
#define BATCH_HEADER	0x58		/* PERFINFO_CCSWAP_BUFFER */

/* A switch on one processor whose incoming thread is not known yet. */
struct cs_pending {
	uint64_t ts;
	uint32_t old_tid;
	int old_priority;		/* -1: not recorded (idle) */
	int old_state;			/* -1: not recorded (idle) */
	int wait_reason;		/* -1: none */
	uint32_t wait_time;
	int used;
};

struct etw_cswitch {
	uint32_t running[CS_CPUS];	/* thread on each processor, ... */
	uint8_t known[CS_CPUS];		/* ... once a switch said so */
	struct cs_pending pending[CS_CPUS];
	stream_id batch_class;
};

/* ---- names ---- */

static const char *const wait_reasons[] = {	/* KWAIT_REASON, 3.1 */
	"Executive", "FreePage", "PageIn", "PoolAllocation",
	"DelayExecution", "Suspended", "UserRequest", "WrExecutive",
	"WrFreePage", "WrPageIn", "WrPoolAllocation", "WrDelayExecution",
	"WrSuspended", "WrUserRequest", "WrEventPair", "WrQueue",
	"WrLpcReceive", "WrLpcReply", "WrVirtualMemory", "WrPageOut",
	"WrRendezvous", "WrKeyedEvent", "WrTerminated", "WrProcessInSwap",
	"WrCpuRateControl", "WrCalloutStack", "WrKernel", "WrResource",
	"WrPushLock", "WrMutex", "WrQuantumEnd", "WrDispatchInt",
	"WrPreempted", "WrYieldExecution", "WrFastMutex", "WrGuardedMutex",
	"WrRundown", "WrAlertByThreadId", "WrDeferredPreempt",
	"WrPhysicalFault", "WrIoRing", "WrMdlCache", "WrRcu"
};

static const char *const thread_states[] = {	/* KTHREAD_STATE */
	"Initialized", "Ready", "Running", "Standby", "Terminated",
	"Waiting", "Transition", "DeferredReady", "GateWaitObsolete",
	"WaitingForProcessInSwap"
};

static const char *const ready_reasons[] = { "None", "Unwait", "Boost" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *
etw_wait_reason_name(unsigned r)
{
	return r < NELEM(wait_reasons) ? wait_reasons[r] : "Unknown";
}

const char *
etw_thread_state_name(unsigned s)
{
	return s < NELEM(thread_states) ? thread_states[s] : "Unknown";
}

const char *
etw_ready_reason_name(int r)
{
	return r >= 0 && (unsigned)r < NELEM(ready_reasons) ?
	    ready_reasons[r] : "Unknown";
}

/*
 * KWAIT_REASON's count in the kernel of `build`: the offset of thread
 * states in a compact record's StateWr (2.3; 40 to 42 inferred).
 */
static unsigned
max_wait_reason(uint32_t build)
{
	if (build < 16299)
		return 39;
	if (build < 22000)
		return 40;
	if (build < 22621)
		return 41;
	if (build < 26100)
		return 42;
	return 43;
}

/* ---- the thread on each processor ---- */

static struct etw_cswitch *
cs_state(struct etw_decoder *d)
{
	if (d->cs == NULL)
		d->cs = calloc(1, sizeof(*d->cs));
	return d->cs;
}

void
etw_cswitch_running(struct etw_decoder *d, uint16_t cpu, uint32_t tid)
{
	struct etw_cswitch *cs = cs_state(d);

	if (cs == NULL || cpu >= CS_CPUS)
		return;
	cs->running[cpu] = tid;
	cs->known[cpu] = 1;
}

uint32_t
etw_cswitch_running_tid(const struct etw_decoder *d, uint16_t cpu)
{
	const struct etw_cswitch *cs = d->cs;

	return cs != NULL && cpu < CS_CPUS && cs->known[cpu] ?
	    cs->running[cpu] : ETL_NO_ID;
}

/* ---- compact batches (2.4) ---- */

static uint32_t
pid_of(struct etw_decoder *d, uint32_t tid)
{
	uint32_t pid;

	return idmap_get(&d->tid_pid, tid, &pid) ? pid : ETL_NO_ID;
}

/* The pending switch of `cpu`, now that `new_tid` is known, as a CSwitch. */
static void
emit_pending(struct etw_decoder *d, uint16_t cpu, uint32_t new_tid)
{
	struct cs_pending *p = &d->cs->pending[cpu];
	struct stream_event sev;
	struct value *v = d->vals;
	unsigned bits;
	size_t i = 0;

	if (!p->used)
		return;
	p->used = 0;
	memset(&sev, 0, sizeof(sev));
	sev.h.kind = EV_CSWITCH;
	sev.h.cpu = cpu;
	sev.h.ts = etw_to_ns(d, p->ts);
	sev.h.tid = new_tid;
	sev.h.pid = new_tid == ETL_NO_ID ? ETL_NO_ID : pid_of(d, new_tid);
	sev.h.cls = d->cs->batch_class;
	/* Its walk came before the batch: kept by time and thread (2.4). */
	if (new_tid != ETL_NO_ID && new_tid != 0)
		sev.h.stack = etw_take_unowned_walk(d, p->ts, new_tid);
	bits = (p->old_priority >= 0 ? ETW_CC_PRIORITY : 0) |
	    (p->wait_reason >= 0 ? ETW_CC_WAIT : 0) |
	    (p->old_state >= 0 ? ETW_CC_STATE : 0);
	/* In the order of etw_shapes.c's make_compact(). */
	v[i++].v.u = p->old_tid;
	v[i++].v.u = pid_of(d, p->old_tid);
	if (bits & ETW_CC_PRIORITY)
		v[i++].v.i = p->old_priority;
	if (bits & ETW_CC_WAIT)
		etw_set_text(&v[i++], etw_wait_reason_name((unsigned)p->wait_reason));
	if (bits & ETW_CC_STATE)
		etw_set_text(&v[i++], etw_thread_state_name((unsigned)p->old_state));
	v[i++].v.u = p->wait_time;
	v[i++].v.u = 1;		/* compact */
	sev.shape = &d->shapes.cc[bits];
	sev.vals = v;
	etw_queue_late(d, p->ts, &sev);
}

/* One record of a batch, at raw time `ts` (2.3). */
static void
batch_record(struct etw_decoder *d, uint16_t cpu, uint64_t ts,
    uint32_t old_tid, int priority, int state_wr, uint32_t wait_time)
{
	struct cs_pending *p = &d->cs->pending[cpu];
	unsigned max = max_wait_reason(d->h.provider_version);

	emit_pending(d, cpu, old_tid);
	p->used = 1;
	p->ts = ts;
	p->old_tid = old_tid;
	p->old_priority = priority;
	p->wait_time = wait_time;
	p->old_state = p->wait_reason = -1;
	if (state_wr >= 0 && (unsigned)state_wr < max) {
		p->old_state = 5;		/* Waiting */
		p->wait_reason = state_wr;
	} else if (state_wr >= 0 && (unsigned)state_wr < max + 10)
		p->old_state = state_wr - (int)max;
	else if (state_wr >= 0)
		d->stats.cswitch_bad_records++;
}

/*
 * Expands a compact batch (HookId 0x0525) of processor `ev->cpu` into
 * CSwitch events of class `cls`.  A batch cut short keeps the records
 * before the cut and is counted.
 */
void
etw_on_cswitch_batch(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, stream_id cls)
{
	const unsigned char *p = k->u.batch.data, *end = p + k->u.batch.len;
	struct etw_cswitch *cs = cs_state(d);
	uint64_t ts;

	d->stats.cswitch_batches++;
	if (cs == NULL || etw_late_init(d) != 0) {
		d->failed = 1;
		return;
	}
	cs->batch_class = cls;
	if (ev->cpu >= CS_CPUS || k->u.batch.len < BATCH_HEADER) {
		d->stats.cswitch_batches_cut++;
		return;
	}
	/* The batch is logged after its switches: none is later than it. */
	if ((ts = le64(p)) > ev->ts) {
		d->stats.cswitch_batches_cut++;
		return;
	}
	for (p += BATCH_HEADER; p < end && !d->failed;) {
		uint32_t w0, w1, idx;
		unsigned type = p[0] & 3;


		if (type == 0) {		/* IdleShort */
			if (end - p < 2)
				break;
			if ((ts += le16(p) >> 2) > ev->ts)
				break;
			batch_record(d, ev->cpu, ts, 0, -1, -1, 0);
			p += 2;
			continue;
		}
		if (end - p < 4)
			break;
		w0 = le32(p);
		if (type == 1) {		/* Idle */
			if ((ts += w0 >> 2) > ev->ts)
				break;
			batch_record(d, ev->cpu, ts, 0, -1, -1, 0);
			p += 4;
		} else if (type == 2) {		/* Lite */
			idx = w0 >> 2 & 0xf;
			if ((ts += w0 >> 15) > ev->ts)
				break;
			batch_record(d, ev->cpu, ts, le32(k->u.batch.data + 8 +
			    4 * idx), (int8_t)k->u.batch.data[0x48 + idx] +
			    (int)(w0 >> 6 & 7), (int)(w0 >> 9 & 0x3f), 0);
			p += 4;
		} else {			/* Full */
			if (end - p < 8)
				break;
			w1 = le32(p + 4);
			idx = w1 & 0xf;
			if ((ts += w0 >> 2) > ev->ts)
				break;
			batch_record(d, ev->cpu, ts, le32(k->u.batch.data + 8 +
			    4 * idx), (int)(w1 >> 10 & 0x1f),
			    (int)(w1 >> 4 & 0x3f), w1 >> 15);
			p += 8;
		}
	}
	/* Cut short, or a record later than the batch: the rest is lost. */
	if (p < end)
		d->stats.cswitch_batches_cut++;
}

/* The trace ended: the last switch of each processor, incoming unknown. */
void
etw_cswitch_finish(struct etw_decoder *d)
{
	uint16_t cpu;

	if (d->cs == NULL || d->late == NULL)
		return;
	for (cpu = 0; cpu < CS_CPUS; cpu++)
		emit_pending(d, cpu, ETL_NO_ID);
}

void
etw_cswitch_free(struct etw_decoder *d)
{
	struct etw_cswitch *cs = d->cs;

	if (cs == NULL)
		return;
	free(cs);
	d->cs = NULL;
}
