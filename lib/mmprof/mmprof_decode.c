/*
 * mmprof_decode.c - see mmprof_decode.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "mmprof_decode.h"

#define FILETIME_UNIX_EPOCH 116444736000000000ULL	/* 1970 in FILETIME */
#define MAX_WARNINGS	10	/* reader messages a file; the rest counted */
#define CLASS_CACHE	4096	/* (kind, id) string pairs remembered */
#define KIND_SLOTS	16	/* kinds numbered below this have a column */

static const char *const arg_names[MMPROF_ARGS_MAX] = {
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7",
	"arg8", "arg9", "arg10", "arg11", "arg12", "arg13", "arg14", "arg15"
};

struct mmprof_decoder {
	struct stream_writer *w;
	uint32_t pid;
	int64_t offset;		/* start_time mod 100 ns: ts = offset + counter */
	struct intern classes;	/* kind NUL label -> class id */
	/*
	 * The class of a (kind, event id) string pair, remembered: the
	 * same pair always has the same class, and looking the texts up
	 * each time cost 5% of etlcat's time.
	 */
	struct {
		uint64_t kind_id, event_id;
		stream_id cls;
	} cache[CLASS_CACHE];
	/*
	 * And by the reader's numbers of the label and kind texts, which
	 * every event has (rustc has some ten kinds): a look in a row of
	 * the label's, where an event id seen before may be new.
	 */
	stream_id *by_label;	/* [label * KIND_SLOTS + kind - 1] */
	size_t by_label_cap;
	struct idmap threads;	/* thread id -> 1 once defined */
	stream_id nthreads;
	uint32_t last_tid;	/* defined; the next event is often its */
	struct buf key;
	int64_t last_ts;	/* time of the last timed record */
	int64_t max_ts;		/* latest time seen */
	struct stream_field fields[1 + MMPROF_ARGS_MAX];
};

/* ---- writing ---- */

/* The pid in "<crate>-<pid>.mm_profdata", for a profile without metadata. */
static uint32_t
pid_from_name(const char *name)
{
	const char *dot = strrchr(name, '.'), *p;
	uint64_t pid = 0;

	if (dot == NULL || strcmp(dot, ".mm_profdata") != 0)
		return 0;
	for (p = dot; p > name && p[-1] >= '0' && p[-1] <= '9'; p--)
		continue;
	if (p == dot || p == name || p[-1] != '-' || dot - p > 10)
		return 0;
	for (; p < dot; p++)
		pid = pid * 10 + (uint64_t)(*p - '0');
	return pid <= UINT32_MAX ? (uint32_t)pid : 0;
}

/* The file name of argv[0] in cmd ("rustc"), into buf. */
static const char *
program_name(const char *cmd, char *buf, size_t cap)
{
	const char *end = strchr(cmd, ' '), *p;
	size_t n;

	if (end == NULL)
		end = cmd + strlen(cmd);
	for (p = end; p > cmd && p[-1] != '/' && p[-1] != '\\'; p--)
		continue;
	n = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return n > 0 ? buf : "rustc";
}

/* The process start or end event, at ts. */
static int
write_process_event(struct mmprof_decoder *d, enum stream_ev_op op,
    int64_t ts)
{
	struct stream_field f;
	struct stream_event ev;

	f.name = "process";
	f.val = (struct value){ .type = VAL_U64, .v.u = 1 };
	memset(&ev, 0, sizeof(ev));
	ev.h.kind = EV_PROCESS;
	ev.h.op = op;
	ev.h.ts = ts;
	ev.h.pid = d->pid;
	ev.h.tid = 0xffffffffu;
	ev.nfields = 1;
	ev.fields = &f;
	return stream_write_event(d->w, &ev);
}

