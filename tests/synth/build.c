/*
 * build.c - what the processes of `x build --stage 2` do: the shell
 * starts python x.py, which runs one cargo per build step, which runs a
 * rustc per crate (at most --cpus at a time), which may run link.exe.
 * Also which call chain each thread is in, for its stacks.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chains.h"
#include "manifest.h"
#include "programs.h"
#include "sim.h"

#define SRC		"C:\\src\\rust"
#define REGISTRY	"C:\\Users\\dev\\.cargo\\registry\\src\\" \
			"index.crates.io-6f17d22bba15001f\\"
#define MSVC_BIN	"C:\\Program Files\\Microsoft Visual Studio\\2022\\" \
			"Community\\VC\\Tools\\MSVC\\14.38.33130\\bin\\"
#define PYTHON_CMDLINE	"\"C:\\Program Files\\Python311\\python.exe\" " \
			"x.py build --stage 2"
#define MAX_WORKERS	4
#define RETRY		(10 * TICKS_PER_MS)
#define MB		(1024 * 1024ULL)

enum crate_home {
	HOME_LIBRARY,		/* library\<package> */
	HOME_COMPILER,		/* compiler\<package> */
	HOME_VENDOR		/* the cargo registry */
};

enum crate_type {
	CT_LIB,
	CT_PROC_MACRO,
	CT_BIN,
	CT_DYLIB
};

struct crate {
	const char	*name;		/* --crate-name */
	const char	*package;	/* its directory */
	enum crate_home	 home;
	enum crate_type	 type;
	unsigned	 compile_ms;
	unsigned	 link_ms;	/* link.exe run, 0 for none */
	int		 barrier;	/* needs every crate before it */
};

static const struct crate std_crates[] = {
	{ "build_script_build", "compiler_builtins-0.1.123", HOME_VENDOR,
	    CT_BIN, 180, 150, 0 },
	{ "build_script_build", "libc-0.2.159", HOME_VENDOR, CT_BIN, 160, 140,
	    0 },
	{ "core", "core", HOME_LIBRARY, CT_LIB, 9000, 0, 0 },
	{ "build_script_build", "std", HOME_LIBRARY, CT_BIN, 200, 160, 0 },
	{ "cfg_if", "cfg-if-1.0.0", HOME_VENDOR, CT_LIB, 90, 0, 0 },
	{ "rustc_std_workspace_core", "rustc-std-workspace-core",
	    HOME_LIBRARY, CT_LIB, 60, 0, 0 },
	{ "compiler_builtins", "compiler_builtins-0.1.123", HOME_VENDOR,
	    CT_LIB, 1600, 0, 0 },
	{ "alloc", "alloc", HOME_LIBRARY, CT_LIB, 3200, 0, 0 },
	{ "libc", "libc-0.2.159", HOME_VENDOR, CT_LIB, 900, 0, 0 },
	{ "memchr", "memchr-2.7.4", HOME_VENDOR, CT_LIB, 700, 0, 0 },
	{ "adler", "adler-1.0.2", HOME_VENDOR, CT_LIB, 150, 0, 0 },
	{ "rustc_demangle", "rustc-demangle-0.1.24", HOME_VENDOR, CT_LIB, 600,
	    0, 0 },
	{ "unwind", "unwind", HOME_LIBRARY, CT_LIB, 250, 0, 0 },
	{ "hashbrown", "hashbrown-0.15.0", HOME_VENDOR, CT_LIB, 1200, 0, 0 },
	{ "rustc_std_workspace_alloc", "rustc-std-workspace-alloc",
	    HOME_LIBRARY, CT_LIB, 60, 0, 0 },
	{ "miniz_oxide", "miniz_oxide-0.7.4", HOME_VENDOR, CT_LIB, 800, 0,
	    0 },
	{ "gimli", "gimli-0.29.0", HOME_VENDOR, CT_LIB, 2400, 0, 0 },
	{ "object", "object-0.36.4", HOME_VENDOR, CT_LIB, 2600, 0, 0 },
	{ "addr2line", "addr2line-0.22.0", HOME_VENDOR, CT_LIB, 500, 0, 0 },
	{ "panic_abort", "panic_abort", HOME_LIBRARY, CT_LIB, 120, 0, 0 },
	{ "panic_unwind", "panic_unwind", HOME_LIBRARY, CT_LIB, 200, 0, 0 },
	{ "std_detect", "stdarch\\crates\\std_detect", HOME_LIBRARY, CT_LIB,
	    700, 0, 0 },
	{ "std", "std", HOME_LIBRARY, CT_DYLIB, 8000, 1500, 1 },
	{ "proc_macro", "proc_macro", HOME_LIBRARY, CT_LIB, 2500, 0, 0 },
	{ "unicode_width", "unicode-width-0.1.14", HOME_VENDOR, CT_LIB, 300,
	    0, 0 },
	{ "getopts", "getopts-0.2.21", HOME_VENDOR, CT_LIB, 400, 0, 0 },
	{ "test", "test", HOME_LIBRARY, CT_LIB, 1800, 0, 0 },
	{ "sysroot", "sysroot", HOME_LIBRARY, CT_LIB, 50, 0, 0 },
};

