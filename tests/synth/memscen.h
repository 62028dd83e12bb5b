/*
 * memscen.h - the "memory" scenario: a short scripted trace of what the
 * memory views must get right (see memscen.c), with the expected
 * figures in the manifest.
 */
#ifndef MEMSCEN_H
#define MEMSCEN_H

#include <stdio.h>

#include "etlwrite.h"
#include "scenario.h"

int	memscen_run(const struct scenario_options *o, struct etl_writer *w,
	    FILE *manifest);

#endif
