/*
 * view_switches.c - etlagg switches: the switch-in rows of WPA's CPU
 * Usage (Precise) table (etl-events-2.md 3.5), in time order, for a
 * spreadsheet: time, processor, the thread switched in (its process
 * named as proclabel.h names a section's instances) and the one
 * switched out with its state and wait reason, the incoming thread's
 * previous switch-out, ready time, ready and waiting time, and the
 * readying thread.  Use --from/--to (or etlfilter) to keep it short: the
 * rows are held until the end, about 200 bytes each.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/frames.h"
#include "base/intern.h"
#include "model/model.h"
#include "model/proclabel.h"
#include "model/sched.h"
#include "view.h"

#define NAME SCHED_NAME

struct row {
	int64_t ts, last_out, ready_time;
	uint64_t ready_ns, waiting_ns;
	uint32_t cpu, new_tid, new_pid, old_tid, old_pid, readier_tid;
	uint32_t readier_pid;
	char new_image[NAME], old_state[NAME], old_reason[NAME];
	char prev_state[NAME], prev_reason[NAME], readier_image[NAME];
	uint8_t has_prev, readied;
	size_t thread;			/* the instance switched in */
	uint32_t process_text;		/* its process's label, in texts */
	stream_id stack;		/* until named ... */
	uint32_t stack_text;		/* ... into texts */
};

struct view {
	struct sched *s;
	struct sched_pick pick;		/* --tid */
	struct model *mine;		/* its own model, or NULL: shared */
	struct frames *frames;
	struct row *rows;
	size_t n, cap, named;		/* rows of earlier sections named */
	struct intern texts;
	struct proclabels labels;	/* the section's processes */
	char text[8192];
};

static void
copy(char *dst, const char *src)
{
	snprintf(dst, NAME, "%s", src != NULL ? src : "");
}

static int
on_switch(void *ctx, const struct stream_reader *r,
    const struct sched_switch *sw)
{
	struct view *v = ctx;
	struct row *row;

	(void)r;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1024;

		if ((row = realloc(v->rows, cap * sizeof(*row))) == NULL)
			return -1;
		v->rows = row;
		v->cap = cap;
	}
	row = &v->rows[v->n++];
	memset(row, 0, sizeof(*row));
	row->ts = sw->ts;
	row->cpu = sw->cpu;
	row->new_tid = sw->in->tid;
	row->new_pid = sw->in->pid;
	copy(row->new_image, sw->in->image);
	row->old_tid = sw->old_tid;
	row->old_pid = sw->old_pid;
	copy(row->old_state, sw->old_state);
	copy(row->old_reason, sw->old_reason);
	row->has_prev = (uint8_t)sw->has_prev;
	row->last_out = sw->last_out_ns;
	row->ready_time = sw->ready_time_ns;
	copy(row->prev_state, sw->prev_state);
	copy(row->prev_reason, sw->prev_reason);
	row->ready_ns = sw->ready_ns;
	row->waiting_ns = sw->waiting_ns;
	row->readied = (uint8_t)sw->readied;
	row->readier_tid = sw->readier_tid;
	row->readier_pid = sw->readier_pid;
	copy(row->readier_image, sw->readier_image);
	row->thread = (size_t)(sw->in - sched_thread(v->s, 0));
	row->stack = sw->stack;
	return 0;
}

/* The process instance of a row's thread in the section's labels. */
static uint32_t
instance(struct view *v, const struct stream_reader *r,
    const struct row *x)
{
	const struct sched_thread *t = sched_thread(v->s, x->thread);

	return proclabels_add_def(&v->labels, t->proc != 0 ?
	    stream_process(r, t->proc) : NULL, t->pid, t->proc_start_ns,
	    t->image);
}

/*
 * Names the processes of the section's rows, all of them first so that
 * each label knows whether another instance shares its name.
 * @return : 0, or -1 if out of memory.
 */
