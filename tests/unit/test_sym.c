/*
 * test_sym.c - the symbol side beyond the corpus: an MSF whose page
 * list repeats a page (issue 8: 4 GB from a 512 KB file), the checks on
 * untrusted PDB names, the store key, and PE CodeView records.
 */
#include <stdint.h>

#include "sym/msf.h"
#include "sym/pdb.h"
#include "base/platform.h"
#include "stream/stream.h"
#include "sym/sym_path.h"
#include "sym/sym_pe.h"
#include "base/value.h"
#include "harness.h"

#define PS	512

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/*
 * An MSF of page size 512: superblock (page 0), directory page map
 * (page 3), directory (pages 4..), one data page after it; stream 0's
 * page list is that data page `repeat` times.  @return its length.
 */
static size_t
repeated_msf(unsigned char *f, size_t cap, uint32_t repeat)
{
	uint32_t dir_size = 8 + 4 * repeat;
	uint32_t dir_pages = (dir_size + PS - 1) / PS, data, i;
	size_t len = (size_t)(5 + dir_pages) * PS;
	unsigned char *dir = f + 4 * PS;

	if (len > cap || dir_pages > PS / 4)
		return 0;
	memset(f, 0, len);
	memcpy(f, "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0", 32);
	put32(f + 32, PS);
	put32(f + 36, 1);
	put32(f + 40, (uint32_t)(len / PS));
	put32(f + 44, dir_size);
	put32(f + 52, 3);
	for (i = 0; i < dir_pages; i++)
		put32(f + 3 * PS + 4 * i, 4 + i);
	data = 4 + dir_pages;
	put32(dir, 1);
	put32(dir + 4, repeat * PS);
	for (i = 0; i < repeat; i++)
		put32(dir + 8 + 4 * i, data);
	memset(f + (size_t)data * PS, 0xab, PS);
	return len;
}

static void
test_msf_repeated_page(void)
{
	static unsigned char file[64 * PS];
	struct buf scratch = { 0 };
	const unsigned char *data;
	char err[MSF_ERROR_LEN];
	size_t len, n;
	struct msf *m;

	/* 120 copies of one page: 60 KB claimed from a 4 KB file. */
	REQUIRE((len = repeated_msf(file, sizeof(file), 120)) > 0);
	REQUIRE((m = msf_open(file, len, err, sizeof(err))) != NULL);
	CHECK_EQ_INT(msf_stream(m, 0, &scratch, &data, &n, err, sizeof(err)),
	    -1);
	CHECK(strstr(err, "page 5 appears twice") != NULL);
	CHECK(strstr(err, "(offset 0x") != NULL);
	CHECK(scratch.cap <= len);
	msf_free(m);
	/* Once is fine. */
	REQUIRE((len = repeated_msf(file, sizeof(file), 1)) > 0);
	REQUIRE((m = msf_open(file, len, err, sizeof(err))) != NULL);
	CHECK_EQ_INT(msf_stream(m, 0, &scratch, &data, &n, err, sizeof(err)),
	    0);
	CHECK_EQ_INT(n, PS);
	msf_free(m);
	buf_release(&scratch);
}

static void
test_safe_names(void)
{
	char out[64];

	CHECK_EQ_STR(sym_safe_name("C:\\build\\x\\rustc_driver.pdb", out,
	    sizeof(out)), "rustc_driver.pdb");
	CHECK_EQ_STR(sym_safe_name("/b/../../etc/foo.pdb", out, sizeof(out)),
	    "foo.pdb");
	CHECK(sym_safe_name("..", out, sizeof(out)) == NULL);
	CHECK(sym_safe_name("a\\..", out, sizeof(out)) == NULL);
	CHECK(sym_safe_name("C:evil.pdb", out, sizeof(out)) == NULL);
	CHECK(sym_safe_name("x.pdb:stream", out, sizeof(out)) == NULL);
	CHECK(sym_safe_name("dir/", out, sizeof(out)) == NULL);
	CHECK(sym_safe_name("a\nb.pdb", out, sizeof(out)) == NULL);
	CHECK(sym_safe_name("", out, sizeof(out)) == NULL);
}