static const struct crate compiler_crates[] = {
	{ "build_script_build", "proc-macro2-1.0.86", HOME_VENDOR, CT_BIN,
	    150, 150, 0 },
	{ "build_script_build", "serde-1.0.210", HOME_VENDOR, CT_BIN, 140,
	    140, 0 },
	{ "build_script_build", "rustc_llvm", HOME_COMPILER, CT_BIN, 300, 200,
	    0 },
	{ "cfg_if", "cfg-if-1.0.0", HOME_VENDOR, CT_LIB, 90, 0, 0 },
	{ "unicode_ident", "unicode-ident-1.0.13", HOME_VENDOR, CT_LIB, 200,
	    0, 0 },
	{ "proc_macro2", "proc-macro2-1.0.86", HOME_VENDOR, CT_LIB, 900, 0,
	    0 },
	{ "quote", "quote-1.0.37", HOME_VENDOR, CT_LIB, 400, 0, 0 },
	{ "syn", "syn-2.0.79", HOME_VENDOR, CT_LIB, 6000, 0, 0 },
	{ "smallvec", "smallvec-1.13.2", HOME_VENDOR, CT_LIB, 250, 0, 0 },
	{ "either", "either-1.13.0", HOME_VENDOR, CT_LIB, 150, 0, 0 },
	{ "memchr", "memchr-2.7.4", HOME_VENDOR, CT_LIB, 700, 0, 0 },
	{ "serde_derive", "serde_derive-1.0.210", HOME_VENDOR, CT_PROC_MACRO,
	    2200, 400, 0 },
	{ "synstructure", "synstructure-0.13.1", HOME_VENDOR, CT_LIB, 500, 0,
	    0 },
	{ "thiserror_impl", "thiserror-impl-1.0.64", HOME_VENDOR,
	    CT_PROC_MACRO, 900, 300, 0 },
	{ "serde", "serde-1.0.210", HOME_VENDOR, CT_LIB, 2500, 0, 0 },
	{ "indexmap", "indexmap-2.6.0", HOME_VENDOR, CT_LIB, 700, 0, 0 },
	{ "tracing_core", "tracing-core-0.1.32", HOME_VENDOR, CT_LIB, 600, 0,
	    0 },
	{ "tracing_attributes", "tracing-attributes-0.1.27", HOME_VENDOR,
	    CT_PROC_MACRO, 1200, 300, 0 },
	{ "tracing", "tracing-0.1.40", HOME_VENDOR, CT_LIB, 500, 0, 0 },
	{ "itertools", "itertools-0.12.1", HOME_VENDOR, CT_LIB, 1400, 0, 0 },
	{ "regex_syntax", "regex-syntax-0.8.5", HOME_VENDOR, CT_LIB, 3500, 0,
	    0 },
	{ "regex_automata", "regex-automata-0.4.8", HOME_VENDOR, CT_LIB, 5500,
	    0, 0 },
	{ "rustc_macros", "rustc_macros", HOME_COMPILER, CT_PROC_MACRO, 3000,
	    500, 0 },
	{ "rustc_arena", "rustc_arena", HOME_COMPILER, CT_LIB, 400, 0, 0 },
	{ "rustc_index", "rustc_index", HOME_COMPILER, CT_LIB, 600, 0, 0 },
	{ "rustc_serialize", "rustc_serialize", HOME_COMPILER, CT_LIB, 1500,
	    0, 0 },
	{ "rustc_data_structures", "rustc_data_structures", HOME_COMPILER,
	    CT_LIB, 9000, 0, 0 },
	{ "rustc_span", "rustc_span", HOME_COMPILER, CT_LIB, 5000, 0, 0 },
	{ "rustc_target", "rustc_target", HOME_COMPILER, CT_LIB, 4000, 0, 0 },
	{ "rustc_ast", "rustc_ast", HOME_COMPILER, CT_LIB, 4000, 0, 0 },
	{ "rustc_lexer", "rustc_lexer", HOME_COMPILER, CT_LIB, 500, 0, 0 },
	{ "rustc_errors", "rustc_errors", HOME_COMPILER, CT_LIB, 4500, 0, 0 },
	{ "rustc_parse", "rustc_parse", HOME_COMPILER, CT_LIB, 6000, 0, 0 },
	{ "rustc_session", "rustc_session", HOME_COMPILER, CT_LIB, 5500, 0,
	    0 },
	{ "rustc_hir", "rustc_hir", HOME_COMPILER, CT_LIB, 4000, 0, 0 },
	{ "rustc_type_ir", "rustc_type_ir", HOME_COMPILER, CT_LIB, 5000, 0,
	    0 },
	{ "rustc_query_system", "rustc_query_system", HOME_COMPILER, CT_LIB,
	    4500, 0, 0 },
	{ "rustc_middle", "rustc_middle", HOME_COMPILER, CT_LIB, 45000, 0,
	    0 },
	{ "rustc_infer", "rustc_infer", HOME_COMPILER, CT_LIB, 6000, 0, 0 },
	{ "rustc_trait_selection", "rustc_trait_selection", HOME_COMPILER,
	    CT_LIB, 12000, 0, 0 },
	{ "rustc_hir_analysis", "rustc_hir_analysis", HOME_COMPILER, CT_LIB,
	    9000, 0, 0 },
	{ "rustc_hir_typeck", "rustc_hir_typeck", HOME_COMPILER, CT_LIB,
	    9000, 0, 0 },
	{ "rustc_mir_build", "rustc_mir_build", HOME_COMPILER, CT_LIB, 8000,
	    0, 0 },
	{ "rustc_mir_dataflow", "rustc_mir_dataflow", HOME_COMPILER, CT_LIB,
	    4000, 0, 0 },
	{ "rustc_borrowck", "rustc_borrowck", HOME_COMPILER, CT_LIB, 7000, 0,
	    0 },
	{ "rustc_mir_transform", "rustc_mir_transform", HOME_COMPILER,
	    CT_LIB, 10000, 0, 0 },
	{ "rustc_const_eval", "rustc_const_eval", HOME_COMPILER, CT_LIB, 7000,
	    0, 0 },
	{ "rustc_monomorphize", "rustc_monomorphize", HOME_COMPILER, CT_LIB,
	    3000, 0, 0 },
	{ "rustc_metadata", "rustc_metadata", HOME_COMPILER, CT_LIB, 7000, 0,
	    0 },
	{ "rustc_resolve", "rustc_resolve", HOME_COMPILER, CT_LIB, 8000, 0,
	    0 },
	{ "rustc_lint", "rustc_lint", HOME_COMPILER, CT_LIB, 8000, 0, 0 },
	{ "rustc_passes", "rustc_passes", HOME_COMPILER, CT_LIB, 4000, 0, 0 },
	{ "rustc_privacy", "rustc_privacy", HOME_COMPILER, CT_LIB, 2000, 0,
	    0 },
	{ "rustc_query_impl", "rustc_query_impl", HOME_COMPILER, CT_LIB,
	    15000, 0, 0 },
	{ "rustc_llvm", "rustc_llvm", HOME_COMPILER, CT_LIB, 2000, 0, 0 },
	{ "rustc_codegen_ssa", "rustc_codegen_ssa", HOME_COMPILER, CT_LIB,
	    8000, 0, 0 },
	{ "rustc_codegen_llvm", "rustc_codegen_llvm", HOME_COMPILER, CT_LIB,
	    9000, 0, 0 },
	{ "rustc_interface", "rustc_interface", HOME_COMPILER, CT_LIB, 3000,
	    0, 0 },
	{ "rustc_driver_impl", "rustc_driver_impl", HOME_COMPILER, CT_LIB,
	    4000, 0, 0 },
	{ "rustc_driver", "rustc_driver", HOME_COMPILER, CT_DYLIB, 2000,
	    15000, 1 },
	{ "rustc_main", "rustc", HOME_COMPILER, CT_BIN, 300, 900, 1 },
};

