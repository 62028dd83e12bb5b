/*
 * render_xlsx.c - "etlreport -f xlsx": one workbook for the whole
 * output, written with libxlsxwriter to the file -o names.
 *
 * The first sheet, "Summary", says what the tables were made from: the
 * sources and their machines, the time range, what the input lost,
 * what was filtered out, the notes of the views, and the sheets that
 * were cut.  Then a sheet a table (and one for the event list), named
 * after the table as Excel allows (31 characters, none of []:*?/\, a
 * name met again gets "-2").  A sheet's first row is the header, the
 * names and units of out_csv_header() (the CSV's), bold and frozen,
 * with an autofilter; its columns are as wide as their longest value
 * (up to COL_WIDTH_MAX).
 *
 * Cells are typed as the values are: integers and decimals are numbers
 * (percents shown with two decimals), times since the start of the
 * trace numbers of seconds, UTC times dates with a date-time format,
 * booleans booleans, and all else strings, never formulas: nothing in
 * a workbook runs, whatever a trace's names hold.  Text is made valid
 * for the file (invalid UTF-8 and control characters become U+FFFD) and
 * cut to Excel's 32767 characters.
 *
 * A sheet holds XLSX_ROWS rows: past that its last row says how many
 * rows were left out, the Summary says so too, and close() returns 2
 * (exit status 1).  The workbook is written with constant memory (a
 * row at a time through a temporary file), to FILE.tmp, and renamed to
 * FILE when all went well.  Each sheet keeps its temporary file open
 * until then, and Windows' C library opens 512 files at most: a
 * workbook holds XLSX_SHEETS tables, those after are left out, said
 * alike.
 */
#include "render.h"

#ifndef ETL_NO_XLSX

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xlsxwriter.h>

#include "base/buf.h"
#include "base/platform.h"
#include "base/utf.h"
#include "out/out.h"
#include "stream/loss.h"

#define XLSX_ROWS	1048576u	/* Excel's rows in a sheet */
#define XLSX_TEXT_MAX	32767		/* characters in a cell */
#define XLSX_SHEETS	250		/* sheets of tables, see above */
#define COL_WIDTH_MAX	60.0
#define NFIXED		10		/* the event list's columns */
#define SOURCES_MAX	16		/* traces named in the Summary */
#define DIAGS_MAX	64		/* notes listed in the Summary */

static const struct out_column event_cols[NFIXED] = {
	{ "time", VAL_NS, "s" }, { "process", VAL_STR, "" },
	{ "pid", VAL_U64, "" }, { "tid", VAL_U64, "" },
	{ "cpu", VAL_U64, "" }, { "kind", VAL_STR, "" },
	{ "provider", VAL_STR, "" }, { "event", VAL_STR, "" },
	{ "stack", VAL_U64, "" }, { "fields", VAL_STR, "" },
};

struct source {
	char name[256], format[32], logger[128];
	uint64_t start_utc, end_utc;
	uint32_t os_major, os_minor, os_build, cpus;
};

/* A cell of a sysconfig row, kept for the Summary; text in sys_text. */
struct sys_cell {
	char name[48];
	struct value v;
	size_t text_at;		/* where a string's bytes are in sys_text */
};

#define SYS_CELLS_MAX	(SOURCES_MAX * 64)

struct diag_note {
	char what[RENDER_NOTE_LEN + 1];
	uint64_t count;
};

struct render {
	struct render_options opt;
	char tmp[4200];
	lxw_workbook *wb;
	lxw_format *bold, *date, *secs, *pct;
	lxw_worksheet *summary;
	/* The open sheet. */
	lxw_worksheet *ws;
	int open, events, skipping;
	stream_id table;
	size_t ncols;
	uint32_t row;		/* the next row to write */
	uint64_t left;		/* rows past the sheet's end */
	uint32_t max_rows;	/* rows a sheet holds, the header included */
	char name[64];
	enum value_type types[STREAM_EVENT_FIELDS_MAX];
	unsigned char two_decimals[STREAM_EVENT_FIELDS_MAX];
	double width[STREAM_EVENT_FIELDS_MAX];
	struct buf sheets;	/* the sheet names taken, NUL-terminated */
	struct buf text;	/* a cell's text, made valid */
	struct buf cuts;	/* "name: N rows left out", NUL-terminated */
	struct buf notes;	/* the views' notes (render_note_keep) */
	struct buf fields;	/* an event's "name=value; ..." */
	/* What the Summary says of the input. */
	struct source src[SOURCES_MAX];
	size_t nsrc, more_src;
	char computer[128];
	uint64_t events_read, tables, written;
	uint64_t tables_left;	/* past XLSX_SHEETS */
	struct diag_note diags[DIAGS_MAX];
	size_t ndiags;
	/* The sysconfig table's rows: the machines, as the report has them. */
	stream_id sys_table;
	int sys_open;
	char sys_names[64][48];
	size_t sys_ncols;
	struct sys_cell *sys;
	size_t nsys;
	struct buf sys_text;
	int failed;		/* a write failed */
	int problem;		/* something was said on stderr */
};

