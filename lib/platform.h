/*
 * platform.h - the few calls that differ between POSIX and Windows:
 * mapping an input file into memory, binary mode, terminal checks; and
 * spooling a pipe to a temporary file, which mapping needs too.
 * Only this module and cli.c include system headers beyond C11.
 */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <stddef.h>
#include <stdio.h>

struct mapped_file {
	const unsigned char *data;
	size_t len;
	void *mem;		/* what to unmap or free */
	int is_mapped;
};

/*
 * Maps `path` read-only, or reads standard input whole when path is "-".
 * @return : 0, or -1 with errno set.
 */
int platform_map_file(const char *path, struct mapped_file *m);
void platform_unmap_file(struct mapped_file *m);

/*
 * Drops the pages of [p, p + len) of a read-only file mapping from this
 * process's memory (they are read again if touched), so that reading a
 * large file front to back keeps the resident size flat.  Only whole
 * pages inside the range are dropped.  Never call it on other memory.
 */
void platform_drop_pages(const void *p, size_t len);

/*
 * Copies `in` to its end into an unlinked temporary file, so that a pipe
 * can be read twice or mapped without holding it in memory.
 * @return : the file, rewound, or NULL with errno set.
 */
FILE *platform_spool(FILE *in);

/* Puts a stdio stream in binary mode (Windows; a no-op elsewhere). */
void platform_binary_mode(FILE *fp);

/* Whether fp is a terminal. */
int platform_is_terminal(FILE *fp);

/* Makes a directory; one that exists is no error.  @return : 0, -1. */
int platform_mkdir(const char *path);

/*
 * Creates a new temporary file (in TMPDIR) and opens it for writing;
 * its name goes into path.  @return : the stream, or NULL.
 */
FILE *platform_temp_file(char *path, size_t cap);

#endif
