/*
 * render_report.c - "etlreport -f html" of a stream of several tables
 * (as etlagg writes for views joined by +): one page with a tab a
 * question, as WPA's rustc profile has them:
 *
 *	Summary		the machine (sysconfig), what the input lost, what
 *			the trace did not record and the profile that would
 *			(the notes of the views), the tables of other views
 *	Crates		crates: sortable, a bar in each figure's cell, and
 *			a stacked bar a crate of its running, ready and
 *			waiting time (drawn by the page's script)
 *	Build processes	processes: filterable by a regular expression
 *	Process tree	tree: the timeline of render_html.c, in a frame
 *	CPU		cpu stack tables as flame graphs (render_svg.c, in a
 *			frame), function, module and process tables
 *	Memory		vmem and heap stack tables as flame graphs and their
 *			top stacks, vmem_timeline as its line chart
 *	Waits		waits and threadtime stack tables as flame graphs,
 *			threads and switches tables
 *	Timeline	timeline: each thread's states, queries and samples
 *			on one time axis (render_timeline.c, in a frame)
 *	Queries		queries and querystacks, when the stream has them
 *
 * Each picture is drawn by the renderer that draws it alone, into a
 * scratch file, and put in an iframe's srcdoc, so that the page stands
 * alone and the pictures' scripts do not meet.  A frame is as tall as
 * its picture, up to most of the window (then it scrolls): a frame
 * sized by the window alone leaves blank under a short picture, the
 * more so the taller the window (a full-page capture).  Each title says
 * which processes its table covers, from the note of etlagg's
 * --note-filters (or of etlfilter, that it cut the stream).  A tab
 * whose data the stream lacks says so.  Tables are cut to their first rows (the views
 * sort them by weight), with a note saying how many were left out;
 * flame graphs fold frames narrower than a pixel, as alone.
 *
 * A stream of one table but crates, or of events only, is drawn by
 * render_html.c as before, byte for byte: every record goes to it too,
 * and its page, written to a scratch file, is copied out at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "base/platform.h"
#include "out/out_html.h"
#include "stream/loss.h"
#include "render/markup.h"
#include "render/render.h"
#include "render_report.h"
#include "report_page.h"
#include "report_summary.h"

#define ROWS_MAX	200	/* rows of a table shown */
#define CRATES_MAX	1000	/* rows of the crates table shown */
#define PROCS_MAX	1000	/* rows of the processes table shown */
#define TEXT_MAX	300	/* bytes of a text cell shown */
#define TREE_PERCENT	0.2	/* the tree leaves out shorter lives */
/*
 * The page stays under 8 MB: its parts get PAGE_BUDGET bytes, each
 * PART_MAX at most; pictures of stacks first, then the crates, then the
 * others in the order of the page; a part that does not fit is left
 * out, and a note says so.
 */
#define PAGE_BUDGET	7500000
#define PART_MAX	2500000
#define STACK_FRAMES	4	/* innermost frames in a top stacks table */
#define CELL_MAX	4096	/* bytes of a cell shown */
#define PARTS_MAX	64	/* tables and pictures a page holds */
#define TITLE_MAX	320	/* bytes of a title */
#define FRAME_SLACK	24	/* px: a frame's margins and scroll bar */

enum tab {
	TAB_SUMMARY, TAB_CRATES, TAB_PROCESSES, TAB_TREE, TAB_CPU,
	TAB_MEMORY, TAB_WAITS, TAB_TIMELINE, TAB_QUERIES, NTABS
};

static const struct {
	const char *id, *name, *lacking;
} tabs[NTABS] = {
	[TAB_SUMMARY] = { "summary", "Summary", "" },
	[TAB_CRATES] = { "crates", "Crates", "The stream holds no crates "
	    "table (etlagg crates), or the trace no rustc process." },
	[TAB_PROCESSES] = { "processes", "Build processes", "The stream "
	    "holds no processes table (etlagg processes)." },
	[TAB_TREE] = { "tree", "Process tree", "The stream holds no tree "
	    "table (etlagg tree)." },
	[TAB_CPU] = { "cpu", "CPU", "The stream holds no cpu table (etlagg "
	    "cpu), or the trace no CPU samples: record it with WPR's CPU "
	    "profile (pipelines/rustc.wprp)." },
	[TAB_MEMORY] = { "memory", "Memory", "The stream holds no vmem or "
	    "heap table (etlagg vmem), or the trace no VirtualAlloc events: "
	    "record it with WPR's VirtualAllocation profile "
	    "(pipelines/rustc.wprp)." },
	[TAB_WAITS] = { "waits", "Waits", "The stream holds no waits or "
	    "threads table (etlagg waits, threads), or the trace no context "
	    "switches: record it with WPR's CPU profile with CSwitch and "
	    "ReadyThread events (pipelines/rustc.wprp)." },
	[TAB_TIMELINE] = { "timeline", "Timeline", "The stream holds no "
	    "timeline table (etlagg timeline), or the trace no context "
	    "switches: record it with WPR's CPU profile with CSwitch and "
	    "ReadyThread events (pipelines/rustc.wprp)." },
	[TAB_QUERIES] = { "queries", "Queries", "" },
};

