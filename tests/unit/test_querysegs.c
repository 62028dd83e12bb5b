/*
 * test_querysegs.c - a profile's threads as spans of their innermost
 * query (model/querysegs.h): nesting as measureme nests, the order the
 * intervals come in, what does not nest, and threads apart.
 */
#include <stdint.h>

#include "base/intern.h"
#include "model/querysegs.h"
#include "harness.h"

/* The labels of path `p`, as digits outermost first: "12" is 1 > 2. */
static const char *
path_text(const struct intern *paths, uint32_t p)
{
	static char buf[64];
	const uint32_t *l;
	size_t len, i;

	if (p == 0)
		return "";
	l = intern_key(paths, p, &len);
	for (i = 0; i < len / sizeof(*l) && i + 1 < sizeof(buf); i++)
		buf[i] = (char)('0' + l[i]);
	buf[i] = '\0';
	return buf;
}

/* The spans of thread i as "from-to:path ..." */
static const char *
spans_text(const struct querysegs *q, const struct intern *paths, size_t i)
{
	static char buf[512];
	const struct qseg *s;
	size_t n, k, len = 0;

	s = querysegs_spans(q, i, &n);
	buf[0] = '\0';
	for (k = 0; k < n && len < sizeof(buf); k++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
		    "%s%lld-%lld:%s", k ? " " : "", (long long)s[k].from, (long long)s[k].to,
		    path_text(paths, s[k].path));
	return buf;
}

/*
 * A parent with two children, written as rustc writes them (children
 * first, when they end), and a sibling after it: the parent's own time
 * is the gaps, each child's its span.
 */
static void
test_nesting(void)
{
	struct querysegs q = { 0 };
	struct intern paths = { 0 };

	CHECK(querysegs_add(&q, 3, 10, 20, 2) == 0);
	CHECK(querysegs_add(&q, 3, 30, 40, 3) == 0);
	CHECK(querysegs_add(&q, 3, 0, 50, 1) == 0);
	CHECK(querysegs_add(&q, 3, 50, 60, 4) == 0);
	REQUIRE(querysegs_build(&q, &paths) == 0);
	REQUIRE(q.nthreads == 1);
	CHECK_EQ_STR(spans_text(&q, &paths, 0),
	    "0-10:1 10-20:12 20-30:1 30-40:13 40-50:1 50-60:4");
	CHECK_EQ_INT(q.threads[0].query_ns, 60);
	CHECK_EQ_INT(q.threads[0].start, 0);
	CHECK_EQ_INT(q.threads[0].end, 60);
	CHECK_EQ_INT(q.cut, 0);
	querysegs_release(&q);
	intern_release(&paths);
}

/*
 * Two intervals with the same bounds: the one written later (the
 * parent) is outside.  A child starting with its parent is inside it.
 * An empty interval has no time.
 */
static void
test_equal_bounds(void)
{
	struct querysegs q = { 0 };
	struct intern paths = { 0 };

	CHECK(querysegs_add(&q, 1, 0, 5, 2) == 0);
	CHECK(querysegs_add(&q, 1, 0, 10, 3) == 0);
	CHECK(querysegs_add(&q, 1, 0, 10, 1) == 0);
	CHECK(querysegs_add(&q, 1, 7, 7, 4) == 0);
	REQUIRE(querysegs_build(&q, &paths) == 0);
	CHECK_EQ_STR(spans_text(&q, &paths, 0), "0-5:132 5-10:13");
	querysegs_release(&q);
	intern_release(&paths);
}

/*
 * What does not nest is cut to its parent and counted; threads keep
 * their own spans, in order of thread id.
 */
static void
test_hostile(void)
{
	struct querysegs q = { 0 };
	struct intern paths = { 0 };

	CHECK(querysegs_add(&q, 9, 0, 10, 1) == 0);
	CHECK(querysegs_add(&q, 9, 5, 15, 2) == 0);
	CHECK(querysegs_add(&q, 4, 100, 200, 5) == 0);
	CHECK(querysegs_add(&q, 9, INT64_MIN, INT64_MIN + 1, 6) == 0);
	REQUIRE(querysegs_build(&q, &paths) == 0);
	REQUIRE(q.nthreads == 2);
	CHECK_EQ_INT(q.threads[0].tid, 4);
	CHECK_EQ_STR(spans_text(&q, &paths, 0), "100-200:5");
	CHECK_EQ_STR(spans_text(&q, &paths, 1),
	    "-9223372036854775808--9223372036854775807:6 0-5:1 5-10:12");
	CHECK_EQ_INT(q.cut, 1);
	querysegs_release(&q);
	intern_release(&paths);
}

int
main(void)
{
	RUN(test_nesting);
	RUN(test_equal_bounds);
	RUN(test_hostile);
	HARNESS_EXIT();
}
