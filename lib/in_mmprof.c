/*
 * in_mmprof.c - pages, string table and events of a .mm_profdata file.
 *
 * Open: walk the pages (measureme-format.md section 2), copy the
 * string-data pages into one buffer, load the index pages into a hash
 * map (the last entry of an id wins, 4.3), and note the event pages.
 * Next: read the event records (3.1) across the event pages in order,
 * resolving their kind and id strings (4.2, 5) into a scratch buffer or
 * finding them in a table of the strings resolved last.
 * Version 8 differs only in the widths of ids and addresses (section 9).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "idmap.h"
#include "in_mmprof.h"
#include "platform.h"
#include "utf.h"

#define FILE_HEADER_LEN	8
#define STREAM_HEADER_LEN 8
#define PAGE_HEADER_LEN	5
#define TAG_EVENTS	0
#define TAG_DATA	1
#define TAG_INDEX	2
#define METADATA_ID	100000001ULL
#define INVALID_ID	100000002ULL
#define FIRST_CONCRETE	100000003ULL
#define STR_TERMINATOR	0xff
#define STR_REF		0xfe
#define ID_SEPARATOR	0x1e
#define INSTANT_MARK	0xffffffffffffULL
#define INTEGER_MARK	0xfffffffffffeULL
#define MAX_DEPTH	512	/* nested string references */
#define MAX_REFS	(1u << 20)	/* references expanded for one string */
/*
 * What all the string resolutions of a file may do together: follow
 * REFS_FIXED references plus REFS_RATIO a byte of the file, and produce
 * TEXT_FIXED bytes plus TEXT_RATIO a byte.  Without it, a small string
 * table whose references fan out (each string naming the next one many
 * times) cost a million steps an event: a minute for a 65 KB file.  Real
 * profiles use a few references an event; their text is what their
 * events print.
 */
#define REFS_FIXED	(1u << 20)
#define REFS_RATIO	16u
#define TEXT_FIXED	(16u << 20)
#define TEXT_RATIO	64u
#define KINDS_MAX	1024	/* kind strings remembered; rustc has ~10 */
#define MAX_PROBLEMS	8	/* open-time problems held for next() */
#define MEMO_SLOTS	4096	/* event id strings remembered */
#define MEMO_TEXT_MAX	1024	/* the longest one remembered */
#define REF_SLOTS	1024	/* referenced strings remembered */
#define UNKNOWN_TEXT	"<unknown>"
#define INVALID_TEXT	"<invalid>"
#define PARSE_ERROR	"<parse error>"
#define NO_OFFSET	UINT64_MAX	/* a problem of no place in the file */

struct stream_bytes {
	unsigned char *data;
	size_t len;
};

struct page {
	size_t off;		/* payload offset in the file */
	size_t len;		/* payload bytes present */
	unsigned tag;
};

/*
 * A resolved event id string, remembered: most events repeat an id seen
 * shortly before (on a 231 MB profile of 5.7 M events, 81% find theirs in
 * a table of 4096), and resolving query keys was the reader's main cost.
 * The counts its resolution added are kept, to be added again on a hit.
 */
struct memo {
	uint64_t id;
	char *text;		/* MEMO_TEXT_MAX bytes, allocated on first use */
	uint32_t len;
	int used;
	uint64_t unknown, missing, invalid;
};

/* A cache of resolved kind strings: there are a handful of kinds. */
struct kind {
	uint64_t id;
	size_t off, len;	/* in kind_text */
};

struct mmprof_reader {
	const unsigned char *data;
	size_t len;
	int drop_pages;		/* data is a file mapping we may let go of */
	uint32_t version;
	size_t id_size;		/* 4 (v8) or 8 (v9) */
	size_t event_size;	/* 24 (v8) or 32 (v9) */
	struct mmprof_metadata meta;
	struct mmprof_counts counts;
	char error[256];

	struct page *pages;	/* in file order */
	size_t npages, pagecap, nevpages;
	size_t evpage, evoff;	/* read position in the event stream */
	int events_started;	/* the stream header was checked */
	unsigned char carry[32];	/* a record split across pages */

	unsigned char *sdata;	/* string-data stream, header included */
	size_t slen;
	struct idmap index;	/* virtual id -> address */

	struct kind *kinds;
	size_t nkinds, kindcap;
	struct idmap kind_index;	/* kind string id -> index in kinds */
	struct buf kind_text;
	struct buf kind_scratch;	/* a kind beyond KINDS_MAX */
	uint64_t refs_budget, text_budget;	/* left for the whole file */
	int budget_told;	/* the budget's exhaustion was reported */
	uint64_t event_at;	/* offset of the event being resolved */

