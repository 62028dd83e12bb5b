/*
 * test_mmprof.c - rustc self-profiles: the reader (in_mmprof) on profiles
 * built here byte by byte in formats 8 and 9, the stream they become
 * (mmprof_decode), and what the query views and formats make of it,
 * checked against values worked out by hand from measureme-format.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "render/html_queries.h"
#include "mmprof/in_mmprof.h"
#include "mmprof/mmprof_decode.h"
#include "render/render.h"
#include "report/formats.h"
#include "views/view.h"
#include "harness.h"

#define CONCRETE	100000003ULL
#define METADATA	100000001ULL
#define INVALID		100000002ULL

/* ---- building profiles ---- */

struct pb {
	int version;
	struct buf data, index, events;
	size_t open;		/* start of the string being built */
};

static void
put_id(struct pb *b, struct buf *to, uint64_t id)
{
	if (b->version == 9)
		buf_put_u64(to, id);
	else
		buf_put_u32(to, (uint32_t)id);
}

static void
pb_init(struct pb *b, int version)
{
	memset(b, 0, sizeof(*b));
	b->version = version;
	buf_put(&b->data, "MMSD", 4);
	buf_put_u32(&b->data, (uint32_t)version);
	buf_put(&b->index, "MMSI", 4);
	buf_put_u32(&b->index, (uint32_t)version);
	buf_put(&b->events, "MMES", 4);
	buf_put_u32(&b->events, (uint32_t)version);
}

static void
pb_release(struct pb *b)
{
	buf_release(&b->data);
	buf_release(&b->index);
	buf_release(&b->events);
}

/* A string of components: pb_begin, pb_lit / pb_ref, pb_end. */
static void
pb_begin(struct pb *b)
{
	b->open = b->data.len;
}

static void
pb_lit(struct pb *b, const char *s)
{
	buf_put(&b->data, s, strlen(s));
}

static void
pb_ref(struct pb *b, uint64_t id)
{
	buf_put_u8(&b->data, 0xfe);
	put_id(b, &b->data, id);
}

static uint64_t
pb_end(struct pb *b)
{
	buf_put_u8(&b->data, 0xff);
	return b->open + CONCRETE;
}

static uint64_t
pb_str(struct pb *b, const char *s)
{
	pb_begin(b);
	pb_lit(b, s);
	return pb_end(b);
}

/* Maps a virtual id to the string with concrete id `to`. */
static void
pb_index(struct pb *b, uint64_t virt, uint64_t to)
{
	put_id(b, &b->index, virt);
	put_id(b, &b->index, to - CONCRETE);
}

static void
pb_event(struct pb *b, uint64_t kind, uint64_t id, uint32_t tid, uint64_t v1,
    uint64_t v2)
{
	put_id(b, &b->events, kind);
	put_id(b, &b->events, id);
	buf_put_u32(&b->events, tid);
	buf_put_u32(&b->events, (uint32_t)v1);
	buf_put_u32(&b->events, (uint32_t)v2);
	buf_put_u32(&b->events, (uint32_t)((v1 >> 32) << 16 | (v2 >> 32)));
}

static void
pb_interval(struct pb *b, uint64_t kind, uint64_t id, uint32_t tid,
    uint64_t start, uint64_t end)
{
	pb_event(b, kind, id, tid, start, end);
}

static void
pb_instant(struct pb *b, uint64_t kind, uint64_t id, uint32_t tid,
    uint64_t t)
{
	pb_event(b, kind, id, tid, t, 0xffffffffffffULL);
}

static void
pb_integer(struct pb *b, uint64_t kind, uint64_t id, uint32_t tid,
    uint64_t value)
{
	pb_event(b, kind, id, tid, value, 0xfffffffffffeULL);
}

/* The file: the streams cut into pages of `page` bytes, taken in turn. */
static unsigned char *
pb_file(struct pb *b, size_t page, size_t *len)
{
	struct buf *streams[3] = { &b->events, &b->data, &b->index };
	size_t at[3] = { 0, 0, 0 };
	struct buf out = { 0 };
	int left = 1, i;

	buf_put(&out, "MMPD", 4);
	buf_put_u32(&out, (uint32_t)b->version);
	while (left) {
		left = 0;
		for (i = 0; i < 3; i++) {
			size_t n = streams[i]->len - at[i];

			if (n == 0)
				continue;
			if (n > page)
				n = page;
			buf_put_u8(&out, (unsigned)i);
			buf_put_u32(&out, (uint32_t)n);
			buf_put(&out, streams[i]->data + at[i], n);
			at[i] += n;
			left = 1;
		}
	}
	*len = out.len;
	return out.data;
}

/* The kinds and a metadata string, as rustc writes them first. */
struct kinds {
	uint64_t query, generic, hashing, load, blocked, hit, hit_count;
	uint64_t artifact;
};

static void
pb_start(struct pb *b, struct kinds *k, const char *json)
{
	pb_index(b, METADATA, pb_str(b, json));
	k->query = pb_str(b, "Query");
	k->generic = pb_str(b, "GenericActivity");
	k->load = pb_str(b, "IncrementalLoadResult");
	k->hashing = pb_str(b, "IncrementalResultHashing");
	k->blocked = pb_str(b, "QueryBlocked");
	k->hit = pb_str(b, "QueryCacheHit");
	k->artifact = pb_str(b, "ArtifactSize");
	k->hit_count = pb_str(b, "QueryCacheHitCount");
}

static const char demo_json[] = "{ \"start_time\": 1795245443326890017, "
    "\"process_id\": 4242, \"cmd\": \"rustc --crate-name demo x.rs \", "
    "\"counter\": { \"name\": \"wall-time\", \"units\": [[\"ns\", 1]] } }";

/* ---- the reader ---- */

static struct mmprof_reader *
open_profile(const unsigned char *data, size_t len)
{
	struct mmprof_reader *r = mmprof_reader_new();

	if (r != NULL && mmprof_reader_open_mem(r, data, len) !=
	    MMPROF_OK) {
		printf("  open: %s\n", mmprof_reader_error(r));
		mmprof_reader_free(r);
		return NULL;
	}
	return r;
}

