/*
 * view_vmem.c - "etlagg vmem": committed virtual memory by process, by
 * committing stack, function or module, as PerfView's "Net Virtual
 * Alloc" and WPA's "VirtualAlloc Commit Lifetimes" account it
 * (etl-events-2.md 4.2 and 4.3).
 *
 * Each process instance has a map of its committed ranges (vmem_map.h),
 * fed by the VirtualAlloc events with MEM_COMMIT and the VirtualFree
 * events with MEM_DECOMMIT or MEM_RELEASE, in the process the payload
 * names (the target of VirtualAllocEx, not the caller).  Commit over
 * free space adds to the committing stack; commit over committed space
 * moves the range to the newest stack; a free subtracts from the stack
 * that owns each part it covers.  A VirtualAllocDCStart rundown region
 * seeds the map with its committed bytes, as [committed before the
 * trace], so that its later free is not lost; nothing else is known of
 * memory committed before the trace.  A process that exits keeps what
 * it held at exit; its map is then no longer fed.
 *
 * --at T and --to T stop at T (seconds from the trace start); with
 * --from T0 --to T1 each committed range is classified by its lifetime
 * (WPA's impact types): transient (committed and freed inside), impacting
 * (committed before and freed inside: negative; committed inside and
 * alive at T1: positive) and persistent (committed before, alive at T1).
 * What a process held when it exited counts as alive at T1, as its
 * outstanding bytes do, so that impacting bytes are always the change of
 * outstanding bytes from T0 to T1.
 *
 * --timeline gives outstanding commit per process every --step ms, a
 * zero at each exit, and each process's peak (its peak_outstanding_bytes)
 * at the time it was first reached, so that a drawing at any step shows
 * and labels the true peak, not the highest of its samples.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/seconds.h"
#include "stream/frames.h"
#include "model/memstacks.h"
#include "model/proclabel.h"
#include "model/model.h"
#include "model/proctab.h"
#include "model/vmem_map.h"
#include "view.h"
#include "view_merge.h"

#define MEM_COMMIT	0x1000
#define MEM_DECOMMIT	0x4000
#define MEM_RELEASE	0x8000
#define NO_LIMIT	INT64_MAX
#define BEFORE_TRACE	"[committed before the trace]"
#define DEFAULT_STEP_MS	100
#define TL_GAP_MAX	100000	/* steps between two events written in full */

enum by { BY_PROCESS = -1 };	/* else enum memstacks_by */

/* The weights of a stack (struct memw) and of a process. */
enum w {
	W_COMMITTED, W_DECOMMITTED, W_OUTSTANDING, W_COMMITS, W_FREES,
	W_BEFORE, W_TRANSIENT, W_IMPACTING, W_PERSISTENT, W_PEAK
};

struct vproc {
	struct vmem_map map;
	struct memw w;
	int64_t end_ns;
	int64_t peak_ns;		/* when w.v[W_PEAK] was first reached */
	size_t peak_row;		/* the timeline rows written before it */
	int used, ended;
	int cut;			/* ended by its section's end */
};

struct tl_row {
	int64_t ns;
	uint32_t proc;
	uint64_t bytes;
};

struct view {
	int by;
	int window, timeline, weight_committed;
	int instances;			/* --instances */
	int64_t from, to;		/* the window, or stop at `to` */
	int64_t step;
	struct model *mine;		/* its own model, or NULL: shared */
	struct proctab *pt;
	struct memstacks *ms;
	const struct stream_reader *reader;
	struct vproc *procs;
	size_t procs_cap;
	int section_open;
	/* The piece callbacks' context. */
	struct vproc *cur;
	uint32_t cur_key;
	int64_t now;
	/* Timeline. */
	struct tl_row *rows;
	size_t nrows, rows_cap;
	int64_t next_step;
	/* Counts for REC_DIAG. */
	uint64_t after_exit, reserve_only, rundown_ends, unknown_frees;
	uint64_t zero_size, steps_skipped;
};

static void vmem_destroy(struct view *v);

/*
 * A time of --at, --from or --to; a negative one is an event's before
 * the trace's start.  @return : 0, or -1 after a message.
 */
static int
parse_time(const char *opt, const char *arg, int64_t *ns)
{
	char msg[SECONDS_MESSAGE_MAX];

	if (seconds_parse(arg, ns) == 0)
		return 0;
	view_warn("vmem: %s", seconds_message(msg, sizeof(msg), opt, arg,
	    SECONDS_WHAT));
	return -1;
}

