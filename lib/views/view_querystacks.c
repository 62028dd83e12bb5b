/*
 * view_querystacks.c - "etlagg querystacks": measureme stack_collapse's
 * folded stacks of rustc self-profile intervals (querystacks.h), as a
 * table with a "stack" column for the folded and svg formats.  With
 * --merge, "querystacks" tables in the input are added in.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/querystacks.h"
#include "view.h"

struct view {
	struct query_stacks *qs;
	int merge;
	stream_id table;	/* a "querystacks" table being merged */
	int stack_col, ns_col;
};

/* ---- reading tables back (--merge) ---- */

static void
begin_table(struct view *v, const struct stream_table *t)
{
	size_t i;

	v->table = 0;
	if (strcmp(t->name, "querystacks") != 0)
		return;
	v->stack_col = v->ns_col = -1;
	for (i = 0; i < t->ncols; i++) {
		if (strcmp(t->cols[i].name, "stack") == 0)
			v->stack_col = (int)i;
		if (strcmp(t->cols[i].name, "self_ns") == 0)
			v->ns_col = (int)i;
	}
	if (v->stack_col >= 0 && v->ns_col >= 0)
		v->table = t->id;
}

static int
merge_row(struct view *v, const struct stream_row *r)
{
	const struct value *s, *ns;

	if ((size_t)v->stack_col >= r->ncells || (size_t)v->ns_col >= r->ncells)
		return 0;
	s = &r->cells[v->stack_col];
	ns = &r->cells[v->ns_col];
	if (s->type != VAL_STR)
		return 0;
	return query_stacks_add(v->qs, s->v.s.ptr, s->v.s.len,
	    ns->type == VAL_U64 ? (int64_t)ns->v.u :
	    ns->type == VAL_I64 ? ns->v.i : 0);
}

/* ---- the record loop ---- */

static int
querystacks_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	switch (rec->type) {
	case REC_HEADER:
	case REC_END:
		v->table = 0;
		break;
	case REC_TABLE:
		if (v->merge)
			begin_table(v, &rec->u.table);
		return 0;
	case REC_ROW:
		if (v->table != 0 && rec->u.row.table == v->table)
			return merge_row(v, &rec->u.row);
		return 0;
	default:
		break;
	}
	return query_stacks_record(v->qs, r, rec);
}

static void querystacks_destroy(struct view *v);

static const char *const tables[] = { "querystacks", NULL };

static const struct option longopts[] = {
	{ "merge", no_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 }
};

static struct view *
querystacks_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	int ch, bad = 0;

	(void)m;
	if (v == NULL)
		return NULL;
	optind = 0;
	while (!bad && (ch = getopt_long(argc, argv, "+", longopts,
	    NULL)) != -1) {
		if (ch == 'm')
			v->merge = 1;
		else
			bad = 1;
	}
	*used = optind;
	if (bad) {
		querystacks_destroy(v);
		return NULL;
	}
	if ((v->qs = query_stacks_new()) == NULL) {
		querystacks_destroy(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

/* ---- writing ---- */

static int
write_table(void *arg, const struct stream_table *t)
{
	return stream_write_table(arg, t);
}

static int
write_row(void *arg, const struct stream_row *r)
{
	return stream_write_row(arg, r);
}

static int
querystacks_finish(struct view *v, struct stream_writer *w)
{
	return query_stacks_table(v->qs, 1, write_table, write_row, w);
}

static void
querystacks_destroy(struct view *v)
{
	query_stacks_free(v->qs);
	free(v);
}

const struct view_ops view_querystacks_ops = {
	.name = "querystacks",
	.usage = "[--merge]",
	.summary = "rustc self-profile: self time per query stack "
	    "(measureme stack_collapse), for folded and svg",
	/* Labels are what it counts by: query arguments are not read. */
	.reader_flags = STREAM_QUERY_LABELS,
	.options = longopts,
	.tables = tables,
	.create = querystacks_create,
	.record = querystacks_record,
	.finish = querystacks_finish,
	.destroy = querystacks_destroy,
};
