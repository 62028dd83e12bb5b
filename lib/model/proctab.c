/*
 * proctab.c - the process table behind the processes, tree and cpu views.
 *
 * Entries live in one array; a key table (pid, image, start) finds the
 * entry of a process seen again.  Keys are interned in the order entries
 * are made, so a key's id is its entry's index plus one.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "scope.h"
#include "proctab.h"

#define DEFAULT_INTERVAL_NS	1000000		/* 1 ms, WPA's default too */
/*
 * Starts and ends are matched and ordered as ns since 1601 (a FILETIME
 * times 100, plus the ns within it), which 64 bits hold until 2185; in a
 * trace without a start time, as KEY_BASE plus the ns since its start.
 * Key 0 is a start before the trace.
 */
#define KEY_BASE		((uint64_t)1 << 62)
#define NO_END_KEY		UINT64_MAX

const struct stream_column proctab_columns[PROCTAB_NCOLS] = {
	[PT_PID] = { "pid", VAL_U64, "" },
	[PT_PPID] = { "ppid", VAL_U64, "" },
	[PT_IMAGE] = { "image", VAL_STR, "" },
	[PT_START_UTC] = { "start_utc", VAL_UTC, "" },
	[PT_START] = { "start", VAL_NS, "s" },
	[PT_END_UTC] = { "end_utc", VAL_UTC, "" },
	[PT_END] = { "end", VAL_NS, "s" },
	[PT_DURATION] = { "duration", VAL_NS, "s" },
	[PT_EXIT] = { "exit_status", VAL_I64, "" },
	[PT_THREADS] = { "threads", VAL_U64, "" },
	[PT_SAMPLES] = { "samples", VAL_U64, "" },
	[PT_CPU_MS] = { "cpu_ms", VAL_F64, "ms" },
	[PT_END_STATE] = { "end_state", VAL_STR, "" },
	[PT_LAST_SEEN] = { "last_seen", VAL_NS, "s" },
	[PT_TRACE_END] = { "trace_end", VAL_NS, "s" },
	[PT_CRATE] = { "crate", VAL_STR, "" },
	[PT_CMDLINE] = { "cmdline", VAL_STR, "" },
};

/*
 * The entry a pid named last, kept while the reader's pids stay as they
 * were (stream_pids_version()): samples come by the thousand from few
 * pids, and each asked the reader and two maps.
 */
#define PID_CACHE	64

struct pid_slot {
	const struct stream_reader *r;
	uint64_t version;
	uint32_t pid, index;
	stream_id def;			/* the pid's PROCESS, 0 if none */
};

struct proctab {
	struct pid_slot pids[PID_CACHE];
	struct buf procs;		/* struct proc */
	uint32_t nprocs;
	struct intern strings;		/* images and command lines */
	struct intern keys;		/* see entry_key() */
	/* The current section. */
	uint64_t section;
	uint64_t trace_utc;		/* its start; 0 if not known */
	uint64_t interval_ns;
	int64_t end_ns;			/* its end: the header's or last event */
	struct buf ends;		/* int64_t: the end of each section */
	struct idmap of_def;		/* process definition -> index */
	struct idmap undefined;		/* pid without definition -> index */
	struct idmap interval_classes;	/* classes that set the interval */
	/*
	 * Entries first listed in this section ({index, PROCESS id, pid}),
	 * unlisted at its end if a filter upstream kept them only as
	 * context (scope.h).
	 */
	struct buf fresh;
	struct scope *sc;
	/* The table being merged, and where its columns are. */
	stream_id merge_table;
	int cols[PROCTAB_NCOLS];
};

struct proctab *
proctab_new(void)
{
	struct proctab *pt = calloc(1, sizeof(*pt));

	if (pt != NULL) {
		pt->interval_ns = DEFAULT_INTERVAL_NS;
		pt->end_ns = INT64_MIN;
		if ((pt->sc = scope_new()) == NULL) {
			free(pt);
			return NULL;
		}
	}
	return pt;
}

void
proctab_free(struct proctab *pt)
{
	if (pt == NULL)
		return;
	buf_release(&pt->procs);
	buf_release(&pt->ends);
	buf_release(&pt->fresh);
	scope_free(pt->sc);
	intern_release(&pt->strings);
	intern_release(&pt->keys);
	idmap_release(&pt->of_def);
	idmap_release(&pt->undefined);
	idmap_release(&pt->interval_classes);
	free(pt);
}

uint32_t
proctab_count(const struct proctab *pt)
{
	return pt->nprocs;
}