/* Words of a view's note that say which tab lacks its data. */
static const struct {
	const char *word;
	enum tab tab;
} note_tabs[] = {
	{ "CPU samples", TAB_CPU },
	{ "VirtualAlloc", TAB_MEMORY },
	{ "context switches", TAB_WAITS },
};

enum part_kind { PART_TABLE, PART_FRAME };

/* Something a tab shows: an html table, or a picture in a frame. */
struct part {
	enum tab tab;
	enum part_kind kind;
	char title[TITLE_MAX];
	struct buf html;		/* PART_TABLE: the table */
	FILE *fp;			/* PART_FRAME: the picture */
	unsigned height;		/* its height in px; 0: not known */
	size_t rows, cut;		/* rows seen, rows left out */
	int stacks;			/* a picture of stacks */
	size_t size;			/* bytes on the page */
	int left_out;			/* over the page's budget */
};

struct render {
	FILE *fp;
	struct render_options opt;
	/* The page of one table, as render_html.c draws it. */
	FILE *single_fp;
	struct render *single;
	size_t tables, left_out;
	int crates;
	int timeline;			/* a timeline table: never one page */
	/*
	 * The parts, in order: PARTS_MAX slots made at once, so that a
	 * part open (pic, tab) stays where it is.
	 */
	struct part *parts;
	size_t nparts;
	/* The table open: its parts (a picture, a table) and columns. */
	stream_id table;
	int open;
	struct part *pic, *tab;
	const struct render_ops *pic_ops;
	struct render *pic_rd;
	size_t ncols, max_rows;
	/*
	 * Its rows shown, held until its end, when each column's unit is
	 * chosen from them all (out_scale.h) and the header says it.
	 */
	struct out_rows held;
	int stack_col;			/* the stack column, or -1 */
	/* Where the open table has a process's pid, image and time. */
	int pid_col, image_col, time_col, crates_table, crate_col, wall_col;
	/*
	 * The rustc instances of the crates table, so that the other
	 * tables name a rustc as "crate (pid)" (CRATES_MAX at most).
	 */
	struct inst {
		uint32_t pid;
		int64_t start, end;	/* INT64_MIN, INT64_MAX: not known */
		size_t name;		/* offset in names */
	} *inst;
	size_t ninst, inst_cap;
	struct buf inst_names;
	char table_name[64];
	/*
	 * What the section's view covers: the filters of its note
	 * (etlagg --note-filters), and whether a filter cut the stream.
	 */
	char filters[RENDER_NOTE_LEN + 1];
	int filtered;
	/* The summary: sysconfig rows, notes. */
	struct report_summary *summary;	/* machines, a diff's samples */
	struct buf notes;
	/*
	 * What the input lost, each DIAG record counted once: the output
	 * of views joined by + repeats the input's in each view's section.
	 */
	struct loss loss;
	struct intern diags;		/* the DIAG records' bodies */
	char cell[CELL_MAX];
};

static int write_rows(struct render *rd);

static void
put_esc(struct buf *b, const char *s, size_t len)
{
	out_html_text(b, s, len);
}

static void
put_str(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static struct render *
report_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	if (rd == NULL)
		return NULL;
	rd->fp = fp;
	rd->opt = *opt;
	rd->opt.loss = &rd->loss;
	if ((rd->parts = calloc(PARTS_MAX, sizeof(*rd->parts))) == NULL ||
	    (rd->summary = report_summary_new()) == NULL ||
	    (rd->single_fp = platform_scratch_file()) == NULL ||
	    (rd->single = render_html_ops.open(rd->single_fp, format,
	    opt)) == NULL) {
		if (rd->single_fp != NULL)
			fclose(rd->single_fp);
		report_summary_free(rd->summary);
		free(rd->parts);
		free(rd);
		return NULL;
	}
	return rd;
}

static struct part *
new_part(struct render *rd, enum tab tab, enum part_kind kind,
    const char *title)
{
	struct part *p;

	if (rd->nparts >= PARTS_MAX)
		return NULL;
	p = &rd->parts[rd->nparts];
	memset(p, 0, sizeof(*p));
	p->tab = tab;
	p->kind = kind;
	snprintf(p->title, sizeof(p->title), "%s", title);
	rd->nparts++;
	return p;
}

