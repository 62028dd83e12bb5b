/*
 * view.c - what the views share: their options, tables and messages.
 * The table of views is view_registry.c.
 */
#include <stdarg.h>
#include <string.h>

#include "base/intern.h"
#include "model/model.h"
#include "view.h"

int
view_has_table(const struct view_ops *ops, const char *table)
{
	size_t i;

	for (i = 0; ops->tables != NULL && ops->tables[i] != NULL; i++)
		if (strcmp(ops->tables[i], table) == 0)
			return 1;
	return 0;
}

void
view_warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "etlagg: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int quiet;	/* etlagg -q: no warnings */

void
view_quiet(int on)
{
	quiet = on;
}

void
view_warning(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	fprintf(stderr, "etlagg: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

struct model *
view_model(struct model *m, int own, struct model **mine)
{
	*mine = NULL;
	if (m != NULL && !own)
		return m;
	return *mine = model_new();
}

struct view *
view_no_options(struct view *v, int *used)
{
	*used = 1;
	return v;
}

int
view_write_table(struct stream_writer *w, stream_id id, const char *name,
    const struct stream_column *cols, size_t ncols)
{
	struct stream_table t = { id, name, ncols, cols };

	return stream_write_table(w, &t);
}

struct value
view_text_cell(const struct intern *t, uint32_t id)
{
	size_t len = 0;
	const char *s = id != 0 ? intern_key(t, id, &len) : NULL;

	return s != NULL ? (struct value){ .type = VAL_STR,
	    .v.s = { s, len } } : (struct value){ .type = VAL_NULL };
}
