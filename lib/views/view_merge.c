/*
 * view_merge.c - tables merged row by row by their keys; see
 * view_merge.h.
 *
 * Rows live in one array, their cells in another (ncols a row), their
 * strings in an arena by offset; a key table (the key cells serialized)
 * finds the row of a key seen again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "view_merge.h"
#include "view.h"

#define COLS_MAX	64

enum role { R_KEY, R_SUM, R_MAX, R_FIRST };

struct mcell {
	enum value_type type;		/* VAL_NULL: not given yet */
	union {
		int64_t i;
		uint64_t u;
		double f;
		struct {
			size_t off, len;
		} s;
	} v;
};

struct view_merge {
	const struct view_merge_spec *spec;
	/* The schema, of the first table. */
	int have_schema;
	size_t ncols;
	struct stream_column cols[COLS_MAX];
	enum role role[COLS_MAX];
	struct buf names;		/* the columns' names and units */
	char name[64];			/* the table's */
	/* The table being read: its id, its columns in the schema. */
	stream_id table;
	int map[COLS_MAX];
	size_t in_ncols;
	/* The rows. */
	struct intern keys;		/* key cells -> row + 1 */
	struct mcell *cells;
	size_t cells_cap, nrows;
	struct buf text;		/* strings of cells */
	struct buf key;			/* scratch */
	/* The order: columns and directions. */
	int sort_col[8], sort_dir[8];
	size_t nsort;
};

struct view_merge *
view_merge_new(const struct view_merge_spec *spec)
{
	struct view_merge *m = calloc(1, sizeof(*m));

	if (m != NULL)
		m->spec = spec;
	return m;
}

void
view_merge_free(struct view_merge *m)
{
	if (m == NULL)
		return;
	buf_release(&m->names);
	buf_release(&m->text);
	buf_release(&m->key);
	intern_release(&m->keys);
	free(m->cells);
	free(m);
}

static int
listed(const char *const *list, const char *name)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/* Copies the schema: names and units into one buffer, by offset. */
static int
take_schema(struct view_merge *m, const struct stream_table *t)
{
	size_t i, off[COLS_MAX][2];

	snprintf(m->name, sizeof(m->name), "%s", t->name);
	m->ncols = t->ncols < COLS_MAX ? t->ncols : COLS_MAX;
	for (i = 0; i < m->ncols; i++) {
		const struct stream_column *c = &t->cols[i];

		off[i][0] = m->names.len;
		buf_put(&m->names, c->name, strlen(c->name) + 1);
		off[i][1] = m->names.len;
		buf_put(&m->names, c->unit, strlen(c->unit) + 1);
		m->cols[i].type = c->type;
		if (listed(m->spec->keys, c->name) || c->type == VAL_STR ||
		    c->type == VAL_GUID || c->type == VAL_BYTES)
			m->role[i] = R_KEY;
		else if (listed(m->spec->maxes, c->name))
			m->role[i] = R_MAX;
		else if (c->type == VAL_U64 || c->type == VAL_I64 ||
		    c->type == VAL_F64 || c->type == VAL_HEX)
			m->role[i] = R_SUM;
		else
			m->role[i] = R_FIRST;
		if (m->spec->renumber != NULL &&
		    strcmp(c->name, m->spec->renumber) == 0)
			m->role[i] = R_FIRST;
	}
	if (m->names.oom)
		return -1;
	for (i = 0; i < m->ncols; i++) {
		m->cols[i].name = (const char *)m->names.data + off[i][0];
		m->cols[i].unit = (const char *)m->names.data + off[i][1];
	}
	m->have_schema = 1;
	return 0;
}

static void
map_table(struct view_merge *m, const struct stream_table *t)
{
	size_t i, k;

	m->table = t->id;
	m->in_ncols = t->ncols < COLS_MAX ? t->ncols : COLS_MAX;
	for (i = 0; i < m->in_ncols; i++) {
		m->map[i] = -1;
		for (k = 0; k < m->ncols; k++)
			if (strcmp(m->cols[k].name, t->cols[i].name) == 0 &&
			    m->cols[k].type == t->cols[i].type)
				m->map[i] = (int)k;
	}
}

