/*
 * view.c - the table of views.
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

void
view_list(FILE *fp)
{
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		fprintf(fp, "  %s %s\n      %s\n", views[i]->name,
		    views[i]->usage, views[i]->summary);
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
