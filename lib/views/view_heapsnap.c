/*
 * view_heapsnap.c - "etlagg heapsnap": WPR heap snapshots (the heapsnap
 * events etlcat writes from them, etl-events-2.md section 1), per
 * snapshot: the blocks that were allocated and not freed when it was
 * taken, by allocation stack, function or module.
 *
 * Snapshots are numbered 1, 2, ... in stream order (their summary
 * events), whatever process took them; the table of snapshots (the
 * default, --by process) lists them with their process instance, the
 * source's own per-process instance number and whether they came whole.
 * --by stack|function|module counts the blocks of --snapshot N (the last
 * one if not given); --diff A B the growth from snapshot A to B of one
 * process: count and bytes in each, and B minus A by stack, the reason
 * to take several snapshots.  Blocks without a tracked stack (allocated
 * before tracking began) are [no stack].
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "model/memstacks.h"
#include "model/model.h"
#include "model/proctab.h"
#include "view.h"
#include "view_merge.h"

enum by { BY_PROCESS = -1 };

enum w { W_COUNT_A, W_BYTES_A, W_COUNT_B, W_BYTES_B };

struct snapinfo {
	uint32_t proc;			/* proctab index */
	uint64_t instance, allocations, bytes, heaps, unknown;
	int64_t ns;
	int complete;
	char problem[160];
};

struct view {
	int by;
	uint32_t want_a, want_b;	/* 0: the last; b: --diff */
	int diff;
	struct model *mine;		/* its own model, or NULL: shared */
	struct proctab *pt;
	struct memstacks *ms;
	const struct stream_reader *reader;
	struct snapinfo *snaps;
	size_t nsnaps, snaps_cap;
	uint32_t current;		/* the snapshot being read, or 0 */
	int section_open;
	uint64_t orphans;		/* blocks before any summary */
};

static void heapsnap_destroy(struct view *v);

static int
parse_number(const char *opt, const char *arg, uint32_t *out)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (end == arg || *end != '\0' || n == 0 || n > UINT32_MAX) {
		view_warn("heapsnap: %s wants a snapshot number (1, 2, "
		    "...), not '%s'", opt, arg);
		return -1;
	}
	*out = (uint32_t)n;
	return 0;
}

static const char *const tables[] = { "heapsnap", NULL };

static const struct option longopts[] = {
	{ "addresses", no_argument, NULL, 'a' },
	{ "by", required_argument, NULL, 'b' },
	{ "diff", required_argument, NULL, 'd' },
	{ "snapshot", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 }
};

/* --diff A B: B is the word after A. */
static const char *const pair_options[] = { "diff", NULL };