/* The row of the input row's key, made if new; NULL if out of memory. */
static struct mcell *
row_of(struct view_merge *m, const struct stream_row *row)
{
	const struct value *in[COLS_MAX] = { 0 };
	struct mcell *c;
	uint32_t id;
	size_t i, k;
	int added;

	for (i = 0; i < row->ncells && i < m->in_ncols; i++)
		if (m->map[i] >= 0)
			in[m->map[i]] = &row->cells[i];
	m->key.len = 0;
	for (k = 0; k < m->ncols; k++) {
		const struct value *v = in[k];
		unsigned char type = v != NULL ? (unsigned char)v->type : 0;

		if (m->role[k] != R_KEY)
			continue;
		buf_put(&m->key, &type, 1);
		if (v == NULL || v->type == VAL_NULL)
			continue;
		if (v->type == VAL_STR || v->type == VAL_GUID ||
		    v->type == VAL_BYTES) {
			buf_put_var(&m->key, v->v.s.len);
			buf_put(&m->key, v->v.s.ptr, v->v.s.len);
		} else
			buf_put(&m->key, &v->v.u, sizeof(v->v.u));
	}
	if (m->key.oom || (id = intern_add(&m->keys, m->key.data,
	    m->key.len, &added)) == 0)
		return NULL;
	if (!added)
		return m->cells + (size_t)(id - 1) * m->ncols;
	if ((c = array_slot(&m->cells, &m->cells_cap,
	    (m->nrows + 1) * m->ncols, sizeof(*c))) == NULL)
		return NULL;
	c = m->cells + m->nrows * m->ncols;
	memset(c, 0, m->ncols * sizeof(*c));
	m->nrows++;
	return c;
}

static int
merge_row(struct view_merge *m, const struct stream_row *row)
{
	struct mcell *c = row_of(m, row), *d;
	size_t i;

	if (c == NULL)
		return -1;
	for (i = 0; i < row->ncells && i < m->in_ncols; i++) {
		const struct value *v = &row->cells[i];

		if (m->map[i] < 0 || v->type == VAL_NULL)
			continue;
		d = &c[m->map[i]];
		if (d->type == VAL_NULL || m->role[m->map[i]] == R_KEY) {
			if (d->type != VAL_NULL)
				continue;
			d->type = v->type;
			if (v->type == VAL_STR || v->type == VAL_GUID ||
			    v->type == VAL_BYTES) {
				d->v.s.off = m->text.len;
				d->v.s.len = v->v.s.len;
				buf_put(&m->text, v->v.s.ptr, v->v.s.len);
			} else
				d->v.u = v->v.u;
			continue;
		}
		switch (m->role[m->map[i]]) {
		case R_SUM:
			if (v->type == VAL_F64)
				d->v.f += v->v.f;
			else
				d->v.u += v->v.u;
			break;
		case R_MAX:
			if (v->type == VAL_F64 ? v->v.f > d->v.f :
			    v->type == VAL_I64 ? v->v.i > d->v.i :
			    v->v.u > d->v.u)
				d->v.u = v->v.u;
			break;
		default:
			break;
		}
	}
	return m->text.oom ? -1 : 0;
}

int
view_merge_record(struct view_merge *m, const struct stream_record *rec)
{
	if (rec->type == REC_HEADER)
		m->table = 0;
	if (rec->type == REC_TABLE) {
		m->table = 0;
		if (!listed(m->spec->tables, rec->u.table.name) ||
		    (m->have_schema && strcmp(m->name, rec->u.table.name) != 0))
			return 0;
		if (!m->have_schema && take_schema(m, &rec->u.table) != 0)
			return -1;
		map_table(m, &rec->u.table);
		return 0;
	}
	if (rec->type == REC_ROW && m->table != 0 &&
	    rec->u.row.table == m->table)
		return merge_row(m, &rec->u.row);
	return 0;
}

/* ---- the merged table, sorted ---- */

/* A row to sort: qsort has no context, so each carries the table. */
struct srow {
	const struct view_merge *m;
	uint32_t i;
};