/* --step: milliseconds above 0.  @return : 0, or -1 after a message. */
static int
parse_step(const char *arg, int64_t *ns)
{
	char msg[SECONDS_MESSAGE_MAX];

	/* Room for a step added to a time (tl_advance()). */
	if (seconds_parse_ms(arg, INT64_MAX / 1000, ns) == 0)
		return 0;
	view_warn("vmem: %s", seconds_message(msg, sizeof(msg), "--step", arg,
	    SECONDS_WHAT_MS));
	return -1;
}

static const char *const tables[] = { "vmem", "vmem_timeline", NULL };

static const struct option longopts[] = {
	{ "addresses", no_argument, NULL, 'a' },
	{ "at", required_argument, NULL, 'A' },
	{ "by", required_argument, NULL, 'b' },
	{ "from", required_argument, NULL, 'f' },
	{ "instances", no_argument, NULL, 'i' },
	{ "step", required_argument, NULL, 's' },
	{ "timeline", no_argument, NULL, 'T' },
	{ "to", required_argument, NULL, 't' },
	{ "weight", required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 }
};

static int
parse_options(struct view *v, int argc, char *argv[], unsigned *flags)
{
	int ch, have_from = 0, have_to = 0, have_at = 0;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			*flags |= FRAMES_ADDRESSES;
			break;
		case 'A':
			if (parse_time("--at", optarg, &v->to) != 0)
				return -1;
			have_at = 1;
			break;
		case 'b':
			if (strcmp(optarg, "process") == 0)
				v->by = BY_PROCESS;
			else if ((v->by = memstacks_parse_by(optarg)) < 0) {
				view_warn("vmem: --by wants process, "
				    "stack, function or module, not '%s'",
				    optarg);
				return -1;
			}
			break;
		case 'f':
			if (parse_time("--from", optarg, &v->from) != 0)
				return -1;
			have_from = 1;
			break;
		case 'i':
			v->instances = 1;
			break;
		case 's':
			if (parse_step(optarg, &v->step) != 0)
				return -1;
			break;
		case 'T':
			v->timeline = 1;
			break;
		case 't':
			if (parse_time("--to", optarg, &v->to) != 0)
				return -1;
			have_to = 1;
			break;
		case 'w':
			if (strcmp(optarg, "committed") == 0)
				v->weight_committed = 1;
			else if (strcmp(optarg, "outstanding") != 0) {
				view_warn("vmem: --weight wants "
				    "outstanding or committed, not '%s'",
				    optarg);
				return -1;
			}
			break;
		default:
			return -1;
		}
	}
	if (v->instances && (v->by != MS_BY_STACK || v->timeline)) {
		view_warn("vmem: --instances roots stacks: it wants --by stack");
		return -1;
	}
	if (have_at && (have_from || have_to)) {
		view_warn("vmem: --at excludes --from and --to");
		return -1;
	}
	if (have_from != have_to) {
		view_warn("vmem: --from and --to go together");
		return -1;
	}
	if (have_from && v->from > v->to) {
		view_warn("vmem: --from is after --to");
		return -1;
	}
	v->window = have_from;
	return 0;
}

static struct view *
vmem_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	unsigned flags = 0;

	if (v == NULL)
		return NULL;
	v->by = BY_PROCESS;
	v->to = NO_LIMIT;
	v->step = (int64_t)DEFAULT_STEP_MS * 1000000;
	if (parse_options(v, argc, argv, &flags) != 0) {
		*used = optind;
		free(v);
		return NULL;
	}
	*used = optind;
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->pt = model_proctab(m)) == NULL ||
	    (v->ms = memstacks_new(flags)) == NULL) {
		vmem_destroy(v);
		errno = ENOMEM;
		return NULL;
	}
	if (v->instances)
		memstacks_root_instances(v->ms);
	return v;
}

/* ---- accounting ---- */

/*
 * Adds a freed (or, at the end, a surviving) piece to the impact types
 * of the window; `freed_ns` is NO_LIMIT for one alive at T1.
 */
static void
classify(const struct view *v, struct memw *w, uint64_t len,
    int64_t commit_ns, int64_t freed_ns)
{
	int before = commit_ns < v->from, inside_free = freed_ns <= v->to;

	if (!v->window || commit_ns > v->to || freed_ns < v->from)
		return;
	if (!before && inside_free)
		memw_add(&w->v[W_TRANSIENT], len);
	else if (before && inside_free)
		memw_sub(&w->v[W_IMPACTING], len);
	else if (!before)
		memw_add(&w->v[W_IMPACTING], len);
	else
		memw_add(&w->v[W_PERSISTENT], len);
}

