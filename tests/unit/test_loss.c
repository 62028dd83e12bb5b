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

int
main(void)
{
	RUN(test_notes_are_not_loss);
	RUN(test_format_sums_kinds);
	RUN(test_bounded);
	HARNESS_EXIT();
}
