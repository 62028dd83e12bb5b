/*
 * images.h - the executables and DLLs the rustc-build scenario loads:
 * where they sit in memory (the same base in every process, as Windows
 * ASLR does within one boot), their paths, and the identity that
 * KernelTraceControl's ImageID and DbgID_RSDS events report (section 6).
 *
 * Stack frames are return addresses inside named functions.  Without a
 * PDB a function's address is derived from its name, so it is stable
 * across seeds and runs.  An image given a PDB (etlsynth --pdb
 * NAME=FILE.pdb) takes the PDB's identity (pdb_name, pdb_guid, pdb_age),
 * a size that covers the PDB's sections, and its frames inside the PDB's
 * procedures: each function name gets a procedure of its own while there
 * are enough, chosen from its name, and a return address at least one
 * byte into it and before its end, so that the address and the address
 * before it (where a symbolizer looks for the call) both lie in it.
 */
#ifndef IMAGES_H
#define IMAGES_H

#include <stdint.h>

#include "sym/pdb.h"
#include "etlwrite.h"

enum image_id {
	/* Kernel images, loaded in "process" 0. */
	IMG_NTOSKRNL,
	IMG_HAL,
	IMG_NTFS,
	/* User images. */
	IMG_NTDLL,
	IMG_KERNEL32,
	IMG_KERNELBASE,
	IMG_UCRTBASE,
	IMG_VCRUNTIME,
	IMG_CMD,
	IMG_CSRSS,
	IMG_EXPLORER,
	IMG_WPR,
	IMG_PYTHON,
	IMG_PYTHON_DLL,
	IMG_CARGO,
	IMG_RUSTC_STAGE0,
	IMG_DRIVER_STAGE0,
	IMG_STD_STAGE0,
	IMG_RUSTC_STAGE1,
	IMG_DRIVER_STAGE1,
	IMG_STD_STAGE1,
	IMG_LINK,
	IMG_MSPDBCORE,
	IMAGE_COUNT
};

#define FIRST_USER_IMAGE	IMG_NTDLL

struct image_desc {
	const char	*file_name;	/* OriginalFileName */
	const char	*path64;	/* NT path in a 64-bit trace */
	const char	*path32;	/* NT path in a 32-bit trace */
	uint64_t	 base64;
	uint32_t	 base32;
	uint32_t	 size64;
	uint32_t	 size32;
	uint32_t	 time_date_stamp;
	uint32_t	 checksum;
	const char	*pdb_name;	/* as in the CodeView record */
	struct etl_guid	 pdb_guid;
	uint32_t	 pdb_age;
};

const struct image_desc	*image_desc(enum image_id id);
uint64_t	 image_base(enum image_id id, int pointer_size);
uint64_t	 image_size(enum image_id id, int pointer_size);
const char	*image_path(enum image_id id, int pointer_size);
int		 image_is_kernel(enum image_id id);
/* A return address inside `function` of the image. */
uint64_t	 image_function_address(enum image_id id, const char *function,
		    int pointer_size);

/*
 * Gives the images whose file name is `name` (the last part of their
 * path, or their OriginalFileName, in any case: rustc.exe names two) the
 * identity and the procedures of `pdb`, which must outlive them, and
 * `pdb_name` as the PDB file name of their DbgID_RSDS events.  Call
 * before any address is derived.
 * The size may make the image overlap another: programs_overlap() says.
 * @return : the number of images named so, or -1 with *why set: the PDB
 *	has no procedure to place frames in, or an image has a PDB
 *	already.
 */
int		 images_use_pdb(const char *name, const struct pdb *pdb,
		    const char *pdb_name, const char **why);
/* The PDB of an image, or NULL. */
const struct pdb *image_pdb(enum image_id id);
/* The last part of an image's path, "ntdll.dll". */
const char	*image_base_name(enum image_id id);

#endif
