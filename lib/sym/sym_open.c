/*
 * sym_open.c - opening one candidate file of the symbol search: a PDB or
 * the CAB (`.pd_`, `.ex_`, `.dl_`) that holds one, and checking that a
 * PDB is the one an image asks for (sym_open.h).  Both the search of
 * local directories (sym_path.c) and the downloads (sym_download.c) open
 * what they find here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mspack.h>

#include "base/platform.h"
#include "base/value.h"
#include "sym_open.h"

#define CAB_MAX_RATIO	100	/* a CAB's content over its size */

int
sym_uncab(const char *path, size_t cab_len, char *tmp, size_t tmpcap,
    char *msg, size_t msglen)
{
	struct mscab_decompressor *d;
	struct mscabd_cabinet *cab;
	int fd_ok = -1;
	FILE *fp;

	if ((d = mspack_create_cab_decompressor(NULL)) == NULL) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	if ((cab = d->open(d, path)) == NULL || cab->files == NULL) {
		snprintf(msg, msglen, "unreadable CAB archive (offset 0x0)");
	} else if ((uint64_t)cab->files->length > (uint64_t)cab_len *
	    CAB_MAX_RATIO + (1 << 20)) {
		snprintf(msg, msglen, "CAB content of %u bytes is too large "
		    "for its %zu bytes (offset 0x0)", cab->files->length,
		    cab_len);
	} else if ((fp = platform_temp_file(tmp, tmpcap)) == NULL) {
		snprintf(msg, msglen, "cannot create a temporary file");
	} else {
		fclose(fp);
		if (d->extract(d, cab->files, tmp) == MSPACK_ERR_OK)
			fd_ok = 0;
		else {
			snprintf(msg, msglen, "CAB archive: decompression "
			    "failed (offset 0x0)");
			remove(tmp);
		}
	}
	if (cab != NULL)
		d->close(d, cab);
	mspack_destroy_cab_decompressor(d);
	return fd_ok;
}

static void
guid_text(const unsigned char g[16], uint32_t age, char *out, size_t cap)
{
	char key[41];

	value_format_pdb_key(g, age, key);
	snprintf(out, cap, "%.8s-%.4s-%.4s-%.4s-%.12s age %u", key, key + 8,
	    key + 12, key + 16, key + 20, age);
}

enum sym_status
sym_open_pdb(const char *path, const unsigned char *guid, uint32_t age,
    struct pdb **pdbp, char *msg, size_t msglen)
{
	struct mapped_file m;
	char tmp[4096], want[64], have[64];
	unsigned char g[16];
	struct pdb *p;
	enum pdb_status st;
	uint32_t a;
	int cab = 0;

	*pdbp = NULL;
	if (platform_map_file(path, &m) != 0)
		return SYM_NOT_FOUND;
	if (m.len >= 4 && memcmp(m.data, "MSCF", 4) == 0) {
		size_t len = m.len;

		platform_unmap_file(&m);
		if (sym_uncab(path, len, tmp, sizeof(tmp), msg, msglen) != 0)
			return SYM_CORRUPT;
		cab = 1;
		if (platform_map_file(tmp, &m) != 0) {
			remove(tmp);
			snprintf(msg, msglen, "cannot read the CAB's content");
			return SYM_CORRUPT;
		}
	}
	if ((p = pdb_new()) == NULL) {
		snprintf(msg, msglen, "out of memory");
		st = PDB_FATAL;
	} else
		st = pdb_open_mem(p, m.data, m.len);
	platform_unmap_file(&m);
	if (cab)
		remove(tmp);
	if (p == NULL)
		return SYM_CORRUPT;
	if (st == PDB_FATAL) {
		snprintf(msg, msglen, "%s", pdb_error(p));
		pdb_free(p);
		return SYM_CORRUPT;
	}
	if (guid != NULL) {
		pdb_identity(p, g, &a);
		if (memcmp(g, guid, 16) != 0 || a != age) {
			guid_text(guid, age, want, sizeof(want));
			guid_text(g, a, have, sizeof(have));
			snprintf(msg, msglen, "PDB does not match the image: "
			    "it is %s, the image wants %s", have, want);
			pdb_free(p);
			return SYM_MISMATCH;
		}
	}
	if (st == PDB_WARN)
		snprintf(msg, msglen, "%s", pdb_error(p));
	*pdbp = p;
	return SYM_FOUND;
}