static int
write_start(struct mmprof_decoder *d, const struct mmprof_metadata *m,
    const char *source)
{
	struct stream_trace t;
	struct stream_process p;
	char name[256];

	memset(&t, 0, sizeof(t));
	t.source = source;
	t.format = "mm_profdata";
	t.logger = m->counter;
	if (m->has_start_time)
		t.start_utc = m->start_time / 100 + FILETIME_UNIX_EPOCH;
	if (strcmp(m->counter, "wall-time") == 0 || m->counter[0] == '\0')
		t.perf_freq = 1000000000;
	memset(&p, 0, sizeof(p));
	p.id = 1;
	p.pid = d->pid;
	p.start_ns = d->offset;
	p.name = program_name(m->cmd, name, sizeof(name));
	p.cmdline = m->cmd;
	if (stream_write_trace(d->w, &t) != 0 ||
	    stream_write_process(d->w, &p) != 0)
		return -1;
	return write_process_event(d, EVOP_START, d->offset);
}

static void
mmprof_decoder_free(struct mmprof_decoder *d)
{
	if (d == NULL)
		return;
	intern_release(&d->classes);
	free(d->by_label);
	idmap_release(&d->threads);
	buf_release(&d->key);
	free(d);
}

/*
 * Writes the section's REC_TRACE, REC_PROCESS and process start for the
 * profile `r` has opened.  @return : NULL if out of memory or on a write
 * error.
 */
static struct mmprof_decoder *
mmprof_decoder_new(struct stream_writer *w, const struct mmprof_reader *r,
    const char *source)
{
	const struct mmprof_metadata *m = mmprof_reader_metadata(r);
	struct mmprof_decoder *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	d->w = w;
	d->pid = m->has_process_id ? m->process_id : pid_from_name(source);
	d->offset = m->has_start_time ? (int64_t)(m->start_time % 100) : 0;
	d->last_ts = d->max_ts = d->offset;
	if (write_start(d, m, source) != 0) {
		mmprof_decoder_free(d);
		return NULL;
	}
	return d;
}

/* The class of (kind, label), written the first time it is met. */
static stream_id
class_of(struct mmprof_decoder *d, const struct mmprof_event *ev)
{
	struct stream_class c;
	stream_id id, *by_label = NULL;
	int added;
	size_t slot = (size_t)(((ev->event_id ^ ev->kind_id << 17) *
	    0x9e3779b97f4a7c15ULL) >> 52);

	if (ev->label_index != 0 && ev->kind_index != 0 &&
	    ev->kind_index <= KIND_SLOTS) {
		if ((by_label = array_slot(&d->by_label, &d->by_label_cap,
		    (size_t)ev->label_index * KIND_SLOTS + ev->kind_index - 1,
		    sizeof(*by_label))) == NULL)
			return 0;
		if (*by_label != 0)
			return *by_label;
	} else if (d->cache[slot].cls != 0 &&
	    d->cache[slot].kind_id == ev->kind_id &&
	    d->cache[slot].event_id == ev->event_id)
		return d->cache[slot].cls;
	d->key.len = 0;
	buf_put(&d->key, ev->kind.ptr, ev->kind.len);
	buf_put(&d->key, "", 1);
	buf_put(&d->key, ev->label.ptr, ev->label.len);
	buf_put(&d->key, "", 1);
	if (d->key.oom)
		return 0;
	id = intern_add(&d->classes, d->key.data, d->key.len, &added);
	if (id == 0)
		return 0;
	if (by_label != NULL)
		*by_label = id;
	d->cache[slot].kind_id = ev->kind_id;
	d->cache[slot].event_id = ev->event_id;
	d->cache[slot].cls = id;
	if (!added)
		return id;
	memset(&c, 0, sizeof(c));
	c.id = id;
	c.provider = (const char *)d->key.data;
	c.event = (const char *)d->key.data + ev->kind.len + 1;
	c.hook = -1;
	c.event_id = -1;
	return stream_write_class(d->w, &c) == 0 ? id : 0;
}

