/*
 * kevents.c - payload layouts of the kernel and KernelTraceControl events
 * (etl-format.md sections 5 and 6).
 */
#include <stdint.h>

#include "etlwrite.h"
#include "images.h"
#include "kevents.h"

#define PROCESS_VERSION		4
#define THREAD_VERSION		3
#define IMAGE_VERSION		3
#define PERFINFO_VERSION	2
#define STACKWALK_VERSION	2
#define PAGEFAULT_VERSION	2
#define HEAP_VERSION		3
#define CSWITCH_VERSION		4
#define READY_THREAD_VERSION	2
#define SYSCONFIG_CPU_VERSION	3
#define KTC_VERSION		2

#define HEAP_GROWABLE		0x00000002
#define SIGNATURE_LEVEL_SIGNED	0x0c	/* Authenticode */
#define SIGNATURE_TYPE_EMBEDDED	0x01

/* b3e675d7-2554-4f18-830b-2762732560de */
const struct etl_guid kernel_trace_control_image_guid = {
	0xb3e675d7, 0x2554, 0x4f18,
	{ 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde }
};

static void
payload_for(struct etlw_payload *p, const struct etl_writer *w)
{
	payload_start(p, w->info.pointer_size);
}

/* A binary SID: S-1-5-18 or the developer's S-1-5-21-...-1001. */
static void
payload_sid(struct etlw_payload *p, enum account account)
{
	static const uint32_t user[] = { 21, 3623811015u, 3361044348u,
	    30300820u, 1001 };
	static const uint32_t system[] = { 18 };
	const uint32_t *sub = account == ACCOUNT_USER ? user : system;
	int i, n = account == ACCOUNT_USER ? 5 : 1;

	payload_u8(p, 1);			/* Revision */
	payload_u8(p, (unsigned)n);
	payload_zeros(p, 5);		/* IdentifierAuthority, BE */
	payload_u8(p, 5);			/* SECURITY_NT_AUTHORITY */
	for (i = 0; i < n; i++)
		payload_u32(p, sub[i]);
}

/*
 * TOKEN_USER { PSID Sid; u32 Attributes; } padded to two pointers, then
 * the SID (5.2.1).  Sid points into kernel pool, so it is never 0.
 */
static void
payload_token_user(struct etlw_payload *p, enum account account)
{
	if (p->pointer_size == 4) {
		payload_u32(p, 0x8d6a3f28);
		payload_u32(p, 0);
	} else {
		payload_u64(p, 0xffffa48c3e6a3f28ULL);
		payload_u32(p, 0);
		payload_zeros(p, 4);
	}
	payload_sid(p, account);
}

void
kev_process(struct etl_writer *w, int cpu, unsigned hook, uint32_t hdr_pid,
    uint32_t hdr_tid, uint64_t ts, const struct kev_process *pr)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, pr->unique_key);
	payload_u32(&p, pr->pid);
	payload_u32(&p, pr->parent_pid);
	payload_u32(&p, pr->session_id);
	payload_u32(&p, (uint32_t)pr->exit_status);
	payload_ptr(&p, pr->directory_table_base);
	payload_u32(&p, 0);			/* Flags */
	payload_token_user(&p, pr->account);
	payload_ansi(&p, pr->image_file_name);
	payload_utf16(&p, pr->command_line);
	payload_utf16(&p, "");			/* PackageFullName */
	payload_utf16(&p, "");			/* ApplicationId */
	etlw_system(w, cpu, hook, PROCESS_VERSION, hdr_pid, hdr_tid, ts, &p);
}

