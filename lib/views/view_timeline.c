/*
 * view_timeline.c - etlagg timeline: each thread's time as spans of one
 * state, in time order, as WPA's CPU Usage (Precise) timeline draws a
 * thread's lane: running (on which processor), ready (waiting for a
 * processor, since it was readied) and waiting (since its switch-out,
 * with the state and wait reason it went out with and the thread that
 * readied it).  The spans are the schedule's own (sched.h's struct
 * sched_span), those that the sums of `threads` add up, so a thread's
 * spans of a state add up to its figure there, window and filters
 * alike.  The rows are held until the end, about 48 bytes a span.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "base/idmap.h"
#include "model/model.h"
#include "model/proclabel.h"
#include "model/queryjoin.h"
#include "model/samplepath.h"
#include "model/sched.h"
#include "model/scope.h"
#include "model/vmem_map.h"
#include "stream/frames.h"
#include "view.h"

#define BUCKET_NS_DEFAULT	10000000	/* --bucket 10 */
#define STEP_GAP_MAX		1000	/* steps written across one gap */

/* The rows that are not a thread's state. */
enum row_kind { K_STATE, K_PROCESS, K_THREAD, K_SAMPLES, K_COMMIT,
	K_QUERY };
static const char *const kind_names[] = {
	"state", "process", "thread", "samples", "commit", "query"
};

/*
 * A lifetime, a bucket of a thread's samples, or a process's commit at
 * a step.  Its label is the proclabels id until its section ends, then
 * the text of `texts`.
 */
struct extra_row {
	int64_t from, to;
	int64_t thread_start;		/* INT64_MIN: not known */
	uint32_t pid, tid, label;
	uint8_t kind, open, named;
	stream_id def, stack;		/* samples: the bucket's stack */
	uint64_t ip, votes, count;	/* count: samples, or bytes; a
					   query: its depth */
	uint32_t stack_text;		/* a query: its label */
};

struct span_row {
	int64_t from, to;
	uint32_t thread;		/* sched_thread() index */
	uint32_t out_state, out_reason;	/* texts; 0: none */
	uint32_t readier_tid, readier_pid, readier_image;
	uint16_t cpu;
	uint8_t state, readied;
};

struct view {
	struct model *mine;		/* its own model, or NULL: shared */
	struct sched *s;
	struct sched_pick pick;		/* --tid */
	struct span_row *rows;
	size_t n, cap;
	int oom;			/* a span could not be kept */
	struct intern texts;
	struct proclabels labels;	/* the section's processes */
	uint32_t *label;		/* text by thread index; 0: none */
	size_t label_cap, named;	/* threads named so far */
	/* The other rows (extra_row), and what makes them. */
	struct extra_row *xr;
	size_t nx, xcap, xnamed;
	int64_t from, to, bucket;	/* the window, --bucket in ns */
	int64_t cut_from, cut_to;	/* and as an upstream cut it */
	int64_t last_ns;		/* the section's last event */
	int64_t next_step;		/* the next commit step; 0: none yet */
	int commit;			/* --commit: its rows wanted */
	struct idmap open;		/* kind << 32 | id -> its open life */
	struct idmap cur;		/* tid -> its last samples row + 1 */
	struct scope *sc;
	struct commitcurve *cc;
	struct queryjoin *qj;		/* the profiles given beside */
	struct intern lanes;		/* (pid, start, tid) with a row */
	struct frames *frames;
	const struct stream_reader *reader;
};

/* A text of `texts` of `len` bytes, 0 for none or empty. */
static uint32_t
keep_textn(struct view *v, const char *t, size_t len)
{
	uint32_t id;

	if (t == NULL || len == 0)
		return 0;
	if ((id = intern_add(&v->texts, t, len, NULL)) == 0)
		v->oom = 1;
	return id;
}

static uint32_t
keep_text(struct view *v, const char *t)
{
	return keep_textn(v, t, t != NULL ? strlen(t) : 0);
}

