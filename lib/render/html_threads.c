/*
 * html_threads.c - the per-thread timeline of running, ready and waiting
 * time, from etlagg switches (see html_threads.h).  A lane is a thread
 * of a process instance: its tid, pid and the switches table's
 * new_process ("crate (pid)", with the start of a reused pid), so that
 * a tid that two lives of one pid had is two lanes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "html_threads.h"
#include "markup.h"

#define LANES_MAX	4096	/* threads drawn */
#define ROW_PX		18
#define LABEL_PX	220
#define WIDTH_PX	1200

enum col {
	C_TIME, C_TID, C_PID, C_IMAGE, C_PROCESS, C_LAST_OUT, C_READY_TIME,
	C_REASON, C_STATE, C_READIER_TID, C_READIER_IMAGE, C_NEXT_OUT,
	C_STACK, C_NCOLS
};

static const char *const col_names[C_NCOLS] = {
	"time", "new_tid", "new_pid", "new_image", "new_process",
	"last_switch_out", "ready_time", "new_prev_wait_reason",
	"new_prev_state", "readying_tid", "readying_image", "next_switch_out",
	"wait_stack"
};

enum band_kind { RUNNING, READY, WAITING };

static const char *const kind_names[] = { "running", "ready", "waiting" };

struct band {
	uint32_t lane;
	uint32_t kind;
	int64_t a, b;
	size_t text, text_len;		/* the tooltip's details, in texts */
};

struct lane {
	uint32_t tid;
	char name[128];			/* its process: "crate (pid)" */
};

struct html_threads {
	struct render_options opt;
	stream_id table;
	int cols[C_NCOLS];
	struct buf bands, texts;
	struct lane lanes[LANES_MAX];
	uint32_t nlanes;
	struct intern lane_keys;	/* tid, pid, process -> lane + 1 */
	uint64_t left_out;		/* bands of threads past LANES_MAX */
	int saw;
};

struct html_threads *
html_threads_new(const struct render_options *opt)
{
	struct html_threads *h = calloc(1, sizeof(*h));

	if (h != NULL)
		h->opt = *opt;
	return h;
}

void
html_threads_free(struct html_threads *h)
{
	if (h == NULL)
		return;
	buf_release(&h->bands);
	buf_release(&h->texts);
	intern_release(&h->lane_keys);
	free(h);
}

int
html_threads_empty(const struct html_threads *h)
{
	return !h->saw;
}

static const struct value *
cell(const struct html_threads *h, const struct stream_row *row, enum col k)
{
	int c = h->cols[k];

	if (c < 0 || (size_t)c >= row->ncells || row->cells[c].type == VAL_NULL)
		return NULL;
	return &row->cells[c];
}

static uint32_t
lane_of(struct html_threads *h, const struct stream_row *row)
{
	const struct value *tid = cell(h, row, C_TID), *pid = cell(h, row,
	    C_PID), *img = cell(h, row, C_IMAGE), *proc = cell(h, row,
	    C_PROCESS);
	uint32_t key[2] = { tid ? (uint32_t)tid->v.u : 0,
	    pid ? (uint32_t)pid->v.u : 0 };
	char k[sizeof(key) + 128];
	size_t n = proc != NULL && proc->v.s.len < 128 ? proc->v.s.len : 0;
	struct lane *l;
	uint32_t id;
	int added;

	memcpy(k, key, sizeof(key));
	if (proc != NULL)
		memcpy(k + sizeof(key), proc->v.s.ptr, n);
	if ((id = intern_add(&h->lane_keys, k, sizeof(key) + n, &added)) ==
	    0 || id > LANES_MAX)
		return UINT32_MAX;
	if (!added)
		return id - 1;
	l = &h->lanes[h->nlanes];
	l->tid = key[0];
	if (proc != NULL)
		snprintf(l->name, sizeof(l->name), "%.*s", (int)n,
		    proc->v.s.ptr);
	else
		snprintf(l->name, sizeof(l->name), "%.*s (%" PRIu32 ")",
		    img ? (int)(img->v.s.len < 96 ? img->v.s.len : 96) : 0,
		    img ? img->v.s.ptr : "", key[1]);
	return h->nlanes++;
}

