/*
 * render_note.c - the notes every format writes beside what it draws:
 * that the input was lossy, and that it lacked the events a view needs.
 * Kept apart from the table of formats (render.c), which names the
 * formats that use them.
 */
#include <string.h>

#include "base/buf.h"
#include "stream/loss.h"
#include "markup.h"
#include "render.h"

int
render_loss_note(FILE *fp, const struct render_options *opt, int markup,
    const char *before, const char *after)
{
	static const char lead[] = "computed from lossy input: ";
	char text[512];
	size_t len;

	if (opt->loss == NULL || !loss_any(opt->loss))
		return 0;
	len = loss_format(opt->loss, text, sizeof(text));
	fputs(before, fp);
	fputs(lead, fp);
	if (markup)
		markup_text(fp, text, len);
	else
		fwrite(text, 1, len, fp);
	fputs(after, fp);
	return 1;
}

int
render_note_keep(struct buf *notes, const struct stream_record *rec)
{
	static const char lead[] = "note: ";
	const char *what, *p, *end;
	size_t n = 0, len;

	if (rec->type != REC_DIAG || rec->u.diag.count != 0 ||
	    (what = rec->u.diag.what) == NULL ||
	    strncmp(what, lead, sizeof(lead) - 1) != 0)
		return 0;
	what += sizeof(lead) - 1;
	if ((len = strlen(what)) > RENDER_NOTE_LEN)
		len = RENDER_NOTE_LEN;
	p = (const char *)notes->data;
	end = p != NULL ? p + notes->len : NULL;	/* no offset to NULL */
	for (; p != NULL && p < end; p += strlen(p) + 1, n++)
		if ((strlen(p) == len && memcmp(p, what, len) == 0) ||
		    n == RENDER_NOTES_MAX)
			return 0;
	buf_put(notes, what, len);
	buf_put(notes, "", 1);
	return notes->oom ? -1 : 0;
}

/* One note between `before` and `after`, escaped for markup if asked. */
static void
put_note(FILE *fp, const char *text, int markup, const char *before,
    const char *after)
{
	fputs(before, fp);
	if (markup)
		markup_text(fp, text, strlen(text));
	else
		fputs(text, fp);
	fputs(after, fp);
}

void
render_notes_write(FILE *fp, const struct buf *notes, int markup,
    const char *before, const char *after)
{
	const char *p = (const char *)notes->data;
	const char *end = p != NULL ? p + notes->len : NULL;

	for (; p != NULL && p < end; p += strlen(p) + 1)
		put_note(fp, p, markup, before, after);
}

size_t
render_missing_count(const struct render_options *opt)
{
	return opt->loss != NULL ? opt->loss->nmissing : 0;
}

int
render_missing_note(FILE *fp, const struct render_options *opt, int markup,
    const char *before, const char *after)
{
	size_t i, n = render_missing_count(opt);

	for (i = 0; i < n; i++)
		put_note(fp, opt->loss->missing[i], markup, before, after);
	return n > 0;
}

int
render_missing_svg(FILE *fp, const struct render_options *opt, int x, int y,
    int line_h)
{
	char line[64];

	if (render_missing_count(opt) == 0)
		return 0;
	snprintf(line, sizeof(line), "<tspan x=\"%d\" dy=\"%d\">Note: ", x,
	    line_h);
	fprintf(fp, "<text id=\"missing\" y=\"%d\" text-anchor=\"middle\" "
	    "style=\"fill:#b00000\">", y);
	render_missing_note(fp, opt, 1, line, "</tspan>");
	fputs("</text>\n", fp);
	return 1;
}