static int
define_thread(struct mmprof_decoder *d, uint32_t tid)
{
	struct stream_thread t;
	uint32_t seen;

	if (d->nthreads > 0 && tid == d->last_tid)
		return 0;
	d->last_tid = tid;
	if (idmap_get(&d->threads, tid, &seen))
		return 0;
	if (idmap_put(&d->threads, tid, 1) != 0)
		return -1;
	memset(&t, 0, sizeof(t));
	t.id = ++d->nthreads;
	t.tid = tid;
	t.pid = d->pid;
	t.process = 1;
	t.start_ns = INT64_MIN;
	t.name = "";
	return stream_write_thread(d->w, &t);
}

static void
set_times(struct mmprof_decoder *d, const struct mmprof_event *ev,
    struct stream_event *out)
{
	int64_t start = d->offset + (int64_t)ev->start;
	int64_t end = d->offset + (int64_t)ev->end;

	switch (ev->type) {
	case MMPROF_INTERVAL:
		out->h.ts = start;
		d->fields[out->nfields].name = "end";
		d->fields[out->nfields++].val = (struct value){ .type = VAL_NS,
		    .v.i = end };
		break;
	case MMPROF_INSTANT:
		out->h.ts = start;
		break;
	case MMPROF_INTEGER:
		out->h.ts = d->last_ts;
		d->fields[out->nfields].name = "value";
		d->fields[out->nfields++].val = (struct value){ .type = VAL_U64,
		    .v.u = ev->value };
		return;
	}
	d->last_ts = end;
	if (end > d->max_ts)
		d->max_ts = end;
}

static int
mmprof_decoder_event(struct mmprof_decoder *d, const struct mmprof_event *ev)
{
	struct stream_event out;
	size_t i;

	memset(&out, 0, sizeof(out));
	out.static_names = 1;	/* "end", "value", arg_names[] */
	out.h.kind = EV_QUERY;
	out.h.pid = d->pid;
	out.h.tid = ev->thread_id;
	if ((out.h.cls = class_of(d, ev)) == 0 ||
	    define_thread(d, ev->thread_id) != 0)
		return -1;
	set_times(d, ev, &out);
	for (i = 0; i < ev->nargs; i++, out.nfields++) {
		d->fields[out.nfields].name = arg_names[i];
		d->fields[out.nfields].val = (struct value){ .type = VAL_STR,
		    .v.s = { ev->args[i].ptr, ev->args[i].len } };
	}
	out.fields = d->fields;
	return stream_write_event(d->w, &out);
}

/*
 * What the reader counted, as the section's diagnostics; `suspect` marks
 * what etlcat warns about (an unknown id alone is normal: rustc leaves
 * the ids of some queries without a string, measureme-format.md 4.3).
 */
struct problem {
	uint64_t count, bytes;
	int suspect;
	const char *what;
};

static size_t
list_problems(const struct mmprof_counts *c, struct problem *p)
{
	const struct problem all[] = {
		{ c->cut_bytes > 0, c->cut_bytes, 0,
		    "pages cut short by the end of the file" },
		{ c->tail_bytes > 0, c->tail_bytes, 0,
		    "partial event record at the end" },
		{ c->unknown_ids, 0, 0,
		    "note: string ids without a string, shown as <unknown>" },
		{ c->missing_strings, 0, 1, "string ids past the end of the "
		    "string data (the profile is cut short), shown as <unknown>" },
		{ c->invalid_strings, 0, 1, "unterminated or too deeply nested "
		    "strings, shown as <invalid>" },
		{ c->cut_strings, 0, 1, "strings cut at 262144 bytes" },
		{ c->bad_labels, 0, 1,
		    "event ids that do not parse, shown as <parse error>" },
		{ c->bad_args, 0, 1, "event arguments left out" },
		{ c->backward_intervals, 0, 1,
		    "intervals that end before they start, skipped" },
		{ c->bad_index, 0, 1, "string index entries that point nowhere" },
		{ c->budget_strings, 0, 1, "strings past the file's budget for "
		    "expanding references, shown as <invalid>" },
	};
	size_t i, n = 0;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].count > 0)
			p[n++] = all[i];
	return n;
}