/* A piece relabelled by a re-commit: its bytes go to the new stack. */
static void
on_relabel(void *ctx, uint32_t old_key, uint64_t len, int64_t commit_ns)
{
	struct view *v = ctx;
	struct memw *from = memstacks_weight(v->ms, old_key);
	struct memw *to = memstacks_weight(v->ms, v->cur_key);

	if (from != NULL && to != NULL) {
		memw_sub(&from->v[W_OUTSTANDING], len);
		memw_add(&to->v[W_OUTSTANDING], len);
	}
}

/* A piece freed: charged to the stack that owns it. */
static void
on_free(void *ctx, uint32_t key, uint64_t len, int64_t commit_ns)
{
	struct view *v = ctx;
	struct memw *w = memstacks_weight(v->ms, key);

	if (w == NULL)
		return;
	memw_add(&w->v[W_DECOMMITTED], len);
	memw_sub(&w->v[W_OUTSTANDING], len);
	w->v[W_FREES]++;
	classify(v, w, len, commit_ns, v->now);
	classify(v, &v->cur->w, len, commit_ns, v->now);
}

/* A piece alive at the end, or at its process's exit. */
static void
on_alive(void *ctx, uint32_t key, uint64_t len, int64_t commit_ns)
{
	struct view *v = ctx;
	struct memw *w = memstacks_weight(v->ms, key);

	if (w == NULL)
		return;
	classify(v, w, len, commit_ns, v->now);
	classify(v, &v->cur->w, len, commit_ns, v->now);
}

static struct vproc *
proc_of(struct view *v, const struct stream_reader *r, uint32_t pid,
    uint32_t *index)
{
	uint32_t i = proctab_of_pid(v->pt, r, pid);

	if (i == PROCTAB_NONE)
		return NULL;
	*index = i;
	return array_slot(&v->procs, &v->procs_cap, i, sizeof(struct vproc));
}

static uint32_t
stack_key(struct view *v, const struct stream_reader *r, uint32_t index,
    uint32_t pid, stream_id stack, const char *pseudo)
{
	const struct proc *p = proctab_get(v->pt, index);
	const struct stream_process *def = stream_process_by_pid(r, pid);
	const char *image;
	size_t len;

	image = proctab_str(v->pt, p->image, &len);
	return memstacks_key(v->ms, image, len, def, stack,
	    pseudo);
}

static int
commit(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev, uint32_t index, struct vproc *vp)
{
	uint64_t base = stream_event_u(ev, "base", 0);
	uint64_t size = stream_event_u(ev, "size", 0);
	uint64_t added;
	struct memw *w;
	uint32_t key;

	if ((key = stack_key(v, r, index, ev->h.pid, ev->h.stack, NULL)) == 0 ||
	    (w = memstacks_weight(v->ms, key)) == NULL)
		return -1;
	v->cur_key = key;
	if (vmem_map_commit(&vp->map, base, base + size, key, ev->h.ts,
	    on_relabel, v, &added) != 0)
		return -1;
	memw_add(&w->v[W_COMMITTED], added);
	memw_add(&w->v[W_OUTSTANDING], added);
	w->v[W_COMMITS]++;
	memw_add(&vp->w.v[W_COMMITTED], added);
	vp->w.v[W_COMMITS]++;
	return 0;
}

static int
release(struct view *v, const struct stream_event *ev, struct vproc *vp)
{
	uint64_t base = stream_event_u(ev, "base", 0);
	uint64_t size = stream_event_u(ev, "size", 0);
	uint64_t removed;

	if (vmem_map_free(&vp->map, base, base + size, on_free, v,
	    &removed) != 0)
		return -1;
	memw_add(&vp->w.v[W_DECOMMITTED], removed);
	vp->w.v[W_FREES]++;
	if (removed == 0)
		v->unknown_frees++;
	return 0;
}

/* A rundown region: its committed bytes, from its base (a guess). */
static int
rundown(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev, uint32_t index, struct vproc *vp)
{
	uint64_t base = stream_event_u(ev, "base", 0);
	uint64_t size = stream_event_u(ev, "commit_size", 0);
	uint64_t added;
	struct memw *w;
	uint32_t key;

	if (size == 0)
		return 0;
	if ((key = stack_key(v, r, index, ev->h.pid, 0, BEFORE_TRACE)) == 0 ||
	    (w = memstacks_weight(v->ms, key)) == NULL)
		return -1;
	v->cur_key = key;
	if (vmem_map_commit(&vp->map, base, base + size, key, INT64_MIN,
	    on_relabel, v, &added) != 0)
		return -1;
	memw_add(&w->v[W_BEFORE], added);
	memw_add(&w->v[W_OUTSTANDING], added);
	memw_add(&vp->w.v[W_BEFORE], added);
	return 0;
}

