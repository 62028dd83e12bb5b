/*
 * etw_kernel.h - payload layouts of the NT Kernel Logger events that the
 * toolkit turns into first-class records, and of KernelTraceControl's
 * ImageID events (etl-format.md sections 5 and 6).
 *
 * etw_kernel_decode() is a pure function of one raw event: it does not
 * know about other events (stack attachment, joins and identities are
 * etw_decode's job).  Strings are converted to UTF-8 into the caller's
 * scratch memory; the result points into it and into the event.
 */
#ifndef ETW_KERNEL_H
#define ETW_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "etl/in_etl.h"

enum etw_krec {
	KREC_NONE = 0,		/* not a layout decoded here */
	KREC_TRACE_HEADER,	/* EventTrace/Header: already read by in_etl */
	KREC_PROCESS,
	KREC_THREAD,
	KREC_IMAGE,
	KREC_SAMPLE,
	KREC_STACK,		/* StackWalk/Stack: frames for another event */
	KREC_STACK_KEY,		/* StackKeyKernel/User: a cached stack's key */
	KREC_KEY_DEF,		/* KeyDelete/KeyRundown: a key's frames */
	KREC_VMEM,
	KREC_HEAP,
	KREC_CSWITCH,
	KREC_CSWITCH_BATCH,	/* compact CSwitch batch (0x0525): etw_cswitch */
	KREC_READY,
	KREC_CPU_CONFIG,	/* SystemConfig/CPU */
	KREC_INTERVAL,		/* PerfInfo SetInterval, CollectionStart/End */
	KREC_IMAGE_ID,		/* KernelTraceControl ImageID */
	KREC_DBG_ID,		/* KernelTraceControl DbgID_RSDS/ILRSDS */
	KREC_LOST		/* RT_LostEvent */
};

struct etw_kernel {
	enum etw_krec type;
	uint8_t op;		/* enum stream_ev_op of the record */
	union {
		struct {
			uint64_t key, dtb;
			uint32_t pid, ppid, session, flags;
			int32_t exit_status;
			const char *name, *cmdline;
		} process;
		struct {
			uint32_t pid, tid;
			uint64_t start_addr, affinity, win32_start, teb;
			const char *name;
		} thread;
		struct {
			uint64_t base, size, default_base;
			uint32_t pid, checksum, timestamp;
			const char *path;
		} image;
		struct {
			uint64_t ip;
			uint32_t tid;
			uint16_t count;
			uint8_t flags, rank;
		} sample;
		struct {
			uint64_t event_ts;	/* raw clock of the owner */
			uint32_t pid, tid;
			uint64_t key;		/* KREC_STACK_KEY, KREC_KEY_DEF */
			int user;		/* StackKeyUser */
			const unsigned char *frames;	/* ptr_size each */
			uint32_t nframes;
		} stack;
		struct {
			uint64_t base, size, commit;
			uint32_t pid, flags;
		} vmem;
		struct {
			uint64_t heap, address, size, old_address, old_size;
			uint32_t source, flags;
		} heap;
		struct etw_cswitch_fields {	/* etl-events-2.md 3.1 */
			uint32_t new_tid, old_tid, new_wait_time;
			int32_t remaining_quantum;	/* v2+, 24 bytes */
			int8_t new_priority, old_priority;
			uint8_t byte10;	/* v1 NewThreadQuantum, else
					   PreviousCState/OldThreadRank */
			uint8_t byte11;	/* v1 OldThreadQuantum, else
					   NewThreadPriorityDecrement */
			uint8_t old_wait_reason, old_wait_mode, old_state;
			uint8_t flags;	/* byte 13 whole (v3+: QoS bits) */
			uint8_t ideal_cpu;
			uint8_t extra_flags;	/* v5, 28 bytes */
			uint8_t version, has_quantum, has_extra;
		} cswitch;
		struct {		/* etl-events-2.md 2.2 */
			const unsigned char *data;
			size_t len;
		} batch;
		struct {
			uint32_t tid;
			int8_t reason, increment;
			uint8_t flags;
		} ready;
		struct {
			uint32_t source, new_interval, old_interval;
			const char *name;	/* the profile source's */
		} interval;
		struct {
			uint32_t mhz, cpus, memory_mb, page_size;
			const char *computer;
		} cpu;
		struct {
			uint64_t base, size;
			uint32_t pid, timestamp;
			const char *original_name;
		} image_id;
		struct {
			uint64_t base;
			uint32_t pid, age;
			const unsigned char *guid;	/* 16 bytes */
			const char *pdb_name;
		} dbg_id;
	} u;
};

/*
 * Decodes `ev` if its layout is one of the above.  For classic kernel
 * events `hook` is group<<8|type (for FULL_HEADER events with a kernel
 * group GUID the caller derives it); -1 for KernelTraceControl events.
 * @return : 0 (out->type says what it was; KREC_NONE if not ours), or -1
 *	if the payload is too short for its layout.
 */
int etw_kernel_decode(const struct etl_event *ev, int hook,
    struct etw_kernel *out, char *scratch, size_t cap);

/* Whether `addr` is a kernel-mode address for this pointer size. */
int etw_kernel_address(uint64_t addr, int ptr_size);

/* Reads one pointer-sized value. */
uint64_t etw_ptr(const unsigned char *p, int ptr_size);

#endif