static int
has_col(const struct stream_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The tab of a table, by its name and columns. */
static enum tab
tab_of(const struct stream_table *t)
{
	static const struct {
		const char *name;
		enum tab tab;
	} names[] = {
		{ "crates", TAB_CRATES }, { "processes", TAB_PROCESSES },
		{ "tree", TAB_TREE }, { "cpu", TAB_CPU },
		{ "vmem", TAB_MEMORY }, { "vmem_timeline", TAB_MEMORY },
		{ "heap", TAB_MEMORY }, { "heapsnap", TAB_MEMORY },
		{ "waits", TAB_WAITS }, { "threads", TAB_WAITS },
		{ "switches", TAB_WAITS }, { "threadtime", TAB_WAITS },
		{ "querystacks", TAB_QUERIES }, { "timeline", TAB_TIMELINE },
	};
	size_t i;

	if (strncmp(t->name, "queries", 7) == 0)
		return TAB_QUERIES;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, t->name) == 0)
			return names[i].tab;
	return TAB_SUMMARY;
}

/*
 * The height in pixels of a picture that render_svg.c drew, from the
 * opening tag of its <svg>; 0 if it has none.
 */
static unsigned
picture_height(FILE *fp)
{
	char head[2048], *svg, *h;
	size_t n;
	unsigned long v;

	rewind(fp);
	n = fread(head, 1, sizeof(head) - 1, fp);
	head[n] = '\0';
	if ((svg = strstr(head, "<svg ")) == NULL ||
	    (h = strstr(svg, " height=\"")) == NULL ||
	    h > svg + strcspn(svg, ">"))
		return 0;
	v = strtoul(h + 9, NULL, 10);
	return v < 1000000 ? (unsigned)v : 0;
}

/* Ends the open table: its picture drawn, its html table closed. */
static int
end_table(struct render *rd)
{
	int rc = 0;

	if (!rd->open)
		return 0;
	rd->open = 0;
	if (rd->pic_rd != NULL) {
		rc = rd->pic_ops->close(rd->pic_rd);
		rd->pic_rd = NULL;
		if (rc >= 0 && rd->pic_ops == &render_svg_ops)
			rd->pic->height = picture_height(rd->pic->fp);
		/* Nothing to draw (1) or something left out (2): no error. */
		rc = rc < 0 ? -1 : 0;
	}
	if (rd->tab != NULL) {
		if (write_rows(rd) != 0)
			return -1;
		put_str(&rd->tab->html, "</tbody></table>\n");
		if (rd->tab->cut > 0) {
			char note[160];

			snprintf(note, sizeof(note), "<p class=\"cut\">The "
			    "first %zu rows of %zu; %zu left out.</p>\n",
			    rd->tab->rows - rd->tab->cut, rd->tab->rows,
			    rd->tab->cut);
			put_str(&rd->tab->html, note);
		}
		if (rd->tab->rows == 0)
			put_str(&rd->tab->html, "<p class=\"empty\">No rows: "
			    "the trace has nothing of this.</p>\n");
	}
	rd->pic = rd->tab = NULL;
	return rc;
}

/* What a table shows, as a heading. */
static const char *
table_title(const struct stream_table *t, char *buf, size_t cap)
{
	static const struct {
		const char *name, *col, *title;
	} titles[] = {
		{ "crates", "instances", "A row per crate: its rustc "
		    "instances added up" },
		{ "crates", "pid", "A row per rustc process instance" },
		{ "processes", NULL, "The processes, with their command lines" },
		{ "tree", NULL, "The process tree on a timeline" },
		{ "cpu", "stack", "CPU samples by call stack" },
		{ "cpu", "function", "Top functions (inclusive CPU)" },
		{ "cpu", "module", "CPU by module" },
		{ "cpu", "process", "CPU by process" },
		{ "vmem", "stack", "Committed memory by stack" },
		{ "vmem", "function", "Committed memory by function" },
		{ "vmem", "image", "Committed memory by process" },
		{ "vmem_timeline", NULL, "Outstanding commit over time" },
		{ "heap", "stack", "Heap allocations by stack" },
		{ "waits", "stack", "Off-CPU time by stack (where threads "
		    "waited)" },
		{ "threads", NULL, "Threads: running, ready and waiting time" },
		{ "querystacks", NULL, "rustc queries by stack" },
	};
	size_t i;

	for (i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
		if (strcmp(titles[i].name, t->name) == 0 &&
		    (titles[i].col == NULL || has_col(t, titles[i].col) >= 0)) {
			snprintf(buf, cap, "%s", titles[i].title);
			return buf;
		}
	snprintf(buf, cap, "%s", t->name);
	return buf;
}

/*
 * Which processes the open section's table covers, for its title: the
 * filters its view was given (etlagg --note-filters), in words where
 * they are the report's own; else whether a filter cut the stream
 * before (etlfilter's "note: events filtered out"); else every process.
 */
static const char *
coverage(const struct render *rd, char *buf, size_t cap)
{
	static const struct {
		const char *filters, *words;
	} known[] = {
		{ "--rustc", "the build's processes" },
		{ "-v --pid 0", "every process but Idle" },
		{ "--pid 0 -v", "every process but Idle" },
	};
	size_t i;

	if (rd->filters[0] == '\0') {
		snprintf(buf, cap, "%s", rd->filtered ? "the processes a filter "
		    "kept" : "every process");
		return buf;
	}
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(rd->filters, known[i].filters) == 0) {
			snprintf(buf, cap, "%s (%s)", known[i].words,
			    known[i].filters);
			return buf;
		}
	snprintf(buf, cap, "the processes of the filters %.120s", rd->filters);
	return buf;
}

