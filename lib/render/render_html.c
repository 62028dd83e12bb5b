/*
 * render_html.c - "etlreport -f html": the process tree as a timeline, as
 * WPA's "rustc Build Process Tree" draws it, from the "tree" tables of
 * etlagg tree: a row a process in tree order, its label ("image (pid)",
 * or "crate (pid)" for a rustc) indented by depth, and a bar from its
 * start to its end on a time axis from the trace's start to its end; the
 * tooltip holds the image, command line, times, exit status and CPU.  A process there before the
 * trace starts at the left edge with a dashed edge, one still running at
 * the end likewise ends at the right edge; one whose end is not known
 * ends where it was last seen, with a dotted tail to the right edge.
 * Clicking a row folds its children; a box filters rows by regular
 * expression.  --max-depth shows that many levels; --min-percent leaves
 * out the processes that lived less than that share of the time shown,
 * unless a process under them is kept.  The page stands alone.
 *
 * Without a tree table the page is html_threads.h's, the per-thread
 * timeline of a switches table, or else html_queries.h's: the rustc query
 * trace, when the input holds rustc self-profile events.  Every record
 * goes to all three; the tree wins when there is one, then the threads.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "html_queries.h"
#include "html_threads.h"
#include "markup.h"
#include "render.h"

#define INDENT_PX	14	/* a level of depth */
#define TICKS		10	/* about as many on the axis */

enum tcol {
	T_DEPTH, T_PID, T_PPID, T_IMAGE, T_START, T_END, T_EXIT, T_THREADS,
	T_SAMPLES, T_CPU_MS, T_END_STATE, T_LAST_SEEN, T_TRACE_END, T_CRATE,
	T_CMDLINE, T_NCOLS
};

static const struct {
	const char *name;
	enum value_type type;
} tree_cols[T_NCOLS] = {
	[T_DEPTH] = { "depth", VAL_U64 }, [T_PID] = { "pid", VAL_U64 },
	[T_PPID] = { "ppid", VAL_U64 }, [T_IMAGE] = { "image", VAL_STR },
	[T_START] = { "start", VAL_NS }, [T_END] = { "end", VAL_NS },
	[T_EXIT] = { "exit_status", VAL_I64 },
	[T_THREADS] = { "threads", VAL_U64 },
	[T_SAMPLES] = { "samples", VAL_U64 },
	[T_CPU_MS] = { "cpu_ms", VAL_F64 },
	[T_END_STATE] = { "end_state", VAL_STR },
	[T_LAST_SEEN] = { "last_seen", VAL_NS },
	[T_TRACE_END] = { "trace_end", VAL_NS },
	[T_CRATE] = { "crate", VAL_STR },
	[T_CMDLINE] = { "cmdline", VAL_STR },
};

/* How a process's bar ends: at its end, the trace's end, or unknown. */
enum fate { ENDS_UNKNOWN, ENDS_EXITED, ENDS_RUNNING };

/* One process of a tree table; the strings are in texts. */
struct proc_row {
	uint64_t depth, pid, ppid, threads, samples;
	int64_t start, end, last, trace_end, exit_status;
	int has_start, has_end, has_last, has_trace_end, has_exit;
	enum fate fate;
	double cpu_ms;
	size_t image, image_len, cmdline, cmdline_len, crate, crate_len;
	int keep;
};

struct render {
	FILE *fp;
	struct render_options opt;
	struct html_queries *queries;
	struct html_threads *threads;
	stream_id table;		/* the tree table being read, or 0 */
	int cols[T_NCOLS];
	int saw_tree;
	struct buf rows;		/* struct proc_row */
	struct buf texts;
};

static struct render *
html_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)format;
	if (rd == NULL)
		return NULL;
	rd->fp = fp;
	rd->opt = *opt;
	if ((rd->queries = html_queries_new(opt)) == NULL ||
	    (rd->threads = html_threads_new(opt)) == NULL) {
		html_queries_free(rd->queries);
		free(rd);
		return NULL;
	}
	return rd;
}

/* ---- reading tree tables ---- */

static void
map_columns(struct render *rd, const struct stream_table *t)
{
	size_t c;
	int k;

	for (k = 0; k < T_NCOLS; k++) {
		rd->cols[k] = -1;
		for (c = 0; c < t->ncols; c++)
			if (strcmp(t->cols[c].name, tree_cols[k].name) == 0 &&
			    t->cols[c].type == tree_cols[k].type)
				rd->cols[k] = (int)c;
	}
}

