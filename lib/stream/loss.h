/*
 * loss.h - what a stream's DIAG records say its source lost, summed up
 * for a message or a note under a table.
 *
 * The rule (man/etl-stream.5, DIAG): a DIAG record reports loss (the
 * section holds less than its source, or holds it damaged) unless its
 * `what` begins with "note: ", which marks something left out on purpose
 * or normal for the source (events a filter dropped, rows a view left
 * out).  Tools pass DIAG records on, so that the last stage of a
 * pipeline still knows whether its table came from lossy input.
 *
 * One kind of note is kept too: a DIAG record whose `what` begins with
 * LOSS_MISSING says that the input lacked the events a view needs
 * (etlagg writes it), so that etlreport shows it under the empty table.
 *
 * A struct loss is plain data with a fixed size: no allocation, nothing
 * to free.  It keeps the first LOSS_KINDS kinds of loss by their text and
 * adds the rest up as "other problems", and the first LOSS_MISSING_MAX
 * different notes of missing events.
 */
#ifndef LOSS_H
#define LOSS_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define LOSS_KINDS	12
#define LOSS_WHAT_MAX	80
/* The DIAG record's text for inputs that ended before their END. */
#define LOSS_CUT	"inputs cut short or unreadable"
/*
 * What begins a DIAG note that the input lacks the events a view needs;
 * the message follows ("vmem: the trace has no VirtualAlloc events ...").
 */
#define LOSS_MISSING	"note: missing: "
#define LOSS_MISSING_MAX	4
#define LOSS_MISSING_LEN	320

struct loss {
	struct {
		char what[LOSS_WHAT_MAX];
		uint64_t count, bytes;
	} kind[LOSS_KINDS];
	size_t nkinds;
	uint64_t other, other_bytes;	/* kinds past LOSS_KINDS */
	uint64_t cut;			/* streams cut short or unreadable */
	/* The messages of LOSS_MISSING notes, without the prefix. */
	char missing[LOSS_MISSING_MAX][LOSS_MISSING_LEN];
	size_t nmissing;
};

/* Whether a DIAG record reports loss rather than a note. */
int loss_diag_is_loss(const struct stream_diag *d);

/*
 * Adds a DIAG record if it reports loss, or keeps its message if it is a
 * LOSS_MISSING note.  @return : 1 if it reports loss, else 0.
 */
int loss_add_diag(struct loss *l, const struct stream_diag *d);

/* Adds everything in `from`, notes of missing events too. */
void loss_add(struct loss *l, const struct loss *from);

/* Whether anything was lost (a note of missing events is no loss). */
int loss_any(const struct loss *l);

/*
 * Writes "3 events lost by the logger, 2 corrupt or truncated buffers
 * (4096 bytes)" into buf, cut to fit (always NUL-terminated).
 * @return : the length written.
 */
size_t loss_format(const struct loss *l, char *buf, size_t cap);

#endif