/* Keeps what a DIAG record says the section's view covers. */
static void
keep_coverage(struct render *rd, const struct stream_diag *d)
{
	static const char lead[] = "note: processes: ";

	if (d->what == NULL)
		return;
	if (d->count == 0 && strncmp(d->what, lead, sizeof(lead) - 1) == 0)
		snprintf(rd->filters, sizeof(rd->filters), "%s",
		    d->what + sizeof(lead) - 1);
	else if (strcmp(d->what, "note: events filtered out") == 0)
		rd->filtered = 1;
}

static int
begin_table(struct render *rd, const struct stream_table *t)
{
	enum tab tab = tab_of(t);
	struct out_column cols[STREAM_EVENT_FIELDS_MAX];
	char title[TITLE_MAX], what[128], covers[160];
	size_t i;
	int picture = 0;

	if (end_table(rd) != 0)
		return -1;
	rd->open = 1;
	rd->table = t->id;
	rd->ncols = t->ncols;
	rd->stack_col = has_col(t, "stack");
	rd->crates_table = strcmp(t->name, "crates") == 0 &&
	    has_col(t, "pid") >= 0;
	rd->pid_col = has_col(t, "pid");
	rd->crate_col = has_col(t, "crate");
	rd->wall_col = has_col(t, "wall");
	rd->image_col = has_col(t, "image");
	if ((rd->time_col = has_col(t, "start")) < 0)
		rd->time_col = has_col(t, "start_ns");
	if (rd->image_col >= 0 && t->cols[rd->image_col].type != VAL_STR)
		rd->image_col = -1;
	snprintf(rd->table_name, sizeof(rd->table_name), "%s", t->name);
	table_title(t, what, sizeof(what));
	/* Tables of a trace's processes say which; a profile's have none. */
	if (tab == TAB_SUMMARY || tab == TAB_QUERIES)
		snprintf(title, sizeof(title), "%s", what);
	else
		snprintf(title, sizeof(title), "%s \xe2\x80\x94 %s", what,
		    coverage(rd, covers, sizeof(covers)));
	if (strcmp(t->name, "sysconfig") == 0)
		return 0;	/* the summary's, row by row */
	/* A page of many tables would be no page: the first ones only. */
	if (rd->nparts + 2 > PARTS_MAX) {
		rd->left_out++;
		return 0;
	}
	/* Pictures: stack tables, the commit timeline, the tree. */
	if (strcmp(t->name, "timeline") == 0) {
		/* Its stack column is of its buckets: no table of stacks. */
		rd->pic_ops = &render_timeline_ops;
		rd->timeline = picture = 1;
		rd->stack_col = -1;
	} else if (rd->stack_col >= 0 ||
	    strcmp(t->name, "vmem_timeline") == 0) {
		rd->pic_ops = &render_svg_ops;
		picture = 1;
	} else if (strcmp(t->name, "tree") == 0) {
		rd->pic_ops = &render_html_ops;
		picture = 1;
	}
	if (picture) {
		struct render_options o = rd->opt;

		/* A tree of thousands of processes: the longer lives. */
		if (rd->pic_ops == &render_html_ops && !o.min_percent_given) {
			o.min_percent = TREE_PERCENT;
			o.min_percent_given = 1;
		}
		if ((rd->pic = new_part(rd, tab, PART_FRAME, title)) == NULL)
			return -1;
		/* A flame graph or chart says what it draws, of what. */
		if (rd->pic_ops == &render_svg_ops ||
		    rd->pic_ops == &render_timeline_ops)
			o.title = rd->pic->title;
		if ((rd->pic->fp = platform_scratch_file()) == NULL ||
		    (rd->pic_rd = rd->pic_ops->open(rd->pic->fp,
		    rd->pic_ops == &render_svg_ops ? "svg" : "html",
		    &o)) == NULL)
			return -1;
		rd->pic->stacks = rd->stack_col >= 0;
	}
	/* Tables: all but the pictures' own, stack tables as top stacks. */
	if (picture && rd->stack_col < 0)
		return 0;
	if ((rd->tab = new_part(rd, tab, PART_TABLE, title)) == NULL)
		return -1;
	rd->max_rows = strcmp(t->name, "crates") == 0 ? CRATES_MAX :
	    strcmp(t->name, "processes") == 0 ? PROCS_MAX : ROWS_MAX;
	if (rd->stack_col >= 0 && (tab == TAB_SUMMARY || tab == TAB_QUERIES))
		snprintf(rd->tab->title, sizeof(rd->tab->title),
		    "%s: the top stacks", what);
	else if (rd->stack_col >= 0)
		snprintf(rd->tab->title, sizeof(rd->tab->title),
		    "%s: the top stacks \xe2\x80\x94 %s", what, covers);
	put_str(&rd->tab->html, "<table class=\"data");
	if (strcmp(t->name, "crates") == 0)
		put_str(&rd->tab->html, " bars");
	if (strcmp(t->name, "processes") == 0)
		put_str(&rd->tab->html, " filtered");
	put_str(&rd->tab->html, "\">");
	for (i = 0; i < t->ncols && i < STREAM_EVENT_FIELDS_MAX; i++)
		cols[i] = (struct out_column){ t->cols[i].name,
		    t->cols[i].type, t->cols[i].unit };
	if (out_rows_begin(&rd->held, cols, i) != 0)
		return -1;
	return rd->tab->html.oom ? -1 : 0;
}

