/*
 * selfprof.c - --self-profile: the .mm_profdata that each rustc of the
 * build would have written with -Z self-profile, and the ground truth
 * of the join of profile and trace in the manifest.
 *
 * A profile starts when rustc's main thread first runs (rustc creates
 * its profiler early in main), on the trace's clock: its start_time is
 * the trace header's UTC time plus the ticks since, in ns since the Unix
 * epoch, and its process_id the process's pid.  What a thread of rustc
 * is doing (its phase and the body of its stacks, build.c) is a path of
 * nested queries, outermost first (path_of()); whenever the path
 * changes, the queries that end are written and the new ones open, at
 * the tick of the change, so that every sample of the thread (a tick of
 * its own, never that of a change) lies in the queries its stack shows.
 * A thread keeps its queries while it waits or is preempted: their time
 * holds its waits.  The compiler thread is rustc's ThreadId 3, the
 * others number on from 4 in the order they first enter a query, as
 * rustc numbers its threads; the main thread has no queries.
 *
 * The manifest gets, when a profile closes (the process exits, or the
 * trace ends and cuts it), its profile, profile_thread and
 * query_samples lines: which Windows thread each ThreadId ran on, and
 * how many samples fell in each innermost query.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "base/platform.h"
#include "chains.h"
#include "manifest.h"
#include "mmwrite.h"
#include "sim.h"

#define FIRST_THREAD		3	/* rustc's compiler thread */
#define PROFILE_THREADS		16
#define NAME_MAX_LEN		512
#define NO_QUERY		"(no query)"

enum label {
	QL_PARSE_CRATE, QL_EXPAND_CRATE, QL_RESOLVER, QL_ANALYSIS,
	QL_TYPECK, QL_EVALUATE_OBLIGATION, QL_MIR_BORROWCK, QL_OPTIMIZED_MIR,
	QL_CRATE_HASH, QL_CODEGEN_CRATE, QL_MONO_ITEMS, QL_CODEGEN_MODULE,
	QL_METADATA, QL_LINK_CRATE, QL_RUN_LINKER, QL_CGU_OPTIMIZE,
	QL_LLVM_OPTIMIZE, QL_CGU_CODEGEN, QL_LLVM_CODEGEN, QL_LLVM_EMIT,
	QL_COUNT
};

/* The labels and whether rustc records them as Query or GenericActivity. */
static const struct {
	const char	*name;
	int		 query;
} labels[QL_COUNT] = {
	[QL_PARSE_CRATE] = { "parse_crate", 0 },
	[QL_EXPAND_CRATE] = { "expand_crate", 0 },
	[QL_RESOLVER] = { "resolver_for_lowering", 1 },
	[QL_ANALYSIS] = { "analysis", 1 },
	[QL_TYPECK] = { "typeck", 1 },
	[QL_EVALUATE_OBLIGATION] = { "evaluate_obligation", 1 },
	[QL_MIR_BORROWCK] = { "mir_borrowck", 1 },
	[QL_OPTIMIZED_MIR] = { "optimized_mir", 1 },
	[QL_CRATE_HASH] = { "crate_hash", 1 },
	[QL_CODEGEN_CRATE] = { "codegen_crate", 0 },
	[QL_MONO_ITEMS] = { "collect_and_partition_mono_items", 1 },
	[QL_CODEGEN_MODULE] = { "codegen_module", 0 },
	[QL_METADATA] = { "generate_crate_metadata", 0 },
	[QL_LINK_CRATE] = { "link_crate", 0 },
	[QL_RUN_LINKER] = { "run_linker", 0 },
	[QL_CGU_OPTIMIZE] = { "codegen_module_optimize", 0 },
	[QL_LLVM_OPTIMIZE] = { "LLVM_module_optimize", 0 },
	[QL_CGU_CODEGEN] = { "codegen_module_codegen", 0 },
	[QL_LLVM_CODEGEN] = { "LLVM_module_codegen", 0 },
	[QL_LLVM_EMIT] = { "LLVM_module_codegen_emit_obj", 0 },
};

