/*
 * images.c - the image table of the rustc-build scenario.
 *
 * Bases and sizes follow what a Windows 10 machine shows: kernel images
 * above 0xfffff800'00000000 (x64) or 0x80000000 (x86), system DLLs near
 * the top of user space, executables lower.  The rustc_driver DLLs are as
 * big as the real ones (about 160 MB on x64).
 *
 * The table is fixed unless images_use_pdb() gives an image a PDB: then
 * its identity and size change, and image_function_address() places
 * frames in the PDB's procedures.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sym/pdb.h"
#include "images.h"

#define VOLUME	"\\Device\\HarddiskVolume3\\"
#define SYS64	VOLUME "Windows\\System32\\"
#define RUST64	VOLUME "src\\rust\\build\\x86_64-pc-windows-msvc\\"
#define RUST32	VOLUME "src\\rust\\build\\i686-pc-windows-msvc\\"
#define MSVC	VOLUME "Program Files\\Microsoft Visual Studio\\2022\\" \
		"Community\\VC\\Tools\\MSVC\\14.38.33130\\bin\\"
#define PY	VOLUME "Program Files\\Python311\\"

/* Functions go after the headers and end a page before the image does. */
#define CODE_START	0x1000
#define CODE_SLACK	0x1000
#define SECTION_ALIGN	0x1000
/* Function names remembered per PDB image; chains name about 200. */
#define MAX_PLACED	1024