static int
on_vmem(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t flags = (uint32_t)stream_event_u(ev, "flags", 0), index;
	struct vproc *vp;
	int rc = 0;

	if (ev->h.op == EVOP_DCEND) {
		v->rundown_ends++;
		return 0;
	}
	if (ev->h.op == EVOP_ALLOC && !(flags & MEM_COMMIT)) {
		v->reserve_only++;
		return 0;
	}
	if (ev->h.op == EVOP_FREE && !(flags & (MEM_DECOMMIT | MEM_RELEASE)))
		return 0;
	if ((vp = proc_of(v, r, ev->h.pid, &index)) == NULL)
		return -1;
	if (vp->ended) {
		v->after_exit++;
		return 0;
	}
	if (stream_event_u(ev, "size", 0) == 0) {
		v->zero_size++;
		return 0;
	}
	vp->used = 1;
	v->cur = vp;
	v->now = ev->h.ts;
	if (ev->h.op == EVOP_ALLOC)
		rc = commit(v, r, ev, index, vp);
	else if (ev->h.op == EVOP_FREE)
		rc = release(v, ev, vp);
	else if (ev->h.op == EVOP_DCSTART)
		rc = rundown(v, r, ev, index, vp);
	vp->w.v[W_OUTSTANDING] = (int64_t)vp->map.committed;
	if (vp->w.v[W_OUTSTANDING] > vp->w.v[W_PEAK]) {
		vp->w.v[W_PEAK] = vp->w.v[W_OUTSTANDING];
		vp->peak_ns = ev->h.ts;
		vp->peak_row = v->nrows;
	}
	return rc;
}

/* ---- timeline ---- */

static int
tl_add(struct view *v, int64_t ns, uint32_t proc, uint64_t bytes)
{
	struct tl_row *row = array_slot(&v->rows, &v->rows_cap, v->nrows,
	    sizeof(*row));

	if (row == NULL)
		return -1;
	row->ns = ns;
	row->proc = proc;
	row->bytes = bytes;
	v->nrows++;
	return 0;
}

/* Rows for every step boundary before `ns`: the state there. */
static int
tl_advance(struct view *v, int64_t ns)
{
	uint32_t i, n = proctab_count(v->pt);
	int64_t end = ns < v->to ? ns : v->to, k;

	if (v->next_step == 0)
		v->next_step = v->step;
	if (v->next_step < 0)
		return 0;
	while (v->next_step < ns && v->next_step <= v->to) {
		for (i = 0; i < n && i < v->procs_cap; i++)
			if (v->procs[i].used && !v->procs[i].ended &&
			    tl_add(v, v->next_step, i,
			    v->procs[i].map.committed) != 0)
				return -1;
		/*
		 * Nothing changes between two events: a gap of very many
		 * steps (a time stamp far off) gets its first and last rows
		 * only, so that time stays linear in the events.
		 */
		k = (end - v->next_step) / v->step;
		if (k > TL_GAP_MAX) {
			v->steps_skipped += (uint64_t)k - 1;
			v->next_step += (k - 1) * v->step;
		}
		v->next_step += v->step;
	}
	return 0;
}

/* ---- processes ending, sections ending ---- */

static void
settle(struct view *v, struct vproc *vp, int64_t at)
{
	v->cur = vp;
	v->now = at;
	vmem_map_each(&vp->map, on_alive, v);
	vmem_map_release(&vp->map);
}

static int
on_exit(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t index;
	struct vproc *vp = proc_of(v, r, ev->h.pid, &index);

	if (vp == NULL)
		return -1;
	if (!vp->used || vp->ended)
		return 0;
	vp->ended = 1;
	vp->end_ns = ev->h.ts;
	/* What it held at exit stays its outstanding memory, for --to too. */
	settle(v, vp, NO_LIMIT);
	return v->timeline ? tl_add(v, ev->h.ts, index, 0) : 0;
}

