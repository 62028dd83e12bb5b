/*
 * etw_shapes.h - the fields of the hot kernel events, declared once
 * (stream.h, struct stream_shape), so that their handlers give values
 * only, in this order, and the writer knows their schema by address.
 * The names and types are those of man/etl-stream.5.
 */
#ifndef ETW_SHAPES_H
#define ETW_SHAPES_H

#include "stream/stream.h"

extern const struct stream_shape etw_shape_sample;
extern const struct stream_shape etw_shape_image;
extern const struct stream_shape etw_shape_process;
extern const struct stream_shape etw_shape_thread_affinity;
extern const struct stream_shape etw_shape_thread_start;
extern const struct stream_shape etw_shape_vmem;
extern const struct stream_shape etw_shape_vmem_rundown;	/* commit */
extern const struct stream_shape etw_shape_heap;		/* heap only */
extern const struct stream_shape etw_shape_heap_create;
extern const struct stream_shape etw_shape_heap_alloc;
extern const struct stream_shape etw_shape_heap_realloc;
extern const struct stream_shape etw_shape_heap_free;
extern const struct stream_shape etw_shape_ready;

/* What a CSwitch holds besides the fields every version has. */
enum etw_cswitch_bits {
	ETW_CS_V1 = 1 << 0,	/* quantum fields, not cstate and decrement */
	ETW_CS_WAIT = 1 << 1,	/* old_wait_reason: the old thread waits */
	ETW_CS_QUANTUM = 1 << 2,	/* old_remaining_quantum */
	ETW_CS_QOS = 1 << 3,	/* old_qos, new_qos (version 3 on) */
	ETW_CS_EXTRA = 1 << 4,	/* extra_flags */
	ETW_CS_SHAPES = 1 << 5
};

/* What a compact CSwitch (a batch's record) holds of the optional. */
enum etw_compact_bits {
	ETW_CC_PRIORITY = 1 << 0,	/* old_priority */
	ETW_CC_WAIT = 1 << 1,		/* old_wait_reason */
	ETW_CC_STATE = 1 << 2,		/* old_state */
	ETW_CC_SHAPES = 1 << 3
};

#define ETW_CS_FIELDS	16

/* The shapes of CSwitch and compact CSwitch, one for each set of bits. */
struct etw_shapes {
	struct stream_shape cs[ETW_CS_SHAPES];
	struct stream_column cs_cols[ETW_CS_SHAPES][ETW_CS_FIELDS];
	struct stream_shape cc[ETW_CC_SHAPES];
	struct stream_column cc_cols[ETW_CC_SHAPES][ETW_CS_FIELDS];
};

/* Makes them, once a decoder, which keeps them as long as its writer. */
void etw_shapes_init(struct etw_shapes *s);

#endif