static const struct value *
cell(const struct render *rd, const struct stream_row *row, enum tcol k)
{
	int c = rd->cols[k];

	if (c < 0 || (size_t)c >= row->ncells || row->cells[c].type == VAL_NULL)
		return NULL;
	return &row->cells[c];
}

static uint64_t
cell_u64(const struct render *rd, const struct stream_row *row, enum tcol k)
{
	const struct value *v = cell(rd, row, k);

	return v != NULL ? v->v.u : 0;
}

/* Copies a text cell into texts; *at and *len say where it went. */
static void
keep_text(struct render *rd, const struct stream_row *row, enum tcol k,
    size_t *at, size_t *len)
{
	const struct value *v = cell(rd, row, k);

	*at = rd->texts.len;
	*len = v != NULL ? v->v.s.len : 0;
	if (v != NULL)
		buf_put(&rd->texts, v->v.s.ptr, v->v.s.len);
}

/*
 * From end_state; a table without it (made before it was) has an end
 * or ran to the end, as it then drew it.
 */
static enum fate
fate_of(const struct render *rd, const struct stream_row *row, int has_end)
{
	const struct value *v = cell(rd, row, T_END_STATE);

	if (v == NULL)
		return has_end ? ENDS_EXITED : ENDS_RUNNING;
	if (v->v.s.len == 6 && memcmp(v->v.s.ptr, "exited", 6) == 0)
		return ENDS_EXITED;
	if (v->v.s.len == 7 && memcmp(v->v.s.ptr, "running", 7) == 0)
		return ENDS_RUNNING;
	return ENDS_UNKNOWN;
}

static int
add_row(struct render *rd, const struct stream_row *row)
{
	const struct value *v;
	struct proc_row p;

	memset(&p, 0, sizeof(p));
	p.depth = cell_u64(rd, row, T_DEPTH);
	p.pid = cell_u64(rd, row, T_PID);
	p.ppid = cell_u64(rd, row, T_PPID);
	p.threads = cell_u64(rd, row, T_THREADS);
	p.samples = cell_u64(rd, row, T_SAMPLES);
	if ((v = cell(rd, row, T_START)) != NULL) {
		p.start = v->v.i;
		p.has_start = 1;
	}
	if ((v = cell(rd, row, T_END)) != NULL) {
		p.end = v->v.i;
		p.has_end = 1;
	}
	if ((v = cell(rd, row, T_EXIT)) != NULL) {
		p.exit_status = v->v.i;
		p.has_exit = 1;
	}
	if ((v = cell(rd, row, T_CPU_MS)) != NULL)
		p.cpu_ms = v->v.f;
	if ((v = cell(rd, row, T_LAST_SEEN)) != NULL) {
		p.last = v->v.i;
		p.has_last = 1;
	}
	if ((v = cell(rd, row, T_TRACE_END)) != NULL) {
		p.trace_end = v->v.i;
		p.has_trace_end = 1;
	}
	p.fate = fate_of(rd, row, p.has_end);
	keep_text(rd, row, T_IMAGE, &p.image, &p.image_len);
	keep_text(rd, row, T_CRATE, &p.crate, &p.crate_len);
	keep_text(rd, row, T_CMDLINE, &p.cmdline, &p.cmdline_len);
	buf_put(&rd->rows, &p, sizeof(p));
	return rd->rows.oom || rd->texts.oom ? -1 : 0;
}

static int
html_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (html_queries_record(rd->queries, r, rec) != 0 ||
	    html_threads_record(rd->threads, r, rec) != 0)
		return -1;
	switch (rec->type) {
	case REC_HEADER:
		rd->table = 0;
		return 0;
	case REC_TABLE:
		rd->table = 0;
		if (strcmp(rec->u.table.name, "tree") == 0) {
			rd->table = rec->u.table.id;
			rd->saw_tree = 1;
			map_columns(rd, &rec->u.table);
		}
		return 0;
	case REC_ROW:
		if (rd->table == 0 || rec->u.row.table != rd->table)
			return 0;
		return add_row(rd, &rec->u.row);
	default:
		return 0;
	}
}

/* ---- the timeline ---- */

static struct proc_row *
rows(const struct render *rd, size_t *n)
{
	*n = rd->rows.len / sizeof(struct proc_row);
	return (struct proc_row *)rd->rows.data;
}

/*
 * The time the axis shows: 0 (the trace start) to the trace's end, as
 * the rows give it (trace_end), else the last start, end or sighting.
 */
