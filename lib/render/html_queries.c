/*
 * html_queries.c - see html_queries.h.  The markup and the style sheet
 * are those of rustc's old src/librustc_driver/profile/trace.rs, as
 * measureme-format.md 12.2 records them; the kinds the old tool did not
 * have get a border colour of their own.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "mmprof/mmprof_decode.h"
#include "html_queries.h"
#include "markup.h"

#define NONE	0xffffffffu
#define PROCESSES_MAX	64	/* processes of one section given names */
/* Boxes under this share are folded away unless --min-percent says. */
#define DEFAULT_MIN_PERCENT	1.0

struct node {
	int64_t ns;
	uint32_t label;
	uint32_t kind_label;	/* the kind's text, as a label id */
	uint32_t child;		/* first child, in time order */
	uint32_t next;		/* next sibling */
	uint32_t nchildren;
	uint8_t kind;		/* enum query_kind */
	uint8_t instant;
};

/* The roots of one thread of one profile. */
struct tree {
	uint32_t pid, tid;
	uint32_t crate;		/* its process's crate as a label id; 0: none */
	uint32_t first, nroots;
	int64_t ns;		/* the roots' durations added */
};

struct frame {
	uint32_t node, depth;
	int close;		/* write the node's closing tag */
};

struct html_queries {
	struct render_options opt;
	struct query_input in;
	struct query_nest nest;
	struct node *nodes;
	size_t nnodes, nodecap;
	struct tree *trees;
	size_t ntrees, treecap;
	struct {
		uint32_t pid, crate;
	} procs[PROCESSES_MAX];	/* this section's processes with a crate */
	size_t nprocs;
	struct frame *stack;	/* for writing */
	size_t nstack, stackcap;
	uint64_t drawn;
};

static const char style[] =
"body { font-family: sans-serif; background: black }\n"
".trace { color: black; display: inline-block; border-style: solid; "
    "border-color: red; border-width: 1px; border-radius: 5px; "
    "padding: 0px; margin: 1px; font-size: 0px }\n"
".task-begin { border-width: 1px; color: white; border-color: #ff8; "
    "font-size: 0px }\n"
".miss { border-color: red; border-width: 1px }\n"
".IncrementalLoadResult { border-color: #8cf }\n"
".IncrementalResultHashing { border-color: #c9f }\n"
".QueryBlocked { border-color: #fb4 }\n"
".extent-0 { padding: 2px }\n"
".time-begin { border-width: 4px; font-size: 12px; color: white; "
    "border-color: #afa }\n"
".important { border-width: 3px; font-size: 12px; color: white; "
    "border-color: #f77 }\n"
".hit { padding: 0px; border-color: blue; border-width: 3px }\n"
".eff { color: #fff; display: inline-block }\n"
".frc { color: #7f7; display: inline-block }\n"
".dur { display: none }\n"
".frac-50 { padding: 10px; border-width: 10px; font-size: 32px }\n"
".frac-40 { padding: 8px; border-width: 8px; font-size: 24px }\n"
".frac-30 { padding: 6px; border-width: 6px; font-size: 18px }\n"
".frac-20 { padding: 4px; border-width: 6px; font-size: 16px }\n"
".frac-10 { padding: 2px; border-width: 6px; font-size: 14px }\n"
".caption { color: #aaa; font-size: 12px; margin: 8px 2px 2px 2px }\n"
"h1 { color: #eee; font-size: 20px; font-weight: normal; margin: 4px 2px }\n"
"#note { color: #aaa; font-size: 12px; margin: 2px 2px 8px 2px }\n"
".trace { cursor: pointer }\n"
".closed > .trace { display: none }\n"
".closed { border-style: dashed }\n";

/* A click on a box folds or unfolds what it holds. */
static const char script[] =
"document.body.addEventListener('click', function (e) {\n"
"  var t = e.target.closest('.trace');\n"
"  if (t && t.querySelector('.trace')) t.classList.toggle('closed');\n"
"});\n";

struct html_queries *
html_queries_new(const struct render_options *opt)
{
	struct html_queries *h = calloc(1, sizeof(*h));

	if (h == NULL)
		return NULL;
	h->opt = *opt;
	if (!opt->min_percent_given)
		h->opt.min_percent = DEFAULT_MIN_PERCENT;
	return h;
}

void
html_queries_free(struct html_queries *h)
{
	if (h == NULL)
		return;
	query_input_release(&h->in);
	query_nest_release(&h->nest);
	free(h->nodes);
	free(h->trees);
	free(h->stack);
	free(h);
}

