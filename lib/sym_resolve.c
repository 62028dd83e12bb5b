/*
 * sym_resolve.c - an address of an image named from its PDB.
 *
 * Procedures carry the compiler's display name (rustc's CodeView names
 * are already readable, rust-symbols.md 1), so they are shown as they
 * are; publics and thunks carry linker names, which are demangled.
 */
#include <string.h>

#include "sym_demangle.h"
#include "sym_resolve.h"

void
sym_resolve(const struct pdb *p, uint32_t rva, int inlines,
    struct sym_answer *a)
{
	const struct pdb_function *f = pdb_lookup(p, rva);

	a->function = NULL;
	a->offset = 0;
	a->file = NULL;
	a->line = 0;
	a->ninlines = 0;
	if (f != NULL) {
		a->function = f->kind == PDB_PROCEDURE ? f->name :
		    sym_display_name(f->name, &a->name);
		a->offset = rva - f->rva;
		if (inlines)
			a->ninlines = pdb_inlines(p, f, rva, a->inlines,
			    SYM_INLINE_MAX);
	}
	if (pdb_line(p, rva, &a->file, &a->line) != 0) {
		a->file = NULL;
		a->line = 0;
	}
}