const struct proc *
proctab_get(const struct proctab *pt, uint32_t index)
{
	return (const struct proc *)pt->procs.data + index;
}

static struct proc *
entry(struct proctab *pt, uint32_t index)
{
	return (struct proc *)pt->procs.data + index;
}

const char *
proctab_str(const struct proctab *pt, uint32_t id, size_t *len)
{
	return intern_key(&pt->strings, id, len);
}

uint64_t
proctab_interval_ns(const struct proctab *pt)
{
	return pt->interval_ns;
}

/* The key of a time of this section's trace. */
static uint64_t
time_key(const struct proctab *pt, int64_t ns)
{
	if (pt->trace_utc == 0)
		return KEY_BASE + (uint64_t)ns;
	return pt->trace_utc * 100 + (uint64_t)ns;
}

/* The FILETIME of a time of this section's trace; 0 if not known. */
static uint64_t
utc_of(const struct proctab *pt, int64_t ns)
{
	return pt->trace_utc != 0 ? time_key(pt, ns) / 100 : 0;
}

/*
 * The entry of (pid, image, start), made if new.  start_key 0 is a start
 * before the trace.  @return : its index, or PROCTAB_NONE if out of memory.
 */
static uint32_t
find_entry(struct proctab *pt, uint32_t pid, const char *image,
    uint64_t start_key)
{
	unsigned char key[16];
	uint32_t image_id, id;
	struct proc *p;
	int added;

	if ((image_id = intern_add(&pt->strings, image, strlen(image),
	    NULL)) == 0)
		return PROCTAB_NONE;
	memcpy(key, &pid, 4);
	memcpy(key + 4, &image_id, 4);
	memcpy(key + 8, &start_key, 8);
	if ((id = intern_add(&pt->keys, key, sizeof(key), &added)) == 0)
		return PROCTAB_NONE;
	if (!added)
		return id - 1;
	if ((p = (struct proc *)buf_reserve(&pt->procs, sizeof(*p))) == NULL)
		return PROCTAB_NONE;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->image = image_id;
	p->start_ns = p->end_ns = p->last_ns = PROCTAB_NO_TIME;
	p->trace_end_ns = PROCTAB_NO_TIME;
	p->start_key = start_key;
	p->end_key = NO_END_KEY;
	pt->procs.len += sizeof(*p);
	return pt->nprocs++;
}

static int
set_cmdline(struct proctab *pt, struct proc *p, const char *s, size_t len)
{
	if (p->cmdline != 0 || len == 0)
		return 0;
	return (p->cmdline = intern_add(&pt->strings, s, len, NULL)) != 0 ?
	    0 : -1;
}

static int
add_definition(struct proctab *pt, const struct stream_process *def)
{
	int known = def->start_ns != PROCTAB_NO_TIME;
	uint32_t i = find_entry(pt, def->pid, def->name,
	    known ? time_key(pt, def->start_ns) : 0);
	struct proc *p;

	if (i == PROCTAB_NONE || idmap_put(&pt->of_def, def->id, i) != 0)
		return -1;
	p = entry(pt, i);
	p->ppid = def->ppid;
	if (known && p->start_ns == PROCTAB_NO_TIME) {
		p->start_ns = def->start_ns;
		p->start_utc = utc_of(pt, def->start_ns);
	}
	return set_cmdline(pt, p, def->cmdline, strlen(def->cmdline));
}

/* The entry of a process definition, or of the pid's latest one. */
static uint32_t
of_definition(struct proctab *pt, const struct stream_reader *r,
    stream_id id, uint32_t pid)
{
	uint32_t i;

	if (id != 0 && idmap_get(&pt->of_def, id, &i))
		return i;
	return proctab_of_pid(pt, r, pid);
}

static uint32_t uncached_of_pid(struct proctab *, const struct stream_reader *,
    uint32_t);

/* What the cache knows of pid, or NULL. */
static const struct pid_slot *
cached(const struct proctab *pt, const struct stream_reader *r, uint32_t pid)
{
	const struct pid_slot *ps = &pt->pids[pid % PID_CACHE];

	return ps->r == r && ps->pid == pid &&
	    ps->version == stream_pids_version(r) ? ps : NULL;
}

