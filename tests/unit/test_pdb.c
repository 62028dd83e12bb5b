/*
 * test_pdb.c - the PDB reader (msf, pdb): a PDB built here byte by byte,
 * then the corpus PDBs (../shared/corpus/pdb) against what LLVM 14 says
 * of them: llvm-pdbutil's identity (dump -summary) and functions
 * (*.oracle.tsv), llvm-symbolizer's and the oracle's answers for sampled
 * addresses (*.addr.tsv), and the identity in the CodeView record of the
 * executable each PDB belongs to.  Mutated and truncated files must fail
 * cleanly (run under -fsanitize=address,undefined: make check-asan).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sym/pdb.h"
#include "harness.h"

#define PAGE		512
#define NSTREAMS	8
#define FILLERS		40
#define S_END		0x0006
#define MAX_STREAM_PAGES	16

/* ---- a PDB built by hand ---- */

/* A CodeView record: kind, fixed payload, NUL-terminated name, padding. */
static void
cv_record(struct buf *b, uint16_t kind, const struct buf *fixed,
    const char *name)
{
	size_t len = 2 + fixed->len + strlen(name) + 1;
	size_t pad = (4 - (2 + len) % 4) % 4, i;

	buf_put_u16(b, (uint16_t)(len + pad));
	buf_put_u16(b, kind);
	buf_put(b, fixed->data, fixed->len);
	buf_put(b, name, strlen(name) + 1);
	for (i = 0; i < pad; i++)
		buf_put_u8(b, 0xf1 + (unsigned)(pad - 1 - i) % 3);
}

static void
pub32(struct buf *b, uint32_t flags, uint16_t seg, uint32_t off,
    const char *name)
{
	struct buf f = { 0 };

	buf_put_u32(&f, flags);
	buf_put_u32(&f, off);
	buf_put_u16(&f, seg);
	cv_record(b, PDB_S_PUB32, &f, name);
	buf_release(&f);
}

static void
proc32(struct buf *b, uint16_t kind, uint16_t seg, uint32_t off,
    uint32_t len, const char *name)
{
	struct buf f = { 0 };

	buf_put_u32(&f, 0);		/* parent */
	buf_put_u32(&f, 0);		/* end (not followed) */
	buf_put_u32(&f, 0);		/* next */
	buf_put_u32(&f, len);
	buf_put_u32(&f, 0);
	buf_put_u32(&f, len);
	buf_put_u32(&f, 0x1001);	/* type */
	buf_put_u32(&f, off);
	buf_put_u16(&f, seg);
	buf_put_u8(&f, 0);		/* flags */
	cv_record(b, kind, &f, name);
	buf_put_u16(b, 2);
	buf_put_u16(b, S_END);
	buf_release(&f);
}

static void
thunk32(struct buf *b, uint16_t seg, uint32_t off, uint16_t len,
    const char *name)
{
	struct buf f = { 0 };

	buf_put_u32(&f, 0);
	buf_put_u32(&f, 0);
	buf_put_u32(&f, 0);
	buf_put_u32(&f, off);
	buf_put_u16(&f, seg);
	buf_put_u16(&f, len);
	buf_put_u8(&f, 0);		/* ordinal */
	cv_record(b, PDB_S_THUNK32, &f, name);
	buf_release(&f);
}

static void
section_header(struct buf *b, const char *name, uint32_t rva, uint32_t size,
    uint32_t characteristics)
{
	char n[8] = { 0 };

	memcpy(n, name, strlen(name));
	buf_put(b, n, 8);
	buf_put_u32(b, size);
	buf_put_u32(b, rva);
	buf_put_u32(b, size);		/* SizeOfRawData */
	buf_put_u32(b, 0x400);		/* PointerToRawData */
	buf_put_u32(b, 0);
	buf_put_u32(b, 0);
	buf_put_u16(b, 0);
	buf_put_u16(b, 0);
	buf_put_u32(b, characteristics);
}

static const unsigned char test_guid[16] = {
	0x18, 0xae, 0xb5, 0x0f, 0x7e, 0x9f, 0xd4, 0x49,
	0xb1, 0xb0, 0x3e, 0xf3, 0x69, 0xfa, 0x76, 0x35
};

static void
module_record(struct buf *b, uint16_t stream, uint32_t sym_size,
    const char *name)
{
	static const unsigned char zeros[34];

	buf_put(b, zeros, 34);
	buf_put_u16(b, stream);
	buf_put_u32(b, sym_size);
	buf_put(b, zeros, 24);
	buf_put(b, name, strlen(name) + 1);
	buf_put(b, name, strlen(name) + 1);
	while (b->len % 4 != 0)
		buf_put_u8(b, 0);
}

/*
 * The streams: 1 info, 3 DBI, 4 section headers (.text code at 0x1000,
 * .data at 0x3000), 5 symbol records, 6 and 7 two modules' symbols.
 */
