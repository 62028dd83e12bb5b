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

/*
 * An x86 public's C decoration undone, as DIA undecorates it: the
 * leading `_`, and a stdcall/fastcall `@N` suffix (`_main` -> `main`,
 * `__CxxThrowException@8` -> `_CxxThrowException`).
 */
static const char *
undecorate_x86(const char *name, struct buf *b)
{
	size_t n = strlen(name), k = n;

	if (name[0] != '_' && name[0] != '@')
		return name;
	while (k > 1 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k < n && k > 1 && name[k - 1] == '@')
		n = k - 1;
	b->len = 0;
	buf_put(b, name + 1, n - 1);
	buf_put_u8(b, 0);
	return b->oom ? name : (const char *)b->data;
}

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
		if (f->kind == PDB_PUBLIC && a->function == f->name &&
		    pdb_machine(p) == PDB_MACHINE_X86 && f->name[1] != '\0')
			a->function = undecorate_x86(f->name, &a->name);
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
