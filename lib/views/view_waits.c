/*
 * view_waits.c - etlagg waits: where threads were blocked and for how
 * long (PerfView's Thread Time, WPA's waits analysis; etl-events-2.md
 * 3.3, 3.4).  Each switch-in of a thread that had been switched out
 * charges its blocked time (switch-out to switch-in) to where the thread
 * blocked: the stack of the CSwitch that switched it back in.  The time
 * is split into waiting (until it was readied) and ready (waiting for a
 * processor).
 *
 *	--by stack	the blocked stack: image;frames, outermost first;
 *			with --instances, rooted at the process instance
 *			as --by thread names it, not its image
 *	--by function	the innermost user-mode frame of it (else innermost)
 *	--by module	that frame's module
 *	--by thread	the thread: process (pid) tid, its process named
 *			as proclabel.h names the section's instances
 *	--by reason	the wait reason of the switch-out
 *
 * Columns: the key, reason (by reason, the key alone), count, max_ns,
 * the readying thread, process and stack of the longest wait,
 * waiting_ns, ready_ns, blocked_ns (the last, so that folded and svg
 * draw an off-CPU flame graph by ns).
 *
 * Stacks of a section are named at its end (REC_END), when every stack
 * it used is defined; until then the view keeps one entry per distinct
 * (stack, reason, thread) of the section.
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

#define REASON		24
#define TEXT_MAX	8192

enum by { BY_STACK, BY_FUNCTION, BY_MODULE, BY_THREAD, BY_REASON };

static const char *const by_names[] = { "stack", "function", "module",
    "thread", "reason" };

/* A section's key: what is named at its end. */
struct skey {
	stream_id stack;
	uint32_t tid, pid;
	uint32_t thread;		/* the instance, sched_thread() */
	char reason[REASON];
};

/* Sums, and the longest wait with its readier. */
struct weight {
	uint64_t count, waiting_ns, ready_ns, max_ns;
	uint32_t rtid, rpid;
	stream_id rstack;		/* section keys: a stack id */
	uint32_t rtext;			/* rows: readier "image|stack" text */
	int readied;
};

struct view {
	struct sched *s;
	struct sched_pick pick;		/* --tid */
	struct model *mine;		/* its own model, or NULL: shared */
	struct frames *frames;
	int by, instances;
	struct intern skeys, rows, texts;
	struct proclabels labels;	/* --by thread, --instances */
	struct weight *sw, *rw;		/* by section key, by row */
	size_t scap, rcap;
	char text[TEXT_MAX], text2[TEXT_MAX];
};

static void
merge_weight(struct weight *to, const struct weight *from)
{
	if (from->max_ns >= to->max_ns || to->count == 0) {
		to->max_ns = from->max_ns;
		to->rtid = from->rtid;
		to->rpid = from->rpid;
		to->rstack = from->rstack;
		to->rtext = from->rtext;
		to->readied = from->readied;
	}
	to->count += from->count;
	to->waiting_ns += from->waiting_ns;
	to->ready_ns += from->ready_ns;
}

static int
on_switch(void *ctx, const struct stream_reader *r,
    const struct sched_switch *sw)
{
	struct view *v = ctx;
	struct skey k;
	struct weight w, *slot;
	uint32_t id;

	(void)r;
	if (!sw->has_prev)
		return 0;
	memset(&k, 0, sizeof(k));
	k.stack = v->by <= BY_MODULE ? sw->stack : 0;
	k.tid = sw->in->tid;
	k.pid = sw->in->pid;
	k.thread = (uint32_t)(sw->in - sched_thread(v->s, 0));
	snprintf(k.reason, sizeof(k.reason), "%s", sw->prev_reason &&
	    *sw->prev_reason ? sw->prev_reason : sw->prev_state ?
	    sw->prev_state : "");
	memset(&w, 0, sizeof(w));
	w.count = 1;
	w.waiting_ns = sw->waiting_ns;
	w.ready_ns = sw->ready_ns;
	w.max_ns = sw->waiting_ns + sw->ready_ns;
	w.readied = sw->readied;
	w.rtid = sw->readier_tid;
	w.rpid = sw->readier_pid;
	w.rstack = sw->ready_stack;
	if ((id = intern_add(&v->skeys, &k, sizeof(k), NULL)) == 0 ||
	    (slot = array_slot(&v->sw, &v->scap, id, sizeof(*slot))) == NULL)
		return -1;
	merge_weight(slot, &w);
	return 0;
}

/*
 * The process instance of thread `t` in the section's labels.
 * @return : its id, or 0 if out of memory.
 */
static uint32_t
instance(struct view *v, const struct stream_reader *r,
    const struct sched_thread *t)
{
	return proclabels_add_def(&v->labels, t->proc != 0 ?
	    stream_process(r, t->proc) : NULL, t->pid, t->proc_start_ns,
	    t->image);
}

/*
 * --by thread: the processes of the section's rows into its labels, all
 * of them first, so that each label knows whether another instance
 * shares its name.  @return : 0, or -1 if out of memory.
 */