static void
say(struct render *rd, const char *what, const char *detail)
{
	rd->problem = 1;
	if (rd->opt.warn != NULL)
		rd->opt.warn("%s%s", what, detail);
}

static int
check(struct render *rd, lxw_error e)
{
	if (e == LXW_NO_ERROR)
		return 0;
	if (!rd->failed)
		say(rd, "xlsx: ", lxw_strerror(e));
	rd->failed = 1;
	return -1;
}

/* ---- text ---- */

/* The length of the valid UTF-8 sequence at s (n bytes), or 0. */
static size_t
utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 &&
	    c < 0xe0 ? 2 : 0;
	if (len == 0 || len > n)
		return 0;
	c &= 0x3f >> (len - 1);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c < 0xe000))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return len;
}

/*
 * s as a NUL-terminated string an xlsx file can hold: invalid UTF-8,
 * control characters (but tab and line feed) and U+FFFE/U+FFFF become
 * U+FFFD; cut to XLSX_TEXT_MAX UTF-16 units, as Excel counts.
 */
static const char *
clean_text(struct render *rd, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf *b = &rd->text;
	size_t i = 0, len, units = 0;
	uint32_t cp;

	b->len = 0;
	while (i < n) {
		if ((len = utf8_seq(p + i, n - i, &cp)) == 0) {
			len = 1;
			cp = 0xfffd;
		}
		if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f ||
		    cp == 0xfffe || cp == 0xffff)
			cp = 0xfffd;
		if ((units += cp >= 0x10000 ? 2 : 1) > XLSX_TEXT_MAX)
			break;
		if (cp == 0xfffd && (len != 3 || p[i] != 0xef))
			buf_put(b, "\xef\xbf\xbd", 3);
		else
			buf_put(b, p + i, len);
		i += len;
	}
	buf_put(b, "", 1);
	return b->oom ? "" : (const char *)b->data;
}

