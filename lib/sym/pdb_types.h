/*
 * pdb_types.h - what the PDB reader (pdb.c) and its line and inline
 * reader (pdb_lines.c) both speak of: the CodeView records of a
 * function, a section of the image, and a frame at an address.  Kept
 * below both, so that neither includes the other's header for it.
 */
#ifndef PDB_TYPES_H
#define PDB_TYPES_H

#include <stdint.h>

/* CodeView record kinds a function can come from (section 4). */
#define PDB_S_THUNK32		0x1102
#define PDB_S_PUB32		0x110e
#define PDB_S_LPROC32		0x110f
#define PDB_S_GPROC32		0x1110
#define PDB_S_LPROC32_ID	0x1146
#define PDB_S_GPROC32_ID	0x1147

struct pdb_section {
	char name[9];		/* ".text", NUL-terminated */
	uint32_t rva;		/* VirtualAddress */
	uint32_t size;		/* VirtualSize (SizeOfRawData if 0) */
	uint32_t characteristics;
	int code;		/* CNT_CODE or MEM_EXECUTE */
};

/* A frame at an address: an inlined function's, or its container's. */
struct pdb_frame {
	const char *name;
	const char *file;	/* "??" when not known */
	uint32_t line;		/* 0 when not known */
	int inlined;
};

#endif
