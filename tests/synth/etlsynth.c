/*
 * etlsynth - writes a realistic synthetic Windows ETW trace (.etl) and,
 * beside it, a manifest of what the trace holds, for the tests of the
 * decoders.
 *
 *	etlsynth [--scenario rustc-build | memory | memory-lossy | stack-joins |
 *	    waits]
 *	    [--size bytes | --events n]
 *	    [--seed n] [--pointer-size 4|8] [--compress] [--cpus n]
 *	    [--pdb image=file.pdb ...] [--slow-crate name[=factor]]
 *	    [--rename old=new ...] [--self-profile dir]
 *	    [--slow-query name[=factor]] [--pause ms] -o file.etl
 *
 * The trace follows ../shared/docs/etl-format.md as a Windows 10 kernel
 * session merged by WPR would: a header buffer with the trace header
 * event, then 64 KiB buffers per processor written in the order they
 * fill (so the file is not in time order), events 8-byte aligned, 0xFF
 * after the filled part, MS-XCA plain LZ77 buffers with --compress, and
 * 32-bit headers and pointers with --pointer-size 4.  What happens in it
 * is the rustc-build scenario (scenario.h), or with --scenario stack-joins
 * a short trace of the stack walks that are hard to join to their samples
 * (stackjoins.h; size, seed and pdb options do not apply), or with
 * --scenario waits a schedule of context switches and ready threads
 * (waits.h: --events counts its steps; --compact-cswitch writes compact
 * CSwitch batches, --cswitch-version 2 or 5 the ordinary event's size).
 * With --scenario memory it is a short scripted trace of what the memory
 * views must get right (memscen.c: its own manifest lines, and --size,
 * --events, --seed and --pdb do not apply; memory-lossy is the same
 * trace with one chunk of its second heap snapshot lost).
 * The same options give the same bytes, on any platform.
 *
 * --events n writes exactly n events (the trace header and the rundowns
 * included); --size bytes stops once the file has reached that size
 * (suffixes k, m, g: powers of 1024), then closes the trace, so the file
 * ends up slightly larger.  Without either, 100000 events.
 *
 * --pdb image=file.pdb, once per image, maps the images of that file name
 * (rustc_driver-6a4f21c5a1e9d7b3.dll; rustc.exe names both compilers'
 * executables) to a real PDB: their DbgID_RSDS events carry its GUID,
 * DBI age and the file's base name, their size covers its sections, and
 * the frames in them lie inside its procedures (images.h), so that a
 * symbolizer given the PDB names them.  The manifest then says which
 * PDB procedures the samples fell in (its pdb and symbol lines).
 * Without --pdb the output is what it always was.
 *
 * --slow-crate name[=factor] makes the build's crate of that
 * --crate-name compile `factor` times as long (3 when not given; from 1
 * to 100, decimals allowed: 1.3), a regression for the tests of etlagg
 * --diff; a name that no crate of the build has is a usage error.  The
 * rest of the build stays as it was: etlsynth first runs the build
 * without the slow crate (into a scratch file), and the slow build gives
 * every other process the durations it had there, and starts the
 * crates in the same order.  --size and --events bound that baseline:
 * the slow trace holds the processes it started, and runs until each
 * one it completed has completed, and at least as long, so that it is
 * longer, not cut short (sim.c).  The manifest's "made by" line names
 * the option.
 *
 * --self-profile dir writes into dir, for each rustc of the build, the
 * .mm_profdata that rustc -Z self-profile would have written, on the
 * trace's clock and pid, with rustc's own thread numbers, its queries
 * lined up with what its threads' stacks show (selfprof.c); the codegen
 * workers then wait for work between items, as rustc's do, so the trace
 * is not the one made without it.  --slow-query name[=factor] makes one
 * query of rustc's front end take factor times as long (3 when not
 * given) in every rustc; --pause ms blocks the compiler thread of the
 * first rustc to codegen for ms on a lock one of its workers holds and
 * lets go of.  The manifest gets the profile, profile_thread,
 * query_samples, slow_query and pause lines (testdata/README.md).
 *
 * --rename old=new, up to 16 times, replaces every "old" in the strings
 * the trace holds (process, thread and image names, paths, command
 * lines) by "new", so that tests can make a trace a hostile machine
 * would (a process called "=1+1+1+11"); the manifest keeps the names.
 *
 * The manifest, FILE.etl.manifest.tsv, is tab-separated; '#' lines are
 * comments and explain the columns.  Its lines:
 *
 *	process PID START_NS PARENT_PID IMAGE SAMPLES COMMITTED_BYTES
 *	    FREED_BYTES HEAP_OUTSTANDING_BYTES CMDLINE
 *		one per process instance; START_NS is the time from the
 *		trace header to its Process/Start (0 if it was already
 *		running); a reused PID shows up again with another
 *		START_NS; committed and freed sum VirtualAlloc and
 *		VirtualFree sizes; the heap column is what was allocated
 *		and not freed when the process ended or the trace did
 *	stack COUNT FRAMES
 *		samples per distinct stack, frames in hex, ';'-separated,
 *		outermost user frame first, kernel frames last
 *	hook HOOKID COUNT	SYSTEM/PERFINFO events per HookId (0x%04x)
 *	guid GUID OPCODE COUNT	FULL_HEADER events per GUID and opcode
 *	total NAME VALUE	events, buffers, compressed_buffers,
 *				events_lost, samples, samples_without_stack,
 *				processes
 *	pdb IMAGE GUID AGE PDB_NAME
 *		with --pdb: an image given a PDB and its identity
 *	symbol IMAGE RVA SIZE SAMPLES INCLUSIVE FUNCTION
 *		with --pdb: a PDB procedure that frames lie in, the samples
 *		whose innermost frame is in it and those with a frame in it
 *	profile, profile_thread, query_samples, slow_query, pause
 *		with --self-profile, --slow-query and --pause: each profile,
 *		its threads' Windows tids, its samples by innermost query,
 *		the slow query, the planted wait
 *
 * testdata/README.md describes the manifest in full.
 *
 * Exit status: 0 done, 1 an error writing the files, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/pdb.h"
#include "base/platform.h"
#include "etlwrite.h"
#include "images.h"
#include "manifest.h"
#include "memscen.h"
#include "programs.h"
#include "scenario.h"
#include "stackjoins.h"
#include "waits.h"

#define DEFAULT_EVENTS	100000
#define DEFAULT_CPUS	4
#define MAX_CPUS_OPTION	64
#define MANIFEST_SUFFIX	".manifest.tsv"

enum exit_status {
	EXIT_OK = 0,
	EXIT_ERROR = 1,
	EXIT_USAGE = 2
};

enum long_only {
	OPT_SCENARIO = 256,
	OPT_SIZE,
	OPT_EVENTS,
	OPT_SEED,
	OPT_POINTER_SIZE,
	OPT_COMPRESS,
	OPT_CPUS,
	OPT_PDB,
	OPT_COMPACT_CSWITCH,
	OPT_CSWITCH_VERSION,
	OPT_SLOW_CRATE,
	OPT_RENAME,
	OPT_SELF_PROFILE,
	OPT_SLOW_QUERY,
	OPT_PAUSE
};

static const struct option long_options[] = {
	{ "compact-cswitch", no_argument, NULL, OPT_COMPACT_CSWITCH },
	{ "compress", no_argument, NULL, OPT_COMPRESS },
	{ "cswitch-version", required_argument, NULL, OPT_CSWITCH_VERSION },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "help", no_argument, NULL, 'h' },
	{ "pause", required_argument, NULL, OPT_PAUSE },
	{ "pdb", required_argument, NULL, OPT_PDB },
	{ "pointer-size", required_argument, NULL, OPT_POINTER_SIZE },
	{ "rename", required_argument, NULL, OPT_RENAME },
	{ "scenario", required_argument, NULL, OPT_SCENARIO },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "self-profile", required_argument, NULL, OPT_SELF_PROFILE },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "slow-crate", required_argument, NULL, OPT_SLOW_CRATE },
	{ "slow-query", required_argument, NULL, OPT_SLOW_QUERY },
	{ NULL, 0, NULL, 0 }
};

/* An image=file.pdb option and the PDB it names. */
struct pdb_option {
	const char	*image;
	const char	*file;
	struct pdb	*pdb;
};

