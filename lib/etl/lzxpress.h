/*
 * lzxpress.h - MS-XCA "Plain LZ77" (LZXpress) compression, as used by
 * compressed ETW buffers (etl-format.md section 1.6).
 *
 * The functions work on caller-owned memory and keep no state.
 */
#ifndef LZXPRESS_H
#define LZXPRESS_H

#include <stddef.h>

/*
 * Decompresses `in` into `out`, stopping once `out_len` bytes have been
 * produced (the ETW buffer header says how many to expect).
 * @return : the number of bytes written, or -1 if the input is malformed
 *	(a match reaching before the start of the output, or the input ending
 *	before `out_len` bytes were produced).  On -1, *err_at (if not NULL) is
 *	set to the input offset where decoding failed.
 */
long lzxpress_decompress(const unsigned char *in, size_t in_len,
    unsigned char *out, size_t out_len, size_t *err_at);

/*
 * Compresses `in` into `out`.  `out_cap` should be at least
 * lzxpress_bound(in_len).
 * @return : the compressed size, or -1 if `out_cap` was too small.
 */
long lzxpress_compress(const unsigned char *in, size_t in_len,
    unsigned char *out, size_t out_cap);

/* The largest compressed size lzxpress_compress() can produce for `len`. */
size_t lzxpress_bound(size_t len);

#endif