static int
cmp_cell(const struct view_merge *m, const struct mcell *x,
    const struct mcell *y)
{
	size_t n;
	int c;

	if (x->type == VAL_NULL || y->type == VAL_NULL)
		return (x->type == VAL_NULL) - (y->type == VAL_NULL);
	switch (x->type) {
	case VAL_STR:
	case VAL_GUID:
	case VAL_BYTES:
		n = x->v.s.len < y->v.s.len ? x->v.s.len : y->v.s.len;
		if ((c = memcmp(m->text.data + x->v.s.off,
		    m->text.data + y->v.s.off, n)) != 0)
			return c;
		return x->v.s.len < y->v.s.len ? -1 : x->v.s.len > y->v.s.len;
	case VAL_F64:
		return x->v.f < y->v.f ? -1 : x->v.f > y->v.f;
	case VAL_I64:
	case VAL_NS:
		return x->v.i < y->v.i ? -1 : x->v.i > y->v.i;
	default:
		return x->v.u < y->v.u ? -1 : x->v.u > y->v.u;
	}
}

static int
cmp_rows(const void *a, const void *b)
{
	const struct view_merge *m = ((const struct srow *)a)->m;
	uint32_t i = ((const struct srow *)a)->i, j = ((const struct srow *)b)->i;
	const struct mcell *x = m->cells + (size_t)i * m->ncols;
	const struct mcell *y = m->cells + (size_t)j * m->ncols;
	size_t k;
	int c;

	for (k = 0; k < m->nsort; k++)
		if ((c = cmp_cell(m, &x[m->sort_col[k]],
		    &y[m->sort_col[k]])) != 0)
			return m->sort_dir[k] * c;
	return i < j ? -1 : i > j;
}

static void
set_order(struct view_merge *m)
{
	const struct view_merge_order *mo = m->spec->orders;
	const char *const *o;
	size_t k;
	int has;

	m->nsort = 0;
	for (; mo != NULL && mo->if_col != NULL; mo++) {
		for (k = has = 0; k < m->ncols; k++)
			has |= strcmp(m->cols[k].name, mo->if_col) == 0;
		if (has)
			break;
	}
	if (mo == NULL)
		return;
	for (o = mo->order; o != NULL && *o != NULL && m->nsort < 8;
	    o++) {
		const char *name = *o + 1;
		int col = -1;

		if (strcmp(name, "$last") == 0)
			col = (int)m->ncols - 1;
		else if (strcmp(name, "$key") == 0)
			col = 0;
		else
			for (k = 0; k < m->ncols; k++)
				if (strcmp(m->cols[k].name, name) == 0)
					col = (int)k;
		if (col < 0)
			continue;
		m->sort_col[m->nsort] = col;
		m->sort_dir[m->nsort++] = **o == '-' ? -1 : 1;
	}
}

int
view_merge_write(struct view_merge *m, struct stream_writer *w)
{
	struct value cells[COLS_MAX];
	struct stream_row row = { 1, 0, cells };
	struct srow *order;
	uint32_t i;
	size_t k;
	int rc;

	if (!m->have_schema)
		return 0;
	if ((order = malloc((m->nrows + 1) * sizeof(*order))) == NULL)
		return -1;
	for (i = 0; i < m->nrows; i++)
		order[i] = (struct srow){ m, i };
	set_order(m);
	qsort(order, m->nrows, sizeof(*order), cmp_rows);
	rc = view_write_table(w, 1, m->name, m->cols, m->ncols);
	row.ncells = m->ncols;
	for (i = 0; i < m->nrows && rc == 0; i++) {
		const struct mcell *c = m->cells + (size_t)order[i].i *
		    m->ncols;

		for (k = 0; k < m->ncols; k++) {
			cells[k].type = c[k].type;
			if (c[k].type == VAL_STR || c[k].type == VAL_GUID ||
			    c[k].type == VAL_BYTES) {
				cells[k].v.s.ptr = (const char *)m->text.data +
				    c[k].v.s.off;
				cells[k].v.s.len = c[k].v.s.len;
			} else
				cells[k].v.u = c[k].v.u;
			if (m->spec->renumber != NULL && strcmp(m->cols[k].name,
			    m->spec->renumber) == 0)
				cells[k] = (struct value){ .type = VAL_U64,
				    .v.u = i + 1 };
		}
		rc = stream_write_row(w, &row);
	}
	free(order);
	return rc;
}
