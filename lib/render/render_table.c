/*
 * render_table.c - the table formats (text, csv, jsonl) through out.h:
 * tables as they are; events as one table like tracerpt's CSV: time,
 * process, pid, tid, cpu, kind, provider, event, stack, fields.
 *
 * The decoded fields of an event are also values of their own, so that
 * a user can sort by them: JSON Lines gives "fields" as a nested object
 * (arrays as arrays); CSV adds a column per field name after the fixed
 * ones.  Since a CSV header comes first and the names are known only at
 * the end, CSV events are spooled to a temporary file (two passes, the
 * memory of one row) and written when the event list ends.  The text
 * format keeps the fields as one "name=value; ..." column.
 *
 * A CSV file holds one table.  With -o FILE each table goes to a file of
 * its own named after FILE ("out.csv" gives "out.queries.csv",
 * "out.queries_total.csv"; the event list is "events"); a lone table
 * keeps FILE's name.  On standard output the first table is written and
 * the others are left out with a warning (status 1).  --table NAME keeps
 * the tables of that name, in every format.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "out/out.h"
#include "base/platform.h"
#include "render.h"
#include "render_summarize.h"

#define NO_ID 0xffffffffu
#define NFIXED	10		/* the event list's own columns */
/* Field columns a CSV event list gets at most; the rest stay in "fields". */
#define FIELD_COLUMNS_MAX	4096

/* The time without a unit: a time stamp, shown exactly (out_scale.h). */
static const struct out_column event_cols[NFIXED] = {
	{ "time", VAL_NS, "" }, { "process", VAL_STR, "" },
	{ "pid", VAL_U64, "" }, { "tid", VAL_U64, "" },
	{ "cpu", VAL_U64, "" }, { "kind", VAL_STR, "" },
	{ "provider", VAL_STR, "" }, { "event", VAL_STR, "" },
	{ "stack", VAL_U64, "" }, { "fields", VAL_STR, "" },
};

struct render {
	FILE *fp;		/* the output; NULL when a file a table */
	const char *format;
	struct render_options opt;
	int csv, text, json;
	struct out *o;		/* the current output, NULL until a table */
	struct summarize *sum;	/* text: the query tables as summarize */
	int table_open;		/* a table (or the event list) is open */
	int events_open;	/* ... and it is the event list */
	int skipping;		/* the open table is not written */
	stream_id table;	/* the open table's id and width */
	size_t ncols;
	struct value cells[STREAM_EVENT_FIELDS_MAX];
	/* Percent columns, written with two decimals in CSV. */
	unsigned char two_decimals[STREAM_EVENT_FIELDS_MAX];
	char decimals[STREAM_EVENT_FIELDS_MAX][32];
	struct buf fields;	/* "name=value; ..." of one event */
	struct out_field named[STREAM_EVENT_FIELDS_MAX + 1];
	/* A file a table (csv with -o). */
	int split;
	FILE *file;		/* the current table's */
	struct buf paths;	/* the files written, each NUL-terminated */
	size_t nfiles;
	/* What was left out, for the warning at the end. */
	size_t written;		/* tables begun and written */
	struct buf left;	/* names of tables not written, ", "-joined */
	size_t nleft;
	int problem;		/* something was said on stderr */
	int failed;		/* a file could not be created */
	struct buf notes;	/* text: the notes of count 0, for the end */
	/* CSV events, spooled until their field names are known. */
	FILE *spool;
	struct intern names;	/* field names, ids from 1 */
	size_t nevents;
	struct buf row;		/* a spooled row */
	struct value *wide;	/* the cells of a row with its field columns */
	size_t wide_cap;
};

static void
say(struct render *rp, const char *what, const char *detail)
{
	rp->problem = 1;
	if (rp->opt.warn != NULL)
		rp->opt.warn("%s%s", what, detail);
}

int
render_writes_files(const char *format, const struct render_options *opt)
{
	if (strcmp(format, "xlsx") == 0)
		return 1;
	return strcmp(format, "csv") == 0 && opt->out != NULL &&
	    strcmp(opt->out, "-") != 0;
}

/* CSV made safe for spreadsheets, or with --csv-raw as it is. */
static const char *
csv_format(const struct render *rp)
{
	return rp->opt.csv_raw ? "csv-raw" : "csv";
}

