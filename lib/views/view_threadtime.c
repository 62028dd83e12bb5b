/*
 * view_threadtime.c - etlagg threadtime --by stack: where each thread's
 * wall-clock time went, on and off the processor, in one tree weighted
 * by nanoseconds, as PerfView's Thread Time view builds it
 * (etl-events-2.md 3.4):
 *
 *	image (pid);Thread (tid);CPU_TIME;frames...
 *		a CPU sample, weighing the sampling interval
 *	image (pid);Thread (tid);BLOCKED_TIME;frames...[;READIED_BY
 *	    image (pid) tid;frames of the readier...]
 *		the waiting part of a block: switch-out until readied,
 *		under the stack where the thread blocked, then who readied
 *		it and from where
 *	image (pid);Thread (tid);READIED_TIME (waiting for cpu);frames...
 *		the ready part: readied until switched in
 *
 * A process is named as proclabel.h names the instances of a section:
 * a rustc by its crate, "core (pid)", and with its start when a reused
 * pid would give two instances one name, so that they stay apart.
 * Frames run outermost first.  One table, stack and ns, for the folded
 * and svg formats.  Stacks are named at the end of each section.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "base/intern.h"
#include "model/model.h"
#include "model/proclabel.h"
#include "model/sched.h"
#include "view.h"

#define TEXT_MAX	16384
#define DEFAULT_INTERVAL_NS 1000000	/* 1 kHz, the kernel's default */

enum part { CPU_TIME, BLOCKED_TIME, READIED_TIME };

static const char *const part_names[] = { "CPU_TIME", "BLOCKED_TIME",
    "READIED_TIME (waiting for cpu)" };

/* A section's key: named at its end. */
struct tkey {
	uint32_t part, pid, tid, rpid, rtid, readied;
	uint32_t thread;		/* the instance + 1; 0 for samples */
	stream_id proc, rproc;		/* the processes, 0 if not known */
	stream_id stack, rstack;
	uint64_t ip;			/* CPU_TIME without a stack */
};

struct view {
	struct sched *s;
	struct sched_pick pick;		/* --tid */
	struct model *mine;		/* its own model, or NULL: shared */
	struct frames *frames;
	int64_t from, to, interval;
	struct intern keys, rows;
	struct proclabels labels;	/* the section's processes */
	uint64_t *key_ns, *row_ns;
	size_t kcap, rcap;
	char text[TEXT_MAX];
};

static int
add(struct view *v, const struct tkey *k, uint64_t ns)
{
	uint32_t id;
	uint64_t *slot;

	if (ns == 0)
		return 0;
	if ((id = intern_add(&v->keys, k, sizeof(*k), NULL)) == 0 ||
	    (slot = array_slot(&v->key_ns, &v->kcap, id, sizeof(*slot))) ==
	    NULL)
		return -1;
	*slot += ns;
	return 0;
}

/* The process `pid` denotes now, as a PROCESS id; 0 if none. */
static stream_id
proc_id(const struct stream_reader *r, uint32_t pid)
{
	const struct stream_process *p = stream_process_by_pid(r, pid);

	return p != NULL ? p->id : 0;
}

static int
on_switch(void *ctx, const struct stream_reader *r,
    const struct sched_switch *sw)
{
	struct view *v = ctx;
	struct tkey k;

	if (!sw->has_prev)
		return 0;
	memset(&k, 0, sizeof(k));
	k.pid = sw->in->pid;
	k.tid = sw->in->tid;
	k.proc = sw->in->proc;
	k.thread = (uint32_t)(sw->in - sched_thread(v->s, 0)) + 1;
	k.stack = sw->stack;
	k.part = READIED_TIME;
	if (add(v, &k, sw->ready_ns) != 0)
		return -1;
	k.part = BLOCKED_TIME;
	if ((k.readied = (uint32_t)sw->readied) != 0) {
		k.rpid = sw->readier_pid;
		k.rtid = sw->readier_tid;
		k.rproc = proc_id(r, k.rpid);
		k.rstack = sw->ready_stack;
	}
	return add(v, &k, sw->waiting_ns);
}

static uint64_t
sample_ip(const struct stream_event *ev)
{
	return stream_event_u(ev, "ip", 0);
}

/*
 * The instance of process `proc` (else of `pid` as the section ends)
 * in the section's labels.  @return : its id, or 0 if out of memory.
 */