/* The innermost frames of a stack, "... ;a;b;c". */
static const char *
short_stack(const char *s, size_t len, size_t *out)
{
	size_t i = len, n = 0;

	while (i > 0) {
		if (s[i - 1] == ';' && ++n == STACK_FRAMES)
			break;
		i--;
	}
	*out = len - i;
	return s + i;
}

/* Keeps a row of the crates table: its instance's pid, life and name. */
static int
keep_instance(struct render *rd, const struct stream_row *row,
    int crate_col, int wall_col)
{
	const struct value *pid, *start, *wall, *crate;
	struct inst *in;
	char name[200];
	int n;

	if (rd->ninst >= CRATES_MAX || rd->pid_col < 0 || crate_col < 0 ||
	    (size_t)rd->pid_col >= row->ncells ||
	    (size_t)crate_col >= row->ncells)
		return 0;
	pid = &row->cells[rd->pid_col];
	crate = &row->cells[crate_col];
	start = rd->time_col >= 0 && (size_t)rd->time_col < row->ncells ?
	    &row->cells[rd->time_col] : NULL;
	wall = wall_col >= 0 && (size_t)wall_col < row->ncells ?
	    &row->cells[wall_col] : NULL;
	if (pid->type != VAL_U64 || crate->type != VAL_STR ||
	    crate->v.s.len == 0)
		return 0;
	if ((in = array_slot(&rd->inst, &rd->inst_cap, rd->ninst,
	    sizeof(*in))) == NULL)
		return -1;
	in->pid = (uint32_t)pid->v.u;
	in->start = start != NULL && start->type == VAL_NS ? start->v.i :
	    INT64_MIN;
	in->end = in->start != INT64_MIN && wall != NULL &&
	    wall->type == VAL_NS ? in->start + wall->v.i : INT64_MAX;
	n = snprintf(name, sizeof(name), "%.*s (%u)",
	    (int)(crate->v.s.len < 120 ? crate->v.s.len : 120),
	    crate->v.s.ptr, in->pid);
	in->name = rd->inst_names.len;
	buf_put(&rd->inst_names, name, n > 0 && (size_t)n < sizeof(name) ?
	    (size_t)n + 1 : 1);
	rd->ninst++;
	return rd->inst_names.oom ? -1 : 0;
}

/*
 * The name of the rustc instance a row of another table is of: by its
 * pid, and by its time (a process's start, or a thread's, 0 for before
 * the trace) when the pid was reused, the latest instance started by
 * then; NULL if none (or the pid has instances the time cannot tell).
 */
static const char *
instance_name(const struct render *rd, const struct stream_row *row)
{
	const struct value *pid, *t;
	const struct inst *best = NULL;
	int64_t at = INT64_MIN;
	size_t i, n = 0;

	if (rd->ninst == 0 || rd->pid_col < 0 || rd->image_col < 0 ||
	    (size_t)rd->pid_col >= row->ncells ||
	    (pid = &row->cells[rd->pid_col])->type != VAL_U64)
		return NULL;
	t = rd->time_col >= 0 && (size_t)rd->time_col < row->ncells ?
	    &row->cells[rd->time_col] : NULL;
	if (t != NULL && (t->type == VAL_NS || t->type == VAL_I64))
		at = t->type == VAL_I64 && t->v.i == 0 ? INT64_MIN : t->v.i;
	else
		t = NULL;
	for (i = 0; i < rd->ninst; i++) {
		const struct inst *in = &rd->inst[i];

		if (in->pid != pid->v.u)
			continue;
		n++;
		if (t != NULL && in->start <= at && at <= in->end &&
		    (best == NULL || in->start > best->start))
			best = in;
		else if (t == NULL)
			best = in;
	}
	if (best == NULL || (t == NULL && n > 1))
		return NULL;
	return (const char *)rd->inst_names.data + best->name;
}

