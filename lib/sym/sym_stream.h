/*
 * sym_stream.h - etlsym's stream mode: the symbol records a section
 * needs.
 *
 * While a section passes, sym_stream_record() notes every (process,
 * stack) and every sample's instruction pointer that events use, with
 * how often.  At the section's end, sym_stream_flush() walks each stack
 * once, places each address in its image (frames.h), loads the PDB of
 * each image with a PDB identity once for the whole run (sym_path.h,
 * GUID and age checked), and writes, before the END, one REC_SYMBOL per
 * distinct (image, address) it could name and one REC_IMAGE_SYMBOLS per
 * image that stacks touched.  sym_stream_summary() then tells the user,
 * per image, what was found and how many frames it holds.
 *
 * Memory: 16 bytes per distinct (process, stack) and per distinct
 * (image, address) of a section, plus the PDBs loaded (pdb.h).
 */
#ifndef SYM_STREAM_H
#define SYM_STREAM_H

#include <stdio.h>

#include "stream/stream.h"
#include "sym_path.h"

struct sym_stream;

/* `prog` prefixes messages.  @return : NULL if out of memory. */
struct sym_stream *sym_stream_new(struct sym_path *sp, const char *prog);
void sym_stream_free(struct sym_stream *s);

/* Notes a record as it passes.  @return : 0, or -1 out of memory. */
int sym_stream_record(struct sym_stream *s, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * Writes the section's symbol records (call it before writing the END,
 * and at the end of an input whose last section has none).
 * @return : 0, -1 on a write error or out of memory.
 */
int sym_stream_flush(struct sym_stream *s, const struct stream_reader *r,
    struct stream_writer *w);

/*
 * One line per image that stacks touched, most frames first: its
 * name, PDB, GUID/age, what became of it, and its frames; the first 20
 * (and every corrupt one) unless `verbose` > 0; only the corrupt ones
 * when `verbose` < 0 (quiet).
 * @return : 1 if a PDB was corrupt or unsupported (the exit status
 *	says so), else 0.
 */
int sym_stream_summary(struct sym_stream *s, FILE *fp, int verbose);

#endif
