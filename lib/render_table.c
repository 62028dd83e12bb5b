/*
 * render_table.c - the table formats (text, csv, jsonl) through out.h:
 * tables as they are; events as one flat table like tracerpt's CSV:
 * time, process, pid, tid, cpu, kind, provider, event, stack, fields.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "out.h"
#include "render.h"
#include "render_summarize.h"

#define NO_ID 0xffffffffu

struct render {
	struct out *o;
	struct summarize *sum;	/* text: the query tables as summarize */
	int table_open;		/* a table (or the event list) is open */
	int events_open;	/* ... and it is the event list */
	stream_id table;	/* the open table's id and width */
	size_t ncols;
	struct value cells[STREAM_EVENT_FIELDS_MAX];
	/* Percent columns, written with two decimals (but in JSON). */
	unsigned char two_decimals[STREAM_EVENT_FIELDS_MAX];
	char decimals[STREAM_EVENT_FIELDS_MAX][32];
	struct buf fields;	/* "name=value; ..." of one event */
	struct render_options opt;
	FILE *fp;
	int text, json;
};

static struct render *
table_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rp = calloc(1, sizeof(*rp));

	if (rp == NULL)
		return NULL;
	if (opt != NULL)
		rp->opt = *opt;
	rp->text = strcmp(format, "text") == 0;
	rp->json = strcmp(format, "jsonl") == 0;
	rp->fp = fp;
	if ((rp->o = out_open(format, fp)) == NULL ||
	    (strcmp(format, "text") == 0 &&
	    (rp->sum = summarize_open(fp)) == NULL)) {
		if (rp->o != NULL)
			out_close(rp->o);
		free(rp);
		return NULL;
	}
	return rp;
}

/* Ends the open table, if any. */
static int
end_table(struct render *rp)
{
	int rc = 0;

	if (rp->table_open)
		rc = out_table_end(rp->o);
	rp->table_open = rp->events_open = 0;
	return rc;
}

static int
begin_table(struct render *rp, const struct stream_table *t)
{
	struct out_column cols[STREAM_EVENT_FIELDS_MAX];
	size_t i, n = t->ncols < STREAM_EVENT_FIELDS_MAX ? t->ncols :
	    STREAM_EVENT_FIELDS_MAX;

	if (end_table(rp) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		cols[i].name = t->cols[i].name;
		cols[i].type = t->cols[i].type;
		cols[i].unit = t->cols[i].unit;
		rp->two_decimals[i] = !rp->json && t->cols[i].type == VAL_F64 &&
		    t->cols[i].unit != NULL && strcmp(t->cols[i].unit, "%") == 0;
	}
	rp->table_open = 1;
	rp->table = t->id;
	rp->ncols = n;
	return out_table_begin(rp->o, t->name, cols, n);
}

static int
begin_events(struct render *rp)
{
	static const struct out_column cols[] = {
		{ "time", VAL_NS, "s" }, { "process", VAL_STR, "" },
		{ "pid", VAL_U64, "" }, { "tid", VAL_U64, "" },
		{ "cpu", VAL_U64, "" }, { "kind", VAL_STR, "" },
		{ "provider", VAL_STR, "" }, { "event", VAL_STR, "" },
		{ "stack", VAL_U64, "" }, { "fields", VAL_STR, "" },
	};

	if (end_table(rp) != 0)
		return -1;
	rp->table_open = rp->events_open = 1;
	return out_table_begin(rp->o, "events", cols, 10);
}

/* Appends "name=value" to the fields text, formatting in place. */
static void
add_field(struct render *rp, const char *name, const struct value *v)
{
	struct buf *b = &rp->fields;
	size_t room, need;

	if (b->len > 0)
		buf_put(b, "; ", 2);
	buf_put(b, name, strlen(name));
	buf_put(b, "=", 1);
	/* Room for most values at the first try. */
	if (buf_reserve(b, 64) == NULL)
		return;
	room = b->cap - b->len;
	if ((need = value_format(v, (char *)b->data + b->len, room)) >= room) {
		if (buf_reserve(b, need + 1) == NULL)
			return;
		value_format(v, (char *)b->data + b->len, need + 1);
	}
	b->len += need;
}