static void
test_key(void)
{
	/* pdb-format.md 2.1: raw RSDS bytes and their text form. */
	static const unsigned char g[16] = { 0x41, 0x92, 0x25, 0xa6, 0x78,
	    0x8d, 0x49, 0x07, 0x4c, 0x4c, 0x44, 0x20, 0x50, 0x44, 0x42, 0x2e };
	char key[41];

	value_format_pdb_key(g, 1, key);
	CHECK_EQ_STR(key, "A62592418D7807494C4C44205044422E1");
	value_format_pdb_key(g, 0x1a, key);
	CHECK_EQ_STR(key, "A62592418D7807494C4C44205044422E1A");
}

static void
test_unsafe_name_finds_nothing(void)
{
	static const unsigned char g[16] = { 1 };
	struct sym_found found;
	struct sym_path *sp;
	char err[128];

	REQUIRE((sp = sym_path_new("/nonexistent-dir;cache*/nonexistent-c",
	    err, sizeof(err))) != NULL);
	CHECK_EQ_INT(sym_path_find(sp, "..", g, 1, NULL, &found), 0);
	CHECK_EQ_INT(found.status, SYM_NOT_FOUND);
	CHECK(strstr(found.message, "unsafe PDB name") != NULL);
	CHECK(found.pdb == NULL);
	CHECK_EQ_INT(sym_path_map(sp, "noequals"), -1);
	CHECK_EQ_INT(sym_path_map(sp, "C:\\b=/tmp/b"), 0);
	sym_path_free(sp);
}

static void
test_pe_hostile(void)
{
	unsigned char f[512];
	struct sym_pe pe;
	char err[128];

	memset(f, 0, sizeof(f));
	f[0] = 'M';
	f[1] = 'Z';
	put32(f + 0x3c, 0xfffffff0u);
	CHECK_EQ_INT(sym_pe_read(f, sizeof(f), &pe, err, sizeof(err)), -1);
	CHECK(strstr(err, "(offset 0x3c)") != NULL);
	put32(f + 0x3c, 0x40);
	memcpy(f + 0x40, "PE\0\0", 4);
	f[0x40 + 20] = 0xf0;	/* optional header size */
	f[0x40 + 24] = 0x0b;
	f[0x40 + 25] = 0x02;	/* PE32+ */
	put32(f + 0x40 + 24 + 108, 16);	/* directories */
	put32(f + 0x40 + 24 + 112 + 48, 0x1000);	/* debug dir RVA */
	put32(f + 0x40 + 24 + 112 + 52, 28 * 1000);
	CHECK_EQ_INT(sym_pe_read(f, sizeof(f), &pe, err, sizeof(err)), 0);
	CHECK_EQ_INT(pe.has_codeview, 0);
}

/* SYMBOL and IMAGE_SYMBOLS records read back as they were written. */
static void
test_stream_records(void)
{
	static const struct stream_inline in[2] = {
		{ "core::ptr::drop_in_place", "ptr/mod.rs", 188 },
		{ "alloc::sync::impl$27::drop", "", 0 },
	};
	struct stream_symbol sym = { 1, 7, 0x7ffae0d5605e, "main::main", 0x1e,
	    "src\\main.rs", 12, 2, in };
	struct stream_image_symbols is = { 7, STREAM_SYM_MISMATCH,
	    { 0xa6, 1 }, 3, "x.pdb", "/s/x.pdb", "PDB does not match", 10, 4,
	    0 };
	struct stream_end end = { 0 };
	struct stream_record rec;
	struct stream_reader *r;
	struct stream_writer *w;
	FILE *fp = tmpfile();
	int seen = 0;

	REQUIRE(fp != NULL);
	REQUIRE((w = stream_writer_new(fp, 1)) != NULL);
	CHECK_EQ_INT(stream_write_header(w, "test"), 0);
	CHECK_EQ_INT(stream_write_symbol(w, &sym), 0);
	CHECK_EQ_INT(stream_write_image_symbols(w, &is), 0);
	CHECK_EQ_INT(stream_write_end(w, &end), 0);
	CHECK_EQ_INT(stream_writer_close(w), 0);
	rewind(fp);
	REQUIRE((r = stream_reader_new(0)) != NULL);
	stream_reader_open_file(r, fp, "t");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (rec.type == REC_HEADER) {
			CHECK_EQ_INT(rec.u.header.major, STREAM_VERSION_MAJOR);
			CHECK_EQ_INT(rec.u.header.minor, STREAM_VERSION_MINOR);
		}
		if (rec.type == REC_SYMBOL) {
			const struct stream_symbol *s = &rec.u.symbol;

			seen++;
			CHECK_EQ_INT(s->image, 7);
			CHECK(s->address == 0x7ffae0d5605eULL);
			CHECK_EQ_STR(s->function, "main::main");
			CHECK_EQ_INT(s->offset, 0x1e);
			CHECK_EQ_STR(s->file, "src\\main.rs");
			CHECK_EQ_INT(s->line, 12);
			REQUIRE(s->ninlines == 2);
			CHECK_EQ_STR(s->inlines[0].function,
			    "core::ptr::drop_in_place");
			CHECK_EQ_INT(s->inlines[0].line, 188);
			CHECK_EQ_STR(s->inlines[1].file, "");
		}
		if (rec.type == REC_IMAGE_SYMBOLS) {
			const struct stream_image_symbols *x =
			    &rec.u.image_symbols;

			seen++;
			CHECK_EQ_INT(x->status, STREAM_SYM_MISMATCH);
			CHECK_EQ_INT(x->pdb_guid[0], 0xa6);
			CHECK_EQ_INT(x->pdb_age, 3);
			CHECK_EQ_STR(x->pdb_name, "x.pdb");
			CHECK_EQ_STR(x->pdb_path, "/s/x.pdb");
			CHECK_EQ_STR(x->message, "PDB does not match");
			CHECK_EQ_INT(x->frames, 10);
			CHECK_EQ_INT(x->addresses, 4);
		}
	}
	CHECK_EQ_INT(seen, 2);
	CHECK(!stream_reader_truncated(r));
	stream_reader_free(r);
	fclose(fp);
}

