/*
 * pdb.h - reads a Microsoft PDB for symbolization: the identity that
 * ties it to an image (GUID and age) and the image's functions at their
 * RVAs, with a lookup from an RVA to the function that holds it.
 *
 * Implements pdb-format.md sections 2 to 5 over the MSF container of
 * msf.h: the PDB info stream (GUID), the DBI stream (age, modules,
 * section contributions, and the section headers through the optional
 * debug header), the public symbols (S_PUB32) of the symbol-record
 * stream, and the procedures (S_GPROC32, S_LPROC32 and their _ID forms)
 * and thunks (S_THUNK32) of the module symbol streams.  A symbol's
 * segment:offset becomes an RVA through the section headers.  Only
 * symbols in code sections are kept; the others are counted.  Line
 * numbers, inline sites and separated code blocks (S_SEPCODE) are not
 * read; an OMAP'd PDB (a rewritten binary) is read without translating
 * its addresses, with a warning.
 *
 * Use: pdb_new(), pdb_open_mem() once, then any of the other calls, then
 * pdb_free().  The file's bytes belong to the caller and need to live
 * only through pdb_open_mem(): the reader copies what it keeps.
 * Everything the reader returns points into it and lives until
 * pdb_free().
 *
 * Memory: about 30 bytes per function, and 30 per distinct name plus
 * the name; while opening, the stream directory and one stream.
 * Opening the corpus PDBs (1 MB, 300 to 700 functions) takes 0.1 to
 * 0.3 ms, a lookup 30 to 50 ns.
 */
#ifndef PDB_H
#define PDB_H

#include <stddef.h>
#include <stdint.h>

#include "pdb_types.h"

enum pdb_status {
	PDB_OK = 0,
	PDB_WARN = 2,		/* something was skipped; the rest is good */
	PDB_FATAL = -1		/* not a PDB, or nothing usable in it */
};

enum pdb_kind {
	PDB_PROCEDURE,		/* S_GPROC32, S_LPROC32, _ID forms: sized */
	PDB_THUNK,		/* S_THUNK32: sized */
	PDB_PUBLIC		/* S_PUB32: no size */
};

/* S_PUB32 flags (4.1). */
#define PDB_PUB_CODE		0x1
#define PDB_PUB_FUNCTION	0x2

#define PDB_NO_MODULE		0xffff

struct pdb_function {
	const char *name;	/* as recorded: display name or mangled */
	uint32_t rva;
	uint32_t size;		/* code bytes; 0 for a public */
	uint16_t section;	/* 1-based, as the section headers count */
	uint16_t module;	/* DBI module index, PDB_NO_MODULE: public */
	uint16_t record;	/* PDB_S_GPROC32, ... */
	uint8_t kind;		/* enum pdb_kind */
	uint8_t flags;		/* a public's PDB_PUB_* flags */
};

/*
 * What the reader met besides the functions it kept (pdb_functions()
 * has those), for diagnostics.
 */
struct pdb_counts {
	uint32_t streams;
	uint32_t modules;
	uint32_t modules_without_symbols;	/* stream 0xFFFF (stripped) */
	uint32_t bad_modules;	/* symbol streams that could not be read */
	/* Malformed records skipped; after a bad length, all that follows. */
	uint64_t bad_records;
	uint64_t not_code;	/* symbols in sections that hold no code */
	/* Symbols of segment 0, the absolute segment or beyond. */
	uint64_t absolute;
};

struct pdb;

/* @return : NULL if out of memory. */
struct pdb *pdb_new(void);
void pdb_free(struct pdb *p);

/*
 * Reads `len` bytes of a PDB file.
 * @return : PDB_OK; PDB_WARN when some part was skipped (a module's
 *	symbols, the rest of a stream after a bad record, or OMAP'd
 *	addresses: the error text says what came first, the counts how
 *	much); PDB_FATAL when it is no PDB or lacks the streams that place
 *	functions (info, DBI, section headers).
 */
enum pdb_status pdb_open_mem(struct pdb *p, const unsigned char *data,
    size_t len);

/* The message of a PDB_WARN or PDB_FATAL: "what (offset 0x...)". */
const char *pdb_error(const struct pdb *p);

/*
 * The identity that matches an image's CodeView (RSDS) record and its
 * ETW DbgID_RSDS event: the GUID in its binary layout (Data1, Data2,
 * Data3 little-endian, then Data4) and the DBI stream's age, which
 * tools that add streams to a PDB leave alone while they bump the info
 * stream's (section 2.1).
 */
void pdb_identity(const struct pdb *p, unsigned char guid[16],
    uint32_t *age);

/* The DBI header's machine: 0x14c x86, 0x8664 x64, 0xaa64 ARM64. */
#define PDB_MACHINE_X86	0x14c
unsigned pdb_machine(const struct pdb *p);

/* The section headers, in order: section i is sections[i - 1]. */
const struct pdb_section *pdb_sections(const struct pdb *p, size_t *n);

/*
 * Every kept function, sorted by RVA; at one RVA procedures come first,
 * then thunks, then publics (those flagged as functions first), each
 * group by name.
 */
const struct pdb_function *pdb_functions(const struct pdb *p, size_t *n);

/*
 * The function that holds `rva`: the procedure or thunk whose
 * [rva, rva + size) contains it, else what pdb_lookup_public() gives.
 * Procedures do not overlap except for identical-code-folded aliases at
 * one address; of those, the one from the module that the section
 * contributions say owns the address (as llvm-symbolizer chooses).
 * O(log n), plus the aliases at one address.
 * @return : the function (offset = rva - f->rva), or NULL.
 */
const struct pdb_function *pdb_lookup(const struct pdb *p, uint32_t rva);

/*
 * The nearest public at or before `rva` in the same section, as a
 * publics-only symbolizer would say (it may be far off for a function
 * that has no public).  At one address, one flagged as a function first.
 * @return : the public, or NULL.
 */
const struct pdb_function *pdb_lookup_public(const struct pdb *p,
    uint32_t rva);

const struct pdb_counts *pdb_counts(const struct pdb *p);

/*
 * The source line of `rva` from the C13 line blocks (pdb-format.md
 * 6.4: the module that owns the address in the section contributions
 * decides among folded copies).  This is the line of the outermost
 * frame, the procedure's own.
 * @return : 0 with *file and *line set, or -1 when no block covers it.
 */
int pdb_line(const struct pdb *p, uint32_t rva, const char **file,
    uint32_t *line);

/*
 * The functions inlined at `rva` in procedure `f` (from pdb_lookup()),
 * innermost first, with the line in each, at most `cap` of them.
 * @return : their number; 0 for a public or thunk.
 */
size_t pdb_inlines(const struct pdb *p, const struct pdb_function *f,
    uint32_t rva, struct pdb_frame *out, size_t cap);

#endif
