/*
 * html_threads.h - the per-thread timeline of "etlreport -f html", from
 * the "switches" table of etlagg switches: a row a thread, and on a
 * common time axis its bands, running (switch-in to the next switch-out),
 * waiting (switch-out to ready) and ready (ready to switch-in, waiting
 * for a processor); hovering a waiting band shows the wait reason and
 * the stack where the thread blocked, a ready band who readied it.  The
 * page stands alone.  Choose the threads with etlagg switches --tid.
 *
 * Memory: the bands and their texts, copied from the rows.
 */
#ifndef HTML_THREADS_H
#define HTML_THREADS_H

#include <stdio.h>

#include "stream/stream.h"
#include "render.h"

struct html_threads;

/* @return : NULL if out of memory. */
struct html_threads *html_threads_new(const struct render_options *opt);

/* Takes in a record.  @return : 0, or -1 if out of memory. */
int html_threads_record(struct html_threads *h, const struct stream_reader *r,
    const struct stream_record *rec);

/* Whether no switches table was seen. */
int html_threads_empty(const struct html_threads *h);

/* Writes the page.  @return : 0, or -1 on a write error. */
int html_threads_write(struct html_threads *h, FILE *fp);

void html_threads_free(struct html_threads *h);

#endif
