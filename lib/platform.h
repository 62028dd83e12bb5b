/*
 * platform.h - the few calls that differ between POSIX and Windows:
 * mapping an input file into memory, binary mode, terminal checks; and
 * spooling a pipe to a temporary file, which mapping needs too.
 * Only this module and cli.c include system headers beyond C11.
 *
 * On Windows, file names and arguments are UTF-8 like everywhere else:
 * the manifest embedded in every .exe (platform.manifest) makes UTF-8
 * the process's code page, so argv, fopen() and the -A calls take it.
 */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <stddef.h>
#include <stdio.h>

/*
 * Sets up the process before anything is read or written; cli_init()
 * calls it.  On Windows: standard input, output and error, and every
 * file opened later, in binary mode (no CRLF translation: the outputs
 * equal Linux's byte for byte), and a console shows UTF-8.
 */
void platform_init(void);

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

/*
 * Renames `from` to `to`, replacing `to` if it exists, as rename() does
 * on POSIX (Windows' rename() refuses an existing target).
 * @return : 0, or -1 with errno set.
 */
int platform_rename(const char *from, const char *to);

/* Puts a stdio stream in binary mode (Windows; a no-op elsewhere). */
void platform_binary_mode(FILE *fp);

/*
 * Whether fp is a terminal: on Windows a console, or the pseudo-terminal
 * of MSYS2 or Cygwin, but not NUL.
 */
int platform_is_terminal(FILE *fp);

#endif
