/*
 * render_linechart.c - time-series tables drawn as lines (see
 * render_linechart.h): one polyline a series, time along x, the value
 * up y from zero, axes with round ticks, bytes in KiB, MiB or GiB when
 * the value's unit is "B".
 *
 * A series' peak is the largest value of its rows, kept as the integer
 * the table gives (a double rounds above 2^53), and the time of the
 * first row that has it: the legend, the tooltip and the dot that marks
 * it say the table's figures, whatever the width of the drawing.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "markup.h"
#include "render_linechart.h"

#define WIDTH		1200
#define HEIGHT		600
#define LEFT		90
#define RIGHT		290		/* the legend */
#define TOP		50
#define BOTTOM		50
#define COLOURED	10		/* series drawn in colour and labelled */
#define TICKS		6
#define LEGEND_ROW	32		/* a label, its peak and time below */
#define LEGEND_CHARS	36		/* of a label in the legend */

struct point {
	uint32_t series;
	int64_t t;
	double v;
};

struct series {
	struct value peak;		/* VAL_U64 or VAL_I64, as the table */
	int64_t peak_t;			/* the first time it was reached */
	uint32_t label;			/* in labels */
	uint32_t rank;			/* 0 the highest peak */
};

struct linechart {
	stream_id table;		/* the time-series table being read */
	int time_col, value_col, label_col;
	size_t ncols;
	char unit[16];
	char name[64];
	int seen;
	struct intern keys;		/* series key -> series id */
	struct intern labels;
	struct series *series;
	size_t series_cap;
	struct point *points;
	size_t npoints, points_cap;
	struct buf key;
};

struct linechart *
linechart_new(void)
{
	return calloc(1, sizeof(struct linechart));
}

void
linechart_free(struct linechart *lc)
{
	if (lc == NULL)
		return;
	intern_release(&lc->keys);
	intern_release(&lc->labels);
	free(lc->series);
	free(lc->points);
	buf_release(&lc->key);
	free(lc);
}

static void
on_table(struct linechart *lc, const struct stream_table *t)
{
	size_t c;

	lc->table = 0;
	if (t->ncols < 2 || strcmp(t->cols[0].name, "time") != 0 ||
	    t->cols[0].type != VAL_NS)
		return;
	lc->value_col = lc->label_col = -1;
	for (c = 1; c < t->ncols; c++) {
		if (t->cols[c].type == VAL_U64 || t->cols[c].type == VAL_I64)
			lc->value_col = (int)c;
		if (strcmp(t->cols[c].name, "process") == 0)
			lc->label_col = (int)c;
	}
	if (lc->value_col < 0)
		return;
	if (lc->label_col < 0)
		lc->label_col = 1;
	lc->table = t->id;
	lc->time_col = 0;
	lc->ncols = t->ncols;
	snprintf(lc->unit, sizeof(lc->unit), "%s",
	    t->cols[lc->value_col].unit ? t->cols[lc->value_col].unit : "");
	snprintf(lc->name, sizeof(lc->name), "%s", t->name);
	lc->seen = 1;
}

/* A cell as key text: its bytes, tagged with its type. */
static void
put_cell(struct buf *b, const struct value *v)
{
	buf_put_u8(b, v->type);
	if (v->type == VAL_STR)
		buf_put(b, v->v.s.ptr, v->v.s.len);
	else if (v->type != VAL_NULL)
		buf_put_u64(b, v->v.u);
	buf_put_u8(b, 0);
}

/* Compares two integer cells, VAL_U64 or VAL_I64, either way. */
static int
cmp_value(const struct value *a, const struct value *b)
{
	int an = a->type == VAL_I64 && a->v.i < 0;
	int bn = b->type == VAL_I64 && b->v.i < 0;

	if (an != bn)
		return an ? -1 : 1;
	if (an)
		return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
	return a->v.u < b->v.u ? -1 : a->v.u > b->v.u;
}

static double
value_double(const struct value *v)
{
	return v->type == VAL_I64 ? (double)v->v.i : (double)v->v.u;
}

