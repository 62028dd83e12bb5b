/*
 * msf.c - the superblock, the stream directory and stream reads of an
 * MSF 7.00 file (pdb-format.md 1.1 to 1.3).
 *
 * The directory is read through three levels: the page map array in the
 * superblock lists the pages of the directory page map, which lists the
 * pages of the directory itself.  Its stream sizes and page lists are
 * converted to host order once; a stream read then checks each of its
 * pages against the file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "msf.h"

#define SUPERBLOCK_LEN	52	/* the fixed fields; the page map follows */
#define MAGIC_LEN	32
#define NIL_STREAM	0xffffffffu
#define MIN_PAGE	512
#define MAX_PAGE	65536

/* "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS" and three NULs: 32 bytes. */
static const char msf7_magic[MAGIC_LEN] =
    "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0";

/* Containers that are not MSF 7.00 but worth naming (section 1.1). */
static const struct {
	const char *prefix;
	const char *what;
} other_formats[] = {
	{ "BSJB", "this is a portable PDB" },
	{ "MSCF", "this is a CAB archive (a compressed .pd_ file); "
	    "expand it first" },
	{ "Microsoft C/C++ program database 2.00",
	    "this is an old PDB 2.00 (small MSF), not supported" },
	{ "Microsoft MSFZ Container",
	    "this is a compressed MSFZ PDB, not supported" },
};

struct msf {
	const unsigned char *data;
	size_t len;
	uint32_t page_size;
	uint32_t npages;
	uint64_t dir_offset;	/* of the directory's first page */
	uint32_t nstreams;
	uint32_t *sizes;	/* bytes, or NIL_STREAM */
	uint32_t *first;	/* each stream's first entry in pages[] */
	uint32_t *pages;	/* the page lists of all streams */
};

static void
say(char *err, size_t errlen, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	char what[200];

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s (offset 0x%llx)", what,
	    (unsigned long long)off);
}

static void
no_memory(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory");
}

static uint64_t
pages_for(uint64_t bytes, uint32_t page_size)
{
	return (bytes + page_size - 1) / page_size;
}

/*
 * The first `n` bytes of page `page`, or NULL if they are not all in
 * the file.
 */
static const unsigned char *
page_bytes(const struct msf *m, uint32_t page, size_t n)
{
	uint64_t off = (uint64_t)page * m->page_size;

	if (page >= m->npages || off > m->len || m->len - off < n)
		return NULL;
	return m->data + off;
}

static int
check_magic(const unsigned char *data, size_t len, char *err,
    size_t errlen)
{
	size_t i, n;

	if (len >= MAGIC_LEN && memcmp(data, msf7_magic, MAGIC_LEN) == 0)
		return 0;
	for (i = 0; i < sizeof(other_formats) / sizeof(other_formats[0]);
	    i++) {
		n = strlen(other_formats[i].prefix);
		if (len >= n && memcmp(data, other_formats[i].prefix, n) == 0) {
			say(err, errlen, 0, "not an MSF PDB: %s",
			    other_formats[i].what);
			return -1;
		}
	}
	say(err, errlen, 0, "not a PDB: no MSF 7.00 signature");
	return -1;
}

static int
read_superblock(struct msf *m, uint32_t *dir_size, char *err, size_t errlen)
{
	uint32_t ps;

	if (m->len < SUPERBLOCK_LEN + 4) {
		say(err, errlen, m->len, "truncated superblock");
		return -1;
	}
	ps = le32(m->data + 32);
	if (ps < MIN_PAGE || ps > MAX_PAGE || (ps & (ps - 1)) != 0) {
		say(err, errlen, 32, "bad page size %u", ps);
		return -1;
	}
	m->page_size = ps;
	m->npages = le32(m->data + 40);
	*dir_size = le32(m->data + 44);
	if (*dir_size < 4 || *dir_size > m->len) {
		say(err, errlen, 44, "bad stream directory size %u", *dir_size);
		return -1;
	}
	return 0;
}

