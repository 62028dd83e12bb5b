/*
 * stackjoins.h - the stack-joins scenario (stackjoins.c): samples whose
 * stack walks are hard to join (etl-format.md 5.6), with the stacks they
 * must get in the manifest.
 */
#ifndef STACKJOINS_H
#define STACKJOINS_H

#include <stdio.h>

#include "etlwrite.h"

/* Writes the scenario into `w` and its stack and total lines. */
int	stackjoins_run(struct etl_writer *w, FILE *manifest);

#endif