static void
build_streams(struct buf *st)
{
	struct buf mods = { 0 }, sc = { 0 }, dbg = { 0 };
	char name[32];
	int i;

	buf_put_u32(&st[1], 20000404);
	buf_put_u32(&st[1], 0x5f000000);
	buf_put_u32(&st[1], 7);		/* info age: bumped by a tool */
	buf_put(&st[1], test_guid, 16);
	buf_put_u32(&st[1], 0);

	section_header(&st[4], ".text", 0x1000, 0x2000, 0x60000020);
	section_header(&st[4], ".data", 0x3000, 0x1000, 0xc0000040);

	pub32(&st[5], PDB_PUB_FUNCTION, 1, 0, "pub_a");
	pub32(&st[5], 0, 1, 0, "alias_b");
	pub32(&st[5], 0, 2, 0x10, "data_x");
	pub32(&st[5], 0, 3, 0x1, "absolute");
	pub32(&st[5], PDB_PUB_FUNCTION, 1, 0x300, "pub_late");
	for (i = 0; i < FILLERS; i++) {
		snprintf(name, sizeof(name), "filler_%02d", i);
		pub32(&st[5], PDB_PUB_FUNCTION, 1, 0x800 + 16 * (uint32_t)i,
		    name);
	}

	buf_put_u32(&st[6], 4);
	proc32(&st[6], PDB_S_GPROC32, 1, 0, 0x80, "proc_a");
	proc32(&st[6], PDB_S_GPROC32, 1, 0x100, 0x40, "icf_one");
	thunk32(&st[6], 1, 0x200, 6, "thunk_t");
	proc32(&st[6], PDB_S_LPROC32, 1, 0x310, 0x20, "inside_pub_late");
	for (i = 0; i < FILLERS; i++) {
		snprintf(name, sizeof(name), "local_%02d", i);
		proc32(&st[6], PDB_S_LPROC32_ID, 1, 0x1000 + 16 *
		    (uint32_t)i, 8, name);
	}
	buf_put_u32(&st[7], 4);
	proc32(&st[7], PDB_S_GPROC32, 1, 0x100, 0x40, "icf_two");

	module_record(&mods, 6, (uint32_t)st[6].len, "one.obj");
	module_record(&mods, 7, (uint32_t)st[7].len, "two.obj");
	module_record(&mods, 0xffff, 0, "stripped.obj");
	buf_put_u32(&sc, 0xf12eba2d);
	buf_put_u16(&sc, 1);		/* two.obj owns 1:0x100, the folded */
	buf_put_u16(&sc, 0);
	buf_put_u32(&sc, 0x100);
	buf_put_u32(&sc, 0x40);
	buf_put_u32(&sc, 0x60000020);
	buf_put_u16(&sc, 1);
	buf_put_u16(&sc, 0);
	buf_put_u32(&sc, 0);
	buf_put_u32(&sc, 0);
	for (i = 0; i < 11; i++)
		buf_put_u16(&dbg, i == 5 ? 4 : 0xffff);

	buf_put_u32(&st[3], 0xffffffff);
	buf_put_u32(&st[3], 19990903);
	buf_put_u32(&st[3], 3);		/* the age that matches the image */
	buf_put_u16(&st[3], 0xffff);
	buf_put_u16(&st[3], 0x8e00);
	buf_put_u16(&st[3], 0xffff);
	buf_put_u16(&st[3], 0);
	buf_put_u16(&st[3], 5);		/* symbol records */
	buf_put_u16(&st[3], 0);
	buf_put_u32(&st[3], (uint32_t)mods.len);
	buf_put_u32(&st[3], (uint32_t)sc.len);
	buf_put_u32(&st[3], 0);
	buf_put_u32(&st[3], 0);
	buf_put_u32(&st[3], 0);
	buf_put_u32(&st[3], 0);
	buf_put_u32(&st[3], (uint32_t)dbg.len);
	buf_put_u32(&st[3], 0);
	buf_put_u16(&st[3], 0);
	buf_put_u16(&st[3], 0x8664);
	buf_put_u32(&st[3], 0);
	buf_put(&st[3], mods.data, mods.len);
	buf_put(&st[3], sc.data, sc.len);
	buf_put(&st[3], dbg.data, dbg.len);
	buf_release(&mods);
	buf_release(&sc);
	buf_release(&dbg);
}

static size_t
npages(size_t len)
{
	return (len + PAGE - 1) / PAGE;
}

/* Appends a page: `n` bytes of `data` (at most a page), then zeros. */
static void
put_page(struct buf *out, const unsigned char *data, size_t n)
{
	static const unsigned char zeros[PAGE];

	buf_put(out, data, n);
	buf_put(out, zeros, PAGE - n);
}

/*
 * Lays the streams out in pages round robin (page k of every stream,
 * then page k + 1), so that the long streams are not contiguous; then
 * the directory and its page map.  Pages 1 and 2 are the free page maps.
 */