/* The entry of pid, and its PROCESS id (0: none) in *def. */
static uint32_t
of_pid(struct proctab *pt, const struct stream_reader *r, uint32_t pid,
    stream_id *def)
{
	struct pid_slot *ps = &pt->pids[pid % PID_CACHE];
	const struct stream_process *p;

	if (cached(pt, r, pid) == NULL) {
		ps->index = uncached_of_pid(pt, r, pid);
		if (ps->index == PROCTAB_NONE) {
			ps->r = NULL;
			return PROCTAB_NONE;
		}
		p = stream_process_by_pid(r, pid);
		ps->def = p != NULL ? p->id : 0;
		ps->r = r;
		ps->version = stream_pids_version(r);
		ps->pid = pid;
	}
	*def = ps->def;
	return ps->index;
}

uint32_t
proctab_of_pid(struct proctab *pt, const struct stream_reader *r,
    uint32_t pid)
{
	stream_id def;

	return of_pid(pt, r, pid, &def);
}

static uint32_t
uncached_of_pid(struct proctab *pt, const struct stream_reader *r,
    uint32_t pid)
{
	const struct stream_process *def = stream_process_by_pid(r, pid);
	uint32_t i;

	if (def != NULL) {
		if (idmap_get(&pt->of_def, def->id, &i))
			return i;
		return add_definition(pt, def) == 0 ?
		    uncached_of_pid(pt, r, pid) : PROCTAB_NONE;
	}
	if (idmap_get(&pt->undefined, pid, &i))
		return i;
	i = find_entry(pt, pid, pid == 0 ? "Idle" : "(unknown)", 0);
	if (i == PROCTAB_NONE || idmap_put(&pt->undefined, pid, i) != 0)
		return PROCTAB_NONE;
	return i;
}

/* Entry i is listed: by an event of PROCESS `def` (0: none) or `pid`. */
static void
list_entry(struct proctab *pt, uint32_t i, stream_id def, uint32_t pid)
{
	struct proc *p = entry(pt, i);
	uint32_t note[3] = { i, def, pid };

	if (p->listed)
		return;
	p->listed = 1;
	buf_put(&pt->fresh, note, sizeof(note));
}

/*
 * What a filter kept as context only is not listed: said at each SCOPE
 * of the processes kept (the last records of a filtered section, also of
 * one cut short, which has no END), and at the section's end, which
 * forgets the section's processes.
 */
static void
unlist_context(struct proctab *pt, int end)
{
	const uint32_t *note = (const uint32_t *)pt->fresh.data;
	size_t i, n = pt->fresh.len / (3 * sizeof(*note));

	if (scope_limited(pt->sc))
		for (i = 0; i < n; i++, note += 3)
			if (!scope_keeps(pt->sc, note[1], note[2]))
				entry(pt, note[0])->listed = 0;
	if (end)
		pt->fresh.len = 0;
}

static void
count_thread(struct proctab *pt, struct proc *p)
{
	if (p->section != pt->section) {
		p->section = pt->section;
		p->section_threads = 0;
	}
	if (++p->section_threads > p->threads)
		p->threads = p->section_threads;
}

static uint64_t
field_u64(const struct stream_event *ev, const char *name, uint64_t def)
{
	const struct value *v = stream_event_field(ev, name);

	if (v == NULL || v->type == VAL_NULL || v->type == VAL_STR ||
	    v->type == VAL_BYTES || v->type == VAL_GUID || v->type == VAL_F64)
		return def;
	return v->v.u;
}

/*
 * The process was there at ns: the last time seen moves on.  Times of
 * two sections do not compare, so a later section's sightings replace
 * an earlier one's, as a later table's row does when merging.
 */
static void
seen(struct proctab *pt, struct proc *p, int64_t ns)
{
	if (p->end_section != pt->section || p->last_ns == PROCTAB_NO_TIME ||
	    ns > p->last_ns)
		p->last_ns = ns;
	p->end_section = pt->section;
}

static int
on_process_event(struct proctab *pt, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t i = of_definition(pt, r,
	    (stream_id)field_u64(ev, "process", 0), ev->h.pid);
	struct proc *p;

	if (i == PROCTAB_NONE)
		return -1;
	list_entry(pt, i, (stream_id)field_u64(ev, "process", 0), ev->h.pid);
	p = entry(pt, i);
	seen(pt, p, ev->h.ts);
	/* In the rundown at the trace's end: it outlived the trace. */
	if (ev->h.op == EVOP_DCEND && p->fate == FATE_UNKNOWN)
		p->fate = FATE_RUNNING;
	if (ev->h.op == EVOP_END || ev->h.op == EVOP_DEFUNCT)
		p->fate = FATE_EXITED;
	if (ev->h.op == EVOP_END) {
		p->end_ns = ev->h.ts;
		p->end_key = time_key(pt, ev->h.ts);
		p->end_utc = utc_of(pt, ev->h.ts);
	}
	/* A defunct process has ended; its rundown still has the status. */
	if (ev->h.op == EVOP_END ||
	    (ev->h.op == EVOP_DEFUNCT && !p->has_exit)) {
		p->exit_status = (int64_t)field_u64(ev, "exit_status", 0);
		p->has_exit = 1;
	}
	return 0;
}

