/*
 * filter_link.c - see filter_link.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "filter_link.h"
#include "filter_out.h"

struct filter_link {
	struct filter *f;
	struct filter_out *o;
	struct stream_writer *w;
	struct stream_link *link;
	struct stream_reader *r;	/* the thread's */
	filter_link_fn fn;
	void *ctx;
	int stopped;		/* fn returned non-zero */
	enum stream_status st;	/* how the thread's reading ended */
};

/* The thread: every record of the link to fn, until the end or a stop. */
static void
read_link(void *arg)
{
	struct filter_link *l = arg;
	struct stream_record rec;

	while ((l->st = stream_reader_next(l->r, &rec)) == STREAM_OK)
		if (l->fn(l->ctx, l->r, &rec) != 0) {
			l->stopped = 1;
			stream_link_stop(l->link);
			return;
		}
	if (l->st == STREAM_ERROR)
		stream_link_stop(l->link);
}

static void
link_free(struct filter_link *l)
{
	filter_out_free(l->o);
	stream_reader_free(l->r);
	stream_link_free(l->link);
	free(l);
}

struct filter_link *
filter_link_new(struct filter *f, unsigned reader_flags, uint32_t kinds,
    size_t hold_max, filter_link_fn fn, void *ctx)
{
	struct filter_link *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	l->f = f;
	l->fn = fn;
	l->ctx = ctx;
	if ((l->link = stream_link_new()) == NULL ||
	    (l->r = stream_reader_new(reader_flags)) == NULL ||
	    (l->w = stream_writer_new_link(l->link)) == NULL ||
	    (l->o = filter_out_new(f, l->w, hold_max)) == NULL) {
		if (l->w != NULL)
			stream_writer_close(l->w);
		link_free(l);
		errno = ENOMEM;
		return NULL;
	}
	if (kinds != 0)
		stream_reader_fields_of(l->r, kinds);
	stream_reader_open_link(l->r, l->link, "(filtered)");
	filter_reset(f);
	/* The thread started on a link is its reader here, not its writer. */
	if (stream_link_thread(l->link, read_link, l) != 0) {
		stream_writer_close(l->w);
		link_free(l);
		errno = EAGAIN;
		return NULL;
	}
	return l;
}

int
filter_link_next(struct filter_link *l, const struct stream_reader *r,
    const struct stream_record *rec)
{
	return filter_out_next(l->o, r, rec);
}

int
filter_link_input_end(struct filter_link *l)
{
	int rc = filter_out_finish(l->o);

	filter_reset(l->f);
	return rc;
}

int
filter_link_close(struct filter_link *l, char *err, size_t errlen)
{
	int rc;

	/* Closing the writer closes the link: the reader sees the end. */
	stream_writer_close(l->w);
	stream_link_join(l->link);
	rc = l->stopped ? 1 : 0;
	if (!l->stopped && l->st == STREAM_ERROR) {
		snprintf(err, errlen, "%s", stream_reader_error(l->r));
		rc = -1;
	}
	link_free(l);
	return rc;
}