int
html_queries_empty(const struct html_queries *h)
{
	return h->nnodes == 0;
}

/* ---- building the forest ---- */

static uint32_t
new_node(struct html_queries *h, const struct query_event *q)
{
	struct node *n;

	if (h->nnodes >= NONE || (n = array_slot(&h->nodes, &h->nodecap,
	    (uint32_t)h->nnodes, sizeof(*n))) == NULL)
		return NONE;
	n->ns = q->end - q->start;
	n->label = q->label;
	n->kind_label = query_input_label(&h->in, q->kind_name,
	    strlen(q->kind_name));
	n->child = n->next = NONE;
	n->nchildren = 0;
	n->kind = (uint8_t)q->kind;
	n->instant = q->type == QT_INSTANT;
	return n->kind_label == 0 ? NONE : (uint32_t)h->nnodes++;
}

/* Links pending events into a sibling list; returns the first. */
static uint32_t
link_list(struct html_queries *h, const struct query_pending *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		h->nodes[p[i].node].next = p[i + 1].node;
	if (n > 0)
		h->nodes[p[n - 1].node].next = NONE;
	return n > 0 ? p[0].node : NONE;
}

static int
add_event(struct html_queries *h, const struct query_event *q)
{
	struct query_thread *t;
	const struct query_pending *kids;
	uint32_t id;
	size_t k;

	if (q->type == QT_INTEGER)
		return 0;
	if ((t = query_nest_thread(&h->nest, q->pid, q->tid)) == NULL ||
	    (id = new_node(h, q)) == NONE)
		return -1;
	if (q->type == QT_INTERVAL) {
		k = query_nest_adopt(t, q->start, &kids);
		h->nodes[id].child = link_list(h, kids, k);
		h->nodes[id].nchildren = (uint32_t)k;
	}
	return query_nest_push(t, q->start, q->end, id, q->type == QT_INTERVAL);
}

/* Notes the crate of a process, for the captions of its threads. */
static int
add_process(struct html_queries *h, const struct stream_process *p)
{
	const char *crate;
	size_t len;
	uint32_t id;

	if (h->nprocs == PROCESSES_MAX ||
	    (crate = query_crate_name(p->cmdline, &len)) == NULL)
		return 0;
	if ((id = query_input_label(&h->in, crate, len)) == 0)
		return -1;
	h->procs[h->nprocs].pid = p->pid;
	h->procs[h->nprocs++].crate = id;
	return 0;
}

static uint32_t
crate_of(const struct html_queries *h, uint32_t pid)
{
	size_t i;

	for (i = 0; i < h->nprocs; i++)
		if (h->procs[i].pid == pid)
			return h->procs[i].crate;
	return 0;
}

