/*
 * view_tree.c - "etlagg tree": the rows of "processes" with each process
 * after its parent, children in order of start, as WPA's "rustc Build
 * Process Tree" shows them.  Two columns lead: `tree`, the image indented
 * by two spaces a level, for the text format, and `depth` (0 for a root)
 * for the pictures.  Parentage is proctab_tree()'s.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/proctab.h"
#include "view.h"

#define LEAD	2		/* the tree and depth columns */
#define INDENT	2		/* spaces a level */

struct view {
	struct proctab_view pv;
	char *indented;		/* the tree cell being written */
	size_t cap;
};

static struct view *
tree_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	if (proctab_view_init(&v->pv, "tree", argc, argv, used,
	    m != NULL ? model_proctab(m) : NULL) != 0) {
		proctab_view_release(&v->pv);
		free(v);
		return NULL;
	}
	return v;
}

static int
tree_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	return proctab_view_record(&v->pv, r, rec);
}

/* The image of a row, indented by its depth, as a cell. */
static int
indent(struct view *v, uint32_t depth, const struct value *image,
    struct value *out)
{
	size_t pad = (size_t)depth * INDENT, need = pad + image->v.s.len + 1;

	if (need > v->cap) {
		char *p = realloc(v->indented, need);

		if (p == NULL)
			return -1;
		v->indented = p;
		v->cap = need;
	}
	memset(v->indented, ' ', pad);
	memcpy(v->indented + pad, image->v.s.ptr, image->v.s.len);
	*out = (struct value){ .type = VAL_STR,
	    .v.s = { v->indented, pad + image->v.s.len } };
	return 0;
}

static int
write_rows(struct view *v, struct stream_writer *w, const uint32_t *order,
    uint32_t n, const uint32_t *depth)
{
	struct value cells[LEAD + PROCTAB_NCOLS];
	struct stream_row row = { 1, LEAD + PROCTAB_NCOLS, cells };
	uint32_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		proctab_cells(v->pv.pt, order[i], cells + LEAD);
		if (indent(v, depth[order[i]], &cells[LEAD + PT_IMAGE],
		    &cells[0]) != 0)
			return -1;
		cells[1] = (struct value){ .type = VAL_U64,
		    .v.u = depth[order[i]] };
		rc = stream_write_row(w, &row);
	}
	return rc;
}

static int
tree_finish(struct view *v, struct stream_writer *w)
{
	struct stream_column cols[LEAD + PROCTAB_NCOLS] = {
		{ "tree", VAL_STR, "" }, { "depth", VAL_U64, "" },
	};
	uint32_t n, *depth, *order = proctab_tree(v->pv.pt, &depth, &n);
	int rc;

	if (order == NULL)
		return -1;
	memcpy(cols + LEAD, proctab_columns, sizeof(proctab_columns[0]) *
	    PROCTAB_NCOLS);
	rc = view_write_table(w, 1, "tree", cols, LEAD + PROCTAB_NCOLS);
	if (rc == 0)
		rc = write_rows(v, w, order, n, depth);
	free(order);
	free(depth);
	return rc;
}

static void
tree_destroy(struct view *v)
{
	proctab_view_release(&v->pv);
	free(v->indented);
	free(v);
}

static const char *const tables[] = { "tree", NULL };

const struct view_ops view_tree_ops = {
	.name = "tree",
	.usage = "[--merge]",
	.summary = "the processes in parent-child order with their depth",
	.options = proctab_view_options,
	.tables = tables,
	.create = tree_create,
	.record = tree_record,
	.finish = tree_finish,
	.destroy = tree_destroy,
};