	struct buf text;	/* the current event's id string */
	struct memo *memo;	/* MEMO_SLOTS of them */
	struct memo *refmemo;	/* REF_SLOTS: expansions of references */
	uint64_t limit_hits;	/* resolutions cut by depth or references */
	struct buf meta_text;	/* the metadata's cmd and counter */
	uint32_t refs_left;	/* budget for one resolution */

	char problems[MAX_PROBLEMS][256];
	size_t nproblems, next_problem;
	uint64_t more_problems;
};

static void
set_error(struct mmprof_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	n = strlen(r->error);
	if (offset != NO_OFFSET)
		snprintf(r->error + n, sizeof(r->error) - n, " (offset 0x%llx)",
		    (unsigned long long)offset);
}

/* Keeps the current error text as a problem for next() to report. */
static void
hold_problem(struct mmprof_reader *r)
{
	if (r->nproblems == MAX_PROBLEMS) {
		r->more_problems++;
		return;
	}
	memcpy(r->problems[r->nproblems++], r->error, sizeof(r->error));
}

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
	for (i = 0; r->memo != NULL && i < MEMO_SLOTS; i++)
		free(r->memo[i].text);
	free(r->memo);
	for (i = 0; r->refmemo != NULL && i < REF_SLOTS; i++)
		free(r->refmemo[i].text);
	free(r->refmemo);
	buf_release(&r->text);
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