static int
cmp_tid(const void *pa, const void *pb)
{
	const struct tree *a = pa, *b = pb;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* A profile ends: what no event took are its threads' roots. */
static int
close_section(struct html_queries *h)
{
	size_t i, j, first = h->ntrees;

	for (i = 0; i < h->nest.n; i++) {
		const struct query_thread *t = &h->nest.t[i];
		struct tree *tr;

		if (t->n == 0)
			continue;
		if ((tr = array_slot(&h->trees, &h->treecap,
		    (uint32_t)h->ntrees, sizeof(*tr))) == NULL)
			return -1;
		h->ntrees++;
		tr->pid = t->pid;
		tr->tid = t->tid;
		tr->crate = crate_of(h, t->pid);
		tr->nroots = (uint32_t)t->n;
		tr->first = link_list(h, t->p, t->n);
		tr->ns = 0;
		for (j = 0; j < t->n; j++)
			tr->ns += t->p[j].end - t->p[j].start;
	}
	if (h->ntrees > first)
		qsort(h->trees + first, h->ntrees - first, sizeof(*h->trees),
		    cmp_tid);
	query_nest_clear(&h->nest);
	h->nprocs = 0;
	return 0;
}

int
html_queries_record(struct html_queries *h, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct query_event q;
	int rc = query_input_event(&h->in, r, rec, &q);

	if (rc != 0)
		return rc < 0 ? -1 : add_event(h, &q);
	if (rec->type == REC_HEADER || rec->type == REC_END)
		return close_section(h);
	if (rec->type == REC_PROCESS)
		return add_process(h, &rec->u.process);
	return 0;
}

/* ---- writing ---- */

/* Writes text as a class name: what a class cannot hold becomes '_'. */
static void
class_name(FILE *fp, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = s[i];

		putc((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-' ? c : '_', fp);
	}
}

static const char *
frac_class(double f)
{
	static const struct {
		double above;
		const char *name;
	} steps[] = {
		{ 0.50, "frac-50" }, { 0.40, "frac-40" }, { 0.30, "frac-30" },
		{ 0.20, "frac-20" }, { 0.10, "frac-10" }, { 0.05, "frac-05" },
		{ 0.02, "frac-02" }, { 0.01, "frac-01" }, { 0.001, "frac-001" },
	};
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (f > steps[i].above)
			return steps[i].name;
	return "frac-0";
}

/* The EFF part of a box's classes: what kind of box it is. */
static void
effect_class(const struct html_queries *h, const struct node *n, FILE *fp)
{
	const char *text;
	size_t len;

	if (n->kind == QK_GENERIC) {
		fputs("time-begin", fp);
		return;
	}
	if (n->kind == QK_QUERY || n->kind == QK_CACHE_HIT) {
		text = query_input_text(&h->in, n->label, &len);
		class_name(fp, text, len);
		fputs(n->kind == QK_QUERY ? " miss" : " hit", fp);
		return;
	}
	text = query_input_text(&h->in, n->kind_label, &len);
	class_name(fp, text, len);
}

static int hidden(const struct html_queries *h, uint32_t depth,
    double percent);

/* The children of n that the thresholds leave out. */
static uint32_t
folded_away(const struct html_queries *h, const struct node *n,
    uint32_t depth, int64_t total)
{
	uint32_t id, k = 0;

	for (id = n->child; id != NONE; id = h->nodes[id].next)
		k += hidden(h, depth + 1, total > 0 ? (double)h->nodes[id].ns *
		    100.0 / (double)total : 0.0);
	return k;
}

static void
write_open(const struct html_queries *h, FILE *fp, const struct node *n,
    uint32_t depth, int64_t total)
{
	double f = total > 0 ? (double)n->ns / (double)total : 0.0;
	uint32_t away = folded_away(h, n, depth, total);
	const char *text;
	size_t len;

	fprintf(fp, "<div class=\"trace depth-%u extent-%u%s ", depth,
	    n->nchildren, n->nchildren > 5 || f * 100.0 >= 1.0 ?
	    " important" : "");
	effect_class(h, n, fp);
	/* The tooltip: name, time, share, and what is folded away. */
	fprintf(fp, "  %s\" title=\"", frac_class(f));
	text = query_input_text(&h->in, n->label, &len);
	markup_text(fp, text, len);
	fprintf(fp, ": %.6f s, %.2f%%", (double)n->ns / 1e9, f * 100.0);
	if (away > 0)
		fprintf(fp, "; %u of its %u boxes folded away", away,
		    n->nchildren);
	fputs("\">\n<div class=\"eff\">", fp);
	text = query_input_text(&h->in, n->label, &len);
	markup_text(fp, text, len);
	fprintf(fp, "</div>\n<div class=\"dur\">%.3f</div>\n"
	    "<div class=\"frc\">", (double)n->ns / 1e9);
	if (f * 100.0 > 0.1)
		fprintf(fp, "%.1f%%</div>\n", f * 100.0);
	else
		fputs("&lt; 0.1%</div>\n", fp);
}

static struct frame *
reserve(struct html_queries *h, size_t n)
{
	if (h->stackcap - h->nstack < n) {
		size_t cap = h->stackcap ? h->stackcap : 1024;
		struct frame *s;

		while (cap - h->nstack < n)
			cap *= 2;
		if ((s = realloc(h->stack, cap * sizeof(*s))) == NULL)
			return NULL;
		h->stack = s;
		h->stackcap = cap;
	}
	return h->stack + h->nstack;
}

/* Pushes a sibling list so that its first comes off the stack first. */
static int
push_list(struct html_queries *h, uint32_t first, uint32_t count,
    uint32_t depth)
{
	struct frame *f = reserve(h, count);
	uint32_t id, i = count;

	if (f == NULL)
		return -1;
	for (id = first; id != NONE && i > 0; id = h->nodes[id].next) {
		i--;
		f[i].node = id;
		f[i].depth = depth;
		f[i].close = 0;
	}
	h->nstack += count;
	return 0;
}

static int
hidden(const struct html_queries *h, uint32_t depth,
    double percent)
{
	return (h->opt.max_depth > 0 && depth >= (uint32_t)h->opt.max_depth) ||
	    percent < h->opt.min_percent;
}

static void
write_caption(const struct html_queries *h, FILE *fp, const struct tree *tr)
{
	const char *crate;
	size_t len;

	fprintf(fp, "<div class=\"caption\">process %u", tr->pid);
	if (tr->crate != 0) {
		crate = query_input_text(&h->in, tr->crate, &len);
		fputs(" (", fp);
		markup_text(fp, crate, len);
		fputs(")", fp);
	}
	fprintf(fp, ", thread %u: %.3f s in %u top-level events</div>\n",
	    tr->tid, (double)tr->ns / 1e9, tr->nroots);
}

/*
 * Writes one thread's boxes, depth first, without recursion; its caption
 * comes before the first box drawn, so that a thread the thresholds leave
 * empty takes no room.
 */
static int
write_tree(struct html_queries *h, FILE *fp, const struct tree *tr,
    int64_t total)
{
	uint64_t drawn = h->drawn;

	if (push_list(h, tr->first, tr->nroots, 0) != 0)
		return -1;
	while (h->nstack > 0) {
		struct frame f = h->stack[--h->nstack];
		const struct node *n = &h->nodes[f.node];
		struct frame *c;

		if (f.close) {
			fputs("</div>\n", fp);
			continue;
		}
		if (hidden(h, f.depth, total > 0 ?
		    (double)n->ns * 100.0 / (double)total : 0.0))
			continue;
		if (h->drawn++ == drawn)
			write_caption(h, fp, tr);
		write_open(h, fp, n, f.depth, total);
		if ((c = reserve(h, 1)) == NULL)
			return -1;
		c->node = f.node;
		c->close = 1;
		h->nstack++;
		if (push_list(h, n->child, n->nchildren, f.depth + 1) != 0)
			return -1;
	}
	return 0;
}

static void
write_head(const struct html_queries *h, FILE *fp)
{
	const char *title = h->opt.title ? h->opt.title : "rustc query trace";

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>", fp);
	markup_text(fp, title, strlen(title));
	/* The old page linked a profile_queries.css; this one stands alone. */
	fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
	    style);
	markup_text(fp, title, strlen(title));
	fputs("</h1>\n<div id=\"note\">Each box is a query run (red), an "
	    "activity (green) or a cache hit (blue dot), holding what it "
	    "called; labelled boxes take at least 1% of the time or hold more "
	    "than 5 boxes.", fp);
	if (h->opt.min_percent > 0)
		fprintf(fp, " Boxes under %g%% of the time are folded away "
		    "(<code>etlreport --min-percent 0</code> shows all).",
		    h->opt.min_percent);
	fputs(" Click a box to fold what it holds; hover for its time."
	    "</div>\n", fp);
}

static void
write_note(const struct html_queries *h, FILE *fp)
{
	uint64_t left = h->nnodes - h->drawn;

	if (left == 0)
		return;
	fprintf(fp, "<div class=\"caption\">%llu of %llu boxes are not shown",
	    (unsigned long long)left, (unsigned long long)h->nnodes);
	if (h->opt.max_depth > 0)
		fprintf(fp, "; depth shown: %d", h->opt.max_depth);
	if (h->opt.min_percent > 0)
		fprintf(fp, "; boxes under %g%% of the time left out",
		    h->opt.min_percent);
	fputs("</div>\n", fp);
}

int
html_queries_write(struct html_queries *h, FILE *fp)
{
	int64_t total = 0;
	size_t i;

	if (close_section(h) != 0)
		return -1;
	for (i = 0; i < h->ntrees; i++)
		total += h->trees[i].ns;
	write_head(h, fp);
	render_loss_note(fp, &h->opt, 1, "<p id=\"lossy\" "
	    "style=\"color:#b00000\">Warning: ", "</p>\n");
	render_missing_note(fp, &h->opt, 1, "<p id=\"missing\" "
	    "style=\"color:#b00000\">Note: ", "</p>\n");
	h->drawn = 0;
	for (i = 0; i < h->ntrees; i++)
		if (write_tree(h, fp, &h->trees[i], total) != 0)
			return -1;
	write_note(h, fp);
	fprintf(fp, "<script>\n%s</script>\n</body>\n</html>\n", script);
	return ferror(fp) ? -1 : 0;
}