static int
text_is(struct mmprof_text t, const char *s)
{
	return t.len == strlen(s) && memcmp(t.ptr, s, t.len) == 0;
}

/* Reads the next event, skipping nothing: a WARN fails the check. */
static int
next_ok(struct mmprof_reader *r, struct mmprof_event *ev)
{
	enum mmprof_status st = mmprof_reader_next(r, ev);

	if (st == MMPROF_WARN)
		printf("  warning: %s\n", mmprof_reader_error(r));
	return st == MMPROF_OK;
}

static void
check_events(int version, size_t page)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *r;
	struct mmprof_event ev;
	const struct mmprof_metadata *m;
	unsigned char *file;
	uint64_t typeck, key, id;
	size_t len;

	pb_init(&b, version);
	pb_start(&b, &k, demo_json);
	typeck = pb_str(&b, "typeck");
	key = pb_str(&b, "main");
	pb_begin(&b);
	pb_ref(&b, typeck);
	pb_lit(&b, "\x1e");
	pb_ref(&b, key);
	id = pb_end(&b);
	pb_index(&b, 7, id);
	pb_interval(&b, k.generic, pb_str(&b, "parse_crate"), 3, 100, 200);
	pb_interval(&b, k.query, 7, 3, 300, 0x123456789abcULL);
	pb_instant(&b, k.hit, 7, 4, 0xfedcba987654ULL);
	pb_integer(&b, k.hit_count, 7, 3, 5);
	pb_interval(&b, k.query, 99, 3, 1, 2);
	pb_interval(&b, k.query, INVALID, 3, 1, 2);
	file = pb_file(&b, page, &len);
	REQUIRE((r = open_profile(file, len)) != NULL);
	CHECK_EQ_INT(mmprof_reader_version(r), version);
	m = mmprof_reader_metadata(r);
	CHECK(m->has_start_time && m->start_time == 1795245443326890017ULL);
	CHECK(m->has_process_id && m->process_id == 4242);
	CHECK_EQ_STR(m->cmd, "rustc --crate-name demo x.rs ");
	CHECK_EQ_STR(m->counter, "wall-time");
	CHECK(!m->json_invalid);
	REQUIRE(next_ok(r, &ev));
	CHECK(ev.type == MMPROF_INTERVAL && ev.start == 100 && ev.end == 200);
	CHECK(text_is(ev.kind, "GenericActivity"));
	CHECK(text_is(ev.label, "parse_crate") && ev.nargs == 0);
	CHECK_EQ_INT(ev.thread_id, 3);
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.kind, "Query") && text_is(ev.label, "typeck"));
	CHECK(ev.nargs == 1 && text_is(ev.args[0], "main"));
	CHECK(ev.start == 300 && ev.end == 0x123456789abcULL);
	REQUIRE(next_ok(r, &ev));
	CHECK(ev.type == MMPROF_INSTANT && ev.start == 0xfedcba987654ULL);
	CHECK(text_is(ev.kind, "QueryCacheHit") && ev.thread_id == 4);
	REQUIRE(next_ok(r, &ev));
	CHECK(ev.type == MMPROF_INTEGER && ev.value == 5);
	CHECK(text_is(ev.label, "typeck"));
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "<unknown>"));
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "<unknown>"));
	CHECK(mmprof_reader_next(r, &ev) == MMPROF_EOF);
	CHECK_EQ_INT(mmprof_reader_counts(r)->events, 6);
	CHECK_EQ_INT(mmprof_reader_counts(r)->unknown_ids, 2);
	mmprof_reader_free(r);
	free(file);
	pb_release(&b);
}

static void
test_v9(void)
{
	check_events(9, 1 << 18);
}

static void
test_v8(void)
{
	check_events(8, 1 << 18);
}

/* Records and strings split across small pages read the same. */
static void
test_small_pages(void)
{
	check_events(9, 7);
	check_events(8, 5);
	check_events(9, 1);
}

static void
test_probe(void)
{
	static const unsigned char v7[] = "MMPD\x07\0\0\0";
	struct mmprof_reader *r = mmprof_reader_new();

	CHECK(mmprof_probe((const unsigned char *)"MMPD\x09\0\0\0", 8));
	CHECK(!mmprof_probe((const unsigned char *)"MMPD", 4));
	CHECK(!mmprof_probe((const unsigned char *)"MMPX\x09\0\0\0", 8));
	REQUIRE(r != NULL);
	CHECK(mmprof_reader_open_mem(r, v7, 8) == MMPROF_FATAL);
	CHECK(strstr(mmprof_reader_error(r), "version 7") != NULL);
	mmprof_reader_free(r);
}

/* Index ids mapped twice take the last mapping (measureme-format.md 4.3). */
static void
test_index_last_wins(void)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *r;
	struct mmprof_event ev;
	unsigned char *file;
	size_t len;

	pb_init(&b, 9);
	pb_start(&b, &k, demo_json);
	pb_index(&b, 12485, pb_str(&b, "first"));
	pb_index(&b, 12485, pb_str(&b, "second"));
	pb_interval(&b, k.query, 12485, 3, 1, 2);
	file = pb_file(&b, 64, &len);
	REQUIRE((r = open_profile(file, len)) != NULL);
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "second"));
	mmprof_reader_free(r);
	free(file);
	pb_release(&b);
}