enum scenario_kind {
	SCENARIO_RUSTC_BUILD,
	SCENARIO_STACK_JOINS,
	SCENARIO_WAITS
};

struct settings {
	struct scenario_options	 scenario;
	enum scenario_kind	 kind;
	int			 compact_cswitch;
	int			 cswitch_version;
	int			 compress;
	const char		*output;
	struct pdb_option	 pdbs[IMAGE_COUNT];
	int			 npdbs;
	int			 memory;	/* --scenario memory */
};

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: etlsynth [--scenario rustc-build | memory | memory-lossy |\n"
	    "                stack-joins | waits]\n"
	    "                [--size bytes | --events n] [--seed n]\n"
	    "                [--compact-cswitch] [--cswitch-version 2|5]\n"
	    "                [--pointer-size 4|8] [--compress] [--cpus n]\n"
	    "                [--pdb image=file.pdb ...]\n"
	    "                [--slow-crate name[=factor]] [--rename old=new ...]\n"
	    "                [--self-profile dir] [--slow-query name[=factor]]\n"
	    "                [--pause ms] -o file.etl\n");
}

static _Noreturn void
bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "etlsynth: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	exit(EXIT_USAGE);
}

/* A decimal number with an optional k, m or g (1024-based) suffix. */
static int
parse_number(const char *s, int suffix_ok, uint64_t *out)
{
	uint64_t v = 0, scale = 1;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return -1;
	if (suffix_ok && *p != '\0' && p[1] == '\0' &&
	    strchr("kKmMgG", *p) != NULL) {
		scale = *p == 'k' || *p == 'K' ? 1024 :
		    *p == 'm' || *p == 'M' ? 1024 * 1024 : 1024 * 1024 * 1024;
		p++;
	}
	if (*p != '\0' || v > UINT64_MAX / scale)
		return -1;
	*out = v * scale;
	return 0;
}

