/*
 * sym_pe.h - the identity of a PE image that ties it to its PDB: the
 * CodeView (RSDS) record of its debug directory (pdb-format.md 8), and
 * its time stamp and size, the key of the image in a symbol store.
 *
 * Every offset is checked against the file; messages are
 * "what (offset 0x...)".
 */
#ifndef SYM_PE_H
#define SYM_PE_H

#include <stddef.h>
#include <stdint.h>

struct sym_pe {
	unsigned char guid[16];		/* binary layout, as in the PDB */
	uint32_t age;
	char pdb[1024];			/* the PDB path recorded, UTF-8 */
	uint32_t timestamp, size_of_image;
	int has_codeview;		/* an RSDS record was found */
};

/*
 * Whether the bytes start like a PE image ("MZ").
 */
int sym_pe_is_image(const unsigned char *data, size_t len);

/*
 * Reads the headers and the CodeView record.
 * @return : 0; -1 with the reason in err when it is not a PE image or
 *	its headers are cut short.  An image without CodeView record is
 *	no error: has_codeview says so.
 */
int sym_pe_read(const unsigned char *data, size_t len, struct sym_pe *pe,
    char *err, size_t errlen);

#endif
