/*
 * scenario.h - the rustc-build scenario: what a CPU, memory and heap
 * profile records while `x build --stage 2` runs on a Windows 10 machine.
 *
 * cmd.exe (there before the trace) starts python.exe x.py, which runs
 * cargo.exe once per step (std and compiler, with the stage 0 and then
 * the stage 1 compiler); cargo runs up to --cpus rustc.exe processes at a
 * time, and rustc runs link.exe for build scripts, proc macros and the
 * dylibs.  Each rustc parses and analyses on a compiler thread, then
 * codegens on worker threads that commit and free large regions.  When
 * the build ends, cmd starts it again, so any trace size can be reached.
 *
 * Time runs forward in one clock; every event goes to the buffer of the
 * processor it happens on.  Memory is fixed once the run starts.
 */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "etlwrite.h"

struct scenario_options {
	uint64_t	seed;
	int		ncpus;
	int		pointer_size;
	uint64_t	event_limit;	/* exact event count, or 0 */
	uint64_t	size_limit;	/* stop at this file size, or 0 */
	int		lossy;		/* memory: lose a snapshot chunk */
	/*
	 * rustc-build: this crate compiles `slow_factor` times as long,
	 * and the limits above are those of the build without it
	 * (sim.c): the trace runs on until it has done what that build
	 * did.
	 */
	const char	*slow_crate;
	double		slow_factor;
	/*
	 * rustc-build: each rustc's self-profile into this directory
	 * (selfprof.c), whose codegen workers then wait for their next
	 * work item between items, as rustc's do; the front end's query
	 * slow_query taking slow_query_factor times as long; one rustc
	 * thread blocked pause_ms on a lock another thread holds.
	 */
	const char	*profile_dir;
	const char	*slow_query;
	double		slow_query_factor;
	uint64_t	pause_ms;
};

/* What etlw_open() needs to know before the scenario starts. */
void	scenario_trace_info(const struct scenario_options *o,
	    struct etlw_trace_info *info);

/*
 * The fewest events a trace can have: the header and the rundowns at
 * both ends.
 */
uint64_t scenario_min_events(const struct scenario_options *o);

/* Whether `name` is the --crate-name of a crate of the build. */
int	scenario_has_crate(const char *name);

/* Whether `name` is a query of rustc's front end (--slow-query). */
int	scenario_has_query(const char *name);

/*
 * Runs the scenario into `w` (opened with scenario_trace_info()), up to
 * and including the rundown that ends the trace, and writes the process,
 * stack and sample lines of the manifest to `manifest`; the caller adds
 * the event and buffer counts after etlw_close().
 * @return : 0, or -1 if out of memory (errno set).  Write errors are left
 *	in the writer.
 */
int	scenario_run(const struct scenario_options *o, struct etl_writer *w,
	    FILE *manifest);

#endif