static void
add_band(struct html_threads *h, uint32_t lane, enum band_kind kind,
    int64_t a, int64_t b, const char *text, size_t len)
{
	struct band bd = { lane, kind, a, b, h->texts.len, len };

	if (b < a)
		return;
	buf_put(&h->texts, text, len);
	buf_put(&h->bands, &bd, sizeof(bd));
}

static int
add_row(struct html_threads *h, const struct stream_row *row)
{
	const struct value *t = cell(h, row, C_TIME), *out = cell(h, row,
	    C_LAST_OUT), *rt = cell(h, row, C_READY_TIME), *next = cell(h,
	    row, C_NEXT_OUT), *v;
	uint32_t lane;
	char text[8192];
	size_t n;

	if (t == NULL)
		return 0;
	if ((lane = lane_of(h, row)) == UINT32_MAX) {
		h->left_out++;
		return 0;
	}
	if (next != NULL)
		add_band(h, lane, RUNNING, t->v.i, next->v.i, "", 0);
	if (out != NULL && rt != NULL) {
		v = cell(h, row, C_READIER_TID);
		n = (size_t)snprintf(text, sizeof(text), "readied by %s%.*s%s",
		    v ? "" : "(no ReadyThread: preempted)",
		    cell(h, row, C_READIER_IMAGE) ? (int)cell(h, row,
		    C_READIER_IMAGE)->v.s.len : 0, cell(h, row,
		    C_READIER_IMAGE) ? cell(h, row, C_READIER_IMAGE)->v.s.ptr :
		    "", "");
		if (v != NULL && n < sizeof(text))
			n += (size_t)snprintf(text + n, sizeof(text) - n,
			    " thread %" PRIu64, v->v.u);
		add_band(h, lane, READY, rt->v.i, t->v.i, text,
		    n < sizeof(text) ? n : sizeof(text) - 1);
		v = cell(h, row, C_REASON);
		if (v == NULL)
			v = cell(h, row, C_STATE);
		n = (size_t)snprintf(text, sizeof(text), "%.*s",
		    v ? (int)v->v.s.len : 0, v ? v->v.s.ptr : "");
		if ((v = cell(h, row, C_STACK)) != NULL && n < sizeof(text))
			n += (size_t)snprintf(text + n, sizeof(text) - n,
			    "\nwait stack (root first):\n%.*s", (int)v->v.s.len,
			    v->v.s.ptr);
		add_band(h, lane, WAITING, out->v.i, rt->v.i, text,
		    n < sizeof(text) ? n : sizeof(text) - 1);
	}
	return h->bands.oom || h->texts.oom ? -1 : 0;
}

int
html_threads_record(struct html_threads *h, const struct stream_reader *r,
    const struct stream_record *rec)
{
	size_t c;
	int k;

	(void)r;
	switch (rec->type) {
	case REC_HEADER:
		h->table = 0;
		return 0;
	case REC_TABLE:
		h->table = 0;
		if (strcmp(rec->u.table.name, "switches") != 0)
			return 0;
		h->table = rec->u.table.id;
		h->saw = 1;
		for (k = 0; k < C_NCOLS; k++) {
			h->cols[k] = -1;
			for (c = 0; c < rec->u.table.ncols; c++)
				if (strcmp(rec->u.table.cols[c].name,
				    col_names[k]) == 0)
					h->cols[k] = (int)c;
		}
		return 0;
	case REC_ROW:
		if (h->table == 0 || rec->u.row.table != h->table)
			return 0;
		return add_row(h, &rec->u.row);
	default:
		return 0;
	}
}

static const char style[] =
    "body{font:13px sans-serif;margin:1em}"
    "svg text{font:12px sans-serif}"
    ".running{fill:#3a7}.ready{fill:#e93}.waiting{fill:#bbb}"
    "rect:hover{stroke:#000;stroke-width:1}"
    ".legend span{display:inline-block;width:1em;height:1em;"
    "margin:0 .3em 0 1em;vertical-align:middle}\n";

