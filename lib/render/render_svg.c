/*
 * render_svg.c - "etlreport -f svg": a flame graph of the stack tables
 * (see stackrows.h), drawn here rather than by flamegraph.pl: one box a
 * frame, as wide as the weight of the stacks through it, the root at the
 * bottom and callees above their callers, siblings in order of name.
 *
 * The file stands alone: no external script, style or font.  Each frame
 * has a tooltip (<title>: name, weight, share); a script in the file
 * zooms into a frame on click, searches the frames by regular expression
 * from a box at the top right (the share of the weight that matches
 * shows at the bottom right) and shows the frame under the pointer at
 * the bottom left.  Frames narrower than 0.1 pixel, or below
 * --min-percent, are left out, and the subtitle says how many.  Stack
 * tables without rows give a picture without frames.
 *
 * The title says what the widths count (CPU samples, query time, bytes:
 * from the weight column's unit or name), the subtitle the total in a
 * unit a reader takes in ("3,763 samples", "83.44 ms", "1.50 MiB").  A
 * graph taller than the window opens scrolled to the bottom, where the
 * root is.
 * A stream with no stack table but a time-series one is drawn as a line
 * chart (render_linechart.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "base/intern.h"
#include "model/stackrows.h"
#include "markup.h"
#include "render.h"
#include "render_linechart.h"

#define WIDTH		1200
#define PAD		10		/* left and right of the frames */
#define FRAME_H		16
#define FONT_SIZE	12
#define CHAR_W		(0.59 * FONT_SIZE)	/* Verdana's average */
#define TOP		66		/* title, subtitle, search box */
#define BOTTOM		34		/* the details line */
#define NOTE_H		18		/* a note of events the trace lacks */
#define MIN_WIDTH	0.1		/* pixels */
#define ROOT		0

struct node {
	uint32_t name;			/* in names; 0 for the root */
	uint32_t parent;
	uint32_t depth;
	uint32_t kids, nkids;		/* its children in kids[] */
	uint64_t value;
	uint64_t base;			/* a diff's base side, through it */
	double x;			/* from the left, in weight units */
	int shown;
};

struct render {
	FILE *fp;
	struct render_options opt;
	struct stackrows *rows;
	struct intern names;		/* frame names */
	struct intern edges;		/* (parent, name) -> node id */
	struct buf nodes;		/* struct node, by id; 0 the root */
	uint32_t *kids;
	uint64_t total;
	double max_change;		/* a diff's largest |new - base| */
	struct linechart *lines;	/* time series, if no stacks */
};

static struct render *
svg_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)format;
	if (rd == NULL)
		return NULL;
	rd->fp = fp;
	rd->opt = *opt;
	if ((rd->rows = stackrows_new()) == NULL ||
	    (rd->lines = linechart_new()) == NULL) {
		stackrows_free(rd->rows);
		free(rd);
		return NULL;
	}
	return rd;
}

static int
svg_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (linechart_record(rd->lines, rec) != 0)
		return -1;
	return stackrows_record(rd->rows, r, rec);
}

static struct node *
node(const struct render *rd, uint32_t id)
{
	return (struct node *)rd->nodes.data + id;
}

static uint32_t
nnodes(const struct render *rd)
{
	return (uint32_t)(rd->nodes.len / sizeof(struct node));
}

/* ---- the tree of frames ---- */

/* The child of `parent` named s[0..len), made if new; 0 if no memory. */
static uint32_t
child(struct render *rd, uint32_t parent, const char *s, size_t len)
{
	uint32_t key[2], id;
	struct node n;
	int added;

	if ((key[1] = intern_add(&rd->names, s, len, NULL)) == 0)
		return 0;
	key[0] = parent;
	if ((id = intern_add(&rd->edges, key, sizeof(key), &added)) == 0)
		return 0;
	if (added) {
		memset(&n, 0, sizeof(n));
		n.name = key[1];
		n.parent = parent;
		n.depth = node(rd, parent)->depth + 1;
		buf_put(&rd->nodes, &n, sizeof(n));
		if (rd->nodes.oom)
			return 0;
	}
	return id;
}

