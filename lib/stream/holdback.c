/*
 * holdback.c - see holdback.h.
 *
 * Records go into a byte buffer, each as a fixed entry head, then the
 * body, then a STRING's text.  The buffer is read from `head` on; it
 * starts again at 0 whenever it empties.  A record that would take it
 * past the bound goes to the file instead, and so does every record
 * after it until the file is read out (order is everything), so the
 * buffer is read first, then the file.  The file is read and written
 * at two positions (fgetpos()/fsetpos(), which handle files past 2 GiB
 * on Windows too); once read out it is written again from its start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/platform.h"
#include "holdback.h"

struct entry {
	uint64_t tag;
	int64_t ts;		/* EVENT: its time, which version 2 codes */
	uint32_t body_len;
	uint32_t text_len;	/* STRING: the text, without its NUL */
	stream_id str_id;
	uint32_t type;
};

#define FILE_BUFFER (1u << 20)

enum file_op { OP_WRITE, OP_READ };

struct holdback {
	size_t mem_max;
	struct buf mem;
	size_t head;		/* the first record in mem */
	/* The file: every record after the ones in mem. */
	FILE *fp;
	char *fbuf;		/* its stdio buffer */
	fpos_t rpos, wpos;	/* the position not in use */
	enum file_op last;
	uint64_t file_records;
	struct buf cur;		/* the first record of the file, read */
	int cur_read;
	/* Held now. */
	uint64_t records, bytes;
	struct holdback_stats stats;
};

struct holdback *
holdback_new(size_t mem_max)
{
	struct holdback *h = calloc(1, sizeof(*h));

	if (h != NULL)
		h->mem_max = mem_max;
	return h;
}

void
holdback_free(struct holdback *h)
{
	if (h == NULL)
		return;
	buf_release(&h->mem);
	buf_release(&h->cur);
	if (h->fp != NULL)
		fclose(h->fp);
	free(h->fbuf);
	free(h);
}

int
holdback_empty(const struct holdback *h)
{
	return h->records == 0;
}

const struct holdback_stats *
holdback_stats(const struct holdback *h)
{
	return &h->stats;
}

void
holdback_clear_stats(struct holdback *h)
{
	memset(&h->stats, 0, sizeof(h->stats));
	h->stats.max_records = h->records;
	h->stats.max_bytes = h->bytes;
}

/* Switches the file to reading or writing at the position kept. */
static int
file_switch(struct holdback *h, enum file_op op)
{
	if (h->last == op)
		return 0;
	if (fgetpos(h->fp, op == OP_READ ? &h->wpos : &h->rpos) != 0 ||
	    fsetpos(h->fp, op == OP_READ ? &h->rpos : &h->wpos) != 0)
		return -1;
	h->last = op;
	return 0;
}

static int
file_push(struct holdback *h, const struct entry *e, const void *body,
    const char *text)
{
	if (h->fp == NULL) {
		if ((h->fp = platform_scratch_file()) == NULL)
			return -1;
		/*
		 * Large reads and writes, since records are small; a buffer
		 * of our own, as some libcs ignore the size without one.
		 */
		if ((h->fbuf = malloc(FILE_BUFFER)) != NULL)
			setvbuf(h->fp, h->fbuf, _IOFBF, FILE_BUFFER);
		if (fgetpos(h->fp, &h->rpos) != 0)
			return -1;
		h->last = OP_WRITE;
	}
	errno = 0;
	if (file_switch(h, OP_WRITE) != 0)
		return -1;
	if (fwrite(e, sizeof(*e), 1, h->fp) != 1 ||
	    fwrite(body, 1, e->body_len, h->fp) != e->body_len ||
	    fwrite(text, 1, e->text_len, h->fp) != e->text_len) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	h->file_records++;
	h->stats.spilled++;
	return 0;
}

/* Where the next record goes: 1 memory, 0 the file. */
static int
fits_in_memory(struct holdback *h, size_t n)
{
	if (h->file_records > 0)
		return 0;
	if (h->head == h->mem.len)
		h->head = h->mem.len = 0;
	if (h->mem.len + n <= h->mem_max || h->mem.len == 0)
		return 1;
	/* Move the rest to the front, if that frees much. */
	if (h->head < h->mem_max / 2)
		return 0;
	memmove(h->mem.data, h->mem.data + h->head, h->mem.len - h->head);
	h->mem.len -= h->head;
	h->head = 0;
	return h->mem.len + n <= h->mem_max;
}