static void
build_pdb(struct buf *out)
{
	struct buf st[NSTREAMS], dir = { 0 }, head = { 0 };
	uint32_t next = 3, k;
	size_t i, n;

	memset(st, 0, sizeof(st));
	build_streams(st);
	buf_put_u32(&dir, NSTREAMS);
	for (i = 0; i < NSTREAMS; i++)
		buf_put_u32(&dir, (uint32_t)st[i].len);
	/* Page numbers as the round robin hands them out. */
	for (i = 0; i < NSTREAMS; i++)
		for (k = 0; k < npages(st[i].len); k++) {
			uint32_t page = 3;
			size_t j;

			for (j = 0; j < NSTREAMS; j++)
				page += (uint32_t)(npages(st[j].len) < k ?
				    npages(st[j].len) : k);
			for (j = 0; j < i; j++)
				page += npages(st[j].len) > k;
			buf_put_u32(&dir, page);
			next++;
		}

	buf_put(&head, "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0", 32);
	buf_put_u32(&head, PAGE);
	buf_put_u32(&head, 1);
	buf_put_u32(&head, next + 2);
	buf_put_u32(&head, (uint32_t)dir.len);
	buf_put_u32(&head, 0);
	buf_put_u32(&head, next + 1);	/* the directory's page map */
	out->len = 0;
	put_page(out, head.data, head.len);
	put_page(out, NULL, 0);
	put_page(out, NULL, 0);
	for (k = 0; k < MAX_STREAM_PAGES; k++)
		for (i = 0; i < NSTREAMS; i++)
			if (k < npages(st[i].len)) {
				n = st[i].len - k * PAGE;
				put_page(out, st[i].data + k * PAGE,
				    n < PAGE ? n : PAGE);
			}
	put_page(out, dir.data, dir.len);	/* page next */
	head.len = 0;
	buf_put_u32(&head, next);
	put_page(out, head.data, head.len);
	for (i = 0; i < NSTREAMS; i++)
		buf_release(&st[i]);
	buf_release(&dir);
	buf_release(&head);
}

/* ---- checks shared by the tests ---- */

/* The function at `rva` named `name` of kind `kind`, or NULL. */
static const struct pdb_function *
find(const struct pdb *p, uint32_t rva, const char *name, int kind)
{
	const struct pdb_function *f = NULL;
	size_t n, lo = 0, hi;

	f = pdb_functions(p, &n);
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].rva < rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && f[lo].rva == rva; lo++)
		if (f[lo].kind == kind && strcmp(f[lo].name, name) == 0)
			return &f[lo];
	return NULL;
}

/* pdb_lookup() at `rva` gives `name` of kind `kind` (NULL: nothing). */
static int
lookup_is(const struct pdb *p, uint32_t rva, const char *name, int kind)
{
	const struct pdb_function *f = pdb_lookup(p, rva);

	if (name == NULL)
		return f == NULL;
	if (f == NULL || f->kind != kind || strcmp(f->name, name) != 0) {
		printf("  lookup 0x%x: %s, expected %s\n", rva,
		    f ? f->name : "nothing", name);
		return 0;
	}
	return 1;
}

static uint64_t
next_random(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
}

/*
 * What any PDB the reader accepts must satisfy, however damaged: sorted
 * functions in known sections, and lookups that hold their address.
 */
static int
lookup_holds(const struct pdb *p, uint32_t rva)
{
	const struct pdb_function *g = pdb_lookup(p, rva);
	const struct pdb_section *sec;
	size_t nsec;

	if (g == NULL)
		return 1;
	if (g->kind != PDB_PUBLIC)
		return rva - g->rva < g->size;
	sec = pdb_sections(p, &nsec) + g->section - 1;
	return g->rva <= rva && rva >= sec->rva && rva - sec->rva < sec->size;
}

static int
consistent(const struct pdb *p, uint64_t *rng)
{
	const struct pdb_function *f;
	size_t n, nsec, i;

	f = pdb_functions(p, &n);
	pdb_sections(p, &nsec);
	for (i = 0; i < n; i++) {
		if (f[i].name == NULL || f[i].section == 0 ||
		    f[i].section > nsec || (i > 0 && f[i].rva < f[i - 1].rva))
			return 0;
		if (!lookup_holds(p, f[i].rva + f[i].size / 2))
			return 0;
	}
	for (i = 0; i < 64; i++)
		if (!lookup_holds(p, (uint32_t)next_random(rng)))
			return 0;
	return 1;
}

/*
 * Opens a copy of `len` bytes; checks that it fails cleanly or gives
 * a consistent result.  @return : the status.
 */
static int
open_copy(const unsigned char *data, size_t len, uint64_t *rng, int *bad)
{
	unsigned char *copy = malloc(len ? len : 1);
	struct pdb *p = pdb_new();
	int st;

	if (copy == NULL || p == NULL) {
		free(copy);
		pdb_free(p);
		(*bad)++;
		return PDB_FATAL;
	}
	memcpy(copy, data, len);
	st = pdb_open_mem(p, copy, len);
	if (st != PDB_OK && st != PDB_WARN && st != PDB_FATAL)
		(*bad)++;
	else if (st != PDB_OK && pdb_error(p)[0] == '\0')
		(*bad)++;
	else if (st != PDB_FATAL && !consistent(p, rng))
		(*bad)++;
	/* The reader keeps no pointer into the file. */
	memset(copy, 0xa5, len);
	if (st != PDB_FATAL && !consistent(p, rng))
		(*bad)++;
	pdb_free(p);
	free(copy);
	return st;
}