static uint32_t
instance(struct view *v, const struct stream_reader *r, stream_id proc,
    uint32_t pid)
{
	const struct stream_process *p = proc != 0 ? stream_process(r, proc) :
	    NULL;

	if (p == NULL)
		p = stream_process_by_pid(r, pid);
	return proclabels_add_def(&v->labels, p != NULL && p->pid == pid ?
	    p : NULL, pid, INT64_MIN, "?");
}

/*
 * The processes of the section's rows into its labels, all of them
 * first, so that each label knows whether another instance shares its
 * name.
 * @return : 0, or -1 if out of memory.
 */
static int
label_section(struct view *v, const struct stream_reader *r)
{
	uint32_t id;
	size_t len;

	for (id = 1; id <= v->keys.count; id++) {
		struct tkey k;

		memcpy(&k, intern_key(&v->keys, id, &len), sizeof(k));
		if (k.thread != 0 && sched_thread(v->s, k.thread - 1)->hidden)
			continue;
		if (instance(v, r, k.proc, k.pid) == 0 || (k.readied &&
		    k.rtid != 0 && instance(v, r, k.rproc, k.rpid) == 0))
			return -1;
	}
	return 0;
}

/* Names the section's keys into rows. */
static int
name_section(struct view *v, const struct stream_reader *r)
{
	uint32_t id, row;
	uint64_t *slot;
	size_t n, len;

	if (label_section(v, r) != 0)
		return -1;
	for (id = 1; id <= v->keys.count; id++) {
		struct tkey k;

		memcpy(&k, intern_key(&v->keys, id, &len), sizeof(k));
		if (k.thread != 0 && sched_thread(v->s, k.thread - 1)->hidden)
			continue;	/* kept by a filter as context only */
		n = (size_t)snprintf(v->text, TEXT_MAX, "%s;Thread (%u);%s;",
		    proclabels_get(&v->labels, instance(v, r, k.proc, k.pid),
		    NULL), k.tid, part_names[k.part]);
		if (k.part == CPU_TIME && k.stack == 0) {
			char name[512];

			frames_name(v->frames, stream_process_by_pid(r, k.pid) ?
			    stream_process_by_pid(r, k.pid)->id : 0, k.ip,
			    name, sizeof(name));
			snprintf(v->text + n, TEXT_MAX - n, "%s;%s",
			    FRAMES_NO_STACK, name);
		} else
			sched_stack_text(v->frames, r, k.stack, k.pid, 0,
			    v->text + n, TEXT_MAX - n);
		if (k.part == BLOCKED_TIME && k.readied &&
		    (n = strlen(v->text)) + 64 < TEXT_MAX) {
			if (k.rtid == 0)
				n += (size_t)snprintf(v->text + n, TEXT_MAX - n,
				    ";READIED_BY Idle (%u) 0;", k.rpid);
			else
				n += (size_t)snprintf(v->text + n, TEXT_MAX - n,
				    ";READIED_BY %s %u;", proclabels_get(
				    &v->labels, instance(v, r, k.rproc, k.rpid),
				    NULL), k.rtid);
			sched_stack_text(v->frames, r, k.rstack, k.rpid, 0,
			    v->text + n, TEXT_MAX - n);
		}
		if ((row = intern_add(&v->rows, v->text, strlen(v->text),
		    NULL)) == 0 || (slot = array_slot(&v->row_ns, &v->rcap,
		    row, sizeof(*slot))) == NULL)
			return -1;
		*slot += v->key_ns[id];
	}
	intern_release(&v->keys);
	memset(&v->keys, 0, sizeof(v->keys));
	if (v->key_ns != NULL)
		memset(v->key_ns, 0, v->kcap * sizeof(*v->key_ns));
	return 0;
}