/* Holds a row of the open table, or counts it as left out. */
static int
table_row(struct render *rd, const struct stream_row *row)
{
	if (rd->tab->rows++ >= rd->max_rows) {
		rd->tab->cut++;
		return 0;
	}
	return out_rows_add(&rd->held, row->cells, row->ncells);
}

/* Writes a held row of the open table. */
static void
write_row(struct render *rd, const struct stream_row *row)
{
	struct buf *b = &rd->tab->html;
	size_t i, len;
	char num[48];
	int cut;
	const char *inst = rd->crates_table ? NULL : instance_name(rd, row);

	put_str(b, "<tr>");
	for (i = 0; i < row->ncells; i++) {
		const struct value *c = &row->cells[i];

		if ((int)i == rd->image_col && inst != NULL &&
		    c->type == VAL_STR) {
			/* A rustc: its crate and pid, the image in the tip. */
			put_str(b, "<td title=\"");
			put_esc(b, c->v.s.ptr, c->v.s.len < TEXT_MAX ?
			    c->v.s.len : TEXT_MAX);
			put_str(b, "\">");
			put_esc(b, inst, strlen(inst));
			put_str(b, "</td>");
			continue;
		}
		if (c->type == VAL_STR && (int)i == rd->stack_col) {
			const char *s = short_stack(c->v.s.ptr, c->v.s.len,
			    &len);

			put_str(b, "<td class=\"stack\" title=\"");
			put_esc(b, c->v.s.ptr, c->v.s.len < CELL_MAX ?
			    c->v.s.len : CELL_MAX);
			put_str(b, "\">");
			if (len < c->v.s.len)
				put_str(b, "&hellip;");
			put_esc(b, s, len);
			put_str(b, "</td>");
			continue;
		}
		if (out_html_figure(b, &rd->held, i, c))
			continue;
		len = value_format(c, rd->cell, sizeof(rd->cell));
		if (len >= sizeof(rd->cell))
			len = sizeof(rd->cell) - 1;
		cut = c->type == VAL_STR && len > TEXT_MAX;
		if (cut) {
			/* Not inside a UTF-8 sequence. */
			len = TEXT_MAX;
			while (len > 0 && ((unsigned char)rd->cell[len] &
			    0xc0) == 0x80)
				len--;
		}
		if (c->type == VAL_HEX || c->type == VAL_UTC ||
		    c->type == VAL_BOOL) {
			/* Shown as they are, sorted by their number. */
			snprintf(num, sizeof(num), "%llu",
			    (unsigned long long)c->v.u);
			put_str(b, "<td class=\"num\" data-v=\"");
			put_str(b, num);
			put_str(b, "\">");
		} else
			put_str(b, "<td>");
		put_esc(b, rd->cell, len);
		if (cut)
			put_str(b, "&hellip;");
		put_str(b, "</td>");
	}
	put_str(b, "</tr>\n");
}

/* The open table's header and rows, now that its units are known. */
static int
write_rows(struct render *rd)
{
	struct stream_row row = { rd->table, rd->held.ncols, NULL };
	size_t i;

	out_rows_choose(&rd->held);
	out_html_head(&rd->tab->html, &rd->held);
	for (i = 0; i < rd->held.nrows; i++) {
		row.cells = out_rows_get(&rd->held, i);
		write_row(rd, &row);
	}
	return rd->tab->html.oom ? -1 : 0;
}

/* Counts a DIAG record in the loss, unless one the same was counted. */
static int
keep_diag(struct render *rd, const struct stream_record *rec)
{
	int added;

	if (intern_add(&rd->diags, rec->body, rec->body_len, &added) == 0)
		return -1;
	if (added)
		loss_add_diag(&rd->loss, &rec->u.diag);
	return 0;
}

static int
report_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (render_html_ops.record(rd->single, r, rec) != 0)
		return -1;
	if (report_summary_record(rd->summary, rec) != 0 ||
	    render_note_keep(&rd->notes, rec) != 0 ||
	    (rec->type == REC_DIAG && keep_diag(rd, rec) != 0))
		return -1;
	if (rec->type == REC_DIAG)
		keep_coverage(rd, &rec->u.diag);
	switch (rec->type) {
	case REC_TABLE:
		rd->tables++;
		rd->crates |= strcmp(rec->u.table.name, "crates") == 0;
		if (begin_table(rd, &rec->u.table) != 0)
			return -1;
		break;
	case REC_ROW:
		if (!rd->open || rec->u.row.table != rd->table)
			break;
		if (strcmp(rd->table_name, "sysconfig") == 0)
			return 0;	/* the summary's */
		if (rd->crates_table && keep_instance(rd, &rec->u.row,
		    rd->crate_col, rd->wall_col) != 0)
			return -1;
		if (rd->tab != NULL && table_row(rd, &rec->u.row) != 0)
			return -1;
		break;
	case REC_HEADER:
	case REC_END:
		if (end_table(rd) != 0)
			return -1;
		/* A section of its own: another view, another coverage. */
		rd->filters[0] = '\0';
		rd->filtered = 0;
		return 0;
	default:
		break;
	}
	if (rd->pic_rd != NULL && rd->pic_ops->record(rd->pic_rd, r, rec) != 0)
		return -1;
	return 0;
}