static void
span(const struct render *rd, int64_t *t0, int64_t *t1)
{
	size_t n, i;
	const struct proc_row *p = rows(rd, &n);

	*t0 = 0;
	*t1 = 0;
	for (i = 0; i < n; i++) {
		if (p[i].has_start && p[i].start < *t0)
			*t0 = p[i].start;
		if (p[i].has_start && p[i].start > *t1)
			*t1 = p[i].start;
		if (p[i].has_end && p[i].end > *t1)
			*t1 = p[i].end;
		if (p[i].has_last && p[i].last > *t1)
			*t1 = p[i].last;
		if (p[i].has_trace_end && p[i].trace_end > *t1)
			*t1 = p[i].trace_end;
	}
	if (*t1 <= *t0)
		*t1 = *t0 + 1000000000;
}

/*
 * Where a bar ends: at the process's end, at the trace's end t1 if it
 * was running then, else where it was last seen (a tail to t1 says the
 * rest is not known).
 */
static int64_t
bar_end(const struct proc_row *p, int64_t t0, int64_t t1)
{
	if (p->fate == ENDS_EXITED && p->has_end)
		return p->end;
	if (p->fate == ENDS_RUNNING)
		return t1;
	if (p->has_last)
		return p->last;
	return p->has_start ? p->start : t0;
}

/*
 * to - from as a double: the times of a hostile tree table are any
 * int64, whose difference may not be one (fuzz_views); those of a trace
 * are far below 2^53, where this is exact.
 */
static double
ns_between(int64_t from, int64_t to)
{
	return (double)to - (double)from;
}

/*
 * Marks the rows to show: within --max-depth, and lasting at least
 * --min-percent of the span or with a kept row under them.  Rows are in
 * tree order, so walking back, a row's descendants come before it.
 * *left_out gets the rows left out.  @return : 0, or -1 if out of memory.
 */
static int
choose(struct render *rd, int64_t t0, int64_t t1, size_t *left_out)
{
	size_t n, i;
	struct proc_row *p = rows(rd, &n);
	uint64_t d, maxd = 0;
	unsigned char *below;

	for (i = 0; i < n; i++)
		if (p[i].depth > maxd)
			maxd = p[i].depth;
	if ((below = calloc(maxd + 2, 1)) == NULL)
		return -1;
	*left_out = 0;
	for (i = n; i-- > 0;) {
		int64_t a = p[i].has_start ? p[i].start : t0;
		int64_t b = bar_end(&p[i], t0, t1);
		int kids = 0;

		for (d = p[i].depth + 1; d <= maxd; d++) {
			kids |= below[d];
			below[d] = 0;
		}
		p[i].keep = (rd->opt.max_depth == 0 ||
		    p[i].depth < (uint64_t)rd->opt.max_depth) &&
		    (kids || 100.0 * ns_between(a, b) / ns_between(t0, t1) >=
		    rd->opt.min_percent);
		below[p[i].depth] |= p[i].keep;
		if (!p[i].keep)
			(*left_out)++;
	}
	free(below);
	return 0;
}

static const char style[] =
"body { font: 12px Verdana, sans-serif; margin: 12px; background: #f8f8f0; }\n"
"h1 { font-size: 17px; font-weight: normal; margin: 0 0 4px 0; }\n"
"#note { color: #555; margin-bottom: 8px; }\n"
"#filter { width: 260px; font: 12px Verdana, sans-serif; }\n"
".row, #axis { display: flex; align-items: center; }\n"
".row { height: 17px; cursor: pointer; }\n"
".row:hover { background: #e8e8dc; }\n"
".row.hit { background: #f7d9f7; }\n"
".label { flex: none; width: 340px; box-sizing: border-box;"
" overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }\n"
".label.folded::after { content: ' \\25b8'; }\n"
".track { flex: 1; position: relative; height: 17px;"
" border-left: 1px solid #ccc; }\n"
".bar { position: absolute; top: 3px; height: 11px; min-width: 1px;"
" border-radius: 2px; box-sizing: border-box; }\n"
".bar.before { border-left: 2px dashed #333; }\n"
".bar.after { border-right: 2px dashed #333; }\n"
".bar.failed { outline: 1px solid #c00; }\n"
".tail { position: absolute; top: 8px; height: 0;"
" border-top: 1px dotted #888; }\n"
"#axis .track { height: 20px; border-bottom: 1px solid #999; }\n"
".tick { position: absolute; bottom: 2px; font-size: 10px; color: #444;"
" border-left: 1px solid #999; padding-left: 2px; white-space: nowrap; }\n";

