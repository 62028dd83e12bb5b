/*
 * view_threads.c - etlagg threads: per thread instance (or process) the
 * time it ran, was ready (waiting for a processor) and waited, and how
 * often it was switched in, as WPA's CPU Usage (Precise) computes them
 * (etl-events-2.md 3.5; the schedule is sched.c's).
 *
 *	--by thread	one row per thread instance (tid and start): tid,
 *			pid, image, start_ns (0: there before the trace),
 *			running_ns, ready_ns, waiting_ns, switches; the
 *			idle thread (tid 0) is its own row
 *	--by process	the same summed per process id and image
 *
 * --tid list keeps the rows of those threads; --from/--to clip the time.
 * A trace without context switches gives the rows with their times and
 * switches empty: unknown, not 0 (etlagg says why, view.h needs).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/sched.h"
#include "view.h"

enum by { BY_THREAD, BY_PROCESS };

static const char *const by_names[] = { "thread", "process" };

struct view {
	struct model *mine;		/* its own model, or NULL: shared */
	struct sched *s;
	struct sched_pick pick;		/* --tid */
	int by;
};

/* Its options, for etlagg and sched_options(). */
static const struct option longopts[] = {
	{ "by", required_argument, NULL, SCHED_OPT_BY },
	{ "from", required_argument, NULL, SCHED_OPT_FROM },
	{ "tid", required_argument, NULL, SCHED_OPT_TID },
	{ "to", required_argument, NULL, SCHED_OPT_TO },
	{ NULL, 0, NULL, 0 }
};

static struct view *
threads_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	int64_t from, to;
	unsigned flags = 0;

	if (v == NULL)
		return NULL;
	if (sched_options(argc, argv, used, "threads", longopts, by_names, 2,
	    &v->by, &from, &to, &flags, &v->pick) != 0) {
		free(v);
		return NULL;
	}
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->s = model_sched(m, from, to)) == NULL) {
		model_free(v->mine);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static int
threads_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	return v->mine != NULL ? model_record(v->mine, r, rec) : 0;
}

/* Rows by falling running time, then by id. */
static int
cmp_rows(const void *a, const void *b)
{
	const struct sched_thread *x = a, *y = b;

	if (x->running_ns != y->running_ns)
		return x->running_ns > y->running_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/*
 * Sums threads into their process instance: pid, start and image, so
 * that two processes of one pid stay two rows.
 */
static size_t
by_process(struct sched_thread *t, size_t n)
{
	size_t i, j, m = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++)
			if (t[j].pid == t[i].pid &&
			    t[j].proc_start_ns == t[i].proc_start_ns &&
			    strcmp(t[j].image, t[i].image) == 0)
				break;
		if (j == m)
			t[m++] = t[i];
		else {
			t[j].running_ns += t[i].running_ns;
			t[j].ready_ns += t[i].ready_ns;
			t[j].waiting_ns += t[i].waiting_ns;
			t[j].switches += t[i].switches;
		}
	}
	return m;
}

static const struct stream_column thread_cols[] = {
	{ "tid", VAL_U64, "" }, { "pid", VAL_U64, "" },
	{ "image", VAL_STR, "" }, { "start_ns", VAL_I64, "ns" },
	{ "running_ns", VAL_U64, "ns" }, { "ready_ns", VAL_U64, "ns" },
	{ "waiting_ns", VAL_U64, "ns" }, { "switches", VAL_U64, "" }
};

static const struct stream_column process_cols[] = {
	{ "pid", VAL_U64, "" }, { "image", VAL_STR, "" },
	{ "start", VAL_NS, "s" },
	{ "running_ns", VAL_U64, "ns" }, { "ready_ns", VAL_U64, "ns" },
	{ "waiting_ns", VAL_U64, "ns" }, { "switches", VAL_U64, "" }
};

static int
threads_finish(struct view *v, struct stream_writer *w)
{
	size_t n = sched_count(v->s), i, kept;
	struct sched_thread *t = malloc((n ? n : 1) * sizeof(*t));
	int rc = 0, proc = v->by == BY_PROCESS;
	int known = sched_stats(v->s)->switches > 0;

	if (t == NULL)
		return -1;
	sched_close(v->s);
	for (i = kept = 0; i < n; i++)
		if (sched_picked(&v->pick, sched_thread(v->s, i)->tid) &&
		    !sched_thread(v->s, i)->hidden)
			t[kept++] = *sched_thread(v->s, i);
	n = kept;
	if (proc)
		n = by_process(t, n);
	qsort(t, n, sizeof(*t), cmp_rows);
	sched_warn(v->s, "threads", view_warning);
	rc = proc ? view_write_table(w, 1, "threads", process_cols, 7) :
	    view_write_table(w, 1, "threads", thread_cols, 8);
	for (i = 0; i < n && rc == 0; i++) {
		struct value c[8];
		struct stream_row row = { 1, proc ? 7 : 8, c };
		size_t k = 0;

		memset(c, 0, sizeof(c));
		if (!proc)
			c[k++] = (struct value){ .type = VAL_U64, .v.u = t[i].tid };
		c[k++] = (struct value){ .type = VAL_U64, .v.u = t[i].pid };
		c[k++] = (struct value){ .type = VAL_STR, .v.s = { t[i].image,
		    strlen(t[i].image) } };
		if (!proc)
			c[k++] = (struct value){ .type = VAL_I64,
			    .v.i = t[i].start_ns == INT64_MIN ? 0 :
			    t[i].start_ns };
		else if (t[i].proc_start_ns != INT64_MIN)
			c[k++] = (struct value){ .type = VAL_NS,
			    .v.i = t[i].proc_start_ns };
		else
			k++;	/* there before the trace: empty */
		/* Without switches the times are unknown, not 0: empty. */
		if (known) {
			c[k++] = (struct value){ .type = VAL_U64,
			    .v.u = t[i].running_ns };
			c[k++] = (struct value){ .type = VAL_U64,
			    .v.u = t[i].ready_ns };
			c[k++] = (struct value){ .type = VAL_U64,
			    .v.u = t[i].waiting_ns };
			c[k++] = (struct value){ .type = VAL_U64,
			    .v.u = t[i].switches };
		}
		rc = stream_write_row(w, &row);
	}
	free(t);
	return rc;
}

static void
threads_destroy(struct view *v)
{
	if (v == NULL)
		return;
	model_free(v->mine);
	free(v);
}

const struct view_ops view_threads_ops = {
	.name = "threads",
	.needs_kind = EV_CSWITCH,
	.needs = "the trace has no CSwitch events, so no running, ready "
	    "or waiting time; the RustcWaits profile of pipelines/rustc.wprp "
	    "records them",
	.usage = "[--by thread|process] [--from seconds] [--to seconds] "
	    "[--tid list]",
	.summary = "running, ready and waiting time per thread, from "
	    "context switches (CPU Usage (Precise))",
	.options = longopts,
	.create = threads_create,
	.record = threads_record,
	.finish = threads_finish,
	.destroy = threads_destroy,
};
