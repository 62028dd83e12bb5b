/*
 * images.h - the executables and DLLs the rustc-build scenario loads:
 * where they sit in memory (the same base in every process, as Windows
 * ASLR does within one boot), their paths, and the identity that
 * KernelTraceControl's ImageID and DbgID_RSDS events report (section 6).
 *
 * Stack frames are return addresses inside named functions.  Without a
 * PDB a function's address is derived from its name, so it is stable
 * across seeds and runs.  A future --pdb NAME=FILE.pdb would fill in the
 * image's real PDB identity (pdb_name, pdb_guid, pdb_age) and take
 * function addresses from the PDB's publics instead.
 */
#ifndef IMAGES_H
#define IMAGES_H

#include <stdint.h>

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

#endif