void
kev_thread(struct etl_writer *w, int cpu, unsigned hook, uint32_t hdr_pid,
    uint32_t hdr_tid, uint64_t ts, const struct kev_thread *t)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_u32(&p, t->pid);
	payload_u32(&p, t->tid);
	payload_ptr(&p, t->stack_base);
	payload_ptr(&p, t->stack_limit);
	payload_ptr(&p, t->user_stack_base);
	payload_ptr(&p, t->user_stack_limit);
	payload_ptr(&p, t->affinity);
	payload_ptr(&p, t->win32_start);
	payload_ptr(&p, t->teb);
	payload_u32(&p, 0);			/* SubProcessTag */
	payload_u8(&p, t->base_priority);
	payload_u8(&p, 5);			/* PagePriority */
	payload_u8(&p, 2);			/* IoPriority */
	payload_u8(&p, 0);			/* ThreadFlags */
	if (t->name != NULL)
		payload_utf16(&p, t->name);
	etlw_system(w, cpu, hook, THREAD_VERSION, hdr_pid, hdr_tid, ts, &p);
}

void
kev_image(struct etl_writer *w, int cpu, unsigned hook, uint32_t hdr_pid,
    uint32_t hdr_tid, uint64_t ts, enum image_id image, uint32_t pid)
{
	const struct image_desc *d = image_desc(image);
	int ps = w->info.pointer_size;
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, image_base(image, ps));
	payload_ptr(&p, image_size(image, ps));
	payload_u32(&p, pid);
	payload_u32(&p, d->checksum);
	payload_u32(&p, d->time_date_stamp);
	payload_u8(&p, SIGNATURE_LEVEL_SIGNED);
	payload_u8(&p, SIGNATURE_TYPE_EMBEDDED);
	payload_u16(&p, 0);			/* Reserved0 */
	payload_ptr(&p, image_base(image, ps));	/* DefaultBase */
	payload_zeros(&p, 16);			/* Reserved1..4 */
	payload_utf16(&p, image_path(image, ps));
	etlw_system(w, cpu, hook, IMAGE_VERSION, hdr_pid, hdr_tid, ts, &p);
}

void
kev_image_identity(struct etl_writer *w, int cpu, uint32_t hdr_pid,
    uint32_t hdr_tid, uint64_t ts, enum image_id image, uint32_t pid)
{
	const struct image_desc *d = image_desc(image);
	int ps = w->info.pointer_size;
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, image_base(image, ps));
	payload_ptr(&p, image_size(image, ps));
	payload_u32(&p, pid);
	payload_u32(&p, d->time_date_stamp);
	payload_utf16(&p, d->file_name);
	etlw_full(w, cpu, &kernel_trace_control_image_guid, KTC_IMAGE_ID,
	    KTC_VERSION, hdr_pid, hdr_tid, ts, &p);

	payload_for(&p, w);
	payload_ptr(&p, image_base(image, ps));
	payload_u32(&p, pid);
	payload_guid(&p, &d->pdb_guid);
	payload_u32(&p, d->pdb_age);
	payload_ansi(&p, d->pdb_name);
	etlw_full(w, cpu, &kernel_trace_control_image_guid, KTC_DBGID_RSDS,
	    KTC_VERSION, hdr_pid, hdr_tid, ts, &p);
}

void
kev_sample(struct etl_writer *w, int cpu, uint64_t ts, uint64_t ip,
    uint32_t tid, unsigned priority, unsigned flags)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, ip);
	payload_u32(&p, tid);
	payload_u16(&p, 1);			/* Count */
	payload_u8(&p, priority << 3 | flags);
	payload_u8(&p, 0);			/* Rank */
	etlw_perfinfo(w, cpu, HOOK_SAMPLED_PROFILE, PERFINFO_VERSION, ts, &p);
}

void
kev_stack(struct etl_writer *w, int cpu, uint64_t ts, uint32_t pid,
    uint32_t tid, const uint64_t *frames, int nframes)
{
	kev_stack_late(w, cpu, ts, ts, pid, tid, frames, nframes);
}

void
kev_stack_late(struct etl_writer *w, int cpu, uint64_t ts, uint64_t event_ts,
    uint32_t pid, uint32_t tid, const uint64_t *frames, int nframes)
{
	struct etlw_payload p;
	int i;

	payload_for(&p, w);
	payload_u64(&p, event_ts);		/* EventTimeStamp */
	payload_u32(&p, pid);
	payload_u32(&p, tid);
	for (i = 0; i < nframes; i++)
		payload_ptr(&p, frames[i]);
	etlw_perfinfo(w, cpu, HOOK_STACK, STACKWALK_VERSION, ts, &p);
}