static void
on_span(void *ctx, const struct sched_span *sp)
{
	struct view *v = ctx;
	struct span_row *row;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;

		if ((row = realloc(v->rows, cap * sizeof(*row))) == NULL) {
			v->oom = 1;
			return;
		}
		v->rows = row;
		v->cap = cap;
	}
	row = &v->rows[v->n++];
	memset(row, 0, sizeof(*row));
	row->from = sp->from;
	row->to = sp->to;
	row->thread = (uint32_t)(sp->t - sched_thread(v->s, 0));
	row->state = (uint8_t)sp->state;
	row->cpu = sp->cpu;
	if (sp->state == SCHED_RUNNING)
		return;
	row->out_state = keep_text(v, sp->out_state);
	row->out_reason = keep_text(v, sp->out_reason);
	row->readied = (uint8_t)sp->readied;
	if (sp->readied) {
		row->readier_tid = sp->readier_tid;
		row->readier_pid = sp->readier_pid;
		row->readier_image = keep_text(v, sp->readier_image);
	}
}

/* The process instance of thread `i` in the section's labels. */
static uint32_t
instance(struct view *v, const struct stream_reader *r, size_t i)
{
	const struct sched_thread *t = sched_thread(v->s, i);

	return proclabels_add_def(&v->labels, t->proc != 0 ?
	    stream_process(r, t->proc) : NULL, t->pid, t->proc_start_ns,
	    t->image);
}

/*
 * The section ended: labels for its threads, all of them added first
 * so that each label knows whether another instance shares its name.
 * @return : 0, or -1 if out of memory.
 */
static int
name_threads(struct view *v, const struct stream_reader *r)
{
	size_t i, len, n = sched_count(v->s);
	const char *label;

	if (array_room(&v->label, &v->label_cap, n, sizeof(*v->label)) ==
	    NULL)
		return -1;
	for (i = v->named; i < n; i++)
		if (instance(v, r, i) == 0)
			return -1;
	for (i = v->named; i < n; i++) {
		label = proclabels_get(&v->labels, instance(v, r, i), &len);
		if ((v->label[i] = intern_add(&v->texts, label, len, NULL)) ==
		    0)
			return -1;
	}
	v->named = n;
	return 0;
}

/* ---- lifetimes, samples and commit ---- */

static int64_t
floor_mod(int64_t a, int64_t b)
{
	int64_t m = a % b;

	return m < 0 ? m + b : m;
}

static struct extra_row *
extra_add(struct view *v, enum row_kind kind, uint32_t pid, uint32_t tid,
    int64_t from, int64_t to)
{
	struct extra_row *x = array_slot(&v->xr, &v->xcap, v->nx,
	    sizeof(*x));

	if (x == NULL) {
		v->oom = 1;
		return NULL;
	}
	memset(x, 0, sizeof(*x));
	x->kind = (uint8_t)kind;
	x->pid = pid;
	x->tid = tid;
	x->from = from;
	x->to = to;
	x->thread_start = INT64_MIN;
	v->nx++;
	return x;
}

/* The label of a process instance, as proclabels names it. */
static uint32_t
label_of(struct view *v, const struct stream_process *def, uint32_t pid)
{
	uint32_t id = proclabels_add_def(&v->labels, def, pid,
	    def != NULL ? def->start_ns : INT64_MIN, NULL);

	if (id == 0)
		v->oom = 1;
	return id;
}

/* A process or thread defined: its life begins (at the trace's start
 * for one there before it). */
static void
life_begin(struct view *v, enum row_kind kind, const struct stream_process
    *def, uint32_t pid, uint32_t tid, int64_t start)
{
	uint64_t key = (uint64_t)kind << 32 | (kind == K_THREAD ? tid : pid);
	struct extra_row *x;
	uint32_t old;

	if (idmap_get(&v->open, key, &old))
		return;		/* a definition repeated: the same life */
	if ((x = extra_add(v, kind, pid, tid, start, INT64_MAX)) == NULL)
		return;
	x->open = 1;
	x->thread_start = start;
	x->def = def != NULL ? def->id : 0;
	x->label = label_of(v, def, pid);
	if (idmap_put(&v->open, key, (uint32_t)(v->nx - 1)) != 0)
		v->oom = 1;
}

static void
life_end(struct view *v, enum row_kind kind, uint32_t id, int64_t at)
{
	uint64_t key = (uint64_t)kind << 32 | id;
	uint32_t i;

	if (!idmap_get(&v->open, key, &i))
		return;
	v->xr[i].to = at;
	v->xr[i].open = 0;
	idmap_del(&v->open, key);
}