static int
write_diags(struct mmprof_decoder *d, const struct mmprof_counts *c)
{
	struct problem p[16];
	size_t i, n = list_problems(c, p);

	for (i = 0; i < n; i++) {
		struct stream_diag dg = { p[i].what, p[i].count, 0, p[i].bytes };

		if (stream_write_diag(d->w, &dg) != 0)
			return -1;
	}
	return 0;
}

/* Writes the process end, the diagnostics from `c` and the REC_END. */
static int
mmprof_decoder_finish(struct mmprof_decoder *d, const struct mmprof_counts *c)
{
	struct stream_end e = { .source_events = c->events,
	    .source_bytes = c->bytes, .end_ns = (uint64_t)d->max_ts,
	    .computer = "" };

	if (write_process_event(d, EVOP_END, d->max_ts) != 0 ||
	    write_diags(d, c) != 0)
		return -1;
	return stream_write_end(d->w, &e);
}

/*
 * Says in one line what makes the file suspect, for -q: what sets the
 * exit status is said even then (etlcat(1)).  @return : 1 if anything
 * does.
 */
static int
summarize_quiet(const char *name, const struct problem *p, size_t n,
    void (*warn)(const char *fmt, ...))
{
	char line[2048];
	size_t i, len = 0;

	line[0] = '\0';
	for (i = 0; i < n && len < sizeof(line); i++) {
		if (!p[i].suspect)
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%llu %s",
		    len > 0 ? "; " : "", (unsigned long long)p[i].count,
		    p[i].what);
	}
	if (len == 0)
		return 0;
	warn("%s: %s", name, line);
	return 1;
}

/* Warns of what makes the file suspect.  @return : 1 if anything does. */
static int
summarize(const char *name, const struct mmprof_counts *c, int verbosity,
    void (*warn)(const char *fmt, ...))
{
	struct problem p[16];
	size_t i, n = list_problems(c, p);
	int status = 0;

	if (verbosity < 0)
		return summarize_quiet(name, p, n, warn);
	if (verbosity > 0)
		warn("%s: %llu events (%llu intervals, %llu instants, %llu "
		    "integers) in %llu pages", name,
		    (unsigned long long)c->events,
		    (unsigned long long)c->intervals,
		    (unsigned long long)c->instants,
		    (unsigned long long)c->integers,
		    (unsigned long long)c->pages);

	for (i = 0; i < n; i++) {
		if (!p[i].suspect)
			continue;
		status = 1;
		warn("%s: %llu %s", name, (unsigned long long)p[i].count,
		    p[i].what);
	}
	return status;
}

/* Pumps the reader's events into the decoder; -1 on a write error. */
static int
pump(struct mmprof_reader *r, struct mmprof_decoder *d, const char *name,
    void (*warn)(const char *fmt, ...), int *status)
{
	struct mmprof_event ev;
	enum mmprof_status st;
	int warnings = 0;

	while ((st = mmprof_reader_next(r, &ev)) != MMPROF_EOF) {
		if (st == MMPROF_FATAL) {
			warn("%s: %s", name, mmprof_reader_error(r));
			*status = 1;
			break;
		}
		if (st == MMPROF_WARN) {
			if (++warnings <= MAX_WARNINGS)
				warn("%s: %s", name, mmprof_reader_error(r));
			*status = 1;
			continue;
		}
		if (mmprof_decoder_event(d, &ev) != 0)
			return -1;
	}
	if (warnings > MAX_WARNINGS)
		warn("%s: %d more problems not shown", name,
		    warnings - MAX_WARNINGS);
	return 0;
}

