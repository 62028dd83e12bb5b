/*
 * test_heapsnap.c - the heap snapshot stream parser (etw_heapsnap.h) on
 * streams built here, whole and damaged (cut, a stack id not in the
 * database, counts larger than the data), and the committed-range map
 * (vmem_map.h) against a page array.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etw/etw_heapsnap.h"
#include "model/vmem_map.h"
#include "harness.h"

struct sb {
	unsigned char b[4096];
	size_t len;
};

static void
put(struct sb *s, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		s->b[s->len++] = (unsigned char)(v >> (8 * i));
}

/*
 * A v2 x64 stream: 2 segments, 1 stack of 10 frames (0x1000..0x1009),
 * one heap with blocks of 100 (stack), 200 (no stack) and, when
 * `unknown`, 300 (stack 0xdead, not in the database).
 */
static void
build(struct sb *s, int unknown)
{
	int i;

	s->len = 0;
	put(s, 2, 4);
	put(s, 1, 4);
	put(s, 2, 2);
	put(s, 8, 2);
	put(s, (uint64_t)8 << 56 | 1, 8);
	put(s, 0x5000, 8);
	for (i = 0; i < 8; i++)
		put(s, 0x1000 + (uint64_t)i, 8);
	put(s, (uint64_t)2 << 56 | 1, 8);
	put(s, 0x5040, 8);
	put(s, 0x1008, 8);
	put(s, 0x1009, 8);
	put(s, (uint64_t)10 << 56, 8);
	put(s, 0x7000, 8);
	put(s, 0x5000, 8);
	put(s, 0x5040, 8);
	put(s, 2, 2);
	put(s, 8, 2);
	put(s, 0, 4);
	put(s, 0x20000, 8);
	put(s, 4096, 8);
	put(s, 65536, 8);
	put(s, 0x20100, 8);
	put(s, 0x7000, 8);
	put(s, 100, 8);
	put(s, 0x20200, 8);
	put(s, 0, 8);
	put(s, 200, 8);
	if (unknown) {
		put(s, 0x20300, 8);
		put(s, 0xdead, 8);
		put(s, 300, 8);
	}
	put(s, 0x1234cdef, 8);
	put(s, 0, 8);
	put(s, 0xffffffff, 8);
}

struct seen {
	uint32_t stacks, frames, heaps, allocs, unknown;
	uint64_t first, last, bytes;
};

static int
on_stack(void *ctx, uint64_t id, const uint64_t *f, uint32_t n)
{
	struct seen *s = ctx;

	s->stacks++;
	s->frames = n;
	s->first = n > 0 ? f[0] : 0;
	s->last = n > 0 ? f[n - 1] : 0;
	return 0;
}

static int
on_heap(void *ctx, uint64_t heap, uint64_t commit, uint64_t reserve)
{
	((struct seen *)ctx)->heaps++;
	return 0;
}

static int
on_alloc(void *ctx, uint64_t heap, uint64_t addr, uint64_t id, uint64_t size,
    int known)
{
	struct seen *s = ctx;

	s->allocs++;
	s->bytes += size;
	s->unknown += !known;
	return 0;
}

static int
parse(const struct sb *s, size_t len, struct seen *seen,
    struct heapsnap_result *res)
{
	struct heapsnap_ops ops = { seen, on_stack, on_heap, on_alloc };

	memset(seen, 0, sizeof(*seen));
	return heapsnap_parse(s->b, len, &ops, res);
}

static void
test_whole(void)
{
	struct sb s;
	struct seen seen;
	struct heapsnap_result res;

	build(&s, 0);
	CHECK_EQ_INT(parse(&s, s.len, &seen, &res), 0);
	CHECK(res.complete);
	CHECK_EQ_INT(seen.stacks, 1);
	CHECK_EQ_INT(seen.frames, 10);
	CHECK_EQ_INT(seen.first, 0x1000);
	CHECK_EQ_INT(seen.last, 0x1009);
	CHECK_EQ_INT(seen.heaps, 1);
	CHECK_EQ_INT(seen.allocs, 2);
	CHECK_EQ_INT(seen.bytes, 300);
	CHECK_EQ_STR(res.problem, "");
}

static void
test_unknown_stack(void)
{
	struct sb s;
	struct seen seen;
	struct heapsnap_result res;

	build(&s, 1);
	CHECK_EQ_INT(parse(&s, s.len, &seen, &res), 0);
	CHECK_EQ_INT(seen.allocs, 3);
	CHECK_EQ_INT(seen.unknown, 1);
	CHECK_EQ_INT(res.unknown_stacks, 1);
}

