/*
 * etlsym - names for stack frames.
 *
 * Stream mode passes a stream through and adds, before each section's
 * END, the symbol records that its stacks need (lib/sym/sym_stream.c).
 * Address mode (-e) answers for RVAs of one image or PDB, as addr2line
 * and llvm-symbolizer do; --demangle demangles names, as rustfilt does.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/platform.h"
#include "stream/stream.h"
#include "sym/sym_demangle.h"
#include "sym/sym_path.h"
#include "sym/sym_pe.h"
#include "sym/sym_resolve.h"
#include "sym/sym_stream.h"

#define PRODUCER "etlsym 0.1"

enum {
	OPT_MAP_PATH = 256,
	OPT_DEMANGLE
};

static _Noreturn void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: etlsym [-fqv] [-y sympath] [--map-path from=to] "
	    "[-o file] [file ...]\n"
	    "       etlsym -e image [-i] [-y sympath] [rva ...]\n"
	    "       etlsym --demangle [name ...]\n");
	if (status == CLI_OK)
		fprintf(fp,
		    "Add the names of stack frames to a stream, from PDBs.\n"
		    "  -e image          address mode: name RVAs (hex) of "
		    "an image or PDB\n"
		    "  -f                write the stream even to a terminal\n"
		    "  -i                with -e, inlined frames too\n"
		    "  -o file           write to file instead of standard "
		    "output\n"
		    "  -q                say only what went wrong (corrupt PDBs, errors)\n"
		    "  -v                say what was found too, and where "
		    "it was looked for\n"
		    "  -y sympath        symbol path (else _NT_SYMBOL_PATH): "
		    "dir;cache*dir;\n"
		    "                    srv*store*https://server\n"
		    "  --map-path from=to  read recorded PDB paths under from "
		    "in to\n"
		    "  --demangle        demangle names (standard input when "
		    "none)\n"
		    "  -h, --help        this text\n"
		    "  --version         the version\n"
		    "With no file, or when file is -, read standard input.\n"
		    "A trace (.etl) or rustc profile (.mm_profdata) named as\n"
		    "file is decoded first, as etlcat -q decodes it.\n");
	exit(status);
}

/* ---- stream mode ---- */

struct run {
	struct sym_stream *ss;
	struct stream_writer *w;
	const char *out;
	int open;		/* a section is open */
};

static int
pump(void *ctx, const struct stream_reader *r, const struct stream_record *rec)
{
	struct run *run = ctx;

	if (sym_stream_record(run->ss, r, rec) != 0)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (rec->type == REC_END) {
		if (sym_stream_flush(run->ss, r, run->w) != 0)
			cli_write_error(run->out);
		run->open = 0;
	} else if (rec->type == REC_HEADER)
		run->open = 1;
	/* Symbols of an earlier run are replaced by this one's. */
	if (rec->type == REC_SYMBOL || rec->type == REC_IMAGE_SYMBOLS)
		return 0;
	if (stream_write_record(run->w, rec) != 0)
		cli_write_error(run->out);
	return 0;
}