/* Text for a <title>: newlines kept, the rest escaped. */
static void
title(FILE *fp, const char *s, size_t len)
{
	size_t i, start = 0;

	for (i = 0; i <= len; i++)
		if (i == len || s[i] == '\n') {
			markup_text(fp, s + start, i - start);
			if (i < len)
				fputs("&#10;", fp);
			start = i + 1;
		}
}

int
html_threads_write(struct html_threads *h, FILE *fp)
{
	const char *name = h->opt.title ? h->opt.title : "Thread timeline";
	const struct band *b = (const struct band *)h->bands.data;
	size_t n = h->bands.len / sizeof(*b), i;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	double scale, step;
	uint32_t l;

	for (i = 0; i < n; i++) {
		if (b[i].a < t0)
			t0 = b[i].a;
		if (b[i].b > t1)
			t1 = b[i].b;
	}
	if (n == 0 || t1 <= t0) {
		t0 = 0;
		t1 = 1000000;
	}
	scale = (double)WIDTH_PX / (double)(t1 - t0);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>", fp);
	markup_text(fp, name, strlen(name));
	fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
	    style);
	markup_text(fp, name, strlen(name));
	fprintf(fp, "</h1>\n<div class=\"legend\">%" PRIu32 " threads, "
	    "%.6f s to %.6f s from the start of the trace%s; hover a band for "
	    "its times, a waiting band for the wait stack."
	    "<span class=\"running\" style=\"background:#3a7\"></span>running"
	    "<span style=\"background:#e93\"></span>ready (waiting for a CPU)"
	    "<span style=\"background:#bbb\"></span>waiting</div>\n",
	    h->nlanes, t0 / 1e9, t1 / 1e9, h->left_out ?
	    " (more threads left out)" : "");
	render_missing_note(fp, &h->opt, 1, "<p id=\"missing\" "
	    "style=\"color:#b00000\">Note: ", "</p>\n");
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%" PRIu32 "\">\n", LABEL_PX + WIDTH_PX + 20,
	    (h->nlanes + 2) * ROW_PX);
	step = pow(10, floor(log10((t1 - t0) / 1e9)));
	if ((t1 - t0) / 1e9 / step < 4)
		step /= 5;
	for (double t = ceil(t0 / 1e9 / step) * step; t <= t1 / 1e9;
	    t += step)
		fprintf(fp, "<text x=\"%.1f\" y=\"12\">%g s</text>\n",
		    LABEL_PX + (t * 1e9 - t0) * scale, t);
	for (l = 0; l < h->nlanes; l++) {
		fprintf(fp, "<text x=\"0\" y=\"%" PRIu32 "\">",
		    (l + 2) * ROW_PX - 5);
		markup_text(fp, h->lanes[l].name, strlen(h->lanes[l].name));
		fprintf(fp, " %" PRIu32 "</text>\n", h->lanes[l].tid);
	}
	for (i = 0; i < n; i++) {
		double x = LABEL_PX + (b[i].a - t0) * scale;
		double w = (b[i].b - b[i].a) * scale;

		fprintf(fp, "<rect class=\"%s\" x=\"%.2f\" y=\"%" PRIu32 "\" "
		    "width=\"%.2f\" height=\"%d\"><title>%s %.3f ms at %.6f s",
		    kind_names[b[i].kind], x, (b[i].lane + 1) * ROW_PX + 2,
		    w < 0.5 ? 0.5 : w, ROW_PX - 4, kind_names[b[i].kind],
		    (b[i].b - b[i].a) / 1e6, b[i].a / 1e9);
		if (b[i].text_len > 0) {
			fputs("&#10;", fp);
			title(fp, (const char *)h->texts.data + b[i].text,
			    b[i].text_len);
		}
		fputs("</title></rect>\n", fp);
	}
	fputs("</svg>\n</body>\n</html>\n", fp);
	return ferror(fp) ? -1 : 0;
}
