/*
 * html_queries.h - the nested query trace page that rustc's old
 * -Z profile-queries wrote as profile_queries.html (measureme-format.md
 * 12.2), rebuilt from self-profile events; render_html calls it for
 * streams that hold rustc query events.
 *
 * The page: on a black ground, per thread, the trees of its events as
 * nested rounded boxes that flow left to right.  A provider run (Query)
 * is a red "miss" box holding the queries it called, a cache hit
 * (QueryCacheHit, with -Z self-profile-events=...,query-cache-hit) a blue
 * dot, a GenericActivity a green "time-begin" box with its label, other
 * kinds a box coloured by kind.  Boxes with more than 5 children or at
 * least 1% of the total time are "important": labelled with their name
 * and share of the total, the total being the sum of the durations of
 * the trees' roots.  Boxes over 10% grow larger, as in the old page.
 * render_options.max_depth leaves out what is nested deeper, and
 * min_percent what takes a smaller share (1% unless given, as the old
 * page's heuristics had it, so that a large profile gives a page one
 * can read); a note says how many boxes that left out.  The page has
 * no external style sheet (the old one linked profile_queries.css),
 * shows its title, gives each box its time as a tooltip, and folds a
 * box's contents on a click.
 *
 * Memory: the whole forest until the page is written, 32 bytes an event
 * (instants included), since a box's share and depth are known only at
 * the end.  Labels are interned once.  Functions returning int give 0,
 * or -1 when out of memory or, for the write, on a write error.
 */
#ifndef HTML_QUERIES_H
#define HTML_QUERIES_H

#include <stdio.h>

#include "stream/stream.h"
#include "render.h"

struct html_queries;

/* @return : NULL if out of memory.  `opt` is copied. */
struct html_queries *html_queries_new(const struct render_options *opt);

/* Takes any record; keeps what the page needs from EV_QUERY events. */
int html_queries_record(struct html_queries *h, const struct stream_reader *r,
    const struct stream_record *rec);

/* 1 if it saw no query event. */
int html_queries_empty(const struct html_queries *h);

/* Writes the whole page to fp. */
int html_queries_write(struct html_queries *h, FILE *fp);

void html_queries_free(struct html_queries *h);

#endif