/* ---- the PDB built here ---- */

/* What pdb_lookup() gives in the PDB built here (NULL: nothing). */
static const struct {
	uint32_t rva;
	const char *name;
	int kind;
} lookups[] = {
	{ 0x1000, "proc_a", PDB_PROCEDURE },
	{ 0x107f, "proc_a", PDB_PROCEDURE },
	{ 0x1080, "pub_a", PDB_PUBLIC },	/* flagged, before alias_b */
	/* Folded: icf_one sorts first, two.obj owns the address. */
	{ 0x1100, "icf_two", PDB_PROCEDURE },
	{ 0x113f, "icf_two", PDB_PROCEDURE },
	{ 0x1205, "thunk_t", PDB_THUNK },
	{ 0x1206, "pub_a", PDB_PUBLIC },
	{ 0x1315, "inside_pub_late", PDB_PROCEDURE },
	{ 0x1330, "pub_late", PDB_PUBLIC },
	{ 0x2057, "local_05", PDB_PROCEDURE },
	{ 0x2058, "filler_39", PDB_PUBLIC },
	{ 0x2fff, "filler_39", PDB_PUBLIC },
	{ 0x3000, NULL, 0 },		/* .data: its only public is data */
	{ 0x0fff, NULL, 0 },
	{ 0xffffffff, NULL, 0 },
};

static void
test_pdb_built(void)
{
	const struct pdb_function *f;
	const struct pdb_counts *c;
	struct buf file = { 0 };
	unsigned char guid[16];
	struct pdb *p;
	uint32_t age;
	size_t n, i;

	build_pdb(&file);
	REQUIRE((p = pdb_new()) != NULL);
	CHECK_EQ_INT(pdb_open_mem(p, file.data, file.len), PDB_OK);
	CHECK_EQ_STR(pdb_error(p), "");
	pdb_identity(p, guid, &age);
	CHECK(memcmp(guid, test_guid, 16) == 0);
	CHECK_EQ_INT(age, 3);
	f = pdb_functions(p, &n);
	/* 3 + FILLERS publics, 4 + FILLERS procedures, a thunk. */
	CHECK_EQ_INT(n, 2 * FILLERS + 8);
	c = pdb_counts(p);
	CHECK_EQ_INT(c->streams, NSTREAMS);
	CHECK_EQ_INT(c->modules, 3);
	CHECK_EQ_INT(c->modules_without_symbols, 1);
	CHECK_EQ_INT(c->not_code, 1);
	CHECK_EQ_INT(c->absolute, 1);
	CHECK_EQ_INT(c->bad_records + c->bad_modules, 0);
	/* At one RVA: the procedure, the flagged public, the alias. */
	REQUIRE(n > 3);
	CHECK_EQ_STR(f[0].name, "proc_a");
	CHECK_EQ_STR(f[1].name, "pub_a");
	CHECK_EQ_STR(f[2].name, "alias_b");
	CHECK((f = find(p, 0x2050, "local_05", PDB_PROCEDURE)) != NULL);
	CHECK(f != NULL && f->size == 8 && f->record == PDB_S_LPROC32_ID &&
	    f->module == 0 && f->section == 1);
	CHECK((f = find(p, 0x1200, "thunk_t", PDB_THUNK)) != NULL);
	CHECK(f != NULL && f->size == 6);

	for (i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++)
		CHECK(lookup_is(p, lookups[i].rva, lookups[i].name,
		    lookups[i].kind));
	f = pdb_lookup_public(p, 0x1315);
	CHECK(f != NULL && strcmp(f->name, "pub_late") == 0);
	pdb_free(p);
	buf_release(&file);
}

/* Not a PDB, or another kind of one: a message naming it. */
static void
test_pdb_not_msf(void)
{
	static const struct {
		const char *bytes;
		const char *error;
	} cases[] = {
		{ "BSJB\1\0\1\0", "not an MSF PDB: this is a portable PDB "
		    "(offset 0x0)" },
		{ "MSCF\0\0\0\0", "not an MSF PDB: this is a CAB archive (a "
		    "compressed .pd_ file); expand it first (offset 0x0)" },
		{ "Microsoft C/C++ program database 2.00\r\n\x1aJG",
		    "not an MSF PDB: this is an old PDB 2.00 (small MSF), not "
		    "supported (offset 0x0)" },
		{ "Microsoft MSFZ Container\r\n\x1a" "ALD", "not an MSF PDB: "
		    "this is a compressed MSFZ PDB, not supported (offset 0x0)" },
		{ "MZ\x90", "not a PDB: no MSF 7.00 signature (offset 0x0)" },
		{ "", "not a PDB: no MSF 7.00 signature (offset 0x0)" },
	};
	struct pdb *p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		REQUIRE((p = pdb_new()) != NULL);
		CHECK_EQ_INT(pdb_open_mem(p, (const unsigned char *)
		    cases[i].bytes, strlen(cases[i].bytes)), PDB_FATAL);
		CHECK_EQ_STR(pdb_error(p), cases[i].error);
		pdb_free(p);
	}
}