static int
add_stack(struct render *rd, const char *s, size_t len, uint64_t weight,
    uint64_t base)
{
	const char *end = s + len, *semi;
	uint32_t at = ROOT;

	node(rd, ROOT)->value += weight;
	node(rd, ROOT)->base += base;
	while (s < end) {
		if ((semi = memchr(s, ';', (size_t)(end - s))) == NULL)
			semi = end;
		if ((at = child(rd, at, s, (size_t)(semi - s))) == 0)
			return -1;
		node(rd, at)->value += weight;
		node(rd, at)->base += base;
		s = semi + 1;
	}
	return 0;
}

/*
 * A diff's stack that the input lacks: its base counts in the frames of
 * the input's shape that it passes through, so that they show shrinking;
 * the frames only it has are not drawn (they have no width).
 */
static void
add_base_only(struct render *rd, const char *s, size_t len, uint64_t base)
{
	const char *end = s + len, *semi;
	uint32_t at = ROOT, key[2];

	node(rd, ROOT)->base += base;
	while (s < end) {
		if ((semi = memchr(s, ';', (size_t)(end - s))) == NULL)
			semi = end;
		key[0] = at;
		if ((key[1] = intern_find(&rd->names, s, (size_t)(semi - s))) ==
		    0 || (at = intern_find(&rd->edges, key, sizeof(key))) == 0)
			return;
		node(rd, at)->base += base;
		s = semi + 1;
	}
}

static int
build(struct render *rd)
{
	struct node root;
	const char *s;
	uint64_t w, b;
	uint32_t id;
	size_t len;

	memset(&root, 0, sizeof(root));
	buf_put(&rd->nodes, &root, sizeof(root));
	if (rd->nodes.oom)
		return -1;
	for (id = 1; id <= stackrows_count(rd->rows); id++) {
		if ((w = stackrows_weight(rd->rows, id)) == 0)
			continue;
		s = stackrows_stack(rd->rows, id, &len);
		if (add_stack(rd, s, len, w, stackrows_base(rd->rows, id)) != 0)
			return -1;
	}
	for (id = 1; id <= stackrows_count(rd->rows); id++)
		if (stackrows_weight(rd->rows, id) == 0 &&
		    (b = stackrows_base(rd->rows, id)) > 0) {
			s = stackrows_stack(rd->rows, id, &len);
			add_base_only(rd, s, len, b);
		}
	rd->total = node(rd, ROOT)->value;
	return 0;
}

/* A child and its name, to sort siblings by. */
struct kid_key {
	const char *name;
	size_t len;
	uint32_t id;
};

static int
cmp_kids(const void *a, const void *b)
{
	const struct kid_key *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Sorts the n children k[] of a node by name, with keys[] as room. */
static void
sort_kids(struct render *rd, uint32_t *k, uint32_t n, struct kid_key *keys)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		keys[i].id = k[i];
		keys[i].name = intern_key(&rd->names, node(rd, k[i])->name,
		    &keys[i].len);
	}
	qsort(keys, n, sizeof(*keys), cmp_kids);
	for (i = 0; i < n; i++)
		k[i] = keys[i].id;
}

/* Children lists, then x from the parent and the siblings before. */
static int
lay_out(struct render *rd)
{
	uint32_t n = nnodes(rd), id, i, at;
	struct kid_key *keys;
	struct node *p;
	double x;

	if ((rd->kids = calloc(n + 1, sizeof(*rd->kids))) == NULL ||
	    (keys = calloc(n + 1, sizeof(*keys))) == NULL)
		return -1;
	for (id = 1; id < n; id++)
		node(rd, node(rd, id)->parent)->nkids++;
	for (id = 0, at = 0; id < n; id++) {
		node(rd, id)->kids = at;
		at += node(rd, id)->nkids;
		node(rd, id)->nkids = 0;
	}
	for (id = 1; id < n; id++) {
		p = node(rd, node(rd, id)->parent);
		rd->kids[p->kids + p->nkids++] = id;
	}
	/* Parents have smaller ids than their children. */
	for (id = 0; id < n; id++) {
		p = node(rd, id);
		sort_kids(rd, rd->kids + p->kids, p->nkids, keys);
		x = p->x;
		for (i = 0; i < p->nkids; i++) {
			node(rd, rd->kids[p->kids + i])->x = x;
			x += (double)node(rd, rd->kids[p->kids + i])->value;
		}
	}
	free(keys);
	return 0;
}

