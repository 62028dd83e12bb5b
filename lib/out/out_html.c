/*
 * out_html.c - a table's header and figures in HTML (out_html.h).
 */
#include <stdio.h>
#include <string.h>

#include "out_html.h"

static void
put(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void
out_html_text(struct buf *b, const char *s, size_t len)
{
	size_t i, from = 0;
	const char *e;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '&':
			e = "&amp;";
			break;
		case '<':
			e = "&lt;";
			break;
		case '>':
			e = "&gt;";
			break;
		case '"':
			e = "&quot;";
			break;
		default:
			continue;
		}
		buf_put(b, s + from, i - from);
		put(b, e);
		from = i + 1;
	}
	buf_put(b, s + from, len - from);
}

void
out_html_head(struct buf *b, const struct out_rows *h)
{
	const struct out_column *c;
	char head[256];
	size_t i;

	put(b, "<thead><tr>");
	for (i = 0; i < h->ncols; i++) {
		c = &h->cols[i];
		put(b, "<th");
		if (c->type != VAL_STR && c->type != VAL_GUID)
			put(b, " class=\"num\"");
		put(b, " data-col=\"");
		out_csv_header(c, head, sizeof(head));
		out_html_text(b, head, strlen(head));
		put(b, "\">");
		out_scale_header(c, &h->scale[i], head, sizeof(head));
		out_html_text(b, head, strlen(head));
		put(b, "</th>");
	}
	put(b, "</tr></thead><tbody>\n");
}

/* The exact value, for data-v: "" for no number. */
static const char *
exact(const struct value *v, char *num, size_t cap)
{
	switch (v->type) {
	case VAL_I64:
	case VAL_NS:
		snprintf(num, cap, "%lld", (long long)v->v.i);
		break;
	case VAL_U64:
		snprintf(num, cap, "%llu", (unsigned long long)v->v.u);
		break;
	case VAL_F64:
		snprintf(num, cap, "%.17g", v->v.f);
		break;
	default:
		num[0] = '\0';
	}
	return num;
}

int
out_html_figure(struct buf *b, const struct out_rows *h, size_t i,
    const struct value *v)
{
	const struct out_scale *sc = &h->scale[i];
	const char *unit = v->type == VAL_NS ? "s" : h->cols[i].unit;
	char num[48], text[64];
	size_t len;

	if (exact(v, num, sizeof(num))[0] == '\0')
		return 0;
	put(b, "<td class=\"num\" data-v=\"");
	put(b, num);
	if (sc->kind == OUT_SCALE_TIME || sc->kind == OUT_SCALE_BYTES) {
		len = value_format(v, text, sizeof(text));
		put(b, "\" title=\"");
		out_html_text(b, text, len < sizeof(text) ? len :
		    sizeof(text) - 1);
		put(b, " ");
		out_html_text(b, unit, strlen(unit));
	}
	put(b, "\">");
	len = out_scale_format(sc, v, text, sizeof(text));
	out_html_text(b, text, len < sizeof(text) ? len : sizeof(text) - 1);
	put(b, "</td>");
	return 1;
}