void
kev_stack_key(struct etl_writer *w, int cpu, unsigned hook, uint64_t ts,
    uint32_t pid, uint32_t tid, uint64_t key)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_u64(&p, ts);			/* EventTimeStamp */
	payload_u32(&p, pid);
	payload_u32(&p, tid);
	payload_ptr(&p, key);
	etlw_perfinfo(w, cpu, hook, STACKWALK_VERSION, ts, &p);
}

void
kev_stack_key_frames(struct etl_writer *w, int cpu, unsigned hook,
    uint64_t ts, uint64_t key, const uint64_t *frames, int nframes)
{
	struct etlw_payload p;
	int i;

	payload_for(&p, w);
	payload_ptr(&p, key);
	for (i = 0; i < nframes; i++)
		payload_ptr(&p, frames[i]);
	etlw_perfinfo(w, cpu, hook, STACKWALK_VERSION, ts, &p);
}

void
kev_virtual(struct etl_writer *w, int cpu, unsigned hook, uint64_t ts,
    uint64_t base, uint64_t size, uint32_t pid, uint32_t flags)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, base);
	payload_ptr(&p, size);
	payload_u32(&p, pid);
	payload_u32(&p, flags);
	etlw_perfinfo(w, cpu, hook, PAGEFAULT_VERSION, ts, &p);
}

void
kev_virtual_rundown(struct etl_writer *w, int cpu, unsigned hook,
    uint64_t ts, uint64_t base, uint64_t size, uint32_t pid, uint32_t flags,
    uint64_t commit)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, base);
	payload_ptr(&p, size);
	payload_u32(&p, pid);
	payload_u32(&p, flags);
	payload_ptr(&p, commit);
	etlw_perfinfo(w, cpu, hook, PAGEFAULT_VERSION, ts, &p);
}

void
kev_heap_create(struct etl_writer *w, int cpu, uint32_t pid, uint32_t tid,
    uint64_t ts, uint64_t heap, uint64_t reserved, uint64_t committed)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, heap);
	payload_u32(&p, HEAP_GROWABLE);
	payload_ptr(&p, reserved);
	payload_ptr(&p, committed);
	payload_ptr(&p, 0);			/* AllocatedSpace */
	etlw_system(w, cpu, HOOK_HEAP_CREATE, HEAP_VERSION, pid, tid, ts, &p);
}

void
kev_heap_alloc(struct etl_writer *w, int cpu, uint32_t pid, uint32_t tid,
    uint64_t ts, uint64_t heap, uint64_t size, uint64_t address)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, heap);
	payload_ptr(&p, size);
	payload_ptr(&p, address);
	payload_u32(&p, 0);			/* SourceId: main path */
	etlw_system(w, cpu, HOOK_HEAP_ALLOC, HEAP_VERSION, pid, tid, ts, &p);
}

void
kev_heap_realloc(struct etl_writer *w, int cpu, uint32_t pid, uint32_t tid,
    uint64_t ts, uint64_t heap, uint64_t new_address, uint64_t old_address,
    uint64_t new_size, uint64_t old_size)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, heap);
	payload_ptr(&p, new_address);
	payload_ptr(&p, old_address);
	payload_ptr(&p, new_size);
	payload_ptr(&p, old_size);
	payload_u32(&p, 0);			/* SourceId */
	etlw_system(w, cpu, HOOK_HEAP_REALLOC, HEAP_VERSION, pid, tid, ts, &p);
}

void
kev_heap_free(struct etl_writer *w, int cpu, uint32_t pid, uint32_t tid,
    uint64_t ts, uint64_t heap, uint64_t address)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, heap);
	payload_ptr(&p, address);
	payload_u32(&p, 0);			/* SourceId */
	etlw_system(w, cpu, HOOK_HEAP_FREE, HEAP_VERSION, pid, tid, ts, &p);
}