static struct view *
heapsnap_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	unsigned flags = 0;
	int ch, bad = 0;

	if (v == NULL)
		return NULL;
	v->by = BY_PROCESS;
	optind = 0;
	while (!bad && (ch = getopt_long(argc, argv, "+", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			flags |= FRAMES_ADDRESSES;
			break;
		case 'b':
			if (strcmp(optarg, "process") == 0)
				v->by = BY_PROCESS;
			else if ((v->by = memstacks_parse_by(optarg)) < 0) {
				view_warn("heapsnap: --by wants process, "
				    "stack, function or module, not '%s'",
				    optarg);
				bad = 1;
			}
			break;
		case 'd':
			/* --diff A B: B is the next argument. */
			if (parse_number("--diff", optarg, &v->want_a) != 0 ||
			    optind >= argc || parse_number("--diff",
			    argv[optind], &v->want_b) != 0)
				bad = 1;
			else
				optind++;
			v->diff = 1;
			break;
		case 's':
			bad = parse_number("--snapshot", optarg,
			    &v->want_a) != 0;
			break;
		default:
			bad = 1;
		}
	}
	*used = optind;
	if (!bad && v->diff && v->by == BY_PROCESS)
		v->by = MS_BY_STACK;
	if (bad) {
		free(v);
		return NULL;
	}
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->pt = model_proctab(m)) == NULL ||
	    (v->ms = memstacks_new(flags)) == NULL) {
		heapsnap_destroy(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static int
on_summary(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	struct snapinfo *s;
	const struct value *problem = stream_event_field(ev, "problem");
	uint32_t proc = proctab_of_pid(v->pt, r, ev->h.pid);

	if (proc == PROCTAB_NONE || (s = array_slot(&v->snaps, &v->snaps_cap,
	    v->nsnaps, sizeof(*s))) == NULL)
		return -1;
	s->proc = proc;
	s->instance = stream_event_u(ev, "snapshot", 0);
	s->allocations = stream_event_u(ev, "allocations", 0);
	s->bytes = stream_event_u(ev, "bytes", 0);
	s->heaps = stream_event_u(ev, "heaps", 0);
	s->unknown = stream_event_u(ev, "unknown_stacks", 0);
	s->complete = stream_event_u(ev, "complete", 0) != 0;
	s->ns = ev->h.ts;
	if (problem != NULL && problem->type == VAL_STR)
		snprintf(s->problem, sizeof(s->problem), "%.*s",
		    (int)problem->v.s.len, problem->v.s.ptr);
	v->current = (uint32_t)++v->nsnaps;
	/* Without --snapshot the last one counts: forget the earlier. */
	if (v->by != BY_PROCESS && v->want_a == 0)
		memstacks_reset(v->ms);
	return 0;
}

static int
on_alloc(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	const struct stream_process *def = stream_process_by_pid(r, ev->h.pid);
	const struct proc *p;
	int slot;
	struct memw *w;
	const char *image;
	uint32_t key;
	size_t len;

	if (v->current == 0) {
		v->orphans++;
		return 0;
	}
	if (v->by == BY_PROCESS)
		return 0;
	if (v->want_a == 0 || v->current == v->want_a)
		slot = W_COUNT_A;
	else if (v->diff && v->current == v->want_b)
		slot = W_COUNT_B;
	else
		return 0;
	p = proctab_get(v->pt, v->snaps[v->current - 1].proc);
	image = proctab_str(v->pt, p->image, &len);
	if ((key = memstacks_key(v->ms, image, len, def,
	    ev->h.stack, NULL)) == 0 ||
	    (w = memstacks_weight(v->ms, key)) == NULL)
		return -1;
	w->v[slot]++;
	memw_add(&w->v[slot + 1], stream_event_u(ev, "size", 0));
	return 0;
}

static int
heapsnap_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;

	v->reader = r;
	if (rec->type == REC_HEADER) {
		v->current = 0;
		if (v->section_open && memstacks_end_section(v->ms, NULL) != 0)
			return -1;
		v->section_open = 0;
	}
	if ((v->mine != NULL && model_record(v->mine, r, rec) != 0) ||
	    memstacks_record(v->ms, r, rec) != 0)
		return -1;
	if (rec->type == REC_END) {
		v->section_open = 0;
		return memstacks_end_section(v->ms, r);
	}
	if (rec->type != REC_EVENT || ev->h.kind != EV_HEAPSNAP)
		return 0;
	v->section_open = 1;
	if (ev->h.op == EVOP_START)
		return on_summary(v, r, ev);
	return ev->h.op == EVOP_ALLOC ? on_alloc(v, r, ev) : 0;
}

static struct value
u64v(uint64_t u)
{
	return (struct value){ .type = VAL_U64, .v.u = u };
}

static struct value
strv(const char *s, size_t len)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, len } };
}

