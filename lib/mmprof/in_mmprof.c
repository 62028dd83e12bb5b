/*
 * in_mmprof.c - pages, metadata and events of a .mm_profdata file.
 *
 * Open: walk the pages (measureme-format.md section 2), copy the
 * string-data pages into one buffer, load the index (mmprof_strings.c)
 * and note the event pages.  Next: read the event records (3.1) across
 * the event pages in order, and take their kind and id strings (4.2, 5)
 * from mmprof_strings.c.  Version 8 differs only in the widths of ids
 * and addresses (section 9).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/platform.h"
#include "base/utf.h"
#include "mmprof_reader.h"

struct mmprof_reader *
mmprof_reader_new(void)
{
	return calloc(1, sizeof(struct mmprof_reader));
}

void
mmprof_reader_free(struct mmprof_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->pages);
	free(r->sdata);
	idmap_release(&r->index);
	free(r->kinds);
	idmap_release(&r->kind_index);
	buf_release(&r->kind_text);
	buf_release(&r->kind_scratch);
	free(r->dense);
	free(r->ids.dense);
	free(r->ids.slots);
	free(r->ids.e);
	free(r->ids.parts);
	for (i = 0; i < r->ids.nblocks; i++)
		free(r->ids.blocks[i]);
	free(r->ids.blocks);
	intern_release(&r->labels);
	for (i = 0; r->refmemo != NULL && i < REF_SLOTS; i++)
		free(r->refmemo[i].text);
	free(r->refmemo);
	buf_release(&r->text);
	buf_release(&r->whole);
	buf_release(&r->meta_text);
	free(r);
}

int
mmprof_probe(const unsigned char *data, size_t len)
{
	return len >= FILE_HEADER_LEN && memcmp(data, "MMPD", 4) == 0;
}

void
mmprof_reader_drop_pages(struct mmprof_reader *r, int on)
{
	r->drop_pages = on;
}

void
mmprof_reader_labels_only(struct mmprof_reader *r, int on)
{
	r->labels_only = on;
}

uint32_t
mmprof_reader_version(const struct mmprof_reader *r)
{
	return r->version;
}

const struct mmprof_metadata *
mmprof_reader_metadata(const struct mmprof_reader *r)
{
	return &r->meta;
}

const char *
mmprof_reader_error(const struct mmprof_reader *r)
{
	return r->error;
}

const struct mmprof_counts *
mmprof_reader_counts(const struct mmprof_reader *r)
{
	return &r->counts;
}

/* ---- pages (section 2) ---- */

