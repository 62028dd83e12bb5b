/*
 * frames.h - the names of stack frames.
 *
 * A frame is named "module!0xRVA" after the image that covers its
 * address (the file name of the image's path, and the offset from its
 * base), or "0xADDR" when no image does.  Images come from the image
 * definitions (REC_IMAGE) of the current section, keyed by process and
 * address range; a process's own images are searched first, then those
 * of pid 0, where the kernel's images are defined.  When etlsym has
 * added symbols (REC_SYMBOL), a frame whose (image, address) has one is
 * named "module!function" instead, and the functions inlined there
 * become frames of their own, "module!function [inlined]", innermost
 * first: this is the one place where a frame gets its name.
 *
 * A few pseudo frames stand where a sample has no stack, or one that the
 * source never defined; they are named in brackets and are not code.
 *
 * Memory: a struct frames copies what it keeps of the images; names are
 * written into buffers the caller gives.  Images are forgotten at each
 * HEADER record, as their ids are.
 */
#ifndef FRAMES_H
#define FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define FRAMES_NO_STACK		"[no stack]"
#define FRAMES_UNDEFINED	"[stack not defined]"
#define FRAMES_INLINE_MARK	"[inlined]"

enum frames_flags {
	FRAMES_ADDRESSES = 1 << 0	/* every frame as 0xADDR */
};

struct frames;

/* @return : NULL if out of memory. */
struct frames *frames_new(unsigned flags);
void frames_free(struct frames *f);

/*
 * Takes note of the images (REC_IMAGE) and sections (REC_HEADER) of the
 * stream.  @return : 0, or -1 if out of memory.
 */
int frames_record(struct frames *f, const struct stream_reader *r,
    const struct stream_record *rec);

/*
 * Writes the name of the frame at `addr` in process definition `process`
 * (0 if not known: then only the kernel's images are searched) into buf,
 * NUL-terminated when cap > 0.
 * @return : the length of the whole name, as snprintf gives it.
 */
size_t frames_name(struct frames *f, stream_id process, uint64_t addr,
    char *buf, size_t cap);

/*
 * How many inlined frames the frame at `addr` holds (0 without symbols):
 * its names are frames_name_at() levels 0 (innermost) to that count - 1,
 * the containing function's is the level after, as frames_name() gives.
 */
size_t frames_inlined(struct frames *f, stream_id process, uint64_t addr);
size_t frames_name_at(struct frames *f, stream_id process, uint64_t addr,
    size_t level, char *buf, size_t cap);

/* The REC_IMAGE id of the image that covers addr, or 0. */
stream_id frames_image(struct frames *f, stream_id process, uint64_t addr);

/* The length of the module part of a frame's name; 0 if it has none. */
size_t frames_module_len(const char *name, size_t len);

/* Whether a frame's name is that of an inlined function. */
int frames_is_inlined(const char *name, size_t len);

/* Whether a frame's name is one of the pseudo frames above. */
int frames_is_pseudo(const char *name, size_t len);

/* The file name of a path, Windows or POSIX: a module's name. */
const char *frames_base_name(const char *path);

#endif
