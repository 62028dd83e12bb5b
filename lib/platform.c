/*
 * platform.c - POSIX and Windows versions of platform.h.
 */
/* madvise() and MADV_DONTNEED are not POSIX. */
#ifndef _WIN32
#define _DEFAULT_SOURCE
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

FILE *
platform_spool(FILE *in)
{
	FILE *tmp = tmpfile();
	char buf[1 << 16];
	size_t n;

	if (tmp == NULL)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, tmp) != n)
			goto fail;
	if (ferror(in) || fflush(tmp) != 0)
		goto fail;
	rewind(tmp);
	return tmp;
fail:
	fclose(tmp);
	return NULL;
}

#ifdef _WIN32
/* Reads a whole stream into malloc'd memory. */
static int
read_all(FILE *fp, struct mapped_file *m)
{
	size_t cap = 1 << 20, len = 0, n;
	unsigned char *buf = malloc(cap), *p;

	if (buf == NULL)
		return -1;
	while ((n = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += n;
		if (len == cap) {
			if ((p = realloc(buf, cap * 2)) == NULL) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = p;
			cap *= 2;
		}
	}
	if (ferror(fp)) {
		free(buf);
		return -1;
	}
	m->data = buf;
	m->len = len;
	m->mem = buf;
	m->is_mapped = 0;
	return 0;
}

int
platform_map_file(const char *path, struct mapped_file *m)
{
	HANDLE file, mapping;
	LARGE_INTEGER size;
	void *view;

	memset(m, 0, sizeof(*m));
	if (strcmp(path, "-") == 0) {
		platform_binary_mode(stdin);
		return read_all(stdin, m);
	}
	file = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL,
	    OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	if (file == INVALID_HANDLE_VALUE) {
		errno = ENOENT;
		return -1;
	}
	if (!GetFileSizeEx(file, &size)) {
		CloseHandle(file);
		errno = EIO;
		return -1;
	}
	if (size.QuadPart == 0) {
		CloseHandle(file);
		m->data = (const unsigned char *)"";
		return 0;
	}
	mapping = CreateFileMappingA(file, NULL, PAGE_READONLY, 0, 0, NULL);
	CloseHandle(file);
	if (mapping == NULL) {
		errno = EIO;
		return -1;
	}
	view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
	CloseHandle(mapping);
	if (view == NULL) {
		errno = ENOMEM;
		return -1;
	}
	m->data = view;
	m->len = (size_t)size.QuadPart;
	m->mem = view;
	m->is_mapped = 1;
	return 0;
}

void
platform_unmap_file(struct mapped_file *m)
{
	if (m->is_mapped)
		UnmapViewOfFile(m->mem);
	else
		free(m->mem);
	memset(m, 0, sizeof(*m));
}

void
platform_binary_mode(FILE *fp)
{
	_setmode(_fileno(fp), _O_BINARY);
}

void
platform_drop_pages(const void *p, size_t len)
{
	/* The working set shrinks on its own on Windows. */
	(void)p;
	(void)len;
}

int
platform_is_terminal(FILE *fp)
{
	return _isatty(_fileno(fp));
}

int
platform_mkdir(const char *path)
{
	return CreateDirectoryA(path, NULL) ||
	    GetLastError() == ERROR_ALREADY_EXISTS ? 0 : -1;
}

FILE *
platform_temp_file(char *path, size_t cap)
{
	char dir[MAX_PATH + 1];

	if (GetTempPathA(sizeof(dir), dir) == 0 || cap < MAX_PATH ||
	    GetTempFileNameA(dir, "etl", 0, path) == 0)
		return NULL;
	return fopen(path, "wb");
}
#else
/* Maps a regular file; the descriptor stays open for the caller. */
static int
map_fd(int fd, struct mapped_file *m)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) != 0)
		return -1;
	if (st.st_size == 0) {
		m->data = (const unsigned char *)"";
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	/* Decoding walks the file front to back. */
	posix_madvise(p, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
	m->data = p;
	m->len = (size_t)st.st_size;
	m->mem = p;
	m->is_mapped = 1;
	return 0;
}

/*
 * A pipe is copied to an unlinked temporary file and mapped from there,
 * so that a multi-gigabyte trace piped in does not have to fit in memory.
 */
static int
spool_and_map(FILE *in, struct mapped_file *m)
{
	FILE *tmp = platform_spool(in);
	int rc;

	if (tmp == NULL)
		return -1;
	rc = map_fd(fileno(tmp), m);
	fclose(tmp);
	return rc;
}

int
platform_map_file(const char *path, struct mapped_file *m)
{
	struct stat st;
	FILE *in;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	if (strcmp(path, "-") == 0)
		fd = fileno(stdin);
	else if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		rc = -1;
	else if (S_ISREG(st.st_mode))
		rc = map_fd(fd, m);
	else if (fd == fileno(stdin))
		rc = spool_and_map(stdin, m);
	else if ((in = fdopen(fd, "rb")) == NULL)
		rc = -1;
	else {
		rc = spool_and_map(in, m);
		fclose(in);
		return rc;
	}
	if (fd != fileno(stdin))
		close(fd);
	return rc;
}

void
platform_unmap_file(struct mapped_file *m)
{
	if (m->is_mapped)
		munmap(m->mem, m->len);
	else
		free(m->mem);
	memset(m, 0, sizeof(*m));
}

void
platform_binary_mode(FILE *fp)
{
	(void)fp;
}

void
platform_drop_pages(const void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(page - 1);

	/*
	 * POSIX_MADV_DONTNEED is advice glibc ignores; MADV_DONTNEED drops
	 * the pages of a private file mapping, to be read again on access.
	 */
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}

int
platform_is_terminal(FILE *fp)
{
	return isatty(fileno(fp));
}

int
platform_mkdir(const char *path)
{
	return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

FILE *
platform_temp_file(char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	FILE *fp;
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(path, cap, "%s/etlXXXXXX", dir) >= cap ||
	    (fd = mkstemp(path)) == -1)
		return NULL;
	if ((fp = fdopen(fd, "wb")) == NULL)
		close(fd);
	return fp;
}
#endif
