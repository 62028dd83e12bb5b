/*
 * cli_decode.c - decoding an input into the event stream: etlcat's whole
 * job, and that of the other tools when they are given a trace instead
 * of a stream (etlagg cpu trace.etl).
 *
 * For each input: map it, let each reader bid on its first bytes, and
 * pump the winner's records into the stream writer.  Problems name the
 * file and offset; the decoder goes on past them, and the status says
 * there were some.
 *
 * A tool that reads a trace directly runs this on a thread of its own,
 * writing into a stream link (stream_link.c) that the tool's reader
 * reads: the same records as through `etlcat | tool`, without a process,
 * a pipe and zstd between them.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "etw/etw_decode.h"
#include "etl/in_etl.h"
#include "mmprof/mmprof_decode.h"
#include "base/platform.h"
#include "stream/stream.h"
#include "cli.h"

#define MAX_WARNINGS	10	/* messages a file; the rest are counted */

/* Adds a count to the loss, under the text of its DIAG record. */
static void
lost(struct loss *l, const char *what, uint64_t count, uint64_t bytes)
{
	struct stream_diag d = { what, count, 0, bytes };

	loss_add_diag(l, &d);
}

/*
 * Prints what the decoder skipped or could not join: one line, in the
 * words of the DIAG records the decoder wrote (lib/etw/etw_decode.c), as the
 * tools after etlcat say it; more with -v.
 */
static void
summarize(const char *name, const struct etl_reader *r,
    const struct etw_decoder *d, const struct cli_decode_opts *o)
{
	const struct etl_counts *c = etl_reader_counts(r);
	const struct etl_header *h = etl_reader_header(r);
	const struct etw_decode_stats *s = etw_decoder_stats(d);
	struct loss l = { 0 };

	if (o->quiet)
		return;
	lost(&l, "corrupt or truncated buffers", c->bad_buffers,
	    c->bad_buffer_bytes);
	lost(&l, "corrupt event headers", c->bad_events, c->bad_event_bytes);
	lost(&l, "payloads too short for their layout", s->bad_payloads, 0);
	lost(&l, "TraceLogging payloads not matching their schema",
	    s->bad_tracelogging, 0);
	lost(&l, "events lost by the logger", h->events_lost, 0);
	lost(&l, "buffers lost by the logger", h->buffers_lost, 0);
	lost(&l, "buffers flagged as losing events", c->lost_flagged, 0);
	lost(&l, "stack walks without an owner event", s->stacks_orphaned, 0);
	lost(&l, "stack keys never defined", s->keys_unresolved, 0);
	lost(&l, "ImageID events without an image", s->image_ids_unjoined, 0);
	if (o->verbose)
		cli_warn("%s: %llu events in %llu buffers (%llu compressed); "
		    "%llu stacks attached", name,
		    (unsigned long long)c->events,
		    (unsigned long long)c->buffers,
		    (unsigned long long)c->compressed,
		    (unsigned long long)s->stacks_attached);
	cli_loss_summary(name, &l);
	if (o->verbose)
		cli_warn("%s: %llu ImageID/DbgID events joined to images, %llu "
		    "without an image", name,
		    (unsigned long long)s->images_joined,
		    (unsigned long long)s->image_ids_unjoined);
	if (o->verbose && (s->stacks_orphaned || s->keys_unresolved))
		cli_warn("%s: %llu stack walks without owner, %llu stack keys "
		    "never defined", name,
		    (unsigned long long)s->stacks_orphaned,
		    (unsigned long long)s->keys_unresolved);
}

/*
 * The bytes read so far, for the progress line: buffers are read in the
 * order of their first event, not of the file, so their share of the
 * file's size stands for it.
 */
static uint64_t
buffers_done(const struct etl_reader *r, uint64_t len)
{
	size_t total, done = etl_reader_buffers_opened(r, &total);

	return total > 0 ? (uint64_t)((double)len * (double)done /
	    (double)total) : 0;
}

/* Says how far the decoder is: on the progress line, or to the reader. */
static void
tell_done(const struct cli_decode_opts *o, uint64_t bytes)
{
	if (o->done != NULL)
		atomic_store_explicit(o->done, bytes, memory_order_relaxed);
	else
		progress_update(o->progress, bytes);
}