static int
stream_mode(struct sym_path *sp, int argc, char *argv[], const char *out,
    int force, int verbose)
{
	struct stream_reader *r;
	struct cli_inputs in;
	struct run run;
	FILE *fp;
	int status = CLI_OK, i;

	fp = cli_open_output(out, 1, force, argc, argv);
	memset(&run, 0, sizeof(run));
	run.out = out;
	r = stream_reader_new(STREAM_KEEP_STACKS);
	run.w = cli_stream_writer(fp, CLI_STREAM_LEVEL);
	run.ss = sym_stream_new(sp, "etlsym");
	if (r == NULL || run.ss == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	cli_inputs_init(&in, r);
	in.quiet = verbose < 0;
	for (i = 0; i < (argc > 0 ? argc : 1); i++) {
		run.open = 0;
		if (cli_read_stream(&in, argc > 0 ? argv[i] : "-", pump, &run) !=
		    CLI_OK)
			status = CLI_DATA_ERROR;
		/* A section cut short still gets its symbols. */
		if (run.open && sym_stream_flush(run.ss, r, run.w) != 0)
			cli_write_error(out);
	}
	if (stream_writer_close(run.w) != 0)
		cli_write_error(out);
	if (sym_stream_summary(run.ss, stderr, verbose) != 0)
		status = CLI_DATA_ERROR;
	sym_stream_free(run.ss);
	stream_reader_free(r);
	if (cli_close_output(fp, out, in.read > 0) != CLI_OK)
		status = CLI_DATA_ERROR;
	return status;
}

/* ---- address mode ---- */

/* The directory part of a path, "." if none. */
static void
dir_of(const char *path, char *out, size_t cap)
{
	const char *p, *slash = NULL;

	for (p = path; *p != '\0'; p++)
		if (*p == '/' || *p == '\\')
			slash = p;
	if (slash == NULL)
		snprintf(out, cap, ".");
	else
		snprintf(out, cap, "%.*s", (int)(slash - path + (slash == path)),
		    path);
}

/* The PDB of an image (by its CodeView record) or the PDB itself. */
static struct pdb *
open_target(const char *path, struct sym_path *sp)
{
	struct mapped_file m;
	struct sym_found found;
	struct sym_pe pe;
	char err[600], dir[4096];
	struct pdb *p = NULL;
	enum sym_status st;
	int image;

	if (platform_map_file(path, &m) != 0)
		cli_fatal(CLI_DATA_ERROR, "%s: %s", path, strerror(errno));
	image = sym_pe_is_image(m.data, m.len);
	if (image && sym_pe_read(m.data, m.len, &pe, err, sizeof(err)) != 0) {
		platform_unmap_file(&m);
		cli_fatal(CLI_DATA_ERROR, "%s: %s", path, err);
	}
	platform_unmap_file(&m);
	if (!image) {
		st = sym_open_pdb(path, NULL, 0, &p, err, sizeof(err));
		if (st != SYM_FOUND)
			cli_fatal(CLI_DATA_ERROR, "%s: %s", path, err);
		if (*err != '\0')
			cli_warn("%s: %s", path, err);
		return p;
	}
	if (!pe.has_codeview)
		cli_fatal(CLI_DATA_ERROR, "%s: no CodeView record: the image "
		    "names no PDB", path);
	dir_of(path, dir, sizeof(dir));
	if (sym_path_find(sp, pe.pdb, pe.guid, pe.age, dir, &found) != 0)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (found.status != SYM_FOUND)
		cli_fatal(CLI_DATA_ERROR, "%s: PDB %s %s%s%s%s%s", path, pe.pdb,
		    found.status == SYM_MISMATCH ? "mismatched" :
		    found.status == SYM_CORRUPT ? "unreadable" : "not found",
		    *found.path ? ": " : "", found.path,
		    *found.message ? ": " : "", found.message);
	if (*found.message != '\0')
		cli_warn("%s: %s", found.path, found.message);
	return found.pdb;
}

static void
print_frame(const char *function, const char *file, uint32_t line)
{
	printf("%s\t%s:%" PRIu32 "\n", function ? function : "??",
	    file && line ? file : "??", file && line ? line : 0);
}

static int
answer(const struct pdb *p, const char *text, int inlines,
    struct sym_answer *a)
{
	char *end;
	unsigned long long v;
	size_t i;

	errno = 0;
	v = strtoull(text, &end, 16);
	if (end == text || *end != '\0' || errno != 0 || v > UINT32_MAX) {
		cli_warn("%s: not an RVA in hex", text);
		return CLI_DATA_ERROR;
	}
	sym_resolve(p, (uint32_t)v, inlines, a);
	for (i = 0; i < a->ninlines; i++)
		print_frame(a->inlines[i].name, a->inlines[i].file,
		    a->inlines[i].line);
	print_frame(a->function, a->file, a->line);
	if (inlines)
		putchar('\n');
	return CLI_OK;
}

/* Each whitespace-separated word of each line of fp. */
static int
each_word(FILE *fp, int (*fn)(const char *, void *), void *ctx)
{
	char line[8192], *w;
	int status = CLI_OK;

	while (fgets(line, sizeof(line), fp) != NULL)
		for (w = strtok(line, " \t\r\n"); w != NULL;
		    w = strtok(NULL, " \t\r\n")) {
			if (fn(w, ctx) != CLI_OK)
				status = CLI_DATA_ERROR;
			fflush(stdout);
		}
	return status;
}

struct addr_ctx {
	const struct pdb *p;
	int inlines;
	struct sym_answer a;
};

static int
one_address(const char *w, void *ctx)
{
	struct addr_ctx *c = ctx;

	return answer(c->p, w, c->inlines, &c->a);
}

static int
address_mode(const char *target, struct sym_path *sp, int inlines,
    int argc, char *argv[])
{
	struct addr_ctx c;
	int status = CLI_OK, i;

	memset(&c, 0, sizeof(c));
	c.p = open_target(target, sp);
	c.inlines = inlines;
	if (argc == 0)
		status = each_word(stdin, one_address, &c);
	for (i = 0; i < argc; i++)
		if (one_address(argv[i], &c) != CLI_OK)
			status = CLI_DATA_ERROR;
	buf_release(&c.a.name);
	pdb_free((struct pdb *)c.p);
	return status;
}

/* ---- demangling ---- */

static int
one_name(const char *w, void *ctx)
{
	struct buf *b = ctx;

	puts(sym_display_name(w, b));
	return CLI_OK;
}

static int
demangle_mode(int argc, char *argv[])
{
	struct buf b = { 0 };
	char line[65536];
	int i;

	for (i = 0; i < argc; i++)
		one_name(argv[i], &b);
	/* Whole lines from standard input, as rustfilt reads them. */
	if (argc == 0)
		while (fgets(line, sizeof(line), stdin) != NULL) {
			line[strcspn(line, "\r\n")] = '\0';
			one_name(line, &b);
		}
	buf_release(&b);
	return CLI_OK;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "demangle", no_argument, NULL, OPT_DEMANGLE },
		{ "help", no_argument, NULL, 'h' },
		{ "map-path", required_argument, NULL, OPT_MAP_PATH },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL, *target = NULL, *sympath = NULL;
	const char *maps[32];
	struct sym_path *sp;
	char err[256];
	int ch, force = 0, inlines = 0, verbose = 0, demangle = 0, nmaps = 0;
	int status, i;

	cli_init(argv[0]);
	argv[0] = (char *)cli_progname();
	while ((ch = getopt_long(argc, argv, "e:fhio:qvy:", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'e':
			target = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(stdout, CLI_OK);
		case 'i':
			inlines = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			verbose = -1;
			break;
		case 'v':
			verbose++;
			break;
		case 'y':
			sympath = optarg;
			break;
		case 'V':
			printf("%s\n", PRODUCER);
			return CLI_OK;
		case OPT_DEMANGLE:
			demangle = 1;
			break;
		case OPT_MAP_PATH:
			if (nmaps == 32)
				cli_fatal(CLI_USAGE, "more than 32 --map-path");
			maps[nmaps++] = optarg;
			break;
		default:
			usage(stderr, CLI_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (demangle)
		return demangle_mode(argc, argv);
	if (sympath == NULL)
		sympath = getenv("_NT_SYMBOL_PATH");
	if ((sp = sym_path_new(sympath, err, sizeof(err))) == NULL)
		cli_fatal(CLI_USAGE, "%s", err);
	sym_path_verbosity(sp, verbose, "etlsym");
	for (i = 0; i < nmaps; i++)
		if (sym_path_map(sp, maps[i]) != 0)
			cli_fatal(CLI_USAGE, "--map-path %s: expected from=to",
			    maps[i]);
	if (target != NULL)
		status = address_mode(target, sp, inlines, argc, argv);
	else
		status = stream_mode(sp, argc, argv, out, force, verbose);
	sym_path_free(sp);
	if (fflush(stdout) != 0 || ferror(stdout))
		cli_write_error(target != NULL ? NULL : out);
	return status;
}