/* Marks the frames to draw; returns the depth of the deepest. */
static uint32_t
choose(struct render *rd, uint32_t *left_out)
{
	double scale = (WIDTH - 2 * PAD) / (double)rd->total;
	uint32_t n = nnodes(rd), id, deepest = 0;
	struct node *f;

	*left_out = 0;
	for (id = 0; id < n; id++) {
		f = node(rd, id);
		f->shown = (id == ROOT || node(rd, f->parent)->shown) &&
		    (double)f->value * scale >= MIN_WIDTH &&
		    100.0 * (double)f->value / (double)rd->total >=
		    rd->opt.min_percent;
		if (!f->shown)
			(*left_out)++;
		else if (f->depth > deepest)
			deepest = f->depth;
	}
	return deepest;
}

/* ---- the picture ---- */

static const char script[] =
"var W = 1200, PAD = 10, CHARW = 0.59 * 12, frames = [];\n"
"function init() {\n"
"  var gs = document.querySelectorAll('g.f');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], r = g.querySelector('rect');\n"
"    var tip = g.querySelector('title').textContent;\n"
"    var f = { g: g, r: r, t: g.querySelector('text'), tip: tip,\n"
"      x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
"      y: +r.getAttribute('y'), fill: r.getAttribute('fill'),\n"
"      name: tip.replace(/ \\([^()]*\\)$/, '') };\n"
"    frames.push(f);\n"
"    g.addEventListener('click', zoom.bind(null, f));\n"
"    g.addEventListener('mouseover', detail.bind(null, f.tip));\n"
"    g.addEventListener('mouseout', detail.bind(null, ' '));\n"
"  }\n"
"  document.getElementById('unzoom').addEventListener('click', unzoom);\n"
"  var box = document.getElementById('search');\n"
"  window.scrollTo(0, document.documentElement.getBoundingClientRect()\n"
"    .height);\n"
"  if (box) box.addEventListener('input', function () {\n"
"    search(box.value); });\n"
"}\n"
"function detail(s) {\n"
"  document.getElementById('details').textContent = s;\n"
"}\n"
"function place(f, x, w) {\n"
"  f.g.style.display = '';\n"
"  f.r.setAttribute('x', x.toFixed(2));\n"
"  f.r.setAttribute('width', w.toFixed(2));\n"
"  f.t.setAttribute('x', (x + 3).toFixed(2));\n"
"  var n = Math.floor((w - 6) / CHARW);\n"
"  f.t.textContent = n < 3 ? '' : f.name.length <= n ? f.name :\n"
"    f.name.substring(0, n - 2) + '..';\n"
"}\n"
"function zoom(z) {\n"
"  var e = 1e-6, scale = (W - 2 * PAD) / z.w;\n"
"  frames.forEach(function (f) {\n"
"    var inside = f.x >= z.x - e && f.x + f.w <= z.x + z.w + e;\n"
"    var around = f.x <= z.x + e && f.x + f.w >= z.x + z.w - e;\n"
"    if (f.y <= z.y && inside)\n"
"      place(f, PAD + (f.x - z.x) * scale, f.w * scale);\n"
"    else if (f.y > z.y && around)\n"
"      place(f, PAD, W - 2 * PAD);\n"
"    else\n"
"      f.g.style.display = 'none';\n"
"  });\n"
"  document.getElementById('unzoom').style.display = '';\n"
"}\n"
"function unzoom() {\n"
"  frames.forEach(function (f) { place(f, f.x, f.w); });\n"
"  document.getElementById('unzoom').style.display = 'none';\n"
"}\n"
"function search(term) {\n"
"  var re = null, hits = [], sum = 0, end = -1;\n"
"  if (term) {\n"
"    try { re = new RegExp(term); } catch (err) {\n"
"      re = new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&'));\n"
"    }\n"
"  }\n"
"  frames.forEach(function (f) {\n"
"    var hit = re !== null && re.test(f.name);\n"
"    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
"    if (hit) hits.push(f);\n"
"  });\n"
"  hits.sort(function (a, b) { return a.x - b.x; });\n"
"  hits.forEach(function (f) {\n"
"    if (f.x + f.w > end) {\n"
"      sum += f.x + f.w - Math.max(f.x, end);\n"
"      end = f.x + f.w;\n"
"    }\n"
"  });\n"
"  document.getElementById('matched').textContent = re === null ? ' ' :\n"
"    'Matched: ' + (100 * sum / (W - 2 * PAD)).toFixed(1) + '%';\n"
"}\n";