struct profile {
	int		 used;
	struct mmw	 w;
	uint32_t	 pid;
	uint64_t	 proc_start_ns;	/* as the process line has it */
	uint64_t	 start_tick;	/* the profiler's creation */
	uint64_t	 kind[2];	/* GenericActivity, Query */
	uint64_t	 label_id[QL_COUNT];
	uint32_t	 next_thread;
	uint32_t	 tids[PROFILE_THREADS];	/* by ThreadId - 3 */
	uint64_t	 samples[QL_COUNT + 1];	/* the last: no query */
	char		 file[NAME_MAX_LEN];
	int		 failed;
};

struct selfprof {
	const char	*dir;
	struct profile	*p;
	size_t		 n;
	struct intern	 names;		/* files written */
};

int
prof_label(const char *name)
{
	int i;

	for (i = 0; i < QL_COUNT; i++)
		if (strcmp(labels[i].name, name) == 0)
			return i;
	return -1;
}

const char *
prof_label_name(int label)
{
	return label >= 0 && label < QL_COUNT ? labels[label].name : NO_QUERY;
}

/* The queries of a front end's body, outermost first. */
static int
frontend_path(enum chain_id body, int *path)
{
	switch (body) {
	case CH_RUSTC_PARSE:
		path[0] = QL_PARSE_CRATE;
		return 1;
	case CH_RUSTC_EXPAND:
		path[0] = QL_EXPAND_CRATE;
		return 1;
	case CH_RUSTC_RESOLVE:
		path[0] = QL_RESOLVER;
		return 1;
	case CH_RUSTC_TYPECK:
		path[0] = QL_ANALYSIS;
		path[1] = QL_TYPECK;
		return 2;
	case CH_RUSTC_TRAITS:
		path[0] = QL_ANALYSIS;
		path[1] = QL_TYPECK;
		path[2] = QL_EVALUATE_OBLIGATION;
		return 3;
	case CH_RUSTC_BORROWCK:
		path[0] = QL_ANALYSIS;
		path[1] = QL_MIR_BORROWCK;
		return 2;
	case CH_RUSTC_MIR_OPT:
		path[0] = QL_ANALYSIS;
		path[1] = QL_OPTIMIZED_MIR;
		return 2;
	case CH_RUSTC_HASH:
		path[0] = QL_ANALYSIS;
		path[1] = QL_CRATE_HASH;
		return 2;
	default:
		return 0;
	}
}

int
prof_innermost(enum chain_id frontend_body)
{
	int path[QUERY_DEPTH], n = frontend_path(frontend_body, path);

	return n > 0 ? path[n - 1] : -1;
}

/* The compiler thread in codegen: under codegen_crate. */
static int
codegen_path(enum chain_id body, int *path)
{
	path[0] = QL_CODEGEN_CRATE;
	switch (body) {
	case CH_RUSTC_MONO:
		path[1] = QL_MONO_ITEMS;
		return 2;
	case CH_RUSTC_CODEGEN_CGU:
		path[1] = QL_CODEGEN_MODULE;
		return 2;
	case CH_RUSTC_METADATA:
		path[1] = QL_METADATA;
		return 2;
	default:
		return 1;
	}
}

/* An LLVM worker on a work item. */
static int
worker_path(enum chain_id body, int *path)
{
	switch (body) {
	case CH_LLVM_INSTCOMBINE:
	case CH_LLVM_GVN:
		path[0] = QL_CGU_OPTIMIZE;
		path[1] = QL_LLVM_OPTIMIZE;
		return 2;
	case CH_LLVM_ISEL:
	case CH_LLVM_REGALLOC:
		path[0] = QL_CGU_CODEGEN;
		path[1] = QL_LLVM_CODEGEN;
		return 2;
	case CH_LLVM_EMIT:
		path[0] = QL_CGU_CODEGEN;
		path[1] = QL_LLVM_EMIT;
		return 2;
	default:
		return 0;
	}
}

/* The queries a thread of rustc is in now, outermost first. */
static int
path_of(const struct thread *t, const struct proc *p, int *path)
{
	if (t->first_run)
		return 0;
	if (t->role == TR_CODEGEN)
		return t->awaiting_work ? 0 : worker_path(t->body, path);
	if (t->role != TR_COMPILER)
		return 0;
	switch (p->phase) {
	case PH_FRONTEND:
		return frontend_path(t->body, path);
	case PH_CODEGEN:
		return codegen_path(t->body, path);
	case PH_LINKING:
		path[0] = QL_LINK_CRATE;
		path[1] = QL_RUN_LINKER;
		return 2;
	default:
		return 0;
	}
}

