/*
 * render_note.c - the notes every format writes beside what it draws:
 * that the input was lossy.  Kept apart from the table of formats
 * (render.c), which names the formats that use them.
 */
#include <string.h>

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
