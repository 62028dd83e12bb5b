/*
 * view_images.c - "etlagg images": what etlsym found for each image that
 * stacks touched (its REC_IMAGE_SYMBOLS records): the image, its PDB
 * name and key (GUID and age as a symbol store spells them), whether the
 * PDB was found, mismatched, corrupt or not found, where, and how many
 * stack frames and distinct addresses fell in the image, so that the
 * symbols that matter and are missing show first.  Images loaded in
 * several processes or sections are one row.  A stream that etlsym has
 * not seen gives an empty table.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "base/intern.h"
#include "sym/sym_path.h"
#include "base/value.h"
#include "view.h"

struct row {
	uint64_t frames, addresses, named;
	uint32_t key;		/* the row's intern id */
};

struct view {
	struct intern keys;	/* the text columns, NUL-separated */
	struct row *rows;
	size_t cap;
};

static const char *const status_names[] = {
	[STREAM_SYM_NOT_FOUND] = "not found", [STREAM_SYM_FOUND] = "found",
	[STREAM_SYM_MISMATCH] = "mismatched",
	[STREAM_SYM_CORRUPT] = "corrupt",
	[STREAM_SYM_NO_ID] = "no PDB identity",
};

#define NTEXT	7	/* image, path, pdb, key, status, pdb_path, message */

static struct view *
images_create(int argc, char *argv[], int *used, struct model *m)
{
	(void)m;
	(void)argc;
	(void)argv;
	return view_no_options(calloc(1, sizeof(struct view)), used);
}

static int
add(struct view *v, const struct stream_reader *r,
    const struct stream_image_symbols *is)
{
	static const unsigned char zero[16];
	const struct stream_image *im = stream_image(r, is->image);
	const char *text[NTEXT];
	char key[41] = "";
	struct buf b = { 0 };
	struct row *row;
	uint32_t id;
	int i, added;

	text[0] = im != NULL ? frames_base_name(im->path) : "";
	text[1] = im != NULL ? im->path : "";
	text[2] = frames_base_name(is->pdb_name);
	if (memcmp(is->pdb_guid, zero, 16) != 0)
		value_format_pdb_key(is->pdb_guid, is->pdb_age, key);
	text[3] = key;
	text[4] = is->status < sizeof(status_names) / sizeof(status_names[0])
	    ? status_names[is->status] : "?";
	text[5] = is->pdb_path;
	text[6] = is->message;
	for (i = 0; i < NTEXT; i++)
		buf_put(&b, text[i], strlen(text[i]) + 1);
	id = b.oom ? 0 : intern_add(&v->keys, b.data, b.len, &added);
	buf_release(&b);
	if (id == 0 || (row = array_slot(&v->rows, &v->cap, id - 1,
	    sizeof(*row))) == NULL)
		return -1;
	row->key = id;
	row->frames += is->frames;
	row->addresses += is->addresses;
	row->named += is->named;
	return 0;
}

static int
images_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rec->type == REC_IMAGE_SYMBOLS)
		return add(v, r, &rec->u.image_symbols);
	return 0;
}

static int
cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->frames != y->frames)
		return x->frames < y->frames ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int
images_finish(struct view *v, struct stream_writer *w)
{
	static const struct stream_column cols[] = {
		{ "image", VAL_STR, "" }, { "path", VAL_STR, "" },
		{ "pdb", VAL_STR, "" }, { "pdb_key", VAL_STR, "" },
		{ "symbols", VAL_STR, "" }, { "pdb_path", VAL_STR, "" },
		{ "frames", VAL_U64, "" }, { "addresses", VAL_U64, "" },
		{ "named", VAL_U64, "" }, { "message", VAL_STR, "" },
	};
	size_t n = v->keys.count, i, len;
	struct value c[10];
	struct stream_row sr = { 1, 10, c };
	int rc = view_write_table(w, 1, "images", cols, 10);

	if (n > 0)
		qsort(v->rows, n, sizeof(*v->rows), cmp_rows);
	for (i = 0; i < n && rc == 0; i++) {
		const char *t = intern_key(&v->keys, v->rows[i].key, &len);
		const char *text[NTEXT];
		int k;

		for (k = 0; k < NTEXT; k++) {
			text[k] = t;
			t += strlen(t) + 1;
		}
		for (k = 0; k < 6; k++)
			c[k] = (struct value){ .type = VAL_STR,
			    .v.s = { text[k], strlen(text[k]) } };
		c[6] = (struct value){ .type = VAL_U64,
		    .v.u = v->rows[i].frames };
		c[7] = (struct value){ .type = VAL_U64,
		    .v.u = v->rows[i].addresses };
		c[8] = (struct value){ .type = VAL_U64,
		    .v.u = v->rows[i].named };
		c[9] = (struct value){ .type = VAL_STR,
		    .v.s = { text[6], strlen(text[6]) } };
		rc = stream_write_row(w, &sr);
	}
	return rc;
}

static void
images_destroy(struct view *v)
{
	intern_release(&v->keys);
	free(v->rows);
	free(v);
}

const struct view_ops view_images_ops = {
	.name = "images",
	.usage = "",
	.summary = "the symbols etlsym found for each image, by frames",
	.create = images_create,
	.record = images_record,
	.finish = images_finish,
	.destroy = images_destroy,
};