/*
 * Every truncation of the built PDB and every byte of it inverted in
 * turn: clean failures or consistent results, never a bad read.
 */
static void
test_pdb_damaged(void)
{
	struct buf file = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	int bad = 0, fatal = 0;
	size_t i;

	build_pdb(&file);
	for (i = 0; i < file.len; i++)
		fatal += open_copy(file.data, i, &rng, &bad) == PDB_FATAL;
	/* Cut inside the superblock or the streams, it cannot be read. */
	CHECK(fatal > PAGE);
	for (i = 0; i < file.len; i++) {
		file.data[i] ^= 0xff;
		open_copy(file.data, file.len, &rng, &bad);
		file.data[i] ^= 0xff;
	}
	CHECK_EQ_INT(bad, 0);
	buf_release(&file);
}

/* ---- the corpus ---- */

/*
 * The PDBs, the image each belongs to, and their identity as
 * llvm-pdbutil-14 dump -summary gives it.
 */
static const struct fixture {
	const char *name;
	const char *image;
	const char *guid;
	uint32_t age;
} fixtures[] = {
	{ "Native_x64_RustC_Rust_debuginfo2_v1.58.1", "exe",
	    "0FB5AE18-9F7E-49D4-B1B0-3EF369FA7635", 1 },
	{ "Native_x64_VS2019_CPlusPlus_DEBUG_FULL", "dll",
	    "D0984D91-0540-4865-8218-1972EC77557A", 1 },
	{ "Native_x64_VS2022_PDBPageSize_8192", "exe",
	    "FD69B930-2C19-454D-905F-158503018593", 1 },
	{ "crash", "exe", "3249D99D-0C40-4931-8610-F4E4FB0B6936", 1 },
};

#define NFIXTURES	(sizeof(fixtures) / sizeof(fixtures[0]))

static unsigned char *
corpus_file(const char *name, const char *ext, size_t *len)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/pdb/%s.%s", harness_corpus(),
	    name, ext) >= (int)sizeof(path))
		return NULL;
	return harness_slurp(path, len);
}

/* Opens a corpus PDB; NULL (and a failed check) if it cannot. */
static struct pdb *
open_fixture(const struct fixture *fx, unsigned char **data, size_t *len)
{
	struct pdb *p;
	int st;

	if ((*data = corpus_file(fx->name, "pdb", len)) == NULL) {
		printf("  %s.pdb: cannot read it\n", fx->name);
		harness_failed++;
		return NULL;
	}
	p = pdb_new();
	if (p == NULL || (st = pdb_open_mem(p, *data, *len)) != PDB_OK) {
		printf("  %s.pdb: %s\n", fx->name, p ? pdb_error(p) : "no memory");
		harness_failed++;
		pdb_free(p);
		free(*data);
		return NULL;
	}
	return p;
}

static void
guid_text(const unsigned char *g, char *out)
{
	sprintf(out, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X",
	    (unsigned)le32(g), le16(g + 4), le16(g + 6), g[8], g[9], g[10],
	    g[11], g[12], g[13], g[14], g[15]);
}

/*
 * The CodeView RSDS record of a PE file (pdb-format.md section 8): the
 * debug directory, found through the section that holds its RVA.
 * @return : 0, or -1 if there is none.
 */
static int
pe_rsds(const unsigned char *pe, size_t len, unsigned char *guid,
    uint32_t *age)
{
	const unsigned char *coff, *opt, *sec, *e;
	uint32_t lfanew, rva, size, va, span, off, i;

	if (len < 0x40 || memcmp(pe, "MZ", 2) != 0 ||
	    (lfanew = le32(pe + 0x3c)) > len - 0x200 ||
	    memcmp(pe + lfanew, "PE\0\0", 4) != 0)
		return -1;
	coff = pe + lfanew + 4;
	opt = coff + 20;
	i = le16(opt) == 0x20b ? 112 : 96;	/* data directories */
	rva = le32(opt + i + 6 * 8);
	size = le32(opt + i + 6 * 8 + 4);
	for (i = 0, off = 0; i < le16(coff + 2); i++) {
		sec = opt + le16(coff + 16) + 40 * i;
		if ((size_t)(sec + 40 - pe) > len)
			return -1;
		va = le32(sec + 12);
		span = le32(sec + 8) > le32(sec + 16) ? le32(sec + 8) :
		    le32(sec + 16);
		if (rva >= va && rva - va < span)
			off = le32(sec + 20) + rva - va;
	}
	for (i = 0; off != 0 && i + 28 <= size && off + i + 28 <= len;
	    i += 28) {
		e = pe + off + i;
		if (le32(e + 12) != 2 || le32(e + 24) > len - 24 ||
		    memcmp(pe + le32(e + 24), "RSDS", 4) != 0)
			continue;
		memcpy(guid, pe + le32(e + 24) + 4, 16);
		*age = le32(pe + le32(e + 24) + 20);
		return 0;
	}
	return -1;
}

