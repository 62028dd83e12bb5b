/*
 * msf.h - the MSF 7.00 container of a PDB file (pdb-format.md section
 * 1): fixed-size pages holding numbered streams, found through a stream
 * directory.
 *
 * msf_open() checks the superblock and reads the directory; msf_stream()
 * then gives one stream's bytes whole.  Every page number, size and
 * count is checked against the file before it is used, so a hostile
 * file fails with a message and is never read out of bounds.  Page
 * numbers are checked when a stream is read, so a file cut short still
 * gives the streams that lie before the cut.
 *
 * A stream whose page list names a page twice is refused, so a stream
 * is never larger than the file and reading one costs at most the
 * file's size.
 *
 * Memory: the file's bytes belong to the caller and must outlive the
 * struct msf, which owns a host-order copy of the directory (4 bytes per
 * stream and per page of a stream).  msf_stream() returns a pointer into
 * the file when the stream's pages are consecutive and copies it into
 * the caller's struct buf otherwise; the bytes stay valid until that buf
 * is reused or released.
 *
 * Messages are "what (offset 0x...)", the offset a file offset.
 */
#ifndef MSF_H
#define MSF_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define MSF_ERROR_LEN	256

struct msf;

/*
 * Opens `len` bytes of an MSF file.  A portable PDB, an old 2.00 PDB, a
 * compressed MSFZ PDB and a CAB archive (a .pd_ file) are named as such.
 * @return : the container, or NULL with the reason in err (errlen bytes,
 *	MSF_ERROR_LEN is enough).
 */
struct msf *msf_open(const unsigned char *data, size_t len, char *err,
    size_t errlen);
void msf_free(struct msf *m);

/* The number of streams in the directory. */
uint32_t msf_stream_count(const struct msf *m);

/*
 * Stream `stream` whole: *data and *len get its bytes, length 0 for a
 * nil stream.  `scratch` holds the copy when one is needed.
 * @return : 0, or -1 with the reason in err (no such stream, a page
 *	outside the file, out of memory).
 */
int msf_stream(const struct msf *m, uint32_t stream, struct buf *scratch,
    const unsigned char **data, size_t *len, char *err, size_t errlen);

/*
 * The file offset of byte `off` of a stream, for messages; the offset of
 * the end of the file when the byte is not in the file.
 */
uint64_t msf_file_offset(const struct msf *m, uint32_t stream,
    uint64_t off);

#endif
