/*
 * test_loss.c - what DIAG records count as loss, and the line that says it.
 */
#include "stream/loss.h"
#include "harness.h"

static struct stream_diag
diag(const char *what, uint64_t count, uint64_t bytes)
{
	return (struct stream_diag){ what, count, 0, bytes };
}

static void
test_notes_are_not_loss(void)
{
	struct loss l = { 0 };
	struct stream_diag d = diag("note: events filtered out", 5, 0);

	CHECK(!loss_diag_is_loss(&d));
	CHECK_EQ_INT(loss_add_diag(&l, &d), 0);
	d = diag("events lost by the logger", 0, 0);	/* a count of 0 */
	CHECK_EQ_INT(loss_add_diag(&l, &d), 0);
	CHECK(!loss_any(&l));
}

static void
test_format_sums_kinds(void)
{
	struct loss l = { 0 }, total = { 0 };
	struct stream_diag a = diag("corrupt or truncated buffers", 2, 4096);
	struct stream_diag b = diag("events lost by the logger", 3, 0);
	char text[200];

	CHECK_EQ_INT(loss_add_diag(&l, &a), 1);
	CHECK_EQ_INT(loss_add_diag(&l, &b), 1);
	CHECK_EQ_INT(loss_add_diag(&l, &a), 1);
	loss_format(&l, text, sizeof(text));
	CHECK_EQ_STR(text, "4 corrupt or truncated buffers (8192 bytes), "
	    "3 events lost by the logger");
	loss_add(&total, &l);
	total.cut = 1;
	loss_format(&total, text, sizeof(text));
	CHECK_EQ_STR(text, "4 corrupt or truncated buffers (8192 bytes), "
	    "3 events lost by the logger, 1 inputs cut short or unreadable");
}

/* Past LOSS_KINDS kinds, the rest add up as one; the text is cut to fit. */
static void
test_bounded(void)
{
	struct loss l = { 0 };
	char what[32], text[40];
	int i;

	for (i = 0; i < LOSS_KINDS + 3; i++) {
		struct stream_diag d;

		snprintf(what, sizeof(what), "kind %d", i);
		d = diag(what, 1, 0);
		loss_add_diag(&l, &d);
	}
	CHECK_EQ_INT(l.nkinds, LOSS_KINDS);
	CHECK_EQ_INT(l.other, 3);
	CHECK_EQ_INT(loss_format(&l, text, sizeof(text)), strlen(text));
	CHECK(strlen(text) < sizeof(text));
	CHECK_EQ_INT(loss_format(&l, text, 1), 0);
}

/*
 * A note of missing events is no loss, is kept once however many inputs
 * say it, and goes with loss_add() like the rest.
 */
static void
test_missing_notes(void)
{
	struct loss l = { 0 }, total = { 0 };
	struct stream_diag d = diag(LOSS_MISSING "vmem: the trace has no "
	    "VirtualAlloc events", 1, 0);
	struct stream_diag other = diag(LOSS_MISSING "cpu: no samples", 1, 0);
	struct stream_diag zero = diag(LOSS_MISSING "heap: none", 0, 0);

	CHECK(!loss_diag_is_loss(&d));
	CHECK_EQ_INT(loss_add_diag(&l, &d), 0);
	CHECK_EQ_INT(loss_add_diag(&l, &d), 0);
	CHECK_EQ_INT(loss_add_diag(&l, &zero), 0);
	CHECK(!loss_any(&l));
	CHECK_EQ_INT(l.nmissing, 1);
	CHECK_EQ_STR(l.missing[0], "vmem: the trace has no VirtualAlloc "
	    "events");
	loss_add(&total, &l);
	loss_add_diag(&total, &other);
	loss_add(&total, &l);
	CHECK_EQ_INT(total.nmissing, 2);
	CHECK_EQ_STR(total.missing[1], "cpu: no samples");
}

/* Past LOSS_MISSING_MAX different notes, the rest are not kept. */
static void
test_missing_bounded(void)
{
	struct loss l = { 0 };
	char what[64];
	int i;

	for (i = 0; i < LOSS_MISSING_MAX + 2; i++) {
		struct stream_diag d;

		snprintf(what, sizeof(what), "%sview %d", LOSS_MISSING, i);
		d = diag(what, 1, 0);
		loss_add_diag(&l, &d);
	}
	CHECK_EQ_INT(l.nmissing, LOSS_MISSING_MAX);
}

int
main(void)
{
	RUN(test_notes_are_not_loss);
	RUN(test_format_sums_kinds);
	RUN(test_bounded);
	RUN(test_missing_notes);
	RUN(test_missing_bounded);
	HARNESS_EXIT();
}