static void
test_bad_strings(void)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *r;
	struct mmprof_event ev;
	unsigned char *file;
	uint64_t loop, ctl, args, utf8, del;
	size_t len;

	pb_init(&b, 9);
	pb_start(&b, &k, demo_json);
	/* A string made of a reference to itself. */
	pb_begin(&b);
	pb_ref(&b, b.data.len + CONCRETE);
	loop = pb_end(&b);
	ctl = pb_str(&b, "bad\tlabel");
	args = pb_str(&b, "lbl\x1e" "a1\x1e\x1e" "a3");
	/* Bytes of 0x80 and above are text; 0x7f is a control byte. */
	utf8 = pb_str(&b, "\xc3\xa9t\xc3\xa9\xc3\xa9t\xc3\xa9\xc3\xa9\x1e"
	    "caf\xc3\xa9 au lait, deux");
	del = pb_str(&b, "ok\x1e" "twelve bytes\x7f and more");
	pb_interval(&b, k.generic, loop, 3, 1, 2);
	pb_interval(&b, k.generic, ctl, 3, 1, 2);
	pb_interval(&b, k.generic, args, 3, 1, 2);
	pb_interval(&b, k.generic, args, 3, 9, 8);
	pb_interval(&b, k.generic, utf8, 3, 1, 2);
	pb_interval(&b, k.generic, del, 3, 1, 2);
	pb_interval(&b, k.generic, b.data.len + CONCRETE, 3, 1, 2);
	/* The last string has no terminator. */
	pb_lit(&b, "unterminated");
	file = pb_file(&b, 1 << 16, &len);
	REQUIRE((r = open_profile(file, len)) != NULL);
	REQUIRE(next_ok(r, &ev));
	CHECK(strstr(ev.label.ptr, "<invalid>") != NULL);
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "<parse error>") && ev.nargs == 0);
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "lbl") && ev.nargs == 1);
	CHECK(text_is(ev.args[0], "a1"));
	/* The backward interval is skipped and counted. */
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "\xc3\xa9t\xc3\xa9\xc3\xa9t\xc3\xa9\xc3\xa9"));
	CHECK(ev.nargs == 1 && text_is(ev.args[0], "caf\xc3\xa9 au lait, deux"));
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "ok") && ev.nargs == 0);
	REQUIRE(next_ok(r, &ev));
	CHECK(text_is(ev.label, "<invalid>"));
	CHECK(mmprof_reader_next(r, &ev) == MMPROF_EOF);
	CHECK_EQ_INT(mmprof_reader_counts(r)->backward_intervals, 1);
	CHECK_EQ_INT(mmprof_reader_counts(r)->bad_labels, 1);
	CHECK_EQ_INT(mmprof_reader_counts(r)->bad_args, 2);
	CHECK(mmprof_reader_counts(r)->invalid_strings >= 2);
	mmprof_reader_free(r);
	free(file);
	pb_release(&b);
}

/*
 * Ids used again come from the reader's id cache: each use gives the same
 * label and arguments and counts what the first counted, whether the id
 * was read in place (references to literals, a label made of two), was
 * resolved (a key with a nested reference, an unknown reference), or lies
 * past the ids numbered in an array.
 */
static void
test_id_cache(void)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *r;
	struct mmprof_event ev;
	unsigned char *file;
	uint64_t typeck, core, key, ty, peck, nested, split, unknown, far;
	uint64_t many;
	uint32_t label_index = 0;
	size_t len;
	int round, i;

	pb_init(&b, 9);
	pb_start(&b, &k, demo_json);
	typeck = pb_str(&b, "typeck");
	core = pb_str(&b, "core");
	pb_begin(&b);
	pb_ref(&b, core);
	pb_lit(&b, "::use");
	key = pb_end(&b);
	pb_begin(&b);
	pb_ref(&b, typeck);
	pb_lit(&b, "\x1e");
	pb_ref(&b, key);
	nested = pb_end(&b);
	ty = pb_str(&b, "ty");
	peck = pb_str(&b, "peck");
	pb_begin(&b);
	pb_ref(&b, ty);
	pb_ref(&b, peck);
	pb_lit(&b, "\x1e" "k1\x1e" "a\"b\\c");
	split = pb_end(&b);
	pb_begin(&b);
	pb_lit(&b, "lbl\x1e");
	pb_ref(&b, 77);		/* virtual, without an index entry */
	unknown = pb_end(&b);
	pb_index(&b, 99999999, pb_str(&b, "far\x1ex"));
	far = 99999999;
	pb_begin(&b);
	pb_lit(&b, "many");
	for (i = 0; i < 18; i++)
		pb_lit(&b, "\x1e" "a");
	many = pb_end(&b);
	pb_index(&b, 5, nested);
	for (round = 0; round < 2; round++) {
		pb_interval(&b, round ? k.hit : k.query, 5, 3, 1, 2);
		pb_interval(&b, k.generic, split, 3, 1, 2);
		pb_interval(&b, k.generic, unknown, 3, 1, 2);
		pb_interval(&b, k.generic, far, 3, 1, 2);
		pb_interval(&b, k.generic, many, 3, 1, 2);
	}
	file = pb_file(&b, 64, &len);
	REQUIRE((r = open_profile(file, len)) != NULL);
	for (round = 0; round < 2; round++) {
		REQUIRE(next_ok(r, &ev));
		CHECK(text_is(ev.label, "typeck") && ev.nargs == 1);
		CHECK(text_is(ev.args[0], "core::use"));
		CHECK(text_is(ev.kind, round ? "QueryCacheHit" : "Query"));
		CHECK(ev.label_index != 0 && ev.kind_index != 0);
		label_index = ev.label_index;
		REQUIRE(next_ok(r, &ev));
		CHECK(text_is(ev.label, "typeck") && ev.nargs == 2);
		CHECK(text_is(ev.args[0], "k1") && text_is(ev.args[1], "a\"b\\c"));
		/* The same text, made another way, is the same label. */
		CHECK_EQ_INT(ev.label_index, label_index);
		REQUIRE(next_ok(r, &ev));
		CHECK(text_is(ev.label, "lbl") && ev.nargs == 1);
		CHECK(text_is(ev.args[0], "<unknown>"));
		REQUIRE(next_ok(r, &ev));
		CHECK(text_is(ev.label, "far") && ev.nargs == 1);
		CHECK(text_is(ev.args[0], "x"));
		REQUIRE(next_ok(r, &ev));
		CHECK(text_is(ev.label, "many"));
		CHECK_EQ_INT(ev.nargs, MMPROF_ARGS_MAX);
		CHECK_EQ_INT(mmprof_reader_counts(r)->unknown_ids,
		    (uint64_t)round + 1);
		CHECK_EQ_INT(mmprof_reader_counts(r)->bad_args,
		    (uint64_t)round + 1);
	}
	CHECK(mmprof_reader_next(r, &ev) == MMPROF_EOF);
	mmprof_reader_free(r);
	free(file);
	pb_release(&b);
}

