/*
 * waits.h - the waits scenario (waits.c): a schedule of context switches
 * and ready threads, as ordinary or compact CSwitch events, with each
 * thread's running, ready and waiting time in the manifest.
 */
#ifndef WAITS_H
#define WAITS_H

#include <stdint.h>
#include <stdio.h>

#include "etlwrite.h"

struct waits_options {
	uint64_t	seed;
	uint64_t	steps;		/* switches, readies, thread events */
	int		pointer_size;
	int		compact;	/* 0x0525 batches, not CSwitch */
	int		cswitch_version;	/* 2 (24 bytes) or 5 (28) */
};

/* Writes the scenario into `w` and its thread lines into `manifest`. */
int	waits_run(const struct waits_options *o, struct etl_writer *w,
	    FILE *manifest);

#endif
