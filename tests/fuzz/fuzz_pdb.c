/*
 * fuzz_pdb.c - the PDB reader over any bytes (pdb_open_mem), then every
 * question etlsym asks of it: each function's lookup, source line and
 * inline chain, and each name demangled; the same bytes also as a PE
 * image (its CodeView record) and as a symbol name to demangle.
 */
#include <string.h>

#include "sym/pdb.h"
#include "sym/sym_demangle.h"
#include "sym/sym_pe.h"
#include "fuzz.h"

#define NAME_MAX_FUZZ	4096
#define LOOKUPS_MAX	4096

static void
ask(const struct pdb *p, uint32_t rva, struct buf *b)
{
	const struct pdb_function *f = pdb_lookup(p, rva);
	struct pdb_frame frames[64];
	const char *file;
	uint32_t line;
	size_t n, i;

	if (pdb_line(p, rva, &file, &line) == 0 && file == NULL)
		fuzz_fail("pdb_line", "no file name");
	if (f == NULL)
		return;
	if (rva - f->rva > f->size && f->kind != PDB_PUBLIC)
		fuzz_fail("pdb_lookup", "function does not hold the address");
	n = pdb_inlines(p, f, rva, frames, 64);
	if (n > 64)
		fuzz_fail("pdb_inlines", "more frames than asked for");
	for (i = 0; i < n; i++)
		if (frames[i].name == NULL || frames[i].file == NULL)
			fuzz_fail("pdb_inlines", "frame without a name");
	if (sym_demangle(f->name, 0, b) == 1 && b->len > SYM_DEMANGLE_MAX)
		fuzz_fail("sym_demangle", "output over the bound");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pdb_function *funcs;
	struct pdb *p = pdb_new();
	struct buf b = { 0 };
	char name[NAME_MAX_FUZZ + 1];
	struct sym_pe pe;
	char err[256];
	size_t n, i;

	if (p == NULL)
		abort();
	if (pdb_open_mem(p, data, size) != PDB_FATAL) {
		funcs = pdb_functions(p, &n);
		for (i = 0; i < n && i < LOOKUPS_MAX; i++) {
			ask(p, funcs[i].rva, &b);
			ask(p, funcs[i].rva + funcs[i].size / 2, &b);
		}
	} else if (strstr(pdb_error(p), "(offset 0x") == NULL &&
	    strcmp(pdb_error(p), "out of memory") != 0)
		fuzz_fail("pdb_open_mem", pdb_error(p));
	pdb_free(p);
	sym_pe_read(data, size, &pe, err, sizeof(err));
	n = size < NAME_MAX_FUZZ ? size : NAME_MAX_FUZZ;
	memcpy(name, data, n);
	name[n] = '\0';
	if (sym_demangle(name, 0, &b) == 1 && b.len > SYM_DEMANGLE_MAX)
		fuzz_fail("sym_demangle", "output over the bound");
	sym_demangle(name, SYM_DEMANGLE_LLVM | SYM_DEMANGLE_HASH, &b);
	buf_release(&b);
	return 0;
}
