/*
 * sym_open.h - opening a candidate of the symbol search: a PDB, or the
 * CAB that holds one or an image, checked against the identity an image
 * asks for.
 */
#ifndef SYM_OPEN_H
#define SYM_OPEN_H

#include <stddef.h>
#include <stdint.h>

#include "pdb.h"

enum sym_status {
	SYM_NOT_FOUND = 0,
	SYM_FOUND,
	SYM_MISMATCH,		/* a PDB of that name, another GUID or age */
	SYM_CORRUPT,		/* a file there that could not be read */
	SYM_NO_ID		/* the image has no PDB identity */
};

/*
 * Opens a PDB file, decompressing a CAB (`.pd_`) first, and checks its
 * identity when guid is not NULL.  @return : the status; the opened
 * PDB in *pdb when SYM_FOUND.
 */
enum sym_status sym_open_pdb(const char *path, const unsigned char *guid,
    uint32_t age, struct pdb **pdb, char *msg, size_t msglen);

/*
 * Decompresses the one file of the CAB at path (cab_len bytes) into a
 * new temporary file, whose name goes to tmp; refuses a content more
 * than CAB_MAX_RATIO times the CAB.  @return : 0, or -1 with msg set.
 */
int sym_uncab(const char *path, size_t cab_len, char *tmp, size_t tmpcap,
    char *msg, size_t msglen);

#endif