void
kev_heap_destroy(struct etl_writer *w, int cpu, uint32_t pid, uint32_t tid,
    uint64_t ts, uint64_t heap)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_ptr(&p, heap);
	etlw_system(w, cpu, HOOK_HEAP_DESTROY, HEAP_VERSION, pid, tid, ts, &p);
}

void
kev_cswitch(struct etl_writer *w, int cpu, uint64_t ts,
    const struct kev_cswitch *c)
{
	kev_cswitch_version(w, cpu, ts, c, CSWITCH_VERSION);
}

void
kev_cswitch_version(struct etl_writer *w, int cpu, uint64_t ts,
    const struct kev_cswitch *c, unsigned version)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_u32(&p, c->new_tid);
	payload_u32(&p, c->old_tid);
	payload_u8(&p, (unsigned)c->new_priority);
	payload_u8(&p, (unsigned)c->old_priority);
	payload_u8(&p, c->previous_cstate);
	payload_u8(&p, 0);			/* SpareByte */
	payload_u8(&p, c->old_wait_reason);
	payload_u8(&p, c->old_wait_mode);
	payload_u8(&p, c->old_state);
	payload_u8(&p, c->old_ideal_processor);
	payload_u32(&p, c->new_wait_time);
	payload_u32(&p, 0);			/* Reserved */
	if (version >= 5)
		payload_u32(&p, 0);		/* ExtraFlags, 3 zero bytes */
	etlw_perfinfo(w, cpu, HOOK_CSWITCH, version, ts, &p);
}

void
kev_ready_thread(struct etl_writer *w, int cpu, uint64_t ts, uint32_t tid,
    int adjust_reason, int adjust_increment, unsigned flags)
{
	struct etlw_payload p;

	payload_for(&p, w);
	payload_u32(&p, tid);
	payload_u8(&p, (unsigned)adjust_reason);
	payload_u8(&p, (unsigned)adjust_increment);
	payload_u8(&p, flags);
	payload_u8(&p, 0);			/* Reserved */
	etlw_perfinfo(w, cpu, HOOK_READY_THREAD, READY_THREAD_VERSION, ts,
	    &p);
}

/*
 * The layout of a real Win8 x64 version 3 event (828 bytes):
 * ComputerName is WCHAR[256] and DomainName WCHAR[136], then
 * HyperThreadingFlag, HighestUserAddress (pointer), ProcessorArchitecture,
 * ProcessorLevel, ProcessorRevision, PaeEnabled, NxEnabled, MemorySpeed.
 */
void
kev_system_config_cpu(struct etl_writer *w, int cpu, uint32_t hdr_pid,
    uint32_t hdr_tid, uint64_t ts)
{
	struct etlw_payload p;
	int x86 = w->info.pointer_size == 4;

	payload_for(&p, w);
	payload_u32(&p, w->info.cpu_mhz);
	payload_u32(&p, (uint32_t)w->info.ncpus);
	payload_u32(&p, x86 ? 3072 : 32768);	/* MemSize, MB */
	payload_u32(&p, 4096);			/* PageSize */
	payload_u32(&p, 65536);		/* AllocationGranularity */
	payload_utf16_array(&p, "RUSTBUILD-01", 256);
	payload_utf16_array(&p, "", 136);
	payload_u32(&p, 1);			/* HyperThreadingFlag */
	payload_ptr(&p, x86 ? 0x7ffeffff : 0x00007ffffffeffffULL);
	payload_u16(&p, x86 ? 0 : 9);		/* x86 or AMD64 */
	payload_u16(&p, 6);			/* ProcessorLevel */
	payload_u16(&p, 0x9a03);		/* ProcessorRevision */
	payload_u8(&p, 1);			/* PaeEnabled */
	payload_u8(&p, 1);			/* NxEnabled */
	payload_u32(&p, 3200);			/* MemorySpeed, MHz */
	etlw_system(w, cpu, HOOK_SYSCONFIG_CPU, SYSCONFIG_CPU_VERSION,
	    hdr_pid, hdr_tid, ts, &p);
}