int
mmprof_cat(struct stream_writer *w, const char *producer, const char *name,
    const struct mapped_file *m, int verbosity, unsigned flags,
    void (*warn)(const char *fmt, ...))
{
	struct mmprof_reader *r = mmprof_reader_new();
	struct mmprof_decoder *d = NULL;
	int status = 0, rc = 0;

	if (r == NULL) {
		warn("%s: out of memory", name);
		return 1;
	}
	mmprof_reader_drop_pages(r, m->is_mapped);
	mmprof_reader_labels_only(r, (flags & MMPROF_LABELS_ONLY) != 0);
	if (mmprof_reader_open_mem(r, m->data, m->len) != MMPROF_OK) {
		warn("%s: %s", name, mmprof_reader_error(r));
		mmprof_reader_free(r);
		return 1;
	}
	if (stream_write_header(w, producer) != 0 ||
	    (d = mmprof_decoder_new(w, r, name)) == NULL ||
	    pump(r, d, name, warn, &status) != 0 ||
	    mmprof_decoder_finish(d, mmprof_reader_counts(r)) != 0)
		rc = -1;
	else if (summarize(name, mmprof_reader_counts(r), verbosity, warn) !=
	    0)
		status = 1;
	mmprof_decoder_free(d);
	mmprof_reader_free(r);
	if (rc != 0 && errno == 0)
		errno = ENOMEM;
	return rc != 0 ? -1 : status;
}

/* ---- reading back ---- */

static const struct {
	const char *name;
	enum query_kind kind;
} kind_names[] = {
	{ "Query", QK_QUERY },
	{ "GenericActivity", QK_GENERIC },
	{ "QueryBlocked", QK_BLOCKED },
	{ "IncrementalLoadResult", QK_LOAD },
	{ "IncrementalResultHashing", QK_HASHING },
	{ "QueryCacheHit", QK_CACHE_HIT },
	{ "QueryCacheHitCount", QK_HIT_COUNT },
	{ "ArtifactSize", QK_ARTIFACT },
};

static enum query_kind
kind_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (strcmp(kind_names[i].name, name) == 0)
			return kind_names[i].kind;
	return QK_OTHER;
}

const char *
query_crate_name(const char *cmdline, size_t *len)
{
	static const char flag[] = " --crate-name ";
	const char *p = strstr(cmdline, flag);

	if (p == NULL)
		return NULL;
	p += sizeof(flag) - 1;
	*len = strcspn(p, " ");
	return p;
}

/* Looks a class up once a section: its label id and kind. */
static struct query_class *
class_info(struct query_input *in, const struct stream_reader *r,
    stream_id cls, const struct stream_class **c)
{
	struct query_class *qc;

	*c = stream_class(r, cls);
	if (cls < in->ncap && in->classes[cls].label != 0)
		return &in->classes[cls];
	if ((qc = array_slot(&in->classes, &in->ncap, cls,
	    sizeof(*qc))) == NULL)
		return NULL;
	if (qc->label == 0) {
		const char *label = *c ? (*c)->event : "";

		qc->kind = (uint8_t)kind_of(*c ? (*c)->provider : "");
		if ((qc->label = query_input_label(in, label,
		    strlen(label))) == 0)
			return NULL;
	}
	return qc;
}

/* Fills the time fields and the arguments from the event's fields. */
static void
read_fields(const struct stream_event *ev, struct query_event *q)
{
	size_t i;

	q->type = QT_INSTANT;
	q->start = q->end = ev->h.ts;
	q->value = 0;
	q->nargs = 0;
	q->args = NULL;
	for (i = 0; i < ev->nfields; i++) {
		const struct stream_field *f = &ev->fields[i];

		/* The first letter tells the names apart: no strcmp() mostly. */
		if (f->name[0] == 'a' && strncmp(f->name, "arg", 3) == 0) {
			q->args = f;
			q->nargs = ev->nfields - i;
			return;
		}
		if (f->name[0] == 'e' && strcmp(f->name, "end") == 0 &&
		    f->val.type == VAL_NS) {
			q->type = QT_INTERVAL;
			q->end = f->val.v.i;
		} else if (f->name[0] == 'v' && strcmp(f->name, "value") == 0 &&
		    f->val.type == VAL_U64) {
			q->type = QT_INTEGER;
			q->value = f->val.v.u;
		}
	}
}