int
holdback_push(struct holdback *h, const struct stream_record *rec,
    uint64_t tag)
{
	struct entry e = { .tag = tag, .type = rec->type };
	const char *text = "";
	size_t n;

	if (rec->body_len > UINT32_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	e.body_len = (uint32_t)rec->body_len;
	if (rec->type == REC_STRING) {
		e.str_id = rec->u.string.id;
		e.text_len = (uint32_t)rec->u.string.len;
		text = rec->u.string.text;
	}
	/* The stream codes it against the last event's, which may be gone. */
	if (rec->type == REC_EVENT)
		e.ts = rec->u.event.h.ts;
	n = sizeof(e) + e.body_len + e.text_len;
	/* All the memory at once: no copies as it grows. */
	if (h->mem.data == NULL && buf_reserve(&h->mem, h->mem_max) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (fits_in_memory(h, n)) {
		buf_put(&h->mem, &e, sizeof(e));
		buf_put(&h->mem, rec->body, e.body_len);
		buf_put(&h->mem, text, e.text_len);
		if (h->mem.oom) {
			errno = ENOMEM;
			return -1;
		}
	} else if (file_push(h, &e, rec->body, text) != 0)
		return -1;
	h->records++;
	h->bytes += n;
	h->stats.records++;
	if (h->records > h->stats.max_records)
		h->stats.max_records = h->records;
	if (h->bytes > h->stats.max_bytes)
		h->stats.max_bytes = h->bytes;
	return 0;
}

/* Reads the first record of the file into h->cur. */
static int
file_peek(struct holdback *h)
{
	struct entry e;
	size_t rest;

	if (h->cur_read)
		return 0;
	errno = 0;
	if (file_switch(h, OP_READ) != 0 ||
	    fread(&e, sizeof(e), 1, h->fp) != 1)
		goto short_read;
	rest = (size_t)e.body_len + e.text_len;
	h->cur.len = 0;
	if (buf_reserve(&h->cur, sizeof(e) + rest + 1) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(h->cur.data, &e, sizeof(e));
	if (fread(h->cur.data + sizeof(e), 1, rest, h->fp) != rest)
		goto short_read;
	h->cur.len = sizeof(e) + rest;
	h->cur_read = 1;
	return 0;
short_read:
	if (errno == 0)
		errno = EIO;
	return -1;
}

int
holdback_peek(struct holdback *h, struct stream_record *rec, uint64_t *tag)
{
	const unsigned char *p;
	struct entry e;

	if (h->records == 0)
		return 0;
	if (h->head < h->mem.len)
		p = h->mem.data + h->head;
	else if (file_peek(h) != 0)
		return -1;
	else
		p = h->cur.data;
	memcpy(&e, p, sizeof(e));
	memset(rec, 0, sizeof(*rec));
	rec->type = (enum stream_rec_type)e.type;
	rec->body = p + sizeof(e);
	rec->body_len = e.body_len;
	if (e.type == REC_STRING) {
		rec->u.string.id = e.str_id;
		rec->u.string.text = (const char *)rec->body + e.body_len;
		rec->u.string.len = e.text_len;
	}
	if (e.type == REC_EVENT)
		rec->u.event.h.ts = e.ts;
	*tag = e.tag;
	return 1;
}

void
holdback_pop(struct holdback *h)
{
	struct entry e;
	size_t n;

	if (h->records == 0)
		return;
	if (h->head < h->mem.len) {
		memcpy(&e, h->mem.data + h->head, sizeof(e));
		n = sizeof(e) + e.body_len + e.text_len;
		h->head += n;
	} else {
		memcpy(&e, h->cur.data, sizeof(e));
		n = sizeof(e) + e.body_len + e.text_len;
		h->cur_read = 0;
		/* Read out: write it again from the start. */
		if (--h->file_records == 0) {
			rewind(h->fp);
			if (fgetpos(h->fp, &h->rpos) == 0)
				h->wpos = h->rpos;
			h->last = OP_WRITE;
		}
	}
	h->records--;
	h->bytes -= n;
}