static uint64_t
load_id(const struct mmprof_reader *r, const unsigned char *p)
{
	return r->id_size == 8 ? le64(p) : le32(p);
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
			set_error(r, off, "file ends inside a page header");
			r->counts.cut_bytes += avail;
			hold_problem(r);
			break;
		}
		tag = r->data[off];
		n = le32(r->data + off + 1);
		if (tag > TAG_INDEX) {
			set_error(r, off, "unknown page tag %u: the rest of the "
			    "file, %zu bytes, is not read", tag, avail);
			r->counts.cut_bytes += avail;
			hold_problem(r);
			break;
		}
		if (n > avail - PAGE_HEADER_LEN) {
			set_error(r, off, "page cut short by the end of the file: "
			    "%zu of its %zu bytes are present",
			    avail - PAGE_HEADER_LEN, n);
			r->counts.cut_bytes += n - (avail - PAGE_HEADER_LEN);
			hold_problem(r);
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

/* Checks a stream's own header; an absent stream is a problem, not fatal. */
static int
stream_ok(struct mmprof_reader *r, const unsigned char *p, size_t len,
    const char *magic, const char *what)
{
	if (len == 0) {
		set_error(r, NO_OFFSET, "no %s in the file (it is cut short)",
		    what);
		hold_problem(r);
		return 0;
	}
	if (len < STREAM_HEADER_LEN || memcmp(p, magic, 4) != 0) {
		set_error(r, NO_OFFSET, "%s stream does not begin with %s: not "
		    "read", what, magic);
		hold_problem(r);
		return 0;
	}
	return 1;
}

/* ---- string table (section 4) ---- */

static int
load_index(struct mmprof_reader *r, const struct stream_bytes *index)
{
	size_t entry = 2 * r->id_size, i;

	if (!stream_ok(r, index->data, index->len, "MMSI", "string index"))
		return 0;
	if ((index->len - STREAM_HEADER_LEN) % entry != 0) {
		set_error(r, NO_OFFSET, "string index ends in a partial entry");
		hold_problem(r);
	}
	for (i = STREAM_HEADER_LEN; i + entry <= index->len; i += entry) {
		uint64_t id = load_id(r, index->data + i);
		uint64_t addr = load_id(r, index->data + i + r->id_size);

		if (addr > UINT32_MAX) {
			r->counts.bad_index++;
			continue;
		}
		if (idmap_put(&r->index, id, (uint32_t)addr) != 0)
			return -1;
	}
	return 0;
}

/* The address of a string id; 0 if the id has none. */
static int
string_addr(const struct mmprof_reader *r, uint64_t id, size_t *addr)
{
	uint32_t a;

	if (id <= METADATA_ID) {
		if (!idmap_get(&r->index, id, &a))
			return 0;
		*addr = a;
		return 1;
	}
	if (id == INVALID_ID)
		return 0;
	*addr = id - FIRST_CONCRETE;
	return 1;
}

static void
put_text(struct buf *out, const char *s)
{
	buf_put(out, s, strlen(s));
}

/*
 * Where the literal at s[at] ends: at the next reference or terminator,
 * or at `end`.  Two memchr() calls beat a loop over the bytes of long
 * query keys: etlcat took 15% less time on a 231 MB profile.
 */
static size_t
literal_end(const unsigned char *s, size_t at, size_t end)
{
	const unsigned char *ff = memchr(s + at, STR_TERMINATOR, end - at);
	size_t n = ff ? (size_t)(ff - (s + at)) : end - at;
	const unsigned char *fe = memchr(s + at, STR_REF, n);

	if (fe != NULL)
		return (size_t)(fe - s);
	return ff ? (size_t)(ff - s) : end;
}

static void resolve(struct mmprof_reader *, uint64_t, struct buf *, int);

/* Adds the counts a remembered expansion made when it was resolved. */
static void
memo_replay(struct mmprof_reader *r, const struct memo *m)
{
	r->counts.unknown_ids += m->unknown;
	r->counts.missing_strings += m->missing;
	r->counts.invalid_strings += m->invalid;
}

/* Remembers out[start..] as the text of `id`, with the counts it made. */
static void
memo_store(struct mmprof_reader *r, struct memo *m, uint64_t id,
    const struct buf *out, size_t start, const struct mmprof_counts *before)
{
	if (m->text == NULL && (m->text = malloc(MEMO_TEXT_MAX)) == NULL)
		return;
	memcpy(m->text, out->data + start, out->len - start);
	m->len = (uint32_t)(out->len - start);
	m->id = id;
	m->used = 1;
	m->unknown = r->counts.unknown_ids - before->unknown_ids;
	m->missing = r->counts.missing_strings - before->missing_strings;
	m->invalid = r->counts.invalid_strings - before->invalid_strings;
}

/*
 * Appends the text of a string a reference names.  Expansions are
 * remembered, so that references shared down a tree are expanded once,
 * not once for every path to them: a table fanning out 16 ways 5 levels
 * deep took a million steps an event.  Only short expansions that no
 * limit cut are kept, since a cut one depends on where it was met.
 */
static void
resolve_ref(struct mmprof_reader *r, uint64_t id, struct buf *out, int depth)
{
	struct mmprof_counts before = r->counts;
	uint64_t hits = r->limit_hits;
	size_t start = out->len;
	struct memo *m;

	if (r->refmemo == NULL &&
	    (r->refmemo = calloc(REF_SLOTS, sizeof(*r->refmemo))) == NULL) {
		resolve(r, id, out, depth);
		return;
	}
	m = &r->refmemo[(id * 0x9e3779b97f4a7c15ULL) >> 54];
	if (m->used && m->id == id) {
		memo_replay(r, m);
		buf_put(out, m->text, m->len);
		return;
	}
	resolve(r, id, out, depth);
	if (r->limit_hits == hits && out->len < MMPROF_STRING_MAX &&
	    !out->oom && out->len - start <= MEMO_TEXT_MAX)
		memo_store(r, m, id, out, start, &before);
}

/*
 * Appends the text of string `id` to `out`, splicing in the strings its
 * references name.  Depth, the number of references and the length are
 * bounded, so that a hostile table cannot loop or explode.
 */
static void
resolve(struct mmprof_reader *r, uint64_t id, struct buf *out, int depth)
{
	size_t addr, end = r->slen;
	const unsigned char *s = r->sdata;

	if (!string_addr(r, id, &addr)) {
		r->counts.unknown_ids++;
		put_text(out, UNKNOWN_TEXT);
		return;
	}
	if (addr < STREAM_HEADER_LEN || addr >= end) {
		r->counts.missing_strings++;
		put_text(out, UNKNOWN_TEXT);
		return;
	}
	while (addr < end && out->len < MMPROF_STRING_MAX) {
		size_t lit = addr, room = MMPROF_STRING_MAX - out->len;

		if (s[addr] == STR_TERMINATOR)
			return;
		if (s[addr] == STR_REF) {
			if (end - addr < 1 + r->id_size || depth >= MAX_DEPTH ||
			    r->refs_left == 0) {
				r->limit_hits++;
				break;
			}
			r->refs_left--;
			resolve_ref(r, load_id(r, s + addr + 1), out, depth + 1);
			addr += 1 + r->id_size;
			continue;
		}
		/* Look no further than the text can grow: time stays linear. */
		if (end - addr > room) {
			lit = literal_end(s, addr, addr + room);
			buf_put(out, s + addr, lit - addr);
			addr = lit;
			continue;
		}
		if ((lit = literal_end(s, addr, end)) == end)
			break;
		buf_put(out, s + addr, lit - addr);
		addr = lit;
	}
	if (out->len >= MMPROF_STRING_MAX)
		return;
	r->counts.invalid_strings++;
	put_text(out, INVALID_TEXT);
}

/*
 * Resolves `id` into out from scratch; NUL-terminates it.  Once the
 * file's budget is spent, strings read "<invalid>" and are counted.
 */
static void
resolve_fresh(struct mmprof_reader *r, uint64_t id, struct buf *out)
{
	uint32_t refs;

	out->len = 0;
	if (r->refs_budget == 0 || r->text_budget == 0) {
		r->counts.budget_strings++;
		put_text(out, INVALID_TEXT);
	} else {
		refs = r->refs_budget < MAX_REFS ? (uint32_t)r->refs_budget :
		    MAX_REFS;
		r->refs_left = refs;
		resolve(r, id, out, 0);
		r->refs_budget -= refs - r->refs_left;
		r->text_budget -= out->len < r->text_budget ? out->len :
		    r->text_budget;
	}
	if ((r->refs_budget == 0 || r->text_budget == 0) && !r->budget_told) {
		set_error(r, r->event_at, "string references of the file expand "
		    "beyond %llu steps or %llu bytes (%u and %u a byte of "
		    "the file, plus a fixed amount): later strings read "
		    "<invalid>", (unsigned long long)(REFS_FIXED +
		    (uint64_t)REFS_RATIO * r->len), (unsigned long long)
		    (TEXT_FIXED + (uint64_t)TEXT_RATIO * r->len), REFS_RATIO,
		    TEXT_RATIO);
		hold_problem(r);
		r->budget_told = 1;
	}
	if (out->len >= MMPROF_STRING_MAX) {
		r->counts.cut_strings++;
		out->len = MMPROF_STRING_MAX;
	}
	buf_put(out, "", 1);
	out->len--;
}

/*
 * The text of an event kind, resolved once per kind string id and kept
 * for the first KINDS_MAX short ones, afresh for any other.
 */
static int
kind_text(struct mmprof_reader *r, uint64_t id, struct mmprof_text *t)
{
	struct buf *tmp = &r->kind_scratch;
	struct kind *k;
	uint32_t i;

	if (idmap_get(&r->kind_index, id, &i)) {
		t->ptr = (const char *)r->kind_text.data + r->kinds[i].off;
		t->len = r->kinds[i].len;
		return 0;
	}
	resolve_fresh(r, id, tmp);
	if (tmp->oom)
		return -1;
	t->ptr = (const char *)tmp->data;
	t->len = tmp->len;
	if (r->nkinds == KINDS_MAX || tmp->len > MEMO_TEXT_MAX)
		return 0;
	if (r->nkinds == r->kindcap) {
		size_t cap = r->kindcap ? r->kindcap * 2 : 16;

		if ((k = realloc(r->kinds, cap * sizeof(*k))) == NULL)
			return -1;
		r->kinds = k;
		r->kindcap = cap;
	}
	if (idmap_put(&r->kind_index, id, (uint32_t)r->nkinds) != 0)
		return -1;
	k = &r->kinds[r->nkinds++];
	k->id = id;
	k->off = r->kind_text.len;
	k->len = tmp->len;
	buf_put(&r->kind_text, tmp->data, tmp->len);
	if (r->kind_text.oom)
		return -1;
	t->ptr = (const char *)r->kind_text.data + k->off;
	t->len = k->len;
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
	if (!string_addr(r, METADATA_ID, &addr)) {
		set_error(r, NO_OFFSET, "no metadata string (the profile is cut "
		    "short): no process id, command line or start time");
		hold_problem(r);
		return;
	}
	resolve_fresh(r, METADATA_ID, &r->text);
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
		set_error(r, NO_OFFSET, "metadata lacks %s",
		    !m->has_start_time ? "start_time" : "process_id");
		hold_problem(r);
	}
}

