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
 * A struct loss is plain data with a fixed size: no allocation, nothing
 * to free.  It keeps the first LOSS_KINDS kinds of loss by their text and
 * adds the rest up as "other problems".
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

struct loss {
	struct {
		char what[LOSS_WHAT_MAX];
		uint64_t count, bytes;
	} kind[LOSS_KINDS];
	size_t nkinds;
	uint64_t other, other_bytes;	/* kinds past LOSS_KINDS */
	uint64_t cut;			/* streams cut short or unreadable */
};

/* Whether a DIAG record reports loss rather than a note. */
int loss_diag_is_loss(const struct stream_diag *d);

/* Adds a DIAG record if it reports loss.  @return : 1 if it did, else 0. */
int loss_add_diag(struct loss *l, const struct stream_diag *d);

/* Adds everything in `from`. */
void loss_add(struct loss *l, const struct loss *from);

/* Whether anything was lost. */
int loss_any(const struct loss *l);

/*
 * Writes "3 events lost by the logger, 2 corrupt or truncated buffers
 * (4096 bytes)" into buf, cut to fit (always NUL-terminated).
 * @return : the length written.
 */
size_t loss_format(const struct loss *l, char *buf, size_t cap);

#endif