/*
 * Copies the directory's pages into `dir`: the superblock's page map
 * names the pages of the directory page map, whose entries name the
 * directory's pages.
 */
static int
gather_directory(struct msf *m, unsigned char *dir, uint32_t dir_size,
    char *err, size_t errlen)
{
	uint32_t ps = m->page_size, per_page = ps / 4;
	uint64_t dir_pages = pages_for(dir_size, ps);
	uint64_t map_pages = pages_for(dir_pages * 4, ps);
	const unsigned char *map, *page;
	uint32_t i, n, want;

	if (SUPERBLOCK_LEN + 4 * map_pages > ps ||
	    SUPERBLOCK_LEN + 4 * map_pages > m->len) {
		say(err, errlen, SUPERBLOCK_LEN,
		    "directory page map does not fit the superblock");
		return -1;
	}
	for (i = 0; i < dir_pages; i++) {
		n = le32(m->data + SUPERBLOCK_LEN + 4 * (i / per_page));
		if ((map = page_bytes(m, n, ps)) == NULL) {
			say(err, errlen, SUPERBLOCK_LEN + 4 * (i / per_page),
			    "directory page map page %u outside the file", n);
			return -1;
		}
		n = le32(map + 4 * (i % per_page));
		if (i == 0)
			m->dir_offset = (uint64_t)n * ps;
		want = i + 1 < dir_pages ? ps : dir_size - i * ps;
		if ((page = page_bytes(m, n, want)) == NULL) {
			say(err, errlen, (uint64_t)(map - m->data) +
			    4 * (i % per_page),
			    "stream directory page %u outside the file", n);
			return -1;
		}
		memcpy(dir + (size_t)i * ps, page, want);
	}
	return 0;
}

/* Converts the directory: counts, sizes, then every stream's pages. */
static int
parse_directory(struct msf *m, const unsigned char *dir, uint32_t dir_size,
    char *err, size_t errlen)
{
	uint64_t total = 0, pos;
	uint32_t i, n = le32(dir), size;

	if (n > (dir_size - 4) / 4) {
		say(err, errlen, m->dir_offset,
		    "stream directory lists %u streams in %u bytes", n,
		    dir_size);
		return -1;
	}
	m->nstreams = n;
	m->sizes = malloc(((size_t)n + 1) * sizeof(*m->sizes));
	m->first = malloc(((size_t)n + 1) * sizeof(*m->first));
	if (m->sizes == NULL || m->first == NULL) {
		no_memory(err, errlen);
		return -1;
	}
	for (i = 0; i < n; i++) {
		size = m->sizes[i] = le32(dir + 4 + 4 * (size_t)i);
		m->first[i] = (uint32_t)total;
		if (size != NIL_STREAM)
			total += pages_for(size, m->page_size);
		if (total > (dir_size - 4 - 4 * (uint64_t)n) / 4) {
			say(err, errlen, m->dir_offset,
			    "stream directory too short for stream %u", i);
			return -1;
		}
	}
	pos = 4 + 4 * (uint64_t)n;
	if ((m->pages = malloc(((size_t)total + 1) * sizeof(*m->pages))) ==
	    NULL) {
		no_memory(err, errlen);
		return -1;
	}
	for (i = 0; i < total; i++)
		m->pages[i] = le32(dir + pos + 4 * (size_t)i);
	return 0;
}

struct msf *
msf_open(const unsigned char *data, size_t len, char *err, size_t errlen)
{
	unsigned char *dir = NULL;
	uint32_t dir_size;
	struct msf *m;

	if (check_magic(data, len, err, errlen) == -1)
		return NULL;
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		no_memory(err, errlen);
		return NULL;
	}
	m->data = data;
	m->len = len;
	if (read_superblock(m, &dir_size, err, errlen) == -1)
		goto fail;
	if ((dir = malloc(dir_size)) == NULL) {
		no_memory(err, errlen);
		goto fail;
	}
	if (gather_directory(m, dir, dir_size, err, errlen) == -1 ||
	    parse_directory(m, dir, dir_size, err, errlen) == -1)
		goto fail;
	free(dir);
	return m;
