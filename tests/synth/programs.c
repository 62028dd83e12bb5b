/*
 * programs.c - the program table.  Every program's first image is its
 * executable and its second ntdll: the two the kernel maps when it
 * creates the process.
 */
#include <stddef.h>
#include <stdint.h>

#include "images.h"
#include "programs.h"

static struct program_desc programs[PROGRAM_COUNT] = {
	[PROG_IDLE] = { .image_file_name = "Idle" },
	[PROG_SYSTEM] = { .image_file_name = "System" },
	[PROG_CSRSS] = { .image_file_name = "csrss.exe",
	    .images = { IMG_CSRSS, IMG_NTDLL }, .nimages = 2 },
	[PROG_EXPLORER] = { .image_file_name = "explorer.exe",
	    .images = { IMG_EXPLORER, IMG_NTDLL, IMG_KERNEL32, IMG_KERNELBASE,
	    IMG_UCRTBASE }, .nimages = 5 },
	[PROG_WPR] = { .image_file_name = "wpr.exe",
	    .images = { IMG_WPR, IMG_NTDLL, IMG_KERNEL32, IMG_KERNELBASE,
	    IMG_UCRTBASE }, .nimages = 5 },
	[PROG_CMD] = { .image_file_name = "cmd.exe",
	    .images = { IMG_CMD, IMG_NTDLL, IMG_KERNEL32, IMG_KERNELBASE,
	    IMG_UCRTBASE }, .nimages = 5 },
	[PROG_PYTHON] = { .image_file_name = "python.exe",
	    .images = { IMG_PYTHON, IMG_NTDLL, IMG_KERNEL32, IMG_KERNELBASE,
	    IMG_UCRTBASE, IMG_VCRUNTIME, IMG_PYTHON_DLL }, .nimages = 7 },
	[PROG_CARGO] = { .image_file_name = "cargo.exe",
	    .images = { IMG_CARGO, IMG_NTDLL, IMG_KERNEL32, IMG_KERNELBASE,
	    IMG_UCRTBASE, IMG_VCRUNTIME }, .nimages = 6 },
	[PROG_RUSTC_STAGE0] = { .image_file_name = "rustc.exe",
	    .images = { IMG_RUSTC_STAGE0, IMG_NTDLL, IMG_KERNEL32,
	    IMG_KERNELBASE, IMG_UCRTBASE, IMG_VCRUNTIME, IMG_STD_STAGE0,
	    IMG_DRIVER_STAGE0 },
	    .nimages = 8 },
	[PROG_RUSTC_STAGE1] = { .image_file_name = "rustc.exe",
	    .images = { IMG_RUSTC_STAGE1, IMG_NTDLL, IMG_KERNEL32,
	    IMG_KERNELBASE, IMG_UCRTBASE, IMG_VCRUNTIME, IMG_STD_STAGE1,
	    IMG_DRIVER_STAGE1 },
	    .nimages = 8 },
	[PROG_LINK] = { .image_file_name = "link.exe",
	    .images = { IMG_LINK, IMG_NTDLL, IMG_KERNEL32, IMG_KERNELBASE,
	    IMG_UCRTBASE, IMG_VCRUNTIME, IMG_MSPDBCORE }, .nimages = 7 },
};

/* Modules that are always the same image, wherever that image is loaded. */
static const struct {
	enum module	module;
	enum image_id	image;
} fixed_modules[] = {
	{ MOD_NTDLL, IMG_NTDLL },
	{ MOD_KERNEL32, IMG_KERNEL32 },
	{ MOD_KERNELBASE, IMG_KERNELBASE },
	{ MOD_PYTHON, IMG_PYTHON_DLL },
	{ MOD_PDBCORE, IMG_MSPDBCORE },
	{ MOD_DRIVER, IMG_DRIVER_STAGE0 },
	{ MOD_DRIVER, IMG_DRIVER_STAGE1 },
	{ MOD_STD, IMG_STD_STAGE0 },
	{ MOD_STD, IMG_STD_STAGE1 },
	{ MOD_NTOSKRNL, IMG_NTOSKRNL },
	{ MOD_HAL, IMG_HAL },
	{ MOD_NTFS, IMG_NTFS },
};

static int
loads(const struct program_desc *p, enum image_id image)
{
	int i;

	for (i = 0; i < p->nimages; i++)
		if (p->images[i] == image)
			return 1;
	return image_is_kernel(image);
}

/*
 * Fills in the module map from the image list: the executable is the
 * first image; malloc lives in std for rustc, in the executable for cargo
 * (std is linked in statically) and in ucrtbase elsewhere.
 */
static void
fill_modules(struct program_desc *p)
{
	size_t i;
	int m;

	for (m = 0; m < MODULE_COUNT; m++)
		p->modules[m] = NO_IMAGE;
	for (i = 0; i < sizeof(fixed_modules) / sizeof(fixed_modules[0]); i++)
		if (loads(p, fixed_modules[i].image))
			p->modules[fixed_modules[i].module] =
			    fixed_modules[i].image;
	if (p->nimages == 0)
		return;
	p->modules[MOD_EXE] = p->images[0];
	if (p->modules[MOD_STD] != NO_IMAGE)
		p->modules[MOD_ALLOC] = p->modules[MOD_STD];
	else if (p->images[0] == IMG_CARGO)
		p->modules[MOD_ALLOC] = IMG_CARGO;
	else if (loads(p, IMG_UCRTBASE))
		p->modules[MOD_ALLOC] = IMG_UCRTBASE;
}

void
programs_init(void)
{
	int i;

	for (i = 0; i < PROGRAM_COUNT; i++)
		fill_modules(&programs[i]);
}

const struct program_desc *
program_desc(enum program prog)
{
	return &programs[prog];
}

static int
meet(enum image_id a, enum image_id b, int pointer_size)
{
	uint64_t ab = image_base(a, pointer_size);
	uint64_t bb = image_base(b, pointer_size);

	return ab < bb + image_size(b, pointer_size) &&
	    bb < ab + image_size(a, pointer_size);
}

int
programs_overlap(int pointer_size, enum image_id *a, enum image_id *b)
{
	const struct program_desc *p;
	int prog, i, j;

	for (prog = 0; prog < PROGRAM_COUNT; prog++) {
		p = &programs[prog];
		for (i = 0; i < IMAGE_COUNT; i++)
			for (j = i + 1; j < IMAGE_COUNT; j++) {
				*a = (enum image_id)i;
				*b = (enum image_id)j;
				if (loads(p, *a) && loads(p, *b) &&
				    meet(*a, *b, pointer_size))
					return 1;
			}
	}
	return 0;
}
