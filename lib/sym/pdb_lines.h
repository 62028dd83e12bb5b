/*
 * pdb_lines.h - the line numbers and inline sites of a PDB's modules
 * (pdb-format.md 4.3 and 6), for pdb.c only: pdb.h gives them to users
 * through pdb_line() and pdb_inlines().
 *
 * While the PDB opens, each module stream goes through
 * pdb_lines_module(): its C13 line blocks become one table of line
 * records per contribution, and its S_INLINESITE records (under their
 * procedure) become code ranges with lines, decoded from their binary
 * annotations, named through the IPI stream.  pdb_lines_finish() then
 * sorts what was kept.  Everything is copied: the streams need to live
 * only through the call that reads them.
 *
 * Memory: 12 bytes per line record, 16 per inline range, 28 per inline
 * site, plus each distinct file and inlinee name once.
 */
#ifndef PDB_LINES_H
#define PDB_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "pdb_types.h"

struct pdb_lines;

/* What a module's records need from the rest of the PDB. */
struct pdb_lines_ctx {
	const struct pdb_section *sections;
	size_t nsections;
	const unsigned char *names;	/* the /names stream, or NULL */
	size_t names_len;
	const unsigned char *ipi;	/* the IPI stream (4), or NULL */
	size_t ipi_len;
};

struct pdb_lines *pdb_lines_new(void);
void pdb_lines_free(struct pdb_lines *l);

/*
 * Indexes the IPI stream's records (once, before the modules).
 * @return : 0, or -1 if out of memory.
 */
int pdb_lines_ipi(struct pdb_lines *l, const struct pdb_lines_ctx *c);

/*
 * Reads one module stream: symbols in [4, sym_end), C13 lines in
 * [c13_start, c13_end).  Malformed parts are skipped and counted.
 * @return : 0, or -1 if out of memory.
 */
int pdb_lines_module(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    const unsigned char *s, size_t len, size_t sym_end, size_t c13_start,
    size_t c13_end, uint16_t module, uint64_t *bad);

/* Sorts and names what was read.  @return : 0, or -1 out of memory. */
int pdb_lines_finish(struct pdb_lines *l);

/*
 * The line of `rva` in the line blocks of module `owner` (-1: any
 * module), by the rule of pdb-format.md 6.4.
 * @return : 0 with *file and *line set, or -1 if none covers it.
 */
int pdb_lines_find(const struct pdb_lines *l, uint32_t rva, int owner,
    const char **file, uint32_t *line);

/*
 * The inline sites at `rva` inside the procedure at proc_rva of module
 * `module`, innermost first, at most `cap`.  @return : their count.
 */
size_t pdb_lines_inlines(const struct pdb_lines *l, uint16_t module,
    uint32_t proc_rva, uint32_t rva, struct pdb_frame *out, size_t cap);

#endif
