/*
 * stackrows.c - collects the stacks of stack tables, adding up equal ones;
 * or, from a rustc profile's events, its query stacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "mmprof/querystacks.h"
#include "stream/colname.h"
#include "stackrows.h"

#define UNIT_MAX	64

/* A stack table of the current section, and where its columns are. */
struct stack_table {
	stream_id id;
	size_t stack, weight;
	size_t base;		/* a diff table's X_base, else ncols */
};

struct stackrows {
	struct intern stacks;
	struct buf weights;		/* uint64_t, by id - 1 */
	struct buf bases;		/* the same, of a diff's base side */
	uint64_t total, base_total, left_out;
	int diff;			/* a --diff table came */
	uint32_t ntables;		/* stack tables seen in all */
	struct buf tables;		/* this section's struct stack_table */
	char unit[UNIT_MAX];
	struct query_stacks *qs;	/* once a rustc profile's trace came */
};

struct stackrows *
stackrows_new(void)
{
	return calloc(1, sizeof(struct stackrows));
}

void
stackrows_free(struct stackrows *s)
{
	if (s == NULL)
		return;
	intern_release(&s->stacks);
	buf_release(&s->weights);
	buf_release(&s->bases);
	buf_release(&s->tables);
	query_stacks_free(s->qs);
	free(s);
}

static int
is_integer(enum value_type type)
{
	return type == VAL_U64 || type == VAL_I64;
}

/* The column named `name`, or ncols. */
static size_t
column(const struct stream_table *t, const char *name)
{
	size_t c;

	for (c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].name, name) == 0)
			return c;
	return t->ncols;
}

/*
 * The weight of a diff table: the last integer X that has an X_base,
 * in st->weight and st->base.  A table of etlagg --diff has X_base, X,
 * X_delta and X_delta_pct for each counted X, named as colname.h says
 * ("committed_base_bytes" of "committed_bytes").  @return : whether
 * the table is one.
 */
static int
diff_weight(const struct stream_table *t, struct stack_table *st)
{
	char name[128];
	size_t c, b;
	int found = 0;

	for (c = 0; c < t->ncols; c++) {
		const struct stream_column *x = &t->cols[c];

		if (!is_integer(x->type))
			continue;
		b = column(t, colname_derive(x->name, x->unit, "base", name,
		    sizeof(name)));
		if (b < t->ncols && column(t, colname_derive(x->name, x->unit,
		    "delta_pct", name, sizeof(name))) < t->ncols) {
			st->weight = c;
			st->base = b;
			found = 1;
		}
	}
	return found;
}

static int
add_table(struct stackrows *s, const struct stream_table *t)
{
	struct stack_table st = { t->id, t->ncols, t->ncols, t->ncols };
	const struct stream_column *w;
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		if (strcmp(t->cols[c].name, "stack") == 0 &&
		    t->cols[c].type == VAL_STR)
			st.stack = c;
		if (is_integer(t->cols[c].type))
			st.weight = c;
	}
	if (diff_weight(t, &st))
		s->diff = 1;
	if (st.stack == t->ncols || st.weight == t->ncols)
		return 0;
	w = &t->cols[st.weight];
	if (s->unit[0] == '\0')
		snprintf(s->unit, sizeof(s->unit), "%s",
		    w->unit[0] != '\0' ? w->unit : w->name);
	buf_put(&s->tables, &st, sizeof(st));
	s->ntables++;
	return s->tables.oom ? -1 : 0;
}

static const struct stack_table *
table_of(const struct stackrows *s, stream_id id)
{
	const struct stack_table *t = (const struct stack_table *)
	    s->tables.data;
	size_t i, n = s->tables.len / sizeof(*t);

	for (i = 0; i < n; i++)
		if (t[i].id == id)
			return &t[i];
	return NULL;
}

/* A cell's count: 0 for an empty cell (a diff row of one side only). */
static int
count_of(const struct value *v, uint64_t *n)
{
	if (v->type == VAL_NULL) {
		*n = 0;
		return 1;
	}
	if (!is_integer(v->type) || (v->type == VAL_I64 && v->v.i < 0))
		return 0;
	*n = v->v.u;
	return 1;
}

/* Adds n to the uint64_t of `id` in b.  @return : 0, or -1 (memory). */
static int
add_to(struct buf *b, uint32_t id, uint64_t n)
{
	while (b->len < id * sizeof(uint64_t))
		buf_put(b, &(uint64_t){ 0 }, sizeof(uint64_t));
	if (b->oom)
		return -1;
	((uint64_t *)b->data)[id - 1] += n;
	return 0;
}