/* GUID and age: those llvm-pdbutil gives, and the image's RSDS ones. */
static void
test_pdb_identity(void)
{
	unsigned char guid[16], pe_guid[16], *data, *pe;
	char text[40];
	uint32_t age, pe_age;
	size_t i, len, pe_len;
	struct pdb *p;
	int rc;

	if (harness_corpus() == NULL)
		SKIP("corpus absent (../shared/corpus or ETL_CORPUS)");
	for (i = 0; i < NFIXTURES; i++) {
		if ((p = open_fixture(&fixtures[i], &data, &len)) == NULL)
			continue;
		pdb_identity(p, guid, &age);
		guid_text(guid, text);
		CHECK_EQ_STR(text, fixtures[i].guid);
		CHECK_EQ_INT(age, fixtures[i].age);
		pe = corpus_file(fixtures[i].name, fixtures[i].image, &pe_len);
		rc = pe != NULL ? pe_rsds(pe, pe_len, pe_guid, &pe_age) : -1;
		CHECK_EQ_INT(rc, 0);
		if (rc == 0) {
			CHECK(memcmp(guid, pe_guid, 16) == 0);
			CHECK_EQ_INT(age, pe_age);
		}
		free(pe);
		pdb_free(p);
		free(data);
	}
}

/* The tab-separated fields of each line not starting with '#'. */
struct tsv {
	char *text;
	char **fields;		/* rows * width, NULL when missing */
	size_t rows, width;
};

static int
tsv_read(struct tsv *t, const char *name, const char *ext, size_t width)
{
	char *line, *next, *f;
	size_t len, n = 0, i;

	memset(t, 0, sizeof(*t));
	t->width = width;
	if ((t->text = (char *)corpus_file(name, ext, &len)) == NULL)
		return -1;
	t->text = realloc(t->text, len + 1);
	t->text[len] = '\0';
	for (i = 0; i < len; i++)
		n += t->text[i] == '\n';
	t->fields = calloc((n + 1) * width, sizeof(char *));
	for (line = t->text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (*line == '#')
			continue;
		for (i = 0, f = line; i < width && f != NULL; i++) {
			t->fields[t->rows * width + i] = f;
			if ((f = strchr(f, '\t')) != NULL)
				*f++ = '\0';
		}
		t->rows++;
	}
	return 0;
}

static const char *
tsv_field(const struct tsv *t, size_t row, size_t col)
{
	const char *f = t->fields[row * t->width + col];

	return f != NULL ? f : "";
}

static void
tsv_free(struct tsv *t)
{
	free(t->text);
	free(t->fields);
}

/* Whether f is what the oracle calls `kind` (llvm-pdbutil's names). */
static int
kind_is(const struct pdb_function *f, const char *kind)
{
	if (strcmp(kind, "GPROC32") == 0)
		return f->record == PDB_S_GPROC32 ||
		    f->record == PDB_S_GPROC32_ID;
	if (strcmp(kind, "LPROC32") == 0)
		return f->record == PDB_S_LPROC32 ||
		    f->record == PDB_S_LPROC32_ID;
	if (strcmp(kind, "THUNK32") == 0)
		return f->kind == PDB_THUNK;
	if (strcmp(kind, "PUB32") == 0)
		return f->kind == PDB_PUBLIC &&
		    (f->flags & PDB_PUB_FUNCTION) != 0;
	if (strcmp(kind, "PUB32(nofunc)") == 0)
		return f->kind == PDB_PUBLIC &&
		    (f->flags & PDB_PUB_FUNCTION) == 0;
	return 0;
}

/*
 * Matches the oracle rows one to one with the functions: same RVA, name,
 * kind and size.  @return : the rows without a function.
 */
static size_t
match_oracle(const struct pdb *p, const struct tsv *o, size_t *extra)
{
	const struct pdb_function *f;
	size_t n, row, i, missing = 0;
	unsigned char *used;
	uint32_t rva;

	f = pdb_functions(p, &n);
	used = calloc(n + 1, 1);
	for (row = 0; row < o->rows; row++) {
		rva = (uint32_t)strtoul(tsv_field(o, row, 0), NULL, 16);
		for (i = 0; i < n; i++)
			if (!used[i] && f[i].rva == rva &&
			    strcmp(f[i].name, tsv_field(o, row, 1)) == 0 &&
			    kind_is(&f[i], tsv_field(o, row, 2)) &&
			    f[i].size == strtoul(tsv_field(o, row, 3), NULL,
			    10))
				break;
		if (i < n)
			used[i] = 1;
		else if (missing++ < 5)
			printf("  no function for oracle row %s %s %s %s\n",
			    tsv_field(o, row, 0), tsv_field(o, row, 1),
			    tsv_field(o, row, 2), tsv_field(o, row, 3));
	}
	for (i = 0, *extra = 0; i < n; i++)
		if (!used[i] && (*extra)++ < 5)
			printf("  function not in the oracle: 0x%08x %s\n",
			    f[i].rva, f[i].name);
	free(used);
	return missing;
}

