/*
 * fuzz_views.c - the code after the parsers: a stream read as etlagg
 * reads it into every view, each view's tables written as etlagg writes
 * them, then drawn in every etlreport format, and merged back into the
 * view that made them (etlagg --merge).  The views whose tables
 * view_merge.c merges (vmem, heap, heapsnap) merge both their tables and
 * the input itself, as etlagg VIEW --merge would: given events, as a
 * user may give them, they have no table to write.  The input stream
 * itself is drawn in every format too (events, rustc queries).
 *
 * With libxlsxwriter, xlsx draws two workbooks an input, each written
 * to a temporary file and removed: one of every view's tables, their
 * streams one after another as a `+` chain writes them (a workbook a
 * view would take four times as long, in the files it makes), and one
 * of the input.  A first byte with its high bit set cuts their sheets
 * after a few rows, as a table past Excel's rows is cut.
 *
 * The first byte picks one more view with options (--by, --instances,
 * --timeline, --diff, windows, --by query, which a profile section of
 * the stream joins to its trace; see variants[]); the rest is the stream,
 * which is read as it is if it starts like a zstd frame, and is
 * otherwise taken as the records themselves and put into a frame first
 * (as fuzz_stream does).
 *
 * Invariants beyond the sanitizers: a view never fails to write its
 * tables into memory, a renderer never reports a write error into
 * memory, and what a view wrote reads back; a merge writes a table
 * exactly when its input holds one of the view's (so that etlagg, which
 * refuses an input of events for such a merge, refuses what would have
 * given nothing).
 */
#include <unistd.h>

#include <zstd.h>

#include "render/render.h"
#include "report/formats.h"
#include "stream/loss.h"
#include "model/model.h"
#include "views/view.h"
#include "views/view_merge.h"
#include "fuzz.h"

/* The views with options, one of which runs with the defaults of all. */
static const char *const variants[][6] = {
	{ "cpu", "--by=stack" }, { "cpu", "--by=stack", "--instances" },
	{ "cpu", "--by=function" },
	{ "cpu", "--by=module", "--addresses" }, { "cpu", "--no-idle" },
	{ "vmem", "--by=stack", "--weight=committed" }, { "vmem", "--timeline" },
	{ "vmem", "--from=0", "--to=1" }, { "vmem", "--at=0.5" },
	{ "vmem", "--by=stack", "--instances" },
	{ "heap", "--by=stack" }, { "heap", "--by=stack", "--instances" },
	{ "heap", "--by=function" },
	{ "heapsnap", "--by=stack" }, { "heapsnap", "--diff=1", "2" },
	{ "threads", "--by=process" }, { "threads", "--tid=1,2,600" },
	{ "waits", "--by=reason" }, { "waits", "--by=thread" },
	{ "waits", "--by=function" }, { "waits", "--by=stack", "--instances" },
	{ "switches", "--from=0", "--to=0.5" },
	{ "threadtime", "--by=stack" }, { "processes" },
	{ "cpu", "--by=query" }, { "cpu", "--by=query+function" },
	{ "cpu", "--by=query+stack", "--addresses" },
	{ "waits", "--by=query" }, { "waits", "--by=query", "--from=0",
	    "--to=1" },
};

static const char *const formats[] = {
	"text", "csv", "jsonl", "counts", "chrome", "folded", "svg",
	"speedscope", "html",
};

static FILE *devnull;
/* The file a format that writes files of its own (xlsx) writes. */
static char files_out[4096];
/* Every view's tables of an input, for one workbook of them all. */
static FILE *all_tables;

#ifndef ETL_NO_XLSX
/*
 * A name for the workbook, in $TMPDIR or /tmp: a file made once with
 * mkstemp(), so that no other process has the name, which the renderer
 * replaces and render_one() removes after each workbook.
 */
static void
make_files_out(void)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(files_out, sizeof(files_out), "%s/fuzz_views-XXXXXX",
	    dir != NULL && *dir != '\0' ? dir : "/tmp");
	if ((fd = mkstemp(files_out)) < 0)
		abort();
	close(fd);
}
#endif

static void
quiet(const char *fmt, ...)
{
	(void)fmt;
}