/* The window: --from and --to, narrowed by a filter's upstream. */
static void
window(const struct view *v, int64_t *from, int64_t *to)
{
	*from = v->from;
	*to = v->to;
	scope_window(v->sc, from, to);
}

/* A sample in the window: counted in its thread's bucket. */
static void
on_sample(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	int64_t b = ev->h.ts - floor_mod(ev->h.ts, v->bucket);
	const struct stream_process *def;
	struct extra_row *x = NULL;
	int64_t from, to;
	uint32_t i;

	window(v, &from, &to);
	if (ev->h.tid == 0 || ev->h.ts < from || ev->h.ts >= to ||
	    !sched_picked(&v->pick, ev->h.tid))
		return;
	def = stream_process_by_pid(r, ev->h.pid);
	/* A bucket a row per life of the thread's process. */
	if (idmap_get(&v->cur, ev->h.tid, &i) && v->xr[i].from == b &&
	    v->xr[i].pid == ev->h.pid &&
	    v->xr[i].def == (def != NULL ? def->id : 0))
		x = &v->xr[i];
	if (x == NULL) {
		if (!scope_keeps(v->sc, def != NULL ? def->id : 0, ev->h.pid) ||
		    (x = extra_add(v, K_SAMPLES, ev->h.pid, ev->h.tid, b,
		    b + v->bucket)) == NULL)
			return;
		x->def = def != NULL ? def->id : 0;
		x->label = label_of(v, def, ev->h.pid);
		if (idmap_put(&v->cur, ev->h.tid, (uint32_t)(v->nx - 1)) != 0)
			v->oom = 1;
	}
	x->count++;
	/* The bucket's stack: the majority vote's, which is the stack of
	 * more than half of its samples whenever one such is. */
	if (x->votes == 0) {
		x->stack = ev->h.stack;
		x->ip = stream_event_u(ev, "ip", 0);
	}
	x->votes += x->stack == ev->h.stack ? 1 : (uint64_t)-1;
}

static int
on_commit(void *ctx, stream_id proc, uint32_t pid, uint64_t bytes)
{
	struct view *v = ctx;
	const struct stream_process *def = proc != 0 ?
	    stream_process(v->reader, proc) : NULL;
	struct extra_row *x;

	if (!scope_keeps(v->sc, proc, pid) || (x = extra_add(v, K_COMMIT, pid,
	    0, v->next_step, v->next_step + v->bucket)) == NULL)
		return v->oom ? -1 : 0;
	x->count = bytes;
	x->def = proc;
	x->label = label_of(v, def, pid);
	return 0;
}

/*
 * A row per process for every step of --bucket before `ns`, its commit
 * there, at the instants vmem --timeline --step gives its rows.
 */
static int
commit_steps(struct view *v, int64_t ns)
{
	int64_t k, from, to, end;

	window(v, &from, &to);
	end = ns < to ? ns : to;
	if (v->next_step == 0)
		v->next_step = v->bucket;
	while (v->next_step < ns && v->next_step <= to) {
		if (v->next_step >= from &&
		    commitcurve_each(v->cc, on_commit, v) != 0)
			return -1;
		k = (end - v->next_step) / v->bucket;
		if (k > STEP_GAP_MAX)	/* nothing changes in a gap */
			v->next_step += (k - 1) * v->bucket;
		v->next_step += v->bucket;
	}
	return 0;
}

static int
extra_event(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	if (ev->h.ts > v->last_ns)
		v->last_ns = ev->h.ts;
	if (v->commit && commit_steps(v, ev->h.ts) != 0)
		return -1;
	if (ev->h.kind == EV_SAMPLE)
		on_sample(v, r, ev);
	else if (ev->h.kind == EV_PROCESS && ev->h.op == EVOP_END)
		life_end(v, K_PROCESS, ev->h.pid, ev->h.ts);
	else if (ev->h.kind == EV_THREAD && ev->h.op == EVOP_END)
		life_end(v, K_THREAD, ev->h.tid, ev->h.ts);
	return 0;
}