/* The cargo runs of `x build --stage 2`, in order. */
static const struct step {
	const char		*dir;	/* under build\<triple> */
	enum program		 compiler;
	const struct crate	*crates;
	int			 ncrates;
	const char		*manifest;
	const char		*features;
} steps[] = {
	{ "stage0-std", PROG_RUSTC_STAGE0, std_crates,
	    sizeof(std_crates) / sizeof(std_crates[0]),
	    "library\\sysroot\\Cargo.toml", "panic-unwind backtrace" },
	{ "stage0-rustc", PROG_RUSTC_STAGE0, compiler_crates,
	    sizeof(compiler_crates) / sizeof(compiler_crates[0]),
	    "compiler\\rustc\\Cargo.toml", "llvm max_level_info" },
	{ "stage1-std", PROG_RUSTC_STAGE1, std_crates,
	    sizeof(std_crates) / sizeof(std_crates[0]),
	    "library\\sysroot\\Cargo.toml", "panic-unwind backtrace" },
	{ "stage1-rustc", PROG_RUSTC_STAGE1, compiler_crates,
	    sizeof(compiler_crates) / sizeof(compiler_crates[0]),
	    "compiler\\rustc\\Cargo.toml", "llvm max_level_info" },
};

#define COUNT(a)	((int)(sizeof(a) / sizeof((a)[0])))

static const enum chain_id frontend_bodies[] = {
	CH_RUSTC_PARSE, CH_RUSTC_EXPAND, CH_RUSTC_RESOLVE, CH_RUSTC_TYPECK,
	CH_RUSTC_TRAITS, CH_RUSTC_BORROWCK, CH_RUSTC_MIR_OPT, CH_RUSTC_HASH
};
static const enum chain_id codegen_bodies[] = {
	CH_RUSTC_MONO, CH_RUSTC_CODEGEN_CGU, CH_RUSTC_METADATA
};
static const enum chain_id worker_bodies[] = {
	CH_LLVM_INSTCOMBINE, CH_LLVM_GVN, CH_LLVM_ISEL, CH_LLVM_REGALLOC,
	CH_LLVM_EMIT
};
static const enum chain_id link_bodies[] = {
	CH_LINK_READ, CH_LINK_RESOLVE, CH_LINK_ICF, CH_LINK_WRITE, CH_LINK_PDB
};
static const enum chain_id python_bodies[] = { CH_PY_JSON, CH_PY_STAT };
static const enum chain_id cargo_bodies[] = {
	CH_CARGO_FINGERPRINT, CH_CARGO_JSON
};