static struct render *
table_open(FILE *fp, const char *format, const struct render_options *opt)
{
	static const struct render_options none = { 0 };
	struct render *rp = calloc(1, sizeof(*rp));

	if (rp == NULL)
		return NULL;
	rp->opt = opt != NULL ? *opt : none;
	rp->fp = fp;
	rp->format = format;
	rp->csv = strcmp(format, "csv") == 0;
	rp->text = strcmp(format, "text") == 0;
	rp->json = strcmp(format, "jsonl") == 0;
	rp->split = render_writes_files(format, &rp->opt);
	if ((!rp->split && (rp->o = out_open(rp->csv ? csv_format(rp) :
	    format, fp)) == NULL) ||
	    (strcmp(format, "text") == 0 && rp->opt.table == NULL &&
	    (rp->sum = summarize_open(fp)) == NULL)) {
		if (rp->o != NULL)
			out_close(rp->o);
		free(rp);
		return NULL;
	}
	return rp;
}

/* ---- a file a table ---- */

/* FILE less a ".csv" ending, then ".NAME", then "-N" if NAME repeats. */
static void
table_path(const struct render *rp, const char *name, char *path,
    size_t cap)
{
	const char *out = rp->opt.out, *p;
	size_t stem = strlen(out), k, n = 1;
	char tail[80];

	if (stem > 4 && strcmp(out + stem - 4, ".csv") == 0)
		stem -= 4;
	snprintf(tail, sizeof(tail), "%s", name);
	for (k = 0; tail[k] != '\0'; k++)
		if (strchr("/\\:*?\"<>|", tail[k]) != NULL ||
		    (unsigned char)tail[k] < 0x20)
			tail[k] = '_';
	for (;;) {
		if (n == 1)
			snprintf(path, cap, "%.*s.%s%s", (int)stem, out, tail,
			    stem < strlen(out) ? ".csv" : "");
		else
			snprintf(path, cap, "%.*s.%s-%zu%s", (int)stem, out,
			    tail, n, stem < strlen(out) ? ".csv" : "");
		for (p = (const char *)rp->paths.data, k = 0; k < rp->nfiles;
		    k++, p += strlen(p) + 1)
			if (strcmp(p, path) == 0)
				break;
		if (k == rp->nfiles)
			return;
		n++;
	}
}

/* Ends the current file.  @return : 0, or -1 if a write failed. */
static int
close_file(struct render *rp)
{
	int rc = 0;

	if (rp->o != NULL && out_close(rp->o) != 0)
		rc = -1;
	rp->o = NULL;
	if (rp->file != NULL && fclose(rp->file) != 0)
		rc = -1;
	rp->file = NULL;
	return rc;
}

/*
 * Each file is written as NAME.tmp and renamed when all went well, so
 * that a failed run leaves the files of an earlier one as they were.
 */
static void
temp_path(const char *path, char *tmp, size_t cap)
{
	snprintf(tmp, cap, "%s.tmp", path);
}

static int finish_files(struct render *rp, int ok);

/*
 * A file that cannot be created ends the output: it is named as the user
 * gave it (-o) when it is the first, whose directory is then the likely
 * cause, and the files made before it are removed.
 */
static int
create_failed(struct render *rp, const char *path)
{
	int err = errno;
	char text[256];

	snprintf(text, sizeof(text), ": cannot create: %s", strerror(err));
	say(rp, rp->nfiles == 0 ? rp->opt.out : path, text);
	finish_files(rp, 0);
	rp->nfiles = 0;
	rp->failed = 1;
	return RENDER_SAID;
}

static int
open_file(struct render *rp, const char *name)
{
	char path[4096], tmp[4200];

	if (close_file(rp) != 0)
		return -1;
	table_path(rp, name, path, sizeof(path));
	temp_path(path, tmp, sizeof(tmp));
	if ((rp->file = fopen(tmp, "wb")) == NULL)
		return create_failed(rp, path);
	buf_put(&rp->paths, path, strlen(path) + 1);
	rp->nfiles++;
	if ((rp->o = out_open(csv_format(rp), rp->file)) == NULL)
		return -1;
	return 0;
}

/* ---- tables ---- */

/* Ends the open table, if any. */
static int flush_events(struct render *rp);

static int
end_table(struct render *rp)
{
	int rc = 0;

	if (rp->table_open && !rp->skipping)
		rc = rp->spool != NULL ? flush_events(rp) :
		    out_table_end(rp->o);
	rp->table_open = rp->events_open = rp->skipping = 0;
	return rc;
}