/* Every cut gives a message and what came before it, never a crash. */
static void
test_cut(void)
{
	struct sb s;
	struct seen seen;
	struct heapsnap_result res;
	size_t len;

	build(&s, 0);
	for (len = 0; len < s.len; len++) {
		int rc = parse(&s, len, &seen, &res);

		/* Right after the database the stream is whole, heap-less. */
		if (rc == 0) {
			CHECK(res.database_only);
			continue;
		}
		CHECK_EQ_INT(rc, 1);
		CHECK(res.problem[0] != '\0');
		CHECK(!res.complete);
	}
	/* Cut before the terminator: both blocks came through. */
	CHECK_EQ_INT(parse(&s, s.len - 24, &seen, &res), 1);
	CHECK_EQ_INT(seen.allocs, 2);
	CHECK(strstr(res.problem, "cut short") != NULL);
}

static void
test_counts_too_large(void)
{
	struct sb s;
	struct seen seen;
	struct heapsnap_result res;

	build(&s, 0);
	s.b[0] = 0xff;		/* 255 segments */
	s.b[1] = 0xff;
	CHECK_EQ_INT(parse(&s, s.len, &seen, &res), 1);
	CHECK(strstr(res.problem, "larger than the data") != NULL ||
	    strstr(res.problem, "more than 8") != NULL);
	build(&s, 0);
	s.b[4] = 0x40;		/* 64 stacks: the heap is read as stacks */
	CHECK_EQ_INT(parse(&s, s.len, &seen, &res), 1);
	CHECK(seen.stacks >= 1 && seen.stacks < 64);
	CHECK_EQ_INT(seen.heaps, 0);
	CHECK(strstr(res.problem, "stack") != NULL);
	build(&s, 0);
	s.b[8] = 7;		/* format version 7 */
	CHECK_EQ_INT(parse(&s, s.len, &seen, &res), 1);
	CHECK(strstr(res.problem, "unknown format") != NULL);
}

/* ---- vmem_map against pages ---- */

#define PAGES	64

struct pages {
	uint32_t owner[PAGES];		/* 0: free */
	int64_t by_key[8];
};

static void
page_commit(struct pages *p, int a, int b, uint32_t key)
{
	int i;

	for (i = a; i < b; i++) {
		if (p->owner[i] != 0)
			p->by_key[p->owner[i]]--;
		p->owner[i] = key;
		p->by_key[key]++;
	}
}

static void
page_free(struct pages *p, int a, int b)
{
	int i;

	for (i = a; i < b; i++)
		if (p->owner[i] != 0) {
			p->by_key[p->owner[i]]--;
			p->owner[i] = 0;
		}
}

static void
count(void *ctx, uint32_t key, uint64_t len, int64_t ns)
{
	((int64_t *)ctx)[key] += (int64_t)len;
}

static void
test_vmem_map_random(void)
{
	struct vmem_map m = { 0 };
	struct pages p;
	uint64_t seed = 12345, dummy;
	int64_t got[8];
	int i, k, a, b, key;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < 5000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		a = (int)(seed >> 33) % PAGES;
		b = a + 1 + (int)(seed >> 40) % (PAGES - a);
		key = 1 + (int)(seed >> 50) % 7;
		if ((seed >> 20) % 3 != 0) {
			page_commit(&p, a, b, (uint32_t)key);
			REQUIRE(vmem_map_commit(&m, (uint64_t)a * 4096,
			    (uint64_t)b * 4096, (uint32_t)key, i, NULL, NULL,
			    &dummy) == 0);
		} else {
			page_free(&p, a, b);
			REQUIRE(vmem_map_free(&m, (uint64_t)a * 4096,
			    (uint64_t)b * 4096, NULL, NULL, &dummy) == 0);
		}
		memset(got, 0, sizeof(got));
		vmem_map_each(&m, count, got);
		for (k = 1; k < 8; k++)
			if (got[k] != p.by_key[k] * 4096) {
				CHECK_EQ_INT(got[k], p.by_key[k] * 4096);
				vmem_map_release(&m);
				return;
			}
		for (k = 1; k < (int)m.n; k++)
			REQUIRE(m.r[k - 1].end <= m.r[k].start);
	}
	vmem_map_release(&m);
}

int
main(void)
{
	RUN(test_whole);
	RUN(test_unknown_stack);
	RUN(test_cut);
	RUN(test_counts_too_large);
	RUN(test_vmem_map_random);
	HARNESS_EXIT();
}