static int
on_sample(struct proctab *pt, const struct stream_reader *r,
    const struct stream_event *ev)
{
	stream_id def;
	uint32_t i = of_pid(pt, r, ev->h.pid, &def);
	struct proc *p;

	if (i == PROCTAB_NONE)
		return -1;
	list_entry(pt, i, def, ev->h.pid);
	p = entry(pt, i);
	seen(pt, p, ev->h.ts);
	p->samples++;
	p->cpu_ns += pt->interval_ns;
	return 0;
}

/* PerfInfo interval events of the timer (source 0) set the interval. */
static void
on_interval(struct proctab *pt, const struct stream_event *ev)
{
	uint64_t interval = field_u64(ev, "new_interval", 0);

	if (field_u64(ev, "source", 0) == 0 && interval != 0)
		pt->interval_ns = interval * 100;
}

/* Lists the process of an event, if its pid has a definition. */
static void
list_process(struct proctab *pt, const struct stream_reader *r,
    const struct stream_event *ev)
{
	const struct pid_slot *ps = cached(pt, r, ev->h.pid);
	const struct stream_process *def;
	uint32_t i;

	if (ps != NULL) {
		if (ps->def != 0) {
			list_entry(pt, ps->index, ps->def, ev->h.pid);
			seen(pt, entry(pt, ps->index), ev->h.ts);
		}
		return;
	}
	def = stream_process_by_pid(r, ev->h.pid);
	if (def != NULL && idmap_get(&pt->of_def, def->id, &i)) {
		list_entry(pt, i, def->id, ev->h.pid);
		seen(pt, entry(pt, i), ev->h.ts);
	}
}

static int
on_event(struct proctab *pt, const struct stream_reader *r,
    const struct stream_event *ev)
{
	uint32_t yes;

	if (ev->h.ts > pt->end_ns)
		pt->end_ns = ev->h.ts;
	switch (ev->h.kind) {
	case EV_PROCESS:
		return on_process_event(pt, r, ev);
	case EV_SAMPLE:
		return on_sample(pt, r, ev);
	case EV_GENERIC:
		if (idmap_get(&pt->interval_classes, ev->h.cls, &yes))
			on_interval(pt, ev);
		break;
	default:
		break;
	}
	list_process(pt, r, ev);
	return 0;
}

static int
on_class(struct proctab *pt, const struct stream_class *c)
{
	if (strcmp(c->event, "PerfInfo/CollectionStart") != 0 &&
	    strcmp(c->event, "PerfInfo/SetInterval") != 0)
		return 0;
	return idmap_put(&pt->interval_classes, c->id, 1);
}

/* The end of a section's trace; INT64_MIN if it is not known. */
static int64_t
section_end(const struct proctab *pt, uint64_t section)
{
	if (section == pt->section)
		return pt->end_ns;
	if (section == 0 || section > pt->ends.len / sizeof(int64_t))
		return INT64_MIN;
	return ((const int64_t *)pt->ends.data)[section - 1];
}

static void
new_section(struct proctab *pt)
{
	/* Sections are numbered from 1: ends[] holds them from 0. */
	if (pt->section > 0)
		buf_put(&pt->ends, &pt->end_ns, sizeof(pt->end_ns));
	pt->end_ns = INT64_MIN;
	pt->section++;
	pt->trace_utc = 0;
	pt->interval_ns = DEFAULT_INTERVAL_NS;
	pt->merge_table = 0;
	idmap_release(&pt->of_def);
	idmap_release(&pt->undefined);
	idmap_release(&pt->interval_classes);
}