static int
end_section(struct view *v, const struct stream_reader *r)
{
	size_t i;

	for (i = 0; i < v->procs_cap; i++)
		if (v->procs[i].used && !v->procs[i].ended) {
			settle(v, &v->procs[i], NO_LIMIT);
			/* Not an exit: the next section is another trace. */
			v->procs[i].ended = v->procs[i].cut = 1;
		}
	v->section_open = 0;
	v->next_step = 0;
	return memstacks_end_section(v->ms, r);
}

/*
 * A process seen again in a later section (one trace after another) is
 * the same entry of the table: it goes on from an empty map.
 */
static void
reopen(struct view *v)
{
	size_t i;

	for (i = 0; i < v->procs_cap; i++)
		if (v->procs[i].cut)
			v->procs[i].ended = v->procs[i].cut = 0;
}

/*
 * A filter upstream cut the trace to a window, keeping the commits and
 * frees outside it as context: the view counts as `--from --to` would
 * on the whole trace (etl-stream(5), "Scope").
 */
static void
scope_window_of(struct view *v, const struct stream_scope *sc)
{
	if (!v->window) {
		v->window = 1;
		v->from = sc->from_ns;	/* --at T stays the end, if sooner */
	}
	if (sc->from_ns > v->from)
		v->from = sc->from_ns;
	if (sc->to_ns < v->to)
		v->to = sc->to_ns;
}

static int
vmem_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;

	v->reader = r;
	if (rec->type == REC_HEADER && v->section_open &&
	    end_section(v, NULL) != 0)
		return -1;
	if (rec->type == REC_HEADER)
		reopen(v);
	if ((v->mine != NULL && model_record(v->mine, r, rec) != 0) ||
	    memstacks_record(v->ms, r, rec) != 0)
		return -1;
	if (rec->type == REC_END)
		return end_section(v, r);
	if (rec->type == REC_SCOPE && rec->u.scope.what == SCOPE_WINDOW &&
	    !v->timeline)
		scope_window_of(v, &rec->u.scope);
	if (rec->type != REC_EVENT || ev->h.ts > v->to)
		return 0;
	if (v->timeline && tl_advance(v, ev->h.ts) != 0)
		return -1;
	if (ev->h.kind == EV_PROCESS && ev->h.op == EVOP_END)
		return on_exit(v, r, ev);
	if (ev->h.kind != EV_VMEM)
		return 0;
	v->section_open = 1;
	return on_vmem(v, r, ev);
}

/* ---- tables ---- */

static struct value
u64v(int64_t u)
{
	return (struct value){ .type = VAL_U64, .v.u = (uint64_t)u };
}

static struct value
i64v(int64_t i)
{
	return (struct value){ .type = VAL_I64, .v.i = i };
}

static struct value
strv(const char *s, size_t len)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, len } };
}

#define MAX_COLS	16

/* The byte columns after the key: order matters, the last is drawn. */
static size_t
weight_cols(const struct view *v, struct stream_column *c, int process)
{
	size_t n = 0;

	if (!v->weight_committed)
		c[n++] = (struct stream_column){ "committed_bytes", VAL_U64,
		    "B" };
	c[n++] = (struct stream_column){ "decommitted_bytes", VAL_U64, "B" };
	if (process)
		c[n++] = (struct stream_column){ "peak_outstanding_bytes",
		    VAL_U64, "B" };
	c[n++] = (struct stream_column){ "before_trace_bytes", VAL_U64, "B" };
	c[n++] = (struct stream_column){ "commits", VAL_U64, "" };
	c[n++] = (struct stream_column){ "frees", VAL_U64, "" };
	if (v->window) {
		c[n++] = (struct stream_column){ "transient_bytes", VAL_U64,
		    "B" };
		c[n++] = (struct stream_column){ "impacting_bytes", VAL_I64,
		    "B" };
		c[n++] = (struct stream_column){ "persistent_bytes", VAL_U64,
		    "B" };
	}
	if (v->weight_committed)
		c[n++] = (struct stream_column){ "outstanding_bytes", VAL_U64,
		    "B" };
	c[n++] = v->weight_committed ?
	    (struct stream_column){ "committed_bytes", VAL_U64, "B" } :
	    (struct stream_column){ "outstanding_bytes", VAL_U64, "B" };
	return n;
}