static int
label_section(struct view *v, const struct stream_reader *r)
{
	uint32_t id;
	size_t klen;

	for (id = 1; id <= v->skeys.count && (v->by == BY_THREAD ||
	    v->instances); id++) {
		const struct sched_thread *t;
		struct skey k;

		memcpy(&k, intern_key(&v->skeys, id, &klen), sizeof(k));
		t = sched_thread(v->s, k.thread);
		if (!t->hidden && instance(v, r, t) == 0)
			return -1;
	}
	return 0;
}

/*
 * The root of a stack and its ';' into text: the image, or with
 * --instances the instance (a ';' of its name made '_', as frames.h
 * makes them).  @return : its length.
 */
static size_t
root_text(struct view *v, const struct stream_reader *r,
    const struct skey *k, const struct stream_process *p, char *text)
{
	size_t n, i;

	if (!v->instances)
		return (size_t)snprintf(text, TEXT_MAX, "%s;",
		    p && p->name ? p->name : "?");
	n = (size_t)snprintf(text, TEXT_MAX, "%s;", proclabels_get(&v->labels,
	    instance(v, r, sched_thread(v->s, k->thread)), NULL));
	for (i = 0; i + 1 < n; i++)
		if (text[i] == ';' || text[i] == '\n' || text[i] == '\r')
			text[i] = '_';
	return n;
}

/* Names the section's keys and adds them to the rows. */
static int
name_section(struct view *v, const struct stream_reader *r)
{
	uint32_t id, row, text;
	size_t len, klen;
	struct weight *slot;

	if (label_section(v, r) != 0)
		return -1;
	for (id = 1; id <= v->skeys.count; id++) {
		struct skey k;
		struct weight w = v->sw[id];

		memcpy(&k, intern_key(&v->skeys, id, &klen), sizeof(k));
		if (sched_thread(v->s, k.thread)->hidden)
			continue;	/* kept by a filter as context only */
		switch (v->by) {
		case BY_STACK:
		case BY_FUNCTION:
		case BY_MODULE: {
			const struct stream_process *p =
			    stream_process_by_pid(r, k.pid);
			size_t n = 0;

			if (v->by == BY_STACK)
				n = root_text(v, r, &k, p, v->text);
			sched_stack_text(v->frames, r, k.stack, k.pid, v->by == BY_STACK ?
			    0 : v->by == BY_FUNCTION ? 1 : 2, v->text + n,
			    TEXT_MAX - n);
			break;
		}
		case BY_THREAD:
			/* Its own process's name: the pid may be reused. */
			snprintf(v->text, TEXT_MAX, "%s %u", proclabels_get(
			    &v->labels, instance(v, r,
			    sched_thread(v->s, k.thread)), NULL), k.tid);
			break;
		default:
			v->text[0] = '\0';
		}
		len = strlen(v->text);
		snprintf(v->text + len + 1, TEXT_MAX - len - 1, "%s", k.reason);
		len += 1 + strlen(k.reason);
		/* The readier of the longest wait, as text. */
		if (w.readied) {
			const struct stream_process *p =
			    stream_process_by_pid(r, w.rpid);
			size_t n = (size_t)snprintf(v->text2, TEXT_MAX, "%s|",
			    p && p->name ? p->name : "");

			if (w.rstack != 0)
				sched_stack_text(v->frames, r, w.rstack, w.rpid, 0,
				    v->text2 + n, TEXT_MAX - n);
			if ((text = intern_add(&v->texts, v->text2,
			    strlen(v->text2), NULL)) == 0)
				return -1;
			w.rtext = text;
		}
		if ((row = intern_add(&v->rows, v->text, len, NULL)) == 0 ||
		    (slot = array_slot(&v->rw, &v->rcap, row,
		    sizeof(*slot))) == NULL)
			return -1;
		merge_weight(slot, &w);
	}
	intern_release(&v->skeys);
	memset(&v->skeys, 0, sizeof(v->skeys));
	if (v->sw != NULL)
		memset(v->sw, 0, v->scap * sizeof(*v->sw));
	return 0;
}

static int
waits_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rec->type == REC_HEADER && v->skeys.count > 0 &&
	    name_section(v, r) != 0)
		return -1;
	if (proclabels_record(&v->labels, rec) != 0 ||
	    (v->mine != NULL && model_record(v->mine, r, rec) != 0))
		return -1;
	if (rec->type == REC_END)
		return name_section(v, r);
	return 0;
}

/* Its options, for etlagg and sched_options(). */
static const struct option longopts[] = {
	{ "addresses", no_argument, NULL, SCHED_OPT_ADDRESSES },
	{ "by", required_argument, NULL, SCHED_OPT_BY },
	{ "from", required_argument, NULL, SCHED_OPT_FROM },
	{ "instances", no_argument, NULL, SCHED_OPT_INSTANCES },
	{ "tid", required_argument, NULL, SCHED_OPT_TID },
	{ "to", required_argument, NULL, SCHED_OPT_TO },
	{ NULL, 0, NULL, 0 }
};