/* ---- rustc's queries, from the self-profiles given beside ---- */

/* The key of a thread's lane: its process instance and its tid. */
static size_t
lane_key(unsigned char *key, uint32_t pid, int64_t start, uint32_t tid)
{
	memcpy(key, &pid, 4);
	memcpy(key + 4, &tid, 4);
	memcpy(key + 8, &start, 8);
	return 16;
}

/* The lanes that have rows: threads that count, as --tid picks them. */
static int
index_lanes(struct view *v)
{
	const struct sched_thread *t;
	unsigned char key[16];
	size_t i;

	for (i = 0; i < sched_count(v->s); i++) {
		t = sched_thread(v->s, i);
		if (t->hidden || !sched_picked(&v->pick, t->tid))
			continue;
		if (intern_add(&v->lanes, key, lane_key(key, t->pid,
		    t->proc_start_ns, t->tid), NULL) == 0)
			return -1;
	}
	return 0;
}

/* A query interval on a lane that has rows: a row of its own. */
static int
on_query(void *ctx, const struct queryjoin_query *q)
{
	struct view *v = ctx;
	struct queryjoin_instance in;
	unsigned char key[16];
	struct extra_row *x;
	const char *t;
	size_t len;

	queryjoin_instance(v->qj, q->instance, &in);
	if (intern_find(&v->lanes, key, lane_key(key, in.pid, in.start_ns,
	    q->tid)) == 0)
		return 0;
	if ((x = extra_add(v, K_QUERY, in.pid, q->tid, q->from, q->to)) ==
	    NULL)
		return -1;
	x->thread_start = q->thread_start;
	x->label = keep_text(v, in.label);
	t = queryjoin_label(v->qj, q->label, &len);
	x->stack_text = keep_textn(v, t, len);
	x->count = q->depth;
	x->named = 1;
	return v->oom ? -1 : 0;
}

/*
 * The profiles are joined once the inputs end: their queries become
 * rows, cut to the window, and the join's notes DIAG notes.
 */
static int
query_rows(struct view *v, struct stream_writer *w)
{
	struct stream_diag d = { NULL, 0, 0, 0 };
	size_t i;
	int failed;

	if (queryjoin_finish(v->qj) != 0)
		return -1;
	for (i = 0; i < queryjoin_notes(v->qj); i++) {
		d.what = queryjoin_note(v->qj, i, &failed);
		if (failed)
			view_warning("timeline: %s", d.what + strlen("note: "));
		if (stream_write_diag(w, &d) != 0)
			return -1;
	}
	if (queryjoin_count(v->qj) == 0)
		return 0;
	if (index_lanes(v) != 0)
		return -1;
	return queryjoin_queries(v->qj, v->cut_from, v->cut_to, on_query, v);
}

/*
 * The section ends: lives still open end with it; labels and stacks
 * become texts while its definitions are the reader's.
 */
static void
extra_close(struct view *v, const struct stream_reader *r)
{
	char buf[4096];
	struct buf path = { 0 };
	const char *label;
	size_t i, len;

	int64_t from, to;

	window(v, &from, &to);
	v->cut_from = from > v->cut_from ? from : v->cut_from;
	v->cut_to = to < v->cut_to ? to : v->cut_to;
	for (i = v->xnamed; i < v->nx; i++) {
		struct extra_row *x = &v->xr[i];

		if (x->open) {
			x->to = v->last_ns;
			x->open = 0;
		}
		if (x->kind == K_PROCESS || x->kind == K_THREAD) {
			x->from = x->from > from ? x->from : from;
			x->to = x->to < to ? x->to : to;
		}
		label = proclabels_get(&v->labels, x->label, &len);
		x->label = intern_add(&v->texts, label, len, NULL);
		x->named = (x->kind != K_PROCESS && x->kind != K_THREAD) ||
		    scope_keeps(v->sc, x->def, x->pid);
		if (x->kind != K_SAMPLES || r == NULL)
			continue;
		path.len = 0;
		samplepath_text(v->frames, r, x->def, x->stack, x->ip, &path);
		len = path.len < sizeof(buf) - 1 ? path.len : sizeof(buf) - 1;
		memcpy(buf, path.data, len);
		buf[len] = '\0';
		x->stack_text = keep_text(v, buf);
	}
	buf_release(&path);
	idmap_release(&v->open);
	idmap_release(&v->cur);
	v->xnamed = v->nx;
	v->last_ns = 0;
	v->next_step = 0;
}