static int
on_row(struct linechart *lc, const struct stream_row *row)
{
	const struct value *t, *v, *label;
	struct series *s;
	struct point *p;
	uint32_t id, lid;
	size_t c;
	int added;

	if ((size_t)lc->value_col >= row->ncells)
		return 0;
	t = &row->cells[lc->time_col];
	v = &row->cells[lc->value_col];
	if (t->type != VAL_NS || (v->type != VAL_U64 && v->type != VAL_I64))
		return 0;
	lc->key.len = 0;
	for (c = 1; c < row->ncells; c++)
		if ((int)c != lc->value_col)
			put_cell(&lc->key, &row->cells[c]);
	if (lc->key.oom || (id = intern_add(&lc->keys, lc->key.data,
	    lc->key.len, &added)) == 0 || (s = array_slot(&lc->series,
	    &lc->series_cap, id, sizeof(*s))) == NULL)
		return -1;
	if (added) {
		label = (size_t)lc->label_col < row->ncells ?
		    &row->cells[lc->label_col] : NULL;
		if (label != NULL && label->type == VAL_STR)
			lid = intern_add(&lc->labels, label->v.s.ptr,
			    label->v.s.len, NULL);
		else
			lid = intern_add(&lc->labels, "?", 1, NULL);
		if (lid == 0)
			return -1;
		s->label = lid;
	}
	if ((p = array_slot(&lc->points, &lc->points_cap, lc->npoints,
	    sizeof(*p))) == NULL)
		return -1;
	p->series = id;
	p->t = t->v.i;
	p->v = v->type == VAL_I64 ? (double)v->v.i : (double)v->v.u;
	if (added || cmp_value(v, &s->peak) > 0) {
		s->peak = *v;
		s->peak_t = t->v.i;
	}
	lc->npoints++;
	return 0;
}

int
linechart_record(struct linechart *lc, const struct stream_record *rec)
{
	if (rec->type == REC_HEADER)
		lc->table = 0;
	if (rec->type == REC_TABLE)
		on_table(lc, &rec->u.table);
	if (rec->type == REC_ROW && lc->table != 0 &&
	    rec->u.row.table == lc->table)
		return on_row(lc, &rec->u.row);
	return 0;
}

int
linechart_has_table(const struct linechart *lc)
{
	return lc->seen;
}

/* ---- drawing ---- */

/* A tick step of 1, 2 or 5 times a power of ten covering max. */
static double
tick_step(double max)
{
	double raw = max / (TICKS - 1), p, f;

	if (raw <= 0)
		return 1;
	p = pow(10, floor(log10(raw)));
	f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static void
format_value(const struct linechart *lc, double v, char *out, size_t cap)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	if (strcmp(lc->unit, "B") != 0) {
		snprintf(out, cap, "%.6g", v);
		return;
	}
	while (fabs(v) >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(out, cap, "%.4g %s", v, units[u]);
}

static const char *const palette[COLOURED] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
};

static int
cmp_peaks(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a;
	const struct series *y = *(const struct series *const *)b;

	int c = cmp_value(&x->peak, &y->peak);

	if (c != 0)
		return -c;
	return x->label < y->label ? -1 : x->label > y->label;
}

static int
rank_series(struct linechart *lc)
{
	uint32_t n = lc->keys.count, i;
	struct series **order = malloc((n + 1) * sizeof(*order));

	if (order == NULL)
		return -1;
	for (i = 0; i < n; i++)
		order[i] = &lc->series[i + 1];
	qsort(order, n, sizeof(*order), cmp_peaks);
	for (i = 0; i < n; i++)
		order[i]->rank = i;
	free(order);
	return 0;
}