/*
 * Starts a table called name: decides whether it is written (--table,
 * one table a CSV output) and where.  @return : 0, or -1 on an error.
 */
static int
start(struct render *rp, const char *name)
{
	int rc;

	if (end_table(rp) != 0)
		return -1;
	rp->table_open = 1;
	rp->skipping = 1;
	if (rp->opt.table != NULL && strcmp(rp->opt.table, name) != 0)
		return 0;
	if (rp->csv && !rp->split && rp->written > 0) {
		if (rp->nleft++ > 0)
			buf_put(&rp->left, ", ", 2);
		buf_put(&rp->left, name, strlen(name));
		return 0;
	}
	if (rp->split && (rc = open_file(rp, name)) != 0)
		return rc;
	rp->skipping = 0;
	rp->written++;
	return 0;
}

static int
begin_table(struct render *rp, const struct stream_table *t)
{
	struct out_column cols[STREAM_EVENT_FIELDS_MAX];
	size_t i, n = t->ncols < STREAM_EVENT_FIELDS_MAX ? t->ncols :
	    STREAM_EVENT_FIELDS_MAX;

	int rc;

	if ((rc = start(rp, t->name)) != 0)
		return rc;
	rp->table = t->id;
	rp->ncols = n;
	if (rp->skipping)
		return 0;
	for (i = 0; i < n; i++) {
		cols[i].name = t->cols[i].name;
		cols[i].type = t->cols[i].type;
		cols[i].unit = t->cols[i].unit;
		rp->two_decimals[i] = rp->csv && t->cols[i].type == VAL_F64 &&
		    t->cols[i].unit != NULL && strcmp(t->cols[i].unit, "%") == 0;
	}
	return out_table_begin(rp->o, t->name, cols, n);
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
	/* "14.00", not "14": the manual promises two decimals in CSV. */
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

/* ---- events ---- */

static int
begin_events(struct render *rp)
{
	int rc;

	if ((rc = start(rp, "events")) != 0)
		return rc;
	rp->events_open = 1;
	if (rp->skipping)
		return 0;
	if (!rp->csv)
		return out_table_begin(rp->o, "events", event_cols, NFIXED);
	/* CSV: the header waits for the last event's field names. */
	intern_clear(&rp->names);
	rp->nevents = 0;
	if ((rp->spool = tmpfile()) == NULL) {
		say(rp, "events: cannot make a temporary file", "");
		return -1;
	}
	return 0;
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

/* A value into a spooled row: its type, then 8 bytes or a string. */
static void
spool_value(struct buf *b, const struct value *v)
{
	buf_put_u8(b, v->type);
	switch (v->type) {
	case VAL_NULL:
		break;
	case VAL_STR:
	case VAL_BYTES:
	case VAL_GUID:
		buf_put_bytes(b, v->v.s.ptr, v->v.s.len);
		break;
	default:
		buf_put_u64(b, v->v.u);
	}
}

static void
unspool_value(struct cursor *c, struct value *v)
{
	size_t len;

	v->type = (enum value_type)cursor_u8(c);
	switch (v->type) {
	case VAL_NULL:
		break;
	case VAL_STR:
	case VAL_BYTES:
	case VAL_GUID:
		v->v.s.ptr = (const char *)cursor_bytes(c, &len);
		v->v.s.len = len;
		break;
	default:
		v->v.u = cursor_u64(c);
	}
	if (c->bad || v->type > VAL_TYPE_MAX)
		v->type = VAL_NULL;
}

/* A CSV event: its cells, then (column, value) for each field. */
static int
spool_event(struct render *rp, const struct value *cells, size_t n)
{
	struct buf *b = &rp->row;
	uint32_t id, nf = 0;
	size_t i, at;

	b->len = 0;
	buf_put_u32(b, 0);	/* the length, filled in below */
	for (i = 0; i < NFIXED; i++)
		spool_value(b, &cells[i]);
	at = b->len;
	buf_put_u32(b, 0);
	for (i = 0; i < n; i++) {
		const char *name = rp->named[i].name;

		if ((id = intern_add(&rp->names, name, strlen(name), NULL)) ==
		    0)
			return -1;
		if (id > FIELD_COLUMNS_MAX)
			continue;
		buf_put_u32(b, id);
		spool_value(b, &rp->named[i].val);
		nf++;
	}
	if (b->oom)
		return -1;
	memcpy(b->data, &(uint32_t){ (uint32_t)(b->len - 4) }, 4);
	memcpy(b->data + at, &nf, 4);
	rp->nevents++;
	return fwrite(b->data, 1, b->len, rp->spool) == b->len ? 0 : -1;
}

static int
write_event(struct render *rp, const struct stream_reader *r,
    const struct stream_event *ev)
{
	const struct stream_class *c = stream_class(r, ev->h.cls);
	const struct stream_process *p = ev->h.pid == NO_ID ? NULL :
	    stream_process_by_pid(r, ev->h.pid);
	struct value cells[NFIXED];
	size_t i, n = 0;

	rp->fields.len = 0;
	for (i = 0; i < ev->nfields; i++) {
		add_field(rp, ev->fields[i].name, &ev->fields[i].val);
		rp->named[n].name = ev->fields[i].name;
		rp->named[n++].val = ev->fields[i].val;
	}
	if (ev->payload_len > 0) {
		struct value raw = { .type = VAL_BYTES,
		    .v.s = { (const char *)ev->payload, ev->payload_len } };

		add_field(rp, "payload", &raw);
		rp->named[n].name = "payload";
		rp->named[n++].val = raw;
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
	if (rp->spool != NULL)
		return spool_event(rp, cells, n);
	return out_table_row_record(rp->o, cells, rp->named, n);
}

/* The header of field column id: its name, unless a fixed one has it. */
static const char *
field_column(struct render *rp, uint32_t id, char *buf, size_t cap)
{
	size_t len, i;
	const char *name = intern_key(&rp->names, id, &len);

	for (i = 0; i < NFIXED; i++)
		if (strlen(event_cols[i].name) == len &&
		    memcmp(event_cols[i].name, name, len) == 0)
			break;
	snprintf(buf, cap, "%s%.*s", i < NFIXED ? "field." : "", (int)len,
	    name);
	return buf;
}

/* One spooled row into rp->wide; @return : 0, or -1 at the end. */
static int
replay_row(struct render *rp, size_t width)
{
	struct cursor c;
	uint32_t len, nf, id, i;
	unsigned char *d;

	if (fread(&len, 4, 1, rp->spool) != 1 ||
	    (d = buf_reserve(&rp->row, len)) == NULL ||
	    fread(d, 1, len, rp->spool) != len)
		return -1;
	cursor_init(&c, d, len);
	for (i = 0; i < width; i++)
		rp->wide[i].type = VAL_NULL;
	for (i = 0; i < NFIXED; i++)
		unspool_value(&c, &rp->wide[i]);
	nf = cursor_u32(&c);
	for (i = 0; i < nf && !c.bad; i++) {
		struct value v;

		id = cursor_u32(&c);
		unspool_value(&c, &v);
		if (id >= 1 && NFIXED + id - 1 < width)
			rp->wide[NFIXED + id - 1] = v;
	}
	return 0;
}

/* The spooled CSV events: the header with every field name, the rows. */
static int
flush_events(struct render *rp)
{
	size_t nnames = rp->names.count, width, i, k;
	struct out_column *cols;
	char (*heads)[128];
	int rc = 0;

	if (nnames > FIELD_COLUMNS_MAX)
		nnames = FIELD_COLUMNS_MAX;
	width = NFIXED + nnames;
	cols = calloc(width, sizeof(*cols));
	heads = calloc(nnames + 1, sizeof(*heads));
	if (cols == NULL || heads == NULL || (width > rp->wide_cap &&
	    (rp->wide = realloc(rp->wide, width * sizeof(*rp->wide))) ==
	    NULL)) {
		free(cols);
		free(heads);
		fclose(rp->spool);
		rp->spool = NULL;
		return -1;
	}
	if (width > rp->wide_cap)
		rp->wide_cap = width;
	memcpy(cols, event_cols, sizeof(event_cols));
	for (i = 0; i < nnames; i++) {
		/* A field's values may differ in type: the text is what is shown. */
		cols[NFIXED + i].name = field_column(rp, (uint32_t)i + 1,
		    heads[i], sizeof(heads[i]));
		cols[NFIXED + i].type = VAL_STR;
		cols[NFIXED + i].unit = "";
	}
	rewind(rp->spool);
	rc = out_table_begin(rp->o, "events", cols, width);
	for (k = 0; k < rp->nevents && rc == 0; k++) {
		if (replay_row(rp, width) != 0) {
			say(rp, "events: the temporary file could not be read",
			    "");
			rc = -1;
			break;
		}
		rc = out_table_row(rp->o, rp->wide);
	}
	if (rc == 0)
		rc = out_table_end(rp->o);
	if (rp->names.count > FIELD_COLUMNS_MAX)
		say(rp, "events: more field names than CSV columns; the rest "
		    "are in the fields column only", "");
	fclose(rp->spool);
	rp->spool = NULL;
	free(cols);
	free(heads);
	return rc;
}

/* ---- records ---- */

static int
table_record(struct render *rp, const struct stream_reader *r,
    const struct stream_record *rec)
{
	int took, rc;

	if (rp->failed)
		return RENDER_SAID;
	took = rp->sum != NULL ? summarize_record(rp->sum, rec) : 0;
	if (rp->text && render_note_keep(&rp->notes, rec) != 0)
		return -1;
	if (took != 0)	/* ends an open table as a table of ours begins */
		return took < 0 ? -1 :
		    rec->type == REC_TABLE ? end_table(rp) : 0;
	switch (rec->type) {
	case REC_TABLE:
		return begin_table(rp, &rec->u.table);
	case REC_ROW:
		if (!rp->table_open || rp->events_open || rp->skipping ||
		    rec->u.row.table != rp->table)
			return 0;
		return write_row(rp, &rec->u.row);
	case REC_EVENT:
		if (!rp->events_open && (rc = begin_events(rp)) != 0)
			return rc;
		if (rp->skipping)
			return 0;
		return write_event(rp, r, &rec->u.event);
	default:
		return 0;
	}
}

/*
 * Renames the files written to their names, or on failure removes them.
 * A lone table keeps the name -o gave; none gives an empty file.
 */
static int
finish_files(struct render *rp, int ok)
{
	const char *p = (const char *)rp->paths.data;
	char tmp[4200];
	size_t i;
	FILE *fp;
	int rc = 0;

	for (i = 0; i < rp->nfiles; i++, p += strlen(p) + 1) {
		temp_path(p, tmp, sizeof(tmp));
		if (!ok)
			remove(tmp);
		else if (platform_replace(tmp, rp->nfiles == 1 ? rp->opt.out : p) != 0) {
			say(rp, p, ": cannot rename its temporary file");
			rc = -1;
		}
	}
	if (ok && rp->nfiles == 0) {
		if ((fp = fopen(rp->opt.out, "wb")) == NULL)
			return -1;
		return fclose(fp) == 0 ? 0 : -1;
	}
	return rc;
}

static int
table_close(struct render *rp)
{
	int rc = end_table(rp);

	if (rp->sum != NULL && summarize_close(rp->sum) != 0)
		rc = -1;
	if (close_file(rp) != 0)
		rc = -1;
	if (rp->split && finish_files(rp, rc == 0 && !rp->failed) != 0)
		rc = -1;
	if (rp->nleft > 0) {
		buf_put(&rp->left, "", 1);
		say(rp, "a CSV file holds one table; left out: ",
		    rp->left.oom ? "(no memory)" : (const char *)rp->left.data);
		say(rp, "give -o file for a file each, or --table name", "");
	}
	if (rp->opt.table != NULL && rp->written == 0)
		say(rp, "no table of that name: ", rp->opt.table);
	if (rc == 0 && rp->problem)
		rc = 2;
	/* A footer under the text; csv and jsonl have etlreport's warning. */
	if (rp->text && rp->fp != NULL) {
		render_loss_note(rp->fp, &rp->opt, 0, "\nnote: ", "\n");
		render_missing_note(rp->fp, &rp->opt, 0, "\nnote: ", "\n");
		render_notes_write(rp->fp, &rp->notes, 0, "\nnote: ", "\n");
	}
	buf_release(&rp->notes);
	buf_release(&rp->fields);
	buf_release(&rp->paths);
	buf_release(&rp->left);
	buf_release(&rp->row);
	intern_release(&rp->names);
	free(rp->wide);
	free(rp);
	return rc;
}

const struct render_ops render_table_ops = {
	.open = table_open,
	.record = table_record,
	.close = table_close,
};
