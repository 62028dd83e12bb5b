/*
 * filter_link.h - what a filter keeps of a stream, read on a thread of its
 * own: `etlfilter | etlagg` inside one process.
 *
 * The records of the input go to filter_link_next() in order, as they
 * would go to etlfilter.  What filter_out.h would write goes, uncompressed,
 * through a stream link (stream.h) to a reader on a second thread, which
 * gives each record to fn(ctx, r, rec) as the tool after etlfilter would
 * read it.  The records and their order are etlfilter's, made by the same
 * code, so whatever fn computes equals what it computes after etlfilter:
 * the composition law of etlfilter(1) holds by construction.
 *
 * fn runs on the link's thread, and only there, until filter_link_close()
 * returns; what it touches belongs to that thread until then.  The link
 * always takes a thread: the reader must run beside the writer, whose
 * frames wait in a queue of a few.
 */
#ifndef FILTER_LINK_H
#define FILTER_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "stream/stream.h"
#include "filter.h"

struct filter_link;

typedef int (*filter_link_fn)(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * A link through `f` (compiled; the link does not own it) to fn, whose
 * reader is made with `reader_flags` and decodes the fields of `kinds`
 * (STREAM_KIND() bits; 0 for every kind).  `hold_max`: bytes held back in
 * memory while a verdict waits, as filter_out_new()'s.
 * @return : NULL if out of memory or no thread could be made (errno).
 */
struct filter_link *filter_link_new(struct filter *f, unsigned reader_flags,
    uint32_t kinds, size_t hold_max, filter_link_fn fn, void *ctx);

/*
 * The next record of the input, as read by `r`.  Records whose verdict
 * waits are held back here, on the caller's thread.
 * @return : 0, or a filter_out_error (FILTER_OUT_WRITE when fn stopped
 *	the reader early).
 */
int filter_link_next(struct filter_link *l, const struct stream_reader *r,
    const struct stream_record *rec);

/* The input has ended: what is held goes out; the next input starts. */
int filter_link_input_end(struct filter_link *l);

/*
 * The end: waits for fn to have every record, frees the link.
 * @return : 0; 1 if fn returned non-zero (and the rest was not read);
 *	-1 if the stream between the two broke: err (of errlen bytes) then
 *	says how.
 */
int filter_link_close(struct filter_link *l, char *err, size_t errlen);

#endif
