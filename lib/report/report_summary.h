/*
 * report_summary.h - what the Summary tab of the build report
 * (render_report.c) says of the machines and of a comparison: the
 * sysconfig rows side by side, one column a trace, with a warning when
 * two traces come from different machines or OS builds; and, for the
 * tables of etlagg --diff, the samples of both sides and how the noise
 * of each row is judged.
 */
#ifndef REPORT_SUMMARY_H
#define REPORT_SUMMARY_H

#include <stdio.h>

#include "stream/stream.h"

struct report_summary;

/* @return : NULL if out of memory. */
struct report_summary *report_summary_new(void);
void report_summary_free(struct report_summary *s);

/*
 * Takes the tables and rows of the stream: sysconfig's and those with
 * samples_base and samples columns.  @return : 0, or -1 (memory).
 */
int report_summary_record(struct report_summary *s,
    const struct stream_record *rec);

/* Writes the machine table (or says there is none) and the comparison. */
void report_summary_write(const struct report_summary *s, FILE *fp);

#endif