static const char script[] =
"var rows = Array.prototype.slice.call(document.querySelectorAll('.row'));\n"
"function depth(r) { return +r.getAttribute('data-depth'); }\n"
"function refresh() {\n"
"  var hideBelow = Infinity;\n"
"  rows.forEach(function (r) {\n"
"    var d = depth(r);\n"
"    if (d <= hideBelow) hideBelow = Infinity;\n"
"    r.style.display = d > hideBelow ? 'none' : '';\n"
"    if (d < hideBelow && r.classList.contains('closed')) hideBelow = d;\n"
"  });\n"
"}\n"
"rows.forEach(function (r, i) {\n"
"  var next = rows[i + 1];\n"
"  if (!next || depth(next) <= depth(r)) return;\n"
"  r.addEventListener('click', function () {\n"
"    r.classList.toggle('closed');\n"
"    r.querySelector('.label').classList.toggle('folded');\n"
"    refresh();\n"
"  });\n"
"});\n"
"document.getElementById('filter').addEventListener('input', function () {\n"
"  var re = null;\n"
"  try { re = this.value ? new RegExp(this.value, 'i') : null; }\n"
"  catch (err) { re = null; }\n"
"  rows.forEach(function (r) {\n"
"    r.classList.toggle('hit', re !== null && re.test(r.title));\n"
"  });\n"
"});\n";

/* "12.345678 s" from ns. */
static void
put_seconds(FILE *fp, double ns)
{
	fprintf(fp, "%.6f s", (double)ns / 1e9);
}

static void
write_tooltip(const struct render *rd, const struct proc_row *p)
{
	FILE *fp = rd->fp;
	const char *texts = (const char *)rd->texts.data;

	markup_text(fp, texts + p->image, p->image_len);
	if (p->crate_len > 0) {
		fputs(" crate ", fp);
		markup_text(fp, texts + p->crate, p->crate_len);
	}
	fprintf(fp, " (pid %" PRIu64 ", parent %" PRIu64 ")&#10;", p->pid,
	    p->ppid);
	markup_text(fp, texts + p->cmdline, p->cmdline_len);
	fputs("&#10;start: ", fp);
	if (p->has_start)
		put_seconds(fp, p->start);
	else
		fputs("before the trace", fp);
	fputs(", end: ", fp);
	if (p->has_end)
		put_seconds(fp, p->end);
	else if (p->fate == ENDS_RUNNING)
		fputs("after the trace (running at its end)", fp);
	else if (p->fate == ENDS_EXITED)
		fputs("not known (it had exited by the end)", fp);
	else
		fputs("not known", fp);
	if (!p->has_end && p->has_last) {
		fputs(", last seen: ", fp);
		put_seconds(fp, p->last);
	}
	if (p->has_start && p->has_end) {
		fputs(", duration: ", fp);
		put_seconds(fp, ns_between(p->start, p->end));
	}
	if (p->has_exit)
		fprintf(fp, "&#10;exit status: %" PRId64 " (0x%" PRIx64 ")",
		    p->exit_status, (uint64_t)p->exit_status & 0xffffffff);
	fprintf(fp, "&#10;threads: %" PRIu64 ", CPU: %" PRIu64 " samples, "
	    "%.1f ms", p->threads, p->samples, p->cpu_ms);
}

static void
write_row(const struct render *rd, const struct proc_row *p, int64_t t0,
    int64_t t1)
{
	const char *image = (const char *)rd->texts.data + p->image;
	int64_t a = p->has_start ? p->start : t0;
	int64_t b = bar_end(p, t0, t1);
	double span_ns = ns_between(t0, t1);
	char color[24];
	int open_end = p->fate == ENDS_RUNNING ||
	    (p->fate == ENDS_EXITED && !p->has_end);

	markup_color(image, p->image_len, color);
	fprintf(rd->fp, "<div class=\"row\" data-depth=\"%" PRIu64 "\" "
	    "title=\"", p->depth);
	write_tooltip(rd, p);
	fprintf(rd->fp, "\"><div class=\"label\" style=\"padding-left:%"
	    PRIu64 "px\">", p->depth * INDENT_PX);
	/* A rustc by its crate, "core (10280)"; the image in the tooltip. */
	if (p->crate_len > 0) {
		fputs("<b>", rd->fp);
		markup_text(rd->fp, (const char *)rd->texts.data + p->crate,
		    p->crate_len);
		fputs("</b>", rd->fp);
	} else
		markup_text(rd->fp, image, p->image_len);
	fprintf(rd->fp, " (%" PRIu64 ")</div><div class=\"track\">"
	    "<div class=\"bar%s%s%s\" style=\"left:%.4f%%;width:%.4f%%;"
	    "background:%s\"></div>", p->pid,
	    p->has_start ? "" : " before", open_end ? " after" : "",
	    p->has_exit && p->exit_status != 0 ? " failed" : "",
	    100.0 * ns_between(t0, a) / span_ns,
	    100.0 * ns_between(a, b) / span_ns, color);
	/* Its end is not known: a faint tail from where it was last seen. */
	if (p->fate == ENDS_UNKNOWN && b < t1)
		fprintf(rd->fp, "<div class=\"tail\" style=\"left:%.4f%%;"
		    "width:%.4f%%\"></div>", 100.0 * ns_between(t0, b) /
		    span_ns, 100.0 * ns_between(b, t1) / span_ns);
	fputs("</div></div>\n", rd->fp);
}

