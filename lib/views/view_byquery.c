/*
 * view_byquery.c - etlagg cpu --by query and waits --by query: samples
 * and blocked time of each rustc by the query its thread was in, once
 * its self-profile is given beside the trace (model/queryjoin.h joins
 * them; this file declares the rows).
 *
 *	cpu --by query		samples by process and innermost query,
 *				"(no query)" for the process's others
 *	cpu --by query+function	and by the function they were in
 *	cpu --by query+stack	and by stack: the process, the queries
 *				outermost first, the frames as cpu --by
 *				stack names them, so that folded and svg
 *				draw each query's own hot code
 *	waits --by query	blocked time (waiting, then ready) by
 *				process and innermost query, cut at the
 *				queries' bounds; a wait is counted where it
 *				began, with the readying thread of the
 *				longest
 *
 * Only the processes a profile was joined to have rows, so that each
 * one's rows add up to all its samples (or all its blocked time); the
 * join's notes (which thread ran which profile thread, or why a profile
 * was not joined) go out as DIAG notes.  The cpu tables hold the samples
 * until the inputs end, since a profile may come after its trace: about
 * 4 bytes a sample, and with +function or +stack the path of each
 * distinct stack of a section.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "base/seconds.h"
#include "model/model.h"
#include "model/proctab.h"
#include "model/queryjoin.h"
#include "model/samplepath.h"
#include "stream/frames.h"
#include "view.h"

#define NO_QUERY	"(no query)"

enum by { BY_QUERY, BY_FUNCTION, BY_STACK };

static const char *const by_names[] = { "query", "query+function",
    "query+stack" };

/* A sample's key in its section: named at the section's end. */
struct skey {
	stream_id def, stack;
	uint64_t ip;
};

/* A row's key and sums. */
struct rkey {
	uint32_t instance, label, text;	/* text: stack or function */
};

struct sums {
	uint64_t samples;
	uint64_t count, waiting_ns, ready_ns, max_ns;
	uint32_t rtid, rpid;
	int readied;
};

struct view {
	int waits;			/* waits --by query, else cpu */
	enum by by;
	int64_t from, to;		/* waits: the window */
	struct queryjoin *qj;
	struct model *mine;		/* its own model, or NULL: shared */
	struct proctab *pt;		/* the sampling interval */
	struct frames *frames;
	const struct stream_reader *reader;
	/* +function, +stack: the section's keys, then their texts. */
	struct intern keys;
	uint32_t key_base;
	uint32_t *key_text;		/* by tag */
	size_t key_cap;
	uint32_t *text_module;		/* +function: by text id */
	size_t module_cap;
	struct intern texts;
	/* The rows. */
	struct intern rows;
	struct sums *sums;
	size_t sums_cap;
	uint64_t *inst_total;		/* samples, or blocked ns */
	struct buf line;
};

/* ---- options ---- */

static const struct option cpu_longopts[] = {
	{ "addresses", no_argument, NULL, 'a' },
	{ "by", required_argument, NULL, 'b' },
	{ NULL, 0, NULL, 0 }
};

static const struct option waits_longopts[] = {
	{ "by", required_argument, NULL, 'b' },
	{ "from", required_argument, NULL, 'f' },
	{ "to", required_argument, NULL, 't' },
	{ NULL, 0, NULL, 0 }
};

static void byq_destroy(struct view *v);

static int
parse_by(struct view *v, const char *arg)
{
	int i, n = v->waits ? 1 : 3;

	for (i = 0; i < n; i++)
		if (strcmp(arg, by_names[i]) == 0) {
			v->by = (enum by)i;
			return 0;
		}
	view_warn("%s: --by wants %s, not '%s'", v->waits ? "waits" : "cpu",
	    v->waits ? "query" : "query, query+function or query+stack", arg);
	return -1;
}