/* ---- open ---- */

static enum mmprof_status
fatal(struct mmprof_reader *r, uint64_t offset, const char *what)
{
	set_error(r, offset, "%s", what);
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
	if (!mmprof_probe(data, len))
		return fatal(r, 0, "not a rustc self-profile (.mm_profdata)");
	r->version = le32(data + 4);
	if (r->version != 8 && r->version != 9) {
		set_error(r, 4, "format version %u is not read (only 8 and 9)",
		    r->version);
		return MMPROF_FATAL;
	}
	r->id_size = r->version == 9 ? 8 : 4;
	r->event_size = 2 * r->id_size + 16;
	if ((rc = find_pages(r)) == 0 && (rc = gather(r, TAG_DATA, &sdata)) == 0)
		rc = gather(r, TAG_INDEX, &index);
	if (rc == 0 && stream_ok(r, sdata.data, sdata.len, "MMSD",
	    "string data")) {
		r->sdata = sdata.data;
		r->slen = sdata.len;
		sdata.data = NULL;
	}
	if (rc == 0)
		rc = load_index(r, &index);
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
		set_error(r, NO_OFFSET, "no event data in the file (it is cut "
		    "short)");
		return 0;
	}
	if ((h = take(r, STREAM_HEADER_LEN, &got)) == NULL ||
	    memcmp(h, "MMES", 4) != 0) {
		set_error(r, NO_OFFSET, "event stream does not begin with MMES: "
		    "no events read");
		r->evpage = r->npages;
		return 0;
	}
	return 1;
}