static struct profile *
profile_of(const struct sim *s, const struct proc *p)
{
	return s->prof != NULL && p->prof > 0 ? &s->prof->p[p->prof - 1] :
	    NULL;
}

/* The file of a profile: crate-PID.mm_profdata, -2, -3 ... on a repeat. */
static int
file_name(struct selfprof *sp, const char *crate, uint32_t pid, char *buf,
    size_t cap)
{
	int added = 0, n;

	for (n = 1; !added; n++) {
		if (n == 1)
			snprintf(buf, cap, "%s-%07" PRIu32 ".mm_profdata",
			    crate, pid);
		else
			snprintf(buf, cap, "%s-%07" PRIu32 "-%d.mm_profdata",
			    crate, pid, n);
		if (intern_add(&sp->names, buf, strlen(buf), &added) == 0)
			return -1;
	}
	return 0;
}

/* The --crate-name of a command line, into buf; "unknown-crate" if none. */
static void
crate_name(const char *cmdline, char *buf, size_t cap)
{
	const char *p = strstr(cmdline, "--crate-name ");
	size_t n = 0;

	if (p == NULL) {
		snprintf(buf, cap, "unknown-crate");
		return;
	}
	for (p += strlen("--crate-name "); p[n] != '\0' && p[n] != ' ' &&
	    n + 1 < cap; n++)
		buf[n] = p[n];
	buf[n] = '\0';
}

/* A free slot of the table, grown if need be; -1 if out of memory. */
static int
free_slot(struct selfprof *sp)
{
	struct profile *np;
	size_t i;

	for (i = 0; i < sp->n; i++)
		if (!sp->p[i].used)
			return (int)i;
	if ((np = realloc(sp->p, (sp->n + 8) * sizeof(*np))) == NULL)
		return -1;
	memset(np + sp->n, 0, 8 * sizeof(*np));
	sp->p = np;
	sp->n += 8;
	return (int)i;
}

/* The metadata JSON of section 4.4, as measureme writes it. */
static void
metadata(const struct sim *s, const struct proc *p, uint64_t tick,
    struct buf *json)
{
	char head[128];

	snprintf(head, sizeof(head), "{ \"start_time\": %" PRIu64 ", "
	    "\"process_id\": %" PRIu32 ", \"cmd\": \"", s->unix_ns0 +
	    (tick - s->t0) * 100, p->pid);
	buf_put(json, head, strlen(head));
	mmw_cmd(json, p->cmdline);
	buf_put_str(json, "\", \"counter\": { \"name\": \"wall-time\", "
	    "\"units\": [[\"ns\", 1], [\"\xce\xbcs\", 1000], "
	    "[\"ms\", 1000000], [\"s\", 1000000000]] } }");
	buf_put_u8(json, 0);
}