int
proctab_record(struct proctab *pt, const struct stream_reader *r,
    const struct stream_record *rec)
{
	uint32_t i;

	/* Before the scope forgets the section a new HEADER ends. */
	if (rec->type == REC_END || rec->type == REC_HEADER)
		unlist_context(pt, 1);
	if (scope_record(pt->sc, r, rec) != 0)
		return -1;
	if (rec->type == REC_SCOPE)
		unlist_context(pt, 0);
	switch (rec->type) {
	case REC_HEADER:
		new_section(pt);
		return pt->ends.oom || pt->fresh.oom ? -1 : 0;
	case REC_TRACE:
		pt->trace_utc = rec->u.trace.start_utc;
		if (rec->u.trace.start_utc != 0 &&
		    rec->u.trace.end_utc > rec->u.trace.start_utc &&
		    rec->u.trace.end_utc - rec->u.trace.start_utc <
		    INT64_MAX / 100 &&
		    (int64_t)(rec->u.trace.end_utc -
		    rec->u.trace.start_utc) * 100 > pt->end_ns)
			pt->end_ns = (int64_t)(rec->u.trace.end_utc -
			    rec->u.trace.start_utc) * 100;
		if (rec->u.trace.sample_interval_100ns != 0)
			pt->interval_ns = rec->u.trace.sample_interval_100ns *
			    (uint64_t)100;
		return 0;
	case REC_CLASS:
		return on_class(pt, &rec->u.cls);
	case REC_PROCESS:
		return add_definition(pt, &rec->u.process);
	case REC_THREAD:
		i = of_definition(pt, r, rec->u.thread.process,
		    rec->u.thread.pid);
		if (i == PROCTAB_NONE)
			return -1;
		count_thread(pt, entry(pt, i));
		return 0;
	case REC_EVENT:
		return on_event(pt, r, &rec->u.event);
	default:
		return 0;
	}
}

/* ---- merging tables ---- */

static void
map_columns(struct proctab *pt, const struct stream_table *t)
{
	size_t c, k;

	for (k = 0; k < PROCTAB_NCOLS; k++) {
		pt->cols[k] = -1;
		for (c = 0; c < t->ncols; c++)
			if (strcmp(t->cols[c].name,
			    proctab_columns[k].name) == 0 &&
			    t->cols[c].type == proctab_columns[k].type)
				pt->cols[k] = (int)c;
	}
}

/* The row's cell of column k, or NULL if the table or row has none. */
static const struct value *
cell(const struct proctab *pt, const struct stream_row *row, enum proctab_col k)
{
	int c = pt->cols[k];

	if (c < 0 || (size_t)c >= row->ncells ||
	    row->cells[c].type == VAL_NULL)
		return NULL;
	return &row->cells[c];
}

/*
 * The key of a row's start or end, as time_key() made it: from its UTC
 * time and the ns within it, else from its ns alone.
 */
static uint64_t
row_time_key(const struct proctab *pt, const struct stream_row *row,
    enum proctab_col utc, enum proctab_col ns, uint64_t none)
{
	const struct value *u = cell(pt, row, utc), *n = cell(pt, row, ns);

	if (u != NULL && u->v.u != 0)
		return u->v.u * 100 + (n != NULL ? (uint64_t)(n->v.i % 100 +
		    100) % 100 : 0);
	if (n != NULL)
		return KEY_BASE + (uint64_t)n->v.i;
	return none;
}

static void
merge_times(const struct proctab *pt, struct proc *p,
    const struct stream_row *row)
{
	const struct value *v;

	if (p->start_ns == PROCTAB_NO_TIME && (v = cell(pt, row, PT_START)))
		p->start_ns = v->v.i;
	if (p->start_utc == 0 && (v = cell(pt, row, PT_START_UTC)) != NULL)
		p->start_utc = v->v.u;
	if (p->end_key == NO_END_KEY) {
		p->end_key = row_time_key(pt, row, PT_END_UTC, PT_END,
		    NO_END_KEY);
		if ((v = cell(pt, row, PT_END)) != NULL)
			p->end_ns = v->v.i;
		if ((v = cell(pt, row, PT_END_UTC)) != NULL)
			p->end_utc = v->v.u;
	}
	if (!p->has_exit && (v = cell(pt, row, PT_EXIT)) != NULL) {
		p->exit_status = v->v.i;
		p->has_exit = 1;
	}
	if ((v = cell(pt, row, PT_END_STATE)) != NULL) {
		if (v->v.s.len == 6 && memcmp(v->v.s.ptr, "exited", 6) == 0)
			p->fate = FATE_EXITED;
		else if (v->v.s.len == 7 &&
		    memcmp(v->v.s.ptr, "running", 7) == 0 &&
		    p->fate == FATE_UNKNOWN)
			p->fate = FATE_RUNNING;
	}
	if ((v = cell(pt, row, PT_LAST_SEEN)) != NULL) {
		p->last_ns = v->v.i;
		p->end_section = 0;
		p->trace_end_ns = (v = cell(pt, row, PT_TRACE_END)) != NULL ?
		    v->v.i : PROCTAB_NO_TIME;
	}
}