/*
 * A reader of labels only gives each event the label the whole reading
 * gives, and no arguments: read in place where the label lies in one
 * literal (after a reference, or the id's own), resolved whole where it
 * does not (two references, a literal that runs into one).  Problems in
 * the arguments, which it does not read, are not counted; those in the
 * label are.  Each id twice: the second comes from the id cache.
 */
static void
test_labels_only(void)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *whole, *labels;
	struct mmprof_event ev, lev;
	unsigned char *file;
	static const char *const expect[] = { "typeck", "typeck", "lbl",
	    "plain", "a", "abcd", "xy", "<parse error>", "ok",
	    "<parse error>", "<invalid>", "typeck", "<parse error>",
	    "<parse error>" };
	uint64_t typeck, key, ty, peck, ids[14], cd, x, ab, bad;
	size_t len, n = 0, i;
	int round;

	pb_init(&b, 9);
	pb_start(&b, &k, demo_json);
	typeck = pb_str(&b, "typeck");
	key = pb_str(&b, "core::mem");
	ty = pb_str(&b, "ty");
	peck = pb_str(&b, "peck");
	cd = pb_str(&b, "cd");
	x = pb_str(&b, "x");
	ab = pb_str(&b, "a\x1e" "b");
	bad = pb_str(&b, "bad\x01");
	pb_begin(&b);			/* rustc's label SEP key */
	pb_ref(&b, typeck);
	pb_lit(&b, "\x1e");
	pb_ref(&b, key);
	ids[n++] = pb_end(&b);
	pb_begin(&b);			/* a label of two references */
	pb_ref(&b, ty);
	pb_ref(&b, peck);
	pb_lit(&b, "\x1e" "k");
	ids[n++] = pb_end(&b);
	pb_begin(&b);			/* an unknown id in the key */
	pb_lit(&b, "lbl\x1e");
	pb_ref(&b, 77);
	ids[n++] = pb_end(&b);
	ids[n++] = pb_str(&b, "plain");
	pb_begin(&b);			/* the separator inside the reference */
	pb_ref(&b, ab);
	ids[n++] = pb_end(&b);
	pb_begin(&b);			/* a literal running into a reference */
	pb_lit(&b, "ab");
	pb_ref(&b, cd);
	pb_lit(&b, "\x1e" "k");
	ids[n++] = pb_end(&b);
	pb_begin(&b);			/* a reference running into a literal */
	pb_ref(&b, x);
	pb_lit(&b, "y\x1e" "z");
	ids[n++] = pb_end(&b);
	ids[n++] = pb_str(&b, "bad\tlabel");
	ids[n++] = pb_str(&b, "ok\x1e" "bad\x7f" "arg");
	ids[n++] = pb_str(&b, "");
	pb_begin(&b);			/* a reference to itself */
	pb_ref(&b, b.data.len + CONCRETE);
	ids[n++] = pb_end(&b);
	pb_begin(&b);			/* just a reference */
	pb_ref(&b, typeck);
	ids[n++] = pb_end(&b);
	/* A bad label, met again through the same string with a new key. */
	for (i = 0; i < 2; i++) {
		pb_begin(&b);
		pb_ref(&b, bad);
		pb_lit(&b, i ? "\x1e" "k2" : "\x1e" "k1");
		ids[n++] = pb_end(&b);
	}
	for (round = 0; round < 2; round++)
		for (i = 0; i < n; i++)
			pb_interval(&b, k.generic, ids[i], 3, 1, 2);
	file = pb_file(&b, 1 << 16, &len);
	REQUIRE((whole = open_profile(file, len)) != NULL);
	REQUIRE((labels = open_profile(file, len)) != NULL);
	mmprof_reader_labels_only(labels, 1);
	for (i = 0; i < 2 * n; i++) {
		REQUIRE(next_ok(whole, &ev));
		REQUIRE(next_ok(labels, &lev));
		CHECK(lev.label.len == ev.label.len &&
		    memcmp(lev.label.ptr, ev.label.ptr, ev.label.len) == 0);
		CHECK_EQ_INT(lev.label_index, ev.label_index);
		CHECK_EQ_INT(lev.nargs, 0);
		CHECK(text_is(lev.label, expect[i % n]));
	}
	CHECK(mmprof_reader_next(labels, &lev) == MMPROF_EOF);
	/* The whole reading's labels, to know what was compared. */
	CHECK_EQ_INT(mmprof_reader_counts(whole)->unknown_ids, 2);
	CHECK_EQ_INT(mmprof_reader_counts(whole)->bad_args, 2);
	CHECK_EQ_INT(mmprof_reader_counts(labels)->unknown_ids, 0);
	CHECK_EQ_INT(mmprof_reader_counts(labels)->bad_args, 0);
	CHECK_EQ_INT(mmprof_reader_counts(labels)->bad_labels,
	    mmprof_reader_counts(whole)->bad_labels);
	CHECK_EQ_INT(mmprof_reader_counts(labels)->bad_labels, 8);
	mmprof_reader_free(whole);
	mmprof_reader_free(labels);
	free(file);
	pb_release(&b);
}