void
prof_start(struct sim *s, int proc)
{
	struct selfprof *sp = s->prof;
	struct proc *p = &s->procs[proc];
	struct buf json = { 0 };
	struct profile *pr;
	char crate[256], path[2 * NAME_MAX_LEN];
	int slot, i;

	if (sp == NULL || (slot = free_slot(sp)) == -1)
		return;
	pr = &sp->p[slot];
	memset(pr, 0, sizeof(*pr));
	crate_name(p->cmdline, crate, sizeof(crate));
	metadata(s, p, s->now, &json);
	if (json.oom || file_name(sp, crate, p->pid, pr->file,
	    sizeof(pr->file)) != 0) {
		buf_release(&json);
		fprintf(stderr, "etlsynth: --self-profile: out of memory\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", sp->dir, pr->file);
	if (mmw_open(&pr->w, path, (const char *)json.data) != 0) {
		fprintf(stderr, "etlsynth: %s: %s\n", path, strerror(errno));
		buf_release(&json);
		return;
	}
	buf_release(&json);
	/* rustc's kind strings come right after the metadata. */
	pr->kind[1] = mmw_string(&pr->w, "Query");
	pr->kind[0] = mmw_string(&pr->w, "GenericActivity");
	for (i = 0; i < QL_COUNT; i++)
		pr->label_id[i] = mmw_string(&pr->w, labels[i].name);
	pr->used = 1;
	pr->pid = p->pid;
	pr->proc_start_ns = p->from_rundown ? 0 : (p->start_ts - s->t0) * 100;
	pr->start_tick = s->now;
	pr->next_thread = FIRST_THREAD;
	p->prof = slot + 1;
}

/* Writes the innermost open query of `t`, ending now. */
static void
close_query(struct sim *s, struct thread *t, struct profile *pr)
{
	int label = t->q[--t->nq];
	uint64_t from = t->q_start[t->nq];

	if (from == s->now)
		return;		/* nothing happened in it */
	mmw_interval(&pr->w, pr->kind[labels[label].query],
	    pr->label_id[label], t->rust_tid, (from - pr->start_tick) * 100,
	    (s->now - pr->start_tick) * 100);
}

/* The thread's ThreadId, given when it first enters a query. */
static void
name_thread(struct profile *pr, struct thread *t)
{
	if (t->rust_tid != 0)
		return;
	t->rust_tid = pr->next_thread++;
	if (t->rust_tid - FIRST_THREAD < PROFILE_THREADS)
		pr->tids[t->rust_tid - FIRST_THREAD] = t->tid;
}

void
prof_sync(struct sim *s, int thread)
{
	struct thread *t = &s->threads[thread];
	struct profile *pr;
	int path[QUERY_DEPTH], n, k;

	if (!t->live || (pr = profile_of(s, &s->procs[t->proc])) == NULL)
		return;
	n = path_of(t, &s->procs[t->proc], path);
	for (k = 0; k < n && k < t->nq && t->q[k] == path[k]; k++)
		continue;
	while (t->nq > k)
		close_query(s, t, pr);
	if (k < n)
		name_thread(pr, t);
	for (; k < n; k++) {
		t->q[t->nq] = path[k];
		t->q_start[t->nq++] = s->now;
	}
}

void
prof_thread_end(struct sim *s, int thread)
{
	struct thread *t = &s->threads[thread];
	struct profile *pr = profile_of(s, &s->procs[t->proc]);

	while (pr != NULL && t->nq > 0)
		close_query(s, t, pr);
}

void
prof_sample(struct sim *s, const struct thread *t)
{
	struct profile *pr = profile_of(s, &s->procs[t->proc]);

	if (pr != NULL)
		pr->samples[t->nq > 0 ? t->q[t->nq - 1] : QL_COUNT]++;
}

/* The manifest's lines of a profile. */
static void
manifest_lines(struct sim *s, const struct profile *pr, int cut)
{
	uint32_t i;
	int l;

	manifest_profile(s->manifest, pr->pid, pr->proc_start_ns,
	    (pr->start_tick - s->t0) * 100, pr->w.nevents, cut, pr->file);
	for (i = FIRST_THREAD; i < pr->next_thread &&
	    i - FIRST_THREAD < PROFILE_THREADS; i++)
		manifest_profile_thread(s->manifest, pr->pid,
		    pr->proc_start_ns, i, pr->tids[i - FIRST_THREAD]);
	for (l = 0; l <= QL_COUNT; l++)
		if (pr->samples[l] != 0)
			manifest_query_samples(s->manifest, pr->pid,
			    pr->proc_start_ns, prof_label_name(l),
			    pr->samples[l]);
}

void
prof_exit(struct sim *s, struct proc *p, int cut)
{
	struct profile *pr = profile_of(s, p);
	int i;

	if (pr == NULL)
		return;
	for (i = 0; i < p->nthreads; i++)
		prof_thread_end(s, p->threads[i]);
	manifest_lines(s, pr, cut);
	if (mmw_close(&pr->w) != 0)
		fprintf(stderr, "etlsynth: %s/%s: %s\n", s->prof->dir,
		    pr->file, strerror(errno));
	pr->used = 0;
	p->prof = 0;
}

struct selfprof *
selfprof_new(const char *dir)
{
	struct selfprof *sp = calloc(1, sizeof(*sp));

	if (sp != NULL)
		sp->dir = dir;
	return sp;
}

void
selfprof_free(struct selfprof *sp)
{
	if (sp == NULL)
		return;
	intern_release(&sp->names);
	free(sp->p);
	free(sp);
}