static struct image_desc images[IMAGE_COUNT] = {
	[IMG_NTOSKRNL] = { "ntoskrnl.exe",
	    "\\SystemRoot\\system32\\ntoskrnl.exe",
	    "\\SystemRoot\\system32\\ntoskrnl.exe",
	    0xfffff80212a00000ULL, 0x82a00000, 0x01046000, 0x00439000,
	    0x5c1e3b0a, 0x00a6f5e1, "ntkrnlmp.pdb",
	    { 0x9f941369, 0xcd56, 0xe22a,
	    { 0x5d, 0x29, 0x22, 0xec, 0xe3, 0x27, 0x90, 0xb4 } }, 1 },
	[IMG_HAL] = { "hal.dll",
	    "\\SystemRoot\\system32\\hal.dll",
	    "\\SystemRoot\\system32\\hal.dll",
	    0xfffff80211e00000ULL, 0x82e40000, 0x00100000, 0x00049000,
	    0x2f9d7c43, 0x0010a3c2, "hal.pdb",
	    { 0x232554ca, 0xce01, 0xd137,
	    { 0x01, 0xa8, 0x49, 0xd1, 0x1b, 0x0a, 0x87, 0x08 } }, 1 },
	[IMG_NTFS] = { "ntfs.sys",
	    "\\SystemRoot\\System32\\Drivers\\Ntfs.sys",
	    "\\SystemRoot\\System32\\Drivers\\Ntfs.sys",
	    0xfffff80216c00000ULL, 0x8be00000, 0x0030b000, 0x00169000,
	    0x8a1c5d27, 0x002f4b19, "ntfs.pdb",
	    { 0xbea4427e, 0xe178, 0x856c,
	    { 0x1d, 0xa4, 0x01, 0x77, 0xd9, 0x93, 0x75, 0xba } }, 1 },
	[IMG_NTDLL] = { "ntdll.dll",
	    SYS64 "ntdll.dll", SYS64 "ntdll.dll",
	    0x00007ffb4c8f0000ULL, 0x77c00000, 0x001f8000, 0x0019a000,
	    0x3d52a4c1, 0x001fdb3c, "ntdll.pdb",
	    { 0x47776fe0, 0x424f, 0xe68a,
	    { 0x07, 0x47, 0xe3, 0xcc, 0x83, 0x27, 0x55, 0xec } }, 1 },
	[IMG_KERNEL32] = { "kernel32.dll",
	    SYS64 "kernel32.dll", SYS64 "kernel32.dll",
	    0x00007ffb4b5d0000ULL, 0x76e10000, 0x000bf000, 0x000f0000,
	    0x90fa3b6e, 0x000c52a8, "kernel32.pdb",
	    { 0x1c329924, 0x8657, 0x41e0,
	    { 0x22, 0x2d, 0x3e, 0xad, 0x23, 0x07, 0x2c, 0xfb } }, 1 },
	[IMG_KERNELBASE] = { "KernelBase.dll",
	    SYS64 "KernelBase.dll", SYS64 "KernelBase.dll",
	    0x00007ffb4a1a0000ULL, 0x75c40000, 0x002f6000, 0x00214000,
	    0x1b6e8a3f, 0x002fa9d4, "kernelbase.pdb",
	    { 0x493edd75, 0x619a, 0xeb1e,
	    { 0xa6, 0xd7, 0xdc, 0xca, 0x7e, 0x97, 0xa6, 0x99 } }, 1 },
	[IMG_UCRTBASE] = { "ucrtbase.dll",
	    SYS64 "ucrtbase.dll", SYS64 "ucrtbase.dll",
	    0x00007ffb4a5d0000ULL, 0x75a80000, 0x00100000, 0x00120000,
	    0x7e6a1f2b, 0x0010c3e6, "ucrtbase.pdb",
	    { 0x0e637ab8, 0x3219, 0x0b2c,
	    { 0x80, 0xd0, 0x15, 0xe1, 0x52, 0xc6, 0x9f, 0x1c } }, 1 },
	[IMG_VCRUNTIME] = { "vcruntime140.dll",
	    SYS64 "vcruntime140.dll", SYS64 "vcruntime140.dll",
	    0x00007ffb3d830000ULL, 0x73f40000, 0x0001b000, 0x00015000,
	    0x6534a1b2, 0x0001f0a7, "vcruntime140.amd64.pdb",
	    { 0x062af8e8, 0xc470, 0xf62b,
	    { 0x72, 0x91, 0x3e, 0x4c, 0xcf, 0xc6, 0x15, 0xd6 } }, 1 },
	[IMG_CMD] = { "Cmd.Exe",
	    SYS64 "cmd.exe", SYS64 "cmd.exe",
	    0x00007ff7d8e40000ULL, 0x00c70000, 0x00064000, 0x00057000,
	    0x4f3a9d12, 0x0006a1e4, "cmd.pdb",
	    { 0x04dc5b21, 0x3632, 0x8a0d,
	    { 0xcb, 0x18, 0x9d, 0xf9, 0x77, 0x34, 0xc7, 0xc7 } }, 1 },
	[IMG_CSRSS] = { "CSRSS.Exe",
	    SYS64 "csrss.exe", SYS64 "csrss.exe",
	    0x00007ff6a7e30000ULL, 0x004f0000, 0x00008000, 0x00006000,
	    0xa4c2e913, 0x0000f2d1, "csrss.pdb",
	    { 0x615db67e, 0xf358, 0xe3cc,
	    { 0xa5, 0xb8, 0xf5, 0xfa, 0x4f, 0x9c, 0xbd, 0x19 } }, 1 },
	[IMG_EXPLORER] = { "EXPLORER.EXE",
	    "\\Device\\HarddiskVolume3\\Windows\\explorer.exe",
	    "\\Device\\HarddiskVolume3\\Windows\\explorer.exe",
	    0x00007ff7e3a90000ULL, 0x00a90000, 0x00491000, 0x00400000,
	    0x2b7d4e90, 0x0049a6c3, "explorer.pdb",
	    { 0x1c467339, 0xc960, 0xa107,
	    { 0xab, 0x9e, 0xe5, 0xff, 0x63, 0xb3, 0x80, 0x09 } }, 1 },
	[IMG_WPR] = { "wpr.exe",
	    SYS64 "wpr.exe", SYS64 "wpr.exe",
	    0x00007ff61c2d0000ULL, 0x00360000, 0x00063000, 0x00050000,
	    0xc83f15a7, 0x0006b2e0, "wpr.pdb",
	    { 0x92d0f617, 0x88ae, 0x0752,
	    { 0x4f, 0x65, 0x6c, 0x27, 0xef, 0xca, 0x64, 0x52 } }, 1 },
	[IMG_PYTHON] = { "python.exe",
	    PY "python.exe", PY "python.exe",
	    0x00007ff6e0590000ULL, 0x00ea0000, 0x00019000, 0x00018000,
	    0x64a2c1f0, 0x0001e3b5, "python.pdb",
	    { 0x11a4a60b, 0x518b, 0xf249,
	    { 0x89, 0xd4, 0x81, 0x46, 0x80, 0x76, 0xe5, 0xd5 } }, 1 },
	[IMG_PYTHON_DLL] = { "python311.dll",
	    PY "python311.dll", PY "python311.dll",
	    0x00007ffb1c560000ULL, 0x6b8f0000, 0x005c1000, 0x0047a000,
	    0x64a2c1e9, 0x005b8f21, "python311.pdb",
	    { 0x0ca94cdb, 0xe82d, 0x63b4,
	    { 0xe7, 0x90, 0xa0, 0xef, 0x1e, 0xf0, 0x37, 0x3a } }, 1 },
	[IMG_CARGO] = { "cargo.exe",
	    RUST64 "stage0\\bin\\cargo.exe", RUST32 "stage0\\bin\\cargo.exe",
	    0x00007ff6b1e40000ULL, 0x00140000, 0x01a52000, 0x01800000,
	    0x66f1a2b3, 0x01a5c410, "cargo.pdb",
	    { 0x3322532d, 0x8589, 0xf95c,
	    { 0x91, 0x2a, 0x7c, 0x95, 0x6a, 0xec, 0xd5, 0xb0 } }, 1 },
	[IMG_RUSTC_STAGE0] = { "rustc.exe",
	    RUST64 "stage0\\bin\\rustc.exe", RUST32 "stage0\\bin\\rustc.exe",
	    0x00007ff7a3c10000ULL, 0x00ab0000, 0x00006000, 0x00005000,
	    0x66f1a0c4, 0x0000e71a, "rustc_main.pdb",
	    { 0x3aae87b1, 0xf2bf, 0xc70f,
	    { 0xeb, 0xe5, 0xc7, 0xbe, 0x73, 0xd8, 0xed, 0x4c } }, 1 },
	[IMG_DRIVER_STAGE0] = { "rustc_driver-6a4f21c5a1e9d7b3.dll",
	    RUST64 "stage0\\bin\\rustc_driver-6a4f21c5a1e9d7b3.dll",
	    RUST32 "stage0\\bin\\rustc_driver-6a4f21c5a1e9d7b3.dll",
	    0x00007ffae0d50000ULL, 0x56000000, 0x0a0c4000, 0x08800000,
	    0x66f19f52, 0x0a0d7c3e, "rustc_driver-6a4f21c5a1e9d7b3.pdb",
	    { 0xf8d24159, 0xa879, 0xd843,
	    { 0xae, 0xd3, 0xfa, 0x0e, 0x19, 0xb3, 0x59, 0x68 } }, 1 },
	[IMG_STD_STAGE0] = { "std-0c2f1bd7c3e4a5f9.dll",
	    RUST64 "stage0\\bin\\std-0c2f1bd7c3e4a5f9.dll",
	    RUST32 "stage0\\bin\\std-0c2f1bd7c3e4a5f9.dll",
	    0x00007ffb37a10000ULL, 0x6f9a0000, 0x000e4000, 0x000c2000,
	    0x66f19e11, 0x000ea2b7, "std-0c2f1bd7c3e4a5f9.pdb",
	    { 0x523c4e3a, 0x9192, 0xfda9,
	    { 0x94, 0xc3, 0xd3, 0xbe, 0x99, 0xd4, 0x43, 0x6f } }, 1 },
	[IMG_RUSTC_STAGE1] = { "rustc.exe",
	    RUST64 "stage1\\bin\\rustc.exe", RUST32 "stage1\\bin\\rustc.exe",
	    0x00007ff6f58a0000ULL, 0x00e30000, 0x00006000, 0x00005000,
	    0x673d8e02, 0x0000e8c4, "rustc_main.pdb",
	    { 0x155d30c0, 0x5a91, 0xf1b9,
	    { 0xb3, 0xe0, 0x78, 0xfc, 0xc7, 0x68, 0xc4, 0xe3 } }, 1 },
	[IMG_DRIVER_STAGE1] = { "rustc_driver-e2b4a9f07c1d3865.dll",
	    RUST64 "stage1\\bin\\rustc_driver-e2b4a9f07c1d3865.dll",
	    RUST32 "stage1\\bin\\rustc_driver-e2b4a9f07c1d3865.dll",
	    0x00007ffad5470000ULL, 0x4c000000, 0x0a2f1000, 0x08900000,
	    0x673d8dd9, 0x0a2f96d2, "rustc_driver-e2b4a9f07c1d3865.pdb",
	    { 0xc8ffa9fc, 0xf473, 0x102b,
	    { 0x55, 0x26, 0xaf, 0x2a, 0x62, 0xf3, 0x9d, 0xb3 } }, 1 },
	[IMG_STD_STAGE1] = { "std-4d9c70b1a2e8f3c6.dll",
	    RUST64 "stage1\\bin\\std-4d9c70b1a2e8f3c6.dll",
	    RUST32 "stage1\\bin\\std-4d9c70b1a2e8f3c6.dll",
	    0x00007ffb36c40000ULL, 0x6f820000, 0x000e6000, 0x000c4000,
	    0x673d8b47, 0x000ec5a0, "std-4d9c70b1a2e8f3c6.pdb",
	    { 0x2a080ab8, 0xe43c, 0x00d2,
	    { 0x17, 0x5d, 0x66, 0xcc, 0x74, 0xda, 0x3d, 0x62 } }, 1 },
	[IMG_LINK] = { "LINK.EXE",
	    MSVC "HostX64\\x64\\link.exe", MSVC "HostX86\\x86\\link.exe",
	    0x00007ff67dd70000ULL, 0x00870000, 0x001e9000, 0x00190000,
	    0x6543b2d1, 0x001f0c82, "link.pdb",
	    { 0xb1b1bdb4, 0x80c6, 0x1d07,
	    { 0x53, 0x00, 0xd9, 0xbf, 0xf7, 0xd9, 0xcb, 0x69 } }, 2 },
	[IMG_MSPDBCORE] = { "mspdbcore.dll",
	    MSVC "HostX64\\x64\\mspdbcore.dll",
	    MSVC "HostX86\\x86\\mspdbcore.dll",
	    0x00007ffb1b800000ULL, 0x6e400000, 0x000f5000, 0x000d0000,
	    0x6543b2a8, 0x000f9e13, "mspdbcore.pdb",
	    { 0x1af955cc, 0x5d32, 0x9117,
	    { 0x16, 0xee, 0xd6, 0x4c, 0xec, 0x1a, 0x54, 0x1e } }, 2 },
};