static struct view *
waits_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	int64_t from, to;
	unsigned flags = 0;

	if (v == NULL)
		return NULL;
	if (sched_options(argc, argv, used, "waits", longopts, by_names, 5,
	    &v->by, &from, &to, &flags, &v->pick) != 0) {
		free(v);
		return NULL;
	}
	v->instances = (flags & SCHED_INSTANCES) != 0;
	if (v->instances && v->by != BY_STACK) {
		view_warn("waits: --instances roots stacks: it wants --by stack");
		free(v);
		return NULL;
	}
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->frames = model_frames(m, flags & ~SCHED_INSTANCES)) == NULL ||
	    (v->s = model_sched(m, from, to)) == NULL ||
	    sched_add_switches(v->s, on_switch, v, &v->pick) != 0) {
		model_free(v->mine);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static const struct view *sort_view;

/* Rows by falling blocked time, then by key. */
static int
cmp_rows(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct weight *wx = &sort_view->rw[x], *wy = &sort_view->rw[y];
	uint64_t bx = wx->waiting_ns + wx->ready_ns;
	uint64_t by = wy->waiting_ns + wy->ready_ns;
	size_t lx, ly;
	const char *kx, *ky;
	int c;

	if (bx != by)
		return bx > by ? -1 : 1;
	kx = intern_key(&sort_view->rows, x, &lx);
	ky = intern_key(&sort_view->rows, y, &ly);
	if ((c = memcmp(kx, ky, lx < ly ? lx : ly)) != 0)
		return c;
	return lx < ly ? -1 : lx > ly;
}

static struct value
str(const char *s, size_t len)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, len } };
}

static int
waits_finish(struct view *v, struct stream_writer *w)
{
	struct stream_column cols[] = {
		{ by_names[v->by], VAL_STR, "" }, { "reason", VAL_STR, "" },
		{ "count", VAL_U64, "" }, { "max_ns", VAL_U64, "ns" },
		{ "readying_tid", VAL_U64, "" },
		{ "readying_process", VAL_STR, "" },
		{ "readying_stack", VAL_STR, "" },
		{ "waiting_ns", VAL_U64, "ns" }, { "ready_ns", VAL_U64, "ns" },
		{ "blocked_ns", VAL_U64, "ns" }
	};
	uint32_t n = v->rows.count, i, *order;
	/* By reason, the key is the reason: its column once. */
	size_t skip = v->by == BY_REASON;
	int rc;

	sched_warn(v->s, "waits", view_warning);
	if ((order = malloc((n ? n : 1) * sizeof(*order))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		order[i] = i + 1;
	sort_view = v;
	qsort(order, n, sizeof(*order), cmp_rows);
	rc = view_write_table(w, 1, "waits", cols + skip, 10 - skip);
	for (i = 0; i < n && rc == 0; i++) {
		const struct weight *x = &v->rw[order[i]];
		size_t klen, tlen = 0;
		const char *key = intern_key(&v->rows, order[i], &klen);
		size_t glen = strnlen(key, klen);
		const char *rt = x->rtext ? intern_key(&v->texts, x->rtext,
		    &tlen) : "";
		const char *bar = memchr(rt, '|', tlen);
		struct value c[10];
		struct stream_row row = { 1, 10 - skip, c + skip };

		memset(c, 0, sizeof(c));
		c[0] = str(key, glen);
		c[1] = str(key + glen + 1, klen - glen - 1);
		c[2] = (struct value){ .type = VAL_U64, .v.u = x->count };
		c[3] = (struct value){ .type = VAL_U64, .v.u = x->max_ns };
		if (x->readied) {
			c[4] = (struct value){ .type = VAL_U64, .v.u = x->rtid };
			if (bar != NULL) {
				c[5] = str(rt, (size_t)(bar - rt));
				c[6] = str(bar + 1, tlen - (size_t)(bar - rt) - 1);
			}
		}
		c[7] = (struct value){ .type = VAL_U64, .v.u = x->waiting_ns };
		c[8] = (struct value){ .type = VAL_U64, .v.u = x->ready_ns };
		c[9] = (struct value){ .type = VAL_U64,
		    .v.u = x->waiting_ns + x->ready_ns };
		rc = stream_write_row(w, &row);
	}
	free(order);
	return rc;
}

static void
waits_destroy(struct view *v)
{
	if (v == NULL)
		return;
	model_free(v->mine);
	intern_release(&v->skeys);
	intern_release(&v->rows);
	intern_release(&v->texts);
	proclabels_release(&v->labels);
	free(v->sw);
	free(v->rw);
	free(v);
}

const struct view_ops view_waits_ops = {
	.name = "waits",
	.needs_kind = EV_CSWITCH,
	.needs = "the trace has no CSwitch events, so no waits; the "
	    "RustcWaits profile of pipelines/rustc.wprp records them",
	.usage = "[--addresses] [--by stack|function|module|thread|reason] "
	    "[--instances] [--from seconds] [--to seconds] [--tid list]",
	.summary = "blocked time by where threads waited, split into waiting "
	    "and ready, with the readying thread",
	.reader_flags = STREAM_KEEP_STACKS,
	.options = longopts,
	.create = waits_create,
	.record = waits_record,
	.finish = waits_finish,
	.destroy = waits_destroy,
};
