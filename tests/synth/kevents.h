/*
 * kevents.h - the payloads of the kernel events the generator writes
 * (etl-format.md section 5) and of KernelTraceControl's image identity
 * events (section 6).  Each function lays out one event and hands it to
 * the writer with the header kind a Windows 10 kernel uses for it:
 *
 *	SYSTEM		process, thread, image, heap, SystemConfig
 *	PERFINFO	SampledProfile, StackWalk, CSwitch, ReadyThread,
 *			VirtualAlloc, VirtualFree
 *	FULL_HEADER	KernelTraceControl ImageID and DbgID_RSDS
 *
 * Pointer-sized fields follow the trace's pointer size.
 */
#ifndef KEVENTS_H
#define KEVENTS_H

#include <stdint.h>

#include "etlwrite.h"
#include "images.h"

/* HookId = group << 8 | type, section 0.2. */
enum kernel_hook {
	HOOK_VIRTUAL_ALLOC = 0x0262,
	HOOK_VIRTUAL_FREE = 0x0263,
	HOOK_VIRTUAL_DCSTART = 0x0280,
	HOOK_VIRTUAL_DCEND = 0x0281,
	HOOK_PROCESS_START = 0x0301,
	HOOK_PROCESS_END = 0x0302,
	HOOK_PROCESS_DCSTART = 0x0303,
	HOOK_PROCESS_DCEND = 0x0304,
	HOOK_IMAGE_LOAD = 0x030a,
	HOOK_THREAD_START = 0x0501,
	HOOK_THREAD_END = 0x0502,
	HOOK_THREAD_DCSTART = 0x0503,
	HOOK_THREAD_DCEND = 0x0504,
	HOOK_CSWITCH = 0x0524,
	HOOK_READY_THREAD = 0x0532,
	HOOK_SYSCONFIG_CPU = 0x0b0a,
	HOOK_SAMPLED_PROFILE = 0x0f2e,
	HOOK_HEAP_CREATE = 0x1020,
	HOOK_HEAP_ALLOC = 0x1021,
	HOOK_HEAP_REALLOC = 0x1022,
	HOOK_HEAP_DESTROY = 0x1023,
	HOOK_HEAP_FREE = 0x1024,
	HOOK_IMAGE_UNLOAD = 0x1402,
	HOOK_IMAGE_DCSTART = 0x1403,
	HOOK_IMAGE_DCEND = 0x1404,
	HOOK_STACK = 0x1820,
	HOOK_STACK_KEY_DELETE = 0x1823,
	HOOK_STACK_KEY_RUNDOWN = 0x1824,
	HOOK_STACK_KEY_KERNEL = 0x1825,
	HOOK_STACK_KEY_USER = 0x1826
};

/* KernelTraceControl image identity opcodes (section 6). */
#define KTC_IMAGE_ID		0x00
#define KTC_DBGID_RSDS		0x24

/* VirtualAlloc/VirtualFree flags. */
#define MEM_COMMIT		0x1000
#define MEM_RESERVE		0x2000
#define MEM_DECOMMIT		0x4000
#define MEM_RELEASE		0x8000

extern const struct etl_guid kernel_trace_control_image_guid;

enum account {
	ACCOUNT_SYSTEM,		/* S-1-5-18 */
	ACCOUNT_USER		/* the developer, S-1-5-21-...-1001 */
};

struct kev_process {
	uint64_t	 unique_key;
	uint32_t	 pid;
	uint32_t	 parent_pid;
	uint32_t	 session_id;
	int32_t		 exit_status;
	uint64_t	 directory_table_base;
	enum account	 account;
	const char	*image_file_name;
	const char	*command_line;
};

struct kev_thread {
	uint32_t	 pid;
	uint32_t	 tid;
	uint64_t	 stack_base;
	uint64_t	 stack_limit;
	uint64_t	 user_stack_base;
	uint64_t	 user_stack_limit;
	uint64_t	 affinity;
	uint64_t	 win32_start;
	uint64_t	 teb;
	unsigned	 base_priority;
	const char	*name;		/* Win10 1903+ appends it */
};

struct kev_cswitch {
	uint32_t	new_tid;
	uint32_t	old_tid;
	int		new_priority;
	int		old_priority;
	unsigned	previous_cstate;
	unsigned	old_wait_reason;
	unsigned	old_wait_mode;
	unsigned	old_state;
	unsigned	old_ideal_processor;
	uint32_t	new_wait_time;
};

/* Process Start/End/DCStart/DCEnd, version 4 (5.2). */
void	kev_process(struct etl_writer *w, int cpu, unsigned hook,
	    uint32_t hdr_pid, uint32_t hdr_tid, uint64_t ts,
	    const struct kev_process *p);