static int
parse_time(const char *name, const char *arg, int64_t *ns)
{
	char msg[SECONDS_MESSAGE_MAX];

	if (seconds_parse(arg, ns) == 0)
		return 0;
	view_warn("waits: %s", seconds_message(msg, sizeof(msg), name, arg,
	    SECONDS_WHAT));
	return -1;
}

static int
parse_options(struct view *v, int argc, char *argv[], int *used,
    unsigned *flags)
{
	int ch, rc = 0, saved = opterr;

	optind = 0;
	opterr = 0;	/* the message below says it better */
	while ((ch = getopt_long(argc, argv, "+", v->waits ? waits_longopts :
	    cpu_longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			*flags |= FRAMES_ADDRESSES;
			break;
		case 'b':
			rc = parse_by(v, optarg);
			break;
		case 'f':
			rc = parse_time("--from", optarg, &v->from);
			break;
		case 't':
			rc = parse_time("--to", optarg, &v->to);
			break;
		default:
			view_warn("%s --by query: %s does not apply",
			    v->waits ? "waits" : "cpu", argv[optind - 1]);
			rc = -1;
		}
		if (rc != 0)
			break;
	}
	opterr = saved;
	*used = optind;
	return rc;
}

static struct view *
create(int waits, int argc, char *argv[], int *used, struct model *m)
{
	struct view *v = calloc(1, sizeof(*v));
	unsigned flags = 0;

	if (v == NULL)
		return NULL;
	v->waits = waits;
	v->from = INT64_MIN;
	v->to = INT64_MAX;
	if (parse_options(v, argc, argv, used, &flags) != 0) {
		free(v);
		errno = EINVAL;
		return NULL;
	}
	/* The schedule of the whole trace: the join windows waits itself. */
	if ((m = view_model(m, 0, &v->mine)) == NULL ||
	    (v->pt = model_proctab(m)) == NULL ||
	    (v->frames = model_frames(m, flags)) == NULL ||
	    (v->qj = queryjoin_new(model_sched(m, INT64_MIN,
	    INT64_MAX))) == NULL) {
		byq_destroy(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static struct view *
cpu_create(int argc, char *argv[], int *used, struct model *m)
{
	return create(0, argc, argv, used, m);
}

static struct view *
waits_create(int argc, char *argv[], int *used, struct model *m)
{
	return create(1, argc, argv, used, m);
}

/* ---- samples and their stacks ---- */

/* Names the section's keys: each tag's text (and module), then forgets. */
static int
name_keys(struct view *v, const struct stream_reader *r)
{
	struct skey k;
	const void *stored;
	uint32_t id, *t, *m, module = 0;
	size_t len, at;

	for (id = 1; id <= v->keys.count; id++) {
		stored = intern_key(&v->keys, id, &len);
		memcpy(&k, stored, sizeof(k));
		v->line.len = 0;
		at = samplepath_text(v->frames, r, k.def, k.stack, k.ip,
		    &v->line);
		if (v->line.oom || (t = array_slot_grow(&v->key_text,
		    &v->key_cap, v->key_base + id, sizeof(*t))) == NULL)
			return -1;
		if (v->by == BY_FUNCTION) {
			/* The innermost frame, and its module. */
			len = frames_module_len((const char *)v->line.data + at,
			    v->line.len - at);
			if ((module = intern_add(&v->texts, len ? (const char *)
			    v->line.data + at : "unknown", len ? len :
			    strlen("unknown"), NULL)) == 0)
				return -1;
		} else
			at = 0;
		if ((*t = intern_add(&v->texts, v->line.data + at,
		    v->line.len - at, NULL)) == 0)
			return -1;
		if (v->by == BY_FUNCTION && ((m = array_slot_grow(
		    &v->text_module, &v->module_cap, *t, sizeof(*m))) == NULL ||
		    (*m = module) == 0))
			return -1;
	}
	v->key_base += v->keys.count;
	intern_clear(&v->keys);
	return 0;
}

static int
on_sample(struct view *v, const struct stream_reader *r,
    const struct stream_event *ev)
{
	const struct stream_process *def;
	const struct value *ip;
	struct skey k;
	uint32_t id = 0;

	if (v->by != BY_QUERY) {
		memset(&k, 0, sizeof(k));
		def = stream_process_by_pid(r, ev->h.pid);
		ip = stream_event_field(ev, "ip");
		k.def = def != NULL ? def->id : 0;
		k.stack = ev->h.stack;
		k.ip = ip != NULL ? ip->v.u : 0;
		if ((id = intern_add(&v->keys, &k, sizeof(k), NULL)) == 0)
			return -1;
		id += v->key_base;
	}
	return queryjoin_sample(v->qj, r, ev, id);
}

static int
byq_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	v->reader = r;
	if (rec->type == REC_HEADER && v->keys.count > 0 &&
	    name_keys(v, NULL) != 0)
		return -1;
	/* Its own model sees a record before the join, a HEADER after. */
	if (v->mine != NULL && rec->type != REC_HEADER &&
	    model_record(v->mine, r, rec) != 0)
		return -1;
	if (queryjoin_record(v->qj, r, rec) != 0)
		return -1;
	if (v->mine != NULL && rec->type == REC_HEADER &&
	    model_record(v->mine, r, rec) != 0)
		return -1;
	if (rec->type == REC_END && v->keys.count > 0)
		return name_keys(v, r);
	if (!v->waits && rec->type == REC_EVENT &&
	    rec->u.event.h.kind == EV_SAMPLE)
		return on_sample(v, r, &rec->u.event);
	return 0;
}

/* ---- rows ---- */

static struct sums *
row(struct view *v, size_t instance, uint32_t path, uint32_t text)
{
	const uint32_t *labels;
	struct rkey k;
	uint32_t id;
	size_t n;

	labels = queryjoin_path(v->qj, path, &n);
	k.instance = (uint32_t)instance;
	k.label = n > 0 ? labels[n - 1] : 0;
	k.text = text;
	if ((id = intern_add(&v->rows, &k, sizeof(k), NULL)) == 0)
		return NULL;
	return array_slot_grow(&v->sums, &v->sums_cap, id - 1,
	    sizeof(*v->sums));
}

/* +stack: the process, its queries, the frames. */
static uint32_t
stack_text(struct view *v, size_t instance, uint32_t path, uint32_t frames)
{
	struct queryjoin_instance in;
	const uint32_t *labels;
	const char *t;
	size_t n, i, len;

	queryjoin_instance(v->qj, instance, &in);
	v->line.len = 0;
	buf_put(&v->line, in.label, strlen(in.label));
	labels = queryjoin_path(v->qj, path, &n);
	if (n == 0) {
		buf_put_u8(&v->line, ';');
		buf_put(&v->line, NO_QUERY, strlen(NO_QUERY));
	}
	for (i = 0; i < n; i++) {
		buf_put_u8(&v->line, ';');
		t = queryjoin_label(v->qj, labels[i], &len);
		buf_put(&v->line, t, len);
	}
	t = intern_key(&v->texts, frames, &len);
	buf_put_u8(&v->line, ';');
	buf_put(&v->line, t, len);
	if (v->line.oom)
		return 0;
	return intern_add(&v->texts, v->line.data, v->line.len, NULL);
}

static int
on_joined_sample(void *ctx, size_t instance, uint32_t path, uint32_t tag)
{
	struct view *v = ctx;
	uint32_t text = 0;
	struct sums *s;

	if (v->by != BY_QUERY) {
		text = tag < v->key_cap ? v->key_text[tag] : 0;
		if (v->by == BY_STACK && text != 0 &&
		    (text = stack_text(v, instance, path, text)) == 0)
			return -1;
	}
	if ((s = row(v, instance, path, text)) == NULL)
		return -1;
	s->samples++;
	v->inst_total[instance]++;
	return 0;
}

static int
on_wait(void *ctx, const struct queryjoin_wait *w)
{
	struct view *v = ctx;
	struct sums *s;

	if ((s = row(v, w->instance, w->path, 0)) == NULL)
		return -1;
	if (w->ready)
		s->ready_ns += w->ns;
	else
		s->waiting_ns += w->ns;
	v->inst_total[w->instance] += w->ns;
	if (!w->begins)
		return 0;
	s->count++;
	if (w->wait_ns >= s->max_ns) {
		s->max_ns = w->wait_ns;
		s->readied = w->readied;
		s->rtid = w->readier_tid;
		s->rpid = w->readier_pid;
	}
	return 0;
}

/* ---- writing ---- */

static const struct stream_column query_cols[] = {
	{ "process", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "query", VAL_STR, "" }, { "samples", VAL_U64, "" },
	{ "share_pct", VAL_F64, "%" }, { "cpu_ms", VAL_F64, "ms" },
};
static const struct stream_column function_cols[] = {
	{ "process", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "query", VAL_STR, "" }, { "function", VAL_STR, "" },
	{ "module", VAL_STR, "" }, { "samples", VAL_U64, "" },
	{ "share_pct", VAL_F64, "%" }, { "cpu_ms", VAL_F64, "ms" },
};
static const struct stream_column stack_cols[] = {
	{ "process", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "query", VAL_STR, "" }, { "stack", VAL_STR, "" },
	{ "samples", VAL_U64, "" }, { "share_pct", VAL_F64, "%" },
	{ "cpu_ms", VAL_F64, "ms" },
};
static const struct stream_column waits_cols[] = {
	{ "process", VAL_STR, "" }, { "pid", VAL_U64, "" },
	{ "query", VAL_STR, "" }, { "count", VAL_U64, "" },
	{ "max_ns", VAL_U64, "ns" }, { "readying_tid", VAL_U64, "" },
	{ "readying_pid", VAL_U64, "" }, { "waiting_ns", VAL_U64, "ns" },
	{ "ready_ns", VAL_U64, "ns" }, { "blocked_ns", VAL_U64, "ns" },
};
#define NCOLS(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_COLS	10

/* The weight a row is sorted by. */
static uint64_t
weight(const struct view *v, uint32_t id)
{
	const struct sums *s = &v->sums[id - 1];

	return v->waits ? s->waiting_ns + s->ready_ns : s->samples;
}

static const struct view *sort_view;	/* qsort has no context */

/* The heaviest first; then by process, query and text. */
static int
cmp_rows(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct view *v = sort_view;
	uint64_t wa = weight(v, a), wb = weight(v, b);
	const struct rkey *ka, *kb;
	const char *sa, *sb;
	size_t la, lb;
	int c;

	if (wa != wb)
		return wa > wb ? -1 : 1;
	ka = intern_key(&v->rows, a, &la);
	kb = intern_key(&v->rows, b, &lb);
	if (ka->instance != kb->instance)
		return ka->instance < kb->instance ? -1 : 1;
	if (ka->label != kb->label) {
		sa = ka->label ? queryjoin_label(v->qj, ka->label, &la) : "";
		sb = kb->label ? queryjoin_label(v->qj, kb->label, &lb) : "";
		if (ka->label == 0 || kb->label == 0)
			return ka->label == 0 ? 1 : -1;
		if ((c = memcmp(sa, sb, la < lb ? la : lb)) != 0)
			return c;
		return la < lb ? -1 : la > lb;
	}
	if (ka->text == kb->text)
		return 0;
	sa = intern_key(&v->texts, ka->text, &la);
	sb = intern_key(&v->texts, kb->text, &lb);
	if ((c = memcmp(sa, sb, la < lb ? la : lb)) != 0)
		return c;
	return la < lb ? -1 : la > lb;
}

static size_t
row_cells(const struct view *v, uint32_t id, struct value *c)
{
	const struct rkey *k = intern_key(&v->rows, id, &(size_t){ 0 });
	const struct sums *s = &v->sums[id - 1];
	struct queryjoin_instance in;
	uint64_t total = v->inst_total[k->instance];
	const char *t;
	size_t n = 0, len;

	queryjoin_instance(v->qj, k->instance, &in);
	c[n++] = value_str(in.label, strlen(in.label));
	c[n++] = value_u64(in.pid);
	if (k->label != 0) {
		t = queryjoin_label(v->qj, k->label, &len);
		c[n++] = value_str(t, len);
	} else
		c[n++] = value_str(NO_QUERY, strlen(NO_QUERY));
	if (v->waits) {
		c[n++] = value_u64(s->count);
		c[n++] = value_u64(s->max_ns);
		c[n] = s->readied ? value_u64(s->rtid) :
		    (struct value){ .type = VAL_NULL };
		n++;
		c[n] = s->readied && s->rpid != UINT32_MAX ?
		    value_u64(s->rpid) : (struct value){ .type = VAL_NULL };
		n++;
		c[n++] = value_u64(s->waiting_ns);
		c[n++] = value_u64(s->ready_ns);
		c[n++] = value_u64(s->waiting_ns + s->ready_ns);
		return n;
	}
	if (v->by != BY_QUERY) {
		t = k->text ? intern_key(&v->texts, k->text, &len) : "";
		c[n++] = value_str(t, k->text ? len : 0);
	}
	if (v->by == BY_FUNCTION) {
		uint32_t m = k->text < v->module_cap ? v->text_module[k->text] :
		    0;

		c[n] = (struct value){ .type = VAL_NULL };
		if (m != 0) {
			t = intern_key(&v->texts, m, &len);
			c[n] = value_str(t, len);
		}
		n++;
	}
	c[n++] = value_u64(s->samples);
	c[n++] = value_f64(total ? round(10000.0 * (double)s->samples /
	    (double)total) / 100 : 0);
	c[n++] = value_f64((double)s->samples *
	    (double)proctab_interval_ns(v->pt) / 1e6);
	return n;
}

static int
write_schema(const struct view *v, struct stream_writer *w)
{
	if (v->waits)
		return view_write_table(w, 1, "waits", waits_cols,
		    NCOLS(waits_cols));
	switch (v->by) {
	case BY_FUNCTION:
		return view_write_table(w, 1, "cpu", function_cols,
		    NCOLS(function_cols));
	case BY_STACK:
		return view_write_table(w, 1, "cpu", stack_cols,
		    NCOLS(stack_cols));
	default:
		return view_write_table(w, 1, "cpu", query_cols,
		    NCOLS(query_cols));
	}
}

static int
write_rows(struct view *v, struct stream_writer *w)
{
	uint32_t n = v->rows.count, i, *ids = malloc((n + 1) * sizeof(*ids));
	struct value cells[MAX_COLS];
	struct stream_row r = { 1, 0, cells };
	int rc = 0;

	if (ids == NULL)
		return -1;
	for (i = 0; i < n; i++)
		ids[i] = i + 1;
	sort_view = v;
	qsort(ids, n, sizeof(*ids), cmp_rows);
	for (i = 0; i < n && rc == 0; i++) {
		if (weight(v, ids[i]) == 0 && (!v->waits ||
		    v->sums[ids[i] - 1].count == 0))
			continue;
		r.ncells = row_cells(v, ids[i], cells);
		rc = stream_write_row(w, &r);
	}
	free(ids);
	return rc;
}

/* The join's notes, as DIAG notes; those of profiles not joined on stderr. */
static int
write_notes(const struct view *v, struct stream_writer *w)
{
	struct stream_diag d = { NULL, 0, 0, 0 };
	size_t i;
	int failed;

	for (i = 0; i < queryjoin_notes(v->qj); i++) {
		d.what = queryjoin_note(v->qj, i, &failed);
		if (failed)
			view_warning("%s: %s", v->waits ? "waits" : "cpu",
			    d.what + strlen("note: "));
		if (stream_write_diag(w, &d) != 0)
			return -1;
	}
	if (!v->waits && queryjoin_left_out(v->qj) > 0) {
		d.what = "note: cpu: samples of processes without a joined "
		    "profile left out";
		d.count = queryjoin_left_out(v->qj);
		return stream_write_diag(w, &d);
	}
	return 0;
}

static int
byq_finish(struct view *v, struct stream_writer *w)
{
	size_t n;

	if (v->keys.count > 0 && name_keys(v, v->reader) != 0)
		return -1;
	if (queryjoin_finish(v->qj) != 0)
		return -1;
	n = queryjoin_count(v->qj);
	if ((v->inst_total = calloc(n + 1, sizeof(*v->inst_total))) == NULL)
		return -1;
	if ((v->waits ? queryjoin_waits(v->qj, v->from, v->to, on_wait, v) :
	    queryjoin_samples(v->qj, on_joined_sample, v)) != 0)
		return -1;
	if (queryjoin_count(v->qj) == 0)
		view_warning("%s: no profile joined to a process: give the "
		    "rustc self-profiles (.mm_profdata) beside the trace",
		    v->waits ? "waits" : "cpu");
	if (write_notes(v, w) != 0 || write_schema(v, w) != 0)
		return -1;
	return write_rows(v, w);
}

static void
byq_destroy(struct view *v)
{
	if (v == NULL)
		return;
	queryjoin_free(v->qj);
	model_free(v->mine);
	intern_release(&v->keys);
	intern_release(&v->texts);
	intern_release(&v->rows);
	buf_release(&v->line);
	free(v->key_text);
	free(v->text_module);
	free(v->sums);
	free(v->inst_total);
	free(v);
}

static const char *const cpu_tables[] = { "cpu", NULL };
static const char *const waits_tables[] = { "waits", NULL };

/*
 * Served by the registry in place of cpu and waits when --by names a
 * query (view_registry.c); their options are a part of those views'.
 * Stacks are kept only for the tables that name them.
 */
#define CPU_QUERY_OPS(stacks) \
	.name = "cpu", \
	.needs_kind = EV_SAMPLE, \
	.needs = "the trace has no CPU samples; the Rustc profile of " \
	    "pipelines/rustc.wprp records them", \
	.usage = "--by query|query+function|query+stack [--addresses]", \
	.summary = "samples of each profiled rustc by the query its " \
	    "thread was in", \
	.reader_flags = (stacks), \
	.field_kinds = QUERY_KINDS | STREAM_KIND(EV_SAMPLE) | \
	    STREAM_KIND(EV_GENERIC), \
	.options = cpu_longopts, \
	.tables = cpu_tables, \
	.create = cpu_create, \
	.record = byq_record, \
	.finish = byq_finish, \
	.destroy = byq_destroy

/* What the join reads: lives, the schedule, the profiles' events. */
#define QUERY_KINDS	(STREAM_KIND(EV_PROCESS) | STREAM_KIND(EV_THREAD) | \
	STREAM_KIND(EV_CSWITCH) | STREAM_KIND(EV_READY) | \
	STREAM_KIND(EV_QUERY))

const struct view_ops view_cpu_query_ops = {
	CPU_QUERY_OPS(0)
};

const struct view_ops view_cpu_query_stack_ops = {
	CPU_QUERY_OPS(STREAM_KEEP_STACKS)
};

const struct view_ops view_waits_query_ops = {
	.name = "waits",
	.needs_kind = EV_CSWITCH,
	.needs = "the trace has no CSwitch events, so no waits; the "
	    "RustcWaits profile of pipelines/rustc.wprp records them",
	.usage = "--by query [--from seconds] [--to seconds]",
	.summary = "blocked time of each profiled rustc by the query its "
	    "thread was in",
	.field_kinds = QUERY_KINDS,
	.options = waits_longopts,
	.tables = waits_tables,
	.create = waits_create,
	.record = byq_record,
	.finish = byq_finish,
	.destroy = byq_destroy,
};