/*
 * Whether 8 bytes hold one below 0x20 or equal to 0x7f: the bytes less
 * 0x20 borrow into their top bit (bytes with it set already are UTF-8,
 * masked out by ~w), and 0x7f becomes 0x00 under the xor.  A loop over
 * the bytes took half of mmprof_reader_next()'s time on a 231 MB profile
 * with long query keys.
 */
static int
word_has_control(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = ones << 7;
	uint64_t del = w ^ (0x7f * ones);

	return ((((w - 0x20 * ones) & ~w) | ((del - ones) & ~del)) & highs) != 0;
}

/* A label or argument: not empty, no ASCII control byte (measureme's). */
static int
text_ok(const char *p, size_t n)
{
	size_t i = 0;
	uint64_t w;

	if (n == 0)
		return 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		if (word_has_control(w))
			return 0;
	}
	for (; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return 0;
	return 1;
}

/*
 * The text of event id `id` in *s and *len, from the memo or resolved
 * (then remembered if short).  @return : 0, or -1 if out of memory.
 */
static int
event_text(struct mmprof_reader *r, uint64_t id, const char **s, size_t *len)
{
	struct mmprof_counts before = r->counts;
	struct memo *m;

	if (r->memo == NULL &&
	    (r->memo = calloc(MEMO_SLOTS, sizeof(*r->memo))) == NULL)
		return -1;
	m = &r->memo[(id * 0x9e3779b97f4a7c15ULL) >> 52];
	if (m->used && m->id == id) {
		memo_replay(r, m);
		*s = m->text;
		*len = m->len;
		return 0;
	}
	resolve_fresh(r, id, &r->text);
	if (r->text.oom)
		return -1;
	*s = (const char *)r->text.data;
	*len = r->text.len;
	if (r->text.len <= MEMO_TEXT_MAX)
		memo_store(r, m, id, &r->text, 0, &before);
	return 0;
}

/* Splits an event_id into label and arguments as measureme does (5). */
static void
split_id(struct mmprof_reader *r, const char *s, size_t len,
    struct mmprof_event *ev)
{
	const char *end = s + len, *sep = memchr(s, ID_SEPARATOR, len);
	const char *p;

	ev->nargs = 0;
	ev->label.ptr = s;
	ev->label.len = (sep ? sep : end) - s;
	if (!text_ok(s, ev->label.len)) {
		r->counts.bad_labels++;
		ev->label.ptr = PARSE_ERROR;
		ev->label.len = strlen(PARSE_ERROR);
		return;
	}
	for (p = sep; p != NULL && p < end; ) {
		const char *a = p + 1;

		sep = memchr(a, ID_SEPARATOR, end - a);
		p = sep ? sep : end;
		if (!text_ok(a, p - a) || ev->nargs == MMPROF_ARGS_MAX) {
			r->counts.bad_args++;
			return;
		}
		ev->args[ev->nargs].ptr = a;
		ev->args[ev->nargs].len = p - a;
		ev->nargs++;
	}
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

enum mmprof_status
mmprof_reader_next(struct mmprof_reader *r, struct mmprof_event *ev)
{
	const unsigned char *rec;
	const char *text;
	size_t got, len;

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
			set_error(r, at, "event stream ends in a partial record "
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
	if (kind_text(r, ev->kind_id, &ev->kind) != 0 ||
	    event_text(r, ev->event_id, &text, &len) != 0) {
		set_error(r, NO_OFFSET, "out of memory");
		return MMPROF_FATAL;
	}
	split_id(r, text, len, ev);
	r->counts.intervals += ev->type == MMPROF_INTERVAL;
	r->counts.instants += ev->type == MMPROF_INSTANT;
	r->counts.integers += ev->type == MMPROF_INTEGER;
	return MMPROF_OK;
}
