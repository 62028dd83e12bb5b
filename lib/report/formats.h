/*
 * formats.h - the table of etlreport's output formats, by name.  It sits
 * in report/, above every renderer, since it names them all, the report
 * (render_report.c) with the formats of render/ (render/render.h).
 */
#ifndef FORMATS_H
#define FORMATS_H

#include <stdio.h>

#include "render/render.h"

struct render_format {
	const char *name;
	const char *summary;
	const struct render_ops *ops;
};

/* The format named `name`, or NULL. */
const struct render_format *render_find(const char *name);

/* Lists the formats, one a line, for usage messages. */
void render_list(FILE *fp);

#endif