fail:
	free(dir);
	msf_free(m);
	return NULL;
}

void
msf_free(struct msf *m)
{
	if (m == NULL)
		return;
	free(m->sizes);
	free(m->first);
	free(m->pages);
	free(m);
}

uint32_t
msf_stream_count(const struct msf *m)
{
	return m->nstreams;
}

/*
 * Whether a stream's page list names a page twice: a stream is copied
 * whole, so pages that repeat would let a small file claim gigabytes.
 * With every page at most once, a stream is never larger than the file.
 * @return : 0, or -1 with the reason in err.
 */
static int
repeats_page(const struct msf *m, uint32_t stream, const uint32_t *pages,
    uint32_t npg, char *err, size_t errlen)
{
	size_t nbits = m->len / m->page_size + 1;
	unsigned char *seen = calloc(nbits / 8 + 1, 1);
	uint32_t i, p;

	if (seen == NULL) {
		no_memory(err, errlen);
		return -1;
	}
	for (i = 0; i < npg; i++) {
		p = pages[i];	/* below nbits: page_bytes() checked it */
		if (seen[p / 8] & (1u << (p % 8))) {
			say(err, errlen, msf_file_offset(m, stream,
			    (uint64_t)i * m->page_size), "stream %u: page %u "
			    "appears twice in its page list", stream, p);
			free(seen);
			return -1;
		}
		seen[p / 8] |= (unsigned char)(1u << (p % 8));
	}
	free(seen);
	return 0;
}

int
msf_stream(const struct msf *m, uint32_t stream, struct buf *scratch,
    const unsigned char **data, size_t *len, char *err, size_t errlen)
{
	uint32_t ps = m->page_size, size, i, npg;
	const uint32_t *pages;
	const unsigned char *page;
	int consecutive = 1;
	size_t n;

	if (stream >= m->nstreams) {
		say(err, errlen, m->dir_offset, "no stream %u (%u streams)",
		    stream, m->nstreams);
		return -1;
	}
	*data = m->data;
	*len = 0;
	if ((size = m->sizes[stream]) == NIL_STREAM || size == 0)
		return 0;
	pages = m->pages + m->first[stream];
	npg = (uint32_t)pages_for(size, ps);
	for (i = 0; i < npg; i++) {
		n = i + 1 < npg ? ps : size - i * ps;
		if (page_bytes(m, pages[i], n) == NULL) {
			say(err, errlen, msf_file_offset(m, stream,
			    (uint64_t)i * ps), "stream %u: page %u outside the "
			    "file", stream, pages[i]);
			return -1;
		}
		if (i > 0 && pages[i] != pages[i - 1] + 1)
			consecutive = 0;
	}
	if (!consecutive && repeats_page(m, stream, pages, npg, err,
	    errlen) != 0)
		return -1;
	if (consecutive) {
		*data = page_bytes(m, pages[0], size);
		*len = size;
		return 0;
	}
	scratch->len = 0;
	if (buf_reserve(scratch, size) == NULL) {
		no_memory(err, errlen);
		return -1;
	}
	for (i = 0; i < npg; i++) {
		n = i + 1 < npg ? ps : size - i * ps;
		page = page_bytes(m, pages[i], n);
		memcpy(scratch->data + (size_t)i * ps, page, n);
	}
	scratch->len = size;
	*data = scratch->data;
	*len = size;
	return 0;
}

uint64_t
msf_file_offset(const struct msf *m, uint32_t stream, uint64_t off)
{
	uint32_t ps = m->page_size, size;
	uint64_t fo;

	if (stream >= m->nstreams || (size = m->sizes[stream]) == NIL_STREAM ||
	    off >= size)
		return m->len;
	fo = (uint64_t)m->pages[m->first[stream] + off / ps] * ps + off % ps;
	return fo < m->len ? fo : m->len;
}