static int
extra_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_thread *t = &rec->u.thread;

	v->reader = r;
	if (rec->type == REC_HEADER && v->xnamed < v->nx)
		extra_close(v, NULL);
	if (scope_record(v->sc, r, rec) != 0)
		return -1;
	switch (rec->type) {
	case REC_PROCESS:
		life_begin(v, K_PROCESS, &rec->u.process, rec->u.process.pid,
		    0, rec->u.process.start_ns);
		break;
	case REC_THREAD:
		if (sched_picked(&v->pick, t->tid))
			life_begin(v, K_THREAD, t->process != 0 ?
			    stream_process(r, t->process) : NULL, t->pid,
			    t->tid, t->start_ns);
		break;
	case REC_EVENT:
		if (extra_event(v, r, &rec->u.event) != 0)
			return -1;
		break;
	case REC_END:
		/* The source's last event, the same behind a filter. */
		if (rec->u.end.end_ns > 0 && rec->u.end.end_ns <= INT64_MAX)
			v->last_ns = (int64_t)rec->u.end.end_ns;
		extra_close(v, r);
		break;
	default:
		break;
	}
	return commitcurve_record(v->cc, r, rec);
}

/* Its options, for etlagg and sched_options(). */
#define OPT_BUCKET	'B'
static const struct option longopts[] = {
	{ "bucket", required_argument, NULL, OPT_BUCKET },
	{ "commit", no_argument, NULL, 'C' },
	{ "from", required_argument, NULL, SCHED_OPT_FROM },
	{ "tid", required_argument, NULL, SCHED_OPT_TID },
	{ "to", required_argument, NULL, SCHED_OPT_TO },
	{ NULL, 0, NULL, 0 }
};

/*
 * Takes --bucket MS out of argv (sched_options() knows only its own),
 * into v->bucket; *removed gets how many arguments it took.
 * @return : 0, or -1 after a message.
 */
static int
take_bucket(struct view *v, int argc, char *argv[], char **rest,
    int *n, int *removed)
{
	const char *arg;
	char *end;
	double ms;
	int i;

	*n = *removed = 0;
	v->bucket = BUCKET_NS_DEFAULT;
	for (i = 0; i < argc; i++) {
		arg = NULL;
		if (i > 0 && strcmp(argv[i], "--commit") == 0) {
			v->commit = 1;
			(*removed)++;
			continue;
		}
		if (i > 0 && strcmp(argv[i], "--bucket") == 0 && i + 1 < argc)
			arg = argv[++i];
		else if (i > 0 && strncmp(argv[i], "--bucket=", 9) == 0)
			arg = argv[i] + 9;
		if (arg == NULL) {
			rest[(*n)++] = argv[i];
			continue;
		}
		*removed += strncmp(argv[i], "--bucket=", 9) == 0 ? 1 : 2;
		ms = strtod(arg, &end);
		if (end == arg || *end != '\0' || !(ms >= 0.001) ||
		    ms > 1e9) {
			fprintf(stderr, "etlagg: timeline: --bucket wants "
			    "milliseconds, from 0.001, not '%s'\n", arg);
			return -1;
		}
		v->bucket = (int64_t)(ms * 1e6 + 0.5);
	}
	rest[*n] = NULL;
	return 0;
}