/* A step of 1, 2 or 5 times a power of ten, for about TICKS ticks. */
static double
tick_step(double seconds)
{
	double step = pow(10, floor(log10(seconds / TICKS)));

	if (seconds / step > 5 * TICKS)
		return step * 5;
	if (seconds / step > 2 * TICKS)
		return step * 2;
	return step;
}

static void
write_axis(const struct render *rd, int64_t t0, int64_t t1)
{
	double s0 = (double)t0 / 1e9, s1 = (double)t1 / 1e9;
	double step = tick_step(s1 - s0), t;
	int n = 0;

	fputs("<div id=\"axis\"><div class=\"label\">process (pid)</div>"
	    "<div class=\"track\">", rd->fp);
	/*
	 * The last tick would not have room for its label.  A span of a
	 * few ns far from 0 (a hostile table) has a step below the
	 * precision of t: the count of ticks ends the loop then.
	 */
	for (t = ceil(s0 / step) * step; t <= s1 - step / 2 &&
	    n++ < 100 * TICKS; t += step)
		fprintf(rd->fp, "<span class=\"tick\" style=\"left:%.4f%%\">"
		    "%g s</span>", 100.0 * (t - s0) / (s1 - s0), t);
	fputs("</div></div>\n", rd->fp);
}

static int
write_timeline(struct render *rd)
{
	const char *title = rd->opt.title ? rd->opt.title :
	    "Process tree";
	size_t n, i, left_out, shown;
	const struct proc_row *p;
	int64_t t0, t1;

	span(rd, &t0, &t1);
	if (choose(rd, t0, t1, &left_out) != 0)
		return -1;
	p = rows(rd, &n);
	shown = n - left_out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>", rd->fp);
	markup_text(rd->fp, title, strlen(title));
	fprintf(rd->fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	    "<h1>", style);
	markup_text(rd->fp, title, strlen(title));
	fputs("</h1>\n", rd->fp);
	render_loss_note(rd->fp, &rd->opt, 1, "<p id=\"lossy\" "
	    "style=\"color:#b00000\">Warning: ", "</p>\n");
	render_missing_note(rd->fp, &rd->opt, 1, "<p id=\"missing\" "
	    "style=\"color:#b00000\">Note: ", "</p>\n");
	fprintf(rd->fp, "<div id=\"note\">%zu processes shown, %zu "
	    "left out (--max-depth, --min-percent); times in seconds from "
	    "the start of the trace; click a row to fold its children. "
	    "<input id=\"filter\" type=\"search\" "
	    "placeholder=\"Highlight (regex)\"></div>\n", shown, left_out);
	write_axis(rd, t0, t1);
	fputs("<div id=\"rows\">\n", rd->fp);
	for (i = 0; i < n; i++)
		if (p[i].keep)
			write_row(rd, &p[i], t0, t1);
	fprintf(rd->fp, "</div>\n<script>\n%s</script>\n</body>\n</html>\n",
	    script);
	return ferror(rd->fp) ? -1 : 0;
}

static int
html_close(struct render *rd)
{
	int rc;

	if (rd->saw_tree)
		rc = write_timeline(rd);
	else if (!html_threads_empty(rd->threads))
		rc = html_threads_write(rd->threads, rd->fp);
	else if (!html_queries_empty(rd->queries))
		rc = html_queries_write(rd->queries, rd->fp);
	else
		rc = 1;
	if (fflush(rd->fp) != 0)
		rc = -1;
	html_queries_free(rd->queries);
	html_threads_free(rd->threads);
	buf_release(&rd->rows);
	buf_release(&rd->texts);
	free(rd);
	return rc;
}

const struct render_ops render_html_ops = {
	/* A profile's queries are drawn by label. */
	.reader_flags = STREAM_QUERY_LABELS,
	.open = html_open,
	.record = html_record,
	.close = html_close,
	.nothing = "no tree table (etlagg tree), no switches table (etlagg "
	    "switches) and no rustc query events",
};