int
query_input_event(struct query_input *in, const struct stream_reader *r,
    const struct stream_record *rec, struct query_event *q)
{
	const struct stream_event *ev = &rec->u.event;
	const struct stream_class *c;
	const struct query_class *qc;

	if (rec->type == REC_HEADER && in->classes != NULL)
		memset(in->classes, 0, in->ncap * sizeof(*in->classes));
	if (rec->type != REC_EVENT || ev->h.kind != EV_QUERY)
		return 0;
	if ((qc = class_info(in, r, ev->h.cls, &c)) == NULL)
		return -1;
	q->kind = (enum query_kind)qc->kind;
	q->label = qc->label;
	q->kind_name = c ? c->provider : "";
	q->label_text = c ? c->event : "";
	q->pid = ev->h.pid;
	q->tid = ev->h.tid;
	read_fields(ev, q);
	return 1;
}

uint32_t
query_input_label(struct query_input *in, const char *text, size_t len)
{
	return intern_add(&in->labels, text, len, NULL);
}

const char *
query_input_text(const struct query_input *in, uint32_t id, size_t *len)
{
	return intern_key(&in->labels, id, len);
}

uint32_t
query_input_labels(const struct query_input *in)
{
	return in->labels.count;
}

void
query_input_release(struct query_input *in)
{
	intern_release(&in->labels);
	free(in->classes);
	in->classes = NULL;
	in->ncap = 0;
}

/* ---- nesting (measureme-format.md section 7, algorithm B) ---- */

struct query_thread *
query_nest_thread(struct query_nest *nest, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	struct query_thread *t;
	uint32_t i;

	/* Most events are on the thread of the event before. */
	if (nest->last < nest->n && nest->t[nest->last].pid == pid &&
	    nest->t[nest->last].tid == tid)
		return &nest->t[nest->last];
	if (idmap_get(&nest->index, key, &i)) {
		nest->last = i;
		return &nest->t[i];
	}
	if (nest->n == nest->cap) {
		size_t cap = nest->cap ? nest->cap * 2 : 16;

		if ((t = realloc(nest->t, cap * sizeof(*t))) == NULL)
			return NULL;
		memset(t + nest->cap, 0, (cap - nest->cap) * sizeof(*t));
		nest->t = t;
		nest->cap = cap;
	}
	if (idmap_put(&nest->index, key, (uint32_t)nest->n) != 0)
		return NULL;
	nest->last = (uint32_t)nest->n;
	t = &nest->t[nest->n++];
	t->pid = pid;
	t->tid = tid;
	t->n = 0;
	t->has_intervals = 0;
	return t;
}

size_t
query_nest_adopt(struct query_thread *t, int64_t start,
    const struct query_pending **children)
{
	size_t n = t->n, k = n;

	while (k > 0 && t->p[k - 1].start >= start)
		k--;
	/* A thread with nothing pending may have no array yet: NULL + 0 is
	 * undefined in C. */
	*children = t->p != NULL ? t->p + k : NULL;
	t->n = k;
	return n - k;
}

int
query_nest_push(struct query_thread *t, int64_t start, int64_t end,
    uint32_t node, int interval)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct query_pending *p = realloc(t->p, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		t->p = p;
		t->cap = cap;
	}
	t->p[t->n].start = start;
	t->p[t->n].end = end;
	t->p[t->n].node = node;
	t->n++;
	if (!interval)
		return 0;
	if (!t->has_intervals || start < t->first_start)
		t->first_start = start;
	if (!t->has_intervals || end > t->max_end)
		t->max_end = end;
	t->last_end = end;
	t->has_intervals = 1;
	return 0;
}

void
query_nest_clear(struct query_nest *nest)
{
	size_t i;

	for (i = 0; i < nest->n; i++) {
		nest->t[i].n = 0;
		nest->t[i].has_intervals = 0;
	}
	idmap_release(&nest->index);
	nest->n = 0;
}

void
query_nest_release(struct query_nest *nest)
{
	size_t i;

	for (i = 0; i < nest->cap; i++)
		free(nest->t[i].p);
	free(nest->t);
	idmap_release(&nest->index);
	memset(nest, 0, sizeof(*nest));
}
