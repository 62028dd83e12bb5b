/*
 * render_counts.c - "etlreport -f counts": the profile_queries.counts.txt
 * that rustc's old -Z profile-queries wrote (measureme-format.md 12.1),
 * rebuilt from self-profile events.
 *
 * One line per query, "provider,count,duration" with no spaces and no
 * header, by falling duration (then by name).  count is how often the
 * query was asked for: provider runs (Query intervals), loads from the
 * incremental cache (IncrementalLoadResult intervals) and cache hits,
 * counted as summarize counts them; duration is the seconds of the runs
 * and loads, inclusive, with 3 decimals.  Needs the events (etlcat's
 * output), not etlagg's tables, which do not tell queries from other
 * activities.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "mmprof/mmprof_decode.h"
#include "render.h"

struct count {
	uint64_t asked, hits, pending_hits;
	int64_t ns;
	int is_row;
};

struct render {
	FILE *fp;
	struct query_input in;
	struct count *rows;	/* by label id */
	size_t cap;
};

static struct render *
counts_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)format;
	(void)opt;
	if (rd != NULL)
		rd->fp = fp;
	return rd;
}

/* A profile ends: hits not followed by a count of their label count. */
static void
close_section(struct render *rd)
{
	size_t i;

	for (i = 0; i < rd->cap; i++) {
		rd->rows[i].hits += rd->rows[i].pending_hits;
		rd->rows[i].pending_hits = 0;
	}
}

static int
add_event(struct render *rd, const struct query_event *q)
{
	struct count *c = array_slot(&rd->rows, &rd->cap, q->label,
	    sizeof(*c));

	if (c == NULL)
		return -1;
	if (q->type == QT_INTERVAL && (q->kind == QK_QUERY ||
	    q->kind == QK_LOAD)) {
		c->is_row = 1;
		c->asked++;
		c->ns += q->end - q->start;
	} else if (q->type == QT_INSTANT && q->kind == QK_CACHE_HIT) {
		c->is_row = 1;
		c->pending_hits++;
	} else if (q->type == QT_INTEGER && q->kind == QK_HIT_COUNT) {
		c->is_row = 1;
		c->hits += q->value;
		c->pending_hits = 0;
	}
	return 0;
}

static int
counts_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct query_event q;
	int rc = query_input_event(&rd->in, r, rec, &q);

	if (rc != 0)
		return rc < 0 ? -1 : add_event(rd, &q);
	if (rec->type == REC_HEADER || rec->type == REC_END)
		close_section(rd);
	return 0;
}

struct line {
	int64_t ns;
	uint32_t label;
	const struct query_input *in;
};

static int
cmp_lines(const void *pa, const void *pb)
{
	const struct line *a = pa, *b = pb;
	size_t la, lb;
	const char *x, *y;
	int c;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	x = query_input_text(a->in, a->label, &la);
	y = query_input_text(b->in, b->label, &lb);
	c = memcmp(x, y, la < lb ? la : lb);
	return c != 0 ? c : (la > lb) - (la < lb);
}

static int
write_lines(struct render *rd, struct line *lines, size_t n)
{
	const char *text;
	size_t i, len;

	qsort(lines, n, sizeof(*lines), cmp_lines);
	for (i = 0; i < n; i++) {
		const struct count *c = &rd->rows[lines[i].label];

		text = query_input_text(&rd->in, lines[i].label, &len);
		fprintf(rd->fp, "%.*s,%" PRIu64 ",%.3f\n", (int)len, text,
		    c->asked + c->hits, (double)c->ns / 1e9);
	}
	return ferror(rd->fp) ? -1 : 0;
}

static int
counts_close(struct render *rd)
{
	struct line *lines = calloc(rd->cap + 1, sizeof(*lines));
	size_t i, n = 0;
	int rc = -1;

	close_section(rd);
	if (lines != NULL) {
		for (i = 0; i < rd->cap; i++) {
			if (!rd->rows[i].is_row)
				continue;
			lines[n].ns = rd->rows[i].ns;
			lines[n].label = (uint32_t)i;
			lines[n++].in = &rd->in;
		}
		rc = n == 0 ? 1 : write_lines(rd, lines, n);
	}
	free(lines);
	query_input_release(&rd->in);
	free(rd->rows);
	free(rd);
	return rc;
}

const struct render_ops render_counts_ops = {
	/* A profile's queries are drawn by label. */
	.reader_flags = STREAM_QUERY_LABELS,
	.open = counts_open,
	.record = counts_record,
	.close = counts_close,
	.nothing = "no rustc query events (give it etlcat's output of a "
	    ".mm_profdata file)",
};
