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
#include <stdint.h>
#include <sys/stat.h>
#include <wchar.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif

int
platform_same_file(const struct file_id *a, const struct file_id *b)
{
	return a->regular && b->regular && a->dev == b->dev && a->ino == b->ino;
}

/* Copies `in` to `tmp` to its end.  @return : 0, or -1. */
static int
copy_to(FILE *in, FILE *tmp)
{
	char buf[1 << 16];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, tmp) != n)
			return -1;
	if (ferror(in) || fflush(tmp) != 0)
		return -1;
	rewind(tmp);
	return 0;
}

FILE *
platform_spool(FILE *in)
{
	FILE *tmp = platform_scratch_file();

	if (tmp == NULL)
		return NULL;
	if (copy_to(in, tmp) != 0) {
		fclose(tmp);
		return NULL;
	}
	return tmp;
}

#ifdef _WIN32
/* The errno closest to what GetLastError() says. */
static int
win_errno(void)
{
	switch (GetLastError()) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
	case ERROR_INVALID_DRIVE:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
		return EACCES;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
	case ERROR_COMMITMENT_LIMIT:
		return ENOMEM;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	default:
		return EIO;
	}
}

/* Puts the console's output code page back as platform_init found it. */
static UINT console_cp;

static void
restore_console_cp(void)
{
	SetConsoleOutputCP(console_cp);
}

void
platform_init(void)
{
	DWORD mode;

	/*
	 * Every stream is binary: the event stream must pass untouched, and
	 * text and CSV come out byte for byte as on Linux (LF lines, CRLF
	 * CSV rows), which PowerShell, Excel and every editor read.
	 */
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	_fmode = _O_BINARY;
	/* Messages are UTF-8 (the manifest's code page); so is the console. */
	if (GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode) &&
	    (console_cp = GetConsoleOutputCP()) != CP_UTF8 &&
	    SetConsoleOutputCP(CP_UTF8))
		atexit(restore_console_cp);
}

/*
 * An unnamed temporary file in the user's temporary folder, deleted when
 * closed.  tmpfile() would try the root of the current drive, which a
 * user may not write to.
 */
static FILE *
temp_file(void)
{
	wchar_t dir[MAX_PATH + 1], path[MAX_PATH + 1];
	HANDLE h;
	FILE *fp;
	int fd;

	if (GetTempPathW(MAX_PATH + 1, dir) == 0 ||
	    GetTempFileNameW(dir, L"etl", 0, path) == 0) {
		errno = win_errno();
		return NULL;
	}
	h = CreateFileW(path, GENERIC_READ | GENERIC_WRITE, 0, NULL,
	    CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE,
	    NULL);
	if (h == INVALID_HANDLE_VALUE) {
		errno = win_errno();
		DeleteFileW(path);
		return NULL;
	}
	if ((fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY)) < 0) {
		CloseHandle(h);
		return NULL;
	}
	if ((fp = _fdopen(fd, "w+b")) == NULL)
		_close(fd);
	return fp;
}

FILE *
platform_scratch_file(void)
{
	return temp_file();
}

/*
 * Maps a whole file by its handle; 64-bit sizes throughout, so a trace
 * of several gigabytes maps as a small one does.
 */
static int
map_handle(HANDLE file, struct mapped_file *m)
{
	LARGE_INTEGER size;
	HANDLE mapping;
	void *view;

	if (!GetFileSizeEx(file, &size)) {
		errno = win_errno();
		return -1;
	}
	if (size.QuadPart == 0) {
		m->data = (const unsigned char *)"";
		return 0;
	}
	if ((unsigned long long)size.QuadPart > SIZE_MAX) {
		errno = EFBIG;
		return -1;
	}
	mapping = CreateFileMappingW(file, NULL, PAGE_READONLY, 0, 0, NULL);
	if (mapping == NULL) {
		errno = win_errno();
		return -1;
	}
	view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
	CloseHandle(mapping);
	if (view == NULL) {
		errno = win_errno();
		return -1;
	}
	m->data = view;
	m->len = (size_t)size.QuadPart;
	m->mem = view;
	m->is_mapped = 1;
	return 0;
}

