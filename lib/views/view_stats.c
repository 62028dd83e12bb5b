/*
 * view_stats.c - "etlagg stats": records per raw event identity, the
 * analogue of xperf -a tracestats.
 *
 * Events count under their class; REC_COUNT adds the source records the
 * decoder turned into definitions (stack walks, ImageID, the trace
 * header).  Identities are keyed by content, so the classes of several
 * traces (whose ids differ) add up.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "view.h"

/* A class key: guid, hook, id, version, opcode, then the two names. */
#define NAMES_AT	26

struct view {
	struct intern keys;		/* identity -> row */
	uint64_t *counts;
	size_t cap;
	stream_id *row_of_class;	/* this section's class id -> row */
	size_t class_cap;
};

/* The identity of a class as bytes: every column but count. */
static size_t
class_key(const struct stream_class *c, unsigned char *key, size_t cap)
{
	size_t plen = strlen(c->provider), elen = strlen(c->event), n;

	if (NAMES_AT + plen + 1 + elen > cap)
		plen = elen = 0;
	memcpy(key, c->guid, 16);
	memcpy(key + 16, &c->hook, 4);
	memcpy(key + 20, &c->event_id, 4);
	key[24] = c->version;
	key[25] = c->opcode;
	n = NAMES_AT;
	memcpy(key + n, c->provider, plen);
	n += plen;
	key[n++] = 0;
	memcpy(key + n, c->event, elen);
	return n + elen;
}

static struct view *
stats_create(int argc, char *argv[], int *used, struct model *m)
{
	(void)m;
	(void)argc;
	(void)argv;
	return view_no_options(calloc(1, sizeof(struct view)), used);
}

static int
add_class(struct view *v, const struct stream_class *c)
{
	unsigned char key[1024];
	uint32_t row = intern_add(&v->keys, key, class_key(c, key, sizeof(key)),
	    NULL);

	if (row == 0)
		return -1;
	if (array_slot(&v->counts, &v->cap, row, sizeof(*v->counts)) == NULL)
		return -1;
	if (array_slot(&v->row_of_class, &v->class_cap, c->id,
	    sizeof(*v->row_of_class)) == NULL)
		return -1;
	v->row_of_class[c->id] = row;
	return 0;
}

static void
count(struct view *v, stream_id cls, uint64_t n)
{
	if (cls < v->class_cap && v->row_of_class[cls] != 0)
		v->counts[v->row_of_class[cls]] += n;
}

static int
stats_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	(void)r;
	switch (rec->type) {
	case REC_HEADER:
		if (v->row_of_class != NULL)
			memset(v->row_of_class, 0,
			    v->class_cap * sizeof(*v->row_of_class));
		break;
	case REC_CLASS:
		return add_class(v, &rec->u.cls);
	case REC_EVENT:
		count(v, rec->u.event.h.cls, 1);
		break;
	case REC_COUNT:
		count(v, rec->u.count.cls, rec->u.count.count);
		break;
	default:
		break;
	}
	return 0;
}

/* Rows in order of falling count, then by name. */
struct row {
	uint64_t count;
	uint32_t id;
	const unsigned char *key;
	size_t len;
};

static int
cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = memcmp(x->key + NAMES_AT, y->key + NAMES_AT,
	    n - NAMES_AT)) != 0)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	/*
	 * Versions of one event share its name: first seen first.  qsort()
	 * is not stable on Windows, and the order must not depend on it.
	 */
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
write_row(struct stream_writer *w, const struct row *row)
{
	const unsigned char *k = row->key;
	const char *provider = (const char *)k + NAMES_AT;
	size_t plen = strnlen(provider, row->len - NAMES_AT);
	int32_t hook, event_id;
	char hookbuf[12];
	struct value cells[8];
	struct stream_row sr = { 1, 8, cells };

	memcpy(&hook, k + 16, 4);
	memcpy(&event_id, k + 20, 4);
	memset(cells, 0, sizeof(cells));
	cells[0] = (struct value){ .type = VAL_GUID, .v.s = {
	    (const char *)k, 16 } };
	cells[1] = (struct value){ .type = VAL_STR, .v.s = { provider, plen } };
	cells[2] = (struct value){ .type = VAL_STR, .v.s = { provider + plen +
	    1, row->len - NAMES_AT - plen - 1 } };
	if (hook >= 0) {
		snprintf(hookbuf, sizeof(hookbuf), "0x%04x", hook);
		cells[3] = (struct value){ .type = VAL_STR,
		    .v.s = { hookbuf, strlen(hookbuf) } };
	}
	if (event_id >= 0)
		cells[4] = (struct value){ .type = VAL_U64, .v.u = event_id };
	cells[5] = (struct value){ .type = VAL_U64, .v.u = k[24] };
	cells[6] = (struct value){ .type = VAL_U64, .v.u = k[25] };
	cells[7] = (struct value){ .type = VAL_U64, .v.u = row->count };
	return stream_write_row(w, &sr);
}

static int
stats_finish(struct view *v, struct stream_writer *w)
{
	static const struct stream_column cols[] = {
		{ "provider_guid", VAL_GUID, "" }, { "provider", VAL_STR, "" },
		{ "event", VAL_STR, "" }, { "hook", VAL_STR, "" },
		{ "id", VAL_U64, "" }, { "version", VAL_U64, "" },
		{ "opcode", VAL_U64, "" }, { "count", VAL_U64, "events" },
	};
	struct row *rows = calloc(v->keys.count + 1, sizeof(*rows));
	uint32_t id, n = 0;
	int rc;

	if (rows == NULL)
		return -1;
	for (id = 1; id <= v->keys.count; id++) {
		rows[n].id = id;
		rows[n].count = v->counts[id];
		rows[n].key = intern_key(&v->keys, id, &rows[n].len);
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_rows);
	rc = view_write_table(w, 1, "stats", cols, 8);
	for (id = 0; id < n && rc == 0; id++)
		rc = write_row(w, &rows[id]);
	free(rows);
	return rc;
}

static void
stats_destroy(struct view *v)
{
	intern_release(&v->keys);
	free(v->counts);
	free(v->row_of_class);
	free(v);
}

static const char *const tables[] = { "stats", NULL };

const struct view_ops view_stats_ops = {
	.name = "stats",
	.usage = "",
	.summary = "records per event identity in the source (xperf tracestats)",
	.tables = tables,
	.create = stats_create,
	.record = stats_record,
	.finish = stats_finish,
	.destroy = stats_destroy,
	.reader_flags = STREAM_EVENT_HEADS,	/* counts classes, not fields */
};