static int
write_snapshots(struct view *v, struct stream_writer *w)
{
	static const struct stream_column cols[] = {
		{ "snapshot", VAL_U64, "" }, { "image", VAL_STR, "" },
		{ "pid", VAL_U64, "" }, { "start", VAL_NS, "s" },
		{ "time", VAL_NS, "s" }, { "instance", VAL_U64, "" },
		{ "heaps", VAL_U64, "" }, { "complete", VAL_U64, "" },
		{ "problem", VAL_STR, "" },
		{ "unknown_stack_blocks", VAL_U64, "" },
		{ "outstanding_count", VAL_U64, "" },
		{ "outstanding_bytes", VAL_U64, "B" },
	};
	struct value cells[12];
	struct stream_row row = { 1, 12, cells };
	size_t i, len;
	int rc;

	if ((rc = view_write_table(w, 1, "heapsnap", cols, 12)) != 0)
		return rc;
	for (i = 0; i < v->nsnaps && rc == 0; i++) {
		const struct snapinfo *s = &v->snaps[i];
		const struct proc *p = proctab_get(v->pt, s->proc);
		const char *image = proctab_str(v->pt, p->image, &len);

		cells[0] = u64v(i + 1);
		cells[1] = strv(image, len);
		cells[2] = u64v(p->pid);
		cells[3] = (struct value){ .type = p->start_ns !=
		    PROCTAB_NO_TIME ? VAL_NS : VAL_NULL, .v.i = p->start_ns };
		cells[4] = (struct value){ .type = VAL_NS, .v.i = s->ns };
		cells[5] = u64v(s->instance);
		cells[6] = u64v(s->heaps);
		cells[7] = u64v((uint64_t)s->complete);
		cells[8] = strv(s->problem, strlen(s->problem));
		cells[9] = u64v(s->unknown);
		cells[10] = u64v(s->allocations);
		cells[11] = u64v(s->bytes);
		rc = stream_write_row(w, &row);
	}
	return rc;
}

struct srow {
	const char *key, *module;
	size_t len, modlen;
	const struct memw *w;
	int64_t weight;
};

/* b minus a, modulo 2^64 (sizes come from the input). */
static int64_t
growth(const int64_t *w, int b, int a)
{
	return (int64_t)((uint64_t)w[b] - (uint64_t)w[a]);
}