/* rustc's escape_default makes the metadata invalid JSON; read it anyway. */
static void
test_metadata_lenient(void)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *r;
	const struct mmprof_metadata *m;
	unsigned char *file;
	size_t len;

	pb_init(&b, 9);
	pb_start(&b, &k, "{ \"start_time\": 12345, \"process_id\": 7, "
	    "\"cmd\": \"rustc -o caf\\u{e9}\\'s \\\"q\\\" \", \"counter\": "
	    "{ \"name\": \"instructions:u\" } }");
	file = pb_file(&b, 1 << 16, &len);
	REQUIRE((r = open_profile(file, len)) != NULL);
	m = mmprof_reader_metadata(r);
	CHECK_EQ_STR(m->cmd, "rustc -o caf\xc3\xa9's \"q\" ");
	CHECK_EQ_STR(m->counter, "instructions:u");
	CHECK(m->json_invalid);
	CHECK(m->start_time == 12345 && m->process_id == 7);
	mmprof_reader_free(r);
	free(file);
	pb_release(&b);
}

/* JSON escapes a character above U+FFFF as a surrogate pair. */
static void
test_metadata_surrogates(void)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *r;
	const struct mmprof_metadata *m;
	unsigned char *file;
	size_t len;

	pb_init(&b, 9);
	pb_start(&b, &k, "{ \"start_time\": 1, \"process_id\": 7, "
	    "\"cmd\": \"a\\ud83d\\ude00b \\ud800c\" }");
	file = pb_file(&b, 1 << 16, &len);
	REQUIRE((r = open_profile(file, len)) != NULL);
	m = mmprof_reader_metadata(r);
	/* U+1F600 as one 4-byte sequence; a lone surrogate as U+FFFD. */
	CHECK_EQ_STR(m->cmd, "a\xf0\x9f\x98\x80" "b \xef\xbf\xbd" "c");
	CHECK(!m->json_invalid);
	mmprof_reader_free(r);
	free(file);
	pb_release(&b);
}

/* Whether `cut` falls between two pages of the file. */
static int
page_boundary(const unsigned char *file, size_t len, size_t cut)
{
	size_t off = 8;

	while (off < cut && off + 5 <= len)
		off += 5 + le32(file + off + 1);
	return off == cut;
}

/*
 * Every cut of a profile opens or is refused, and reads without harm.  A
 * cut inside a page is always noticed; a cut between pages only when it
 * leaves events without their strings, since the file is otherwise what
 * a shorter run would have written.
 */
static void
test_truncated(void)
{
	struct pb b;
	struct kinds k;
	struct mmprof_reader *r;
	struct mmprof_event ev;
	enum mmprof_status st;
	unsigned char *file;
	size_t len, cut;
	int i;

	pb_init(&b, 9);
	pb_start(&b, &k, demo_json);
	for (i = 0; i < 40; i++)
		pb_interval(&b, k.generic, pb_str(&b, "activity"), 3,
		    (uint64_t)i * 10, (uint64_t)i * 10 + 5);
	file = pb_file(&b, 100, &len);
	for (cut = 0; cut < len; cut++) {
		int warned = 0, events = 0, rounds = 0;

		REQUIRE((r = mmprof_reader_new()) != NULL);
		if (mmprof_reader_open_mem(r, file, cut) != MMPROF_OK) {
			CHECK(cut < 8);
			mmprof_reader_free(r);
			continue;
		}
		while ((st = mmprof_reader_next(r, &ev)) != MMPROF_EOF &&
		    rounds++ < 1000) {
			warned += st == MMPROF_WARN;
			events += st == MMPROF_OK;
		}
		CHECK(st == MMPROF_EOF);
		CHECK(events <= 40);
		if (!page_boundary(file, len, cut))
			CHECK(warned > 0);
		mmprof_reader_free(r);
	}
	free(file);
	pb_release(&b);
}

/* ---- the stream and the views ---- */

/*
 * The worked example: thread 3 runs q1 [0,25] holding q2 [5,10], q3
 * [15,20] (holding q4 [17,19]) and the hashing of q1 [21,24] (holding
 * g [22,23]), then "late" [30,31]; thread 5 runs q5 [100,150] holding a
 * wait for q2 [110,120] and a load of q6 [130,140] (holding g [132,135]).
 * Hits: three q2 instants before a count of 10, two q3 instants and no
 * count, a count of 1 for q4 and an instant after it.
 */
static unsigned char *
example_profile(size_t *len)
{
	struct pb b;
	struct kinds k;
	uint64_t q1, q2, q3, q4, q5, q6, g, late;
	unsigned char *file;

	pb_init(&b, 9);
	pb_start(&b, &k, demo_json);
	q1 = pb_str(&b, "q1");
	q2 = pb_str(&b, "q2");
	q3 = pb_str(&b, "q3");
	q4 = pb_str(&b, "q4");
	q5 = pb_str(&b, "q5");
	q6 = pb_str(&b, "q6");
	g = pb_str(&b, "g");
	late = pb_str(&b, "late");
	pb_instant(&b, k.hit, q2, 3, 2);
	pb_instant(&b, k.hit, q2, 3, 3);
	pb_interval(&b, k.query, q2, 3, 5, 10);
	pb_instant(&b, k.hit, q2, 3, 12);
	pb_instant(&b, k.hit, q3, 3, 16);
	pb_interval(&b, k.query, q4, 3, 17, 19);
	pb_interval(&b, k.query, q3, 3, 15, 20);
	pb_interval(&b, k.generic, g, 3, 22, 23);
	pb_interval(&b, k.hashing, q1, 3, 21, 24);
	pb_interval(&b, k.query, q1, 3, 0, 25);
	pb_interval(&b, k.generic, late, 3, 30, 31);
	pb_interval(&b, k.blocked, q2, 5, 110, 120);
	pb_interval(&b, k.generic, g, 5, 132, 135);
	pb_interval(&b, k.load, q6, 5, 130, 140);
	pb_interval(&b, k.query, q5, 5, 100, 150);
	pb_instant(&b, k.hit, q3, 5, 151);
	pb_integer(&b, k.hit_count, q2, 3, 10);
	pb_integer(&b, k.hit_count, q4, 3, 1);
	pb_instant(&b, k.hit, q4, 3, 160);
	pb_integer(&b, k.artifact, pb_str(&b, "object_file"), 3, 1234);
	file = pb_file(&b, 96, len);
	pb_release(&b);
	return file;
}

