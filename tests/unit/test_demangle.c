/*
 * test_demangle.c - the Rust demangling vectors of rust-symbols.md (all
 * 298, in testdata/demangle/rust-vectors.tsv: id, source, mode, format,
 * mangled, expected), each under the conventions of the suite it comes
 * from, then the MSVC qualified names and hostile inputs.
 */
#include <stdint.h>

#include "sym/sym_demangle.h"
#include "harness.h"

/* The flags that give a vector's source conventions. */
static unsigned
vector_flags(const char *source, const char *mode, const char *format)
{
	if (strcmp(source, "llvm") == 0)
		return SYM_DEMANGLE_LLVM | SYM_DEMANGLE_ESCAPE;
	if (strcmp(source, "libiberty") == 0)
		return SYM_DEMANGLE_HASH16 | SYM_DEMANGLE_ESCAPE |
		    (strcmp(format, "gnu-v3") == 0 ? SYM_DEMANGLE_HASH : 0);
	return strcmp(mode, "full") == 0 ? SYM_DEMANGLE_HASH : 0;
}

static void
test_rust_vectors(void)
{
	FILE *f = fopen("testdata/demangle/rust-vectors.tsv", "r");
	char line[16384];
	struct buf out = { 0 };
	int n = 0, bad = 0;

	REQUIRE(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *col[6], *p = line;
		const char *got;
		int i;

		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < 6; i++) {
			col[i] = p;
			p = strchr(p, '\t');
			if (p == NULL && i < 5)
				break;
			if (p != NULL)
				*p++ = '\0';
		}
		REQUIRE(i == 6);
		got = sym_demangle(col[4], vector_flags(col[1], col[2],
		    col[3]), &out) == 1 ? (const char *)out.data : col[4];
		if (strcmp(got, col[5]) != 0) {
			printf("  vector %s (%s %s): %s\n    got      %s\n"
			    "    expected %s\n", col[0], col[1], col[2], col[4],
			    got, col[5]);
			bad++;
		}
		n++;
	}
	fclose(f);
	buf_release(&out);
	CHECK_EQ_INT(n, 298);
	CHECK_EQ_INT(bad, 0);
}

static void
check(const char *in, const char *want)
{
	struct buf out = { 0 };

	CHECK_EQ_STR(sym_display_name(in, &out), want);
	buf_release(&out);
}

static void
test_display(void)
{
	check("_ZN4core3ptr13drop_in_place17h0123456789abcdefE",
	    "core::ptr::drop_in_place");
	check("#_ZN4core6option13expect_failed17h0123456789abcdefE",
	    "core::option::expect_failed");
	check("_RNvCsj4CZ6flxxfE_7___rustc12___rust_alloc",
	    "__rustc::__rust_alloc");
	check("?flush@Stderr@io@@QEAAXXZ", "io::Stderr::flush");
	check("??0Widget@@QEAA@XZ", "Widget::Widget");
	check("??1Widget@ui@@UEAA@XZ", "ui::Widget::~Widget");
	check("?f@?$vector@H@std@@QEAAXXZ", "std::vector<int>::f");
	check("?sputn@?$basic_streambuf@DU?$char_traits@D@std@@@std@@"
	    "QEAA_JPEBD_J@Z",
	    "std::basic_streambuf<char,std::char_traits<char> >::sputn");
	check("??0?$vector@HV?$allocator@H@std@@@std@@QEAA@XZ",
	    "std::vector<int,std::allocator<int> >::vector");
	check("?g@?$B@PEAUC@@AEBV1@@@QEAAXXZ", "B<C *,C const &>::g");
	check("?x@?$A@$0BA@@@QEAAXXZ", "A<16>::x");
	check("??$func@H@@YAXH@Z", "func<int>");
	check("??_R4type_info@@6B@", "type_info::`RTTI Complete Object "
	    "Locator'");
	/* What the reader does not know stays raw. */
	check("?f@?$A@$$BY0A@H@@QEAAXXZ", "?f@?$A@$$BY0A@H@@QEAAXXZ");
	check("?f@?$A@H", "?f@?$A@H");
	check("?f@?$A@9@@QEAAXXZ", "?f@?$A@9@@QEAAXXZ");
	check("main", "main");
	check("Rust", "Rust");
	check("ZN", "ZN");
	check("_R", "_R");
}

/* A base-62 backref operand that points at position v (v >= 1). */
static void
put_backref(char *out, unsigned v)
{
	static const char digits[] =
	    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char tmp[16];
	int n = 0;

	v--;
	do {
		tmp[n++] = digits[v % 62];
		v /= 62;
	} while (v > 0);
	strcat(out, "B");
	while (n > 0)
		strncat(out, &tmp[--n], 1);
	strcat(out, "_");
}

static void
test_hostile(void)
{
	/*
	 * Tuples of backrefs to the tuple before: each level doubles the
	 * output (rustc-demangle's _RMC0TTTTTTpB8_EB7_EB6_EB5_EB4_EB3_E is
	 * 64 copies of `_`).  Thirty levels would be 2^30; the output
	 * bound refuses the name instead.
	 */
	char sym[4096] = "_RMC0";
	struct buf out = { 0 };
	int i, n = 30;

	for (i = 0; i < n; i++)
		strcat(sym, "T");
	strcat(sym, "p");
	for (i = n - 1; i >= 0; i--) {
		put_backref(sym + strlen(sym), (unsigned)(3 + i + 1));
		strcat(sym, "E");
	}
	CHECK_EQ_INT(sym_demangle(sym, 0, &out), 0);
	CHECK_EQ_INT(out.len, 0);
	/* Six levels: the 64 copies. */
	CHECK_EQ_INT(sym_demangle("_RMC0TTTTTTpB8_EB7_EB6_EB5_EB4_EB3_E", 0,
	    &out), 1);
	CHECK(out.len > 64 && strncmp((char *)out.data, "<((((((_, _), ", 14)
	    == 0);
	/* Deep nesting stops at the depth limit. */
	memset(sym, 'R', sizeof(sym) - 1);
	memcpy(sym, "_RINvC1a1bE", 9);
	sym[sizeof(sym) - 2] = 'u';
	sym[sizeof(sym) - 1] = '\0';
	CHECK_EQ_INT(sym_demangle(sym, 0, &out), 0);
	buf_release(&out);
}

/*
 * MSVC names cut short inside a pointer's cv letter or a number's `@`:
 * each is refused, and read from a heap copy of its own size, so that
 * check-asan sees a read past its NUL (one such read overflowed a
 * fuzzer's buffer by a byte).
 */
static void
test_msvc_cut(void)
{
	static const char *const cut[] = {
		"?a@?$b@PE", "?a@?$b@P", "?a@?$b@$0A", "?a@?$b@$0?B",
		"?a@?$b@?$c@PE", "?a@?$b@AE", "?a@?$b@$$QE",
	};
	struct buf out = { 0 };
	size_t i, n;
	char *copy;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		n = strlen(cut[i]) + 1;
		if ((copy = malloc(n)) == NULL)
			abort();
		memcpy(copy, cut[i], n);
		out.len = 0;
		CHECK_EQ_INT(sym_demangle(copy, 0, &out), 0);
		free(copy);
	}
	buf_release(&out);
}

int
main(void)
{
	RUN(test_rust_vectors);
	RUN(test_display);
	RUN(test_hostile);
	RUN(test_msvc_cut);
	HARNESS_EXIT();
}