/* Characters of s, for the width of its column. */
static size_t
text_width(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void
widen(struct render *rd, size_t col, double w)
{
	if (w > rd->width[col])
		rd->width[col] = w;
}

/* ---- cells ---- */

/* FILETIME to Excel's serial date (days since 1899-12-30), or -1. */
static double
excel_date(uint64_t ft)
{
	double days = (double)ft / 864e9 - 109205.0;

	/* Excel's dates run from 1900-01-01 to 9999-12-31. */
	return ft == 0 || days < 1.0 || days >= 2958466.0 ? -1.0 : days;
}

static int
write_text(struct render *rd, size_t col, const char *s, size_t n)
{
	const char *t = clean_text(rd, s, n);

	widen(rd, col, (double)text_width(t));
	return check(rd, worksheet_write_string(rd->ws, rd->row,
	    (lxw_col_t)col, t, NULL));
}

static int
write_number(struct render *rd, size_t col, double d, lxw_format *f,
    double width)
{
	widen(rd, col, width);
	return check(rd, worksheet_write_number(rd->ws, rd->row,
	    (lxw_col_t)col, d, f));
}

/* The width of an integer's digits. */
static double
digits(double d)
{
	char num[32];

	return (double)snprintf(num, sizeof(num), "%.0f", d);
}

static int
write_cell(struct render *rd, size_t col, const struct value *v)
{
	char text[64];
	double d;

	switch (v->type) {
	case VAL_NULL:
		return 0;
	case VAL_I64:
		return write_number(rd, col, (double)v->v.i, NULL,
		    digits((double)v->v.i));
	case VAL_U64:
		return write_number(rd, col, (double)v->v.u, NULL,
		    digits((double)v->v.u));
	case VAL_F64:
		if (!isfinite(v->v.f))
			break;
		if (rd->two_decimals[col])
			return write_number(rd, col, v->v.f, rd->pct,
			    digits(v->v.f) + 3);
		return write_number(rd, col, v->v.f, NULL,
		    (double)snprintf(text, sizeof(text), "%.6g", v->v.f));
	case VAL_NS:
		return write_number(rd, col, (double)v->v.i / 1e9, rd->secs,
		    digits((double)v->v.i / 1e9) + 10);
	case VAL_UTC:
		if ((d = excel_date(v->v.u)) < 0)
			break;
		return write_number(rd, col, d, rd->date, 23);
	case VAL_BOOL:
		widen(rd, col, 5);
		return check(rd, worksheet_write_boolean(rd->ws, rd->row,
		    (lxw_col_t)col, v->v.u != 0, NULL));
	case VAL_STR:
		return write_text(rd, col, v->v.s.ptr, v->v.s.len);
	default:
		break;
	}
	/* Hex, GUIDs, bytes and what a number cannot hold: their text. */
	{
		size_t need = value_format(v, NULL, 0);
		char *p = need < sizeof(text) ? text : malloc(need + 1);
		int rc;

		if (p == NULL)
			return -1;
		value_format(v, p, need + 1);
		rc = write_text(rd, col, p, need);
		if (p != text)
			free(p);
		return rc;
	}
}

/* ---- sheets ---- */

/* Whether the sheet name is taken, as Excel compares them (ASCII case). */
static int
taken(const struct render *rd, const char *name)
{
	const char *p = (const char *)rd->sheets.data;
	const char *end = p != NULL ? p + rd->sheets.len : NULL;

	for (; p != NULL && p < end; p += strlen(p) + 1) {
		const char *a = p, *b = name;

		while (*a != '\0' && (*a | 0x20 * (*a >= 'A' && *a <= 'Z')) ==
		    (*b | 0x20 * (*b >= 'A' && *b <= 'Z')))
			a++, b++;
		if (*a == '\0' && *b == '\0')
			return 1;
	}
	return 0;
}

/*
 * A sheet name for the table `table`: what Excel forbids ([]:*?/\ and
 * control characters) becomes '_', a quote cannot start or end it, it
 * is cut to 31 characters (of ASCII: others become '_' too, so that a
 * cut cannot split one) and a name taken gets "-2", "-3", ...
 */
static void
sheet_name(const struct render *rd, const char *table, char *name,
    size_t cap)
{
	char base[LXW_SHEETNAME_MAX + 1];
	size_t i, n = 1;

	snprintf(base, sizeof(base), "%s", *table != '\0' ? table : "table");
	for (i = 0; base[i] != '\0'; i++)
		if (strchr("[]:*?/\\", base[i]) != NULL ||
		    (unsigned char)base[i] < 0x20 ||
		    (unsigned char)base[i] >= 0x7f)
			base[i] = '_';
	if (base[0] == '\'')
		base[0] = '_';
	if (base[i - 1] == '\'')
		base[i - 1] = '_';
	snprintf(name, cap, "%s", base);
	while (taken(rd, name) || strcmp(name, "History") == 0) {
		char tail[24];
		int keep;

		n++;
		keep = LXW_SHEETNAME_MAX - snprintf(tail, sizeof(tail),
		    "-%zu", n);
		snprintf(name, cap, "%.*s%s", keep, base, tail);
	}
}

static lxw_worksheet *
add_sheet(struct render *rd, const char *table)
{
	char name[LXW_SHEETNAME_MAX + 8];
	lxw_worksheet *ws;

	sheet_name(rd, table, name, sizeof(name));
	buf_put(&rd->sheets, name, strlen(name) + 1);
	snprintf(rd->name, sizeof(rd->name), "%s", name);
	if ((ws = workbook_add_worksheet(rd->wb, name)) == NULL) {
		say(rd, "xlsx: cannot add the sheet ", name);
		rd->failed = 1;
	}
	return ws;
}

/* The last row of a sheet cut short; the Summary's line of it. */
static int
write_cut(struct render *rd)
{
	char text[200];

	snprintf(text, sizeof(text), "%llu more rows left out here: an "
	    "xlsx sheet holds %u rows; the CSV of this table has them all",
	    (unsigned long long)rd->left, rd->max_rows);
	if (check(rd, worksheet_write_string(rd->ws, rd->row, 0, text,
	    rd->bold)) != 0)
		return -1;
	snprintf(text, sizeof(text), "%s: cut after %u rows, %llu left out",
	    rd->name, rd->row - 1, (unsigned long long)rd->left);
	buf_put(&rd->cuts, text, strlen(text) + 1);
	say(rd, "xlsx: sheet ", text);
	return 0;
}

static int
end_sheet(struct render *rd)
{
	size_t i;
	int rc = 0;

	if (!rd->open || rd->skipping || rd->ws == NULL) {
		rd->open = rd->events = rd->skipping = 0;
		return 0;
	}
	rd->open = rd->events = 0;
	for (i = 0; i < rd->ncols; i++) {
		/* Room for the filter's button beside the header. */
		double w = rd->width[i] + 2;

		if (check(rd, worksheet_set_column(rd->ws, (lxw_col_t)i,
		    (lxw_col_t)i, w > COL_WIDTH_MAX ? COL_WIDTH_MAX : w,
		    NULL)) != 0)
			rc = -1;
	}
	if (rd->ncols > 0) {
		worksheet_freeze_panes(rd->ws, 1, 0);
		if (check(rd, worksheet_autofilter(rd->ws, 0, 0,
		    rd->row > 1 ? rd->row - 1 : 0,
		    (lxw_col_t)(rd->ncols - 1))) != 0)
			rc = -1;
	}
	/* Last: constant memory writes no row above the last one written. */
	if (rd->left > 0 && write_cut(rd) != 0)
		rc = -1;
	return rc;
}

/* Starts a sheet of the table `table` with these columns. */
static int
begin_sheet(struct render *rd, const char *table,
    const struct out_column *cols, size_t ncols)
{
	char head[256];
	size_t i;

	if (end_sheet(rd) != 0)
		return -1;
	rd->open = 1;
	rd->skipping = rd->opt.table != NULL &&
	    strcmp(rd->opt.table, table) != 0;
	rd->ncols = ncols < STREAM_EVENT_FIELDS_MAX ? ncols :
	    STREAM_EVENT_FIELDS_MAX;
	rd->tables++;
	if (rd->skipping)
		return 0;
	if (rd->written == XLSX_SHEETS) {
		rd->skipping = 1;
		rd->tables_left++;
		return 0;
	}
	rd->written++;
	rd->row = 0;
	rd->left = 0;
	if ((rd->ws = add_sheet(rd, table)) == NULL)
		return -1;
	for (i = 0; i < rd->ncols; i++) {
		rd->types[i] = cols[i].type;
		rd->two_decimals[i] = cols[i].type == VAL_F64 &&
		    cols[i].unit != NULL && strcmp(cols[i].unit, "%") == 0;
		out_csv_header(&cols[i], head, sizeof(head));
		rd->width[i] = (double)text_width(head);
		if (check(rd, worksheet_write_string(rd->ws, 0, (lxw_col_t)i,
		    clean_text(rd, head, strlen(head)), rd->bold)) != 0)
			return -1;
	}
	rd->row = 1;
	return 0;
}

/* A row of cells, or a count of those past the sheet's end. */
static int
write_cells(struct render *rd, const struct value *cells, size_t n)
{
	size_t i;

	if (rd->row >= rd->max_rows - 1) {
		rd->left++;	/* the last row is kept for the note */
		return 0;
	}
	for (i = 0; i < rd->ncols; i++)
		if (i < n && write_cell(rd, i, &cells[i]) != 0)
			return -1;
	rd->row++;
	return 0;
}

/* ---- events ---- */

static void
add_field(struct render *rd, const char *name, const struct value *v)
{
	struct buf *b = &rd->fields;
	size_t need = value_format(v, NULL, 0);

	if (b->len > 0)
		buf_put(b, "; ", 2);
	buf_put(b, name, strlen(name));
	buf_put(b, "=", 1);
	if (buf_reserve(b, need + 1) == NULL)
		return;
	value_format(v, (char *)b->data + b->len, need + 1);
	b->len += need;
}

static struct value
str_value(const char *s)
{
	return (struct value){ .type = VAL_STR,
	    .v.s = { s ? s : "", s ? strlen(s) : 0 } };
}

static int
write_event(struct render *rd, const struct stream_reader *r,
    const struct stream_event *ev)
{
	const struct stream_class *c = stream_class(r, ev->h.cls);
	const struct stream_process *p = ev->h.pid == 0xffffffffu ? NULL :
	    stream_process_by_pid(r, ev->h.pid);
	struct value cells[NFIXED];
	size_t i;

	rd->fields.len = 0;
	for (i = 0; i < ev->nfields; i++)
		add_field(rd, ev->fields[i].name, &ev->fields[i].val);
	if (ev->payload_len > 0) {
		struct value raw = { .type = VAL_BYTES,
		    .v.s = { (const char *)ev->payload, ev->payload_len } };

		add_field(rd, "payload", &raw);
	}
	cells[0] = (struct value){ .type = VAL_NS, .v.i = ev->h.ts };
	cells[1] = str_value(p ? p->name : "");
	cells[2] = ev->h.pid == 0xffffffffu ? (struct value){ VAL_NULL } :
	    (struct value){ .type = VAL_U64, .v.u = ev->h.pid };
	cells[3] = ev->h.tid == 0xffffffffu ? (struct value){ VAL_NULL } :
	    (struct value){ .type = VAL_U64, .v.u = ev->h.tid };
	cells[4] = (struct value){ .type = VAL_U64, .v.u = ev->h.cpu };
	cells[5] = str_value(stream_kind_name(ev->h.kind));
	cells[6] = str_value(c ? c->provider : "");
	cells[7] = str_value(c ? c->event : "");
	cells[8] = (struct value){ .type = VAL_U64, .v.u = ev->h.stack };
	cells[9] = (struct value){ .type = VAL_STR, .v.s = {
	    rd->fields.oom ? "" : (const char *)rd->fields.data,
	    rd->fields.oom ? 0 : rd->fields.len } };
	return write_cells(rd, cells, NFIXED);
}

/* ---- what the Summary says ---- */

static void
keep_trace(struct render *rd, const struct stream_trace *t)
{
	struct source *s;

	if (rd->nsrc == SOURCES_MAX) {
		rd->more_src++;
		return;
	}
	s = &rd->src[rd->nsrc++];
	snprintf(s->name, sizeof(s->name), "%s", t->source ? t->source : "");
	snprintf(s->format, sizeof(s->format), "%s", t->format ? t->format :
	    "");
	snprintf(s->logger, sizeof(s->logger), "%s", t->logger ? t->logger :
	    "");
	s->start_utc = t->start_utc;
	s->end_utc = t->end_utc;
	s->os_major = t->os_major;
	s->os_minor = t->os_minor;
	s->os_build = t->os_build;
	s->cpus = t->cpus;
}

/* A DIAG that is not loss (filters, notes with a count), summed. */
static void
keep_diag(struct render *rd, const struct stream_diag *d)
{
	size_t i;

	if (d->what == NULL || d->count == 0 || loss_diag_is_loss(d))
		return;
	for (i = 0; i < rd->ndiags; i++)
		if (strncmp(rd->diags[i].what, d->what,
		    sizeof(rd->diags[i].what) - 1) == 0) {
			rd->diags[i].count += d->count;
			return;
		}
	if (rd->ndiags == DIAGS_MAX)
		return;
	snprintf(rd->diags[rd->ndiags].what, sizeof(rd->diags[0].what), "%s",
	    d->what);
	rd->diags[rd->ndiags++].count = d->count;
}

/* One line of the Summary: an item, then a text, number or date. */
static void
summary_line(struct render *rd, uint32_t *row, const char *item,
    const struct value *v)
{
	lxw_worksheet *ws = rd->ws;

	rd->ws = rd->summary;
	rd->row = *row;
	widen(rd, 0, (double)text_width(item));
	check(rd, worksheet_write_string(rd->summary, *row, 0,
	    clean_text(rd, item, strlen(item)), rd->bold));
	if (v != NULL)
		write_cell(rd, 1, v);
	(*row)++;
	rd->ws = ws;
}

static void
summary_text(struct render *rd, uint32_t *row, const char *item,
    const char *text)
{
	struct value v = str_value(text);

	summary_line(rd, row, item, &v);
}

static void
summary_number(struct render *rd, uint32_t *row, const char *item,
    uint64_t n)
{
	struct value v = { .type = VAL_U64, .v.u = n };

	summary_line(rd, row, item, &v);
}

static void
summary_sources(struct render *rd, uint32_t *row)
{
	char text[64];
	size_t i;

	for (i = 0; i < rd->nsrc; i++) {
		const struct source *s = &rd->src[i];
		struct value t = { .type = VAL_UTC };

		summary_text(rd, row, "source", s->name);
		summary_text(rd, row, "format", s->format);
		if (s->logger[0] != '\0')
			summary_text(rd, row, "session", s->logger);
		if (s->os_major != 0) {
			snprintf(text, sizeof(text), "Windows %u.%u.%u",
			    s->os_major, s->os_minor, s->os_build);
			summary_text(rd, row, "OS", text);
		}
		if (s->cpus != 0)
			summary_number(rd, row, "CPUs", s->cpus);
		if (s->start_utc != 0) {
			t.v.u = s->start_utc;
			summary_line(rd, row, "start (UTC)", &t);
		}
		if (s->end_utc != 0) {
			t.v.u = s->end_utc;
			summary_line(rd, row, "end (UTC)", &t);
		}
	}
	if (rd->more_src > 0)
		summary_number(rd, row, "more sources", rd->more_src);
}

/* The sysconfig rows, a line a cell, when the stream has the table. */
static void
summary_machines(struct render *rd, uint32_t *row)
{
	size_t i;

	for (i = 0; i < rd->nsys && !rd->sys_text.oom; i++) {
		struct value v = rd->sys[i].v;

		if (v.type == VAL_STR || v.type == VAL_BYTES ||
		    v.type == VAL_GUID)
			v.v.s.ptr = (const char *)rd->sys_text.data +
			    rd->sys[i].text_at;
		if (v.type != VAL_NULL)
			summary_line(rd, row, rd->sys[i].name, &v);
	}
}

static void
write_summary(struct render *rd)
{
	char text[1024];
	const char *p, *end;
	uint32_t row = 0;
	size_t i;

	rd->ncols = 2;
	rd->width[0] = rd->width[1] = 0;
	summary_sources(rd, &row);
	summary_machines(rd, &row);
	if (rd->nsrc == 0 && rd->nsys == 0)
		summary_text(rd, &row, "source", "the stream names none: "
		    "add the sysconfig view for the machine");
	if (rd->computer[0] != '\0')
		summary_text(rd, &row, "machine", rd->computer);
	if (rd->events_read > 0)
		summary_number(rd, &row, "events", rd->events_read);
	if (rd->opt.loss != NULL && loss_any(rd->opt.loss)) {
		loss_format(rd->opt.loss, text, sizeof(text));
		summary_text(rd, &row, "lost", text);
	} else
		summary_text(rd, &row, "lost", "nothing");
	for (i = 0; i < rd->ndiags; i++) {
		const char *w = rd->diags[i].what;

		if (strncmp(w, "note: ", 6) == 0)
			w += 6;
		snprintf(text, sizeof(text), "%s: %llu", w,
		    (unsigned long long)rd->diags[i].count);
		summary_text(rd, &row, strstr(w, "filter") != NULL ?
		    "filter" : "note", text);
	}
	if (rd->opt.table != NULL)
		summary_text(rd, &row, "tables kept", rd->opt.table);
	p = (const char *)rd->notes.data;
	end = p != NULL ? p + rd->notes.len : NULL;
	for (; p != NULL && p < end; p += strlen(p) + 1)
		summary_text(rd, &row, "note", p);
	p = (const char *)rd->cuts.data;
	end = p != NULL ? p + rd->cuts.len : NULL;
	for (; p != NULL && p < end; p += strlen(p) + 1)
		summary_text(rd, &row, "cut", p);
	summary_number(rd, &row, "tables", rd->written);
	for (i = 0; i < 2; i++)
		worksheet_set_column(rd->summary, (lxw_col_t)i,
		    (lxw_col_t)i, rd->width[i] + 2 > COL_WIDTH_MAX * 2 ?
		    COL_WIDTH_MAX * 2 : rd->width[i] + 2, NULL);
}

/* ---- the renderer ---- */

static lxw_format *
number_format(lxw_workbook *wb, const char *fmt)
{
	lxw_format *f = workbook_add_format(wb);

	if (f != NULL)
		format_set_num_format(f, fmt);
	return f;
}

static struct render *
xlsx_open(FILE *fp, const char *format, const struct render_options *opt)
{
	static const struct render_options none = { 0 };
	lxw_workbook_options wo = { .constant_memory = LXW_TRUE,
	    .use_zip64 = LXW_TRUE };
	struct render *rd = calloc(1, sizeof(*rd));
	const char *env = getenv("ETL_XLSX_ROWS");

	(void)fp;	/* the workbook is a file of its own */
	(void)format;
	if (rd == NULL)
		return NULL;
	rd->opt = opt != NULL ? *opt : none;
	rd->max_rows = XLSX_ROWS;
	/* Fewer rows a sheet, for the tests of a cut sheet. */
	if (env != NULL && atol(env) >= 3 && atol(env) < (long)XLSX_ROWS)
		rd->max_rows = (uint32_t)atol(env);
	snprintf(rd->tmp, sizeof(rd->tmp), "%s.tmp",
	    rd->opt.out != NULL ? rd->opt.out : "etlreport.xlsx");
	if ((rd->wb = workbook_new_opt(rd->tmp, &wo)) == NULL) {
		say(rd, rd->tmp, ": cannot create");
		rd->failed = 1;
		return rd;
	}
	rd->bold = workbook_add_format(rd->wb);
	if (rd->bold != NULL)
		format_set_bold(rd->bold);
	rd->date = number_format(rd->wb, "yyyy-mm-dd hh:mm:ss.000");
	rd->secs = number_format(rd->wb, "0.000000000");
	rd->pct = number_format(rd->wb, "0.00");
	buf_put(&rd->sheets, "Summary", 8);
	if ((rd->summary = workbook_add_worksheet(rd->wb, "Summary")) ==
	    NULL)
		rd->failed = 1;
	return rd;
}

/* The columns of a sysconfig table, for its rows. */
static void
keep_sys_table(struct render *rd, const struct stream_table *t)
{
	size_t i;

	rd->sys_open = strcmp(t->name, "sysconfig") == 0;
	if (!rd->sys_open)
		return;
	rd->sys_table = t->id;
	rd->sys_ncols = t->ncols < 64 ? t->ncols : 64;
	for (i = 0; i < rd->sys_ncols; i++)
		snprintf(rd->sys_names[i], sizeof(rd->sys_names[i]), "%s",
		    t->cols[i].name);
}

static void
keep_sys_row(struct render *rd, const struct stream_row *row)
{
	size_t i;

	if (rd->sys == NULL &&
	    (rd->sys = calloc(SYS_CELLS_MAX, sizeof(*rd->sys))) == NULL)
		return;
	for (i = 0; i < rd->sys_ncols && i < row->ncells &&
	    rd->nsys < SYS_CELLS_MAX; i++) {
		struct sys_cell *c = &rd->sys[rd->nsys++];

		memcpy(c->name, rd->sys_names[i], sizeof(c->name));
		c->v = row->cells[i];
		if (c->v.type == VAL_STR || c->v.type == VAL_BYTES ||
		    c->v.type == VAL_GUID) {
			c->text_at = rd->sys_text.len;
			buf_put(&rd->sys_text, c->v.v.s.ptr, c->v.v.s.len);
		}
	}
}

static int
table_row(struct render *rd, const struct stream_row *row)
{
	if (rd->sys_open && row->table == rd->sys_table)
		keep_sys_row(rd, row);
	if (!rd->open || rd->events || rd->skipping || rd->ws == NULL ||
	    row->table != rd->table)
		return 0;
	return write_cells(rd, row->cells, row->ncells);
}

static int
xlsx_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rd->failed || rd->wb == NULL)
		return 0;
	if (render_note_keep(&rd->notes, rec) != 0)
		return -1;
	switch (rec->type) {
	case REC_TRACE:
		keep_trace(rd, &rec->u.trace);
		return 0;
	case REC_END:
		rd->events_read += rec->u.end.source_events;
		if (rec->u.end.computer != NULL && *rec->u.end.computer != '\0')
			snprintf(rd->computer, sizeof(rd->computer), "%s",
			    rec->u.end.computer);
		return 0;
	case REC_DIAG:
		keep_diag(rd, &rec->u.diag);
		return 0;
	case REC_TABLE: {
		struct out_column cols[STREAM_EVENT_FIELDS_MAX];
		const struct stream_table *t = &rec->u.table;
		size_t i, n = t->ncols < STREAM_EVENT_FIELDS_MAX ? t->ncols :
		    STREAM_EVENT_FIELDS_MAX;

		for (i = 0; i < n; i++) {
			cols[i].name = t->cols[i].name;
			cols[i].type = t->cols[i].type;
			cols[i].unit = t->cols[i].unit;
		}
		rd->table = t->id;
		keep_sys_table(rd, t);
		return begin_sheet(rd, t->name, cols, n);
	}
	case REC_ROW:
		return table_row(rd, &rec->u.row);
	case REC_EVENT:
		if (!rd->events) {
			if (begin_sheet(rd, "events", event_cols, NFIXED) != 0)
				return -1;
			rd->events = 1;
		}
		if (rd->skipping || rd->ws == NULL)
			return 0;
		return write_event(rd, r, &rec->u.event);
	default:
		return 0;
	}
}

