/*
 * fuzz_heapsnap.c - libFuzzer target for the heap snapshot stream parser
 * (lib/etw_heapsnap.c, etl-events-2.md 1.4): any bytes must parse or stop
 * with a message, within memory bounded by their length.
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilib \
 *	    tests/fuzz/fuzz_heapsnap.c build/libetl.a -lzstd -lpcre2-8 \
 *	    -lcsv -lm -o fuzz_heapsnap
 *
 * Built with -DFUZZ_REPLAY instead of libFuzzer, it runs the files named
 * on its command line through the target once each.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "etw_heapsnap.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct totals t = { 0, 0 };
	struct heapsnap_ops ops = { &t, on_stack, on_heap, on_alloc };
	struct heapsnap_result res;
	int rc = heapsnap_parse(data, size, &ops, &res);

	if (rc == 1 && res.problem[0] == '\0')
		abort();	/* a stop must say why */
	if (rc == 0 && !res.complete)
		abort();
	return 0;
}

#ifdef FUZZ_REPLAY
int
main(int argc, char *argv[])
{
	static unsigned char buf[1 << 22];
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (f == NULL) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	return 0;
}
#endif
