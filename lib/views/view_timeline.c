/*
 * view_timeline.c - etlagg timeline: each thread's time as spans of one
 * state, in time order, as WPA's CPU Usage (Precise) timeline draws a
 * thread's lane: running (on which processor), ready (waiting for a
 * processor, since it was readied) and waiting (since its switch-out,
 * with the state and wait reason it went out with and the thread that
 * readied it).  The spans are the schedule's own (sched.h's struct
 * sched_span), those that the sums of `threads` add up, so a thread's
 * spans of a state add up to its figure there, window and filters
 * alike.  The rows are held until the end, about 48 bytes a span.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "model/model.h"
#include "model/proclabel.h"
#include "model/sched.h"
#include "view.h"

struct span_row {
	int64_t from, to;
	uint32_t thread;		/* sched_thread() index */
	uint32_t out_state, out_reason;	/* texts; 0: none */
	uint32_t readier_tid, readier_pid, readier_image;
	uint16_t cpu;
	uint8_t state, readied;
};

struct view {
	struct model *mine;		/* its own model, or NULL: shared */
	struct sched *s;
	struct sched_pick pick;		/* --tid */
	struct span_row *rows;
	size_t n, cap;
	int oom;			/* a span could not be kept */
	struct intern texts;
	struct proclabels labels;	/* the section's processes */
	uint32_t *label;		/* text by thread index; 0: none */
	size_t label_cap, named;	/* threads named so far */
};

/* A text of `texts`, 0 for none or empty. */
static uint32_t
keep_text(struct view *v, const char *t)
{
	uint32_t id;

	if (t == NULL || *t == '\0')
		return 0;
	if ((id = intern_add(&v->texts, t, strlen(t), NULL)) == 0)
		v->oom = 1;
	return id;
}

static void
on_span(void *ctx, const struct sched_span *sp)
{
	struct view *v = ctx;
	struct span_row *row;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;

		if ((row = realloc(v->rows, cap * sizeof(*row))) == NULL) {
			v->oom = 1;
			return;
		}
		v->rows = row;
		v->cap = cap;
	}
	row = &v->rows[v->n++];
	memset(row, 0, sizeof(*row));
	row->from = sp->from;
	row->to = sp->to;
	row->thread = (uint32_t)(sp->t - sched_thread(v->s, 0));
	row->state = (uint8_t)sp->state;
	row->cpu = sp->cpu;
	if (sp->state == SCHED_RUNNING)
		return;
	row->out_state = keep_text(v, sp->out_state);
	row->out_reason = keep_text(v, sp->out_reason);
	row->readied = (uint8_t)sp->readied;
	if (sp->readied) {
		row->readier_tid = sp->readier_tid;
		row->readier_pid = sp->readier_pid;
		row->readier_image = keep_text(v, sp->readier_image);
	}
}

/* The process instance of thread `i` in the section's labels. */
static uint32_t
instance(struct view *v, const struct stream_reader *r, size_t i)
{
	const struct sched_thread *t = sched_thread(v->s, i);

	return proclabels_add_def(&v->labels, t->proc != 0 ?
	    stream_process(r, t->proc) : NULL, t->pid, t->proc_start_ns,
	    t->image);
}

/*
 * The section ended: labels for its threads, all of them added first
 * so that each label knows whether another instance shares its name.
 * @return : 0, or -1 if out of memory.
 */
static int
name_threads(struct view *v, const struct stream_reader *r)
{
	size_t i, len, n = sched_count(v->s);
	const char *label;

	if (array_room(&v->label, &v->label_cap, n, sizeof(*v->label)) ==
	    NULL)
		return -1;
	for (i = v->named; i < n; i++)
		if (instance(v, r, i) == 0)
			return -1;
	for (i = v->named; i < n; i++) {
		label = proclabels_get(&v->labels, instance(v, r, i), &len);
		if ((v->label[i] = intern_add(&v->texts, label, len, NULL)) ==
		    0)
			return -1;
	}
	v->named = n;
	return 0;
}

/* Its options, for etlagg and sched_options(). */
static const struct option longopts[] = {
	{ "from", required_argument, NULL, SCHED_OPT_FROM },
	{ "tid", required_argument, NULL, SCHED_OPT_TID },
	{ "to", required_argument, NULL, SCHED_OPT_TO },
	{ NULL, 0, NULL, 0 }
};