/* Standard input: mapped when it is a file, spooled when it is a pipe. */
static int
map_stdin(struct mapped_file *m)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(stdin));
	FILE *tmp;
	int rc;

	if (h != INVALID_HANDLE_VALUE && GetFileType(h) == FILE_TYPE_DISK)
		return map_handle(h, m);
	if ((tmp = platform_spool(stdin)) == NULL)
		return -1;
	rc = map_handle((HANDLE)_get_osfhandle(_fileno(tmp)), m);
	fclose(tmp);
	return rc;
}

int
platform_map_file(const char *path, struct mapped_file *m)
{
	HANDLE file;
	int rc;

	memset(m, 0, sizeof(*m));
	if (strcmp(path, "-") == 0)
		return map_stdin(m);
	/*
	 * The name is UTF-8 (the manifest's code page).  Others may go on
	 * writing or renaming the file: a trace WPR is still finishing.
	 */
	file = CreateFileA(path, GENERIC_READ,
	    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
	    OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	if (file == INVALID_HANDLE_VALUE) {
		errno = win_errno();
		return -1;
	}
	rc = map_handle(file, m);
	CloseHandle(file);
	return rc;
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

int
platform_map_file_for_reads(const char *path, struct mapped_file *m)
{
	return platform_map_file(path, m);
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

/*
 * Whether fp is a console, or the pseudo-terminal of an MSYS2 or Cygwin
 * terminal (a named pipe called \msys-...-ptyN-to-master or
 * \cygwin-...).  _isatty() would also say yes for NUL.
 */
int
platform_is_terminal(FILE *fp)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(fp));
	struct {
		FILE_NAME_INFO info;
		wchar_t more[MAX_PATH];
	} name;
	DWORD mode;
	size_t n;

	if (h == INVALID_HANDLE_VALUE)
		return 0;
	if (GetConsoleMode(h, &mode))
		return 1;
	if (GetFileType(h) != FILE_TYPE_PIPE ||
	    !GetFileInformationByHandleEx(h, FileNameInfo, &name,
	    sizeof(name) - sizeof(wchar_t)))
		return 0;
	n = name.info.FileNameLength / sizeof(wchar_t);
	name.info.FileName[n] = L'\0';
	return (wcsstr(name.info.FileName, L"\\msys-") != NULL ||
	    wcsstr(name.info.FileName, L"\\cygwin-") != NULL) &&
	    wcsstr(name.info.FileName, L"-pty") != NULL;
}

int
platform_file_id(const char *path, FILE *fp, struct file_id *id)
{
	BY_HANDLE_FILE_INFORMATION info;
	HANDLE h;
	int ok;

	memset(id, 0, sizeof(*id));
	if (path != NULL)
		h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE |
		    FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
		    FILE_FLAG_BACKUP_SEMANTICS, NULL);
	else
		h = (HANDLE)_get_osfhandle(_fileno(fp));
	if (h == INVALID_HANDLE_VALUE) {
		errno = ENOENT;
		return -1;
	}
	ok = GetFileType(h) == FILE_TYPE_DISK &&
	    GetFileInformationByHandle(h, &info);
	if (ok) {
		id->dev = info.dwVolumeSerialNumber;
		id->ino = (unsigned long long)info.nFileIndexHigh << 32 |
		    info.nFileIndexLow;
		id->regular = !(info.dwFileAttributes &
		    FILE_ATTRIBUTE_DIRECTORY);
	}
	if (path != NULL)
		CloseHandle(h);
	return 0;
}

FILE *
platform_temp_beside(const char *path, char **tmp)
{
	size_t len = strlen(path) + 16;
	char *name = malloc(len);
	unsigned n;
	int fd = -1;
	FILE *fp;

	if (name == NULL)
		return NULL;
	for (n = 0; n < 100 && fd < 0; n++) {
		snprintf(name, len, "%s.%lu-%u.tmp", path,
		    (unsigned long)GetCurrentProcessId(), n);
		fd = _open(name, _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY,
		    _S_IREAD | _S_IWRITE);
	}
	if (fd < 0 || (fp = _fdopen(fd, "wb")) == NULL) {
		if (fd >= 0) {
			_close(fd);
			remove(name);
		}
		free(name);
		return NULL;
	}
	*tmp = name;
	return fp;
}