static const char *
triple(const struct sim *s)
{
	return s->ps == 4 ? "i686-pc-windows-msvc" : "x86_64-pc-windows-msvc";
}

static const char *
stage_of(enum program compiler)
{
	return compiler == PROG_RUSTC_STAGE0 ? "stage0" : "stage1";
}

/* Cargo's -C metadata hash: 16 hex digits from the step and the crate. */
static uint64_t
crate_hash(const struct step *st, const struct crate *c)
{
	const char *parts[3] = { st->dir, c->name, c->package };
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;
	int i;

	for (i = 0; i < 3; i++)
		for (p = parts[i]; *p != '\0'; p++) {
			h ^= (unsigned char)*p;
			h *= 0x100000001b3ULL;
		}
	return h;
}

static void
crate_source(const struct crate *c, char *buf, size_t len)
{
	const char *file = c->type == CT_BIN ? "build.rs" : "src\\lib.rs";

	if (strcmp(c->name, "rustc_main") == 0)
		file = "src\\main.rs";
	switch (c->home) {
	case HOME_LIBRARY:
		snprintf(buf, len, "library\\%s\\%s", c->package, file);
		break;
	case HOME_COMPILER:
		snprintf(buf, len, "compiler\\%s\\%s", c->package, file);
		break;
	case HOME_VENDOR:
		snprintf(buf, len, REGISTRY "%s\\%s", c->package, file);
		break;
	}
}

static const char *
crate_types(const struct crate *c)
{
	switch (c->type) {
	case CT_PROC_MACRO:
		return "proc-macro";
	case CT_BIN:
		return "bin";
	case CT_DYLIB:
		return "dylib --crate-type rlib";
	default:
		return "lib";
	}
}

static int
is_build_script(const struct crate *c)
{
	return strcmp(c->name, "build_script_build") == 0;
}

/* Build scripts are built for the host, into build\<package>-<hash>. */
static void
crate_out_dir(const struct sim *s, const struct step *st,
    const struct crate *c, char *buf, size_t len)
{
	if (is_build_script(c))
		snprintf(buf, len, SRC "\\build\\%s\\%s\\release\\build\\"
		    "%s-%016llx", triple(s), st->dir, c->package,
		    (unsigned long long)crate_hash(st, c));
	else
		snprintf(buf, len, SRC "\\build\\%s\\%s\\%s\\release\\deps",
		    triple(s), st->dir, triple(s));
}

/*
 * The command line cargo gives rustc (as `cargo build -v` shows it);
 * build scripts and proc macros run on the host, so they get no --target.
 */
static void
rustc_cmdline(const struct sim *s, const struct step *st,
    const struct crate *c, char *buf, size_t len)
{
	unsigned long long h = (unsigned long long)crate_hash(st, c);
	int host = is_build_script(c) || c->type == CT_PROC_MACRO;
	char src[256], out[256];

	crate_source(c, src, sizeof(src));
	crate_out_dir(s, st, c, out, sizeof(out));
	snprintf(buf, len, SRC "\\build\\%s\\%s\\bin\\rustc.exe "
	    "--crate-name %s --edition=2021 %s --error-format=json "
	    "--json=diagnostic-rendered-ansi,artifacts,future-incompat "
	    "--crate-type %s --emit=dep-info,metadata,link -C opt-level=3 "
	    "-C embed-bitcode=no -C debuginfo=1 -C metadata=%016llx "
	    "-C extra-filename=-%016llx --out-dir %s%s%s -L dependency=%s "
	    "-Z binary-dep-depinfo", triple(s), stage_of(st->compiler),
	    c->name, src, crate_types(c), h, h, out, host ? "" : " --target ",
	    host ? "" : triple(s), out);
}

static void
cargo_cmdline(const struct sim *s, const struct step *st, char *buf,
    size_t len)
{
	snprintf(buf, len, SRC "\\build\\%s\\stage0\\bin\\cargo.exe build "
	    "--target %s -Zbinary-dep-depinfo -j %d --release --features "
	    "\"%s\" --manifest-path " SRC "\\%s --message-format "
	    "json-render-diagnostics", triple(s), triple(s), s->ncpus,
	    st->features, st->manifest);
}

/* rustc hands link.exe its arguments in a response file. */
static void
link_cmdline(struct sim *s, char *buf, size_t len)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char temp[7];
	int i;

	for (i = 0; i < 6; i++)
		temp[i] = letters[rng_below(&s->rng, sizeof(letters) - 1)];
	temp[6] = '\0';
	snprintf(buf, len, "\"" MSVC_BIN "%s\\link.exe\" \"@C:\\Users\\dev\\"
	    "AppData\\Local\\Temp\\rustc%s\\linker-arguments\"",
	    s->ps == 4 ? "HostX86\\x86" : "HostX64\\x64", temp);
}

