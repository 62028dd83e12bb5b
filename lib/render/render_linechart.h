/*
 * render_linechart.h - a line chart of a time-series table, for the svg
 * format: WPA's "Outstanding Commit" graph from `etlagg vmem --timeline`.
 *
 * A time-series table has a first column named "time" of type VAL_NS;
 * its value is its last integer column; every other column (but those
 * two) names the series a row belongs to, so that two lives of a reused
 * pid are two lines; the "process" column, if any, labels them.  A
 * series' peak is its largest value, exactly as the table gives it, at
 * the time of the first row that has it (vmem's timeline holds each
 * process's exact peak as a row).  The series with the highest peaks
 * are drawn in colour, a dot at each peak, and labelled in a legend with
 * the peak and its time; the rest in grey.
 *
 * Memory: the chart copies what it keeps.
 */
#ifndef RENDER_LINECHART_H
#define RENDER_LINECHART_H

#include <stdio.h>

#include "stream/stream.h"
#include "render.h"

struct linechart;

/* @return : NULL if out of memory. */
struct linechart *linechart_new(void);
void linechart_free(struct linechart *lc);

/* Takes in a record.  @return : 0, or -1 if out of memory. */
int linechart_record(struct linechart *lc, const struct stream_record *rec);

/* Whether a time-series table was seen. */
int linechart_has_table(const struct linechart *lc);

/* Draws the chart.  @return : 0, or -1 on a write error. */
int linechart_draw(struct linechart *lc, FILE *fp,
    const struct render_options *opt);

#endif
