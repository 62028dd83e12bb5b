/*
 * manifest.c - writes the manifest lines (format in manifest.h and in
 * the header comment below, which every manifest carries).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "etlwrite.h"
#include "manifest.h"

static const char *const header_lines[] = {
	"etlsynth manifest: what the trace beside it holds, for tests.",
	"Tab-separated; the first field says what a line is:",
	"process PID START_NS PARENT_PID IMAGE SAMPLES COMMITTED_BYTES",
	"        FREED_BYTES HEAP_OUTSTANDING_BYTES CMDLINE",
	"  one per process instance, written when it exits (or, if alive,",
	"  at the end).  START_NS: ns from the trace header's timestamp to",
	"  its Process/Start; 0 if it predates the trace (Process/DCStart).",
	"  A reused PID appears again with another START_NS.  IMAGE is the",
	"  kernel's ImageFileName.  SAMPLES: SampledProfile events on its",
	"  threads (Idle, pid 0, gets the idle samples).  COMMITTED_BYTES:",
	"  sum of VirtualAlloc RegionSize (all MEM_COMMIT|MEM_RESERVE);",
	"  FREED_BYTES: sum of VirtualFree RegionSize (MEM_RELEASE);",
	"  HEAP_OUTSTANDING_BYTES: heap bytes allocated and not freed at",
	"  its end (Alloc +size, ReAlloc +new -old, Free -size; a heap is",
	"  emptied before HeapDestroy).  CMDLINE is the rest of the line.",
	"stack COUNT FRAMES",
	"  samples whose stack is FRAMES: hex return addresses joined by",
	"  ';', outermost user frame first, the kernel frames after the user",
	"  ones (the reverse of the kernel fragment followed by the user",
	"  fragment).  Samples without a stack are not counted here.",
	"hook HOOKID COUNT",
	"  events with a SYSTEM or PERFINFO header and this HookId",
	"  (group << 8 | type, 4 hex digits), the trace header (0x0000) too.",
	"guid GUID OPCODE COUNT",
	"  FULL_HEADER events of this GUID and opcode (2 hex digits).",
	"total NAME VALUE",
	"  events (all, the trace header included), buffers (the header",
	"  buffer included), compressed_buffers, events_lost (the trace",
	"  header's EventsLost), samples, samples_without_stack, processes",
	"  (the number of process lines).",
};

/* Only in the manifests of traces made with --self-profile or --pause. */
static const char *const profile_header_lines[] = {
	"profile PID START_NS PROFILE_NS EVENTS CUT FILE",
	"  a rustc instance's self-profile (--self-profile): the process",
	"  (PID and START_NS as its process line), PROFILE_NS: ns from the",
	"  trace header's timestamp to the profile's start_time, its",
	"  intervals, CUT 1 if the trace ended before the process (its",
	"  open intervals end with the trace), and the file's name in DIR.",
	"profile_thread PID START_NS THREAD TID",
	"  a thread of that profile, rustc's ThreadId, and the Windows",
	"  thread it ran on.",
	"query_samples PID START_NS LABEL SAMPLES",
	"  the process's samples whose thread was inside query LABEL",
	"  (innermost) when taken; LABEL \"(no query)\" for the rest of its",
	"  samples.  These are the rows of etlagg cpu --by query.",
	"slow_query LABEL FACTOR",
	"  --slow-query: the front end's query that takes FACTOR times as",
	"  long in every rustc.",
	"pause PID START_NS TID THREAD READYING_TID FROM_NS TO_NS LABEL",
	"  --pause: the rustc thread TID (ThreadId THREAD in its profile,",
	"  0 without one) blocked on a lock from FROM_NS (its switch-out,",
	"  ns from the trace header's timestamp) to TO_NS (the ReadyThread",
	"  that the lock's holder, READYING_TID of the same process,",
	"  logged), inside query LABEL (\"(no query)\" if none).",
};

/* Only in the manifests of traces made with --pdb. */
static const char *const pdb_header_lines[] = {
	"pdb IMAGE GUID AGE PDB_NAME",
	"  an image given a PDB (--pdb): its file name, and the identity",
	"  its DbgID_RSDS events carry: the PDB's GUID, its DBI age and the",
	"  PDB file name.  Its size covers the PDB's sections; its frames",
	"  lie inside the PDB's procedures, at least a byte past the start.",
	"symbol IMAGE RVA SIZE SAMPLES INCLUSIVE FUNCTION",
	"  a procedure of such a PDB that frames lie in: where it starts",
	"  (hex) and its size in bytes; SAMPLES: samples whose interrupted",
	"  instruction (innermost frame; a sample without a stack counts",
	"  by its instruction pointer) is in it; INCLUSIVE: samples with a",
	"  frame in it, each counted once; FUNCTION, the rest of the line:",
	"  its name in the PDB.  These are the samples and inclusive",
	"  columns of etlagg cpu --by function once frames are symbolized.",
};

