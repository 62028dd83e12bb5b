/*
 * filter_out.c - see filter_out.h.
 *
 * A held record carries a tag: 0 to write it, or TAG_WAIT and the
 * filter's ticket for an event whose verdict waits.  Only the first held
 * record can be waiting when a PROCESS record comes (the filter decides
 * the held events in order), so after each one the queue is let go from
 * the front until an event that still waits.  HEADER and END are never
 * held: the section's end decides everything before them.
 */
#include <errno.h>
#include <stdlib.h>

#include "filter_out.h"

#define TAG_WAIT (1ull << 63)

struct filter_out {
	struct filter *f;
	struct stream_writer *w;
	struct holdback *hold;
	int open;		/* a section is open in the output */
	int window_said;	/* the section's SCOPE window is written */
	uint64_t dropped;	/* events the section left out */
};

struct filter_out *
filter_out_new(struct filter *f, struct stream_writer *w, size_t hold_max)
{
	struct filter_out *o = calloc(1, sizeof(*o));

	if (o == NULL)
		return NULL;
	o->f = f;
	o->w = w;
	if ((o->hold = holdback_new(hold_max)) == NULL) {
		free(o);
		return NULL;
	}
	return o;
}

void
filter_out_free(struct filter_out *o)
{
	if (o == NULL)
		return;
	holdback_free(o->hold);
	free(o);
}

/* Counts what the section left out, in the section. */
static int
write_dropped(struct filter_out *o)
{
	struct stream_diag d = { .what = "note: events filtered out" };

	if (o->dropped == 0)
		return 0;
	d.count = o->dropped;
	o->dropped = 0;
	return stream_write_diag(o->w, &d);
}

/* The SCOPE of the window, once per section, before its events. */
static int
write_window(struct filter_out *o)
{
	struct stream_scope sc;

	if (o->window_said || !filter_scope_window(o->f, &sc))
		return 0;
	o->window_said = 1;
	return stream_write_scope(o->w, &sc);
}

/* The SCOPE of the processes kept, at the section's end. */
static int
write_kept(struct filter_out *o)
{
	struct stream_scope sc;
	int rc = filter_scope_kept(o->f, &sc);

	if (rc < 0) {
		errno = ENOMEM;
		return FILTER_OUT_HOLD;
	}
	return rc == 1 && stream_write_scope(o->w, &sc) != 0 ?
	    FILTER_OUT_WRITE : 0;
}

/*
 * Writes a record, or counts a dropped event.  A record `as_read` (from
 * the reader, not the holdback) is copied as its bytes, but for those
 * that the writer must see.
 */
static int
write_rec(struct filter_out *o, const struct stream_record *rec, int keep,
    int as_read)
{
	const unsigned char *raw;
	size_t len;
	int rc;

	switch (rec->type) {
	case REC_HEADER:
		/* A section cut short in the input stays so. */
		if (o->open && write_dropped(o) != 0)
			return FILTER_OUT_WRITE;
		o->open = 1;
		o->window_said = 0;
		as_read = 0;
		break;
	case REC_END:
		o->open = 0;
		if ((rc = write_kept(o)) != 0)
			return rc;
		if (write_dropped(o) != 0 ||
		    stream_write_end(o->w, &rec->u.end) != 0)
			return FILTER_OUT_WRITE;
		return 0;
	case REC_TRACE:
		if (stream_write_record(o->w, rec) != 0 ||
		    write_window(o) != 0)
			return FILTER_OUT_WRITE;
		return 0;
	case REC_EVENT:
		if (write_window(o) != 0)
			return FILTER_OUT_WRITE;
		if (!keep) {
			o->dropped++;
			return 0;
		}
		/* Its time is coded against the event before, maybe dropped. */
		return stream_write_read_event(o->w, rec) != 0 ?
		    FILTER_OUT_WRITE : 0;
	case REC_STRING:
	case REC_SCHEMA:
		as_read = 0;
		break;
	default:
		break;
	}
	if (as_read) {
		raw = stream_record_raw(rec, &len);
		return stream_write_encoded(o->w, raw, len) != 0 ?
		    FILTER_OUT_WRITE : 0;
	}
	return stream_write_record(o->w, rec) != 0 ? FILTER_OUT_WRITE : 0;
}

int
filter_out_write(struct filter_out *o, const struct stream_record *rec,
    int keep)
{
	return write_rec(o, rec, keep, 1);
}

/* Lets go of the records held, up to the first that still waits. */
static int
release(struct filter_out *o)
{
	struct stream_record rec;
	uint64_t tag;
	int keep, rc;

	while ((rc = holdback_peek(o->hold, &rec, &tag)) == 1) {
		keep = 1;
		if ((tag & TAG_WAIT) &&
		    (keep = filter_held(o->f, tag & ~TAG_WAIT)) == FILTER_WAIT)
			return 0;
		if (write_rec(o, &rec, keep, 0) != 0)
			return FILTER_OUT_WRITE;
		holdback_pop(o->hold);
	}
	return rc == 0 ? 0 : FILTER_OUT_HOLD;
}

/* The section ends: the verdicts of the whole section let all go. */
static int
section_end(struct filter_out *o)
{
	if (holdback_empty(o->hold))
		return 0;
	filter_section_end(o->f);
	return release(o);
}

int
filter_out_next(struct filter_out *o, const struct stream_reader *r,
    const struct stream_record *rec)
{
	uint64_t ticket = 0;
	int holding, keep, rc;

	if ((rec->type == REC_HEADER || rec->type == REC_END) &&
	    (rc = section_end(o)) != 0)
		return rc;
	holding = !holdback_empty(o->hold);
	if ((keep = filter_next(o->f, r, rec, holding, &ticket)) < 0) {
		errno = ENOMEM;
		return FILTER_OUT_HOLD;
	}
	if (!holding && keep != FILTER_WAIT)
		return write_rec(o, rec, keep, 1);
	if (keep == 0) {
		o->dropped++;
		return 0;
	}
	if (holdback_push(o->hold, rec,
	    keep == FILTER_WAIT ? TAG_WAIT | ticket : 0) != 0)
		return FILTER_OUT_HOLD;
	/*
	 * A definition may be what the first held event waits for, or a
	 * lifetime event that begins or ends the rundown, which settles
	 * parents not defined yet.
	 */
	return holding && (rec->type == REC_PROCESS ||
	    (rec->type == REC_EVENT && (rec->u.event.h.kind == EV_PROCESS ||
	    rec->u.event.h.kind == EV_THREAD ||
	    rec->u.event.h.kind == EV_IMAGE))) ? release(o) : 0;
}

int
filter_out_finish(struct filter_out *o)
{
	int rc;

	if ((rc = section_end(o)) != 0)
		return rc;
	if (o->open) {
		o->open = 0;
		if ((rc = write_kept(o)) != 0)
			return rc;
		if (write_dropped(o) != 0)
			return FILTER_OUT_WRITE;
	}
	return 0;
}

void
filter_out_stats(struct filter_out *o, struct holdback_stats *st)
{
	*st = *holdback_stats(o->hold);
	holdback_clear_stats(o->hold);
}