/* ---- the page ---- */


/* Copies a scratch file as an attribute value (& and " escaped). */
static int
put_srcdoc(FILE *out, FILE *in)
{
	char chunk[65536];
	size_t n, i;

	rewind(in);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		for (i = 0; i < n; i++) {
			if (chunk[i] == '&')
				fputs("&amp;", out);
			else if (chunk[i] == '"')
				fputs("&quot;", out);
			else
				putc(chunk[i], out);
		}
	return ferror(in) ? -1 : 0;
}

/* Whether a kept note names what `tab` lacks. */
static void
write_tab_notes(struct render *rd, enum tab tab)
{
	const char *p = (const char *)rd->notes.data;
	const char *end = p != NULL ? p + rd->notes.len : NULL;
	size_t k;

	for (; p != NULL && p < end; p += strlen(p) + 1)
		for (k = 0; k < sizeof(note_tabs) / sizeof(note_tabs[0]); k++)
			if (note_tabs[k].tab == tab &&
			    strstr(p, note_tabs[k].word) != NULL) {
				fputs("<p class=\"lacking\">", rd->fp);
				markup_text(rd->fp, p, strlen(p));
				fputs("</p>\n", rd->fp);
				break;
			}
}

/*
 * The Summary's notes of what the trace did not record; not those that
 * say what a table covers, which its title says.
 */
static void
write_not_recorded(struct render *rd)
{
	static const char covers[] = "processes: ";
	const char *p = (const char *)rd->notes.data;
	const char *end = p != NULL ? p + rd->notes.len : NULL;
	size_t n = 0;

	fputs("<h2>Not recorded</h2>\n", rd->fp);
	for (; p != NULL && p < end; p += strlen(p) + 1) {
		if (strncmp(p, covers, sizeof(covers) - 1) == 0)
			continue;
		fputs("<p class=\"lacking\">", rd->fp);
		markup_text(rd->fp, p, strlen(p));
		fputs("</p>\n", rd->fp);
		n++;
	}
	if (n == 0)
		fputs("<p>The views found every kind of event they read.</p>\n",
		    rd->fp);
}

/* The bytes a picture takes as an attribute (& and " escaped). */
static size_t
srcdoc_size(FILE *in)
{
	char chunk[65536];
	size_t n, i, size = 0;

	rewind(in);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		for (i = 0, size += n; i < n; i++)
			size += chunk[i] == '&' ? 4 : chunk[i] == '"' ? 5 : 0;
	return size;
}

/* Which parts the page has room for (see PAGE_BUDGET). */
static void
fit_parts(struct render *rd)
{
	size_t left = PAGE_BUDGET, i;
	int pass;

	for (i = 0; i < rd->nparts; i++) {
		struct part *p = &rd->parts[i];

		p->size = p->kind == PART_TABLE ? p->html.len :
		    srcdoc_size(p->fp);
		p->left_out = 1;
	}
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < rd->nparts; i++) {
			struct part *p = &rd->parts[i];
			int mine = pass == 0 ? p->stacks : pass == 1 ?
			    p->tab == TAB_CRATES : 1;

			if (!p->left_out || !mine)
				continue;
			if (p->size <= PART_MAX && p->size <= left) {
				p->left_out = 0;
				left -= p->size;
			} else if (pass == 2)
				p->left_out = 1;
		}
}

static int
write_part(struct render *rd, const struct part *p)
{
	fputs("<h2>", rd->fp);
	markup_text(rd->fp, p->title, strlen(p->title));
	fputs("</h2>\n", rd->fp);
	if (p->left_out) {
		fprintf(rd->fp, "<p class=\"cut\">Left out: its %.1f MB "
		    "would take the page over 8 MB; render this table alone "
		    "(etlreport --table).</p>\n", (double)p->size / 1e6);
		return 0;
	}
	if (p->kind == PART_TABLE) {
		if (p->tab == TAB_PROCESSES)
			fputs("<input class=\"filter\" type=\"search\" "
			    "placeholder=\"Filter rows (regex)\">", rd->fp);
		fwrite(p->html.data, 1, p->html.len, rd->fp);
		return 0;
	}
	/* As tall as the picture, if known (the page's script fits it). */
	if (p->height > 0)
		fprintf(rd->fp, "<iframe class=\"pic\" style=\"height:min(%upx,"
		    "85vh)\" title=\"", p->height + FRAME_SLACK);
	else
		fputs("<iframe class=\"pic\" style=\"height:80vh\" title=\"",
		    rd->fp);
	markup_text(rd->fp, p->title, strlen(p->title));
	fputs("\" srcdoc=\"", rd->fp);
	if (put_srcdoc(rd->fp, p->fp) != 0)
		return -1;
	fputs("\"></iframe>\n", rd->fp);
	return 0;
}