static int
merge_row(struct proctab *pt, const struct stream_row *row)
{
	const struct value *image = cell(pt, row, PT_IMAGE), *v;
	char name[1024];
	struct proc *p;
	uint32_t i;
	size_t n;

	n = image != NULL ? image->v.s.len : 0;
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, image != NULL ? image->v.s.ptr : "", n);
	name[n] = '\0';
	v = cell(pt, row, PT_PID);
	i = find_entry(pt, v != NULL ? (uint32_t)v->v.u : UINT32_MAX, name,
	    row_time_key(pt, row, PT_START_UTC, PT_START, 0));
	if (i == PROCTAB_NONE)
		return -1;
	p = entry(pt, i);
	p->listed = 1;
	if ((v = cell(pt, row, PT_PPID)) != NULL)
		p->ppid = (uint32_t)v->v.u;
	merge_times(pt, p, row);
	if ((v = cell(pt, row, PT_THREADS)) != NULL && v->v.u > p->threads)
		p->threads = v->v.u;
	if ((v = cell(pt, row, PT_SAMPLES)) != NULL)
		p->samples += v->v.u;
	if ((v = cell(pt, row, PT_CPU_MS)) != NULL && v->v.f > 0)
		p->cpu_ns += (uint64_t)llround(v->v.f * 1e6);
	if ((v = cell(pt, row, PT_CMDLINE)) != NULL)
		return set_cmdline(pt, p, v->v.s.ptr, v->v.s.len);
	return 0;
}

int
proctab_merge(struct proctab *pt, const struct stream_record *rec,
    const char *name)
{
	switch (rec->type) {
	case REC_HEADER:
		pt->merge_table = 0;
		return 0;
	case REC_TABLE:
		pt->merge_table = 0;
		if (strcmp(rec->u.table.name, name) == 0 &&
		    rec->u.table.id != 0) {
			pt->merge_table = rec->u.table.id;
			map_columns(pt, &rec->u.table);
		}
		return 0;
	case REC_ROW:
		if (pt->merge_table == 0 || rec->u.row.table != pt->merge_table)
			return 0;
		return merge_row(pt, &rec->u.row);
	default:
		return 0;
	}
}

/* ---- orders ---- */

struct order_key {
	uint64_t major;			/* the pid, when sorting by pid first */
	uint64_t start;
	uint32_t pid, index;
};

