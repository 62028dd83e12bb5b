/*
 * render_folded.c - "etlreport -f folded": Brendan Gregg's collapsed
 * stacks, one line a stack: the frames root first, joined by ';', a
 * space and the weight, as stackcollapse-perf.pl writes them for
 * flamegraph.pl, inferno and speedscope.  Drawn from every table with a
 * stack column (see stackrows.h), equal stacks added up, lines in byte
 * order of their stacks.  Stacks of weight 0 stay, as measureme's
 * stack_collapse writes them (flame graph tools ignore them); empty
 * tables give an empty output.  A line break in a stack, which would end
 * its line, is written as a space.  The stacks of an etlagg --diff table
 * have two counts, the base's then the input's ("stack 12 15"), the
 * format of difffolded.pl that flamegraph.pl and inferno-flamegraph
 * draw as a differential flame graph.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "model/stackrows.h"
#include "render.h"

struct render {
	FILE *fp;
	struct stackrows *rows;
};

static struct render *
folded_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)format;
	(void)opt;
	if (rd == NULL)
		return NULL;
	rd->fp = fp;
	if ((rd->rows = stackrows_new()) == NULL) {
		free(rd);
		return NULL;
	}
	return rd;
}

static int
folded_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	return stackrows_record(rd->rows, r, rec);
}

/*
 * Writes a line, its line breaks as spaces: runs between them at once.
 * A diff's line has two counts, the base's and the input's, as
 * difffolded.pl writes them and flamegraph.pl and inferno read them.
 */
static void
write_line(FILE *fp, const char *stack, size_t len, const uint64_t *base,
    uint64_t weight)
{
	size_t i, from = 0;

	for (i = 0; i < len; i++) {
		if (stack[i] != '\n' && stack[i] != '\r')
			continue;
		fwrite(stack + from, 1, i - from, fp);
		putc(' ', fp);
		from = i + 1;
	}
	fwrite(stack + from, 1, len - from, fp);
	if (base != NULL)
		fprintf(fp, " %" PRIu64, *base);
	fprintf(fp, " %" PRIu64 "\n", weight);
}

static int
write_all(struct render *rd)
{
	uint32_t *ids = stackrows_sorted(rd->rows), i;
	const char *stack;
	size_t len;

	if (ids == NULL)
		return -1;
	for (i = 0; i < stackrows_count(rd->rows); i++) {
		uint64_t base = stackrows_base(rd->rows, ids[i]);

		stack = stackrows_stack(rd->rows, ids[i], &len);
		write_line(rd->fp, stack, len, stackrows_is_diff(rd->rows) ?
		    &base : NULL, stackrows_weight(rd->rows, ids[i]));
	}
	free(ids);
	return ferror(rd->fp) ? -1 : 0;
}

static int
folded_close(struct render *rd)
{
	int rc = stackrows_finish(rd->rows) != 0 ? -1 :
	    stackrows_tables(rd->rows) == 0 ? 1 : write_all(rd);

	if (fflush(rd->fp) != 0)
		rc = -1;
	stackrows_free(rd->rows);
	free(rd);
	return rc;
}

const struct render_ops render_folded_ops = {
	/* A profile's query stacks are drawn by label. */
	.reader_flags = STREAM_QUERY_LABELS,
	.open = folded_open,
	.record = folded_record,
	.close = folded_close,
	.nothing = "no table with a stack column and an integer weight column",
};