static size_t
weight_cells(const struct view *v, const struct memw *w, struct value *c,
    int process)
{
	size_t n = 0;

	if (!v->weight_committed)
		c[n++] = u64v(w->v[W_COMMITTED]);
	c[n++] = u64v(w->v[W_DECOMMITTED]);
	if (process)
		c[n++] = u64v(w->v[W_PEAK]);
	c[n++] = u64v(w->v[W_BEFORE]);
	c[n++] = u64v(w->v[W_COMMITS]);
	c[n++] = u64v(w->v[W_FREES]);
	if (v->window) {
		c[n++] = u64v(w->v[W_TRANSIENT]);
		c[n++] = i64v(w->v[W_IMPACTING]);
		c[n++] = u64v(w->v[W_PERSISTENT]);
	}
	if (v->weight_committed)
		c[n++] = u64v(w->v[W_OUTSTANDING]);
	c[n++] = u64v(v->weight_committed ? w->v[W_COMMITTED] :
	    w->v[W_OUTSTANDING]);
	return n;
}

/* Processes by falling committed bytes, then pid and index. */
struct prow {
	uint32_t index, pid;
	int64_t committed;
};

static int
cmp_procs(const void *a, const void *b)
{
	const struct prow *p = a, *q = b;

	if (p->committed != q->committed)
		return p->committed > q->committed ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

static struct value
start_value(const struct proc *p)
{
	return (struct value){ .type = p->start_ns != PROCTAB_NO_TIME ?
	    VAL_NS : VAL_NULL, .v.i = p->start_ns };
}

static int
write_processes(struct view *v, struct stream_writer *w)
{
	struct stream_column cols[MAX_COLS] = {
		{ "image", VAL_STR, "" }, { "pid", VAL_U64, "" },
		{ "start", VAL_NS, "s" }, { "end", VAL_NS, "s" },
	};
	struct value cells[MAX_COLS];
	struct stream_row row = { 1, 0, cells };
	struct prow *order;
	uint32_t n = 0, i;
	size_t nc = 4 + weight_cols(v, cols + 4, 1), len;
	int rc;

	if ((rc = view_write_table(w, 1, "vmem", cols, nc)) != 0)
		return rc;
	if ((order = malloc((v->procs_cap + 1) * sizeof(*order))) == NULL)
		return -1;
	for (i = 0; i < v->procs_cap; i++)
		if (v->procs[i].used)
			order[n++] = (struct prow){ i,
			    proctab_get(v->pt, i)->pid,
			    v->procs[i].w.v[W_COMMITTED] };
	qsort(order, n, sizeof(*order), cmp_procs);
	for (i = 0; i < n && rc == 0; i++) {
		const struct proc *p = proctab_get(v->pt, order[i].index);
		const struct vproc *vp = &v->procs[order[i].index];
		const char *image = proctab_str(v->pt, p->image, &len);

		cells[0] = strv(image, len);
		cells[1] = u64v(p->pid);
		cells[2] = start_value(p);
		cells[3] = (struct value){ .type = vp->end_ns != 0 ? VAL_NS :
		    VAL_NULL, .v.i = vp->end_ns };
		row.ncells = 4 + weight_cells(v, &vp->w, cells + 4, 1);
		rc = stream_write_row(w, &row);
	}
	free(order);
	return rc;
}

/* Stack rows by falling last weight, then key. */
struct srow {
	const char *key;
	size_t len;
	const char *module;
	size_t modlen;
	const struct memw *w;
	int64_t weight;
};

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
	struct stream_column cols[MAX_COLS];
	struct value cells[MAX_COLS];
	struct stream_row row = { 1, 0, cells };
	struct memstacks_rows rows;
	struct srow *s;
	size_t nc = 0, i, k;
	int rc;

	cols[nc++] = (struct stream_column){ keys[v->by], VAL_STR, "" };
	if (v->by == MS_BY_FUNCTION)
		cols[nc++] = (struct stream_column){ "module", VAL_STR, "" };
	k = nc;
	nc += weight_cols(v, cols + nc, 0);
	if ((rc = view_write_table(w, 1, "vmem", cols, nc)) != 0 ||
	    memstacks_rows(v->ms, (enum memstacks_by)v->by, &rows) != 0)
		return -1;
	if ((s = calloc(rows.n + 1, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i < rows.n; i++) {
		s[i] = (struct srow){ rows.key[i], rows.keylen[i],
		    rows.module[i], rows.modlen[i], rows.w[i],
		    rows.w[i]->v[v->weight_committed ? W_COMMITTED :
		    W_OUTSTANDING] };
	}
	qsort(s, rows.n, sizeof(*s), cmp_srows);
	for (i = 0; i < rows.n && rc == 0; i++) {
		cells[0] = strv(s[i].key, s[i].len);
		if (v->by == MS_BY_FUNCTION)
			cells[1] = s[i].module != NULL ?
			    strv(s[i].module, s[i].modlen) :
			    (struct value){ .type = VAL_NULL };
		row.ncells = k + weight_cells(v, s[i].w, cells + k, 0);
		rc = stream_write_row(w, &row);
	}
	free(s);
	return rc;
}

/*
 * The name of each process in the timeline (proclabel.h), into `pl` (ids
 * by process index in `id`): "crate (pid)" for a rustc that compiles a
 * crate, else "image (pid)", with its start when another process of the
 * input has the same name, so that each instance is a series of its own.
 * @return : 0, or -1 if out of memory.
 */
static int
tl_labels(const struct view *v, struct proclabels *pl, uint32_t *id)
{
	const char *image, *cmd;
	size_t i, ilen, clen, n = proctab_count(v->pt);
	uint32_t got;

	/*
	 * Every process the input defines is in the set, not only those of
	 * the timeline's rows, so that a filter upstream (which passes every
	 * definition on) leaves the labels as they were.
	 */
	for (i = 0; i < n; i++) {
		const struct proc *p = proctab_get(v->pt, (uint32_t)i);

		image = proctab_str(v->pt, p->image, &ilen);
		cmd = p->cmdline != 0 ? proctab_str(v->pt, p->cmdline, &clen) :
		    NULL;
		if ((got = proclabels_add(pl, p->pid, p->start_ns, image,
		    ilen, cmd, cmd != NULL ? clen : 0)) == 0)
			return -1;
		if (i < v->procs_cap && v->procs[i].used)
			id[i] = got;
	}
	return 0;
}

/* A process's peak, and the row of the timeline it goes before. */
struct tl_peak {
	size_t before;
	int64_t ns;
	uint32_t proc;
};

static int
cmp_peaks(const void *a, const void *b)
{
	const struct tl_peak *x = a, *y = b;

	if (x->before != y->before)
		return x->before < y->before ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/*
 * A peak shares its time with a row of its process written after it
 * (the step's, or the exit's, at the same nanosecond): that row becomes
 * the peak, the highest state at that time, so that a process and a
 * time stay one row (--merge keys them so).  @return : whether it did.
 */
static int
tl_fold_peak(struct view *v, const struct tl_peak *pk)
{
	uint64_t peak = (uint64_t)v->procs[pk->proc].w.v[W_PEAK];
	size_t j;

	for (j = pk->before; j < v->nrows && v->rows[j].ns == pk->ns; j++)
		if (v->rows[j].proc == pk->proc) {
			if (peak > v->rows[j].bytes)
				v->rows[j].bytes = peak;
			return 1;
		}
	return 0;
}

/*
 * The timeline's rows with each process's peak among them, where and
 * when it was first reached: into a new array *out of *n rows.  The
 * rows written after a peak's event are at its time or later, so the
 * order of time holds.  @return : 0, or -1 if out of memory.
 */
static int
tl_with_peaks(struct view *v, struct tl_row **out, size_t *n)
{
	struct tl_peak *pk = malloc((v->procs_cap + 1) * sizeof(*pk));
	struct tl_row *rows = malloc((v->nrows + v->procs_cap + 1) *
	    sizeof(*rows));
	size_t np = 0, i, k = 0, m = 0;

	if (pk == NULL || rows == NULL) {
		free(pk);
		free(rows);
		return -1;
	}
	for (i = 0; i < v->procs_cap; i++)
		if (v->procs[i].used && v->procs[i].w.v[W_PEAK] > 0)
			pk[np++] = (struct tl_peak){ v->procs[i].peak_row,
			    v->procs[i].peak_ns, (uint32_t)i };
	qsort(pk, np, sizeof(*pk), cmp_peaks);
	for (i = 0; i <= v->nrows; i++) {
		for (; k < np && pk[k].before == i; k++)
			if (!tl_fold_peak(v, &pk[k]))
				rows[m++] = (struct tl_row){ pk[k].ns,
				    pk[k].proc,
				    (uint64_t)v->procs[pk[k].proc].w.v[W_PEAK] };
		if (i < v->nrows)
			rows[m++] = v->rows[i];
	}
	free(pk);
	*out = rows;
	*n = m;
	return 0;
}

static int
write_timeline(struct view *v, struct stream_writer *w)
{
	static const struct stream_column cols[] = {
		{ "time", VAL_NS, "s" }, { "process", VAL_STR, "" },
		{ "pid", VAL_U64, "" }, { "start", VAL_NS, "s" },
		{ "outstanding_bytes", VAL_U64, "B" },
	};
	struct value cells[5];
	struct stream_row row = { 1, 5, cells };
	struct proclabels labels = { 0 };
	uint32_t *id = calloc(v->procs_cap + 1, sizeof(*id));
	struct tl_row *rows = NULL;
	const char *label;
	size_t i, n = 0, len;
	int rc;

	if (id == NULL || tl_labels(v, &labels, id) != 0 ||
	    tl_with_peaks(v, &rows, &n) != 0) {
		free(id);
		proclabels_release(&labels);
		return -1;
	}
	rc = view_write_table(w, 1, "vmem_timeline", cols, 5);
	for (i = 0; i < n && rc == 0; i++) {
		const struct proc *p = proctab_get(v->pt, rows[i].proc);

		label = proclabels_get(&labels, id[rows[i].proc], &len);
		cells[0] = (struct value){ .type = VAL_NS, .v.i = rows[i].ns };
		cells[1] = strv(label, len);
		cells[2] = u64v(p->pid);
		cells[3] = start_value(p);
		cells[4] = u64v((int64_t)rows[i].bytes);
		rc = stream_write_row(w, &row);
	}
	free(rows);
	free(id);
	proclabels_release(&labels);
	return rc;
}

static int
write_diag(struct stream_writer *w, const char *what, uint64_t count)
{
	struct stream_diag d = { what, count, 0, 0 };

	return count != 0 ? stream_write_diag(w, &d) : 0;
}

static int
vmem_finish(struct view *v, struct stream_writer *w)
{
	int rc;

	if (v->section_open && end_section(v, v->reader) != 0)
		return -1;
	if (v->timeline)
		rc = write_timeline(v, w);
	else if (v->by == BY_PROCESS)
		rc = write_processes(v, w);
	else
		rc = write_stacks(v, w);
	if (rc != 0)
		return -1;
	return write_diag(w, "vmem: frees of memory not committed in the "
	    "trace (before it, or never)", v->unknown_frees) != 0 ||
	    write_diag(w, "vmem: events of processes after their exit",
	    v->after_exit) != 0 ||
	    write_diag(w, "vmem: events of size 0", v->zero_size) != 0 ||
	    write_diag(w, "vmem: timeline steps left out in gaps of more than "
	    "100000 steps without an event", v->steps_skipped) != 0 ||
	    write_diag(w, "vmem: allocation stacks never defined",
	    v->by != BY_PROCESS && !v->timeline ?
	    memstacks_undefined(v->ms) : 0) != 0 ? -1 : 0;
}

static void
vmem_destroy(struct view *v)
{
	size_t i;

	for (i = 0; i < v->procs_cap; i++)
		vmem_map_release(&v->procs[i].map);
	free(v->procs);
	free(v->rows);
	model_free(v->mine);
	memstacks_free(v->ms);
	free(v);
}

static const char *const merge_tables[] = { "vmem", "vmem_timeline", NULL };
static const char *const merge_keys[] = { "pid", "start", "time", NULL };
static const char *const merge_maxes[] = { "peak_outstanding_bytes", NULL };
static const char *const by_process[] = { "-committed_bytes", "+pid", NULL };
static const char *const by_stack[] = { "-$last", "+$key", NULL };
static const struct view_merge_order merge_orders[] = {
	{ "time", NULL }, { "image", by_process }, { NULL, by_stack }
};
/* --merge: tables of traces computed apart, as one stream's. */
static const struct view_merge_spec merge_spec = {
	merge_tables, merge_keys, merge_maxes, merge_orders, NULL
};

const struct view_ops view_vmem_ops = {
	.name = "vmem",
	.needs_kind = EV_VMEM,
	.needs = "the trace has no VirtualAlloc events, so no committed "
	    "memory to count; the Rustc profile of pipelines/rustc.wprp records "
	    "them",
	.usage = "[--addresses] [--by process|stack|function|module] "
	    "[--instances] [--weight outstanding|committed] "
	    "[--at T | --from T --to T] [--timeline [--step MS]] [--merge]",
	.summary = "committed virtual memory (VirtualAlloc) by process, "
	    "committing stack, function or module",
	.reader_flags = STREAM_KEEP_STACKS,
	.options = longopts,
	.tables = tables,
	.merge = &merge_spec,
	.create = vmem_create,
	.record = vmem_record,
	.finish = vmem_finish,
	.destroy = vmem_destroy,
};
