/*
 * manifest.h - the ground truth written beside a generated trace, as
 * FILE.etl.manifest.tsv: tab-separated lines, '#' starts a comment.
 *
 *	process PID START_NS PARENT_PID IMAGE SAMPLES COMMITTED_BYTES
 *	    FREED_BYTES HEAP_OUTSTANDING_BYTES CMDLINE
 *	stack	COUNT	FRAMES
 *	hook	HOOKID	COUNT
 *	guid	GUID	OPCODE	COUNT
 *	total	NAME	VALUE
 *
 * for a trace made with --self-profile, --slow-query or --pause,
 *
 *	profile	PID	START_NS	PROFILE_NS	EVENTS	CUT	FILE
 *	profile_thread	PID	START_NS	THREAD	TID
 *	query_samples	PID	START_NS	LABEL	SAMPLES
 *	slow_query	LABEL	FACTOR
 *	pause	PID	START_NS	TID	THREAD	READYING_TID	FROM_NS	TO_NS	LABEL
 *
 * and, for a trace made with --pdb,
 *
 *	pdb	IMAGE	GUID	AGE	PDB_NAME
 *	symbol	IMAGE	RVA	SIZE	SAMPLES	INCLUSIVE	FUNCTION
 *
 * The comment block at the top of every manifest explains each column.
 */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <stdint.h>
#include <stdio.h>

#include "etlwrite.h"

/*
 * The explanatory comment block; `options` is how the trace was made,
 * `with_pdb` whether the pdb and symbol lines need explaining,
 * `with_profile` the profile, query and pause lines.
 */
void	manifest_header(FILE *fp, const char *options, int with_pdb,
	    int with_profile);
void	manifest_process(FILE *fp, uint32_t pid, uint64_t start_ns,
	    uint32_t parent_pid, const char *image, uint64_t samples,
	    uint64_t committed, uint64_t freed, uint64_t heap_outstanding,
	    const char *cmdline);
void	manifest_total(FILE *fp, const char *name, uint64_t value);
void	manifest_pdb(FILE *fp, const char *image, const struct etl_guid *guid,
	    uint32_t age, const char *pdb_name);
void	manifest_symbol(FILE *fp, const char *image, uint32_t rva,
	    uint32_t size, uint64_t samples, uint64_t inclusive,
	    const char *function);
void	manifest_profile(FILE *fp, uint32_t pid, uint64_t start_ns,
	    uint64_t profile_ns, uint64_t events, int cut, const char *file);
void	manifest_profile_thread(FILE *fp, uint32_t pid, uint64_t start_ns,
	    uint32_t thread, uint32_t tid);
void	manifest_query_samples(FILE *fp, uint32_t pid, uint64_t start_ns,
	    const char *label, uint64_t samples);

struct manifest_pause {
	uint32_t	 pid;
	uint64_t	 start_ns;
	uint32_t	 tid, thread, readying_tid;
	uint64_t	 from_ns, to_ns;
	const char	*label;
};
void	manifest_pause(FILE *fp, const struct manifest_pause *p);

/* The hook and guid counts and the totals of a closed writer. */
void	manifest_counts(FILE *fp, const struct etl_writer *w);

#endif
