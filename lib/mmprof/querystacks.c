/*
 * querystacks.c - the query stacks of rustc self-profile intervals (see
 * querystacks.h), shared by "etlagg querystacks" and the folded and svg
 * formats.
 *
 * Intervals arrive before their parents, so their stacks are known only
 * when their profile ends: each profile keeps one 16-byte node per
 * interval (its self time, label and parent) and resolves them to stacks
 * at its end, last first, since a parent always comes after its children.
 * Stacks are interned as (parent stack, label) pairs.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "mmprof_decode.h"
#include "querystacks.h"

#define NONE 0xffffffffu

struct node {
	int64_t self;
	uint32_t parent;	/* node index; at the profile's end, its stack */
	uint32_t label;
};

struct stack {
	uint32_t parent;	/* stack, or NONE */
	uint32_t label;
	int64_t ns;
};

struct query_stacks {
	struct query_input in;
	struct query_nest nest;
	struct node *nodes;	/* this profile's intervals, in stream order */
	size_t nnodes, nodecap;
	struct stack *stacks;
	size_t nstacks, stackcap;
	struct idmap stack_index;	/* parent << 32 | label -> stack */
	uint32_t rustc;		/* the stack "rustc" */
	uint64_t intervals;
	int open;
};

static uint32_t
stack_of(struct query_stacks *v, uint32_t parent, uint32_t label)
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
add_interval(struct query_stacks *v, const struct query_event *q)
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
	v->intervals++;
	return query_nest_push(t, q->start, q->end, (uint32_t)v->nnodes++, 1);
}

/* Ends a profile: the gaps go to "rustc", each node to its stack. */
static int
close_section(struct query_stacks *v)
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

struct query_stacks *
query_stacks_new(void)
{
	struct query_stacks *v = calloc(1, sizeof(*v));
	uint32_t label;

	if (v == NULL)
		return NULL;
	if ((label = query_input_label(&v->in, "rustc", 5)) == 0 ||
	    (v->rustc = stack_of(v, NONE, label)) == NONE) {
		query_stacks_free(v);
		return NULL;
	}
	return v;
}

void
query_stacks_free(struct query_stacks *v)
{
	if (v == NULL)
		return;
	query_input_release(&v->in);
	query_nest_release(&v->nest);
	free(v->nodes);
	free(v->stacks);
	idmap_release(&v->stack_index);
	free(v);
}

int
query_stacks_record(struct query_stacks *v, const struct stream_reader *r,
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
	if (rec->type == REC_HEADER || rec->type == REC_END)
		return close_section(v);
	return 0;
}

int
query_stacks_add(struct query_stacks *v, const char *stack, size_t len,
    int64_t ns)
{
	const char *p, *end, *semi;
	uint32_t id = NONE, label;

	for (p = stack, end = p + len; p <= end; p = semi + 1) {
		if ((semi = memchr(p, ';', (size_t)(end - p))) == NULL)
			semi = end;
		if ((label = query_input_label(&v->in, p,
		    (size_t)(semi - p))) == 0 ||
		    (id = stack_of(v, id, label)) == NONE)
			return -1;
	}
	v->stacks[id].ns += ns;
	return 0;
}

uint64_t
query_stacks_intervals(const struct query_stacks *v)
{
	return v->intervals;
}

/*
 * Appends the text of stack `id`, root first, to b; `chain` is scratch
 * for the stack's ids, walked from the leaf up.
 */
static void
put_stack(const struct query_stacks *v, uint32_t id, struct buf *b, struct buf *chain)
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

int
query_stacks_table(struct query_stacks *v, stream_id id,
    int (*table)(void *arg, const struct stream_table *t),
    int (*row)(void *arg, const struct stream_row *r), void *arg)
{
	static const struct stream_column cols[] = {
		{ "stack", VAL_STR, "" }, { "self_ns", VAL_I64, "ns" },
	};
	const struct stream_table t = { id, "querystacks", 2, cols };
	struct line *lines;
	struct buf text = { 0 }, chain = { 0 };
	struct value c[2];
	size_t i;
	int rc;

	/*
	 * A section cut short still has open intervals, which closing it
	 * makes into stacks: count them before making room for a line each.
	 */
	if (close_section(v) != 0 ||
	    (lines = calloc(v->nstacks + 1, sizeof(*lines))) == NULL)
		return -1;
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
		rc = table(arg, &t);
	}
	for (i = 0; i < v->nstacks && rc == 0; i++) {
		struct stream_row r = { id, 2, c };

		c[0] = (struct value){ .type = VAL_STR, .v.s = {
		    (const char *)text.data + lines[i].off, lines[i].len } };
		c[1] = (struct value){ .type = VAL_I64,
		    .v.i = v->stacks[lines[i].stack].ns };
		rc = row(arg, &r);
	}
	buf_release(&text);
	buf_release(&chain);
	free(lines);
	return rc;
}