static int
add_page(struct mmprof_reader *r, unsigned tag, size_t off, size_t len)
{
	if (r->npages == r->pagecap) {
		size_t cap = r->pagecap ? r->pagecap * 2 : 64;
		struct page *p = realloc(r->pages, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		r->pages = p;
		r->pagecap = cap;
	}
	r->pages[r->npages].off = off;
	r->pages[r->npages].len = len;
	r->pages[r->npages].tag = tag;
	r->npages++;
	r->nevpages += tag == TAG_EVENTS;
	return 0;
}

/* Notes where the pages are; what is cut short is a problem. */
static int
find_pages(struct mmprof_reader *r)
{
	size_t off = FILE_HEADER_LEN;

	while (off < r->len) {
		size_t avail = r->len - off, n;
		unsigned tag;

		if (avail < PAGE_HEADER_LEN) {
			mmprof_set_error(r, off, "file ends inside a page header");
			r->counts.cut_bytes += avail;
			mmprof_hold_problem(r);
			break;
		}
		tag = r->data[off];
		n = le32(r->data + off + 1);
		if (tag > TAG_INDEX) {
			mmprof_set_error(r, off, "unknown page tag %u: the rest of the "
			    "file, %zu bytes, is not read", tag, avail);
			r->counts.cut_bytes += avail;
			mmprof_hold_problem(r);
			break;
		}
		if (n > avail - PAGE_HEADER_LEN) {
			mmprof_set_error(r, off, "page cut short by the end of the file: "
			    "%zu of its %zu bytes are present",
			    avail - PAGE_HEADER_LEN, n);
			r->counts.cut_bytes += n - (avail - PAGE_HEADER_LEN);
			mmprof_hold_problem(r);
			n = avail - PAGE_HEADER_LEN;
		}
		r->counts.pages++;
		if (add_page(r, tag, off + PAGE_HEADER_LEN, n) != 0)
			return -1;
		/* Reading the header mapped a run of pages around it. */
		if (r->drop_pages)
			platform_drop_pages(r->data + off, PAGE_HEADER_LEN + n);
		off += PAGE_HEADER_LEN + n;
	}
	return 0;
}

/*
 * Concatenates the pages of one stream into memory of its exact size (a
 * doubling buffer would take up to twice the string table).
 * @return : 0 with *out (NULL if the stream is empty), or -1 if out of
 *	memory.
 */
static int
gather(struct mmprof_reader *r, unsigned tag, struct stream_bytes *out)
{
	size_t i, at = 0;

	out->len = 0;
	for (i = 0; i < r->npages; i++)
		if (r->pages[i].tag == tag)
			out->len += r->pages[i].len;
	if (out->len == 0)
		return 0;
	if ((out->data = malloc(out->len)) == NULL)
		return -1;
	for (i = 0; i < r->npages; i++) {
		if (r->pages[i].tag != tag)
			continue;
		memcpy(out->data + at, r->data + r->pages[i].off,
		    r->pages[i].len);
		at += r->pages[i].len;
		if (r->drop_pages)
			platform_drop_pages(r->data + r->pages[i].off,
			    r->pages[i].len);
	}
	return 0;
}

/* ---- metadata (4.4), read with a scanner since it may be bad JSON ---- */

static const char *
find_key(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	if (p == NULL)
		return NULL;
	p += strlen(key);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int
scan_u64(const char *p, uint64_t *v)
{
	uint64_t n = 0;

	if (p == NULL || *p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return 0;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*v = n;
	return 1;
}

static void
put_utf8(struct buf *b, uint32_t c)
{
	char u[4];

	buf_put(b, u, utf8_encode(c, u));
}

/* Hex digits at p, up to max of them, ended by `stop` if not 0. */
static const char *
scan_hex(const char *p, int max, char stop, uint32_t *v)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < max; i++, p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
		    *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
		    *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

		if (d < 0)
			break;
		n = n << 4 | (uint32_t)d;
	}
	if (i == 0 || (stop == 0 && i != max) || (stop != 0 && *p != stop))
		return NULL;
	*v = n;
	return stop ? p + 1 : p;
}

/*
 * Decodes one escape after a backslash: JSON's own, and the Rust
 * escape_default forms rustc leaves in cmd (\' and \u{e9}), which make
 * the JSON invalid.  @return : the text after the escape.
 */
static const char *
unescape(struct mmprof_reader *r, const char *p, struct buf *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *q = strchr(from, *p);
	uint32_t c;

	if (*p != '\0' && q != NULL) {
		buf_put(out, to + (q - from), 1);
		return p + 1;
	}
	if (*p == 'u' && (q = scan_hex(p + 1, 4, 0, &c)) != NULL) {
		uint32_t low;
		const char *after;

		/* A surrogate pair is one character, written as two escapes. */
		if (c >= 0xd800 && c < 0xdc00 && q[0] == '\\' && q[1] == 'u' &&
		    (after = scan_hex(q + 2, 4, 0, &low)) != NULL &&
		    low >= 0xdc00 && low < 0xe000) {
			c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
			q = after;
		} else if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd;	/* a lone surrogate is not a character */
		put_utf8(out, c);
		return q;
	}
	r->meta.json_invalid = 1;
	if (*p == 'u' && p[1] == '{' &&
	    (q = scan_hex(p + 2, 6, '}', &c)) != NULL) {
		put_utf8(out, c);
		return q;
	}
	if (*p == '\0')
		return p;
	buf_put(out, p, 1);
	return p + 1;
}

/*
 * Copies the JSON string at p into out, NUL-terminated.
 * @return : the text after it, or NULL if p is not a string.
 */
static const char *
scan_string(struct mmprof_reader *r, const char *p, struct buf *out)
{
	if (p == NULL || *p != '"')
		return NULL;
	for (p++; *p != '\0' && *p != '"'; ) {
		if (*p == '\\')
			p = unescape(r, p + 1, out);
		else
			buf_put(out, p++, 1);
	}
	buf_put(out, "", 1);
	return *p == '"' ? p + 1 : p;
}

/*
 * Picks start_time, process_id, cmd and counter.name out of the metadata
 * text (in r->text) into r->meta; the strings go to r->meta_text.
 */
static void
read_metadata(struct mmprof_reader *r)
{
	struct mmprof_metadata *m = &r->meta;
	const char *json, *after, *counter = NULL;
	size_t counter_at;
	size_t addr;
	uint64_t v;

	m->cmd = m->counter = "";
	if (!mmprof_string_addr(r, METADATA_ID, &addr)) {
		mmprof_set_error(r, NO_OFFSET, "no metadata string (the profile is cut "
		    "short): no process id, command line or start time");
		mmprof_hold_problem(r);
		return;
	}
	mmprof_resolve_fresh(r, METADATA_ID, &r->text);
	json = (const char *)r->text.data;
	if ((m->has_start_time = scan_u64(find_key(json, "\"start_time\""), &v)))
		m->start_time = v;
	if ((m->has_process_id = scan_u64(find_key(json, "\"process_id\""), &v)
	    && v <= UINT32_MAX))
		m->process_id = (uint32_t)v;
	after = scan_string(r, find_key(json, "\"cmd\""), &r->meta_text);
	m->has_cmd = after != NULL;
	counter_at = r->meta_text.len;
	/* Look for the counter after cmd, whose text could hold the key. */
	counter = strstr(after ? after : json, "\"counter\"");
	if (counter != NULL)
		counter = scan_string(r, find_key(counter, "\"name\""),
		    &r->meta_text);
	if (r->meta_text.oom)
		return;
	if (m->has_cmd)
		m->cmd = (const char *)r->meta_text.data;
	if (counter != NULL)
		m->counter = (const char *)r->meta_text.data + counter_at;
	if (!m->has_start_time || !m->has_process_id) {
		mmprof_set_error(r, NO_OFFSET, "metadata lacks %s",
		    !m->has_start_time ? "start_time" : "process_id");
		mmprof_hold_problem(r);
	}
}

/* ---- open ---- */

static enum mmprof_status
fatal(struct mmprof_reader *r, uint64_t offset, const char *what)
{
	mmprof_set_error(r, offset, "%s", what);
	return MMPROF_FATAL;
}

enum mmprof_status
mmprof_reader_open_mem(struct mmprof_reader *r, const unsigned char *data,
    size_t len)
{
	struct stream_bytes sdata = { NULL, 0 }, index = { NULL, 0 };
	int rc;

	r->data = data;
	r->len = len;
	r->counts.bytes = len;
	r->refs_budget = REFS_FIXED + (uint64_t)REFS_RATIO * len;
	r->event_at = NO_OFFSET;	/* the metadata is no event */
	r->text_budget = TEXT_FIXED + (uint64_t)TEXT_RATIO * len;
	r->ids.limit = IDS_FIXED + len;
	r->labels_limit = IDS_FIXED + len / 4;
	if (!mmprof_probe(data, len))
		return fatal(r, 0, "not a rustc self-profile (.mm_profdata)");
	r->version = le32(data + 4);
	if (r->version != 8 && r->version != 9) {
		mmprof_set_error(r, 4, "format version %u is not read (only 8 and 9)",
		    r->version);
		return MMPROF_FATAL;
	}
	r->id_size = r->version == 9 ? 8 : 4;
	r->event_size = 2 * r->id_size + 16;
	if ((rc = find_pages(r)) == 0 && (rc = gather(r, TAG_DATA, &sdata)) == 0)
		rc = gather(r, TAG_INDEX, &index);
	if (rc == 0 && mmprof_stream_ok(r, sdata.data, sdata.len, "MMSD",
	    "string data")) {
		r->sdata = sdata.data;
		r->slen = sdata.len;
		sdata.data = NULL;
	}
	if (rc == 0)
		rc = mmprof_load_index(r, &index);
	free(sdata.data);
	free(index.data);
	if (rc != 0)
		return fatal(r, NO_OFFSET, "out of memory");
	read_metadata(r);
	if (r->meta_text.oom)
		return fatal(r, NO_OFFSET, "out of memory");
	return MMPROF_OK;
}

/* ---- events (section 3) ---- */

/*
 * Moves the read position past pages used up (letting go of them) and
 * pages of other streams.
 */
static void
skip_pages(struct mmprof_reader *r)
{
	const struct page *pg;

	while (r->evpage < r->npages && ((pg = &r->pages[r->evpage])->tag !=
	    TAG_EVENTS || r->evoff == pg->len)) {
		if (r->drop_pages && pg->tag == TAG_EVENTS)
			platform_drop_pages(r->data + pg->off, pg->len);
		r->evpage++;
		r->evoff = 0;
	}
}

/*
 * The next n bytes of the event stream: in place when they lie in one
 * page, else gathered into r->carry.  NULL at the end of the stream, with
 * *got the bytes that were left.
 */
static const unsigned char *
take(struct mmprof_reader *r, size_t n, size_t *got)
{
	const struct page *pg;
	size_t have = 0;

	*got = 0;
	skip_pages(r);
	if (r->evpage == r->npages)
		return NULL;
	pg = &r->pages[r->evpage];
	if (pg->len - r->evoff >= n) {
		r->evoff += n;
		return r->data + pg->off + r->evoff - n;
	}
	while (have < n && r->evpage < r->npages) {
		size_t k;

		pg = &r->pages[r->evpage];
		k = pg->len - r->evoff < n - have ? pg->len - r->evoff : n - have;
		memcpy(r->carry + have, r->data + pg->off + r->evoff, k);
		have += k;
		r->evoff += k;
		skip_pages(r);
	}
	*got = have;
	return have == n ? r->carry : NULL;
}

/* The file offset of the event stream's read position, for messages. */
static uint64_t
event_offset(const struct mmprof_reader *r)
{
	if (r->evpage < r->npages)
		return r->pages[r->evpage].off + r->evoff;
	return r->len;
}

static int
start_events(struct mmprof_reader *r)
{
	const unsigned char *h;
	size_t got;

	r->events_started = 1;
	if (r->nevpages == 0) {
		mmprof_set_error(r, NO_OFFSET, "no event data in the file (it is cut "
		    "short)");
		return 0;
	}
	if ((h = take(r, STREAM_HEADER_LEN, &got)) == NULL ||
	    memcmp(h, "MMES", 4) != 0) {
		mmprof_set_error(r, NO_OFFSET, "event stream does not begin with MMES: "
		    "no events read");
		r->evpage = r->npages;
		return 0;
	}
	return 1;
}

static void
fill_times(struct mmprof_reader *r, const unsigned char *rec,
    struct mmprof_event *ev)
{
	const unsigned char *p = rec + 2 * r->id_size + 4;
	uint32_t upper = le32(p + 8);
	uint64_t v1 = le32(p) | (uint64_t)(upper & 0xffff0000u) << 16;
	uint64_t v2 = le32(p + 4) | (uint64_t)(upper & 0xffffu) << 32;

	ev->start = ev->end = v1;
	ev->value = 0;
	if (v2 == INSTANT_MARK)
		ev->type = MMPROF_INSTANT;
	else if (v2 == INTEGER_MARK) {
		ev->type = MMPROF_INTEGER;
		ev->value = v1;
		ev->start = ev->end = 0;
	} else {
		ev->type = MMPROF_INTERVAL;
		ev->end = v2;
	}
}

/* The kind of `ev` if it is in the kind cache: its text and index. */
static int
kind_cached(const struct mmprof_reader *r, struct mmprof_event *ev)
{
	uint32_t index = r->kind_cache[ev->kind_id % KIND_CACHE].index;

	if (index == 0 || r->kind_cache[ev->kind_id % KIND_CACHE].id !=
	    ev->kind_id)
		return 0;
	ev->kind.ptr = (const char *)r->kind_text.data +
	    r->kinds[index - 1].off;
	ev->kind.len = r->kinds[index - 1].len;
	ev->kind_index = index;
	return 1;
}

enum mmprof_status
mmprof_reader_next(struct mmprof_reader *r, struct mmprof_event *ev)
{
	const unsigned char *rec;
	size_t got;

	if (r->next_problem < r->nproblems) {
		memcpy(r->error, r->problems[r->next_problem++],
		    sizeof(r->error));
		return MMPROF_WARN;
	}
	if (r->more_problems > 0) {
		snprintf(r->error, sizeof(r->error), "%llu more problems",
		    (unsigned long long)r->more_problems);
		r->more_problems = 0;
		return MMPROF_WARN;
	}
	if (!r->events_started && !start_events(r))
		return MMPROF_WARN;
	for (;;) {
		uint64_t at = event_offset(r);

		if ((rec = take(r, r->event_size, &got)) == NULL) {
			if (got == 0)
				return MMPROF_EOF;
			r->counts.tail_bytes = got;
			mmprof_set_error(r, at, "event stream ends in a partial record "
			    "of %zu bytes", got);
			return MMPROF_WARN;
		}
		ev->index = r->counts.events++;
		r->event_at = at;
		fill_times(r, rec, ev);
		if (ev->type != MMPROF_INTERVAL || ev->start <= ev->end)
			break;
		r->counts.backward_intervals++;
	}
	ev->thread_id = le32(rec + 2 * r->id_size);
	ev->kind_id = load_id(r, rec);
	ev->event_id = load_id(r, rec + r->id_size);
	mmprof_prefetch(r);
	if (kind_cached(r, ev))
		;
	else if (mmprof_kind_text(r, ev->kind_id, &ev->kind, &ev->kind_index) != 0)
		goto oom;
	else if (ev->kind_index != 0) {
		r->kind_cache[ev->kind_id % KIND_CACHE].id = ev->kind_id;
		r->kind_cache[ev->kind_id % KIND_CACHE].index = ev->kind_index;
	}
	if (mmprof_event_id_text(r, ev) != 0)
		goto oom;
	r->counts.intervals += ev->type == MMPROF_INTERVAL;
	r->counts.instants += ev->type == MMPROF_INSTANT;
	r->counts.integers += ev->type == MMPROF_INTEGER;
	return MMPROF_OK;
oom:
	mmprof_set_error(r, NO_OFFSET, "out of memory");
	return MMPROF_FATAL;
}