static const struct crate *
crate_of(const struct proc *p)
{
	return &steps[p->step].crates[p->crate];
}

int
build_has_query(const char *name)
{
	int i, label = prof_label(name);

	for (i = 0; label >= 0 && i < COUNT(frontend_bodies); i++)
		if (prof_innermost(frontend_bodies[i]) == label)
			return 1;
	return 0;
}

/* The front end's pass that --slow-query names, or -1. */
int
build_slow_pass(const char *name)
{
	int i, label = name != NULL ? prof_label(name) : -1;

	for (i = 0; label >= 0 && i < COUNT(frontend_bodies); i++)
		if (prof_innermost(frontend_bodies[i]) == label)
			return i;
	return -1;
}

int
build_has_crate(const char *name)
{
	int i, j;

	for (i = 0; i < COUNT(steps); i++)
		for (j = 0; j < steps[i].ncrates; j++)
			if (strcmp(steps[i].crates[j].name, name) == 0)
				return 1;
	return 0;
}

/*
 * A process's place in the build (struct proc's ident): the same in two
 * runs of one seed, whatever the timing, so that --slow-crate can tell
 * which of its processes the baseline started and ended.
 */
static uint64_t
ident_of(enum program prog, int build, int step, int crate)
{
	return (uint64_t)(build + 1) << 32 | (uint64_t)step << 24 |
	    (uint64_t)crate << 8 | (uint64_t)prog;
}

/* Gives a new process of the build its place, and tells sim.c. */
static void
place(struct sim *s, int child, int build, int step, int crate)
{
	struct proc *c = &s->procs[child];

	c->build = build;
	c->step = step;
	c->crate = crate;
	c->ident = ident_of(c->prog, build, step, crate);
	sim_started(s, c);
}

/*
 * The compile time of a process's crate: --slow-crate makes one crate a
 * regression, for the tests of etlagg --diff.
 */
static unsigned
compile_ms(const struct sim *s, const struct proc *p)
{
	const struct crate *c = crate_of(p);

	if (s->opt.slow_crate != NULL && strcmp(c->name, s->opt.slow_crate) == 0)
		return (unsigned)(c->compile_ms * s->opt.slow_factor + 0.5);
	return c->compile_ms;
}

/*
 * A duration in ticks: `ms` milliseconds, give or take 30% (the share
 * is sim.c's: with --slow-crate, the baseline's for the same process
 * and phase `what`, so that the other crates take as long as there).
 */
static uint64_t
vary_ms(struct sim *s, const struct proc *p, unsigned ms, unsigned what)
{
	return (uint64_t)ms * sim_share(s, p, what) / 100 * TICKS_PER_MS;
}

static void
set_phase(struct sim *s, struct proc *p, enum phase phase, uint64_t length)
{
	p->phase = phase;
	p->phase_start = s->now;
	p->phase_end = s->now + length;
}

/* How far into its phase the process is, from 0 to n - 1. */
static int
progress(const struct sim *s, const struct proc *p, int n)
{
	uint64_t span = p->phase_end - p->phase_start;
	uint64_t done = s->now - p->phase_start;

	if (span == 0 || done >= span)
		return n - 1;
	return (int)(done * (uint64_t)n / span);
}

/*
 * The front end's pass due, with --slow-query: its passes take equal
 * shares of the phase but the slow one, which takes slow_query_factor
 * of them.
 */
static int
frontend_progress(const struct sim *s, const struct proc *p)
{
	const int n = COUNT(frontend_bodies);
	uint64_t span = p->phase_end - p->phase_start;
	uint64_t done = s->now - p->phase_start;
	double at, w;
	int i;

	if (s->slow_pass < 0)
		return progress(s, p, n);
	if (span == 0 || done >= span)
		return n - 1;
	at = (double)done / (double)span * (n - 1 + s->opt.slow_query_factor);
	for (i = 0; i < n - 1; i++) {
		w = i == s->slow_pass ? s->opt.slow_query_factor : 1;
		if (at < w)
			return i;
		at -= w;
	}
	return n - 1;
}

/*
 * The front end's pass due, or a neighbour of it; the slow pass of
 * --slow-query is never traded for a neighbour, so that its extra time
 * is its own.
 */
static enum chain_id
pick_frontend(struct sim *s, const struct proc *p)
{
	int due = frontend_progress(s, p), n = COUNT(frontend_bodies);
	int i = due + (int)rng_below(&s->rng, 3) - 1;

	if (due == s->slow_pass)
		return frontend_bodies[due];
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return frontend_bodies[i];
}

/* The front end's length: longer by the slow pass's extra share. */
static uint64_t
frontend_ticks(struct sim *s, const struct proc *p)
{
	uint64_t t = vary_ms(s, p, compile_ms(s, p) * 55 / 100, PH_FRONTEND);
	int n = COUNT(frontend_bodies);

	if (s->slow_pass < 0)
		return t;
	return (uint64_t)((double)t * (n - 1 + s->opt.slow_query_factor) / n);
}

