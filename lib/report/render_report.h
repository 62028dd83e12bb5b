/*
 * render_report.h - "etlreport -f html": the report of several tables,
 * a tab a question (render_report.c), or one table's page of
 * render_html.c.  A format of render/render.h, kept in report/ because
 * it draws its pictures with the other formats' ops.
 */
#ifndef RENDER_REPORT_H
#define RENDER_REPORT_H

#include "render/render.h"

extern const struct render_ops render_report_ops;

#endif
