/*
 * fuzz_lzxpress.c - MS-XCA decompression of any bytes into a buffer of
 * an ETW buffer's largest event area, and the round trip: what
 * lzxpress_compress() makes of the input decompresses to the input.
 * The output of the first has exactly the size asked for, so that the
 * sanitizer sees any whole-word copy that runs past its end.
 */
#include <string.h>

#include "etl/lzxpress.h"
#include "fuzz.h"

#define OUT_MAX	(1u << 20)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char out[OUT_MAX];
	size_t cap = lzxpress_bound(size), want, at;
	unsigned char *z;
	long n;

	/* The first two bytes say how much to ask for, as a fill size does. */
	want = size >= 2 ? ((size_t)data[0] | (size_t)data[1] << 8) << 4 : 0;
	if (want > OUT_MAX)
		want = OUT_MAX;
	if (size >= 2) {
		unsigned char *exact = malloc(want ? want : 1);

		if (exact == NULL)
			abort();
		n = lzxpress_decompress(data + 2, size - 2, exact, want, &at);
		if (n >= 0 ? (size_t)n != want : at > size - 2)
			fuzz_fail("decompress", "result out of range");
		free(exact);
	}
	if ((z = malloc(cap)) == NULL)
		abort();
	n = lzxpress_compress(data, size, z, cap);
	if (n < 0)
		fuzz_fail("compress", "lzxpress_bound() too small");
	if (size > 0 && size <= OUT_MAX &&
	    (lzxpress_decompress(z, (size_t)n, out, size, NULL) != (long)size ||
	    memcmp(out, data, size) != 0))
		fuzz_fail("round trip", "differs");
	free(z);
	return 0;
}