static uint64_t
number_option(const char *name, const char *arg, int suffix_ok,
    uint64_t min, uint64_t max)
{
	uint64_t v;

	if (parse_number(arg, suffix_ok, &v) == -1 || v < min || v > max)
		bad_usage(name, arg);
	return v;
}

/*
 * A decimal factor, "3" or "1.25", from min to max.  Read digit by digit
 * rather than by strtod(), whose decimal point is the locale's.
 */
static double
factor_option(const char *name, const char *arg, double min, double max)
{
	double v = 0, scale = 1;
	const char *p = arg;
	int digits = 0;

	for (; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		v = v * 10 + (*p - '0');
	if (*p == '.' && digits > 0)
		for (p++; *p >= '0' && *p <= '9' && scale > 1e-6; p++)
			v += (*p - '0') * (scale /= 10);
	if (digits == 0 || *p != '\0' || v < min || v > max)
		bad_usage(name, arg);
	return v;
}

/* image=file.pdb: splits it in place, once per image. */
static void
pdb_option(char *arg, struct settings *set)
{
	char *eq = strchr(arg, '=');
	int i;

	if (eq == NULL || eq == arg || eq[1] == '\0')
		bad_usage("--pdb %s: want image=file.pdb", arg);
	*eq = '\0';
	for (i = 0; i < set->npdbs; i++)
		if (strcmp(set->pdbs[i].image, arg) == 0)
			bad_usage("--pdb %s: given twice", arg);
	if (set->npdbs == IMAGE_COUNT)
		bad_usage("--pdb %s: more than there are images", arg);
	set->pdbs[set->npdbs].image = arg;
	set->pdbs[set->npdbs++].file = eq + 1;
}

static void
parse_options(int argc, char **argv, struct settings *set)
{
	char *eq;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1)
		switch (c) {
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'o':
			set->output = optarg;
			break;
		case OPT_COMPRESS:
			set->compress = 1;
			break;
		case OPT_COMPACT_CSWITCH:
			set->compact_cswitch = 1;
			break;
		case OPT_CSWITCH_VERSION:
			set->cswitch_version = (int)number_option(
			    "--cswitch-version %s: want 2 or 5", optarg, 0, 2,
			    5);
			if (set->cswitch_version != 2 &&
			    set->cswitch_version != 5)
				bad_usage("--cswitch-version %s: want 2 or 5",
				    optarg);
			break;
		case OPT_CPUS:
			set->scenario.ncpus = (int)number_option(
			    "--cpus %s: want 1 to 64", optarg, 0, 1,
			    MAX_CPUS_OPTION);
			break;
		case OPT_PDB:
			pdb_option(optarg, set);
			break;
		case OPT_EVENTS:
			set->scenario.event_limit = number_option(
			    "--events %s: want a count", optarg, 0, 1,
			    UINT64_MAX);
			break;
		case OPT_POINTER_SIZE:
			set->scenario.pointer_size = (int)number_option(
			    "--pointer-size %s: want 4 or 8", optarg, 0, 4, 8);
			if (set->scenario.pointer_size % 4 != 0)
				bad_usage("--pointer-size %s: want 4 or 8",
				    optarg);
			break;
		case OPT_SCENARIO:
			if (strcmp(optarg, "memory") == 0)
				set->memory = 1;
			else if (strcmp(optarg, "memory-lossy") == 0)
				set->memory = set->scenario.lossy = 1;
			else if (strcmp(optarg, "stack-joins") == 0)
				set->kind = SCENARIO_STACK_JOINS;
			else if (strcmp(optarg, "waits") == 0)
				set->kind = SCENARIO_WAITS;
			else if (strcmp(optarg, "rustc-build") != 0)
				bad_usage("--scenario %s: want rustc-build, "
				    "memory, memory-lossy, stack-joins or waits",
				    optarg);
			break;
		case OPT_SEED:
			set->scenario.seed = number_option(
			    "--seed %s: want a number", optarg, 0, 0,
			    UINT64_MAX);
			break;
		case OPT_RENAME:
			/* old=new: every old in the trace's strings. */
			if ((eq = strchr(optarg, '=')) == NULL || eq == optarg)
				bad_usage("--rename %s: want old=new", optarg);
			*eq = '\0';
			if (etlw_rename(optarg, eq + 1) == -1)
				bad_usage("--rename %s: too many renames",
				    optarg);
			break;
		case OPT_SLOW_CRATE:
			/* NAME, three times as slow; NAME=F, F times. */
			set->scenario.slow_crate = optarg;
			set->scenario.slow_factor = 3;
			if ((eq = strchr(optarg, '=')) != NULL) {
				*eq = '\0';
				set->scenario.slow_factor = factor_option(
				    "--slow-crate: %s: want a factor from 1 to "
				    "100", eq + 1, 1, 100);
			}
			break;
		case OPT_SELF_PROFILE:
			set->scenario.profile_dir = optarg;
			break;
		case OPT_SLOW_QUERY:
			/* NAME, three times as slow; NAME=F, F times. */
			set->scenario.slow_query = optarg;
			set->scenario.slow_query_factor = 3;
			if ((eq = strchr(optarg, '=')) != NULL) {
				*eq = '\0';
				set->scenario.slow_query_factor = factor_option(
				    "--slow-query: %s: want a factor from 1 to "
				    "100", eq + 1, 1, 100);
			}
			break;
		case OPT_PAUSE:
			set->scenario.pause_ms = number_option(
			    "--pause %s: want milliseconds from 1 to 600000",
			    optarg, 0, 1, 600000);
			break;
		case OPT_SIZE:
			set->scenario.size_limit = number_option(
			    "--size %s: want bytes", optarg, 1, 1,
			    UINT64_MAX);
			break;
		default:
			bad_usage("%s: unknown option or missing argument",
			    argv[optind - 1]);
		}
	if (optind != argc)
		bad_usage("%s: unexpected argument", argv[optind]);
}

