/*
 * utf.h - text conversion to UTF-8 for the event decoders.
 *
 * ETW strings arrive as UTF-16LE (most providers) or as 8-bit "ANSI" text
 * (kernel events, TraceLogging AnsiString fields); the stream carries UTF-8
 * only.  These functions write into a buffer the caller owns, never
 * allocate, and never read outside in[0..in_len): a string that lacks its
 * NUL simply ends at in_len (etl-format.md section 8, pitfall 16).
 *
 * Their output is always valid, NUL-terminated UTF-8 when cap > 0, and a
 * truncated result never ends in a partial UTF-8 sequence.  With cap == 0
 * nothing is written.  utf8_encode() is the encoder beneath them, for
 * decoders that build text of their own (JSON escapes).
 */
#ifndef UTF_H
#define UTF_H

#include <stddef.h>
#include <stdint.h>

/*
 * Converts UTF-16LE at in[0..in_len) to UTF-8, stopping after a NUL code
 * unit or at in_len (an odd trailing byte is ignored).  Unpaired surrogates
 * become U+FFFD.  Writes at most cap-1 bytes plus a NUL.
 * *consumed (if not NULL) receives the input bytes the string takes,
 * including the NUL when one was found, whether or not all of it fitted in
 * `out`: it is where the next field starts.
 * @return : the UTF-8 length written (excluding the NUL).
 */
size_t utf16_to_utf8(const unsigned char *in, size_t in_len, char *out,
    size_t cap, size_t *consumed);

/*
 * The same for 8-bit text, NUL-terminated or in_len-bounded.  Input that is
 * already valid UTF-8 is copied as it is; otherwise every byte >= 0x80 is
 * taken as Windows-1252 (its five undefined codes as Latin-1) and encoded.
 * The output may take up to 3 bytes per input byte.
 * @return : the UTF-8 length written (excluding the NUL).
 */
size_t ansi_to_utf8(const unsigned char *in, size_t in_len, char *out,
    size_t cap, size_t *consumed);

/*
 * Encodes code point cp as UTF-8 into out[0..4), NUL not included.  cp
 * is not checked: a surrogate or a value above U+10FFFF gives a sequence
 * that is not valid UTF-8.
 * @return : the number of bytes written, 1 to 4.
 */
size_t utf8_encode(uint32_t cp, char out[4]);

/*
 * For writers of text that must be valid UTF-8 whatever the trace held
 * (JSON): in[0..n) must not be empty.
 * @return : the length of the well-formed UTF-8 sequence at in[0..n), 1
 *	for ASCII, or 0 if it is not one (overlong forms, surrogates and
 *	code points above U+10FFFF are not).
 */
size_t utf8_seq_len(const unsigned char *in, size_t n);

/*
 * @return : the length in bytes of the NUL-terminated UTF-16LE string at
 *	in[0..in_len), including the NUL; in_len rounded down to even if
 *	there is no NUL.
 */
size_t utf16_span(const unsigned char *in, size_t in_len);

#endif
