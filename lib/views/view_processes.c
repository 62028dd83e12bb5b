/*
 * view_processes.c - "etlagg processes": one row per process, as WPA's
 * "rustc Build Processes" tab lists them: pid, parent, image, start and
 * end, exit status, threads, CPU samples and time, command line.  Rows
 * are in order of start, the processes that were there before the trace
 * first.  The bookkeeping, and which processes are listed, is
 * proctab's.
 */
#include <stdlib.h>

#include "model/model.h"
#include "model/proctab.h"
#include "view.h"

struct view {
	struct proctab_view pv;
};

static struct view *
processes_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	if (proctab_view_init(&v->pv, "processes", argc, argv, used,
	    m != NULL ? model_proctab(m) : NULL) != 0) {
		proctab_view_release(&v->pv);
		free(v);
		return NULL;
	}
	return v;
}

static int
processes_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	return proctab_view_record(&v->pv, r, rec);
}

static int
processes_finish(struct view *v, struct stream_writer *w)
{
	const struct proctab *pt = v->pv.pt;
	uint32_t n, i, *order = proctab_by_start(pt, &n);
	struct value cells[PROCTAB_NCOLS];
	struct stream_row row = { 1, PROCTAB_NCOLS, cells };
	int rc;

	if (order == NULL)
		return -1;
	rc = view_write_table(w, 1, "processes", proctab_columns,
	    PROCTAB_NCOLS);
	for (i = 0; i < n && rc == 0; i++) {
		proctab_cells(pt, order[i], cells);
		rc = stream_write_row(w, &row);
	}
	free(order);
	return rc;
}

static void
processes_destroy(struct view *v)
{
	proctab_view_release(&v->pv);
	free(v);
}

static const char *const tables[] = { "processes", NULL };

const struct view_ops view_processes_ops = {
	.name = "processes",
	.usage = "[--merge]",
	.summary = "a row per process: parent, times, exit status, CPU, "
	    "command line",
	.options = proctab_view_options,
	.tables = tables,
	.create = processes_create,
	.record = processes_record,
	.finish = processes_finish,
	.destroy = processes_destroy,
};