static enum chain_id
pick(struct sim *s, const enum chain_id *bodies, int n)
{
	return bodies[rng_below(&s->rng, (uint64_t)n)];
}

/* The pass due at this point of the phase, or a neighbour of it. */
static enum chain_id
pick_near(struct sim *s, const struct proc *p, const enum chain_id *bodies,
    int n)
{
	int i = progress(s, p, n) + (int)rng_below(&s->rng, 3) - 1;

	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return bodies[i];
}

static void
pick_rustc_body(struct sim *s, struct thread *t)
{
	const struct proc *p = proc_of(s, t);

	if (t->role == TR_MAIN)
		t->body = CH_RUSTC_MAIN_INIT;
	else if (t->role == TR_CODEGEN)
		t->body = pick(s, worker_bodies, COUNT(worker_bodies));
	else if (p->phase == PH_FRONTEND)
		t->body = pick_frontend(s, p);
	else if (p->phase == PH_CODEGEN)
		t->body = pick(s, codegen_bodies, COUNT(codegen_bodies));
	else if (p->phase == PH_LINKING)
		t->body = CH_RUSTC_LINK_WAIT;
	else
		t->body = CH_RUSTC_METADATA;
}

void
build_pick_body(struct sim *s, struct thread *t)
{
	const struct proc *p = proc_of(s, t);

	switch (p->prog) {
	case PROG_CMD:
		t->body = CH_CMD_SPAWN;
		break;
	case PROG_PYTHON:
		t->body = pick(s, python_bodies, COUNT(python_bodies));
		break;
	case PROG_CARGO:
		t->body = pick(s, cargo_bodies, COUNT(cargo_bodies));
		break;
	case PROG_RUSTC_STAGE0:
	case PROG_RUSTC_STAGE1:
		pick_rustc_body(s, t);
		break;
	case PROG_LINK:
		t->body = pick_near(s, p, link_bodies, COUNT(link_bodies));
		break;
	default:
		break;
	}
}

/* Where a blocked thread of each kind waits. */
enum chain_id
build_wait_body(const struct sim *s, const struct thread *t)
{
	switch (s->procs[t->proc].prog) {
	case PROG_CMD:
		return CH_CMD_WAIT;
	case PROG_PYTHON:
		return CH_PY_WAIT;
	case PROG_CARGO:
		return CH_CARGO_WAIT;
	case PROG_RUSTC_STAGE0:
	case PROG_RUSTC_STAGE1:
		return t->role == TR_MAIN ? CH_RUSTC_MAIN_WAIT :
		    CH_RUSTC_LINK_WAIT;
	default:
		return t->body;
	}
}

uint64_t
build_action_interval(struct sim *s, const struct thread *t)
{
	switch (s->procs[t->proc].prog) {
	case PROG_CMD:
	case PROG_PYTHON:
	case PROG_CARGO:
		return sim_between(s, 20, 80) * TICKS_PER_US;
	default:
		return sim_between(s, 300, 1200) * TICKS_PER_US;
	}
}

static void
shell_act(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];

	int child;

	t->wake_at = NEVER;
	if (proc_of(s, t)->children > 0 ||
	    !sim_may_start(s, ident_of(PROG_PYTHON, s->builds, 0, 0)))
		return;
	child = procs_spawn(s, cpu, thread, PROG_PYTHON, PYTHON_CMDLINE);
	if (child == -1) {
		t->wake_at = s->now + RETRY;
		return;
	}
	place(s, child, s->builds++, 0, 0);
	t->body = CH_CMD_WAIT;
}

static void
python_act(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	char cmdline[CMDLINE_MAX];
	int child;

	t->wake_at = NEVER;
	if (p->children > 0) {
		memory_heap_op(s, cpu, thread, 0);
		return;
	}
	if (p->step == COUNT(steps)) {
		procs_exit(s, cpu, thread);
		return;
	}
	if (!sim_may_start(s, ident_of(PROG_CARGO, p->build, p->step, 0)))
		return;
	t->body = CH_PY_SPAWN;
	cargo_cmdline(s, &steps[p->step], cmdline, sizeof(cmdline));
	child = procs_spawn(s, cpu, thread, PROG_CARGO, cmdline);
	if (child == -1) {
		t->wake_at = s->now + RETRY;
		return;
	}
	place(s, child, p->build, p->step++, 0);
	t->body = CH_PY_WAIT;
}

static int
cargo_may_start(const struct sim *s, const struct proc *p)
{
	const struct step *st = &steps[p->step];

	if (p->next_crate == st->ncrates || p->children >= s->ncpus ||
	    !sim_may_start(s, ident_of(st->compiler, p->build, p->step,
	    p->next_crate)))
		return 0;
	return !st->crates[p->next_crate].barrier || p->children == 0;
}