static int
name_processes(struct view *v, const struct stream_reader *r)
{
	const char *label;
	size_t i, len;

	for (i = v->named; i < v->n; i++)
		if (!sched_thread(v->s, v->rows[i].thread)->hidden &&
		    instance(v, r, &v->rows[i]) == 0)
			return -1;
	for (i = v->named; i < v->n; i++) {
		if (sched_thread(v->s, v->rows[i].thread)->hidden)
			continue;	/* no row: no label */
		label = proclabels_get(&v->labels, instance(v, r, &v->rows[i]),
		    &len);
		if ((v->rows[i].process_text = intern_add(&v->texts, label,
		    len, NULL)) == 0)
			return -1;
	}
	return 0;
}

/*
 * Names the processes and the wait stacks of the section's rows, now
 * all are defined.
 */
static int
name_section(struct view *v, const struct stream_reader *r)
{
	if (name_processes(v, r) != 0)
		return -1;
	for (; v->named < v->n; v->named++) {
		struct row *x = &v->rows[v->named];

		if (x->stack == 0)
			continue;
		sched_stack_text(v->frames, r, x->stack, x->new_pid, 0,
		    v->text, sizeof(v->text));
		if ((x->stack_text = intern_add(&v->texts, v->text,
		    strlen(v->text), NULL)) == 0)
			return -1;
	}
	return 0;
}

/* Its options, for etlagg and sched_options(). */
static const struct option longopts[] = {
	{ "addresses", no_argument, NULL, SCHED_OPT_ADDRESSES },
	{ "from", required_argument, NULL, SCHED_OPT_FROM },
	{ "tid", required_argument, NULL, SCHED_OPT_TID },
	{ "to", required_argument, NULL, SCHED_OPT_TO },
	{ NULL, 0, NULL, 0 }
};

static struct view *
switches_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	int64_t from, to;
	unsigned flags = 0;
	int by = 0;

	if (v == NULL)
		return NULL;
	if (sched_options(argc, argv, used, "switches", longopts, NULL, 0,
	    &by, &from, &to, &flags, &v->pick) != 0) {
		free(v);
		return NULL;
	}
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->frames = model_frames(m, flags)) == NULL ||
	    (v->s = model_sched(m, from, to)) == NULL ||
	    sched_add_switches(v->s, on_switch, v, &v->pick) != 0) {
		model_free(v->mine);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static int
switches_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rec->type == REC_HEADER && name_section(v, r) != 0)
		return -1;
	if (proclabels_record(&v->labels, rec) != 0 ||
	    (v->mine != NULL && model_record(v->mine, r, rec) != 0))
		return -1;
	return rec->type == REC_END ? name_section(v, r) : 0;
}

static const struct stream_column cols[] = {
	{ "time", VAL_NS, "" }, { "cpu", VAL_U64, "" },
	{ "new_tid", VAL_U64, "" }, { "new_pid", VAL_U64, "" },
	{ "new_image", VAL_STR, "" }, { "new_process", VAL_STR, "" },
	{ "old_tid", VAL_U64, "" },
	{ "old_pid", VAL_U64, "" }, { "old_state", VAL_STR, "" },
	{ "old_wait_reason", VAL_STR, "" },
	{ "new_prev_state", VAL_STR, "" },
	{ "new_prev_wait_reason", VAL_STR, "" },
	{ "last_switch_out", VAL_NS, "" }, { "ready_time", VAL_NS, "" },
	{ "ready_ns", VAL_U64, "ns" }, { "waiting_ns", VAL_U64, "ns" },
	{ "readying_tid", VAL_U64, "" }, { "readying_pid", VAL_U64, "" },
	{ "readying_image", VAL_STR, "" },
	{ "next_switch_out", VAL_NS, "" }, { "wait_stack", VAL_STR, "" }
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static struct value
str(const char *s)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, strlen(s) } };
}

/* A text of `texts` as a cell. */
#define text(v, id)	view_text_cell(&(v)->texts, (id))