/* Decodes one .etl file.  @return : as cli_decode(). */
static int
decode_etl(struct stream_writer *w, const char *name,
    const struct mapped_file *m, const struct cli_decode_opts *o)
{
	struct etl_reader *r = etl_reader_new();
	struct etw_decoder *d = NULL;
	struct etl_event ev;
	enum etl_status st;
	int status = CLI_OK, warnings = 0, rc = 0;
	uint64_t n = 0;

	if (r == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	etl_reader_threads(r, cli_threads());
	st = etl_reader_open_file(r, m);
	if (st == ETL_FATAL) {
		cli_warn("%s: %s", name, etl_reader_error(r));
		etl_reader_free(r);
		return CLI_DATA_ERROR;
	}
	if (st == ETL_WARN) {
		cli_warn("%s: %s", name, etl_reader_error(r));
		warnings++;
		status = CLI_DATA_ERROR;
	}
	if (stream_write_header(w, o->producer) != 0 ||
	    (d = etw_decoder_new(w, etl_reader_header(r), name)) == NULL) {
		etl_reader_free(r);
		return -1;
	}
	progress_start(o->progress, name, m->len);
	while (rc == 0 && (st = etl_reader_next(r, &ev)) != ETL_EOF) {
		if (++n % 4096 == 0)
			tell_done(o, buffers_done(r, m->len));
		if (st == ETL_WARN) {
			if (++warnings <= MAX_WARNINGS)
				cli_warn("%s: %s", name, etl_reader_error(r));
			status = CLI_DATA_ERROR;
			continue;
		}
		rc = etw_decoder_event(d, &ev);
	}
	progress_end(o->progress);
	if (warnings > MAX_WARNINGS)
		cli_warn("%s: %d more problems not shown", name,
		    warnings - MAX_WARNINGS);
	if (rc == 0 && (rc = etw_decoder_finish(d, etl_reader_counts(r))) == 0)
		summarize(name, r, d, o);
	etw_decoder_free(d);
	etl_reader_free(r);
	return rc != 0 ? -1 : status;
}

/*
 * Copies an event stream given as input, record by record, and says
 * what its DIAG records say it lost, as the other tools do.
 */
static int
copy_stream(struct stream_writer *w, const char *name,
    const unsigned char *data, size_t len, const struct cli_decode_opts *o)
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	enum stream_status st;
	struct loss l = { 0 };
	uint64_t records = 0, events = 0;
	int status;

	if (r == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	stream_reader_open_mem(r, data, len, name);
	while ((st = stream_reader_next(r, &rec)) == STREAM_OK) {
		records++;
		events += rec.type == REC_EVENT;
		if (rec.type == REC_DIAG)
			loss_add_diag(&l, &rec.u.diag);
		if (stream_write_record(w, &rec) != 0) {
			stream_reader_free(r);
			return -1;
		}
	}
	status = cli_stream_status(r, st, name);
	if (o->verbose && !o->quiet)
		cli_warn("%s: %llu records (%llu events) of an event stream "
		    "passed through", name, (unsigned long long)records,
		    (unsigned long long)events);
	if (!o->quiet)
		cli_loss_summary(name, &l);
	stream_reader_free(r);
	return status;
}

/* The input in `m`, by the reader that bids for it. */
static int
decode_mapped(struct stream_writer *w, const char *name,
    const struct mapped_file *m, const struct cli_decode_opts *o, int *read)
{
	int rc;

	*read = 1;
	if (etl_probe(m->data, m->len))
		return decode_etl(w, name, m, o);
	if (stream_probe(m->data, m->len))
		return copy_stream(w, name, m->data, m->len, o);
	if (mmprof_probe(m->data, m->len)) {
		rc = mmprof_cat(w, o->producer, name, m,
		    o->quiet ? -1 : o->verbose,
		    o->query_labels ? MMPROF_LABELS_ONLY : 0, cli_warn);
		return rc < 0 ? -1 : rc > 0 ? CLI_DATA_ERROR : CLI_OK;
	}
	*read = 0;
	cli_not_an_input(name);
	return CLI_DATA_ERROR;
}

void
cli_not_an_input(const char *name)
{
	cli_warn("%s: not an ETL file, rustc self-profile or event stream "
	    "(offset 0x0)", name);
}

int
cli_decode(struct stream_writer *w, const char *path,
    const struct cli_decode_opts *o, int *read)
{
	const char *name = strcmp(path, "-") == 0 ? "(stdin)" : path;
	struct mapped_file m;
	int status;

	*read = 0;
	if (platform_map_file_for_reads(path, &m) != 0) {
		cli_warn("%s: %s", name, strerror(errno));
		return CLI_DATA_ERROR;
	}
	status = decode_mapped(w, name, &m, o, read);
	platform_unmap_file(&m);
	return status;
}

int
cli_decodable(const unsigned char *p, size_t len)
{
	return !stream_probe(p, len) && (etl_probe(p, len) ||
	    mmprof_probe(p, len));
}

/* ---- a trace read directly, on a thread of its own ---- */

struct cli_direct {
	struct stream_link *link;
	struct stream_writer *w;
	struct cli_decode_opts o;
	const char *path, *name;
	int status;		/* the decoder's, once joined */
	struct progress silent;	/* the decoder's, which draws nothing */
	_Atomic uint64_t done;	/* bytes of the input decoded */
};

static void
direct_run(void *arg)
{
	struct cli_direct *d = arg;
	int read, closed;

	d->status = cli_decode(d->w, d->path, &d->o, &read);
	closed = stream_writer_close(d->w);
	d->w = NULL;
	if (d->status >= 0 && closed == 0)
		return;
	/* A reader that stopped has said why; anything else is said here. */
	if (errno == EPIPE)
		d->status = CLI_OK;
	else {
		cli_warn("%s: %s", d->name, strerror(errno));
		d->status = CLI_DATA_ERROR;
	}
}

struct cli_direct *
cli_direct_start(const char *path, struct stream_reader *r, const char *name)
{
	struct cli_direct *d = calloc(1, sizeof(*d));

	if (d == NULL || (d->link = stream_link_new()) == NULL ||
	    (d->w = stream_writer_new_link(d->link)) == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	d->path = path;
	d->name = name;
	d->o.producer = CLI_DECODER;
	/* What the input lost, the reading tool says from its records. */
	d->o.quiet = 1;
	d->o.progress = &d->silent;
	d->o.done = &d->done;
	/* A view of labels needs no query arguments: most of the work. */
	d->o.query_labels = (stream_reader_flags(r) & STREAM_QUERY_LABELS) != 0;
	atomic_init(&d->done, 0);
	stream_reader_open_link(r, d->link, name);
	if (stream_link_thread(d->link, direct_run, d) != 0)
		cli_fatal(CLI_DATA_ERROR, "%s: no thread to decode it on",
		    name);
	return d;
}

uint64_t
cli_direct_done(struct cli_direct *d)
{
	return atomic_load_explicit(&d->done, memory_order_relaxed);
}

int
cli_direct_finish(struct cli_direct *d)
{
	int status;

	/* A reader that stopped early lets the decoder stop too. */
	stream_link_stop(d->link);
	stream_link_join(d->link);
	status = d->status;
	stream_link_free(d->link);
	free(d);
	return status;
}
