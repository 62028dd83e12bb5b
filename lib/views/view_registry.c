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

/*
 * Views whose --by values are another's work: the query join's rows
 * (view_byquery.c) for cpu and waits.  A value ending in '+' is a
 * prefix (query+function, query+stack); the others are whole.
 */
static const struct {
	const struct view_ops *base;
	const char *by;
	const struct view_ops *serving;
} served[] = {
	{ &view_cpu_ops, "query", &view_cpu_query_ops },
	{ &view_cpu_ops, "query+", &view_cpu_query_stack_ops },
	{ &view_waits_ops, "query", &view_waits_query_ops },
};

/* The value of --by among a view's arguments ("--by=x", "--by x"). */
static const char *
by_value(int argc, char *argv[])
{
	const char *by = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strncmp(argv[i], "--by=", 5) == 0)
			by = argv[i] + 5;
		else if (strcmp(argv[i], "--by") == 0 && i + 1 < argc)
			by = argv[++i];
	}
	return by;
}

const struct view_ops *
view_serving(const struct view_ops *ops, int argc, char *argv[])
{
	const char *by = by_value(argc, argv);
	size_t i, n;

	for (i = 0; by != NULL && i < sizeof(served) / sizeof(served[0]);
	    i++) {
		n = strlen(served[i].by);
		if (served[i].base == ops && strncmp(by, served[i].by, n) ==
		    0 && (by[n] == '\0' || served[i].by[n - 1] == '+'))
			return served[i].serving;
	}
	return ops;
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