static int
write_page(struct render *rd)
{
	const char *title = rd->opt.title ? rd->opt.title :
	    "rustc build report";
	size_t i, k, n;
	int t;

	fit_parts(rd);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>", rd->fp);
	markup_text(rd->fp, title, strlen(title));
	fprintf(rd->fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	    "<h1>", report_style);
	markup_text(rd->fp, title, strlen(title));
	fputs("</h1>\n<nav>\n", rd->fp);
	for (t = 0; t < NTABS; t++) {
		for (i = n = 0; i < rd->nparts; i++)
			n += rd->parts[i].tab == (enum tab)t;
		if (t == TAB_QUERIES && n == 0)
			continue;
		fprintf(rd->fp, "<button data-tab=\"%s\">%s</button>\n",
		    tabs[t].id, tabs[t].name);
	}
	fputs("</nav>\n", rd->fp);
	for (t = 0; t < NTABS; t++) {
		for (i = n = 0; i < rd->nparts; i++)
			n += rd->parts[i].tab == (enum tab)t;
		if (t == TAB_QUERIES && n == 0)
			continue;
		fprintf(rd->fp, "<section class=\"tab\" id=\"tab-%s\">\n",
		    tabs[t].id);
		if (t == TAB_SUMMARY) {
			fputs("<h2>Machine and trace</h2>\n", rd->fp);
			report_summary_write(rd->summary, rd->fp);
			fputs("<h2>Health</h2>\n", rd->fp);
			if (!render_loss_note(rd->fp, &rd->opt, 1,
			    "<p class=\"lossy\">Warning: ", "</p>\n"))
				fputs("<p>The input lost nothing.</p>\n",
				    rd->fp);
			if (rd->left_out > 0)
				fprintf(rd->fp, "<p class=\"cut\">%zu more "
				    "tables left out: a page holds %d.</p>\n",
				    rd->left_out, PARTS_MAX / 2);
			write_not_recorded(rd);
		} else
			write_tab_notes(rd, (enum tab)t);
		if (n == 0 && *tabs[t].lacking)
			fprintf(rd->fp, "<p class=\"lacking\">%s</p>\n",
			    tabs[t].lacking);
		for (i = 0; i < rd->nparts; i++)
			if (rd->parts[i].tab == (enum tab)t &&
			    write_part(rd, &rd->parts[i]) != 0)
				return -1;
		fputs("</section>\n", rd->fp);
	}
	fprintf(rd->fp, "<script>\n%s</script>\n</body>\n</html>\n", report_script);
	(void)k;
	return ferror(rd->fp) ? -1 : 0;
}

/* Copies the one-table page out. */
static int
copy_single(struct render *rd)
{
	char chunk[65536];
	size_t n;

	rewind(rd->single_fp);
	while ((n = fread(chunk, 1, sizeof(chunk), rd->single_fp)) > 0)
		if (fwrite(chunk, 1, n, rd->fp) != n)
			return -1;
	return ferror(rd->single_fp) ? -1 : 0;
}

static int
report_close(struct render *rd)
{
	size_t i;
	int rc = end_table(rd), single;

	single = rd->tables < 2 && !rd->crates && !rd->timeline;
	if (single) {
		int src = render_html_ops.close(rd->single);

		if (src == 0 || src == 2)
			rc = copy_single(rd) != 0 ? -1 : src;
		else
			rc = src;
	} else {
		/* The one-table page is not drawn: its scratch is dropped. */
		render_html_ops.close(rd->single);
		if (rc == 0 && write_page(rd) != 0)
			rc = -1;
	}
	if (fflush(rd->fp) != 0)
		rc = -1;
	fclose(rd->single_fp);
	for (i = 0; i < rd->nparts; i++) {
		buf_release(&rd->parts[i].html);
		if (rd->parts[i].fp != NULL)
			fclose(rd->parts[i].fp);
	}
	free(rd->parts);
	out_rows_free(&rd->held);
	report_summary_free(rd->summary);
	buf_release(&rd->inst_names);
	free(rd->inst);
	buf_release(&rd->notes);
	intern_release(&rd->diags);
	free(rd);
	return rc;
}

const struct render_ops render_report_ops = {
	/* A profile's queries are drawn by label, as render_html's. */
	.reader_flags = STREAM_QUERY_LABELS,
	.open = report_open,
	.record = report_record,
	.close = report_close,
	.nothing = "no tree table (etlagg tree), no switches table (etlagg "
	    "switches) and no rustc query events",
};