/* Every oracle row is a function of the reader's, and nothing else is. */
static void
test_pdb_oracle(void)
{
	size_t i, len, extra;
	unsigned char *data;
	struct pdb *p;
	struct tsv o;

	if (harness_corpus() == NULL)
		SKIP("corpus absent (../shared/corpus or ETL_CORPUS)");
	for (i = 0; i < NFIXTURES; i++) {
		if ((p = open_fixture(&fixtures[i], &data, &len)) == NULL)
			continue;
		if (tsv_read(&o, fixtures[i].name, "oracle.tsv", 5) == -1) {
			printf("  %s.oracle.tsv: cannot read it\n",
			    fixtures[i].name);
			harness_failed++;
		} else {
			CHECK(o.rows > 200);
			CHECK_EQ_INT(match_oracle(p, &o, &extra), 0);
			CHECK_EQ_INT(extra, 0);
			tsv_free(&o);
		}
		pdb_free(p);
		free(data);
	}
}

/*
 * Splits "name+0xOFF" at its last "+0x".  @return : 0, or -1 if it has
 * no offset.
 */
static int
name_offset(const char *s, char *name, size_t cap, uint32_t *off)
{
	const char *plus = NULL, *q;

	for (q = strstr(s, "+0x"); q != NULL; q = strstr(q + 1, "+0x"))
		plus = q;
	if (plus == NULL || (size_t)(plus - s) >= cap)
		return -1;
	memcpy(name, s, (size_t)(plus - s));
	name[plus - s] = '\0';
	*off = (uint32_t)strtoul(plus + 3, NULL, 16);
	return 0;
}

/*
 * The containing procedure (column 5: "name+0xOFF", folded aliases
 * joined by " / ", empty for none): pdb_lookup() gives one of them, and
 * the one llvm-symbolizer names (column 2) when it names one.
 */
static int
check_procedure(const struct pdb *p, uint32_t rva, const char *want,
    const char *llvm)
{
	const struct pdb_function *f = pdb_lookup(p, rva);
	char alt[4096], name[4096], *a, *next;
	uint32_t off;
	int found = 0, llvm_named = 0;

	if (*want == '\0')
		return f == NULL || f->kind != PDB_PROCEDURE;
	if (f == NULL || f->kind != PDB_PROCEDURE)
		return 0;
	snprintf(alt, sizeof(alt), "%s", want);
	for (a = alt; a != NULL; a = next) {
		if ((next = strstr(a, " / ")) != NULL) {
			*next = '\0';
			next += 3;
		}
		if (name_offset(a, name, sizeof(name), &off) == -1)
			return 0;
		if (strcmp(name, llvm) == 0)
			llvm_named = 1;
		if (strcmp(name, f->name) == 0 && rva - f->rva == off)
			found = 1;
	}
	return found && (!llvm_named || strcmp(f->name, llvm) == 0);
}

/*
 * The nearest public (column 6): pdb_lookup_public() gives it, or
 * another public at the same address (the oracle's choice among
 * aliases is arbitrary: the last by name).
 */
static int
check_public(const struct pdb *p, uint32_t rva, const char *want,
    int *alias)
{
	const struct pdb_function *f = pdb_lookup_public(p, rva);
	char name[4096];
	uint32_t off;

	if (*want == '\0')
		return f == NULL;
	if (f == NULL || name_offset(want, name, sizeof(name), &off) == -1 ||
	    rva - f->rva != off)
		return 0;
	if (strcmp(f->name, name) == 0)
		return 1;
	*alias += 1;
	return find(p, f->rva, name, PDB_PUBLIC) != NULL;
}

/* pdb_lookup() agrees with the sampled addresses of *.addr.tsv. */
static void
test_pdb_addresses(void)
{
	size_t i, row, len;
	int procs = 0, publics = 0, aliases = 0;
	const struct pdb_function *f;
	unsigned char *data;
	struct pdb *p;
	struct tsv a;
	uint32_t rva;

	if (harness_corpus() == NULL)
		SKIP("corpus absent (../shared/corpus or ETL_CORPUS)");
	for (i = 0; i < NFIXTURES; i++) {
		if ((p = open_fixture(&fixtures[i], &data, &len)) == NULL)
			continue;
		if (tsv_read(&a, fixtures[i].name, "addr.tsv", 8) == -1) {
			harness_failed++;
			pdb_free(p);
			free(data);
			continue;
		}
		CHECK(a.rows > 50);
		for (row = 0; row < a.rows; row++) {
			rva = (uint32_t)strtoul(tsv_field(&a, row, 0), NULL,
			    16);
			if (check_procedure(p, rva, tsv_field(&a, row, 4),
			    tsv_field(&a, row, 1)))
				procs++;
			else {
				f = pdb_lookup(p, rva);
				printf("  %s 0x%x: procedure %s+0x%x, expected "
				    "%s\n", fixtures[i].name, rva, f ? f->name :
				    "none", f ? rva - f->rva : 0,
				    tsv_field(&a, row, 4));
				harness_failed++;
			}
			if (check_public(p, rva, tsv_field(&a, row, 5),
			    &aliases))
				publics++;
			else {
				f = pdb_lookup_public(p, rva);
				printf("  %s 0x%x: public %s+0x%x, expected %s\n",
				    fixtures[i].name, rva, f ? f->name : "none",
				    f ? rva - f->rva : 0, tsv_field(&a, row, 5));
				harness_failed++;
			}
			/* Without a procedure, a thunk or the public. */
			f = pdb_lookup(p, rva);
			if (*tsv_field(&a, row, 4) == '\0' && f != NULL &&
			    f->kind == PDB_PUBLIC)
				CHECK(f == pdb_lookup_public(p, rva));
		}
		tsv_free(&a);
		pdb_free(p);
		free(data);
	}
	printf("  %d procedures and %d publics agree, %d of them publics "
	    "at the same address as the oracle's\n", procs, publics, aliases);
}