static void
no_warn(const char *fmt, ...)
{
	printf("  unexpected warning: %s\n", fmt);
	harness_failed++;
}

/* The example as a stream, `copies` profiles in a row, in a tmpfile. */
static FILE *
example_stream(int copies)
{
	FILE *fp = tmpfile();
	struct stream_writer *w = fp ? stream_writer_new(fp, 1) : NULL;
	struct mapped_file m = { NULL, 0, NULL, 0 };
	unsigned char *file;
	int i;

	if (w == NULL)
		return NULL;
	file = example_profile(&m.len);
	m.data = file;
	for (i = 0; i < copies; i++)
		CHECK(mmprof_cat(w, "test", "demo-0004242.mm_profdata", &m, 0, 0,
		    no_warn) == 0);
	CHECK(stream_writer_close(w) == 0);
	free(file);
	rewind(fp);
	return fp;
}

/* Runs view `argv[0]` over the stream in `in`; its output in a tmpfile. */
static FILE *
run_view(int argc, char *argv[], FILE *in)
{
	const struct view_ops *ops = view_find(argv[0]);
	struct stream_reader *r = stream_reader_new(0);
	FILE *out = tmpfile();
	struct stream_writer *w = out ? stream_writer_new(out, 1) : NULL;
	struct stream_record rec;
	struct stream_end end = { 0 };
	struct view *v;
	int used;

	if (ops == NULL || r == NULL || w == NULL ||
	    (v = ops->create(argc, argv, &used, NULL)) == NULL)
		return NULL;
	stream_reader_open_file(r, in, "in");
	CHECK(stream_write_header(w, "test") == 0);
	while (stream_reader_next(r, &rec) == STREAM_OK)
		CHECK(ops->record(v, r, &rec) == 0);
	CHECK(ops->finish(v, w) == 0);
	CHECK(stream_write_end(w, &end) == 0);
	CHECK(stream_writer_close(w) == 0);
	ops->destroy(v);
	stream_reader_free(r);
	rewind(out);
	return out;
}

/* The integer cells of row `item` of table `table`, in column order. */
static int
find_row(FILE *fp, const char *table, const char *item, int64_t *cells,
    size_t n)
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	stream_id id = 0;
	int found = 0;
	size_t i;

	rewind(fp);
	stream_reader_open_file(r, fp, "out");
	while (!found && stream_reader_next(r, &rec) == STREAM_OK) {
		const struct stream_row *row = &rec.u.row;

		if (rec.type == REC_TABLE)
			id = strcmp(rec.u.table.name, table) == 0 ?
			    rec.u.table.id : 0;
		if (rec.type != REC_ROW || row->table != id || id == 0)
			continue;
		if (item != NULL && (row->cells[0].type != VAL_STR ||
		    row->cells[0].v.s.len != strlen(item) ||
		    memcmp(row->cells[0].v.s.ptr, item, strlen(item)) != 0))
			continue;
		for (i = 0; i < n && i < row->ncells; i++)
			cells[i] = row->cells[i].type == VAL_U64 ?
			    (int64_t)row->cells[i].v.u : row->cells[i].v.i;
		found = 1;
	}
	stream_reader_free(r);
	return found;
}

/* self, total, count, hits, blocked, load, hashing of one queries row. */
static void
check_query(FILE *fp, const char *item, int64_t self, int64_t total,
    int64_t count, int64_t hits, int64_t blocked, int64_t load,
    int64_t hashing)
{
	int64_t c[9] = { 0 };

	if (!find_row(fp, "queries", item, c, 9)) {
		printf("  no row %s\n", item);
		harness_failed++;
		return;
	}
	if (c[1] != self || c[3] != total || c[4] != count || c[5] != hits ||
	    c[6] != blocked || c[7] != load || c[8] != hashing) {
		printf("  %s: %lld %lld %lld %lld %lld %lld %lld\n", item,
		    (long long)c[1], (long long)c[3], (long long)c[4],
		    (long long)c[5], (long long)c[6], (long long)c[7],
		    (long long)c[8]);
		harness_failed++;
	}
}

static void
test_queries_view(void)
{
	char *argv[] = { "queries", NULL };
	FILE *in = example_stream(1), *out;
	int64_t c[3];

	REQUIRE(in != NULL);
	REQUIRE((out = run_view(1, argv, in)) != NULL);
	check_query(out, "q1", 14, 25, 1, 0, 0, 0, 2);
	check_query(out, "q2", 15, 15, 1, 10, 10, 0, 0);
	check_query(out, "q3", 3, 5, 1, 2, 0, 0, 0);
	check_query(out, "q4", 2, 2, 1, 2, 0, 0, 0);
	check_query(out, "q5", 30, 50, 1, 0, 0, 0, 0);
	check_query(out, "q6", 7, 10, 0, 0, 0, 7, 0);
	check_query(out, "g", 4, 4, 2, 0, 0, 0, 0);
	check_query(out, "late", 1, 1, 1, 0, 0, 0, 0);
	CHECK(!find_row(out, "queries", "object_file", c, 1));
	CHECK(find_row(out, "queries_total", NULL, c, 3));
	CHECK(c[0] == 1 && c[1] == 2 && c[2] == 31 + 50);
	CHECK(find_row(out, "queries_artifacts", "object_file", c, 2));
	CHECK_EQ_INT(c[1], 1234);
	fclose(out);
	fclose(in);
}