void
manifest_header(FILE *fp, const char *options, int with_pdb,
    int with_profile)
{
	size_t i;

	for (i = 0; i < sizeof(header_lines) / sizeof(header_lines[0]); i++)
		fprintf(fp, "# %s\n", header_lines[i]);
	for (i = 0; with_profile && i < sizeof(profile_header_lines) /
	    sizeof(profile_header_lines[0]); i++)
		fprintf(fp, "# %s\n", profile_header_lines[i]);
	for (i = 0; with_pdb && i < sizeof(pdb_header_lines) /
	    sizeof(pdb_header_lines[0]); i++)
		fprintf(fp, "# %s\n", pdb_header_lines[i]);
	fprintf(fp, "# made by: etlsynth %s\n", options);
}

void
manifest_process(FILE *fp, uint32_t pid, uint64_t start_ns,
    uint32_t parent_pid, const char *image, uint64_t samples,
    uint64_t committed, uint64_t freed, uint64_t heap_outstanding,
    const char *cmdline)
{
	fprintf(fp, "process\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu32 "\t%s\t%"
	    PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", pid,
	    start_ns, parent_pid, image, samples, committed, freed,
	    heap_outstanding, cmdline);
}

void
manifest_total(FILE *fp, const char *name, uint64_t value)
{
	fprintf(fp, "total\t%s\t%" PRIu64 "\n", name, value);
}

static void
write_guid(FILE *fp, const struct etl_guid *g)
{
	fprintf(fp, "%08" PRIx32 "-%04x-%04x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x", g->data1, g->data2, g->data3,
	    g->data4[0], g->data4[1], g->data4[2], g->data4[3], g->data4[4],
	    g->data4[5], g->data4[6], g->data4[7]);
}

static void
write_guid_counts(FILE *fp, const struct etlw_guid_count *gc)
{
	int op;

	for (op = 0; op < 256; op++) {
		if (gc->per_opcode[op] == 0)
			continue;
		fputs("guid\t", fp);
		write_guid(fp, &gc->guid);
		fprintf(fp, "\t0x%02x\t%" PRIu64 "\n", op,
		    gc->per_opcode[op]);
	}
}

void
manifest_pdb(FILE *fp, const char *image, const struct etl_guid *guid,
    uint32_t age, const char *pdb_name)
{
	fprintf(fp, "pdb\t%s\t", image);
	write_guid(fp, guid);
	fprintf(fp, "\t%" PRIu32 "\t%s\n", age, pdb_name);
}

void
manifest_symbol(FILE *fp, const char *image, uint32_t rva, uint32_t size,
    uint64_t samples, uint64_t inclusive, const char *function)
{
	fprintf(fp, "symbol\t%s\t0x%" PRIx32 "\t%" PRIu32 "\t%" PRIu64
	    "\t%" PRIu64 "\t%s\n", image, rva, size, samples, inclusive,
	    function);
}

void
manifest_counts(FILE *fp, const struct etl_writer *w)
{
	int hook, i;

	for (hook = 0; hook < 65536; hook++)
		if (w->hook_counts[hook] != 0)
			fprintf(fp, "hook\t0x%04x\t%" PRIu64 "\n", hook,
			    w->hook_counts[hook]);
	for (i = 0; i < w->nguids; i++)
		write_guid_counts(fp, &w->guid_counts[i]);
	manifest_total(fp, "events", w->events);
	manifest_total(fp, "buffers", w->buffers);
	manifest_total(fp, "compressed_buffers", w->compressed_buffers);
	manifest_total(fp, "events_lost", w->events_lost);
}

void
manifest_profile(FILE *fp, uint32_t pid, uint64_t start_ns,
    uint64_t profile_ns, uint64_t events, int cut, const char *file)
{
	fprintf(fp, "profile\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%"
	    PRIu64 "\t%d\t%s\n", pid, start_ns, profile_ns, events, cut,
	    file);
}

void
manifest_profile_thread(FILE *fp, uint32_t pid, uint64_t start_ns,
    uint32_t thread, uint32_t tid)
{
	fprintf(fp, "profile_thread\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu32
	    "\t%" PRIu32 "\n", pid, start_ns, thread, tid);
}

void
manifest_query_samples(FILE *fp, uint32_t pid, uint64_t start_ns,
    const char *label, uint64_t samples)
{
	fprintf(fp, "query_samples\t%" PRIu32 "\t%" PRIu64 "\t%s\t%" PRIu64
	    "\n", pid, start_ns, label, samples);
}

void
manifest_pause(FILE *fp, const struct manifest_pause *p)
{
	fprintf(fp, "pause\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32
	    "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", p->pid,
	    p->start_ns, p->tid, p->thread, p->readying_tid, p->from_ns,
	    p->to_ns, p->label);
}
