/*
 * formats.c - the table of output formats (formats.h).
 */
#include <string.h>

#include "formats.h"
#include "render_report.h"

static const struct render_format formats[] = {
	{ "text", "aligned columns for a terminal (the default)",
	    &render_table_ops },
	{ "csv", "RFC 4180 CSV with a header row", &render_table_ops },
	{ "jsonl", "one JSON object a row", &render_table_ops },
	{ "counts", "rustc queries as profile_queries.counts.txt",
	    &render_counts_ops },
	{ "chrome", "rustc queries (as crox) and thread timelines as "
	    "Chrome trace JSON", &render_chrome_ops },
	{ "folded", "collapsed stacks of the stack tables, or rustc queries",
	    &render_folded_ops },
	{ "svg", "a flame graph of the same stacks", &render_svg_ops },
	{ "speedscope", "the same stacks for speedscope, a profile a "
	    "process", &render_speedscope_ops },
	{ "html", "process tree timeline, rustc query page, or a report "
	    "of several tables", &render_report_ops },
	{ "xlsx", "an Excel workbook, a sheet a table (needs -o)",
	    &render_xlsx_ops },
};

const struct render_format *
render_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

void
render_list(FILE *fp)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		fprintf(fp, "  %-10s %s\n", formats[i].name, formats[i].summary);
}