static int
add_row(struct stackrows *s, const struct stack_table *t,
    const struct stream_row *row)
{
	const struct value *stack;
	uint64_t weight, base = 0;
	uint32_t id;

	if (t->stack >= row->ncells || t->weight >= row->ncells)
		return 0;
	stack = &row->cells[t->stack];
	if (stack->type != VAL_STR || stack->v.s.len == 0 ||
	    (row->cells[t->weight].type == VAL_NULL && t->base >= row->ncells) ||
	    !count_of(&row->cells[t->weight], &weight) ||
	    (t->base < row->ncells && !count_of(&row->cells[t->base], &base))) {
		s->left_out++;
		return 0;
	}
	if ((id = intern_add(&s->stacks, stack->v.s.ptr, stack->v.s.len,
	    NULL)) == 0 || add_to(&s->weights, id, weight) != 0 ||
	    add_to(&s->bases, id, base) != 0)
		return -1;
	s->total += weight;
	s->base_total += base;
	return 0;
}

/*
 * A rustc profile's events go to its query stacks, drawn if the input
 * has no stack table (stackrows_finish()).
 */
static int
profile_record(struct stackrows *s, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rec->type == REC_TRACE && s->qs == NULL &&
	    strcmp(rec->u.trace.format, "mm_profdata") == 0 &&
	    (s->qs = query_stacks_new()) == NULL)
		return -1;
	return s->qs != NULL ? query_stacks_record(s->qs, r, rec) : 0;
}

int
stackrows_record(struct stackrows *s, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stack_table *t;

	if (profile_record(s, r, rec) != 0)
		return -1;
	switch (rec->type) {
	case REC_HEADER:
		s->tables.len = 0;
		return 0;
	case REC_TABLE:
		return add_table(s, &rec->u.table);
	case REC_ROW:
		if ((t = table_of(s, rec->u.row.table)) == NULL)
			return 0;
		return add_row(s, t, &rec->u.row);
	default:
		return 0;
	}
}

static int
query_table(void *arg, const struct stream_table *t)
{
	struct stackrows *s = arg;

	s->tables.len = 0;
	return add_table(s, t);
}

static int
query_row(void *arg, const struct stream_row *row)
{
	struct stackrows *s = arg;
	const struct stack_table *t = table_of(s, row->table);

	return t != NULL ? add_row(s, t, row) : 0;
}

int
stackrows_finish(struct stackrows *s)
{
	if (s->ntables != 0 || s->qs == NULL)
		return 0;
	/* In the order of etlagg's table: the svg format draws in it. */
	return query_stacks_table(s->qs, 1, query_table, query_row, s);
}

uint32_t
stackrows_count(const struct stackrows *s)
{
	return s->stacks.count;
}

const char *
stackrows_stack(const struct stackrows *s, uint32_t id, size_t *len)
{
	return intern_key(&s->stacks, id, len);
}

uint64_t
stackrows_weight(const struct stackrows *s, uint32_t id)
{
	return ((const uint64_t *)s->weights.data)[id - 1];
}

uint64_t
stackrows_base(const struct stackrows *s, uint32_t id)
{
	return s->bases.len >= id * sizeof(uint64_t) ?
	    ((const uint64_t *)s->bases.data)[id - 1] : 0;
}

uint64_t
stackrows_base_total(const struct stackrows *s)
{
	return s->base_total;
}

int
stackrows_is_diff(const struct stackrows *s)
{
	return s->diff;
}

uint64_t
stackrows_total(const struct stackrows *s)
{
	return s->total;
}

const char *
stackrows_unit(const struct stackrows *s)
{
	return s->unit;
}

uint32_t
stackrows_tables(const struct stackrows *s)
{
	return s->ntables;
}

uint64_t
stackrows_left_out(const struct stackrows *s)
{
	return s->left_out;
}

/* A stack and its text, to sort by. */
struct sort_key {
	const char *text;
	size_t len;
	uint32_t id;
};

static int
cmp_keys(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	int c = memcmp(x->text, y->text, x->len < y->len ? x->len : y->len);

	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

uint32_t *
stackrows_sorted(const struct stackrows *s)
{
	uint32_t n = s->stacks.count, i;
	struct sort_key *keys = malloc(((size_t)n + 1) * sizeof(*keys));
	uint32_t *ids = malloc(((size_t)n + 1) * sizeof(*ids));

	if (keys == NULL || ids == NULL) {
		free(keys);
		free(ids);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		keys[i].id = i + 1;
		keys[i].text = intern_key(&s->stacks, i + 1, &keys[i].len);
	}
	qsort(keys, n, sizeof(*keys), cmp_keys);
	for (i = 0; i < n; i++)
		ids[i] = keys[i].id;
	free(keys);
	return ids;
}
