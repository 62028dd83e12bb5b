/*
 * out_json.h - a string as a JSON string literal, escaped as serde_json
 * escapes it (the quote, the backslash, control characters; UTF-8 as it
 * is), for the formats that write JSON of their own (Chrome's trace
 * events, the timeline page's data).
 */
#ifndef OUT_JSON_H
#define OUT_JSON_H

#include <stddef.h>

struct buf;

/* s[0..len) as a JSON string, quotes included, appended to b. */
void out_json_string(struct buf *b, const char *s, size_t len);

/*
 * The same for a script of an HTML page: '<', '>' and '&' escaped too
 * (as \u003c ...), so that no "</script>" ends the script early.
 */
void out_json_string_html(struct buf *b, const char *s, size_t len);

#endif