static int
switches_finish(struct view *v, struct stream_writer *w)
{
	int rc = view_write_table(w, 1, "switches", cols, NCOLS);
	size_t i, j, nt = sched_count(v->s);
	int64_t *next = malloc((nt ? nt : 1) * sizeof(*next)), *out;

	/* Walking back, each row's next switch-out is the next row's last. */
	if ((out = malloc(v->n ? v->n * sizeof(*out) : 1)) == NULL ||
	    next == NULL) {
		free(next);
		free(out);
		return -1;
	}
	sched_close(v->s);
	for (j = 0; j < nt; j++)
		next[j] = sched_thread(v->s, j)->last_out_ns;
	for (i = v->n; i-- > 0;) {
		const struct row *x = &v->rows[i];

		out[i] = next[x->thread] >= x->ts ? next[x->thread] : INT64_MIN;
		if (x->has_prev)
			next[x->thread] = x->last_out;
	}
	free(next);
	sched_warn(v->s, "switches", view_warning);
	for (i = 0; i < v->n && rc == 0; i++) {
		const struct row *x = &v->rows[i];
		struct value c[NCOLS];
		struct stream_row row = { 1, NCOLS, c };

		if (sched_thread(v->s, x->thread)->hidden)
			continue;	/* kept by a filter as context only */
		memset(c, 0, sizeof(c));
		c[0] = (struct value){ .type = VAL_NS, .v.i = x->ts };
		c[1] = (struct value){ .type = VAL_U64, .v.u = x->cpu };
		c[2] = (struct value){ .type = VAL_U64, .v.u = x->new_tid };
		c[3] = (struct value){ .type = VAL_U64, .v.u = x->new_pid };
		c[4] = str(x->new_image);
		c[5] = text(v, x->process_text);
		c[6] = (struct value){ .type = VAL_U64, .v.u = x->old_tid };
		c[7] = (struct value){ .type = VAL_U64, .v.u = x->old_pid };
		c[8] = str(x->old_state);
		c[9] = str(x->old_reason);
		c[10] = str(x->prev_state);
		c[11] = str(x->prev_reason);
		if (x->has_prev) {
			c[12] = (struct value){ .type = VAL_NS,
			    .v.i = x->last_out };
			c[13] = (struct value){ .type = VAL_NS,
			    .v.i = x->ready_time };
			c[14] = (struct value){ .type = VAL_U64,
			    .v.u = x->ready_ns };
			c[15] = (struct value){ .type = VAL_U64,
			    .v.u = x->waiting_ns };
		}
		if (x->readied) {
			c[16] = (struct value){ .type = VAL_U64,
			    .v.u = x->readier_tid };
			c[17] = (struct value){ .type = VAL_U64,
			    .v.u = x->readier_pid };
			c[18] = str(x->readier_image);
		}
		if (out[i] != INT64_MIN)
			c[19] = (struct value){ .type = VAL_NS, .v.i = out[i] };
		if (x->stack_text != 0) {
			size_t len;
			const char *t = intern_key(&v->texts, x->stack_text,
			    &len);

			c[20] = (struct value){ .type = VAL_STR,
			    .v.s = { t, len } };
		}
		rc = stream_write_row(w, &row);
	}
	free(out);
	return rc;
}

static void
switches_destroy(struct view *v)
{
	if (v == NULL)
		return;
	model_free(v->mine);
	intern_release(&v->texts);
	proclabels_release(&v->labels);
	free(v->rows);
	free(v);
}

const struct view_ops view_switches_ops = {
	.name = "switches",
	.needs_kind = EV_CSWITCH,
	.needs = "the trace has no CSwitch events, so no switches; "
	    "the RustcWaits profile of pipelines/rustc.wprp records them",
	.usage = "[--addresses] [--from seconds] [--to seconds] [--tid list]",
	.summary = "one row per switch-in, as WPA's CPU Usage (Precise) table",
	.reader_flags = STREAM_KEEP_STACKS,
	.options = longopts,
	.create = switches_create,
	.record = switches_record,
	.finish = switches_finish,
	.destroy = switches_destroy,
};
