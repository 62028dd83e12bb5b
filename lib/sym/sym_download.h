/*
 * sym_download.h - fetching a PDB from a symbol server (HTTP or HTTPS,
 * through sym_http.c) into a local store, for sym_path.c.
 *
 * It asks for URL/name/KEY/name, then the compressed URL/name/KEY/name.pd_
 * (pdb-format.md 9).  The body goes to STORE/name/KEY/name.part (or
 * .pd_.part); only when the PDB opens and its GUID and age match is it
 * renamed to its place, so a store never holds a partial or wrong file.
 * The limits are sym_http.h's.  When stderr is a terminal and
 * verbosity is not -1 (quiet), a progress line shows the bytes received.
 */
#ifndef SYM_DOWNLOAD_H
#define SYM_DOWNLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "sym_open.h"

/*
 * store may be NULL (a server without a local store): the file is then
 * fetched into a temporary file and not kept.
 * @return : SYM_FOUND (*pdb set, *path the stored file), SYM_NOT_FOUND
 *	(the server has neither form), SYM_MISMATCH or SYM_CORRUPT (what
 *	came was refused: msg says why, including HTTP and network errors).
 */
enum sym_status sym_download(const char *url, const char *store,
    const char *name, const char *key, const unsigned char guid[16],
    uint32_t age, int verbose, const char *prog, struct pdb **pdb,
    char *path, size_t pathcap, char *msg, size_t msglen);

#endif