static struct value
str_value(const char *s)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, s ? strlen(s) : 0 } };
}

static struct value
id_value(uint32_t id)
{
	if (id == NO_ID)
		return (struct value){ .type = VAL_NULL };
	return (struct value){ .type = VAL_U64, .v.u = id };
}

static int
write_event(struct render *rp, const struct stream_reader *r,
    const struct stream_event *ev)
{
	const struct stream_class *c = stream_class(r, ev->h.cls);
	const struct stream_process *p = ev->h.pid == NO_ID ? NULL :
	    stream_process_by_pid(r, ev->h.pid);
	struct value cells[10];
	size_t i;

	rp->fields.len = 0;
	for (i = 0; i < ev->nfields; i++)
		add_field(rp, ev->fields[i].name, &ev->fields[i].val);
	if (ev->payload_len > 0) {
		struct value raw = { .type = VAL_BYTES,
		    .v.s = { (const char *)ev->payload, ev->payload_len } };

		add_field(rp, "payload", &raw);
	}
	cells[0] = (struct value){ .type = VAL_NS, .v.i = ev->h.ts };
	cells[1] = str_value(p ? p->name : "");
	cells[2] = id_value(ev->h.pid);
	cells[3] = id_value(ev->h.tid);
	cells[4] = (struct value){ .type = VAL_U64, .v.u = ev->h.cpu };
	cells[5] = str_value(stream_kind_name(ev->h.kind));
	cells[6] = str_value(c ? c->provider : "");
	cells[7] = str_value(c ? c->event : "");
	cells[8] = (struct value){ .type = VAL_U64, .v.u = ev->h.stack };
	cells[9] = (struct value){ .type = VAL_STR, .v.s = {
	    (const char *)rp->fields.data, rp->fields.len } };
	return out_table_row(rp->o, cells);
}

/* A row as wide as its table: missing cells are empty, extra ones cut. */
static int
write_row(struct render *rp, const struct stream_row *row)
{
	size_t i;

	for (i = 0; i < rp->ncols; i++)
		if (i < row->ncells)
			rp->cells[i] = row->cells[i];
		else
			rp->cells[i].type = VAL_NULL;
	/* "14.00", not "14": the manual promises two decimals. */
	for (i = 0; i < rp->ncols; i++)
		if (rp->two_decimals[i] && rp->cells[i].type == VAL_F64 &&
		    isfinite(rp->cells[i].v.f)) {
			int n = snprintf(rp->decimals[i], sizeof(rp->decimals[i]),
			    "%.2f", rp->cells[i].v.f);

			rp->cells[i] = (struct value){ .type = VAL_STR,
			    .v.s = { rp->decimals[i], (size_t)n } };
		}
	return out_table_row(rp->o, rp->cells);
}

static int
table_record(struct render *rp, const struct stream_reader *r,
    const struct stream_record *rec)
{
	int took = rp->sum != NULL ? summarize_record(rp->sum, rec) : 0;

	if (took != 0)	/* ends an open table as a table of ours begins */
		return took < 0 ? -1 :
		    rec->type == REC_TABLE ? end_table(rp) : 0;
	switch (rec->type) {
	case REC_TABLE:
		return begin_table(rp, &rec->u.table);
	case REC_ROW:
		if (!rp->table_open || rp->events_open ||
		    rec->u.row.table != rp->table)
			return 0;
		return write_row(rp, &rec->u.row);
	case REC_EVENT:
		if (!rp->events_open && begin_events(rp) != 0)
			return -1;
		return write_event(rp, r, &rec->u.event);
	default:
		return 0;
	}
}

static int
table_close(struct render *rp)
{
	int rc = end_table(rp);

	if (rp->sum != NULL && summarize_close(rp->sum) != 0)
		rc = -1;
	if (out_close(rp->o) != 0)
		rc = -1;
	/* A footer under the text; csv and jsonl have etlreport's warning. */
	if (rp->text)
		render_loss_note(rp->fp, &rp->opt, 0, "\nnote: ", "\n");
	buf_release(&rp->fields);
	free(rp);
	return rc;
}

const struct render_ops render_table_ops = {
	.open = table_open,
	.record = table_record,
	.close = table_close,
};
