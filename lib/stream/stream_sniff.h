/*
 * stream_sniff.h - recognises an event stream that a text pipe has
 * mangled on its way, so that the reader can name the cause instead of
 * saying "not an event stream".
 *
 * Windows PowerShell 5.1 passes what a program writes as text: it
 * decodes the bytes in the console's code page and re-encodes them, as
 * UTF-16 when redirecting to a file, as ASCII (every byte above 0x7f
 * becoming '?') when piping to another program, and ends lines with CRLF.
 * Other text pipes re-encode as UTF-8.  Each leaves a mark on the zstd
 * magic number 28 b5 2f fd that starts every stream ("(", "/" and two
 * bytes above 0x7f): the two ASCII characters survive, the others do
 * not.  A CRLF translation leaves the magic intact but puts a CR before
 * every LF byte, which compressed data almost never does by chance.
 */
#ifndef STREAM_SNIFF_H
#define STREAM_SNIFF_H

#include <stddef.h>

/*
 * Looks at the first `len` bytes of an input (the more, the surer for
 * CRLF; a few KiB is plenty).  `damaged` says whether the bytes are
 * already known not to decode (then CRLF is looked for; an intact magic
 * alone is no sign of damage).
 * @return : a phrase naming the damage and what to do instead, e.g.
 *	"stream mangled by a text pipe: re-encoded as UTF-16 (...)", or
 *	NULL when the bytes show no such sign.
 */
const char *stream_text_damage(const unsigned char *p, size_t len,
    int damaged);

#endif