static void
cargo_start_rustc(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	const struct step *st = &steps[p->step];
	char cmdline[CMDLINE_MAX];
	int child;

	t->body = CH_CARGO_SPAWN;
	rustc_cmdline(s, st, &st->crates[p->next_crate], cmdline,
	    sizeof(cmdline));
	child = procs_spawn(s, cpu, thread, st->compiler, cmdline);
	if (child == -1) {
		t->wake_at = s->now + RETRY;
		return;
	}
	place(s, child, p->build, p->step, p->next_crate++);
	/* Stay on the processor while there may be more to start. */
	t->wake_at = s->now;
}

static void
cargo_act(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);

	if (cargo_may_start(s, p)) {
		cargo_start_rustc(s, cpu, thread);
		return;
	}
	t->wake_at = NEVER;
	if (p->next_crate == steps[p->step].ncrates && p->children == 0)
		procs_exit(s, cpu, thread);
	else
		memory_heap_op(s, cpu, thread, 0);
}

static void
start_codegen(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	const struct crate *c = crate_of(p);
	int i, workers;

	workers = 1 + (int)(c->compile_ms / 2000);	/* as without the regression */
	if (workers > MAX_WORKERS)
		workers = MAX_WORKERS;
	if (workers > s->ncpus)
		workers = s->ncpus;
	t->body = CH_RUSTC_SPAWN_WORKER;
	set_phase(s, p, PH_CODEGEN, vary_ms(s, p, compile_ms(s, p) * 45 / 100,
	    PH_CODEGEN));
	for (i = 0; i < workers; i++)
		procs_add_thread(s, cpu, thread, t->proc, TR_CODEGEN,
		    "opt cgu.0");
	build_pick_body(s, t);
}

/* The workers are done; rustc links or exits. */
static void
end_codegen(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	char cmdline[CMDLINE_MAX];
	int i, child;

	/* Past the baseline's reach (--slow-crate), no link.exe starts. */
	if (crate_of(p)->link_ms != 0 && !sim_may_start(s,
	    ident_of(PROG_LINK, p->build, p->step, p->crate)))
		return;
	for (i = p->nthreads - 1; i >= 0; i--)
		if (s->threads[p->threads[i]].role == TR_CODEGEN)
			procs_end_thread(s, cpu, p->threads[i]);
	if (crate_of(p)->link_ms == 0) {
		procs_exit(s, cpu, thread);
		return;
	}
	t->body = CH_RUSTC_SPAWN_LINK;
	link_cmdline(s, cmdline, sizeof(cmdline));
	child = procs_spawn(s, cpu, thread, PROG_LINK, cmdline);
	if (child == -1) {
		procs_exit(s, cpu, thread);
		return;
	}
	place(s, child, p->build, p->step, p->crate);
	set_phase(s, p, PH_LINKING, 0);
	t->body = CH_RUSTC_LINK_WAIT;
}

/*
 * --pause: the first rustc to codegen with a worker that has run blocks
 * its compiler thread on a lock that worker holds, until the worker lets
 * go (worker_act()).  @return : whether it did.
 */
static int
begin_pause(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	const struct proc *p = proc_of(s, t);
	const struct thread *w;
	int i;

	if (s->pause.ticks == 0 || s->pause.state != PAUSE_PLANNED ||
	    p->phase != PH_CODEGEN)
		return 0;
	for (i = 0; i < p->nthreads; i++) {
		w = &s->threads[p->threads[i]];
		if (w->role == TR_CODEGEN && !w->first_run)
			break;
	}
	if (i == p->nthreads)
		return 0;
	s->pause.state = PAUSE_ON;
	s->pause.waiter = thread;
	s->pause.holder = p->threads[i];
	s->pause.until = s->now + s->pause.ticks;
	s->pause.label = t->nq > 0 ? t->q[t->nq - 1] : -1;
	t->paused = 1;
	s->cpus[cpu].next_switch = s->now;
	return 1;
}

/* The worker holding the lock of --pause lets go: the waiter is readied. */
static void
end_pause(struct sim *s, int cpu, int thread)
{
	struct pause *pa = &s->pause;
	const struct thread *w = &s->threads[pa->waiter];
	const struct proc *p = proc_of(s, w);
	struct manifest_pause mp;

	if (pa->state != PAUSE_ON || pa->holder != thread || s->now < pa->until)
		return;
	mp.pid = p->pid;
	mp.start_ns = p->from_rundown ? 0 : (p->start_ts - s->t0) * 100;
	mp.tid = w->tid;
	mp.thread = w->rust_tid;
	mp.readying_tid = s->threads[thread].tid;
	mp.from_ns = (pa->out_ts - s->t0) * 100;
	mp.label = prof_label_name(pa->label);
	sched_ready_by(s, cpu, pa->waiter);
	mp.to_ns = (s->now - 1 - s->t0) * 100;	/* the ReadyThread */
	manifest_pause(s->manifest, &mp);
	pa->state = PAUSE_DONE;
}

