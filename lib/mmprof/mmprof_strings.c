/*
 * mmprof_strings.c - the string table of a .mm_profdata file
 * (measureme-format.md section 4) and the event ids made of it (5).
 *
 * The index maps virtual ids to addresses in the string data (the last
 * entry of an id wins, 4.3): an array for rustc's ids, numbered from 0,
 * a hash map for the others.  A string is resolved by splicing in the
 * strings its references name, within limits of depth, references and
 * length, and within the file's budget.  An event id is cut at its
 * separators into label and arguments as measureme does, once for the
 * file: the id cache keeps the parts, in place in the string data when
 * they lie there whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "mmprof_reader.h"

static const char parse_error[] = PARSE_ERROR;

#if defined(__GNUC__) || defined(__clang__)
/* 16 bytes in the compiler's vector types: SSE2 on x86-64, NEON on ARM. */
typedef unsigned char bytes16 __attribute__((vector_size(16)));
#endif

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

int
mmprof_load_index(struct mmprof_reader *r, const struct stream_bytes *index)
{
	size_t entry = 2 * r->id_size, i;

	if (!mmprof_stream_ok(r, index->data, index->len, "MMSI", "string index"))
		return 0;
	if ((index->len - STREAM_HEADER_LEN) % entry != 0) {
		mmprof_set_error(r, NO_OFFSET, "string index ends in a partial entry");
		mmprof_hold_problem(r);
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
int
mmprof_string_addr(const struct mmprof_reader *r, uint64_t id, size_t *addr)
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
 * or at `end`.  They are the two byte values at 0xfe and above, which
 * UTF-8 text never holds, so one look for either does; 16 bytes at a
 * time, it takes two thirds of the instructions of two memchr() calls
 * (one for each), which themselves beat a loop over the bytes of long
 * keys.
 */
static size_t
literal_end(const unsigned char *s, size_t at, size_t end)
{
	size_t i = at;

	_Static_assert(STR_REF == 0xfe && STR_TERMINATOR == 0xff,
	    "the two marks are the bytes from 0xfe up");
#if (defined(__GNUC__) || defined(__clang__)) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* The first byte is the low one of half[0]. */
	for (; end - i >= 16; i += 16) {
		bytes16 v, mark;
		uint64_t half[2];

		memcpy(&v, s + i, 16);
		mark = v >= 0xfe;
		memcpy(half, &mark, 16);
		if (half[0] != 0)
			return i + (size_t)__builtin_ctzll(half[0]) / 8;
		if (half[1] != 0)
			return i + 8 + (size_t)__builtin_ctzll(half[1]) / 8;
	}
#endif
	for (; i < end; i++)
		if (s[i] >= STR_REF)
			return i;
	return end;
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

/*
 * Remembers out[start..] as the text of `id`, with the counts it made.
 * A slot's room fits what it holds, rounded up: most expansions are a
 * few words, and a whole MEMO_TEXT_MAX a slot touched a page for every
 * four slots used (a seventh of the page faults of a small profile).
 */
static void
memo_store(struct mmprof_reader *r, struct memo *m, uint64_t id,
    const struct buf *out, size_t start, const struct mmprof_counts *before)
{
	size_t len = out->len - start;

	/* Empty expansions too have room, so that the text is never NULL. */
	if (m->text == NULL || len > m->cap) {
		size_t cap = (len + 64) & ~(size_t)63;
		char *t = realloc(m->text, cap);

		if (t == NULL) {
			m->used = 0;
			return;
		}
		m->text = t;
		m->cap = (uint32_t)cap;
	}
	memcpy(m->text, out->data + start, len);
	m->len = (uint32_t)len;
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

	if (!mmprof_string_addr(r, id, &addr)) {
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
void
mmprof_resolve_fresh(struct mmprof_reader *r, uint64_t id, struct buf *out)
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
		mmprof_set_error(r, r->event_at, "string references of the file expand "
		    "beyond %llu steps or %llu bytes (%u and %u a byte of "
		    "the file, plus a fixed amount): later strings read "
		    "<invalid>", (unsigned long long)(REFS_FIXED +
		    (uint64_t)REFS_RATIO * r->len), (unsigned long long)
		    (TEXT_FIXED + (uint64_t)TEXT_RATIO * r->len), REFS_RATIO,
		    TEXT_RATIO);
		mmprof_hold_problem(r);
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
int
mmprof_kind_text(struct mmprof_reader *r, uint64_t id, struct mmprof_text *t,
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
	mmprof_resolve_fresh(r, id, tmp);
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

#if defined(__GNUC__) || defined(__clang__)
/*
 * The same test on 16 bytes at once, in the compiler's vector types
 * (SSE2 on x86-64, NEON on ARM): text_ok() checks every byte of every
 * new key, 6% of the decoder's time in words of 8.
 */
static int
block_has_control(const char *p)
{
	bytes16 v, bad;
	uint64_t half[2];

	memcpy(&v, p, 16);
	bad = (v < 0x20) | (v == 0x7f);
	memcpy(half, &bad, 16);
	return (half[0] | half[1]) != 0;
}
#endif

/* A label or argument: not empty, no ASCII control byte (measureme's). */
static int
text_ok(const char *p, size_t n)
{
	size_t i = 0;
	uint64_t w;

	if (n == 0)
		return 0;
#if defined(__GNUC__) || defined(__clang__)
	for (; i + 16 <= n; i += 16)
		if (block_has_control(p + i))
			return 0;
#endif
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
 * to mmprof_resolve_fresh().  @return : the number of runs, or -1.
 */
static int
simple_runs(const struct mmprof_reader *r, uint64_t id,
    struct mmprof_text *runs, uint32_t *refs)
{
	const unsigned char *s = r->sdata;
	size_t addr, end = r->slen, total = 0, lit, at;
	int n = 0;

	*refs = 0;
	if (!mmprof_string_addr(r, id, &addr) || addr < STREAM_HEADER_LEN ||
	    addr >= end)
		return -1;
	while (addr < end && s[addr] != STR_TERMINATOR) {
		if (n == RUNS_MAX)
			return -1;
		at = addr;
		if (s[addr] == STR_REF) {
			if (end - addr < 1 + r->id_size ||
			    !mmprof_string_addr(r, load_id(r, s + addr + 1), &at) ||
			    at < STREAM_HEADER_LEN || at >= end)
				return -1;
			addr += 1 + r->id_size;
			++*refs;
		}
		/* Look no further than the text may grow, as resolve(). */
		lit = literal_end(s, at, end - at > MMPROF_STRING_MAX - total ?
		    at + (MMPROF_STRING_MAX - total) : end);
		/*
		 * A referenced string is one literal, up to its terminator;
		 * a literal of the id's own may end at a reference (rustc's
		 * separator between label and key does).
		 */
		if (lit == end || (at != addr && s[lit] != STR_TERMINATOR) ||
		    (at == addr && lit == at))
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
 * The label that begins at s[at] when it lies in the one literal there:
 * up to a separator (*at_sep 1) or to the terminator (0), and not into
 * a reference.  The look goes no further than the text may grow, as in
 * resolve().  @return : 1 with *len, or 0.
 */
static int
literal_label(const struct mmprof_reader *r, size_t at, size_t *len,
    int *at_sep)
{
	const unsigned char *s = r->sdata, *sep;
	size_t lit, end = r->slen;

	lit = literal_end(s, at, end - at > MMPROF_STRING_MAX ?
	    at + MMPROF_STRING_MAX : end);
	if (lit == end || lit == at)
		return 0;
	if ((sep = memchr(s + at, ID_SEPARATOR, lit - at)) != NULL)
		lit = (size_t)(sep - s);
	else if (s[lit] != STR_TERMINATOR)
		return 0;
	*len = lit - at;
	*at_sep = sep != NULL;
	return 1;
}

/* The label that string `ref` gives the ids that begin with it; 0, 1. */
static int
ref_label(const struct mmprof_reader *r, uint64_t ref, struct labelref *lr)
{
	size_t at, len;
	int at_sep;

	if (!mmprof_string_addr(r, ref, &at) || at < STREAM_HEADER_LEN ||
	    at >= r->slen || !literal_label(r, at, &len, &at_sep))
		return 0;
	memset(lr, 0, sizeof(*lr));
	lr->ref = ref;
	lr->ptr = (const char *)r->sdata + at;
	lr->len = (uint32_t)len;
	lr->at_sep = (uint8_t)at_sep;
	lr->used = 1;
	return 1;
}

/*
 * The label of event id `id` in place in the string data, for a reader
 * of labels only: the id's text up to its first separator, when that
 * lies in one literal, the id's own or that of the string its first
 * reference names (rustc's "label SEP key" ids, and labels alone).  The
 * key after it is never looked at, which is what saves the time: most
 * of a profile's ids are keys met once.  *refs gets the references
 * followed, and *lrp the remembered label of the reference (NULL for a
 * literal of the id's own).  Nothing is counted: any other id, or one
 * that would take the rest of the file's budget, is left to the full
 * path, which gives the same label.  @return : 1, or 0 for the full path.
 */
static int
label_in_place(struct mmprof_reader *r, uint64_t id,
    struct mmprof_text *label, uint32_t *refs, struct labelref **lrp)
{
	const unsigned char *s = r->sdata;
	struct labelref *lr;
	size_t addr, end = r->slen;
	uint64_t ref;
	int at_sep;

	*refs = 0;
	*lrp = NULL;
	if (!mmprof_string_addr(r, id, &addr) || addr < STREAM_HEADER_LEN ||
	    addr >= end)
		return 0;
	if (s[addr] == STR_REF) {
		if (end - addr < 1 + r->id_size)
			return 0;
		ref = load_id(r, s + addr + 1);
		lr = &r->labelrefs[(ref * 0x9e3779b97f4a7c15ULL) >> 56];
		if ((!lr->used || lr->ref != ref) && !ref_label(r, ref, lr))
			return 0;
		addr += 1 + r->id_size;
		/* A label that does not end in the string ends after it. */
		if (!lr->at_sep && (addr == end ||
		    (s[addr] != STR_TERMINATOR && s[addr] != ID_SEPARATOR)))
			return 0;
		label->ptr = lr->ptr;
		label->len = lr->len;
		*refs = 1;
		*lrp = lr;
	} else {
		if (!literal_label(r, addr, &label->len, &at_sep))
			return 0;
		label->ptr = (const char *)s + addr;
	}
	return r->refs_budget > *refs && r->text_budget > label->len;
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

/* A label that is not text reads "<parse error>", counted (5). */
static void
bad_label(struct mmprof_reader *r, struct mmprof_event *ev)
{
	r->counts.bad_labels++;
	ev->label.ptr = parse_error;
	ev->label.len = sizeof(parse_error) - 1;
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
		bad_label(r, ev);
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
 * in the string data, which stays, are kept as pointers; others are
 * copied.  Nothing is kept once the cache has taken its share of
 * memory: later ids are resolved at each use.
 */
static void
ids_add(struct mmprof_reader *r, const struct mmprof_event *ev,
    const struct mmprof_counts *before)
{
	struct idcache *c = &r->ids;
	uintptr_t lo = (uintptr_t)r->sdata;
	struct mmprof_text part[1 + MMPROF_ARGS_MAX];
	struct idtext *t;
	size_t i, nparts = 1 + ev->nargs, more = nparts > 2 ? nparts - 2 : 0;

	if (ids_bytes(c, r->ndense) + r->text.len + 4096 > c->limit ||
	    (t = array_room(&c->e, &c->ecap, c->n, sizeof(*t))) == NULL ||
	    (more > 0 && array_room(&c->parts, &c->partcap,
	    c->nparts + more - 1, sizeof(*part)) == NULL))
		return;
	part[0] = ev->label;
	memcpy(part + 1, ev->args, ev->nargs * sizeof(*part));
	for (i = 0; i < nparts; i++) {
		if ((uintptr_t)part[i].ptr - lo >= r->slen &&
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
		ev->args[i] = r->ids.parts[t->part + i - 1];
}

/*
 * The number of the label's text among the file's labels into *index
 * (0 once they have taken their share of memory).
 * @return : 0, or -1 if out of memory.
 */
static int
label_index(struct mmprof_reader *r, const struct mmprof_text *label,
    uint32_t *index)
{
	*index = intern_find(&r->labels, label->ptr, label->len);
	if (*index != 0 || r->labels.arena_len + label->len > r->labels_limit)
		return 0;
	*index = intern_add(&r->labels, label->ptr, label->len, NULL);
	return *index != 0 ? 0 : -1;
}

/*
 * Labels only: the label of an id not in the cache, when it lies in
 * place (label_in_place), checked, numbered and kept in the cache.  A
 * label read through a reference keeps its check and number with it:
 * rustc's ids name a few hundred labels, each with thousands of keys.
 * @return : 1, 0 for the full path, or -1 if out of memory.
 */
static int
label_fresh(struct mmprof_reader *r, struct mmprof_event *ev,
    const struct mmprof_counts *before)
{
	struct mmprof_text label;
	struct labelref *lr;
	uint32_t refs;

	if (!label_in_place(r, ev->event_id, &label, &refs, &lr))
		return 0;
	r->refs_budget -= refs;
	r->text_budget -= label.len;
	if (lr != NULL && lr->checked) {
		ev->nargs = 0;
		ev->label = label;
		if (lr->bad)
			bad_label(r, ev);
		ev->label_index = lr->index;
	} else {
		take_parts(r, &label, 1, ev);
		if (label_index(r, &ev->label, &ev->label_index) != 0)
			return -1;
		if (lr != NULL) {
			lr->bad = ev->label.ptr == parse_error;
			lr->index = ev->label_index;
			lr->checked = 1;
		}
	}
	if (label.len <= IDS_TEXT_MAX)
		ids_add(r, ev, before);
	return 1;
}

/*
 * Label and arguments of event `ev`'s id: from the id cache, or read in
 * place when the id is simple, else resolved; then split and kept.  A
 * text that a limit cut, or that the file's budget made "<invalid>", is
 * not kept, so that it is counted at each use as before.
 * @return : 0, or -1 if out of memory.
 */
int
mmprof_event_id_text(struct mmprof_reader *r, struct mmprof_event *ev)
{
	const struct idtext *t = ids_find(&r->ids, ev->event_id, r->ndense);
	struct mmprof_text runs[RUNS_MAX], parts[PARTS_MAX];
	struct mmprof_counts before;
	uint64_t hits = r->limit_hits;
	uint32_t refs;
	size_t total = 0;
	int nruns, np, rc;

	if (t != NULL) {
		ids_use(r, t, ev);
		return 0;
	}
	before = r->counts;
	if (r->labels_only && (rc = label_fresh(r, ev, &before)) != 0)
		return rc < 0 ? -1 : 0;
	if ((nruns = simple_runs(r, ev->event_id, runs, &refs)) >= 0) {
		for (np = 0; np < nruns; np++)
			total += runs[np].len;
		/* What mmprof_resolve_fresh() would have spent. */
		r->refs_budget -= refs;
		r->text_budget -= total;
	} else {
		mmprof_resolve_fresh(r, ev->event_id, &r->whole);
		if (r->whole.oom)
			return -1;
		runs[0].ptr = (const char *)r->whole.data;
		runs[0].len = total = r->whole.len;
		nruns = 1;
	}
	if ((np = cut_parts(r, runs, nruns, parts)) < 0)
		return -1;
	/* Labels only: the arguments are neither checked nor counted. */
	take_parts(r, parts, r->labels_only ? 1 : np, ev);
	if (label_index(r, &ev->label, &ev->label_index) != 0)
		return -1;
	if (r->limit_hits == hits && total <= IDS_TEXT_MAX &&
	    r->counts.budget_strings == before.budget_strings &&
	    r->counts.cut_strings == before.cut_strings)
		ids_add(r, ev, &before);
	return 0;
}

/*
 * Asks for the memory that the next events will read, while this one
 * is decoded: the id cache's slot of the third event from here, the
 * entry of the second and the key text of the next.  The event ids come
 * in no order, so without this each of the three was a cache miss an
 * event (a fifth of etlcat's time on a 195 MB profile).
 */
void
mmprof_prefetch(const struct mmprof_reader *r)
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
		if (k == 2) {
			PREFETCH(&c->dense[id]);
			PREFETCH(&r->dense[id]);
		} else if (c->dense[id] != 0 && k == 1)
			PREFETCH(&c->e[c->dense[id] - 1]);
		else if (c->dense[id] != 0)
			PREFETCH(c->e[c->dense[id] - 1].arg0.ptr);
		else if (k == 1 && r->dense[id] != 0 &&
		    r->dense[id] - 1 < r->slen)
			/* A new id: its string, else a miss per new id. */
			PREFETCH(r->sdata + r->dense[id] - 1);
	}
}