/* What the widths count, for the title, by the weight's unit. */
static const char *
what_counts(const char *unit)
{
	static const struct {
		const char *unit, *title;
	} titles[] = {
		{ "samples", "CPU samples by call stack" },
		{ "ns", "Time by stack" },
		{ "bytes", "Bytes by call stack" },
		{ "count", "Events by call stack" },
	};
	size_t i;

	for (i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
		if (strcmp(unit, titles[i].unit) == 0)
			return titles[i].title;
	return NULL;
}

/* n with a comma every three digits. */
static void
put_grouped(FILE *fp, uint64_t n)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n), i;

	for (i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			putc(',', fp);
		putc(digits[i], fp);
	}
}

/* The total in a unit a reader takes in. */
static void
put_total(FILE *fp, uint64_t total, const char *unit)
{
	static const char *const sizes[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)total;
	size_t i;

	if (strcmp(unit, "ns") == 0) {
		if (total >= 1000000000)
			fprintf(fp, "%.2f s", v / 1e9);
		else if (total >= 1000000)
			fprintf(fp, "%.2f ms", v / 1e6);
		else if (total >= 1000)
			fprintf(fp, "%.2f \xc2\xb5s", v / 1e3);
		else
			fprintf(fp, "%" PRIu64 " ns", total);
		return;
	}
	if (strcmp(unit, "bytes") == 0 && total >= 1024) {
		for (i = 0, v /= 1024; v >= 1024 && i + 1 < 4; i++)
			v /= 1024;
		fprintf(fp, "%.2f %s", v, sizes[i]);
		return;
	}
	put_grouped(fp, total);
	putc(' ', fp);
	markup_text(fp, unit, strlen(unit));
}