const struct image_desc *
image_desc(enum image_id id)
{
	return &images[id];
}

uint64_t
image_base(enum image_id id, int pointer_size)
{
	return pointer_size == 4 ? images[id].base32 : images[id].base64;
}

uint64_t
image_size(enum image_id id, int pointer_size)
{
	return pointer_size == 4 ? images[id].size32 : images[id].size64;
}

const char *
image_path(enum image_id id, int pointer_size)
{
	return pointer_size == 4 ? images[id].path32 : images[id].path64;
}

int
image_is_kernel(enum image_id id)
{
	return id < FIRST_USER_IMAGE;
}

/* FNV-1a: a fixed, well-spread hash of a function name. */
static uint64_t
name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The procedures of an image's PDB that frames are placed in. */
struct image_pdb {
	const struct pdb *pdb;
	const struct pdb_function **procs;	/* by RVA */
	size_t nprocs;
	unsigned char *taken;			/* per procedure */
	/* Names placed so far, and the procedure each got. */
	const char *names[MAX_PLACED];
	size_t placed[MAX_PLACED];
	size_t nnames;
};

static struct image_pdb *image_pdbs[IMAGE_COUNT];

/*
 * Places the function at a 16-byte aligned offset in the image's code and
 * returns an address a little way into it, where a call would return.
 */
