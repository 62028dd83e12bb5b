/*
 * progress.h - a progress line on stderr for long runs, as zstd and pv
 * draw it: "etlagg: trace.st: 45.2 MiB of 120.0 MiB (37%), 85.3 MiB/s,
 * 0:01 left".  CLI-only: included by cli.c and tools/.
 *
 * The line is drawn only when stderr is a terminal, and only once a run
 * has taken PROGRESS_DELAY_MS, so that short runs and scripts see
 * nothing.  The environment variable ETL_PROGRESS overrides this, for
 * tests and logs: 0 never draws, 1 draws on a terminal at once, 2 draws
 * at once even when stderr is not a terminal.
 *
 * Updates are cheap (a comparison unless enough bytes went by), so a read
 * loop may call progress_update() for every record.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#define PROGRESS_DELAY_MS	500	/* quiet start */
#define PROGRESS_PERIOD_MS	200	/* redraws at most this often */

struct progress {
	FILE *fp;		/* stderr, or NULL when not drawing */
	const char *prog, *name;
	uint64_t total;		/* bytes of the input, 0 if unknown */
	uint64_t next_check;	/* bytes done at which to look at the clock */
	unsigned long long start_ns, last_ns, delay_ns;
	size_t width;		/* of the line drawn, to clear it */
};

/* Sets p up for the program `prog`, drawing on stderr when it should. */
void progress_init(struct progress *p, const char *prog);

/* Starts an input of `total` bytes (0: unknown, such as a pipe). */
void progress_start(struct progress *p, const char *name, uint64_t total);

/* Says `done` bytes of the input are read; redraws now and then. */
void progress_update(struct progress *p, uint64_t done);

/* Clears the line at the end of an input (or before a message). */
void progress_end(struct progress *p);

#endif