static void
write_head(struct render *rd, unsigned height, uint32_t left_out)
{
	const char *unit = stackrows_unit(rd->rows);
	const char *title = rd->opt.title ? rd->opt.title : what_counts(unit);
	FILE *fp = rd->fp;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg version=\"1.1\" width=\"%d\" height=\"%u\" "
	    "viewBox=\"0 0 %d %u\" onload=\"init()\" "
	    "xmlns=\"http://www.w3.org/2000/svg\">\n"
	    "<style>text { font-family: Verdana, sans-serif; font-size: %dpx;"
	    " fill: #000; } g.f { cursor: pointer; } "
	    "g.f text { pointer-events: none; } "
	    "#title { font-size: 17px; } #unzoom { cursor: pointer; }</style>\n"
	    "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
	    "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
	    "fill=\"#f8f8f0\"/>\n", WIDTH, height, WIDTH, height, FONT_SIZE,
	    script);
	fprintf(fp, "<text id=\"title\" x=\"%d\" y=\"24\" "
	    "text-anchor=\"middle\">", WIDTH / 2);
	if (title != NULL)
		markup_text(fp, title, strlen(title));
	else {
		fputs("Flame graph of ", fp);
		markup_text(fp, unit, strlen(unit));
		fputs(" by stack", fp);
	}
	fprintf(fp, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"44\" "
	    "text-anchor=\"middle\">", WIDTH / 2);
	/* Not "0 B in all" when the trace cannot say: the note says why. */
	if (rd->total == 0 && render_missing_count(&rd->opt) > 0)
		fputs("Nothing to draw: the trace lacks the events", fp);
	else {
		put_total(fp, rd->total, unit);
		fputs(" in all", fp);
		if (stackrows_is_diff(rd->rows)) {
			fputs(" against ", fp);
			put_total(fp, stackrows_base_total(rd->rows), unit);
			fputs(" in the base (red grew, blue shrank)", fp);
		}
		fprintf(fp, ", %" PRIu32 " stacks; %" PRIu32 " frames "
		    "too narrow to draw left out; click a frame to zoom",
		    stackrows_count(rd->rows), left_out);
	}
	fprintf(fp, "</text>\n"
	    "<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">"
	    "Reset zoom</text>\n"
	    "<foreignObject x=\"%d\" y=\"8\" width=\"230\" height=\"26\">"
	    "<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" "
	    "type=\"search\" placeholder=\"Search (regex)\" "
	    "style=\"width:220px;font:12px Verdana,sans-serif\"/>"
	    "</foreignObject>\n"
	    "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
	    "<text id=\"matched\" x=\"%d\" y=\"%u\" text-anchor=\"end\"> "
	    "</text>\n", PAD, WIDTH - PAD - 230, PAD, height - 12,
	    WIDTH - PAD, height - 12);
}

/*
 * Inlined functions (etlsym) in blues, as flamegraph.pl draws the
 * inlined frames of Java, so that they stand apart from real calls.
 */
static void
inlined_color(const char *name, size_t len, char out[24])
{
	uint32_t h = markup_hash(name, len);

	snprintf(out, 24, "rgb(%u,%u,%u)", 50 + (h & 0xff) * 60 / 255,
	    160 + ((h >> 8) & 0xff) * 60 / 255, 220);
}

/*
 * A diff's frame by its change, as flamegraph.pl draws difffolded.pl's
 * output: red grew, blue shrank, white did not change; the larger the
 * change against the largest one drawn, the deeper the colour.
 */
static void
change_color(const struct render *rd, const struct node *f, char out[24])
{
	double change = (double)f->value - (double)f->base;
	double t = rd->max_change > 0 ? change / rd->max_change : 0;
	unsigned pale;

	if (t > 1 || t < -1)	/* no frame drawn changed more, but be sure */
		t = t > 0 ? 1 : -1;
	/* Any change is tinted: white is for none. */
	pale = (unsigned)(230 - 190 * (t < 0 ? -t : t) + 0.5);

	if (change > 0)
		snprintf(out, 24, "rgb(255,%u,%u)", pale, pale);
	else if (change < 0)
		snprintf(out, 24, "rgb(%u,%u,255)", pale, pale);
	else
		snprintf(out, 24, "rgb(255,255,255)");
}

/* The tooltip's counts: "N unit, P%", or a diff's base, new and change. */
static void
put_counts(const struct render *rd, const struct node *f)
{
	const char *unit = stackrows_unit(rd->rows);
	double change = (double)f->value - (double)f->base;

	fprintf(rd->fp, " (");
	if (stackrows_is_diff(rd->rows)) {
		fprintf(rd->fp, "base %" PRIu64 ", new %" PRIu64 " ", f->base,
		    f->value);
		markup_text(rd->fp, unit, strlen(unit));
		fprintf(rd->fp, ", change %+.0f", change);
		if (f->base > 0)
			fprintf(rd->fp, " (%+.2f%%)", 100 * change /
			    (double)f->base);
		fputs(")", rd->fp);
		return;
	}
	fprintf(rd->fp, "%" PRIu64 " ", f->value);
	markup_text(rd->fp, unit, strlen(unit));
	fprintf(rd->fp, ", %.2f%%)", 100.0 * (double)f->value /
	    (double)rd->total);
}

