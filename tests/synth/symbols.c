/*
 * symbols.c - the pdb and symbol lines of the manifest.  Every counted
 * stack is walked once per image name that has a PDB; a frame in an
 * image of that name is looked up in the PDB as a symbolizer would
 * (pdb_lookup()), which finds the procedure it was placed in.  Images of
 * one name (the two rustc.exe) share their PDB and their lines, as
 * etlagg names frames by the image's file name.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/pdb.h"
#include "images.h"
#include "manifest.h"
#include "programs.h"
#include "stacks.h"
#include "symbols.h"

/* A procedure's counts; `stamp` marks the stack counted last. */
struct tally {
	uint64_t samples, inclusive;
	uint64_t stamp;
};

/* Whether image `other` shares the name and the PDB of image `id`. */
static int
same_image(enum image_id id, int other)
{
	return image_pdb((enum image_id)other) == image_pdb(id) &&
	    strcmp(image_base_name((enum image_id)other),
	    image_base_name(id)) == 0;
}

/*
 * The index in the PDB's functions of the one a frame is in, for the
 * images named as `id`, or -1.
 */
static long
function_of(const struct stacks *s, enum image_id id, uint64_t addr)
{
	const struct pdb *pdb = image_pdb(id);
	const struct pdb_function *all, *f;
	uint64_t base;
	size_t n;
	int i;

	all = pdb_functions(pdb, &n);
	for (i = 0; i < IMAGE_COUNT; i++) {
		base = image_base((enum image_id)i, s->pointer_size);
		if (!same_image(id, i) || addr < base || addr - base >=
		    image_size((enum image_id)i, s->pointer_size))
			continue;
		f = pdb_lookup(pdb, (uint32_t)(addr - base));
		return f != NULL ? (long)(f - all) : -1;
	}
	return -1;
}

/*
 * Adds `with` samples that had the stack `frames` and `without` that
 * had the same interrupted instruction (the last frame) but no stack.
 */
static void
tally_stack(const struct stacks *s, enum image_id id, struct tally *t,
    const uint64_t *frames, int n, uint64_t with, uint64_t without,
    uint64_t stamp)
{
	long f;
	int i;

	for (i = 0; i < n; i++) {
		if ((f = function_of(s, id, frames[i])) == -1)
			continue;
		if (t[f].stamp != stamp) {
			t[f].stamp = stamp;
			t[f].inclusive += with;
		}
		if (i == n - 1) {
			t[f].samples += with + without;
			t[f].inclusive += without;
		}
	}
}

static void
write_image(const struct stacks *s, enum image_id id, struct tally *t,
    FILE *fp)
{
	const struct image_desc *d = image_desc(id);
	uint64_t frames[MAX_STACK_FRAMES], stamp = 0;
	const struct pdb_function *all;
	int prog, body, kind, n;
	size_t nf, i;

	manifest_pdb(fp, image_base_name(id), &d->pdb_guid, d->pdb_age,
	    d->pdb_name);
	for (prog = 0; prog < PROGRAM_COUNT; prog++)
		for (body = 0; body <= CHAIN_COUNT; body++)
			for (kind = 0; kind < SAMPLE_KERNEL_COUNT; kind++) {
				if (s->samples[prog][body][kind] == 0 &&
				    s->stackless[prog][body][kind] == 0)
					continue;
				n = stacks_manifest_frames(s,
				    (enum program)prog, body,
				    (enum sample_kernel)kind, frames);
				tally_stack(s, id, t, frames, n,
				    s->samples[prog][body][kind],
				    s->stackless[prog][body][kind], ++stamp);
			}
	all = pdb_functions(image_pdb(id), &nf);
	for (i = 0; i < nf; i++)
		if (t[i].inclusive != 0)
			manifest_symbol(fp, image_base_name(id), all[i].rva,
			    all[i].size, t[i].samples, t[i].inclusive,
			    all[i].name);
}

int
symbols_write_manifest(const struct stacks *s, FILE *fp)
{
	struct tally *t;
	size_t n;
	int id, first;

	for (id = 0; id < IMAGE_COUNT; id++) {
		if (image_pdb((enum image_id)id) == NULL)
			continue;
		for (first = 0; !same_image((enum image_id)id, first); first++)
			continue;
		if (first != id)
			continue;
		pdb_functions(image_pdb((enum image_id)id), &n);
		if ((t = calloc(n + 1, sizeof(*t))) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		write_image(s, (enum image_id)id, t, fp);
		free(t);
	}
	return 0;
}