/* Two profiles add up; tables merged back give what the events give. */
static void
test_queries_merge(void)
{
	char *argv[] = { "queries", NULL }, *margv[] = { "queries", "--merge",
	    NULL };
	FILE *in = example_stream(2), *out, *twice;
	int64_t c[3];

	REQUIRE(in != NULL);
	REQUIRE((out = run_view(1, argv, in)) != NULL);
	check_query(out, "q2", 30, 30, 2, 20, 20, 0, 0);
	CHECK(find_row(out, "queries_total", NULL, c, 3));
	CHECK(c[0] == 2 && c[1] == 4 && c[2] == 2 * 81);
	rewind(out);
	REQUIRE((twice = run_view(2, margv, out)) != NULL);
	check_query(twice, "q2", 30, 30, 2, 20, 20, 0, 0);
	check_query(twice, "q6", 14, 20, 0, 0, 0, 14, 0);
	CHECK(find_row(twice, "queries_total", NULL, c, 3));
	CHECK(c[0] == 2 && c[1] == 4 && c[2] == 2 * 81);
	fclose(twice);
	fclose(out);
	fclose(in);
}

/* The stacks of the example, by hand (measureme-format.md 10). */
static void
test_querystacks_view(void)
{
	static const struct {
		const char *stack;
		int64_t ns;
	} want[] = {
		{ "rustc", 5 }, { "rustc;late", 1 }, { "rustc;q1", 12 },
		{ "rustc;q1;q1", 2 }, { "rustc;q1;q1;g", 1 },
		{ "rustc;q1;q2", 5 }, { "rustc;q1;q3", 3 },
		{ "rustc;q1;q3;q4", 2 }, { "rustc;q5", 30 },
		{ "rustc;q5;q2", 10 }, { "rustc;q5;q6", 7 },
		{ "rustc;q5;q6;g", 3 },
	};
	char *argv[] = { "querystacks", NULL };
	FILE *in = example_stream(1), *out;
	int64_t c[2];
	size_t i;

	REQUIRE(in != NULL);
	REQUIRE((out = run_view(1, argv, in)) != NULL);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		c[1] = -1;
		CHECK(find_row(out, "querystacks", want[i].stack, c, 2));
		if (c[1] != want[i].ns)
			printf("  %s: %lld, want %lld\n", want[i].stack,
			    (long long)c[1], (long long)want[i].ns);
		CHECK(c[1] == want[i].ns);
	}
	fclose(out);
	fclose(in);
}

/* Runs format `name` over the stream in `in`; its text in a buffer. */
static char *
run_format(const char *name, const struct render_options *opt, FILE *in)
{
	const struct render_format *f = render_find(name);
	struct stream_reader *r = stream_reader_new(0);
	FILE *out = tmpfile();
	struct stream_record rec;
	struct render *rd;
	static char text[1 << 16];
	size_t n;

	if (f == NULL || r == NULL || out == NULL ||
	    (rd = f->ops->open(out, name, opt)) == NULL)
		return NULL;
	stream_reader_open_file(r, in, "in");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		CHECK(f->ops->record(rd, r, &rec) == 0);
	CHECK(f->ops->close(rd) == 0);
	stream_reader_free(r);
	rewind(out);
	n = fread(text, 1, sizeof(text) - 1, out);
	text[n] = '\0';
	fclose(out);
	return text;
}

static void
test_counts(void)
{
	struct render_options opt = { 0 };
	FILE *in = example_stream(1);
	const char *text;

	REQUIRE(in != NULL);
	REQUIRE((text = run_format("counts", &opt, in)) != NULL);
	CHECK_EQ_STR(text, "q5,1,0.000\nq1,1,0.000\nq6,1,0.000\n"
	    "q2,11,0.000\nq3,3,0.000\nq4,3,0.000\n");
	fclose(in);
}

static int
count_of(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)) != NULL; text++)
		n++;
	return n;
}

static void
test_chrome(void)
{
	struct render_options opt = { 0 };
	FILE *in = example_stream(1);
	const char *text;

	REQUIRE(in != NULL);
	REQUIRE((text = run_format("chrome", &opt, in)) != NULL);
	CHECK_EQ_INT(count_of(text, "\"ph\":\"X\""), 11);
	/* q1 starts at start_time, 1795245443326890017 ns: floor in us. */
	CHECK(strstr(text, "{\"name\":\"q1\",\"cat\":\"Query\",\"ph\":\"X\","
	    "\"ts\":1795245443326890,\"dur\":0,\"pid\":4242,\"tid\":3,"
	    "\"args\":null}") != NULL);
	CHECK(strstr(text, "{\"args\":{\"name\":\"demo\"},\"cat\":\"\","
	    "\"name\":\"process_name\"") != NULL);
	CHECK(strstr(text, "\"sort_index\":1795245443326890}") != NULL);
	CHECK(text[0] == '[' && strstr(text, "\n]\n") != NULL);
	fclose(in);
}

/* Quotes and backslashes in a label or key are escaped as serde_json does. */
static void
test_chrome_escapes(void)
{
	struct render_options opt = { 0 };
	struct mapped_file m = { NULL, 0, NULL, 0 };
	FILE *fp = tmpfile();
	struct stream_writer *w = fp ? stream_writer_new(fp, 1) : NULL;
	struct kinds k;
	struct pb b;
	const char *text;

	REQUIRE(w != NULL);
	pb_init(&b, 9);
	pb_start(&b, &k, demo_json);
	pb_interval(&b, k.query, pb_str(&b, "q\"1\x1e" "a\\\"b"), 3, 1000,
	    3000);
	m.data = pb_file(&b, 1 << 16, &m.len);
	CHECK(mmprof_cat(w, "test", "demo-0004242.mm_profdata", &m, 0, 0,
	    no_warn) == 0);
	CHECK(stream_writer_close(w) == 0);
	rewind(fp);
	REQUIRE((text = run_format("chrome", &opt, fp)) != NULL);
	CHECK(strstr(text, "{\"name\":\"q\\\"1\",\"cat\":\"Query\",\"ph\":\"X\","
	    "\"ts\":1795245443326891,\"dur\":2,\"pid\":4242,\"tid\":3,"
	    "\"args\":{\"arg0\":\"a\\\\\\\"b\"}}") != NULL);
	free((void *)m.data);
	fclose(fp);
	pb_release(&b);
}

