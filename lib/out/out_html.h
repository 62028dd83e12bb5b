/*
 * out_html.h - a table's header and figures as an HTML page shows them
 * (etlreport's report page): a header cell a column, its name and the
 * unit its cells are shown in; a cell of a figure scaled to that unit
 * (out_scale.h), its exact value kept in data-v for sorting and drawing
 * and, where the text rounds it, in the tooltip with the column's own
 * unit ("0.938923800 s", "26279936 B").  A header cell carries the
 * column's name in CSV in data-col, for a page's script to find it by.
 *
 * The markup is appended to a struct buf (base/buf.h), whose oom flag
 * says if memory ran out.
 */
#ifndef OUT_HTML_H
#define OUT_HTML_H

#include "base/buf.h"
#include "out_scale.h"

/* Appends s with &, <, > and " escaped: safe in text and attributes. */
void out_html_text(struct buf *b, const char *s, size_t len);

/* The header row of the rows held, their units chosen: "<thead>...". */
void out_html_head(struct buf *b, const struct out_rows *h);

/*
 * Appends the cell of v, of column i of h: for a number (not hex, UTC
 * or bool, which show as they are), scaled with its exact value kept;
 * @return : 1, or 0 when v is no such number and nothing was written.
 */
int out_html_figure(struct buf *b, const struct out_rows *h, size_t i,
    const struct value *v);

#endif
