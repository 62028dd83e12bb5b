/*
 * etw_names.h - names for what an .etl file identifies only by number:
 * kernel groups and their event types (etl-format.md 5.1), the
 * KernelTraceControl tasks (section 6) and a few well-known providers.
 *
 * Names follow PerfView's TraceEvent ("Process/DCStart", provider
 * "Windows Kernel"), so that tables can be compared with its output.
 * Everything here is constant data; nothing is allocated.
 */
#ifndef ETW_NAMES_H
#define ETW_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define ETW_KERNEL_PROVIDER "Windows Kernel"

/* The GUID of kernel group `group` (hook >> 8); all zero if unknown. */
void etw_group_guid(unsigned group, unsigned char out[16]);

/* The group whose GUID this is, or -1. */
int etw_group_by_guid(const unsigned char guid[16]);

/*
 * Writes the event name of a classic kernel event, "Group/Type", into
 * buf; types without a name become "Group/Opcode(N)".
 */
void etw_kernel_event_name(unsigned hook, char *buf, size_t cap);

/*
 * For events with a GUID but no schema (FULL_HEADER and EVENT_HEADER
 * events): the provider name and event name if known, NULL otherwise.
 * `opcode` is the FULL_HEADER Class.Type; `id` the EVENT_HEADER id.
 */
const char *etw_provider_name(const unsigned char guid[16]);
/* Tasks with a known name but an unlisted opcode come out as
 * "Task/Opcode(N)", written into buf. */
const char *etw_guid_event_name(const unsigned char guid[16], unsigned opcode,
    char *buf, size_t cap);

#endif