static struct view *
timeline_create(int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	unsigned flags = 0;
	int by = 0, n, removed;

	if (v == NULL || rest == NULL ||
	    take_bucket(v, argc, argv, rest, &n, &removed) != 0 ||
	    sched_options(n, rest, used, "timeline", longopts, NULL, 0,
	    &by, &v->from, &v->to, &flags, &v->pick) != 0) {
		free(rest);
		free(v);
		return NULL;
	}
	free(rest);
	*used += removed;
	v->cut_from = v->from;
	v->cut_to = v->to;
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->s = model_sched(m, v->from, v->to)) == NULL ||
	    sched_add_spans(v->s, on_span, v, &v->pick) != 0 ||
	    (v->frames = model_frames(m, 0)) == NULL ||
	    (v->sc = scope_new()) == NULL ||
	    (v->cc = commitcurve_new()) == NULL ||
	    (v->qj = queryjoin_new(model_sched(m, INT64_MIN, INT64_MAX))) ==
	    NULL) {
		scope_free(v->sc);
		commitcurve_free(v->cc);
		model_free(v->mine);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static int
timeline_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rec->type == REC_HEADER && name_threads(v, r) != 0)
		return -1;
	if (extra_record(v, r, rec) != 0 ||
	    queryjoin_record(v->qj, r, rec) != 0)
		return -1;
	if (proclabels_record(&v->labels, rec) != 0 ||
	    (v->mine != NULL && model_record(v->mine, r, rec) != 0) ||
	    v->oom)
		return -1;
	return rec->type == REC_END ? name_threads(v, r) : 0;
}

static const struct stream_column cols[] = {
	{ "process", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "tid", VAL_U64, "" }, { "thread_start", VAL_NS, "" },
	{ "state", VAL_STR, "" }, { "start", VAL_NS, "" },
	{ "end", VAL_NS, "" }, { "duration_ns", VAL_U64, "ns" },
	{ "cpu", VAL_U64, "" }, { "out_state", VAL_STR, "" },
	{ "wait_reason", VAL_STR, "" }, { "readying_tid", VAL_U64, "" },
	{ "readying_pid", VAL_U64, "" }, { "readying_image", VAL_STR, "" },
	{ "kind", VAL_STR, "" }, { "samples", VAL_U64, "" },
	{ "stack", VAL_STR, "" }, { "commit_bytes", VAL_U64, "B" },
	{ "query", VAL_STR, "" }, { "query_depth", VAL_U64, "" }
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* By thread instance, then by time. */
static int
cmp_rows(const void *a, const void *b)
{
	const struct span_row *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->state > y->state) - (x->state < y->state);
}

/* A text of `texts` as a cell. */
#define text(v, id)	view_text_cell(&(v)->texts, (id))

static const char *const state_names[] = { "running", "ready", "waiting" };

/* The cells of one span. */
static void
span_cells(const struct view *v, const struct span_row *x, struct value *c)
{
	const struct sched_thread *t = sched_thread(v->s, x->thread);
	const char *st = state_names[x->state];

	memset(c, 0, NCOLS * sizeof(*c));
	c[0] = text(v, x->thread < v->named ? v->label[x->thread] : 0);
	c[1] = (struct value){ .type = VAL_U64, .v.u = t->pid };
	c[2] = (struct value){ .type = VAL_U64, .v.u = t->tid };
	if (t->start_ns != INT64_MIN)
		c[3] = (struct value){ .type = VAL_NS, .v.i = t->start_ns };
	c[4] = (struct value){ .type = VAL_STR, .v.s = { st, strlen(st) } };
	c[5] = (struct value){ .type = VAL_NS, .v.i = x->from };
	c[6] = (struct value){ .type = VAL_NS, .v.i = x->to };
	c[7] = (struct value){ .type = VAL_U64,
	    .v.u = (uint64_t)(x->to - x->from) };
	c[14] = (struct value){ .type = VAL_STR, .v.s = { "state", 5 } };
	if (x->state == SCHED_RUNNING) {
		c[8] = (struct value){ .type = VAL_U64, .v.u = x->cpu };
		return;
	}
	c[9] = text(v, x->out_state);
	c[10] = text(v, x->out_reason);
	if (x->readied) {
		c[11] = (struct value){ .type = VAL_U64, .v.u = x->readier_tid };
		c[12] = (struct value){ .type = VAL_U64, .v.u = x->readier_pid };
		c[13] = text(v, x->readier_image);
	}
}

/* By kind, then process, thread and time. */
static int
cmp_extra(const void *a, const void *b)
{
	const struct extra_row *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	/* Queries from one instant: the outer first. */
	return (x->count > y->count) - (x->count < y->count);
}

/* The cells of another row, clipped to the window; 0 if none is left. */
static int
extra_cells(const struct view *v, const struct extra_row *x,
    struct value *c)
{
	const char *k = kind_names[x->kind];
	int64_t from = x->from, to = x->to;

