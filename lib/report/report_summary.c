/*
 * report_summary.c - the machines and the comparison of the report's
 * Summary tab (report_summary.h).  The sysconfig rows are kept as text,
 * a row a trace; the samples of a diff are the sums of the first table
 * that has samples_base and samples (all the CPU tables of one pass add
 * up to the same).
 */
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"
#include "out/out_scale.h"
#include "render/markup.h"
#include "report_summary.h"

#define TRACES_MAX	8	/* sysconfig rows shown */
#define FIELDS_MAX	64
#define CELL_MAX	512

/* What makes two traces come from different machines or systems. */
static const char *const machine_fields[] = {
	"computer", "os_version", "os_build", "cpus", "cpu_mhz", "memory",
	"pointer_size", NULL
};

struct report_summary {
	/*
	 * sysconfig: its columns, each row's cells as text (to compare)
	 * and its figures (to show in a unit a column, out_scale.h).
	 */
	stream_id sys_table;
	size_t ncols;
	char *names[FIELDS_MAX], *units[FIELDS_MAX];
	enum value_type types[FIELDS_MAX];
	char *cells[TRACES_MAX][FIELDS_MAX];	/* NULL: empty */
	struct value figures[TRACES_MAX][FIELDS_MAX];
	size_t ntraces, more_traces;
	/* The first diff table with samples: where they are, their sums. */
	stream_id diff_table;
	int base_col, new_col, seen_diff, done_diff;
	double base_samples, new_samples;
};

struct report_summary *
report_summary_new(void)
{
	return calloc(1, sizeof(struct report_summary));
}

void
report_summary_free(struct report_summary *s)
{
	size_t i, j;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncols; i++) {
		free(s->names[i]);
		free(s->units[i]);
	}
	for (i = 0; i < s->ntraces; i++)
		for (j = 0; j < s->ncols; j++)
			free(s->cells[i][j]);
	free(s);
}

static int
col_of(const struct stream_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int
take_table(struct report_summary *s, const struct stream_table *t)
{
	size_t i;

	if (strcmp(t->name, "sysconfig") == 0) {
		/* The rows of later ones go on under the first's names. */
		s->sys_table = t->id;
		if (s->ncols > 0)
			return 0;
		for (i = 0; i < t->ncols && i < FIELDS_MAX; i++) {
			const struct stream_column *c = &t->cols[i];

			s->types[s->ncols] = c->type;
			if ((s->names[s->ncols] = platform_strndup(c->name,
			    strlen(c->name))) == NULL ||
			    (s->units[s->ncols++] = platform_strndup(c->unit,
			    strlen(c->unit))) == NULL)
				return -1;
		}
		return 0;
	}
	if (!s->seen_diff && col_of(t, "samples_base") >= 0 &&
	    col_of(t, "samples") >= 0) {
		s->seen_diff = 1;
		s->diff_table = t->id;
		s->base_col = col_of(t, "samples_base");
		s->new_col = col_of(t, "samples");
	}
	return 0;
}

static int
take_row(struct report_summary *s, const struct stream_row *r)
{
	char cell[CELL_MAX];
	size_t i, len;

	if (s->sys_table != 0 && r->table == s->sys_table &&
	    r->ncells >= s->ncols) {
		if (s->ntraces == TRACES_MAX) {
			s->more_traces++;
			return 0;
		}
		for (i = 0; i < s->ncols; i++) {
			if (r->cells[i].type == VAL_NULL)
				continue;
			if (r->cells[i].type != VAL_STR &&
			    r->cells[i].type != VAL_BYTES &&
			    r->cells[i].type != VAL_GUID)
				s->figures[s->ntraces][i] = r->cells[i];
			len = value_format(&r->cells[i], cell, sizeof(cell));
			if (len >= sizeof(cell))
				len = sizeof(cell) - 1;
			if ((s->cells[s->ntraces][i] = platform_strndup(cell, len)) == NULL)
				return -1;
		}
		s->ntraces++;
	} else if (s->seen_diff && !s->done_diff && r->table == s->diff_table &&
	    (size_t)s->base_col < r->ncells && (size_t)s->new_col < r->ncells) {
		s->base_samples += value_number(&r->cells[s->base_col]);
		s->new_samples += value_number(&r->cells[s->new_col]);
	}
	return 0;
}

int
report_summary_record(struct report_summary *s,
    const struct stream_record *rec)
{
	switch (rec->type) {
	case REC_TABLE:
		return take_table(s, &rec->u.table);
	case REC_ROW:
		return take_row(s, &rec->u.row);
	case REC_HEADER:
	case REC_END:
		/* The diff table's section is over: its sums are made. */
		if (s->seen_diff)
			s->done_diff = 1;
		/* Table ids are per section; 0 names no table. */
		s->sys_table = s->diff_table = 0;
		return 0;
	default:
		return 0;
	}
}

static int
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL &&
	    strcmp(a, b) == 0);
}