static struct view *
timeline_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	int64_t from, to;
	unsigned flags = 0;
	int by = 0;

	if (v == NULL)
		return NULL;
	if (sched_options(argc, argv, used, "timeline", longopts, NULL, 0,
	    &by, &from, &to, &flags, &v->pick) != 0) {
		free(v);
		return NULL;
	}
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->s = model_sched(m, from, to)) == NULL ||
	    sched_add_spans(v->s, on_span, v, &v->pick) != 0) {
		model_free(v->mine);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static int
timeline_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rec->type == REC_HEADER && name_threads(v, r) != 0)
		return -1;
	if (proclabels_record(&v->labels, rec) != 0 ||
	    (v->mine != NULL && model_record(v->mine, r, rec) != 0) ||
	    v->oom)
		return -1;
	return rec->type == REC_END ? name_threads(v, r) : 0;
}

static const struct stream_column cols[] = {
	{ "process", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "tid", VAL_U64, "" }, { "thread_start", VAL_NS, "" },
	{ "state", VAL_STR, "" }, { "start", VAL_NS, "" },
	{ "end", VAL_NS, "" }, { "duration_ns", VAL_U64, "ns" },
	{ "cpu", VAL_U64, "" }, { "out_state", VAL_STR, "" },
	{ "wait_reason", VAL_STR, "" }, { "readying_tid", VAL_U64, "" },
	{ "readying_pid", VAL_U64, "" }, { "readying_image", VAL_STR, "" }
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* By thread instance, then by time. */
static int
cmp_rows(const void *a, const void *b)
{
	const struct span_row *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->state > y->state) - (x->state < y->state);
}

/* A text of `texts` as a cell. */
#define text(v, id)	view_text_cell(&(v)->texts, (id))

static const char *const state_names[] = { "running", "ready", "waiting" };

/* The cells of one span. */
static void
span_cells(const struct view *v, const struct span_row *x, struct value *c)
{
	const struct sched_thread *t = sched_thread(v->s, x->thread);
	const char *st = state_names[x->state];

	memset(c, 0, NCOLS * sizeof(*c));
	c[0] = text(v, x->thread < v->named ? v->label[x->thread] : 0);
	c[1] = (struct value){ .type = VAL_U64, .v.u = t->pid };
	c[2] = (struct value){ .type = VAL_U64, .v.u = t->tid };
	if (t->start_ns != INT64_MIN)
		c[3] = (struct value){ .type = VAL_NS, .v.i = t->start_ns };
	c[4] = (struct value){ .type = VAL_STR, .v.s = { st, strlen(st) } };
	c[5] = (struct value){ .type = VAL_NS, .v.i = x->from };
	c[6] = (struct value){ .type = VAL_NS, .v.i = x->to };
	c[7] = (struct value){ .type = VAL_U64,
	    .v.u = (uint64_t)(x->to - x->from) };
	if (x->state == SCHED_RUNNING) {
		c[8] = (struct value){ .type = VAL_U64, .v.u = x->cpu };
		return;
	}
	c[9] = text(v, x->out_state);
	c[10] = text(v, x->out_reason);
	if (x->readied) {
		c[11] = (struct value){ .type = VAL_U64, .v.u = x->readier_tid };
		c[12] = (struct value){ .type = VAL_U64, .v.u = x->readier_pid };
		c[13] = text(v, x->readier_image);
	}
}

static int
timeline_finish(struct view *v, struct stream_writer *w)
{
	int rc = view_write_table(w, 1, "timeline", cols, NCOLS);
	struct value c[NCOLS];
	struct stream_row row = { 1, NCOLS, c };
	size_t i;

	sched_close(v->s);
	if (v->oom)
		return -1;
	sched_warn(v->s, "timeline", view_warning);
	if (v->n > 1)
		qsort(v->rows, v->n, sizeof(*v->rows), cmp_rows);
	for (i = 0; i < v->n && rc == 0; i++) {
		if (sched_thread(v->s, v->rows[i].thread)->hidden)
			continue;	/* kept by a filter as context only */
		span_cells(v, &v->rows[i], c);
		rc = stream_write_row(w, &row);
	}
	return rc;
}

static void
timeline_destroy(struct view *v)
{
	if (v == NULL)
		return;
	model_free(v->mine);
	intern_release(&v->texts);
	proclabels_release(&v->labels);
	free(v->label);
	free(v->rows);
	free(v);
}

static const char *const tables[] = { "timeline", NULL };

const struct view_ops view_timeline_ops = {
	.name = "timeline",
	.needs_kind = EV_CSWITCH,
	.needs = "the trace has no CSwitch events, so no thread states; "
	    "the RustcWaits profile of pipelines/rustc.wprp records them",
	.usage = "[--from seconds] [--to seconds] [--tid list]",
	.summary = "each thread's running, ready and waiting spans in time "
	    "order, as WPA's CPU Usage (Precise) timeline",
	.options = longopts,
	.tables = tables,
	.create = timeline_create,
	.record = timeline_record,
	.finish = timeline_finish,
	.destroy = timeline_destroy,
};
