/*
 * in_mmprof.c - pages, string table and events of a .mm_profdata file.
 *
 * Open: walk the pages (measureme-format.md section 2), copy the
 * string-data pages into one buffer, load the index pages into a hash
 * map (the last entry of an id wins, 4.3), and note the event pages.
 * Next: read the event records (3.1) across the event pages in order,
 * resolving their kind and id strings (4.2, 5) and splitting the id into
 * label and arguments, once for each id of the file (the id cache).
 * Version 8 differs only in the widths of ids and addresses (section 9).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "idmap.h"
#include "in_mmprof.h"
#include "intern.h"
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
#define MEMO_TEXT_MAX	1024	/* the longest reference expansion kept */
#define REF_SLOTS	1024	/* referenced strings remembered */
#define IDS_TEXT_MAX	(64u << 10)	/* the longest event id text kept */
#define IDS_FIXED	(16u << 20)	/* the id cache's memory: this, plus */
					/* a byte a byte of the file */
#define UNKNOWN_TEXT	"<unknown>"
#define INVALID_TEXT	"<invalid>"
#define PARSE_ERROR	"<parse error>"
#define NO_OFFSET	UINT64_MAX	/* a problem of no place in the file */

static const char parse_error[] = PARSE_ERROR;

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
 * A resolved reference, remembered so that a string shared down a tree
 * is expanded once.  The counts its resolution added are kept, to be
 * added again on a hit.
 */
struct memo {
	uint64_t id;
	char *text;		/* MEMO_TEXT_MAX bytes, allocated on first use */
	uint32_t len;
	int used;
	uint64_t unknown, missing, invalid;
};

/*
 * An event id resolved and split, kept for the rest of the file: events
 * repeat ids (a query's cache hits name its invocation's; 5.2 M events
 * of a 195 MB profile have 250 k ids), and resolving, splitting and
 * checking the text of each event was most of the reader's time.  Its
 * label, first argument and the others (at ids.parts[part...]) point
 * into the string data where they lie there whole, else into
 * ids.blocks.  The counts that its resolution and split added are kept,
 * to be added again at each use.  The first argument is in the entry,
 * so that the usual id (a label and a key) takes one cache line.
 */
struct idtext {
	struct mmprof_text label, arg0;
	uint32_t part;
	uint32_t label_index;
	uint8_t nargs, bad_label, bad_args;
	uint32_t unknown, missing, invalid;
};

struct idslot {
	uint64_t id;
	uint32_t entry;		/* index in idcache.e + 1; 0: an empty slot */
};

struct idcache {
	uint32_t *dense;	/* entry + 1 of the virtual ids 0..ndense-1 */
	struct idslot *slots;	/* of other ids: open addressing */
	size_t nslots, nused;
	struct idtext *e;
	size_t n, ecap;
	struct mmprof_text *parts;
	size_t nparts, partcap;
	char **blocks;		/* texts that are not whole in the data */
	size_t nblocks, blockcap, block_used;
	size_t bytes, limit;	/* what it takes, and may take */
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
	uint32_t *dense;	/* address + 1 of virtual ids 0..ndense-1 */
	size_t ndense;

	struct kind *kinds;
	size_t nkinds, kindcap;
	struct idmap kind_index;	/* kind string id -> index in kinds */
	struct buf kind_text;
	struct buf kind_scratch;	/* a kind beyond KINDS_MAX */
	uint64_t refs_budget, text_budget;	/* left for the whole file */
	int budget_told;	/* the budget's exhaustion was reported */
	uint64_t event_at;	/* offset of the event being resolved */