/* Draws the stream in `data` in one format, as etlreport does. */
static void
render_one(const char *format, const void *data, size_t len)
{
	const struct render_format *fmt = render_find(format);
	struct loss loss = { 0 };
	struct render_options opt = { .loss = &loss, .warn = quiet };
	struct stream_reader *r;
	struct stream_record rec;
	struct render *rd;
	char tmp[sizeof(files_out) + 8];
	int files;

	if (fmt == NULL)
		fuzz_fail("no such format", format);
	if ((files = render_writes_files(format, &opt)) != 0)
		opt.out = files_out;
	if ((r = stream_reader_new(fmt->ops->reader_flags)) == NULL ||
	    (rd = fmt->ops->open(files ? NULL : devnull, format, &opt)) ==
	    NULL)
		abort();
	stream_reader_open_mem(r, data, len, "fuzz.st");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (rec.type == REC_DIAG)
			loss_add_diag(&loss, &rec.u.diag);
		if (fmt->ops->record(rd, r, &rec) != 0)
			fuzz_fail("a renderer failed on a record", format);
	}
	if (fmt->ops->close(rd) < 0)
		fuzz_fail("a renderer failed to close", format);
	stream_reader_free(r);
	if (files) {
		/* The workbook, and what a failure would have left. */
		remove(files_out);
		snprintf(tmp, sizeof(tmp), "%s.tmp", files_out);
		remove(tmp);
	}
}

static void
render_all(const void *data, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		render_one(formats[i], data, len);
}

/* The workbook of a stream, in a build that has the format. */
static void
render_xlsx(const void *data, size_t len)
{
#ifndef ETL_NO_XLSX
	if (files_out[0] == '\0')
		make_files_out();
	render_one("xlsx", data, len);
#else
	(void)data;
	(void)len;
#endif
}

/*
 * Feeds the stream to a view made from argv, as etlagg does (DIAG and
 * unknown records passed on; the model its views share fed around
 * them), and its tables into `sink`.
 */
static void
aggregate(const struct view_ops *ops, int argc, char **argv,
    const void *data, size_t len, struct fuzz_sink *sink)
{
	struct stream_reader *r = stream_reader_new(ops->reader_flags);
	struct stream_writer *w;
	struct stream_record rec;
	struct stream_end end = { 0 };
	struct model *m = model_new();
	struct view *v;
	int used;

	if (r == NULL || m == NULL || (w = fuzz_sink_open(sink)) == NULL)
		abort();
	if (ops->field_kinds != 0)
		stream_reader_fields_of(r, ops->field_kinds);
	if ((v = ops->create(argc, argv, &used, m)) == NULL)
		fuzz_fail("a view refused its options", argv[0]);
	if (stream_write_header(w, "fuzz_views") != 0)
		fuzz_fail("the writer failed on the header", NULL);
	stream_reader_open_mem(r, data, len, "fuzz.st");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (model_before(m, r, &rec) != 0 ||
		    ops->record(v, r, &rec) != 0 ||
		    model_after(m, r, &rec) != 0)
			fuzz_fail("a view failed on a record", ops->name);
		if ((!stream_rec_known(rec.type) || rec.type == REC_DIAG) &&
		    stream_write_record(w, &rec) != 0)
			fuzz_fail("the writer refused a record the reader "
			    "accepted", ops->name);
	}
	model_close(m);
	if (ops->finish(v, w) != 0 || stream_write_end(w, &end) != 0)
		fuzz_fail("a view failed to write its tables", ops->name);
	ops->destroy(v);
	model_free(m);
	stream_reader_free(r);
	fuzz_sink_close(sink, w);
}

