/*
 * view.c - the table of views.
 */
#include <stdarg.h>
#include <string.h>

#include "view.h"

static const struct view_ops *const views[] = {
	&view_stats_ops,
	&view_sysconfig_ops,
	&view_processes_ops,
	&view_tree_ops,
	&view_cpu_ops,
	&view_queries_ops,
	&view_querystacks_ops,
	&view_vmem_ops,
	&view_heap_ops,
	&view_heapsnap_ops,
	&view_threads_ops,
	&view_waits_ops,
	&view_switches_ops,
	&view_threadtime_ops,
	&view_images_ops,
};

const struct view_ops *
view_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (strcmp(views[i]->name, name) == 0)
			return views[i];
	return NULL;
}

const struct view_ops *
view_at(size_t i)
{
	return i < sizeof(views) / sizeof(views[0]) ? views[i] : NULL;
}

int
view_has_table(const struct view_ops *ops, const char *table)
{
	size_t i;

	for (i = 0; ops->tables != NULL && ops->tables[i] != NULL; i++)
		if (strcmp(ops->tables[i], table) == 0)
			return 1;
	return 0;
}

void
view_warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "etlagg: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
view_list(FILE *fp)
{
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		fprintf(fp, "  %s%s%s\n      %s\n", views[i]->name,
		    *views[i]->usage ? " " : "", views[i]->usage,
		    views[i]->summary);
}

struct view *
view_no_options(struct view *v, int *used)
{
	*used = 1;
	return v;
}

int
view_write_table(struct stream_writer *w, stream_id id, const char *name,
    const struct stream_column *cols, size_t ncols)
{
	struct stream_table t = { id, name, ncols, cols };

	return stream_write_table(w, &t);
}