static void
check_settings(struct settings *set)
{
	struct scenario_options *o = &set->scenario;
	char min[32];

	if (set->output == NULL)
		bad_usage("%s", "-o file.etl is required");
	if (o->size_limit != 0 && o->event_limit != 0)
		bad_usage("%s", "--size and --events exclude each other");
	if (o->size_limit == 0 && o->event_limit == 0)
		o->event_limit = DEFAULT_EVENTS;
	if (o->slow_crate != NULL && (set->memory ||
	    set->kind != SCENARIO_RUSTC_BUILD))
		bad_usage("%s", "--slow-crate: the rustc-build scenario only");
	if ((o->profile_dir != NULL || o->slow_query != NULL ||
	    o->pause_ms != 0) && (set->memory ||
	    set->kind != SCENARIO_RUSTC_BUILD))
		bad_usage("%s", "--self-profile, --slow-query and --pause: the "
		    "rustc-build scenario only");
	if (o->slow_query != NULL && !scenario_has_query(o->slow_query))
		bad_usage("--slow-query %s: want a query of rustc's front end: "
		    "parse_crate, expand_crate, resolver_for_lowering, typeck, "
		    "evaluate_obligation, mir_borrowck, optimized_mir or "
		    "crate_hash", o->slow_query);
	if (o->slow_crate != NULL && !scenario_has_crate(o->slow_crate))
		bad_usage("--slow-crate %s: no crate of the build has that name",
		    o->slow_crate);
	if (o->event_limit != 0 && o->event_limit < scenario_min_events(o)) {
		snprintf(min, sizeof(min), "%" PRIu64, scenario_min_events(o));
		bad_usage("--events: a trace needs at least %s events", min);
	}
}

