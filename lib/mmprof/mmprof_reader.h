/*
 * mmprof_reader.h - the state of a .mm_profdata reader (in_mmprof.h),
 * shared by the two files that make it: in_mmprof.c (pages, metadata,
 * events) and mmprof_strings.c (the string table: index, references,
 * kinds, and each event id's label and arguments, kept in the id
 * cache).  No other module includes it.
 */
#ifndef MMPROF_READER_H
#define MMPROF_READER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "in_mmprof.h"

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
#define KIND_CACHE	16	/* of them, found without a hash lookup */
#define MAX_PROBLEMS	8	/* open-time problems held for next() */
#define MEMO_TEXT_MAX	1024	/* the longest reference expansion kept */
#define REF_SLOTS	1024	/* referenced strings remembered */
#define LABEL_REFS	256	/* labels remembered by reference (8 bits) */
#define IDS_TEXT_MAX	(64u << 10)	/* the longest event id text kept */
#define IDS_FIXED	(16u << 20)	/* the id cache's memory: this, plus */
					/* a byte a byte of the file */
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
 * A resolved reference, remembered so that a string shared down a tree
 * is expanded once.  The counts its resolution added are kept, to be
 * added again on a hit.
 */
struct memo {
	uint64_t id;
	char *text;		/* cap bytes, grown to the longest it held */
	uint32_t len, cap;
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

/*
 * For a reader of labels only: the label that an id beginning with a
 * reference to string `ref` has, in place, with its check and number
 * once known (mmprof_strings.c, label_fresh()).
 */
struct labelref {
	uint64_t ref;
	const char *ptr;	/* in the string data */
	uint32_t len, index;	/* index: in labels, 0 for none */
	uint8_t used, at_sep, checked, bad;	/* at_sep: it ends at one */
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
	int labels_only;	/* event ids are read for their label alone */
	struct labelref labelrefs[LABEL_REFS];
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
	/*
	 * The kinds of events met, by the low bits of their string ids:
	 * rustc has some ten, and a hash lookup an event cost 3%.
	 */
	struct {
		uint64_t id;
		uint32_t index;		/* in kinds[] + 1; 0 for none */
	} kind_cache[KIND_CACHE];
	struct memo *refmemo;	/* REF_SLOTS: expansions of references */
	uint64_t limit_hits;	/* resolutions cut by depth or references */
	struct buf meta_text;	/* the metadata's cmd and counter */
	uint32_t refs_left;	/* budget for one resolution */

	char problems[MAX_PROBLEMS][256];
	size_t nproblems, next_problem;
	uint64_t more_problems;
};

static inline uint64_t
load_id(const struct mmprof_reader *r, const unsigned char *p)
{
	return r->id_size == 8 ? le64(p) : le32(p);
}

/* in_mmprof.c */

/* Sets the message; " (offset 0x...)" follows unless offset is NO_OFFSET. */
void mmprof_set_error(struct mmprof_reader *r, uint64_t offset,
    const char *fmt, ...);
/* Keeps the current message as a problem for next() to report. */
void mmprof_hold_problem(struct mmprof_reader *r);
/* Checks a stream's own header; an absent stream is a problem. */
int mmprof_stream_ok(struct mmprof_reader *r, const unsigned char *p,
    size_t len, const char *magic, const char *what);

/* mmprof_strings.c */

/* Loads the string index; 0, or -1 if out of memory. */
int mmprof_load_index(struct mmprof_reader *r,
    const struct stream_bytes *index);
/* The address of a string id in the string data; 0 if it has none. */
int mmprof_string_addr(const struct mmprof_reader *r, uint64_t id,
    size_t *addr);
/* The text of string `id` into out, NUL-terminated, within the budget. */
void mmprof_resolve_fresh(struct mmprof_reader *r, uint64_t id,
    struct buf *out);
/* The text of a kind string and its number (0: none); -1 if OOM. */
int mmprof_kind_text(struct mmprof_reader *r, uint64_t id,
    struct mmprof_text *t, uint32_t *index);
/* Label and arguments of ev's event id; 0, or -1 if out of memory. */
int mmprof_event_id_text(struct mmprof_reader *r, struct mmprof_event *ev);
/* Asks for the memory the next events' ids will read. */
void mmprof_prefetch(const struct mmprof_reader *r);

#endif