int
platform_replace(const char *tmp, const char *path)
{
	/* The names are UTF-8, the manifest's code page. */
	if (MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING))
		return 0;
	errno = win_errno();
	return -1;
}

unsigned long long
platform_now_ns(void)
{
	LARGE_INTEGER f, c;

	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&c);
	return (unsigned long long)(c.QuadPart / f.QuadPart) * 1000000000ULL +
	    (unsigned long long)(c.QuadPart % f.QuadPart) * 1000000000ULL /
	    (unsigned long long)f.QuadPart;
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
FILE *
platform_scratch_file(void)
{
	return tmpfile();
}

void
platform_init(void)
{
	/* Nothing to set up: streams are bytes, arguments are UTF-8. */
}

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

/* Keeps the mapped file open for platform_read_at(); 0 either way. */
static int
keep_fd(struct mapped_file *m, int fd)
{
	/* Standard input is the caller's to close: read from a copy. */
	if (fd == fileno(stdin) && (fd = dup(fd)) < 0)
		return 0;
	m->fd = fd;
	m->has_fd = 1;
	return 0;
}

static int
map_path(const char *path, struct mapped_file *m, int keep)
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
	else if (S_ISREG(st.st_mode)) {
		if ((rc = map_fd(fd, m)) == 0 && m->is_mapped && keep)
			return keep_fd(m, fd);
	} else if (fd == fileno(stdin))
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

int
platform_map_file(const char *path, struct mapped_file *m)
{
	return map_path(path, m, 0);
}

int
platform_map_file_for_reads(const char *path, struct mapped_file *m)
{
	return map_path(path, m, 1);
}

void
platform_unmap_file(struct mapped_file *m)
{
	if (m->is_mapped)
		munmap(m->mem, m->len);
	else
		free(m->mem);
	if (m->has_fd)
		close(m->fd);
	memset(m, 0, sizeof(*m));
}

/* platform_read_at() from the mapped file itself. */
static long
read_fd_at(int fd, uint64_t off, void *dst, size_t len)
{
	ssize_t n;

	do
		n = pread(fd, dst, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return (long)n;
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
platform_file_id(const char *path, FILE *fp, struct file_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if ((path != NULL ? stat(path, &st) : fstat(fileno(fp), &st)) != 0)
		return -1;
	id->dev = (unsigned long long)st.st_dev;
	id->ino = (unsigned long long)st.st_ino;
	id->regular = S_ISREG(st.st_mode);
	return 0;
}

FILE *
platform_temp_beside(const char *path, char **tmp)
{
	size_t len = strlen(path) + sizeof(".XXXXXX");
	char *name = malloc(len);
	struct stat st;
	mode_t mask, mode;
	FILE *fp;
	int fd;

	if (name == NULL)
		return NULL;
	snprintf(name, len, "%s.XXXXXX", path);
	if ((fd = mkstemp(name)) < 0) {
		free(name);
		return NULL;
	}
	/*
	 * mkstemp() makes it 0600: give it the mode of the file it will
	 * replace, or the 0666 less the umask of a new one.
	 */
	mask = umask(0);
	umask(mask);
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	else
		mode = 0666 & ~mask;
	if (fchmod(fd, mode) != 0 ||
	    (fp = fdopen(fd, "wb")) == NULL) {
		close(fd);
		unlink(name);
		free(name);
		return NULL;
	}
	*tmp = name;
	return fp;
}

int
platform_replace(const char *tmp, const char *path)
{
	return rename(tmp, path);
}

unsigned long long
platform_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (unsigned long long)ts.tv_sec * 1000000000ULL +
	    (unsigned long long)ts.tv_nsec;
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

long
platform_read_at(const struct mapped_file *m, uint64_t off, void *dst,
    size_t len)
{
	if (off >= m->len)
		return 0;
	if (len > m->len - off)
		len = (size_t)(m->len - off);
#ifndef _WIN32
	/* Windows keeps no handle (has_fd is never set): the view serves. */
	if (m->has_fd)
		return read_fd_at(m->fd, off, dst, len);
#endif
	memcpy(dst, m->data + off, len);
	return (long)len;
}

char *
platform_strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}