/* Thread Start/End/DCStart/DCEnd, version 3 (5.3). */
void	kev_thread(struct etl_writer *w, int cpu, unsigned hook,
	    uint32_t hdr_pid, uint32_t hdr_tid, uint64_t ts,
	    const struct kev_thread *t);
/* Image load (0x030A), unload, DCStart, DCEnd, version 3 (5.4). */
void	kev_image(struct etl_writer *w, int cpu, unsigned hook,
	    uint32_t hdr_pid, uint32_t hdr_tid, uint64_t ts,
	    enum image_id image, uint32_t pid);
/* ImageID and DbgID_RSDS for an image event with the same header (6). */
void	kev_image_identity(struct etl_writer *w, int cpu, uint32_t hdr_pid,
	    uint32_t hdr_tid, uint64_t ts, enum image_id image, uint32_t pid);
/* SampledProfile, version 2 (5.5). */
void	kev_sample(struct etl_writer *w, int cpu, uint64_t ts, uint64_t ip,
	    uint32_t tid, unsigned priority, unsigned flags);
/* StackWalk Stack (5.6); frames innermost first. */
void	kev_stack(struct etl_writer *w, int cpu, uint64_t ts, uint32_t pid,
	    uint32_t tid, const uint64_t *frames, int nframes);
/* The same, logged at `ts` for the event at `event_ts` (a later part). */
void	kev_stack_late(struct etl_writer *w, int cpu, uint64_t ts,
	    uint64_t event_ts, uint32_t pid, uint32_t tid,
	    const uint64_t *frames, int nframes);
/* StackKeyKernel or StackKeyUser: a reference to a cached stack. */
void	kev_stack_key(struct etl_writer *w, int cpu, unsigned hook,
	    uint64_t ts, uint32_t pid, uint32_t tid, uint64_t key);
/* KeyDelete or KeyRundown: the frames a key stood for. */
void	kev_stack_key_frames(struct etl_writer *w, int cpu, unsigned hook,
	    uint64_t ts, uint64_t key, const uint64_t *frames, int nframes);
/* VirtualAlloc or VirtualFree, version 2 (5.7). */
void	kev_virtual(struct etl_writer *w, int cpu, unsigned hook,
	    uint64_t ts, uint64_t base, uint64_t size, uint32_t pid,
	    uint32_t flags);
/* VirtualAllocDCStart or DCEnd (4.1): + CommitSizeInBytes. */
void	kev_virtual_rundown(struct etl_writer *w, int cpu, unsigned hook,
	    uint64_t ts, uint64_t base, uint64_t size, uint32_t pid,
	    uint32_t flags, uint64_t commit);
/* Heap events, version 3, byte-packed (5.8). */
void	kev_heap_create(struct etl_writer *w, int cpu, uint32_t pid,
	    uint32_t tid, uint64_t ts, uint64_t heap, uint64_t reserved,
	    uint64_t committed);
void	kev_heap_alloc(struct etl_writer *w, int cpu, uint32_t pid,
	    uint32_t tid, uint64_t ts, uint64_t heap, uint64_t size,
	    uint64_t address);
void	kev_heap_realloc(struct etl_writer *w, int cpu, uint32_t pid,
	    uint32_t tid, uint64_t ts, uint64_t heap, uint64_t new_address,
	    uint64_t old_address, uint64_t new_size, uint64_t old_size);
void	kev_heap_free(struct etl_writer *w, int cpu, uint32_t pid,
	    uint32_t tid, uint64_t ts, uint64_t heap, uint64_t address);
void	kev_heap_destroy(struct etl_writer *w, int cpu, uint32_t pid,
	    uint32_t tid, uint64_t ts, uint64_t heap);
/* CSwitch, version 4, 24 bytes (5.3). */
void	kev_cswitch(struct etl_writer *w, int cpu, uint64_t ts,
	    const struct kev_cswitch *c);
/* CSwitch of `version`: 24 bytes, 28 from version 5 (etl-events-2 3.1). */
void	kev_cswitch_version(struct etl_writer *w, int cpu, uint64_t ts,
	    const struct kev_cswitch *c, unsigned version);
/* ReadyThread, version 2 (5.3). */
void	kev_ready_thread(struct etl_writer *w, int cpu, uint64_t ts,
	    uint32_t tid, int adjust_reason, int adjust_increment,
	    unsigned flags);
/* SystemConfig CPU, version 3 (layout of a Win8 x64 sample, 5.9). */
void	kev_system_config_cpu(struct etl_writer *w, int cpu,
	    uint32_t hdr_pid, uint32_t hdr_tid, uint64_t ts);

#endif