/* The options as the manifest records them: everything but -o. */
static void
describe(const struct settings *set, char *buf, size_t len)
{
	const struct scenario_options *o = &set->scenario;
	char limit[48];
	size_t used;
	int i;

	if (o->event_limit != 0)
		snprintf(limit, sizeof(limit), "--events %" PRIu64,
		    o->event_limit);
	else
		snprintf(limit, sizeof(limit), "--size %" PRIu64,
		    o->size_limit);
	if (set->memory) {
		snprintf(buf, len, "--scenario memory%s --pointer-size %d "
		    "--cpus %d%s", o->lossy ? "-lossy" : "", o->pointer_size,
		    o->ncpus,
		    set->compress ? " --compress" : "");
		return;
	}
	snprintf(buf, len, "--scenario rustc-build %s --seed %" PRIu64
	    " --pointer-size %d --cpus %d%s", limit, o->seed,
	    o->pointer_size, o->ncpus, set->compress ? " --compress" : "");
	for (i = 0; i < set->npdbs; i++) {
		used = strlen(buf);
		snprintf(buf + used, len - used, " --pdb %s=%s",
		    set->pdbs[i].image, set->pdbs[i].file);
	}
	if (o->slow_crate != NULL) {
		used = strlen(buf);
		snprintf(buf + used, len - used, " --slow-crate %s=%g",
		    o->slow_crate, o->slow_factor);
	}
	if (o->profile_dir != NULL) {
		used = strlen(buf);
		snprintf(buf + used, len - used, " --self-profile %s",
		    o->profile_dir);
	}
	if (o->slow_query != NULL) {
		used = strlen(buf);
		snprintf(buf + used, len - used, " --slow-query %s=%g",
		    o->slow_query, o->slow_query_factor);
	}
	if (o->pause_ms != 0) {
		used = strlen(buf);
		snprintf(buf + used, len - used, " --pause %" PRIu64,
		    o->pause_ms);
	}
}

static int
fail(const char *file, int error)
{
	fprintf(stderr, "etlsynth: %s: %s\n", file, strerror(error));
	return EXIT_ERROR;
}

/* The last part of a path, with either separator. */
static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/'), *b = strrchr(path, '\\');

	if (b != NULL && (s == NULL || b > s))
		s = b;
	return s != NULL ? s + 1 : path;
}

/*
 * Reads each --pdb file and gives its images the PDB.  A PDB that had to
 * be read in part is used with a warning.
 * @return : EXIT_OK, or EXIT_ERROR after a message.
 */
static int
load_pdbs(struct settings *set)
{
	struct pdb_option *po;
	struct mapped_file m;
	enum image_id a, b;
	const char *why;
	int i, n, st;

	for (i = 0; i < set->npdbs; i++) {
		po = &set->pdbs[i];
		if (platform_map_file(po->file, &m) == -1)
			return fail(po->file, errno);
		if ((po->pdb = pdb_new()) == NULL) {
			platform_unmap_file(&m);
			return fail(po->file, ENOMEM);
		}
		st = pdb_open_mem(po->pdb, m.data, m.len);
		platform_unmap_file(&m);
		if (st != PDB_OK)
			fprintf(stderr, "etlsynth: %s: %s\n", po->file,
			    pdb_error(po->pdb));
		if (st == PDB_FATAL)
			return EXIT_ERROR;
		n = images_use_pdb(po->image, po->pdb, base_name(po->file),
		    &why);
		if (n == 0)
			bad_usage("--pdb %s: the scenario has no such image",
			    po->image);
		if (n == -1) {
			fprintf(stderr, "etlsynth: %s: %s: %s\n", po->file,
			    po->image, why);
			return EXIT_ERROR;
		}
		if (programs_overlap(set->scenario.pointer_size, &a, &b)) {
			fprintf(stderr, "etlsynth: %s: with %s as big as the "
			    "PDB's sections, %s and %s overlap\n", po->file,
			    po->image, image_base_name(a), image_base_name(b));
			return EXIT_ERROR;
		}
	}
	return EXIT_OK;
}

