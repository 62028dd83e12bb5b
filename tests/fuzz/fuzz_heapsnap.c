/*
 * fuzz_heapsnap.c - the heap snapshot stream parser (lib/etw/etw_heapsnap.c,
 * etl-events-2.md 1.4) on any bytes: it must parse them or stop saying
 * why, touching only what it read, within memory bounded by their
 * length.  The seeds (fuzz_heapsnap.seeds) are whole x64 v2 and x86 v1
 * streams.
 */
#include "etw/etw_heapsnap.h"
#include "fuzz.h"

struct totals {
	uint64_t frames, bytes;
};

static int
on_stack(void *ctx, uint64_t id, const uint64_t *frames, uint32_t n)
{
	struct totals *t = ctx;
	uint32_t i;

	/* Touch every frame: the parser must have filled them all. */
	for (i = 0; i < n; i++)
		t->frames += frames[i] & 1;
	return 0;
}

static int
on_heap(void *ctx, uint64_t heap, uint64_t commit, uint64_t reserve)
{
	return 0;
}

static int
on_alloc(void *ctx, uint64_t heap, uint64_t addr, uint64_t id, uint64_t size,
    int known)
{
	((struct totals *)ctx)->bytes += size;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct totals t = { 0, 0 };
	struct heapsnap_ops ops = { &t, on_stack, on_heap, on_alloc };
	struct heapsnap_result res;
	int rc = heapsnap_parse(data, size, &ops, &res);

	if (rc == 1 && res.problem[0] == '\0')
		fuzz_fail("a stop without a message", NULL);
	if (rc == 0 && !res.complete)
		fuzz_fail("parsed but not complete", NULL);
	if (rc == -1)
		fuzz_fail("a callback failed", "out of memory?");
	return 0;
}
