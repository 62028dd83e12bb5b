/*
 * view_querystacks.c - "etlagg querystacks": measureme stack_collapse's
 * folded stacks of rustc self-profile intervals (measureme-format.md
 * section 10), as a table with a "stack" column for the folded and svg
 * formats.
 *
 * A stack is "rustc" and the labels of an interval's ancestors and its
 * own, joined by ';'; its weight is the self time of the intervals with
 * that stack (duration less direct children), summed over threads and
 * profiles.  The stack "rustc" itself gets, per thread, the time from its
 * first start to the end of its last interval that no event covers.
 *
 * Intervals arrive before their parents, so their stacks are known only
 * when their profile ends: each section keeps one 16-byte node per
 * interval (its self time, label and parent) and resolves them to stacks
 * at its end, last first, since a parent always comes after its children.
 * Stacks are interned as (parent stack, label) pairs.  With --merge,
 * "querystacks" tables in the input are added in.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mmprof_decode.h"
#include "view.h"

#define NONE 0xffffffffu

struct node {
	int64_t self;
	uint32_t parent;	/* node index; at the section's end, its stack */
	uint32_t label;
};

struct stack {
	uint32_t parent;	/* stack, or NONE */
	uint32_t label;
	int64_t ns;
};

struct view {
	struct query_input in;
	struct query_nest nest;
	struct node *nodes;	/* this section's intervals, in stream order */
	size_t nnodes, nodecap;
	struct stack *stacks;
	size_t nstacks, stackcap;
	struct idmap stack_index;	/* parent << 32 | label -> stack */
	uint32_t rustc;		/* the stack "rustc" */
	int merge, open;
	stream_id table;	/* a "querystacks" table being merged */
	int stack_col, ns_col;
};

static uint32_t
stack_of(struct view *v, uint32_t parent, uint32_t label)
{
	uint64_t key = (uint64_t)parent << 32 | label;
	struct stack *s;
	uint32_t id;

	if (idmap_get(&v->stack_index, key, &id))
		return id;
	id = (uint32_t)v->nstacks;
	if ((s = array_slot(&v->stacks, &v->stackcap, id, sizeof(*s))) ==
	    NULL || idmap_put(&v->stack_index, key, id) != 0)
		return NONE;
	s->parent = parent;
	s->label = label;
	v->nstacks++;
	return id;
}

static int
add_interval(struct view *v, const struct query_event *q)
{
	struct query_thread *t = query_nest_thread(&v->nest, q->pid, q->tid);
	const struct query_pending *kids;
	struct node *n;
	size_t i, k;

	if (t == NULL || v->nnodes >= NONE || (n = array_slot(&v->nodes,
	    &v->nodecap, (uint32_t)v->nnodes, sizeof(*n))) == NULL)
		return -1;
	n->self = q->end - q->start;
	n->parent = NONE;
	n->label = q->label;
	k = query_nest_adopt(t, q->start, &kids);
	for (i = 0; i < k; i++) {
		n->self -= kids[i].end - kids[i].start;
		v->nodes[kids[i].node].parent = (uint32_t)v->nnodes;
	}
	return query_nest_push(t, q->start, q->end, (uint32_t)v->nnodes++, 1);
}

/* Ends a profile: the gaps go to "rustc", each node to its stack. */
static int
close_section(struct view *v)
{
	size_t i, j;

	if (!v->open)
		return 0;
	v->open = 0;
	for (i = 0; i < v->nest.n; i++) {
		const struct query_thread *t = &v->nest.t[i];
		int64_t top = 0;

		if (!t->has_intervals)
			continue;
		for (j = 0; j < t->n; j++)
			top += t->p[j].end - t->p[j].start;
		v->stacks[v->rustc].ns += t->last_end - t->first_start - top;
	}
	query_nest_clear(&v->nest);
	for (i = v->nnodes; i-- > 0; ) {
		struct node *n = &v->nodes[i];
		uint32_t parent = n->parent == NONE ? v->rustc :
		    v->nodes[n->parent].parent;

		if ((n->parent = stack_of(v, parent, n->label)) == NONE)
			return -1;
		v->stacks[n->parent].ns += n->self;
	}
	v->nnodes = 0;
	return 0;
}

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
	const char *p, *end, *semi;
	uint32_t stack = NONE, label;

	if ((size_t)v->stack_col >= r->ncells || (size_t)v->ns_col >= r->ncells)
		return 0;
	s = &r->cells[v->stack_col];
	ns = &r->cells[v->ns_col];
	if (s->type != VAL_STR)
		return 0;
	for (p = s->v.s.ptr, end = p + s->v.s.len; p <= end; p = semi + 1) {
		if ((semi = memchr(p, ';', (size_t)(end - p))) == NULL)
			semi = end;
		if ((label = query_input_label(&v->in, p,
		    (size_t)(semi - p))) == 0 ||
		    (stack = stack_of(v, stack, label)) == NONE)
			return -1;
	}
	v->stacks[stack].ns += ns->type == VAL_U64 ? (int64_t)ns->v.u :
	    ns->type == VAL_I64 ? ns->v.i : 0;
	return 0;
}