static void
put(FILE *fp, const char *s)
{
	markup_text(fp, s, strlen(s));
}

/* The fields of the machine that differ between the traces, said. */
static void
write_machine_check(const struct report_summary *s, FILE *fp)
{
	size_t i, t, k;
	int differ = 0;

	for (k = 0; machine_fields[k] != NULL; k++)
		for (i = 0; i < s->ncols; i++) {
			if (strcmp(s->names[i], machine_fields[k]) != 0)
				continue;
			for (t = 1; t < s->ntraces; t++)
				if (!same(s->cells[0][i], s->cells[t][i]))
					break;
			if (t == s->ntraces)
				continue;
			fputs(differ++ ? ", " : "<p class=\"lossy\">Warning: "
			    "the traces were recorded on different machines "
			    "or systems, so their figures differ for that "
			    "reason too: ", fp);
			put(fp, machine_fields[k]);
		}
	if (differ)
		fputs(".</p>\n", fp);
	else if (s->ntraces > 1)
		fputs("<p>The traces come from one machine and system.</p>\n",
		    fp);
}

/* Row i of the machines: its name and unit, a cell a trace. */
static void
write_machine_row(const struct report_summary *s, size_t i, FILE *fp)
{
	struct out_column col = { s->names[i], s->types[i], s->units[i] };
	struct out_scale sc;
	char text[CELL_MAX];
	size_t t;

	out_scale_init(&sc, &col);
	for (t = 0; t < s->ntraces; t++)
		out_scale_see(&sc, &s->figures[t][i]);
	out_scale_choose(&sc);
	fputs("<tr><th>", fp);
	put(fp, out_scale_header(&col, &sc, text, sizeof(text)));
	fputs("</th>", fp);
	for (t = 0; t < s->ntraces; t++) {
		fputs("<td>", fp);
		if (s->figures[t][i].type != VAL_NULL) {
			out_scale_format(&sc, &s->figures[t][i], text,
			    sizeof(text));
			put(fp, text);
		} else if (s->cells[t][i] != NULL)
			put(fp, s->cells[t][i]);
		fputs("</td>", fp);
	}
	fputs("</tr>\n", fp);
}

static void
write_machines(const struct report_summary *s, FILE *fp)
{
	size_t i, t;

	if (s->ntraces == 0) {
		fputs("<p class=\"lacking\">The stream holds no sysconfig "
		    "table (etlagg sysconfig).</p>\n", fp);
		return;
	}
	fputs("<table class=\"sys\">", fp);
	for (i = 0; i < s->ncols; i++) {
		for (t = 0; t < s->ntraces && s->cells[t][i] == NULL; t++)
			;
		if (t < s->ntraces)	/* not empty in every trace */
			write_machine_row(s, i, fp);
	}
	fputs("</table>\n", fp);
	if (s->more_traces > 0)
		fprintf(fp, "<p class=\"cut\">%zu more traces left out.</p>\n",
		    s->more_traces);
	write_machine_check(s, fp);
}

void
report_summary_write(const struct report_summary *s, FILE *fp)
{
	write_machines(s, fp);
	if (!s->seen_diff)
		return;
	fprintf(fp, "<h2>Compared with the baseline</h2>\n<p>CPU samples: "
	    "%.0f in the baseline, %.0f in this build.  Each table shows a "
	    "figure X as &ldquo;X base&rdquo;, X and &ldquo;X delta&rdquo; "
	    "(X_base, X and X_delta in CSV); a row of one build only "
	    "has the other's figures empty.  A row's change counts as "
	    "noise (within noise) when the change in its share of the "
	    "samples, scaled to this build's total, is at most twice its "
	    "binomial standard error; with few samples, only large changes "
	    "are more than noise.</p>\n", s->base_samples, s->new_samples);
}