static uint64_t
hashed_address(enum image_id id, const char *function, int pointer_size)
{
	uint64_t h, slots, start;

	h = name_hash(function);
	slots = (image_size(id, pointer_size) - CODE_START - CODE_SLACK) / 16;
	start = CODE_START + h % slots * 16;
	return image_base(id, pointer_size) + start + 5 + (h >> 48) % 0x200;
}

/*
 * The procedure of the PDB that `function` gets: the one it had, or a
 * free one found from its name's hash, or when none is free the one its
 * hash picks.
 */
static size_t
pdb_procedure(struct image_pdb *ip, const char *function, uint64_t h)
{
	size_t i, j, first = h % ip->nprocs;

	for (i = 0; i < ip->nnames; i++)
		if (strcmp(ip->names[i], function) == 0)
			return ip->placed[i];
	for (i = 0, j = first; i < ip->nprocs && ip->taken[j]; i++)
		j = (j + 1) % ip->nprocs;
	if (i == ip->nprocs)
		j = first;
	if (ip->nnames < MAX_PLACED) {
		ip->taken[j] = 1;
		ip->names[ip->nnames] = function;
		ip->placed[ip->nnames++] = j;
	}
	return j;
}

uint64_t
image_function_address(enum image_id id, const char *function,
    int pointer_size)
{
	const struct pdb_function *f;
	uint64_t h;

	if (image_pdbs[id] == NULL)
		return hashed_address(id, function, pointer_size);
	h = name_hash(function);
	f = image_pdbs[id]->procs[pdb_procedure(image_pdbs[id], function, h)];
	return image_base(id, pointer_size) + f->rva + 1 +
	    (h >> 32) % (f->size - 1);
}