/* Whether `name` is in the NULL-terminated `list`. */
static int
listed(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/* The tables in a stream that reads (fuzz_check_stream() said so). */
static unsigned
count_tables(const void *data, size_t len)
{
	struct stream_reader *r = stream_reader_new(0);
	struct stream_record rec;
	unsigned n = 0;

	if (r == NULL)
		abort();
	stream_reader_open_mem(r, data, len, "merged");
	while (stream_reader_next(r, &rec) == STREAM_OK)
		n += rec.type == REC_TABLE;
	stream_reader_free(r);
	return n;
}

/*
 * etlagg VIEW --merge over the stream in `data`, through view_merge.c:
 * what it writes reads back, and holds a table when the input held one
 * of the view's, and none otherwise (an input of events alone).
 */
static void
merge_view(const struct view_ops *ops, const void *data, size_t len)
{
	struct stream_reader *r = stream_reader_new(0);
	struct view_merge *m = view_merge_new(ops->merge);
	struct stream_end end = { 0 };
	struct stream_record rec;
	struct stream_writer *w;
	struct fuzz_sink sink;
	unsigned ours = 0;

	if (r == NULL || m == NULL || (w = fuzz_sink_open(&sink)) == NULL)
		abort();
	if (stream_write_header(w, "fuzz_views") != 0)
		fuzz_fail("the writer failed on the header", NULL);
	stream_reader_open_mem(r, data, len, "fuzz.st");
	while (stream_reader_next(r, &rec) == STREAM_OK) {
		if (view_merge_record(m, &rec) != 0)
			fuzz_fail("a merge failed on a record", ops->name);
		ours += rec.type == REC_TABLE &&
		    listed(ops->merge->tables, rec.u.table.name);
	}
	if (view_merge_write(m, w) != 0 || stream_write_end(w, &end) != 0)
		fuzz_fail("a merge failed to write its table", ops->name);
	fuzz_sink_close(&sink, w);
	fuzz_check_stream(sink.buf, sink.len);
	if ((count_tables(sink.buf, sink.len) > 0) != (ours > 0))
		fuzz_fail(ours > 0 ? "a merge of tables wrote none" :
		    "a merge without a table to merge wrote one", ops->name);
	fuzz_sink_free(&sink);
	view_merge_free(m);
	stream_reader_free(r);
}

/*
 * One view: its tables checked, drawn, and merged into the view again;
 * with view_merge.c, its tables and the input merged as --merge would.
 */
static void
run_view(const struct view_ops *ops, int argc, char **argv, const void *data,
    size_t len)
{
	struct fuzz_sink out, merged;

	aggregate(ops, argc, argv, data, len, &out);
	fuzz_check_stream(out.buf, out.len);
	render_all(out.buf, out.len);
	fwrite(out.buf, 1, out.len, all_tables);
	if (ops->tables != NULL) {
		aggregate(ops, argc, argv, out.buf, out.len, &merged);
		fuzz_check_stream(merged.buf, merged.len);
		fuzz_sink_free(&merged);
	}
	if (ops->merge != NULL) {
		merge_view(ops, out.buf, out.len);
		merge_view(ops, data, len);
	}
	fuzz_sink_free(&out);
}

static void
run_all(uint8_t pick, const void *data, size_t len)
{
	const struct view_ops *ops;
	const char *const *var = variants[pick % (sizeof(variants) /
	    sizeof(variants[0]))];
	char *argv[7] = { 0 };
	char *all = NULL;
	size_t i, all_len = 0;
	int argc = 0;

	/* xlsx's sheets cut after 4 rows (render_xlsx.c reads it at open). */
	if (pick & 0x80)
		setenv("ETL_XLSX_ROWS", "4", 1);
	else
		unsetenv("ETL_XLSX_ROWS");
	if ((all_tables = open_memstream(&all, &all_len)) == NULL)
		abort();
	for (i = 0; (ops = view_at(i)) != NULL; i++) {
		argv[0] = (char *)ops->name;
		argv[1] = NULL;
		run_view(ops, 1, argv, data, len);
	}
	while (argc < 6 && var[argc] != NULL) {
		argv[argc] = (char *)var[argc];
		argc++;
	}
	argv[argc] = NULL;
	if ((ops = view_find(argv[0])) == NULL)
		fuzz_fail("no such view", argv[0]);
	/* cpu --by query and the like are another view's (the query join). */
	run_view(view_serving(ops, argc, argv), argc, argv, data, len);
	render_all(data, len);
	if (fclose(all_tables) != 0)
		abort();
	render_xlsx(all, all_len);
	render_xlsx(data, len);
	free(all);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, n;
	void *frame;

	if (size < 1)
		return 0;
	if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
		abort();
	if (stream_probe(data + 1, size - 1) || size - 1 > STREAM_FRAME_MAX) {
		run_all(data[0], data + 1, size - 1);
		return 0;
	}
	cap = ZSTD_compressBound(size - 1);
	if ((frame = malloc(cap)) == NULL)
		abort();
	n = ZSTD_compress(frame, cap, data + 1, size - 1, 1);
	if (ZSTD_isError(n))
		abort();
	run_all(data[0], frame, n);
	free(frame);
	return 0;
}