/* The tables past XLSX_SHEETS, for the Summary and the user. */
static void
say_tables_left(struct render *rd)
{
	char text[200];

	snprintf(text, sizeof(text), "%llu tables left out after the first "
	    "%u: a workbook holds %u sheets of tables; the CSV has them all",
	    (unsigned long long)rd->tables_left, XLSX_SHEETS, XLSX_SHEETS);
	buf_put(&rd->cuts, text, strlen(text) + 1);
	say(rd, "xlsx: ", text);
}

static int
xlsx_close(struct render *rd)
{
	int rc = 0;

	if (rd->wb != NULL) {
		if (end_sheet(rd) != 0)
			rc = -1;
		if (rd->tables_left > 0)
			say_tables_left(rd);
		if (rd->summary != NULL)
			write_summary(rd);
		if (workbook_close(rd->wb) != LXW_NO_ERROR) {
			say(rd, rd->tmp, ": the workbook could not be written");
			rc = -1;
		}
	} else
		rc = -1;
	if (rd->failed)
		rc = -1;
	if (rc == 0 && platform_replace(rd->tmp, rd->opt.out) != 0) {
		say(rd, rd->opt.out, ": cannot rename its temporary file");
		rc = -1;
	}
	if (rc != 0) {
		remove(rd->tmp);
		if (errno == 0)
			errno = EIO;
	}
	if (rd->opt.table != NULL && rd->written == 0)
		say(rd, "no table of that name: ", rd->opt.table);
	if (rc == 0 && rd->tables == 0)
		rc = 1;
	if (rc == 0 && rd->problem)
		rc = 2;
	buf_release(&rd->sheets);
	buf_release(&rd->text);
	buf_release(&rd->cuts);
	buf_release(&rd->notes);
	buf_release(&rd->fields);
	buf_release(&rd->sys_text);
	free(rd->sys);
	free(rd);
	return rc;
}

const struct render_ops render_xlsx_ops = {
	.open = xlsx_open,
	.record = xlsx_record,
	.close = xlsx_close,
	.nothing = "no table and no event",
};

#else /* ETL_NO_XLSX */

/*
 * A build without libxlsxwriter still lists the format, so that every
 * build's usage is the same, and says at the first record why it
 * cannot write it.
 */
#include <stdlib.h>

struct render {
	struct render_options opt;
};

static struct render *
none_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)fp;
	(void)format;
	if (rd != NULL && opt != NULL)
		rd->opt = *opt;
	return rd;
}

static int
none_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	(void)r;
	(void)rec;
	if (rd->opt.warn != NULL)
		rd->opt.warn("xlsx: this build has no libxlsxwriter; write "
		    "csv and open that, or use a build with it");
	return RENDER_SAID;
}

static int
none_close(struct render *rd)
{
	free(rd);
	return 1;
}

const struct render_ops render_xlsx_ops = {
	.open = none_open,
	.record = none_record,
	.close = none_close,
	.nothing = "no table and no event",
};
#endif /* ETL_NO_XLSX */
