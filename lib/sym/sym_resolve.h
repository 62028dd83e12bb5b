/*
 * sym_resolve.h - what an address of an image is, from its PDB: the
 * function that holds it (a procedure's name as the PDB has it, else the
 * public's, demangled), the offset in it, the source line, and the
 * functions inlined there.  Shared by etlsym's address mode and its
 * stream mode.
 */
#ifndef SYM_RESOLVE_H
#define SYM_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "pdb.h"

#define SYM_INLINE_MAX	64

struct sym_answer {
	const char *function;		/* NULL: no function holds it */
	uint32_t offset;
	const char *file;		/* NULL: no line */
	uint32_t line;
	size_t ninlines;		/* innermost first */
	struct pdb_frame inlines[SYM_INLINE_MAX];
	struct buf name;		/* holds a demangled name */
};

/*
 * Resolves `rva`; with `inlines` 0 the inline chain is not looked for.
 * a->name must be zeroed before the first call and released after the
 * last (buf_release); names point into it or into the PDB.
 */
void sym_resolve(const struct pdb *p, uint32_t rva, int inlines,
    struct sym_answer *a);

#endif