	struct buf text;	/* parts of an id gathered from its runs */
	struct buf whole;	/* an id's text resolved whole */
	struct idcache ids;
	struct intern labels;	/* label text -> label index */
	size_t labels_limit;	/* bytes of label text kept, at most */
	uint64_t last_kind_id;	/* the kind of the last event, */
	struct mmprof_text last_kind;	/* which most events repeat */
	uint32_t last_kind_index;
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

/*
 * Makes r->dense for the virtual ids below the first that lies far past
 * the number of entries (rustc numbers its ids from 0): looking them up
 * in an array instead of a hash map saves a cache miss an event.  Its
 * size is bounded by the index's.  @return : 0, or -1 if out of memory.
 */
static int
dense_index(struct mmprof_reader *r, const struct stream_bytes *index)
{
	size_t entry = 2 * r->id_size, i, n = 0, bound;
	uint64_t max = 0;

	for (i = STREAM_HEADER_LEN; i + entry <= index->len; i += entry)
		n++;
	bound = 4 * n + 1024;
	for (i = STREAM_HEADER_LEN; i + entry <= index->len; i += entry) {
		uint64_t id = load_id(r, index->data + i);

		if (id < bound && id + 1 > max)
			max = id + 1;
	}
	if (max == 0)
		return 0;
	if ((r->dense = calloc((size_t)max, sizeof(*r->dense))) == NULL)
		return -1;
	r->ndense = (size_t)max;
	return 0;
}

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
	if (dense_index(r, index) != 0)
		return -1;
	for (i = STREAM_HEADER_LEN; i + entry <= index->len; i += entry) {
		uint64_t id = load_id(r, index->data + i);
		uint64_t addr = load_id(r, index->data + i + r->id_size);

		if (addr > UINT32_MAX) {
			r->counts.bad_index++;
			continue;
		}
		/* The last entry of an id wins, in the array or the map. */
		if (id < r->ndense && addr < UINT32_MAX) {
			r->dense[id] = (uint32_t)addr + 1;
			continue;
		}
		if (id < r->ndense)
			r->dense[id] = 0;
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

	if (id < r->ndense && r->dense[id] != 0) {
		*addr = r->dense[id] - 1;
		return 1;
	}
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
kind_text(struct mmprof_reader *r, uint64_t id, struct mmprof_text *t,
    uint32_t *index)
{
	struct buf *tmp = &r->kind_scratch;
	struct kind *k;
	uint32_t i;

	if (idmap_get(&r->kind_index, id, &i)) {
		t->ptr = (const char *)r->kind_text.data + r->kinds[i].off;
		t->len = r->kinds[i].len;
		*index = i + 1;
		return 0;
	}
	*index = 0;
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
	*index = (uint32_t)r->nkinds;
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
	r->ids.limit = IDS_FIXED + len;
	r->labels_limit = IDS_FIXED + len / 4;
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

/* ---- event ids: label and arguments (section 5) ---- */

#define RUNS_MAX	16	/* literal runs of an id read in place */
#define PARTS_MAX	(MMPROF_ARGS_MAX + 2)	/* label, arguments, one more */

/*
 * The literal runs that make the text of event id `id`, in place in the
 * string data, when it is made simply: of literals, and of references to
 * strings that are one literal each (rustc's "label SEP key" ids are).
 * *refs gets the references followed.  Nothing is counted: an id that is
 * not simple, or that would take the rest of the file's budget, is left
 * to resolve_fresh().  @return : the number of runs, or -1.
 */
static int
simple_runs(const struct mmprof_reader *r, uint64_t id,
    struct mmprof_text *runs, uint32_t *refs)
{
	const unsigned char *s = r->sdata;
	size_t addr, end = r->slen, total = 0, lit, at;
	int n = 0;

	*refs = 0;
	if (!string_addr(r, id, &addr) || addr < STREAM_HEADER_LEN ||
	    addr >= end)
		return -1;
	while (addr < end && s[addr] != STR_TERMINATOR) {
		if (n == RUNS_MAX)
			return -1;
		at = addr;
		if (s[addr] == STR_REF) {
			if (end - addr < 1 + r->id_size ||
			    !string_addr(r, load_id(r, s + addr + 1), &at) ||
			    at < STREAM_HEADER_LEN || at >= end)
				return -1;
			addr += 1 + r->id_size;
			++*refs;
		}
		/* Look no further than the text may grow, as resolve(). */
		lit = literal_end(s, at, end - at > MMPROF_STRING_MAX - total ?
		    at + (MMPROF_STRING_MAX - total) : end);
		if (lit == end || s[lit] == STR_REF || (at != addr &&
		    s[lit] != STR_TERMINATOR) || (at == addr && lit == at))
			return -1;
		runs[n].ptr = (const char *)s + at;
		runs[n++].len = lit - at;
		total += lit - at;
		if (at == addr)
			addr = lit;
	}
	if (addr >= end || total >= MMPROF_STRING_MAX ||
	    r->refs_budget <= *refs || r->text_budget <= total)
		return -1;
	return n;
}

/*
 * Part parts[np] of an id's text: from `start` in runs[first] to `stop`
 * in runs[k]; one that spans runs is gathered into r->text, which has
 * room for the whole text, so that earlier parts do not move.
 */
static void
set_part(struct mmprof_reader *r, const struct mmprof_text *runs, int first,
    const char *start, int k, const char *stop, struct mmprof_text *part)
{
	size_t from = r->text.len;
	int i;

	if (first == k) {
		part->ptr = start;
		part->len = (size_t)(stop - start);
		return;
	}
	buf_put(&r->text, start,
	    (size_t)(runs[first].ptr + runs[first].len - start));
	for (i = first + 1; i < k; i++)
		buf_put(&r->text, runs[i].ptr, runs[i].len);
	buf_put(&r->text, runs[k].ptr, (size_t)(stop - runs[k].ptr));
	part->ptr = (const char *)r->text.data + from;
	part->len = r->text.len - from;
}

/*
 * Cuts the runs of an id's text at its separators into parts[]: the
 * label, then the arguments; PARTS_MAX at most, since measureme stops
 * at the argument after the last it keeps.
 * @return : the number of parts, or -1 if out of memory.
 */
static int
cut_parts(struct mmprof_reader *r, const struct mmprof_text *runs, int nruns,
    struct mmprof_text *parts)
{
	const char *start, *end, *p, *sep;
	size_t total = 0;
	int k, first = 0, np = 0;

	for (k = 0; k < nruns; k++)
		total += runs[k].len;
	r->text.len = 0;
	if (buf_reserve(&r->text, total + 1) == NULL)
		return -1;
	if (nruns == 0) {
		parts[0].ptr = "";
		parts[0].len = 0;
		return 1;
	}
	start = runs[0].ptr;
	for (k = 0; k < nruns; k++) {
		end = runs[k].ptr + runs[k].len;
		p = k == first ? start : runs[k].ptr;
		while ((sep = memchr(p, ID_SEPARATOR, (size_t)(end - p))) !=
		    NULL) {
			set_part(r, runs, first, start, k, sep, &parts[np]);
			if (++np == PARTS_MAX)
				return np;
			start = p = sep + 1;
			first = k;
		}
		/* A part that begins where a run ends begins in the next. */
		if (first == k && start == end && k + 1 < nruns) {
			first = k + 1;
			start = runs[k + 1].ptr;
		}
	}
	set_part(r, runs, first, start, nruns - 1,
	    runs[nruns - 1].ptr + runs[nruns - 1].len, &parts[np]);
	return np + 1;
}

/* Label and arguments from the parts, as measureme splits an id (5). */
static void
take_parts(struct mmprof_reader *r, const struct mmprof_text *parts, int np,
    struct mmprof_event *ev)
{
	int i;

	ev->nargs = 0;
	ev->label = parts[0];
	if (!text_ok(parts[0].ptr, parts[0].len)) {
		r->counts.bad_labels++;
		ev->label.ptr = parse_error;
		ev->label.len = sizeof(parse_error) - 1;
		return;
	}
	for (i = 1; i < np; i++) {
		if (!text_ok(parts[i].ptr, parts[i].len) ||
		    ev->nargs == MMPROF_ARGS_MAX) {
			r->counts.bad_args++;
			return;
		}
		ev->args[ev->nargs++] = parts[i];
	}
}

/* ---- the id cache ---- */

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p)	__builtin_prefetch(p)
#else
#define PREFETCH(p)	((void)(p))
#endif

#define BLOCK_SIZE	(1u << 20)	/* of the cache's copied texts */

static const struct idtext *
ids_find(const struct idcache *c, uint64_t id, size_t ndense)
{
	size_t i;

	if (id < ndense)
		return c->dense != NULL && c->dense[id] != 0 ?
		    &c->e[c->dense[id] - 1] : NULL;
	if (c->nslots == 0)
		return NULL;
	for (i = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 20) & (c->nslots - 1);
	    c->slots[i].entry != 0; i = (i + 1) & (c->nslots - 1))
		if (c->slots[i].id == id)
			return &c->e[c->slots[i].entry - 1];
	return NULL;
}

/* What the cache takes. */
static size_t
ids_bytes(const struct idcache *c, size_t ndense)
{
	return (c->dense != NULL ? ndense * sizeof(*c->dense) : 0) +
	    c->nslots * sizeof(*c->slots) + c->ecap * sizeof(*c->e) +
	    c->partcap * sizeof(*c->parts) + c->nblocks * BLOCK_SIZE;
}

/* Doubles the slots (at half full); 0, or -1 if out of memory. */
static int
ids_grow(struct idcache *c)
{
	size_t n = c->nslots ? c->nslots * 2 : 1024, i, j;
	struct idslot *slots = calloc(n, sizeof(*slots));

	if (slots == NULL)
		return -1;
	for (i = 0; i < c->nslots; i++) {
		if (c->slots[i].entry == 0)
			continue;
		for (j = (size_t)((c->slots[i].id * 0x9e3779b97f4a7c15ULL) >>
		    20) & (n - 1); slots[j].entry != 0; j = (j + 1) & (n - 1))
			continue;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = n;
	return 0;
}

/* A copy of len bytes that stays where it is; NULL if out of memory. */
static const char *
ids_stash(struct idcache *c, const char *p, size_t len)
{
	char *to;

	if (c->nblocks == 0 || c->block_used + len > BLOCK_SIZE) {
		if (array_slot(&c->blocks, &c->blockcap, c->nblocks,
		    sizeof(*c->blocks)) == NULL ||
		    (c->blocks[c->nblocks] = malloc(BLOCK_SIZE)) == NULL)
			return NULL;
		c->nblocks++;
		c->block_used = 0;
	}
	to = c->blocks[c->nblocks - 1] + c->block_used;
	memcpy(to, p, len);
	c->block_used += len;
	return to;
}

/* Files entry e->n under `id`.  @return : 0, or -1 if out of memory. */
static int
ids_insert(struct idcache *c, uint64_t id, size_t ndense)
{
	size_t j;

	if (id < ndense) {
		if (c->dense == NULL &&
		    (c->dense = calloc(ndense, sizeof(*c->dense))) == NULL)
			return -1;
		c->dense[id] = (uint32_t)++c->n;
		return 0;
	}
	if ((c->nused + 1) * 2 > c->nslots && ids_grow(c) != 0)
		return -1;
	for (j = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 20) &
	    (c->nslots - 1); c->slots[j].entry != 0; j = (j + 1) &
	    (c->nslots - 1))
		continue;
	c->slots[j].id = id;
	c->slots[j].entry = (uint32_t)++c->n;
	c->nused++;
	return 0;
}

/*
 * Keeps event ev's label and arguments under its id, with the counts
 * that its resolution and split added since `before`.  Parts that lie
 * in the string data, which stays, are kept as pointers; others copied.  Nothing
 * is kept once the cache has taken its share of memory: later ids are
 * resolved at each use.
 */
static void
ids_add(struct mmprof_reader *r, const struct mmprof_event *ev,
    const struct mmprof_counts *before)
{
	struct idcache *c = &r->ids;
	const char *lo = (const char *)r->sdata, *hi = lo + r->slen;
	struct mmprof_text part[1 + MMPROF_ARGS_MAX];
	struct idtext *t;
	size_t i, nparts = 1 + ev->nargs, more = nparts > 2 ? nparts - 2 : 0;

	if (ids_bytes(c, r->ndense) + r->text.len + 4096 > c->limit ||
	    (t = array_slot(&c->e, &c->ecap, c->n, sizeof(*t))) == NULL ||
	    (more > 0 && array_slot(&c->parts, &c->partcap,
	    c->nparts + more - 1, sizeof(*part)) == NULL))
		return;
	part[0] = ev->label;
	memcpy(part + 1, ev->args, ev->nargs * sizeof(*part));
	for (i = 0; i < nparts; i++) {
		if ((part[i].ptr < lo || part[i].ptr >= hi) &&
		    part[i].ptr != parse_error && (part[i].ptr =
		    ids_stash(c, part[i].ptr, part[i].len)) == NULL)
			return;
	}
	t->label = part[0];
	t->arg0 = nparts > 1 ? part[1] : part[0];
	for (i = 0; i < more; i++)
		c->parts[c->nparts + i] = part[2 + i];
	t->part = (uint32_t)c->nparts;
	t->label_index = ev->label_index;
	t->nargs = (uint8_t)ev->nargs;
	t->bad_label = r->counts.bad_labels != before->bad_labels;
	t->bad_args = r->counts.bad_args != before->bad_args;
	t->unknown = (uint32_t)(r->counts.unknown_ids - before->unknown_ids);
	t->missing = (uint32_t)(r->counts.missing_strings -
	    before->missing_strings);
	t->invalid = (uint32_t)(r->counts.invalid_strings -
	    before->invalid_strings);
	if (ids_insert(c, ev->event_id, r->ndense) == 0)
		c->nparts += more;
}

/* Fills ev's label and arguments from a kept id, counting as it did. */
static void
ids_use(struct mmprof_reader *r, const struct idtext *t,
    struct mmprof_event *ev)
{
	const struct mmprof_text *part = r->ids.parts + t->part;
	size_t i;