/* ---- the record loop ---- */

static int
querystacks_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct query_event q;
	int rc;

	if ((rc = query_input_event(&v->in, r, rec, &q)) != 0) {
		if (rc < 0)
			return -1;
		v->open = 1;
		return q.type == QT_INTERVAL ? add_interval(v, &q) : 0;
	}
	switch (rec->type) {
	case REC_HEADER:
	case REC_END:
		v->table = 0;
		return close_section(v);
	case REC_TABLE:
		if (v->merge)
			begin_table(v, &rec->u.table);
		return 0;
	case REC_ROW:
		if (v->table != 0 && rec->u.row.table == v->table)
			return merge_row(v, &rec->u.row);
		return 0;
	default:
		return 0;
	}
}

static void querystacks_destroy(struct view *v);

static const char *const tables[] = { "querystacks", NULL };

static const struct option longopts[] = {
	{ "merge", no_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 }
};

static struct view *
querystacks_create(int argc, char *argv[], int *used)
{
	struct view *v = calloc(1, sizeof(*v));
	uint32_t label;
	int ch, bad = 0;

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
	if ((label = query_input_label(&v->in, "rustc", 5)) == 0 ||
	    (v->rustc = stack_of(v, NONE, label)) == NONE) {
		querystacks_destroy(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

/* ---- writing ---- */

/*
 * Appends the text of stack `id`, root first, to b; `chain` is scratch
 * for the stack's ids, walked from the leaf up.
 */
static void
put_stack(const struct view *v, uint32_t id, struct buf *b, struct buf *chain)
{
	const uint32_t *ids;
	const char *text;
	size_t len, i;

	chain->len = 0;
	for (; id != NONE; id = v->stacks[id].parent)
		buf_put(chain, &id, sizeof(id));
	ids = (const uint32_t *)(void *)chain->data;
	for (i = chain->len / sizeof(id); i-- > 0; ) {
		text = query_input_text(&v->in, v->stacks[ids[i]].label, &len);
		buf_put(b, text, len);
		if (i > 0)
			buf_put(b, ";", 1);
	}
}

struct line {
	size_t off, len;
	uint32_t stack;
	const unsigned char *text;
};

static int
cmp_lines(const void *pa, const void *pb)
{
	const struct line *a = pa, *b = pb;
	int c = memcmp(a->text + a->off, b->text + b->off,
	    a->len < b->len ? a->len : b->len);

	return c != 0 ? c : (a->len > b->len) - (a->len < b->len);
}

static int
querystacks_finish(struct view *v, struct stream_writer *w)
{
	static const struct stream_column cols[] = {
		{ "stack", VAL_STR, "" }, { "self_ns", VAL_I64, "ns" },
	};
	struct line *lines = calloc(v->nstacks + 1, sizeof(*lines));
	struct buf text = { 0 }, chain = { 0 };
	struct value c[2];
	size_t i;
	int rc;

	if (lines == NULL || close_section(v) != 0) {
		free(lines);
		return -1;
	}
	for (i = 0; i < v->nstacks; i++) {
		lines[i].off = text.len;
		put_stack(v, (uint32_t)i, &text, &chain);
		lines[i].len = text.len - lines[i].off;
		lines[i].stack = (uint32_t)i;
	}
	for (i = 0; i < v->nstacks; i++)
		lines[i].text = text.data;
	rc = text.oom || chain.oom ? -1 : 0;
	if (rc == 0) {
		qsort(lines, v->nstacks, sizeof(*lines), cmp_lines);
		rc = view_write_table(w, 1, "querystacks", cols, 2);
	}
	for (i = 0; i < v->nstacks && rc == 0; i++) {
		struct stream_row r = { 1, 2, c };

		c[0] = (struct value){ .type = VAL_STR, .v.s = {
		    (const char *)text.data + lines[i].off, lines[i].len } };
		c[1] = (struct value){ .type = VAL_I64,
		    .v.i = v->stacks[lines[i].stack].ns };
		rc = stream_write_row(w, &r);
	}
	buf_release(&text);
	buf_release(&chain);
	free(lines);
	return rc;
}

static void
querystacks_destroy(struct view *v)
{
	query_input_release(&v->in);
	query_nest_release(&v->nest);
	free(v->nodes);
	free(v->stacks);
	idmap_release(&v->stack_index);
	free(v);
}

const struct view_ops view_querystacks_ops = {
	.name = "querystacks",
	.usage = "[--merge]",
	.summary = "rustc self-profile: self time per query stack "
	    "(measureme stack_collapse), for folded and svg",
	.options = longopts,
	.tables = tables,
	.create = querystacks_create,
	.record = querystacks_record,
	.finish = querystacks_finish,
	.destroy = querystacks_destroy,
};