/* An image found by time stamp and size in a store, and its RSDS. */
static void
test_find_image(void)
{
	static const char name[] = "Native_x64_RustC_Rust_debuginfo2_v1.58.1";
	char src[4096], dir[1024], path[4096], err[128];
	unsigned char *data;
	struct sym_path *sp;
	struct sym_pe pe;
	size_t len;
	FILE *fp;

	if (harness_corpus() == NULL)
		SKIP("corpus absent (../shared/corpus or ETL_CORPUS)");
	snprintf(src, sizeof(src), "%s/pdb/%s.exe", harness_corpus(), name);
	REQUIRE((data = harness_slurp(src, &len)) != NULL);
	REQUIRE(platform_temp_file(dir, sizeof(dir)) != NULL);
	remove(dir);
	snprintf(path, sizeof(path), "%s/%s.exe", dir, name);
	REQUIRE(platform_mkdir(dir) == 0 && platform_mkdir(path) == 0);
	snprintf(path, sizeof(path), "%s/%s.exe/620AC5D329000", dir, name);
	REQUIRE(platform_mkdir(path) == 0);
	snprintf(path, sizeof(path), "%s/%s.exe/620AC5D329000/%s.exe", dir,
	    name, name);
	REQUIRE((fp = fopen(path, "wb")) != NULL);
	fwrite(data, 1, len, fp);
	fclose(fp);
	REQUIRE((sp = sym_path_new(dir, err, sizeof(err))) != NULL);
	CHECK_EQ_INT(sym_path_find_image(sp, "C:\\x\\" "Native_x64_RustC_Rust"
	    "_debuginfo2_v1.58.1.exe", 0x620ac5d3, 0x29000, &pe), 0);
	CHECK_EQ_INT(pe.has_codeview, 1);
	CHECK_EQ_INT(pe.age, 1);
	CHECK(strstr(pe.pdb, "Native_x64_RustC_Rust_debuginfo2_v1.58.1.pdb")
	    != NULL);
	/* Another time stamp is another image. */
	CHECK_EQ_INT(sym_path_find_image(sp, "Native_x64_RustC_Rust_debuginfo"
	    "2_v1.58.1.exe", 0x620ac5d4, 0x29000, &pe), -1);
	sym_path_free(sp);
	remove(path);
	snprintf(path, sizeof(path), "%s/%s.exe/620AC5D329000", dir, name);
	remove(path);		/* directories, empty now */
	snprintf(path, sizeof(path), "%s/%s.exe", dir, name);
	remove(path);
	remove(dir);
	free(data);
}

int
main(void)
{
	RUN(test_msf_repeated_page);
	RUN(test_safe_names);
	RUN(test_key);
	RUN(test_unsafe_name_finds_nothing);
	RUN(test_pe_hostile);
	RUN(test_stream_records);
	RUN(test_find_image);
	HARNESS_EXIT();
}