/* A portable (managed) PDB is refused, as such. */
static void
test_pdb_portable(void)
{
	unsigned char *data;
	struct pdb *p;
	size_t len;

	if (harness_corpus() == NULL)
		SKIP("corpus absent (../shared/corpus or ETL_CORPUS)");
	data = corpus_file("Managed_x64_VS2019_CSharp_DebugType_Portable",
	    "pdb", &len);
	REQUIRE(data != NULL);
	REQUIRE((p = pdb_new()) != NULL);
	CHECK_EQ_INT(pdb_open_mem(p, data, len), PDB_FATAL);
	CHECK_EQ_STR(pdb_error(p), "not an MSF PDB: this is a portable PDB "
	    "(offset 0x0)");
	pdb_free(p);
	free(data);
}

/* The 8192-byte pages are read: the fixture is what its name says. */
static void
test_pdb_page_size_8192(void)
{
	const struct fixture *fx = &fixtures[2];
	unsigned char *data;
	struct pdb *p;
	size_t len, n;

	if (harness_corpus() == NULL)
		SKIP("corpus absent (../shared/corpus or ETL_CORPUS)");
	if ((p = open_fixture(fx, &data, &len)) == NULL)
		return;
	CHECK_EQ_INT(le32(data + 32), 8192);
	pdb_functions(p, &n);
	CHECK_EQ_INT(n, 449);	/* the rows of its oracle */
	CHECK(lookup_is(p, 0x11a76, "std::operator<<<std::char_traits<char> >",
	    PDB_PROCEDURE));
	pdb_free(p);
	free(data);
}

/* A place to damage: the superblock, the directory, or anywhere. */
static size_t
mutation_place(const unsigned char *data, size_t len, uint64_t *rng)
{
	uint32_t ps = le32(data + 32), map = le32(data + 52), dir;
	uint64_t r = next_random(rng);

	switch (r % 4) {
	case 0:
		return (size_t)(r >> 8) % 64;
	case 1:
		dir = le32(data + (size_t)map * ps);
		if ((uint64_t)dir * ps + ps <= len)
			return (size_t)dir * ps + (size_t)(r >> 8) % 1024;
		/* FALLTHROUGH */
	default:
		return (size_t)(r >> 8) % len;
	}
}

/*
 * Bytes overwritten at random places, the directory's and the
 * superblock's most, and random truncations: the reader fails cleanly
 * or gives a consistent result, and never reads out of bounds.
 */
static void
test_pdb_mutations(void)
{
	static const uint32_t values[] = { 0, 1, 0x7fffffff, 0x80000000,
	    0xffffffff, 0xffff, 0x1000, 0x10000 };
	uint64_t rng = 0x2545f4914f6cdd1dULL, r;
	int bad = 0, round, k, nk, fatal = 0, rounds = 0;
	unsigned char *data, *copy;
	size_t i, len, at;
	uint32_t v;

	if (harness_corpus() == NULL)
		SKIP("corpus absent (../shared/corpus or ETL_CORPUS)");
	for (i = 0; i < NFIXTURES; i++) {
		if ((data = corpus_file(fixtures[i].name, "pdb", &len)) == NULL ||
		    (copy = malloc(len)) == NULL) {
			free(data);
			harness_failed++;
			continue;
		}
		for (round = 0; round < 150; round++, rounds++) {
			memcpy(copy, data, len);
			nk = 1 + (int)(next_random(&rng) % 8);
			for (k = 0; k < nk; k++) {
				at = mutation_place(data, len, &rng) & ~(size_t)3;
				r = next_random(&rng);
				v = r & 1 ? values[(r >> 1) % 8] : (uint32_t)(r >> 8);
				if (at + 4 <= len)
					memcpy(copy + at, &v, 4);
			}
			fatal += open_copy(copy, len, &rng, &bad) == PDB_FATAL;
		}
		for (round = 0; round < 40; round++, rounds++)
			fatal += open_copy(data, (size_t)(next_random(&rng) %
			    len), &rng, &bad) == PDB_FATAL;
		free(copy);
		free(data);
	}
	CHECK_EQ_INT(bad, 0);
	printf("  %d damaged files, %d refused\n", rounds, fatal);
}

int
main(void)
{
	RUN(test_pdb_built);
	RUN(test_pdb_not_msf);
	RUN(test_pdb_damaged);
	RUN(test_pdb_identity);
	RUN(test_pdb_oracle);
	RUN(test_pdb_addresses);
	RUN(test_pdb_portable);
	RUN(test_pdb_page_size_8192);
	RUN(test_pdb_mutations);
	HARNESS_EXIT();
}
