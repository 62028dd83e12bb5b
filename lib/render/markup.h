/*
 * markup.h - what the svg and html formats share: text made safe for
 * XML and HTML, and the colours of named things.
 *
 * Any string of the stream can be written with markup_text(): the
 * characters special to markup are escaped, control characters (but tab)
 * dropped and invalid UTF-8 replaced by U+FFFD, so that the document
 * stays well-formed whatever the trace held.
 */
#ifndef MARKUP_H
#define MARKUP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes s[0..len) as markup text (also fit for attribute values). */
void markup_text(FILE *fp, const char *s, size_t len);

/*
 * The same, cut to `max` code points: a longer text shows its first
 * max - 2 and "..".
 */
void markup_text_cut(FILE *fp, const char *s, size_t len, size_t max);

/*
 * A warm colour ("rgb(r,g,b)", as flamegraph.pl's "hot" palette) that
 * depends only on the name, so that a name keeps its colour from one
 * picture to the next.  out must hold 24 bytes.
 */
void markup_color(const char *name, size_t len, char out[24]);

/* The hash the colours are made from: the same in every version. */
uint32_t markup_hash(const char *name, size_t len);

#endif