static int
cmp_srows(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;
	int c;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if ((c = memcmp(x->key, y->key, x->len < y->len ? x->len :
	    y->len)) != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static int
write_stacks(struct view *v, struct stream_writer *w)
{
	static const char *const keys[] = { "stack", "function", "module" };
	struct stream_column cols[9];
	struct value cells[9];
	struct stream_row row = { 1, 0, cells };
	struct memstacks_rows rows;
	struct srow *s;
	size_t k = 0, i, n;
	int rc;

	cols[k++] = (struct stream_column){ keys[v->by], VAL_STR, "" };
	if (v->by == MS_BY_FUNCTION)
		cols[k++] = (struct stream_column){ "module", VAL_STR, "" };
	n = k;
	if (v->diff) {
		cols[n++] = (struct stream_column){ "a_count", VAL_U64, "" };
		cols[n++] = (struct stream_column){ "a_bytes", VAL_U64, "B" };
		cols[n++] = (struct stream_column){ "b_count", VAL_U64, "" };
		cols[n++] = (struct stream_column){ "b_bytes", VAL_U64, "B" };
		cols[n++] = (struct stream_column){ "growth_count", VAL_I64,
		    "" };
		cols[n++] = (struct stream_column){ "growth_bytes", VAL_I64,
		    "B" };
	} else {
		cols[n++] = (struct stream_column){ "outstanding_count",
		    VAL_U64, "" };
		cols[n++] = (struct stream_column){ "outstanding_bytes",
		    VAL_U64, "B" };
	}
	if ((rc = view_write_table(w, 1, "heapsnap", cols, n)) != 0 ||
	    memstacks_rows(v->ms, (enum memstacks_by)v->by, &rows) != 0)
		return -1;
	if ((s = calloc(rows.n + 1, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i < rows.n; i++)
		s[i] = (struct srow){ rows.key[i], rows.module[i],
		    rows.keylen[i], rows.modlen[i], rows.w[i], v->diff ?
		    growth(rows.w[i]->v, W_BYTES_B, W_BYTES_A) :
		    rows.w[i]->v[W_BYTES_A] };
	qsort(s, rows.n, sizeof(*s), cmp_srows);
	for (i = 0; i < rows.n && rc == 0; i++) {
		const int64_t *x = s[i].w->v;

		cells[0] = strv(s[i].key, s[i].len);
		if (v->by == MS_BY_FUNCTION)
			cells[1] = s[i].module != NULL ?
			    strv(s[i].module, s[i].modlen) :
			    (struct value){ .type = VAL_NULL };
		n = k;
		cells[n++] = u64v((uint64_t)x[W_COUNT_A]);
		cells[n++] = u64v((uint64_t)x[W_BYTES_A]);
		if (v->diff) {
			cells[n++] = u64v((uint64_t)x[W_COUNT_B]);
			cells[n++] = u64v((uint64_t)x[W_BYTES_B]);
			cells[n] = (struct value){ .type = VAL_I64,
			    .v.i = growth(x, W_COUNT_B, W_COUNT_A) };
			n++;
			cells[n] = (struct value){ .type = VAL_I64,
			    .v.i = growth(x, W_BYTES_B, W_BYTES_A) };
			n++;
		}
		row.ncells = n;
		rc = stream_write_row(w, &row);
	}
	free(s);
	return rc;
}

static int
write_diag(struct stream_writer *w, const char *what, uint64_t count)
{
	struct stream_diag d = { what, count, 0, 0 };

	return count != 0 ? stream_write_diag(w, &d) : 0;
}

/* What is wrong with the snapshots asked for, or NULL. */
static const char *
check_wanted(const struct view *v)
{
	if (v->by == BY_PROCESS)
		return NULL;
	if (v->nsnaps == 0)
		return "heapsnap: the stream holds no heap snapshot";
	if (v->want_a > v->nsnaps || v->want_b > v->nsnaps)
		return "heapsnap: no snapshot of that number";
	if (v->diff && v->snaps[v->want_a - 1].proc !=
	    v->snaps[v->want_b - 1].proc)
		return "heapsnap: --diff A B wants two snapshots of one "
		    "process";
	return NULL;
}

static int
heapsnap_finish(struct view *v, struct stream_writer *w)
{
	const char *wrong;
	uint64_t partial = 0;
	size_t i;

	if (v->section_open && memstacks_end_section(v->ms, v->reader) != 0)
		return -1;
	if ((wrong = check_wanted(v)) != NULL) {
		/* An empty table says it: the rows would mislead. */
		memstacks_reset(v->ms);
		if (write_diag(w, wrong, 1) != 0)
			return -1;
	}
	if ((v->by == BY_PROCESS ? write_snapshots(v, w) :
	    write_stacks(v, w)) != 0)
		return -1;
	for (i = 0; i < v->nsnaps; i++)
		partial += !v->snaps[i].complete;
	return write_diag(w, "heapsnap: snapshots incomplete (see their "
	    "problem column)", partial) != 0 ||
	    write_diag(w, "heapsnap: blocks without their snapshot's summary",
	    v->orphans) != 0 ? -1 : 0;
}

static void
heapsnap_destroy(struct view *v)
{
	model_free(v->mine);
	memstacks_free(v->ms);
	free(v->snaps);
	free(v);
}

static const char *const merge_keys[] = {
	"pid", "start", "time", "instance", NULL
};
static const char *const by_stack[] = { "-$last", "+$key", NULL };
static const struct view_merge_order merge_orders[] = {
	{ "snapshot", NULL }, { NULL, by_stack }
};
/* --merge: tables of traces computed apart, as one stream's. */
static const struct view_merge_spec merge_spec = {
	tables, merge_keys, NULL, merge_orders, "snapshot"
};

const struct view_ops view_heapsnap_ops = {
	.name = "heapsnap",
	.needs_kind = EV_HEAPSNAP,
	.needs = "the trace has no heap snapshots; the RustcHeap profile of "
	    "pipelines/rustc.wprp takes them",
	.usage = "[--addresses] [--by process|stack|function|module] "
	    "[--snapshot N | --diff A B] [--merge]",
	.summary = "WPR heap snapshots: the snapshots, or the live blocks "
	    "of one by allocation stack, function or module",
	.reader_flags = STREAM_KEEP_STACKS,
	.options = longopts,
	.pair_options = pair_options,
	.tables = tables,
	.merge = &merge_spec,
	.create = heapsnap_create,
	.record = heapsnap_record,
	.finish = heapsnap_finish,
	.destroy = heapsnap_destroy,
};
