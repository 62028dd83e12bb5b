/*
 * symbols.h - the ground truth for symbolization: for every image given
 * a PDB (images_use_pdb()), a "pdb" manifest line with its identity and
 * a "symbol" line per procedure that frames lie in, with the samples in
 * it and under it, as etlagg cpu --by function will count them once
 * the frames carry the PDB's names (manifest.c explains the columns).
 */
#ifndef SYMBOLS_H
#define SYMBOLS_H

#include <stdio.h>

#include "stacks.h"

/*
 * Writes the lines from the samples that `s` counted.
 * @return : 0, or -1 if out of memory (errno set).
 */
int	symbols_write_manifest(const struct stacks *s, FILE *fp);

#endif
