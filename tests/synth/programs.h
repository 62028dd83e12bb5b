/*
 * programs.h - the programs whose processes appear in the trace, the
 * images each one loads and which image plays which part ("module") in
 * its stacks.  Stack chains name modules, not images, so one chain serves
 * the stage 0 and the stage 1 compiler, whose rustc_driver DLLs differ.
 */
#ifndef PROGRAMS_H
#define PROGRAMS_H

#include "images.h"

enum program {
	PROG_IDLE,
	PROG_SYSTEM,
	PROG_CSRSS,
	PROG_EXPLORER,
	PROG_WPR,
	PROG_CMD,
	PROG_PYTHON,
	PROG_CARGO,
	PROG_RUSTC_STAGE0,
	PROG_RUSTC_STAGE1,
	PROG_LINK,
	PROGRAM_COUNT
};

enum module {
	MOD_EXE,		/* the program's executable */
	MOD_DRIVER,		/* rustc_driver-<hash>.dll */
	MOD_STD,		/* std-<hash>.dll */
	MOD_ALLOC,		/* where malloc/realloc/free live */
	MOD_PYTHON,		/* python311.dll */
	MOD_PDBCORE,		/* mspdbcore.dll */
	MOD_NTDLL,
	MOD_KERNEL32,
	MOD_KERNELBASE,
	MOD_NTOSKRNL,
	MOD_HAL,
	MOD_NTFS,
	MODULE_COUNT
};

#define NO_IMAGE		IMAGE_COUNT
#define MAX_PROGRAM_IMAGES	8

struct program_desc {
	const char	*image_file_name;	/* the kernel's short name */
	enum image_id	 images[MAX_PROGRAM_IMAGES]; /* load order */
	int		 nimages;
	enum image_id	 modules[MODULE_COUNT]; /* or NO_IMAGE */
};

/* Fills in the module maps; call once before program_desc(). */
void				 programs_init(void);
const struct program_desc	*program_desc(enum program prog);
/*
 * Whether two images that one process maps (its own, or the kernel's)
 * overlap in the layout of `pointer_size`, as an image grown to its
 * PDB's size can.  @return : 1 with *a and *b set, or 0.
 */
int				 programs_overlap(int pointer_size,
				    enum image_id *a, enum image_id *b);

#endif
