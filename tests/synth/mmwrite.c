/*
 * mmwrite.c - the .mm_profdata writer; see mmwrite.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "mmwrite.h"

#define MM_VERSION	9
#define CONCRETE_BASE	100000003ULL	/* section 4.1 */
#define METADATA_ID	100000001ULL
#define EVENT_SIZE	32
#define PAGE_EVENTS	0
#define PAGE_STRINGS	1
#define PAGE_INDEX	2

static void
fail(struct mmw *m, int error)
{
	if (!m->failed) {
		m->failed = 1;
		m->error = error ? error : EIO;
	}
}

/* A stream's 8-byte header: its magic and the version. */
static void
stream_header(struct buf *b, const char *magic)
{
	buf_put(b, magic, 4);
	buf_put_u32(b, MM_VERSION);
}

/* One page: the tag, the payload's length, the payload. */
static void
write_page(struct mmw *m, int tag, const struct buf *b)
{
	unsigned char head[5];

	if (m->failed || b->len == 0)
		return;
	if (b->oom) {
		fail(m, ENOMEM);
		return;
	}
	head[0] = (unsigned char)tag;
	head[1] = b->len & 0xff;
	head[2] = (b->len >> 8) & 0xff;
	head[3] = (b->len >> 16) & 0xff;
	head[4] = (unsigned char)(b->len >> 24);
	if (fwrite(head, 1, sizeof(head), m->fp) != sizeof(head) ||
	    fwrite(b->data, 1, b->len, m->fp) != b->len)
		fail(m, errno);
}

int
mmw_open(struct mmw *m, const char *path, const char *metadata)
{
	static const unsigned char file_head[8] = { 'M', 'M', 'P', 'D',
	    MM_VERSION, 0, 0, 0 };

	memset(m, 0, sizeof(*m));
	if ((m->fp = fopen(path, "wb")) == NULL)
		return -1;
	if (fwrite(file_head, 1, sizeof(file_head), m->fp) !=
	    sizeof(file_head)) {
		fclose(m->fp);
		return -1;
	}
	stream_header(&m->events, "MMES");
	stream_header(&m->strings, "MMSD");
	stream_header(&m->index, "MMSI");
	/* The metadata is the first string, at address 8 (section 4.4). */
	buf_put_u64(&m->index, METADATA_ID);
	buf_put_u64(&m->index, m->strings.len);
	buf_put(&m->strings, metadata, strlen(metadata));
	buf_put_u8(&m->strings, 0xff);
	return 0;
}

uint64_t
mmw_string(struct mmw *m, const char *s)
{
	uint64_t addr = m->strings.len;

	buf_put(&m->strings, s, strlen(s));
	buf_put_u8(&m->strings, 0xff);
	return addr + CONCRETE_BASE;
}

void
mmw_interval(struct mmw *m, uint64_t kind, uint64_t id, uint32_t thread,
    uint64_t start, uint64_t end)
{
	const uint64_t mask = 0xffffffffffffULL;

	start &= mask;
	end &= mask;
	if (m->events.len + EVENT_SIZE > MMW_PAGE_MAX) {
		write_page(m, PAGE_EVENTS, &m->events);
		m->events.len = 0;
	}
	buf_put_u64(&m->events, kind);
	buf_put_u64(&m->events, id);
	buf_put_u32(&m->events, thread);
	buf_put_u32(&m->events, (uint32_t)start);
	buf_put_u32(&m->events, (uint32_t)end);
	buf_put_u32(&m->events, (uint32_t)(start >> 32 << 16 | end >> 32));
	m->nevents++;
}

int
mmw_close(struct mmw *m)
{
	write_page(m, PAGE_EVENTS, &m->events);
	write_page(m, PAGE_STRINGS, &m->strings);
	write_page(m, PAGE_INDEX, &m->index);
	if (fclose(m->fp) != 0)
		fail(m, errno);
	buf_release(&m->events);
	buf_release(&m->strings);
	buf_release(&m->index);
	if (m->failed)
		errno = m->error;
	return m->failed ? -1 : 0;
}

/* One character as Rust's char::escape_default writes it. */
static void
escape_default(struct buf *out, unsigned char c)
{
	char tmp[16];

	switch (c) {
	case '\t':
		buf_put(out, "\\t", 2);
		break;
	case '\r':
		buf_put(out, "\\r", 2);
		break;
	case '\n':
		buf_put(out, "\\n", 2);
		break;
	case '\\':
	case '\'':
	case '"':
		buf_put_u8(out, '\\');
		buf_put_u8(out, c);
		break;
	default:
		if (c >= 0x20 && c < 0x7f)
			buf_put_u8(out, c);
		else {
			snprintf(tmp, sizeof(tmp), "\\u{%x}", c);
			buf_put(out, tmp, strlen(tmp));
		}
	}
}

void
mmw_cmd(struct buf *out, const char *cmdline)
{
	const char *p = cmdline;
	int quoted, any;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		for (quoted = any = 0; *p != '\0' && (quoted || *p != ' ');
		    p++, any = 1)
			if (*p == '"')
				quoted = !quoted;
			else
				escape_default(out, (unsigned char)*p);
		if (any)
			buf_put_u8(out, ' ');
	}
}
