/*
 * etw_decode.h - turns the raw events of an .etl file (in_etl) into stream
 * records: event classes, process/thread/image definitions, stacks, and
 * typed events.
 *
 * It does what needs more than one event: stacks are attached to the
 * events they belong to (etl-format.md 5.6), KernelTraceControl ImageID
 * and DbgID events are joined to their images (section 6), samples and
 * context switches get their process from the thread tables.  To attach a
 * stack logged after its event, events are held back in a queue for a
 * short window of trace time (ETW_HOLD_MS) before they are written.
 *
 * Nothing is dropped: an event whose payload does not fit its layout is
 * kept as a generic event with its raw payload and counted; records that
 * become definitions (stack walks, ImageID) are counted per class in
 * REC_COUNT records; problems are summed in REC_DIAG records.
 */
#ifndef ETW_DECODE_H
#define ETW_DECODE_H

#include <stdint.h>

#include "etl/in_etl.h"
#include "stream/stream.h"

#define ETW_HOLD_MS 50		/* how long events wait for their stacks */

struct etw_decoder;

/*
 * Creates a decoder writing to `w` and writes the REC_TRACE record.
 * @return : NULL if out of memory.
 */
struct etw_decoder *etw_decoder_new(struct stream_writer *w,
    const struct etl_header *h, const char *source);

/* Decodes one event.  @return : 0, or -1 on a write error. */
int etw_decoder_event(struct etw_decoder *d, const struct etl_event *ev);

/*
 * Writes what is held back, the counts and diagnostics (including the
 * reader's `counts`) and the REC_END record.
 * @return : 0, or -1 on a write error.
 */
int etw_decoder_finish(struct etw_decoder *d, const struct etl_counts *counts);

void etw_decoder_free(struct etw_decoder *d);

/* What the decoder met, for the command's summary on stderr. */
struct etw_decode_stats {
	uint64_t events, bad_payloads, bad_tracelogging;
	uint64_t stacks_attached, stacks_orphaned, keys_unresolved;
	uint64_t images_joined, image_ids_unjoined;
	uint64_t cswitch_batches, cswitch_batches_cut, cswitch_bad_records;
	uint64_t cswitch_late;		/* compact switches logged too late */
};
const struct etw_decode_stats *etw_decoder_stats(const struct etw_decoder *d);

#endif