static void
axes(struct linechart *lc, FILE *fp, int64_t t0, int64_t t1, double vmax)
{
	double step, v, ts, scale = 1;
	double span = (double)(t1 - t0) / 1e9, x, y;
	char text[40];
	int i;

	/* Bytes get ticks round in their binary unit: 64 MiB, not 95.37. */
	if (strcmp(lc->unit, "B") == 0)
		while (vmax / scale >= 1024 && scale < 1099511627776.0)
			scale *= 1024;
	step = tick_step(vmax / scale) * scale;
	fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#000\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#000\"/>\n", LEFT, TOP, LEFT, HEIGHT - BOTTOM, LEFT,
	    HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM);
	for (v = 0; v <= vmax * 1.0001 && step > 0; v += step) {
		y = HEIGHT - BOTTOM - v / vmax * (HEIGHT - TOP - BOTTOM);
		format_value(lc, v, text, sizeof(text));
		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#ddd\"/>\n<text x=\"%d\" y=\"%.1f\" "
		    "text-anchor=\"end\">%s</text>\n", LEFT, y, WIDTH - RIGHT, y,
		    LEFT - 6, y + 4, text);
	}
	ts = tick_step(span);
	for (i = 0; i * ts <= span * 1.0001 && ts > 0; i++) {
		x = LEFT + (i * ts) / span * (WIDTH - LEFT - RIGHT);
		fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		    "stroke=\"#000\"/>\n<text x=\"%.1f\" y=\"%d\" "
		    "text-anchor=\"middle\">%.6g s</text>\n", x,
		    HEIGHT - BOTTOM, x, HEIGHT - BOTTOM + 5, x,
		    HEIGHT - BOTTOM + 20, (double)t0 / 1e9 + i * ts);
	}
}

/*
 * A series' peak in words: "9.875 MiB (10354688 B) at 0.368769100 s"
 * (the exact figure only where the short one rounds), or, short, for
 * the legend, "9.875 MiB at 0.369 s".
 */
static void
format_peak(const struct linechart *lc, const struct series *s, int exact,
    char *out, size_t cap)
{
	struct value t = { .type = VAL_NS, .v.i = s->peak_t };
	char v[40], n[32], when[40];

	format_value(lc, value_double(&s->peak), v, sizeof(v));
	value_format(&s->peak, n, sizeof(n));
	value_format(&t, when, sizeof(when));
	if (!exact)
		snprintf(out, cap, "%s at %.3f s", v, (double)s->peak_t / 1e9);
	else if (strcmp(lc->unit, "B") == 0)
		snprintf(out, cap, "%s (%s B) at %s s", v, n, when);
	else
		snprintf(out, cap, "%s at %s s", n, when);
}

static double
x_of(int64_t t, int64_t t0, double span)
{
	return LEFT + (double)(t - t0) / span * (WIDTH - LEFT - RIGHT);
}

static double
y_of(double v, double vmax)
{
	return HEIGHT - BOTTOM - v / vmax * (HEIGHT - TOP - BOTTOM);
}

/*
 * A label in the legend, cut to LEGEND_CHARS: a long name loses its end,
 * not the "(pid @start)" after it that tells two instances apart.
 */
static void
legend_label(FILE *fp, const char *label, size_t len)
{
	const char *paren = NULL, *p;
	size_t tail = 0;

	for (p = label; p + 1 < label + len; p++)
		if (p[0] == ' ' && p[1] == '(')
			paren = p;
	if (paren != NULL && label[len - 1] == ')')
		tail = (size_t)(label + len - paren);
	if (tail == 0 || tail + 8 > LEGEND_CHARS) {
		markup_text_cut(fp, label, len, LEGEND_CHARS);
		return;
	}
	markup_text_cut(fp, label, len - tail, LEGEND_CHARS - tail);
	markup_text(fp, paren, tail);
}

/* A series' legend entry: its colour, its label, its peak and when. */
static void
legend(const struct linechart *lc, FILE *fp, const struct series *s,
    const char *label, size_t len)
{
	unsigned y = TOP + s->rank * LEGEND_ROW;
	char peak[80];

	format_peak(lc, s, 0, peak, sizeof(peak));
	fprintf(fp, "<rect x=\"%d\" y=\"%u\" width=\"12\" height=\"12\" "
	    "fill=\"%s\"/>\n<text x=\"%d\" y=\"%u\">", WIDTH - RIGHT + 12,
	    y, palette[s->rank], WIDTH - RIGHT + 30, y + 11);
	legend_label(fp, label, len);
	fprintf(fp, "</text>\n<text class=\"peak\" x=\"%d\" y=\"%u\">"
	    "peak %s</text>\n", WIDTH - RIGHT + 30, y + 25, peak);
}