static void
free_pdbs(struct settings *set)
{
	int i;

	for (i = 0; i < set->npdbs; i++)
		pdb_free(set->pdbs[i].pdb);
}

/* The waits scenario: --events counts its steps, --size about 72 bytes each. */
static int
run_waits(const struct settings *set, struct etl_writer *w, FILE *manifest)
{
	struct waits_options o = { .seed = set->scenario.seed,
	    .pointer_size = set->scenario.pointer_size,
	    .compact = set->compact_cswitch,
	    .cswitch_version = set->cswitch_version ? set->cswitch_version : 2 };

	o.steps = set->scenario.size_limit ? set->scenario.size_limit / 72 :
	    set->scenario.event_limit;
	return waits_run(&o, w, manifest);
}

static int
generate(const struct settings *set, FILE *etl, FILE *manifest)
{
	struct etlw_trace_info info;
	struct etl_writer w;
	char options[4096];

	describe(set, options, sizeof(options));
	if (set->kind == SCENARIO_STACK_JOINS)
		snprintf(options, sizeof(options), "--scenario stack-joins "
		    "--pointer-size %d --cpus %d%s", set->scenario.pointer_size,
		    set->scenario.ncpus, set->compress ? " --compress" : "");
	if (set->kind == SCENARIO_WAITS)
		snprintf(options, sizeof(options), "--scenario waits --events "
		    "%" PRIu64 " --seed %" PRIu64 " --pointer-size %d%s%s "
		    "--cswitch-version %d", set->scenario.event_limit,
		    set->scenario.seed, set->scenario.pointer_size,
		    set->compress ? " --compress" : "",
		    set->compact_cswitch ? " --compact-cswitch" : "",
		    set->cswitch_version ? set->cswitch_version : 2);
	manifest_header(manifest, options, set->npdbs > 0,
	    set->scenario.profile_dir != NULL ||
	    set->scenario.slow_query != NULL || set->scenario.pause_ms != 0);
	scenario_trace_info(&set->scenario, &info);
	info.compress = set->compress;
	if (etlw_open(&w, etl, &info) == -1)
		return fail(set->output, errno);
	if ((set->memory ? memscen_run(&set->scenario, &w, manifest) :
	    set->kind == SCENARIO_STACK_JOINS ?
	    stackjoins_run(&w, manifest) : set->kind == SCENARIO_WAITS ?
	    run_waits(set, &w, manifest) :
	    scenario_run(&set->scenario, &w, manifest)) == -1) {
		etlw_release(&w);
		return fail(set->output, errno);
	}
	if (etlw_close(&w) == -1) {
		etlw_release(&w);
		return fail(set->output, w.error);
	}
	manifest_counts(manifest, &w);
	etlw_release(&w);
	return EXIT_OK;
}

int
main(int argc, char **argv)
{
	struct settings set;
	char *manifest_path;
	FILE *etl, *manifest;
	int status;

	memset(&set, 0, sizeof(set));
	set.scenario.seed = 1;
	set.scenario.ncpus = DEFAULT_CPUS;
	set.scenario.pointer_size = 8;
	parse_options(argc, argv, &set);
	check_settings(&set);
	if (load_pdbs(&set) != EXIT_OK) {
		free_pdbs(&set);
		return EXIT_ERROR;
	}
	manifest_path = malloc(strlen(set.output) + sizeof(MANIFEST_SUFFIX));
	if (manifest_path == NULL)
		return fail(set.output, ENOMEM);
	strcpy(manifest_path, set.output);
	strcat(manifest_path, MANIFEST_SUFFIX);
	if ((etl = fopen(set.output, "w+b")) == NULL)
		return fail(set.output, errno);
	if ((manifest = fopen(manifest_path, "w")) == NULL)
		return fail(manifest_path, errno);
	if (set.scenario.profile_dir != NULL &&
	    platform_mkdir(set.scenario.profile_dir) == -1)
		return fail(set.scenario.profile_dir, errno);
	status = generate(&set, etl, manifest);
	if (fclose(etl) != 0 && status == EXIT_OK)
		status = fail(set.output, errno);
	if ((ferror(manifest) || fclose(manifest) != 0) && status == EXIT_OK)
		status = fail(manifest_path, errno != 0 ? errno : EIO);
	free(manifest_path);
	free_pdbs(&set);
	return status;
}