	if (x->kind == K_PROCESS || x->kind == K_THREAD) {
		from = from > v->from ? from : v->from;
		from = from > 0 ? from : 0;
		to = to < v->to ? to : v->to;
		if (!x->named || to <= from)
			return 0;
	}
	memset(c, 0, NCOLS * sizeof(*c));
	c[0] = text(v, x->label);
	c[1] = (struct value){ .type = VAL_U64, .v.u = x->pid };
	if (x->tid != 0)
		c[2] = (struct value){ .type = VAL_U64, .v.u = x->tid };
	if ((x->kind == K_THREAD || x->kind == K_QUERY) &&
	    x->thread_start != INT64_MIN)
		c[3] = (struct value){ .type = VAL_NS, .v.i = x->thread_start };
	c[5] = (struct value){ .type = VAL_NS, .v.i = from };
	c[6] = (struct value){ .type = VAL_NS, .v.i = to };
	c[7] = (struct value){ .type = VAL_U64, .v.u = (uint64_t)(to - from) };
	c[14] = (struct value){ .type = VAL_STR, .v.s = { k, strlen(k) } };
	if (x->kind == K_SAMPLES) {
		c[15] = (struct value){ .type = VAL_U64, .v.u = x->count };
		c[16] = text(v, x->stack_text);
	}
	if (x->kind == K_COMMIT)
		c[17] = (struct value){ .type = VAL_U64, .v.u = x->count };
	if (x->kind == K_QUERY) {
		c[18] = text(v, x->stack_text);
		c[19] = (struct value){ .type = VAL_U64, .v.u = x->count };
	}
	return 1;
}

static int
timeline_finish(struct view *v, struct stream_writer *w)
{
	int rc = view_write_table(w, 1, "timeline", cols, NCOLS);
	struct value c[NCOLS];
	struct stream_row row = { 1, NCOLS, c };
	size_t i;

	sched_close(v->s);
	if (v->oom)
		return -1;
	sched_warn(v->s, "timeline", view_warning);
	if (v->n > 1)
		qsort(v->rows, v->n, sizeof(*v->rows), cmp_rows);
	for (i = 0; i < v->n && rc == 0; i++) {
		if (sched_thread(v->s, v->rows[i].thread)->hidden)
			continue;	/* kept by a filter as context only */
		span_cells(v, &v->rows[i], c);
		rc = stream_write_row(w, &row);
	}
	if (v->xnamed < v->nx)
		extra_close(v, NULL);	/* a section cut short */
	if (rc == 0 && query_rows(v, w) != 0)
		return -1;
	if (v->nx > 1)
		qsort(v->xr, v->nx, sizeof(*v->xr), cmp_extra);
	for (i = 0; i < v->nx && rc == 0; i++)
		if (extra_cells(v, &v->xr[i], c))
			rc = stream_write_row(w, &row);
	return rc;
}

static void
timeline_destroy(struct view *v)
{
	if (v == NULL)
		return;
	model_free(v->mine);
	intern_release(&v->texts);
	proclabels_release(&v->labels);
	free(v->label);
	free(v->rows);
	free(v->xr);
	idmap_release(&v->open);
	idmap_release(&v->cur);
	scope_free(v->sc);
	commitcurve_free(v->cc);
	queryjoin_free(v->qj);
	intern_release(&v->lanes);
	free(v);
}

static const char *const tables[] = { "timeline", NULL };

const struct view_ops view_timeline_ops = {
	.name = "timeline",
	.needs_kind = EV_CSWITCH,
	.needs = "the trace has no CSwitch events, so no thread states; "
	    "the RustcWaits profile of pipelines/rustc.wprp records them",
	.usage = "[--bucket ms] [--commit] [--from seconds] [--to seconds] [--tid list]",
	.summary = "each thread's running, ready and waiting spans in time "
	    "order, as WPA's CPU Usage (Precise) timeline",
	.reader_flags = STREAM_KEEP_STACKS,	/* the samples' stacks */
	.options = longopts,
	.tables = tables,
	.create = timeline_create,
	.record = timeline_record,
	.finish = timeline_finish,
	.destroy = timeline_destroy,
};