static void
write_frame(struct render *rd, uint32_t id, unsigned height)
{
	const struct node *f = node(rd, id);
	double scale = (WIDTH - 2 * PAD) / (double)rd->total;
	double x = PAD + f->x * scale, w = (double)f->value * scale;
	unsigned y = height - BOTTOM - (f->depth + 1) * FRAME_H;
	const char *name = "all";
	size_t len = 3;
	char fill[24];
	long fit;

	if (id != ROOT)
		name = intern_key(&rd->names, f->name, &len);
	if (stackrows_is_diff(rd->rows))
		change_color(rd, f, fill);
	else if (id == ROOT || frames_is_pseudo(name, len))
		snprintf(fill, sizeof(fill), "rgb(190,190,190)");
	else if (frames_is_inlined(name, len))
		inlined_color(name, len, fill);
	else
		markup_color(name, len, fill);
	fputs("<g class=\"f\"><title>", rd->fp);
	markup_text(rd->fp, name, len);
	put_counts(rd, f);
	fprintf(rd->fp, "</title><rect x=\"%.2f\" y=\"%u\" "
	    "width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
	    "<text x=\"%.2f\" y=\"%u\">", x, y, w, FRAME_H - 1, fill, x + 3,
	    y + FRAME_H - 4);
	fit = (long)((w - 6) / CHAR_W);
	if (fit >= 3)
		markup_text_cut(rd->fp, name, len, (size_t)fit);
	fputs("</text></g>\n", rd->fp);
}

static int
draw(struct render *rd)
{
	uint32_t left_out = 0, deepest = 0, id;
	unsigned height, notes;

	if (build(rd) != 0 || lay_out(rd) != 0)
		return -1;
	/* Empty tables give a picture without frames. */
	if (rd->total > 0)
		deepest = choose(rd, &left_out);
	for (id = 0; id < nnodes(rd); id++) {	/* the root is drawn too */
		const struct node *f = node(rd, id);
		double change = (double)f->value - (double)f->base;

		if (f->shown && (change < 0 ? -change : change) > rd->max_change)
			rd->max_change = change < 0 ? -change : change;
	}
	/* The notes of missing events go between the title and the frames. */
	notes = (unsigned)render_missing_count(&rd->opt);
	height = TOP + notes * NOTE_H + (deepest + 1) * FRAME_H + BOTTOM;
	write_head(rd, height, left_out);
	for (id = 0; id < nnodes(rd); id++)
		if (node(rd, id)->shown)
			write_frame(rd, id, height);
	render_loss_note(rd->fp, &rd->opt, 1, "<text id=\"lossy\" x=\"50%\" "
	    "y=\"60\" text-anchor=\"middle\" style=\"fill:#b00000\">"
	    "Warning: ", "</text>\n");
	render_missing_svg(rd->fp, &rd->opt, WIDTH / 2, TOP, NOTE_H);
	fputs("</svg>\n", rd->fp);
	return ferror(rd->fp) ? -1 : 0;
}

static int
svg_close(struct render *rd)
{
	int rc = stackrows_finish(rd->rows) != 0 ? -1 :
	    stackrows_tables(rd->rows) != 0 ? draw(rd) :
	    linechart_has_table(rd->lines) ?
	    linechart_draw(rd->lines, rd->fp, &rd->opt) : 1;

	if (fflush(rd->fp) != 0)
		rc = -1;
	stackrows_free(rd->rows);
	linechart_free(rd->lines);
	intern_release(&rd->names);
	intern_release(&rd->edges);
	buf_release(&rd->nodes);
	free(rd->kids);
	free(rd);
	return rc;
}

const struct render_ops render_svg_ops = {
	/* A profile's query stacks are drawn by label. */
	.reader_flags = STREAM_QUERY_LABELS,
	.open = svg_open,
	.record = svg_record,
	.close = svg_close,
	.nothing = "no table with a stack column and an integer weight column, "
	    "nor a time series",
};