static void
line(struct linechart *lc, FILE *fp, uint32_t id, int64_t t0, int64_t t1,
    double vmax)
{
	const struct series *s = &lc->series[id];
	double span = t1 > t0 ? (double)(t1 - t0) : 1;
	size_t i, len;
	const char *label = intern_key(&lc->labels, s->label, &len);
	const char *colour = s->rank < COLOURED ? palette[s->rank] : "#bbb";
	char peak[160];

	format_peak(lc, s, 1, peak, sizeof(peak));
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" "
	    "points=\"", colour, s->rank < COLOURED ? "2" : "1");
	for (i = 0; i < lc->npoints; i++)
		if (lc->points[i].series == id)
			fprintf(fp, "%.1f,%.1f ", x_of(lc->points[i].t, t0, span),
			    y_of(lc->points[i].v, vmax));
	fputs("\"><title>", fp);
	markup_text(fp, label, len);
	fprintf(fp, ": peak %s</title></polyline>\n", peak);
	if (s->rank >= COLOURED)
		return;
	/* The peak itself, a dot on the line where the table puts it. */
	fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\">"
	    "<title>", x_of(s->peak_t, t0, span),
	    y_of(value_double(&s->peak), vmax), colour);
	markup_text(fp, label, len);
	fprintf(fp, ": peak %s</title></circle>\n", peak);
	legend(lc, fp, s, label, len);
}

int
linechart_draw(struct linechart *lc, FILE *fp,
    const struct render_options *opt)
{
	const char *title = opt->title != NULL ? opt->title :
	    strcmp(lc->name, "vmem_timeline") == 0 ? "Outstanding Commit" :
	    lc->name;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	double vmax = 0;
	uint32_t id;
	size_t i;

	if (rank_series(lc) != 0)
		return -1;
	for (i = 0; i < lc->npoints; i++) {
		t0 = lc->points[i].t < t0 ? lc->points[i].t : t0;
		t1 = lc->points[i].t > t1 ? lc->points[i].t : t1;
		vmax = lc->points[i].v > vmax ? lc->points[i].v : vmax;
	}
	if (lc->npoints == 0)
		t0 = t1 = 0;
	if (vmax <= 0)
		vmax = 1;
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
	    "<style>text { font-family: Verdana, sans-serif; font-size: 12px;"
	    " fill: #000; } #title { font-size: 17px; }\n"
	    ".peak { font-size: 11px; fill: #444; }</style>\n"
	    "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
	    "fill=\"#fff\"/>\n<text id=\"title\" x=\"%d\" y=\"24\" "
	    "text-anchor=\"middle\">", WIDTH, HEIGHT, WIDTH, HEIGHT,
	    (WIDTH - RIGHT + LEFT) / 2);
	markup_text(fp, title, strlen(title));
	fprintf(fp, "</text>\n<text x=\"%d\" y=\"42\" text-anchor=\"middle\">"
	    "%" PRIu32 " series, the %d highest peaks in colour</text>\n",
	    (WIDTH - RIGHT + LEFT) / 2, lc->keys.count, COLOURED);
	axes(lc, fp, t0, t1, vmax);
	/* Grey first, so that the coloured lines lie on top. */
	for (id = 1; id <= lc->keys.count; id++)
		if (lc->series[id].rank >= COLOURED)
			line(lc, fp, id, t0, t1, vmax);
	for (id = 1; id <= lc->keys.count; id++)
		if (lc->series[id].rank < COLOURED)
			line(lc, fp, id, t0, t1, vmax);
	/* Why a trace without the events has an empty chart. */
	render_missing_svg(fp, opt, (WIDTH - RIGHT + LEFT) / 2, HEIGHT / 2, 18);
	fputs("</svg>\n", fp);
	return ferror(fp) ? -1 : 0;
}
