/*
 * view_registry.c - the table of views: the one file that knows them all.
 * The views know only view.c's helpers, so the table sits above them.
 */
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
	&view_timeline_ops,
	&view_threadtime_ops,
	&view_images_ops,
	&view_crates_ops,
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

void
view_list(FILE *fp)
{
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		fprintf(fp, "  %s%s%s\n      %s\n", views[i]->name,
		    *views[i]->usage ? " " : "", views[i]->usage,
		    views[i]->summary);
}
