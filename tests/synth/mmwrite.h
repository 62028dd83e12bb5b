/*
 * mmwrite.h - writes a rustc self-profile, measureme's .mm_profdata
 * (format version 9, ../shared/docs/measureme-format.md sections 2 to
 * 4), as rustc does: the event stream flushed as a page whenever its
 * 256 KiB buffer would overflow, then, when the profiler is dropped, the
 * rest of the events, the string data and the string index, each a page
 * (the order E... S I of a small profile).
 *
 * Strings are concrete ids (an address in the string data plus
 * 100000003); the metadata JSON is the first string, at address 8, with
 * index entry 100000001.  Events are intervals only.
 *
 * Memory: one page of events, and the string data and index, which are
 * small.  A write error is kept (m->failed, m->error) and ends the
 * writing; mmw_close() returns it.
 */
#ifndef MMWRITE_H
#define MMWRITE_H

#include <stdint.h>
#include <stdio.h>

#include "base/buf.h"

#define MMW_PAGE_MAX	(256u << 10)	/* a stream's buffer */

struct mmw {
	FILE		*fp;
	struct buf	 events;	/* the events page being filled */
	struct buf	 strings;	/* the whole string-data stream */
	struct buf	 index;		/* the string-index stream */
	uint64_t	 nevents;
	int		 failed;
	int		 error;		/* errno of the failure */
};

/*
 * Creates `path` and writes the file header; `metadata` is the JSON of
 * section 4.4.  @return : 0, or -1 (errno set).
 */
int	 mmw_open(struct mmw *m, const char *path, const char *metadata);

/* The concrete StringId of a new string `s` (no 0xFE or 0xFF in it). */
uint64_t mmw_string(struct mmw *m, const char *s);

/*
 * An interval of kind `kind` and event id `id` (StringIds) on rustc
 * thread `thread`, from `start` to `end` ns after the profiler started;
 * written when it ends, as rustc writes it.
 */
void	 mmw_interval(struct mmw *m, uint64_t kind, uint64_t id,
	    uint32_t thread, uint64_t start, uint64_t end);

/*
 * Writes what is left and closes the file; frees the buffers either way.
 * @return : 0, or -1 if a write failed (errno set).
 */
int	 mmw_close(struct mmw *m);

/*
 * Appends to `out` an argument list as measureme's "cmd" holds it: each
 * argument (split as Windows splits a command line without escapes:
 * at spaces outside double quotes, the quotes dropped) through Rust's
 * escape_default, then a space.
 */
void	 mmw_cmd(struct buf *out, const char *cmdline);

#endif
