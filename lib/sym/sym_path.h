/*
 * sym_path.h - finding the PDB of an image: the symbol path
 * (`_NT_SYMBOL_PATH` syntax), symbol stores and symbol servers.
 *
 * A symbol path is `;`-separated elements (pdb-format.md 9):
 *	DIR			a directory, searched flat and as a store
 *	cache*DIR		a store that also receives what servers give,
 *				for the elements after it
 *	srv*[STORE*...]URL	local stores, searched, the first receiving
 *				what the server at URL (http or https) gives
 *	srv*STORE[*STORE]	local stores only
 * In a directory D a PDB `name` with key K (the GUID's 32 hex digits and
 * the age in hex) is looked for as D/name, D/name/K/name, the CAB
 * D/name/K/name.pd_ (through libmspack) and the pointer D/name/K/file.ptr;
 * with D/index2.txt present, under D/na/name/K/... (two-tier store).
 *
 * Names come from the trace and are untrusted: only the last component
 * of a recorded PDB path is used, and it must not be empty, `.`, `..`,
 * or hold a drive letter or a control character; paths are only ever
 * made below the directories the user named.  The recorded path itself
 * is only read through a --map-path rewrite, below its target.
 *
 * Downloads (libcurl) go only to the URLs of the symbol path, follow
 * redirects of the same scheme only, stop at SYM_DOWNLOAD_MAX bytes and
 * SYM_DOWNLOAD_TIMEOUT seconds, land in a `.part` file beside their
 * place, and are renamed into place only when the PDB opens and its
 * GUID and age match.
 */
#ifndef SYM_PATH_H
#define SYM_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "pdb.h"
#include "sym_open.h"
#include "sym_pe.h"


struct sym_found {
	enum sym_status status;
	char path[4096];	/* the PDB used, or the last one refused */
	char message[600];	/* why it was refused, for MISMATCH, CORRUPT */
	struct pdb *pdb;	/* FOUND: the caller frees it */
};

struct sym_path;

/*
 * Parses a symbol path (NULL or "" for none).
 * @return : the path, or NULL with the reason in err.
 */
struct sym_path *sym_path_new(const char *spec, char *err, size_t errlen);
void sym_path_free(struct sym_path *sp);

/* Adds a --map-path rewrite.  @return : 0, -1 if malformed. */
int sym_path_map(struct sym_path *sp, const char *from_eq_to);

/* Progress and per-candidate notes on stderr (0 quiet, 1, 2 verbose). */
void sym_path_verbosity(struct sym_path *sp, int level, const char *prog);

/*
 * Finds the PDB recorded as `recorded` (a path or a file name) for the
 * identity guid/age; `beside` is a directory to search first (the
 * image's, in address mode), or NULL.
 * @return : 0 (the outcome in *out), -1 if out of memory.
 */
int sym_path_find(struct sym_path *sp, const char *recorded,
    const unsigned char guid[16], uint32_t age, const char *beside,
    struct sym_found *out);

/*
 * For an image whose trace gave no PDB identity: the image file itself,
 * found by its name and its store key (TimeDateStamp as 8 hex digits,
 * then SizeOfImage in hex: name/KEY/name, the CAB name/KEY/name.ex_ or
 * .dl_, or name flat when its time stamp and size are those), and its
 * CodeView record read.  Local stores only.
 * @return : 0 with *pe filled, -1 if no such image was found.
 */
int sym_path_find_image(struct sym_path *sp, const char *recorded,
    uint32_t timestamp, uint32_t size, struct sym_pe *pe);

/* The last path component of a recorded name, checked; NULL if unsafe. */
const char *sym_safe_name(const char *recorded, char *out, size_t cap);

#endif