static int
threadtime_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;

	if (rec->type == REC_HEADER && v->keys.count > 0 &&
	    name_section(v, r) != 0)
		return -1;
	if (proclabels_record(&v->labels, rec) != 0)
		return -1;
	if (rec->type == REC_TRACE)
		v->interval = rec->u.trace.sample_interval_100ns ?
		    (int64_t)rec->u.trace.sample_interval_100ns * 100 :
		    DEFAULT_INTERVAL_NS;
	if (v->mine != NULL && model_record(v->mine, r, rec) != 0)
		return -1;
	if (rec->type == REC_EVENT && ev->h.kind == EV_SAMPLE &&
	    ev->h.tid != 0 && ev->h.ts >= v->from && ev->h.ts < v->to &&
	    sched_picked(&v->pick, ev->h.tid)) {
		struct tkey k;

		memset(&k, 0, sizeof(k));
		k.part = CPU_TIME;
		k.pid = ev->h.pid;
		k.proc = proc_id(r, k.pid);
		k.tid = ev->h.tid;
		k.stack = ev->h.stack;
		if (k.stack == 0)
			k.ip = sample_ip(ev);
		return add(v, &k, (uint64_t)v->interval);
	}
	if (rec->type == REC_END)
		return name_section(v, r);
	return 0;
}

static const char *const by_names[] = { "stack" };

/* Its options, for etlagg and sched_options(). */
static const struct option longopts[] = {
	{ "addresses", no_argument, NULL, SCHED_OPT_ADDRESSES },
	{ "by", required_argument, NULL, SCHED_OPT_BY },
	{ "from", required_argument, NULL, SCHED_OPT_FROM },
	{ "tid", required_argument, NULL, SCHED_OPT_TID },
	{ "to", required_argument, NULL, SCHED_OPT_TO },
	{ NULL, 0, NULL, 0 }
};

static struct view *
threadtime_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	unsigned flags = 0;
	int by = 0;

	if (v == NULL)
		return NULL;
	if (sched_options(argc, argv, used, "threadtime", longopts, by_names,
	    1, &by, &v->from, &v->to, &flags, &v->pick) != 0) {
		free(v);
		return NULL;
	}
	v->interval = DEFAULT_INTERVAL_NS;
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->frames = model_frames(m, flags)) == NULL ||
	    (v->s = model_sched(m, v->from, v->to)) == NULL ||
	    sched_add_switches(v->s, on_switch, v, &v->pick) != 0) {
		model_free(v->mine);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static const struct view *sort_view;

static int
cmp_rows(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t lx, ly;
	const char *kx = intern_key(&sort_view->rows, x, &lx);
	const char *ky = intern_key(&sort_view->rows, y, &ly);
	int c = memcmp(kx, ky, lx < ly ? lx : ly);

	return c != 0 ? c : lx < ly ? -1 : lx > ly;
}

static int
threadtime_finish(struct view *v, struct stream_writer *w)
{
	static const struct stream_column cols[] = {
		{ "stack", VAL_STR, "" }, { "ns", VAL_U64, "ns" }
	};
	uint32_t n = v->rows.count, i, *order;
	int rc;

	sched_warn(v->s, "threadtime", view_warning);
	if ((order = malloc((n ? n : 1) * sizeof(*order))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		order[i] = i + 1;
	sort_view = v;
	qsort(order, n, sizeof(*order), cmp_rows);
	rc = view_write_table(w, 1, "threadtime", cols, 2);
	for (i = 0; i < n && rc == 0; i++) {
		size_t len;
		const char *key = intern_key(&v->rows, order[i], &len);
		struct value c[2] = {
			{ .type = VAL_STR, .v.s = { key, len } },
			{ .type = VAL_U64, .v.u = v->row_ns[order[i]] }
		};
		struct stream_row row = { 1, 2, c };

		rc = stream_write_row(w, &row);
	}
	free(order);
	return rc;
}

static void
threadtime_destroy(struct view *v)
{
	if (v == NULL)
		return;
	model_free(v->mine);
	intern_release(&v->keys);
	intern_release(&v->rows);
	proclabels_release(&v->labels);
	free(v->key_ns);
	free(v->row_ns);
	free(v);
}

const struct view_ops view_threadtime_ops = {
	.name = "threadtime",
	.needs_kind = EV_CSWITCH,
	.needs = "the trace has no CSwitch events, so no blocked time; "
	    "the RustcWaits profile of pipelines/rustc.wprp records them",
	.usage = "[--addresses] [--by stack] [--from seconds] [--to seconds] "
	    "[--tid list]",
	.summary = "CPU samples and blocked time in one tree by ns (Thread "
	    "Time)",
	.reader_flags = STREAM_KEEP_STACKS,
	.options = longopts,
	.create = threadtime_create,
	.record = threadtime_record,
	.finish = threadtime_finish,
	.destroy = threadtime_destroy,
};
