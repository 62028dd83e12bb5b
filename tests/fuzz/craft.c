/*
 * craft.c - writes the hostile inputs of craft.h as files into a
 * directory, for tests/cli/limits.sh and as fuzz seeds.
 *
 * Usage: craft sample.etl dir
 * (sample.etl gives the trace header the .etl inputs start with)
 */
#include <stdio.h>
#include <stdlib.h>

#include "craft.h"

static int status;

static void
save(const char *dir, const char *name, struct buf *b, int rc)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (rc != 0 || (f = fopen(path, "wb")) == NULL ||
	    fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
		fprintf(stderr, "craft: %s: cannot make it\n", path);
		status = 1;
	}
	b->len = 0;
}

int
main(int argc, char *argv[])
{
	static const uint32_t order_ids[] = { 2 }, dup_ids[] = { 1, 2 };
	static const char *const texts[] = { "a", "a" };
	unsigned char hdr[CRAFT_HDR_LEN];
	struct buf b = { 0 };
	const char *dir;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: craft sample.etl dir\n");
		return 2;
	}
	dir = argv[2];
	if ((f = fopen(argv[1], "rb")) == NULL ||
	    fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr)) {
		fprintf(stderr, "craft: %s: cannot read its header\n", argv[1]);
		return 1;
	}
	fclose(f);
	save(dir, "truncated-fill.etl", &b,
	    craft_etl_truncated_fill(&b, hdr, 0x20));
	save(dir, "compressed-claims.etl", &b,
	    craft_etl_compressed_claims(&b, hdr, 16));
	save(dir, "big-event.etl", &b, craft_etl_big_event(&b, hdr));
	save(dir, "short-header.etl", &b, craft_etl_short_header(&b, hdr));
	save(dir, "big-id.st", &b, craft_stream_big_id(&b));
	save(dir, "many-defs.st", &b, craft_stream_many_defs(&b, 400000));
	save(dir, "stack-fanout.st", &b, craft_stream_stack_fanout(&b));
	save(dir, "string-order.st", &b,
	    craft_stream_strings(&b, order_ids, texts, 1));
	save(dir, "string-repeat.st", &b,
	    craft_stream_strings(&b, dup_ids, texts, 2));
	save(dir, "empty-kind.mm_profdata", &b, craft_mmprof_empty_kind(&b));
	save(dir, "small.mm_profdata", &b, craft_mmprof_small(&b));
	save(dir, "bad-keys.mm_profdata", &b, craft_mmprof_bad_keys(&b));
	save(dir, "deep-refs.mm_profdata", &b,
	    craft_mmprof_deep_refs(&b, 2000));
	save(dir, "wide-refs.mm_profdata", &b,
	    craft_mmprof_wide_refs(&b, 2000));
	buf_release(&b);
	return status;
}
