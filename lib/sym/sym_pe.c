/*
 * sym_pe.c - the CodeView record of a PE image (pdb-format.md 8): DOS
 * header, COFF header, optional header (PE32 or PE32+), the debug data
 * directory through the section table, the first RSDS entry.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "sym_pe.h"

#define DEBUG_DIR_INDEX		6
#define DEBUG_TYPE_CODEVIEW	2
#define DEBUG_ENTRY_LEN		28
#define RSDS_FIXED		24	/* magic, GUID, age */

int
sym_pe_is_image(const unsigned char *data, size_t len)
{
	return len >= 2 && data[0] == 'M' && data[1] == 'Z';
}

static int
fail(char *err, size_t errlen, uint64_t off, const char *what)
{
	snprintf(err, errlen, "%s (offset 0x%llx)", what,
	    (unsigned long long)off);
	return -1;
}

/* The file offset of `rva` through the section table, or 0. */
static uint64_t
rva_to_offset(const unsigned char *data, size_t len, uint64_t sections,
    unsigned nsections, uint32_t rva)
{
	unsigned i;

	for (i = 0; i < nsections; i++) {
		const unsigned char *s = data + sections + 40 * (uint64_t)i;
		uint32_t va, vsize, rawsize, rawptr, span;

		if (sections + 40 * (uint64_t)(i + 1) > len)
			return 0;
		vsize = le32(s + 8);
		va = le32(s + 12);
		rawsize = le32(s + 16);
		rawptr = le32(s + 20);
		span = vsize > rawsize ? vsize : rawsize;
		if (rva >= va && rva - va < span)
			return (uint64_t)rawptr + (rva - va);
	}
	return 0;
}

int
sym_pe_read(const unsigned char *data, size_t len, struct sym_pe *pe,
    char *err, size_t errlen)
{
	uint64_t pe_off, opt, dirs, sections, dbg, entry, cv;
	uint32_t dbg_rva, dbg_size, i;
	unsigned nsections, magic;
	const unsigned char *nul;

	memset(pe, 0, sizeof(*pe));
	if (!sym_pe_is_image(data, len) || len < 0x40)
		return fail(err, errlen, 0, "not a PE image");
	pe_off = le32(data + 0x3c);
	if (pe_off + 24 > len || memcmp(data + pe_off, "PE\0\0", 4) != 0)
		return fail(err, errlen, 0x3c, "no PE signature");
	nsections = le16(data + pe_off + 6);
	pe->timestamp = le32(data + pe_off + 8);
	opt = pe_off + 24;
	sections = opt + le16(data + pe_off + 20);
	if (opt + 2 > len)
		return fail(err, errlen, opt, "optional header cut short");
	magic = le16(data + opt);
	if (magic != 0x10b && magic != 0x20b)
		return fail(err, errlen, opt, "unknown optional header magic");
	dirs = opt + (magic == 0x10b ? 96 : 112);
	if (opt + 60 > len || dirs + 8 * (DEBUG_DIR_INDEX + 1) > len)
		return fail(err, errlen, opt, "optional header cut short");
	pe->size_of_image = le32(data + opt + 56);
	if (le32(data + opt + (magic == 0x10b ? 92 : 108)) <=
	    DEBUG_DIR_INDEX)
		return 0;
	dbg_rva = le32(data + dirs + 8 * DEBUG_DIR_INDEX);
	dbg_size = le32(data + dirs + 8 * DEBUG_DIR_INDEX + 4);
	if (dbg_rva == 0 || (dbg = rva_to_offset(data, len, sections,
	    nsections, dbg_rva)) == 0)
		return 0;
	for (i = 0; i < dbg_size / DEBUG_ENTRY_LEN; i++) {
		entry = dbg + (uint64_t)i * DEBUG_ENTRY_LEN;
		if (entry + DEBUG_ENTRY_LEN > len)
			return fail(err, errlen, entry, "debug directory cut "
			    "short");
		if (le32(data + entry + 12) != DEBUG_TYPE_CODEVIEW)
			continue;
		cv = le32(data + entry + 24);
		if (cv + RSDS_FIXED >= len ||
		    memcmp(data + cv, "RSDS", 4) != 0)
			continue;
		memcpy(pe->guid, data + cv + 4, 16);
		pe->age = le32(data + cv + 20);
		nul = memchr(data + cv + RSDS_FIXED, '\0',
		    len - (cv + RSDS_FIXED));
		if (nul == NULL)
			return fail(err, errlen, cv, "CodeView record cut "
			    "short");
		snprintf(pe->pdb, sizeof(pe->pdb), "%.*s",
		    (int)(nul - data - cv - RSDS_FIXED),
		    (const char *)data + cv + RSDS_FIXED);
		pe->has_codeview = 1;
		return 0;
	}
	return 0;
}