	r->counts.unknown_ids += t->unknown;
	r->counts.missing_strings += t->missing;
	r->counts.invalid_strings += t->invalid;
	r->counts.bad_labels += t->bad_label;
	r->counts.bad_args += t->bad_args;
	ev->label = t->label;
	ev->label_index = t->label_index;
	ev->nargs = t->nargs;
	ev->args[0] = t->arg0;
	for (i = 1; i < t->nargs; i++)
		ev->args[i] = part[i - 1];
}

/* The index of the label's text among the file's labels; 0 if not kept. */
static uint32_t
label_index(struct mmprof_reader *r, const struct mmprof_text *label)
{
	uint32_t i = intern_find(&r->labels, label->ptr, label->len);

	if (i != 0 || r->labels.arena_len + label->len > r->labels_limit)
		return i;
	return intern_add(&r->labels, label->ptr, label->len, NULL);
}

/*
 * Label and arguments of event `ev`'s id: from the id cache, or read in
 * place when the id is simple, else resolved; then split and kept.  A
 * text that a limit cut, or that the file's budget made "<invalid>", is
 * not kept, so that it is counted at each use as before.
 * @return : 0, or -1 if out of memory.
 */
static int
event_id_text(struct mmprof_reader *r, struct mmprof_event *ev)
{
	struct mmprof_counts before = r->counts;
	const struct idtext *t = ids_find(&r->ids, ev->event_id, r->ndense);
	struct mmprof_text runs[RUNS_MAX], parts[PARTS_MAX];
	uint64_t hits = r->limit_hits;
	uint32_t refs;
	size_t total = 0;
	int nruns, np;

	if (t != NULL) {
		ids_use(r, t, ev);
		return 0;
	}
	if ((nruns = simple_runs(r, ev->event_id, runs, &refs)) >= 0) {
		for (np = 0; np < nruns; np++)
			total += runs[np].len;
		/* What resolve_fresh() would have spent. */
		r->refs_budget -= refs;
		r->text_budget -= total;
	} else {
		resolve_fresh(r, ev->event_id, &r->whole);
		if (r->whole.oom)
			return -1;
		runs[0].ptr = (const char *)r->whole.data;
		runs[0].len = total = r->whole.len;
		nruns = 1;
	}
	if ((np = cut_parts(r, runs, nruns, parts)) < 0)
		return -1;
	take_parts(r, parts, np, ev);
	ev->label_index = label_index(r, &ev->label);
	if (r->labels.count > 0 && r->labels.arena == NULL)
		return -1;
	if (r->limit_hits == hits && total <= IDS_TEXT_MAX &&
	    r->counts.budget_strings == before.budget_strings &&
	    r->counts.cut_strings == before.cut_strings)
		ids_add(r, ev, &before);
	return 0;
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

/*
 * Asks for the memory that the next events will read, while this one
 * is decoded: the id cache's slot of the third event from here, the
 * entry of the second and the key text of the next.  The event ids come
 * in no order, so without this each of the three was a cache miss an
 * event (a fifth of etlcat's time on a 195 MB profile).
 */
static void
prefetch_ahead(const struct mmprof_reader *r)
{
	const struct idcache *c = &r->ids;
	const struct page *pg;
	const unsigned char *next;
	size_t left, k;
	uint64_t id;

	if (c->dense == NULL || r->evpage >= r->npages)
		return;
	pg = &r->pages[r->evpage];
	next = r->data + pg->off + r->evoff + r->id_size;
	left = (pg->len - r->evoff) / r->event_size;
	for (k = 0; k < 3 && k < left; k++) {
		id = load_id(r, next + k * r->event_size);
		if (id >= r->ndense)
			continue;
		if (k == 2)
			PREFETCH(&c->dense[id]);
		else if (c->dense[id] != 0 && k == 1)
			PREFETCH(&c->e[c->dense[id] - 1]);
		else if (c->dense[id] != 0)
			PREFETCH(c->e[c->dense[id] - 1].arg0.ptr);
	}
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
	prefetch_ahead(r);
	if (ev->kind_id == r->last_kind_id && r->last_kind_index != 0) {
		ev->kind = r->last_kind;
		ev->kind_index = r->last_kind_index;
	} else if (kind_text(r, ev->kind_id, &ev->kind, &ev->kind_index) != 0)
		goto oom;
	else {
		r->last_kind_id = ev->kind_id;
		r->last_kind = ev->kind;
		r->last_kind_index = ev->kind_index;
	}
	if (event_id_text(r, ev) != 0)
		goto oom;
	r->counts.intervals += ev->type == MMPROF_INTERVAL;
	r->counts.instants += ev->type == MMPROF_INSTANT;
	r->counts.integers += ev->type == MMPROF_INTEGER;
	return MMPROF_OK;
oom:
	set_error(r, NO_OFFSET, "out of memory");
	return MMPROF_FATAL;
}
