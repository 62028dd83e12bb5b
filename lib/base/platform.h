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
#include <stdint.h>
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
	int has_fd;		/* fd is the mapped file, open for reads */
	int fd;
};

/*
 * Maps `path` read-only, or reads standard input whole when path is "-".
 * @return : 0, or -1 with errno set.
 */
int platform_map_file(const char *path, struct mapped_file *m);
void platform_unmap_file(struct mapped_file *m);

/*
 * platform_map_file(), keeping the file open for platform_read_at() until
 * it is unmapped.  It holds a descriptor: for the few files read at once.
 */
int platform_map_file_for_reads(const char *path, struct mapped_file *m);

/*
 * Copies up to `len` bytes at `off` of a file platform_map_file() gave,
 * with a read where the system has one, so that a look at a few bytes of
 * each part of a large file does not fault in its pages (the kernel maps
 * 64 KiB around each fault), else from the memory.
 * @return : the bytes copied, fewer at the end of the file, or -1.
 */
long platform_read_at(const struct mapped_file *m, uint64_t off, void *dst,
    size_t len);

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
 * An empty unnamed temporary file, open for reading and writing in
 * binary mode, deleted when closed.  @return : the file, or NULL with
 * errno set.
 */
FILE *platform_scratch_file(void);

/* Puts a stdio stream in binary mode (Windows; a no-op elsewhere). */
void platform_binary_mode(FILE *fp);

/*
 * Whether fp is a terminal: on Windows a console, or the pseudo-terminal
 * of MSYS2 or Cygwin, but not NUL.
 */
int platform_is_terminal(FILE *fp);

/*
 * The identity of a file, to tell whether two names (or a name and an
 * open stream) are one file: device and inode on POSIX, volume serial
 * number and file index on Windows.  `regular` is 0 for a pipe, a
 * terminal or a device, which are never the same file as anything.
 */
struct file_id {
	unsigned long long dev, ino;
	int regular;
};

/*
 * Fills *id for `path`, or for the open stream `fp` when path is NULL.
 * @return : 0, or -1 with errno set (the file does not exist, ...).
 */
int platform_file_id(const char *path, FILE *fp, struct file_id *id);

/* Whether two identities name one regular file. */
int platform_same_file(const struct file_id *a, const struct file_id *b);

/*
 * Creates a new empty file beside `path` (same directory, so that
 * platform_replace() is a rename) with a name made from path's, opened
 * for writing in binary mode, with the permissions of the file at path
 * if there is one (POSIX), else those a new file gets.
 * *tmp gets its name (malloc'd).  @return : the file, or NULL with errno.
 */
FILE *platform_temp_beside(const char *path, char **tmp);

/*
 * Puts `tmp` in the place of `path` in one step, replacing a file there.
 * @return : 0, or -1 with errno set.
 */
int platform_replace(const char *tmp, const char *path);

/* A monotonic clock in nanoseconds, for rates; its zero is arbitrary. */
unsigned long long platform_now_ns(void);

/* Makes a directory; one that exists is no error.  @return : 0, -1. */
int platform_mkdir(const char *path);

/*
 * Creates a new temporary file (in TMPDIR) and opens it for writing;
 * its name goes into path.  @return : the stream, or NULL.
 */
FILE *platform_temp_file(char *path, size_t cap);

/* The first n bytes of s as a new string (strndup(), which Windows
 * lacks).  @return : NULL if out of memory. */
char *platform_strndup(const char *s, size_t n);

#endif