static void
compiler_act(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);

	if (begin_pause(s, cpu, thread))
		return;
	if (rng_percent(&s->rng, 30))
		build_pick_body(s, t);
	if (p->phase == PH_FINISHING)
		procs_exit(s, cpu, thread);
	else if (p->phase == PH_FRONTEND && s->now >= p->phase_end)
		start_codegen(s, cpu, thread);
	else if (p->phase == PH_CODEGEN && s->now >= p->phase_end)
		end_codegen(s, cpu, thread);
	else if (p->phase == PH_FRONTEND && rng_percent(&s->rng, 2))
		sched_block_on_read(s, cpu, thread);
	else if (p->phase == PH_FRONTEND && rng_percent(&s->rng, 1))
		memory_virtual_op(s, cpu, thread, 1 * MB, 8 * MB);
	else if (p->phase == PH_CODEGEN && rng_percent(&s->rng, 5))
		memory_virtual_op(s, cpu, thread, 1 * MB, 32 * MB);
	else
		memory_heap_op(s, cpu, thread, 0);
}

static void
worker_act(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];

	end_pause(s, cpu, thread);
	if (rng_percent(&s->rng, 30))
		build_pick_body(s, t);
	/*
	 * With --self-profile a work item ends now and then, and the
	 * worker waits for the next, as rustc's wait on the coordinator:
	 * the gaps between the queries of each profile thread are its own.
	 */
	if (s->opt.profile_dir != NULL && rng_percent(&s->rng, 10)) {
		sched_block_for_work(s, cpu, thread);
		return;
	}
	if (rng_percent(&s->rng, 8))
		memory_virtual_op(s, cpu, thread, 2 * MB, 64 * MB);
	else
		memory_heap_op(s, cpu, thread, 0);
}

static void
link_act(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);
	uint64_t r = rng_below(&s->rng, 100);

	build_pick_body(s, t);
	if (s->now >= p->phase_end) {
		t->body = CH_LINK_PDB;
		memory_heap_destroy(s, cpu, thread, 1);
		procs_exit(s, cpu, thread);
	} else if (r < 5)
		sched_block_on_read(s, cpu, thread);
	else if (r < 8)
		memory_virtual_op(s, cpu, thread, 4 * MB, 32 * MB);
	else if (r < 70)
		memory_heap_op(s, cpu, thread, 0);
	else
		memory_heap_op(s, cpu, thread, 1);
}

/* What the running `thread` does next. */
void
build_act(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];

	switch (proc_of(s, t)->prog) {
	case PROG_CMD:
		shell_act(s, cpu, thread);
		break;
	case PROG_PYTHON:
		python_act(s, cpu, thread);
		break;
	case PROG_CARGO:
		cargo_act(s, cpu, thread);
		break;
	case PROG_RUSTC_STAGE0:
	case PROG_RUSTC_STAGE1:
		if (t->role == TR_COMPILER)
			compiler_act(s, cpu, thread);
		else if (t->role == TR_CODEGEN)
			worker_act(s, cpu, thread);
		break;
	case PROG_LINK:
		link_act(s, cpu, thread);
		break;
	default:
		break;
	}
}

/* rustc's main thread parses options and starts the compiler thread. */
static void
rustc_main_first_run(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);

	t->body = CH_RUSTC_MAIN_SPAWN;
	set_phase(s, p, PH_FRONTEND, frontend_ticks(s, p));
	prof_start(s, t->proc);
	procs_add_thread(s, cpu, thread, t->proc, TR_COMPILER, "rustc");
	t->body = CH_RUSTC_MAIN_INIT;
}

static void
main_first_run(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];
	struct proc *p = proc_of(s, t);

	procs_load_images(s, cpu, thread);
	build_pick_body(s, t);
	memory_heap_create(s, cpu, thread, 0);
	switch (p->prog) {
	case PROG_RUSTC_STAGE0:
	case PROG_RUSTC_STAGE1:
		rustc_main_first_run(s, cpu, thread);
		break;
	case PROG_LINK:
		/* mspdbcore keeps its own heap. */
		memory_heap_create(s, cpu, thread, 1);
		set_phase(s, p, PH_RUNNING, vary_ms(s, p, crate_of(p)->link_ms,
		    PH_RUNNING));
		break;
	default:
		/* python and cargo get to work at once. */
		t->wake_at = s->now;
		break;
	}
}

void
build_first_run(struct sim *s, int cpu, int thread)
{
	struct thread *t = &s->threads[thread];

	if (t->role == TR_MAIN)
		main_first_run(s, cpu, thread);
	else
		build_pick_body(s, t);
}

/* A child of `parent` has exited: whoever waits for it wakes up. */
void
build_child_exited(struct sim *s, int parent)
{
	struct proc *p = &s->procs[parent];
	int i, rustc;

	p->children--;
	rustc = p->prog == PROG_RUSTC_STAGE0 || p->prog == PROG_RUSTC_STAGE1;
	if (rustc)
		set_phase(s, p, PH_FINISHING, 0);
	for (i = 0; i < p->nthreads; i++) {
		if (!rustc || s->threads[p->threads[i]].role == TR_COMPILER)
			sched_wake(s, p->threads[i]);
		if (rustc)
			prof_sync(s, p->threads[i]);
	}
}