static int
cmp_order(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The listed entries by start then pid, or by pid first if by_pid is
 * set; *n gets how many.
 */
static uint32_t *
sorted(const struct proctab *pt, int by_pid, uint32_t *n)
{
	struct order_key *keys = malloc((pt->nprocs + 1) * sizeof(*keys));
	uint32_t *ix = malloc((pt->nprocs + 1) * sizeof(*ix)), i;

	if (keys == NULL || ix == NULL) {
		free(keys);
		free(ix);
		return NULL;
	}
	*n = 0;
	for (i = 0; i < pt->nprocs; i++) {
		const struct proc *p = proctab_get(pt, i);

		if (!p->listed)
			continue;
		keys[*n].major = by_pid ? p->pid : 0;
		keys[*n].start = p->start_key;
		keys[*n].pid = p->pid;
		keys[*n].index = i;
		(*n)++;
	}
	qsort(keys, *n, sizeof(*keys), cmp_order);
	for (i = 0; i < *n; i++)
		ix[i] = keys[i].index;
	free(keys);
	return ix;
}

uint32_t *
proctab_by_start(const struct proctab *pt, uint32_t *n)
{
	return sorted(pt, 0, n);
}

/* The parent of entry i among the n entries sorted by pid then start. */
static uint32_t
parent_of(const struct proctab *pt, const uint32_t *by_pid, uint32_t n,
    uint32_t i)
{
	const struct proc *c = proctab_get(pt, i), *q;
	uint32_t lo = 0, hi = n;

	if (c->ppid == 0 || c->ppid == c->pid)
		return PROCTAB_NONE;
	/* Past the last entry with the parent pid that started by then. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		q = proctab_get(pt, by_pid[mid]);
		if (q->pid < c->ppid || (q->pid == c->ppid &&
		    q->start_key <= c->start_key))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		q = proctab_get(pt, by_pid[lo]);
		if (q->pid != c->ppid)
			break;
		if (by_pid[lo] != i && q->end_key >= c->start_key)
			return by_pid[lo];
	}
	return PROCTAB_NONE;
}

/*
 * Walks the tree from `root` depth first into order[] and depth[],
 * with the children in first[]/kids[] (a compressed adjacency list).
 */
static void
walk(uint32_t root, const uint32_t *first, const uint32_t *kids,
    unsigned char *seen, uint32_t *stack, uint32_t *order, uint32_t *depth,
    uint32_t *n)
{
	uint32_t top = 0, d, k;

	stack[top++] = root;
	depth[root] = 0;
	seen[root] = 1;
	while (top > 0) {
		uint32_t i = stack[--top];

		d = depth[i];
		order[(*n)++] = i;
		/* Pushed last first, so that they come out in order. */
		for (k = first[i + 1]; k > first[i]; k--) {
			uint32_t c = kids[k - 1];

			if (seen[c])
				continue;
			seen[c] = 1;
			depth[c] = d + 1;
			stack[top++] = c;
		}
	}
}

uint32_t *
proctab_tree(const struct proctab *pt, uint32_t **depth_out, uint32_t *count)
{
	uint32_t n = pt->nprocs, i, k, done = 0, listed = 0;
	uint32_t *by_start = sorted(pt, 0, &listed);
	uint32_t *by_pid = sorted(pt, 1, &listed);
	uint32_t *parent = calloc(n + 1, sizeof(*parent));
	uint32_t *first = calloc(n + 2, sizeof(*first));
	uint32_t *kids = calloc(n + 1, sizeof(*kids));
	uint32_t *stack = calloc(n + 1, sizeof(*stack));
	uint32_t *depth = calloc(n + 1, sizeof(*depth));
	unsigned char *seen = calloc(n + 1, 1);
	uint32_t *order = NULL;

	if (by_start == NULL || by_pid == NULL || parent == NULL ||
	    first == NULL || kids == NULL || stack == NULL || depth == NULL ||
	    seen == NULL || (order = calloc(n + 1, sizeof(*order))) == NULL)
		goto out;
	for (k = 0; k < listed; k++) {
		i = by_start[k];
		if ((parent[i] = parent_of(pt, by_pid, listed, i)) !=
		    PROCTAB_NONE)
			first[parent[i] + 2]++;
	}
	for (i = 0; i < n; i++)
		first[i + 2] += first[i + 1];
	/* Children in order of start, since by_start is. */
	for (k = 0; k < listed; k++) {
		i = by_start[k];
		if (parent[i] != PROCTAB_NONE)
			kids[first[parent[i] + 1]++] = i;
	}
	for (k = 0; k < listed; k++)
		if (parent[by_start[k]] == PROCTAB_NONE)
			walk(by_start[k], first, kids, seen, stack, order,
			    depth, &done);
	/* Whatever a cycle of equal starts hid from the roots. */
	for (k = 0; k < listed; k++)
		if (!seen[by_start[k]])
			walk(by_start[k], first, kids, seen, stack, order,
			    depth, &done);
out:
	free(by_start);
	free(by_pid);
	free(parent);
	free(first);
	free(kids);
	free(stack);
	free(seen);
	if (order == NULL) {
		free(depth);
		depth = NULL;
	}
	*depth_out = depth;
	*count = done;
	return order;
}

/* end_state and last_seen. */
static void
fate_cells(const struct proctab *pt, const struct proc *p,
    struct value cells[PROCTAB_NCOLS])
{
	static const char *const names[] = {
		[FATE_UNKNOWN] = "unknown", [FATE_EXITED] = "exited",
		[FATE_RUNNING] = "running",
	};
	int64_t last = p->last_ns, end = p->end_section != 0 ?
	    section_end(pt, p->end_section) : p->trace_end_ns;

	if (end == INT64_MIN)
		end = PROCTAB_NO_TIME;
	if (end != PROCTAB_NO_TIME)
		cells[PT_TRACE_END] = (struct value){ .type = VAL_NS,
		    .v.i = end };
	if (p->fate == FATE_EXITED && p->end_ns != PROCTAB_NO_TIME)
		last = p->end_ns;
	else if (p->fate == FATE_RUNNING && end != PROCTAB_NO_TIME &&
	    (last == PROCTAB_NO_TIME || end > last))
		last = end;
	cells[PT_END_STATE] = (struct value){ .type = VAL_STR,
	    .v.s = { names[p->fate], strlen(names[p->fate]) } };
	if (last != PROCTAB_NO_TIME)
		cells[PT_LAST_SEEN] = (struct value){ .type = VAL_NS,
		    .v.i = last };
}

const char *
proctab_crate(const char *cmdline, size_t len, size_t *n)
{
	static const char opt[] = "--crate-name";
	size_t k = sizeof(opt) - 1, i, j;

	for (i = 0; i + k < len; i++) {
		if (memcmp(cmdline + i, opt, k) != 0 ||
		    (i > 0 && cmdline[i - 1] != ' ' && cmdline[i - 1] != '"'))
			continue;
		j = i + k;
		if (cmdline[j] != ' ' && cmdline[j] != '=' &&
		    cmdline[j] != '"')
			continue;
		/* The value: after spaces, an = or quotes, to a space. */
		while (j < len && (cmdline[j] == ' ' || cmdline[j] == '"'))
			j++;
		if (j < len && cmdline[j] == '=')
			j++;
		while (j < len && cmdline[j] == '"')
			j++;
		for (i = j; i < len && cmdline[i] != ' ' &&
		    cmdline[i] != '"'; i++)
			;
		if (i == j)
			return NULL;
		*n = i - j;
		return cmdline + j;
	}
	return NULL;
}

void
proctab_cells(const struct proctab *pt, uint32_t index,
    struct value cells[PROCTAB_NCOLS])
{
	const struct proc *p = proctab_get(pt, index);
	const char *s;
	size_t len;
	int k;

	for (k = 0; k < PROCTAB_NCOLS; k++)
		cells[k].type = VAL_NULL;
	cells[PT_PID] = (struct value){ .type = VAL_U64, .v.u = p->pid };
	cells[PT_PPID] = (struct value){ .type = VAL_U64, .v.u = p->ppid };
	s = proctab_str(pt, p->image, &len);
	cells[PT_IMAGE] = (struct value){ .type = VAL_STR, .v.s = { s, len } };
	if (p->start_utc != 0)
		cells[PT_START_UTC] = (struct value){ .type = VAL_UTC,
		    .v.u = p->start_utc };
	if (p->start_ns != PROCTAB_NO_TIME)
		cells[PT_START] = (struct value){ .type = VAL_NS,
		    .v.i = p->start_ns };
	if (p->end_utc != 0)
		cells[PT_END_UTC] = (struct value){ .type = VAL_UTC,
		    .v.u = p->end_utc };
	if (p->end_ns != PROCTAB_NO_TIME)
		cells[PT_END] = (struct value){ .type = VAL_NS,
		    .v.i = p->end_ns };
	if (p->start_ns != PROCTAB_NO_TIME && p->end_ns != PROCTAB_NO_TIME)
		cells[PT_DURATION] = (struct value){ .type = VAL_NS,
		    .v.i = p->end_ns - p->start_ns };
	if (p->has_exit)
		cells[PT_EXIT] = (struct value){ .type = VAL_I64,
		    .v.i = p->exit_status };
	cells[PT_THREADS] = (struct value){ .type = VAL_U64,
	    .v.u = p->threads };
	cells[PT_SAMPLES] = (struct value){ .type = VAL_U64,
	    .v.u = p->samples };
	cells[PT_CPU_MS] = (struct value){ .type = VAL_F64,
	    .v.f = (double)p->cpu_ns / 1e6 };
	fate_cells(pt, p, cells);
	s = p->cmdline != 0 ? proctab_str(pt, p->cmdline, &len) : "";
	if (p->cmdline == 0)
		len = 0;
	cells[PT_CMDLINE] = (struct value){ .type = VAL_STR,
	    .v.s = { s, len } };
	if ((s = proctab_crate(s, len, &len)) != NULL)
		cells[PT_CRATE] = (struct value){ .type = VAL_STR,
		    .v.s = { s, len } };
}

/* ---- the views over the table alone ---- */

const struct option proctab_view_options[] = {
	{ "merge", no_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 }
};

int
proctab_view_init(struct proctab_view *pv, const char *table, int argc,
    char *argv[], int *used, struct proctab *shared)
{
	int ch;

	memset(pv, 0, sizeof(*pv));
	pv->table = table;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "+", proctab_view_options, NULL)) != -1) {
		if (ch != 'm')
			return 1;
		pv->merge = 1;
	}
	*used = optind;
	/* Rows merged in would change a table other views read. */
	if (shared != NULL && !pv->merge) {
		pv->pt = shared;
		pv->shared = 1;
		return 0;
	}
	if ((pv->pt = proctab_new()) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int
proctab_view_record(struct proctab_view *pv, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (!pv->shared && proctab_record(pv->pt, r, rec) != 0)
		return -1;
	if (pv->merge)
		return proctab_merge(pv->pt, rec, pv->table);
	return 0;
}

void
proctab_view_release(struct proctab_view *pv)
{
	if (!pv->shared)
		proctab_free(pv->pt);
	pv->pt = NULL;
}