/* The query page for the stream in `in`, through html_queries.h. */
static char *
html_page(const struct render_options *opt, FILE *in)
{
	struct stream_reader *r = stream_reader_new(0);
	struct html_queries *h = html_queries_new(opt);
	FILE *out = tmpfile();
	struct stream_record rec;
	static char text[1 << 16];
	size_t n = 0;

	if (r == NULL || h == NULL || out == NULL)
		return NULL;
	CHECK(html_queries_empty(h));
	rewind(in);
	stream_reader_open_file(r, in, "in");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		CHECK(html_queries_record(h, r, &rec) == 0);
	CHECK(!html_queries_empty(h));
	CHECK(html_queries_write(h, out) == 0);
	rewind(out);
	n = fread(text, 1, sizeof(text) - 1, out);
	text[n] = '\0';
	html_queries_free(h);
	stream_reader_free(r);
	fclose(out);
	return text;
}

/* The legacy page: boxes, dots, the important rule, the thresholds. */
static void
test_html(void)
{
	struct render_options opt = { 0 };
	FILE *in = example_stream(1);
	const char *text;

	REQUIRE(in != NULL);
	/*
	 * By default boxes under 1% of the time are folded away, as the old
	 * page's heuristics would have it: q1 (32.9%) says so in its
	 * tooltip.  The page stands alone and shows its title.
	 */
	REQUIRE((text = html_page(&opt, in)) != NULL);
	CHECK_EQ_INT(count_of(text, "<div class=\"trace "), 11);
	CHECK(strstr(text, "6 of 17 boxes are not shown; boxes under 1% of "
	    "the time left out") != NULL);
	CHECK(strstr(text, "frac-30\" title=\"q1: 0.000000 s, 32.89%; 3 of "
	    "its 6 boxes folded away\">") != NULL);
	CHECK(strstr(text, "<h1>rustc query trace</h1>") != NULL);
	CHECK(strstr(text, "<title>rustc query trace</title>") != NULL);
	CHECK(strstr(text, "href=") == NULL && strstr(text, "src=") == NULL);
	/* All of them when asked: --min-percent 0. */
	opt.min_percent_given = 1;
	REQUIRE((text = html_page(&opt, in)) != NULL);
	/* 11 intervals and 6 hits, every box closed. */
	CHECK_EQ_INT(count_of(text, "<div class=\"trace "), 17);
	CHECK_EQ_INT(count_of(text, "<div"), count_of(text, "</div>"));
	/* q5 takes 50 of the roots' 76 ns: over half, the largest box. */
	CHECK(strstr(text, "<div class=\"trace depth-0 extent-2 important "
	    "q5 miss  frac-50\" title=\"q5: 0.000000 s, 65.79%\">"
	    "\n<div class=\"eff\">q5</div>\n"
	    "<div class=\"dur\">0.000</div>\n<div class=\"frc\">65.8%</div>")
	    != NULL);
	CHECK(strstr(text, "class=\"trace depth-1 extent-0 q2 hit  frac-0\"")
	    != NULL);
	CHECK(strstr(text, "depth-2 extent-0 important time-begin  frac-01")
	    != NULL);
	CHECK(strstr(text, "IncrementalLoadResult  frac-10") != NULL);
	CHECK(strstr(text, "QueryBlocked  frac-10") != NULL);
	CHECK(strstr(text, "<div class=\"frc\">&lt; 0.1%</div>") != NULL);
	CHECK(strstr(text, "<div class=\"caption\">process 4242 (demo), "
	    "thread 5: 0.000 s in 2 top-level events</div>") != NULL);
	/* Only the roots, with a note of what is left out. */
	opt.max_depth = 1;
	REQUIRE((text = html_page(&opt, in)) != NULL);
	CHECK_EQ_INT(count_of(text, "<div class=\"trace "), 5);
	CHECK(strstr(text, "12 of 17 boxes are not shown") != NULL);
	/* Only what takes 10% of the time or more: q1, q5, q6, the wait. */
	opt.max_depth = 0;
	opt.min_percent = 10;
	REQUIRE((text = html_page(&opt, in)) != NULL);
	CHECK_EQ_INT(count_of(text, "<div class=\"trace "), 4);
	CHECK(strstr(text, "under 10% of the time left out") != NULL);
	fclose(in);
}

/*
 * A thread's first interval adopts from a thread with nothing pending,
 * whose array is not yet made: no children, and no offset added to its
 * NULL (clang's UBSan in make check-asan aborted on every profile).
 */
static void
test_nest_adopt_empty(void)
{
	struct query_nest nest = { 0 };
	const struct query_pending *kids = (const void *)&nest;
	struct query_thread *t = query_nest_thread(&nest, 7, 1);

	REQUIRE(t != NULL);
	CHECK_EQ_INT(query_nest_adopt(t, 0, &kids), 0);
	CHECK(kids == NULL);
	CHECK_EQ_INT(query_nest_push(t, 5, 10, 1, 1), 0);
	CHECK_EQ_INT(query_nest_adopt(t, 0, &kids), 1);
	CHECK(kids != NULL && kids[0].node == 1);
	CHECK_EQ_INT(query_nest_adopt(t, 0, &kids), 0);
	query_nest_release(&nest);
}

int
main(void)
{
	RUN(test_v9);
	RUN(test_v8);
	RUN(test_small_pages);
	RUN(test_probe);
	RUN(test_index_last_wins);
	RUN(test_bad_strings);
	RUN(test_id_cache);
	RUN(test_labels_only);
	RUN(test_metadata_lenient);
	RUN(test_metadata_surrogates);
	RUN(test_truncated);
	RUN(test_queries_view);
	RUN(test_queries_merge);
	RUN(test_querystacks_view);
	RUN(test_counts);
	RUN(test_chrome);
	RUN(test_chrome_escapes);
	RUN(test_html);
	RUN(test_nest_adopt_empty);
	HARNESS_EXIT();
}
