/*
 * report.h - the last stage: renders the records of a stream through an
 * out writer (out.h).  Tables are written as they are; events, when the
 * stream has them, as one flat table like tracerpt's CSV: time, process,
 * pid, tid, cpu, kind, provider, event, stack, fields.
 */
#ifndef REPORT_H
#define REPORT_H

#include "out.h"
#include "stream.h"

struct report;

/* @return : NULL if out of memory. */
struct report *report_new(struct out *o);

/* Renders one record.  @return : 0, or -1 on a write error. */
int report_record(struct report *rp, const struct stream_reader *r,
    const struct stream_record *rec);

/* Ends an open table.  @return : 0, or -1 on a write error. */
int report_finish(struct report *rp);

void report_free(struct report *rp);

#endif
