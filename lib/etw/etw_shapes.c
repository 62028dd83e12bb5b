/*
 * etw_shapes.c - see etw_shapes.h.  The shapes of fixed layouts are
 * constants; those of CSwitch, whose fields depend on the version and
 * on the switch, are all made when a decoder starts, from the bits that
 * say which fields are there.
 */
#include <stddef.h>

#include "etw_shapes.h"

#define SHAPE(var, ...)							\
	static const struct stream_column var##_cols[] = { __VA_ARGS__ }; \
	const struct stream_shape var = {				\
	    sizeof(var##_cols) / sizeof(var##_cols[0]), var##_cols }

#define U(n)	{ n, VAL_U64, NULL }
#define X(n)	{ n, VAL_HEX, NULL }
#define I(n)	{ n, VAL_I64, NULL }
#define S(n)	{ n, VAL_STR, NULL }

SHAPE(etw_shape_sample, X("ip"), U("count"), U("priority"), X("flags"),
    U("rank"));
SHAPE(etw_shape_image, U("image"), X("base"), U("size"));
SHAPE(etw_shape_process, U("process"), U("ppid"), I("exit_status"),
    X("flags"));
SHAPE(etw_shape_thread_affinity, U("thread"), X("affinity"),
    X("win32_start_address"));
SHAPE(etw_shape_thread_start, U("thread"), X("start_address"),
    X("win32_start_address"));
SHAPE(etw_shape_vmem, X("base"), U("size"), X("flags"));
SHAPE(etw_shape_vmem_rundown, X("base"), U("size"), X("flags"),
    U("commit_size"));
SHAPE(etw_shape_heap, X("heap"));
SHAPE(etw_shape_heap_create, X("heap"), X("flags"));
SHAPE(etw_shape_heap_alloc, X("heap"), X("address"), U("size"), U("source"));
SHAPE(etw_shape_heap_realloc, X("heap"), X("address"), U("size"),
    X("old_address"), U("old_size"), U("source"));
SHAPE(etw_shape_heap_free, X("heap"), X("address"), U("source"));
SHAPE(etw_shape_ready, U("readied_tid"), U("readied_pid"), S("reason"),
    I("increment"), X("flags"));

static void
add(struct stream_shape *sh, struct stream_column *cols, const char *name,
    enum value_type type)
{
	cols[sh->n].name = name;
	cols[sh->n].type = type;
	cols[sh->n].unit = NULL;
	sh->n++;
}

/* The fields of CSwitch in the order of etw_decode.c's on_cswitch(). */
static void
make_cswitch(struct etw_shapes *s, unsigned bits)
{
	struct stream_shape *sh = &s->cs[bits];
	struct stream_column *c = s->cs_cols[bits];
	int v1 = (bits & ETW_CS_V1) != 0;

	sh->cols = c;
	add(sh, c, "old_tid", VAL_U64);
	add(sh, c, "old_pid", VAL_U64);
	add(sh, c, "new_priority", VAL_I64);
	add(sh, c, "old_priority", VAL_I64);
	add(sh, c, v1 ? "new_quantum" : "previous_cstate", VAL_U64);
	add(sh, c, v1 ? "old_quantum" : "new_priority_decrement", VAL_U64);
	if (bits & ETW_CS_WAIT)
		add(sh, c, "old_wait_reason", VAL_STR);
	add(sh, c, "old_wait_mode", VAL_U64);
	add(sh, c, "old_state", VAL_STR);
	add(sh, c, "ideal_cpu", VAL_U64);
	add(sh, c, "new_wait_time", VAL_U64);
	if (bits & ETW_CS_QUANTUM)
		add(sh, c, "old_remaining_quantum", VAL_I64);
	if (bits & ETW_CS_QOS) {
		add(sh, c, "old_qos", VAL_U64);
		add(sh, c, "new_qos", VAL_U64);
	}
	if (bits & ETW_CS_EXTRA)
		add(sh, c, "extra_flags", VAL_HEX);
}

/* The fields of a compact CSwitch, in etw_cswitch.c's order. */
static void
make_compact(struct etw_shapes *s, unsigned bits)
{
	struct stream_shape *sh = &s->cc[bits];
	struct stream_column *c = s->cc_cols[bits];

	sh->cols = c;
	add(sh, c, "old_tid", VAL_U64);
	add(sh, c, "old_pid", VAL_U64);
	if (bits & ETW_CC_PRIORITY)
		add(sh, c, "old_priority", VAL_I64);
	if (bits & ETW_CC_WAIT)
		add(sh, c, "old_wait_reason", VAL_STR);
	if (bits & ETW_CC_STATE)
		add(sh, c, "old_state", VAL_STR);
	add(sh, c, "new_wait_time", VAL_U64);
	add(sh, c, "compact", VAL_U64);
}

void
etw_shapes_init(struct etw_shapes *s)
{
	unsigned bits;

	for (bits = 0; bits < ETW_CS_SHAPES; bits++) {
		s->cs[bits].n = 0;
		make_cswitch(s, bits);
	}
	for (bits = 0; bits < ETW_CC_SHAPES; bits++) {
		s->cc[bits].n = 0;
		make_compact(s, bits);
	}
}