const struct pdb *
image_pdb(enum image_id id)
{
	return image_pdbs[id] != NULL ? image_pdbs[id]->pdb : NULL;
}

const char *
image_base_name(enum image_id id)
{
	const char *s = strrchr(images[id].path64, '\\');

	return s != NULL ? s + 1 : images[id].path64;
}

static int
same_name(const char *a, const char *b)
{
	while (*a != '\0' && tolower((unsigned char)*a) ==
	    tolower((unsigned char)*b)) {
		a++;
		b++;
	}
	return *a == '\0' && *b == '\0';
}

/*
 * Whether a procedure can hold frames: two bytes or more, alone at its
 * address (no folded alias), and what a lookup finds at its first and
 * last byte.
 */
static int
usable(const struct pdb *pdb, const struct pdb_function *f, size_t i,
    size_t n)
{
	const struct pdb_function *all = f - i;

	if (f->kind != PDB_PROCEDURE || f->size < 2)
		return 0;
	if ((i > 0 && all[i - 1].rva == f->rva && all[i - 1].kind !=
	    PDB_PUBLIC) || (i + 1 < n && all[i + 1].rva == f->rva &&
	    all[i + 1].kind != PDB_PUBLIC))
		return 0;
	return pdb_lookup(pdb, f->rva) == f &&
	    pdb_lookup(pdb, f->rva + f->size - 1) == f;
}

static struct image_pdb *
new_image_pdb(const struct pdb *pdb)
{
	const struct pdb_function *f;
	struct image_pdb *ip;
	size_t n, i;

	f = pdb_functions(pdb, &n);
	if ((ip = calloc(1, sizeof(*ip))) == NULL ||
	    (ip->procs = calloc(n + 1, sizeof(*ip->procs))) == NULL ||
	    (ip->taken = calloc(n + 1, 1)) == NULL) {
		if (ip != NULL)
			free(ip->procs);
		free(ip);
		return NULL;
	}
	ip->pdb = pdb;
	for (i = 0; i < n; i++)
		if (usable(pdb, &f[i], i, n))
			ip->procs[ip->nprocs++] = &f[i];
	return ip;
}

/* Where the PDB's sections end, rounded up to a page: the image size. */
static uint32_t
pdb_extent(const struct pdb *pdb)
{
	const struct pdb_section *sec;
	uint64_t end = 0;
	size_t n, i;

	sec = pdb_sections(pdb, &n);
	for (i = 0; i < n; i++)
		if (sec[i].rva + (uint64_t)sec[i].size > end)
			end = sec[i].rva + (uint64_t)sec[i].size;
	end = (end + SECTION_ALIGN - 1) / SECTION_ALIGN * SECTION_ALIGN;
	return end > UINT32_MAX ? 0 : (uint32_t)end;
}

static int
use_pdb(enum image_id id, const struct pdb *pdb, const char *pdb_name,
    const char **why)
{
	struct image_desc *d = &images[id];
	struct image_pdb *ip;
	unsigned char g[16];
	uint32_t size;

	if (image_pdbs[id] != NULL) {
		*why = "the image has a PDB already";
		return -1;
	}
	if ((size = pdb_extent(pdb)) == 0) {
		*why = "the PDB's sections end beyond 4 GiB";
		return -1;
	}
	if ((ip = new_image_pdb(pdb)) == NULL) {
		*why = "out of memory";
		return -1;
	}
	if (ip->nprocs == 0) {
		free(ip->procs);
		free(ip->taken);
		free(ip);
		*why = "no procedure in the PDB to place frames in";
		return -1;
	}
	image_pdbs[id] = ip;
	d->size64 = d->size32 = size;
	pdb_identity(pdb, g, &d->pdb_age);
	d->pdb_guid.data1 = le32(g);
	d->pdb_guid.data2 = le16(g + 4);
	d->pdb_guid.data3 = le16(g + 6);
	memcpy(d->pdb_guid.data4, g + 8, 8);
	d->pdb_name = pdb_name;
	return 0;
}

int
images_use_pdb(const char *name, const struct pdb *pdb, const char *pdb_name,
    const char **why)
{
	int i, n = 0;

	for (i = 0; i < IMAGE_COUNT; i++) {
		if (!same_name(name, image_base_name((enum image_id)i)) &&
		    !same_name(name, images[i].file_name))
			continue;
		if (use_pdb((enum image_id)i, pdb, pdb_name, why) == -1)
			return -1;
		n++;
	}
	return n;
}
