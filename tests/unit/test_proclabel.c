/*
 * test_proclabel.c - the names process instances go by in labels: a
 * rustc by its crate, another process by its image, the start added only
 * where two instances of the set would share a name, and never two
 * instances with one label.
 */
#include <stdint.h>
#include <string.h>

#include "model/proclabel.h"
#include "harness.h"

#define RUSTC	"rustc.exe"
#define CORE	"rustc --crate-name core --edition=2021 lib.rs"
#define STD	"rustc --crate-name=std lib.rs"

static uint32_t
add(struct proclabels *pl, uint32_t pid, int64_t start, const char *image,
    const char *cmd)
{
	return proclabels_add(pl, pid, start, image, image ? strlen(image) : 0,
	    cmd, cmd ? strlen(cmd) : 0);
}

static void
test_names(void)
{
	struct proclabels pl = { 0 };
	uint32_t core = add(&pl, 10280, 2832700, RUSTC, CORE);
	uint32_t std = add(&pl, 10288, 431473300, RUSTC, STD);
	uint32_t link = add(&pl, 10304, 193484000, "link.exe", "link /out:x");
	uint32_t none = add(&pl, 4, INT64_MIN, NULL, NULL);
	size_t len;

	REQUIRE(core != 0 && std != 0 && link != 0 && none != 0);
	CHECK_EQ_STR(proclabels_get(&pl, core, &len), "core (10280)");
	CHECK_EQ_INT(len, strlen("core (10280)"));
	CHECK_EQ_STR(proclabels_get(&pl, std, NULL), "std (10288)");
	CHECK_EQ_STR(proclabels_get(&pl, link, NULL), "link.exe (10304)");
	CHECK_EQ_STR(proclabels_get(&pl, none, NULL), "? (4)");
	CHECK_EQ_STR(proclabels_get(&pl, 99, NULL), "?");
	/* The same instance again: the same id, its first names kept. */
	CHECK_EQ_INT(add(&pl, 10280, 2832700, "other.exe", NULL), core);
	CHECK_EQ_STR(proclabels_get(&pl, core, NULL), "core (10280)");
	proclabels_release(&pl);
}

static void
test_reused(void)
{
	struct proclabels pl = { 0 };
	uint32_t a = add(&pl, 10256, 2712900, RUSTC, CORE);
	uint32_t b = add(&pl, 10256, 321346400, RUSTC, STD);
	uint32_t c, d;

	/* Another crate on the pid: the names differ, no start needed. */
	CHECK_EQ_STR(proclabels_get(&pl, a, NULL), "core (10256)");
	CHECK_EQ_STR(proclabels_get(&pl, b, NULL), "std (10256)");
	/* The same crate again on the pid: both get their starts. */
	c = add(&pl, 10256, 373480100, RUSTC, CORE);
	CHECK(c != a);
	CHECK_EQ_STR(proclabels_get(&pl, a, NULL), "core (10256 @0.002713s)");
	CHECK_EQ_STR(proclabels_get(&pl, c, NULL), "core (10256 @0.373480s)");
	CHECK_EQ_STR(proclabels_get(&pl, b, NULL), "std (10256)");
	/* A program without a crate, there before the trace and again. */
	d = add(&pl, 2100, INT64_MIN, "memtest.exe", "memtest");
	CHECK_EQ_STR(proclabels_get(&pl, d, NULL), "memtest.exe (2100)");
	add(&pl, 2100, 23012100, "memtest.exe", NULL);
	CHECK_EQ_STR(proclabels_get(&pl, d, NULL),
	    "memtest.exe (2100, before the trace)");
	/* A new set: alone again, no start. */
	proclabels_clear(&pl);
	a = add(&pl, 10256, 373480100, RUSTC, CORE);
	CHECK_EQ_STR(proclabels_get(&pl, a, NULL), "core (10256)");
	proclabels_release(&pl);
}

static void
test_long(void)
{
	struct proclabels pl = { 0 };
	char image[1000];
	const char *l;
	uint32_t a, b;
	size_t len;

	memset(image, 'x', sizeof(image) - 1);
	image[sizeof(image) - 1] = '\0';
	a = add(&pl, 1, 1000000, image, NULL);
	b = add(&pl, 1, 2000000, image, NULL);
	REQUIRE(a != 0 && b != 0);
	/* Cut in the name: the pid and start stay, and tell them apart. */
	l = proclabels_get(&pl, a, &len);
	CHECK(len < PROCLABEL_MAX);
	CHECK(strstr(l, "x (1 @0.001000s)") != NULL);
	CHECK(strstr(proclabels_get(&pl, b, NULL), "x (1 @0.002000s)") !=
	    NULL);
	proclabels_release(&pl);
}

static void
test_def(void)
{
	struct proclabels pl = { 0 };
	struct stream_process p = { .id = 3, .pid = 10280, .start_ns = 5,
	    .name = RUSTC, .cmdline = CORE };
	uint32_t a = proclabels_add_def(&pl, &p, 10280, 0, NULL);
	uint32_t b = proclabels_add_def(&pl, NULL, 7, 9, "cargo.exe");
	uint32_t c = proclabels_add_def(&pl, NULL, 8, 9, NULL);

	CHECK_EQ_STR(proclabels_get(&pl, a, NULL), "core (10280)");
	CHECK_EQ_STR(proclabels_get(&pl, b, NULL), "cargo.exe (7)");
	CHECK_EQ_STR(proclabels_get(&pl, c, NULL), "? (8)");
	proclabels_release(&pl);
}

int
main(void)
{
	RUN(test_names);
	RUN(test_reused);
	RUN(test_long);
	RUN(test_def);
	HARNESS_EXIT();
}
