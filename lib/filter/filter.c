/*
 * filter.c - see filter.h.
 *
 * The options become sets (pids, tids, kinds, providers), compiled
 * PCRE2 regexes and a time window.  Whatever can be decided once per
 * definition is: a provider verdict for each CLASS, a match for each
 * PROCESS.  An event then costs a few bit tests, the reader's pid
 * look-up and an array index.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "base/seconds.h"
#include "filter.h"
#include "filter_time.h"

#define PID_NONE	UINT32_MAX	/* the source does not say */

/*
 * --rustc: the programs of a Rust build.  Always without regard to case,
 * as Windows file names are; ".exe" is optional for traces of other
 * systems.
 */
#define RUSTC_NAMES \
	"^(rustc|cargo|link|lld-link|rustdoc|build-script-build.*)(\\.exe)?$"

struct regex {
	char *pattern;
	int icase;		/* always, whatever -i says */
	pcre2_code *code;
	pcre2_match_data *md;
};

struct regex_list {
	struct regex *items;
	size_t n;
};

/* One end of the time window, as given. */
struct bound {
	int set;
	int utc;		/* given as a UTC time: `ticks` */
	int64_t ns;		/* given as seconds from the trace's start */
	uint64_t ticks;
};

enum note_flags {
	NOTE_DEFINED = 1 << 0,
	NOTE_OWN = 1 << 1,	/* matches by its own definition */
	NOTE_PENDING = 1 << 2,	/* parent: the first process of `ppid` */
	NOTE_VISITING = 1 << 3,	/* on the path being resolved */
	NOTE_DONE = 1 << 4,	/* NOTE_MATCH is final */
	NOTE_MATCH = 1 << 5,
	NOTE_SETTLED = 1 << 6	/* `parent` is final (parent_of()) */
};

/* What the scan learnt of one PROCESS definition. */
struct proc_note {
	stream_id parent;	/* the parent's PROCESS id; 0: none */
	uint32_t ppid;
	int64_t start_ns;
	uint32_t seen;		/* one pass: the walk that last came by */
	unsigned char flags;	/* note_flags */
};

/* The processes of one section of an input. */
struct section {
	struct proc_note *procs;	/* by PROCESS id */
	size_t cap;
	struct idmap first;		/* pid -> its first PROCESS id */
	int resolved;
};

struct filter {
	unsigned flags;
	struct regex_list names, cmdlines;
	struct idmap pids, tids;	/* sets: the values are unused */
	struct buf pid_list;		/* uint32_t: the pids, as given */
	uint32_t kinds;			/* 1 << kind */
	int kind_stack;			/* "stack": events with a stack */
	char **providers;
	size_t nproviders;
	struct bound from, to;

	struct section *sections;	/* filled by the scan */
	size_t nsections, sections_cap;
	size_t cur;			/* section of the second pass, + 1 */

	/*
	 * One pass: the walk up the parents of the process whose verdict
	 * the first held event waits for, stopped where a parent is not
	 * defined yet, so that it goes on from there (see walk()).
	 */
	int final;			/* the section is over: no waiting */
	stream_id walk_start, walk_at;
	uint32_t epoch;

	/* The second pass's section. */
	unsigned char *classes;		/* provider verdict by CLASS id */
	size_t classes_cap;
	int64_t from_ns, to_ns;
	int window_known;		/* UTC bounds need the trace start */

	/*
	 * One pass: the second side's tickets of the switches and readies
	 * held back whose both sides wait (TICKET_PAIR), in order.
	 */
	int onepass;			/* filter_next() is in use */
	uint64_t *pairq;
	size_t pq_head, pq_len, pq_cap;
	/* Non-scan pid criteria: the section's PROCESS ids of kept pids. */
	struct buf kept_defs;
	/* What filter_scope_kept() hands out. */
	struct buf scope_procs, scope_pids;

	char error[256];
};

static int
set_error(struct filter *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->error, sizeof(f->error), fmt, ap);
	va_end(ap);
	return -1;
}

const char *
filter_error(const struct filter *f)
{
	return f->error;
}

struct filter *
filter_new(void)
{
	return calloc(1, sizeof(struct filter));
}

static void
regex_list_release(struct regex_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->items[i].pattern);
		pcre2_match_data_free(l->items[i].md);
		pcre2_code_free(l->items[i].code);
	}
	free(l->items);
}

void
filter_free(struct filter *f)
{
	size_t i;

	if (f == NULL)
		return;
	filter_reset(f);
	regex_list_release(&f->names);
	regex_list_release(&f->cmdlines);
	idmap_release(&f->pids);
	idmap_release(&f->tids);
	for (i = 0; i < f->nproviders; i++)
		free(f->providers[i]);
	free(f->providers);
	free(f->sections);
	free(f->classes);
	free(f->pairq);
	buf_release(&f->pid_list);
	buf_release(&f->kept_defs);
	buf_release(&f->scope_procs);
	buf_release(&f->scope_pids);
	free(f);
}

/* ---- Options ---- */

static int
add_regex(struct filter *f, struct regex_list *l, const char *pattern,
    int icase)
{
	struct regex *items = realloc(l->items, (l->n + 1) * sizeof(*items));

	if (items == NULL)
		return set_error(f, "out of memory");
	l->items = items;
	memset(&items[l->n], 0, sizeof(items[l->n]));
	if ((items[l->n].pattern = strdup(pattern)) == NULL)
		return set_error(f, "out of memory");
	items[l->n++].icase = icase;
	return 0;
}

int
filter_add_process(struct filter *f, const char *regex)
{
	return add_regex(f, &f->names, regex, 0);
}

int
filter_add_cmdline(struct filter *f, const char *regex)
{
	return add_regex(f, &f->cmdlines, regex, 0);
}

int
filter_add_rustc(struct filter *f)
{
	f->flags |= FILTER_CHILDREN;
	return add_regex(f, &f->names, RUSTC_NAMES, 1);
}

void
filter_add_flags(struct filter *f, unsigned flags)
{
	f->flags |= flags;
}

/*
 * Calls add(f, item) for each item of a comma-separated list.
 * @return : 0, or -1 at the first item that add() refuses.
 */
static int
each_item(struct filter *f, const char *list,
    int (*add)(struct filter *, const char *))
{
	char item[64];
	const char *p = list;
	size_t span, len;

	for (;;) {
		span = strcspn(p, ",");
		len = span < sizeof(item) ? span : sizeof(item) - 1;
		memcpy(item, p, len);
		item[len] = '\0';
		if (add(f, item) != 0)
			return -1;
		p += span;
		if (*p++ == '\0')
			return 0;
	}
}

/* A whole decimal number that fits in 32 bits, into *v. */
static int
parse_u32(const char *s, uint32_t *v)
{
	uint64_t n = 0;

	if (*s == '\0')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((n = n * 10 + (uint64_t)(*s - '0')) > UINT32_MAX)
			return -1;
	*v = (uint32_t)n;
	return *s == '\0' ? 0 : -1;
}

static int
add_id(struct filter *f, struct idmap *set, const char *item,
    const char *what)
{
	uint32_t id;

	if (parse_u32(item, &id) != 0)
		return set_error(f, "bad %s '%s': not a number from 0 to %lu",
		    what, item, (unsigned long)UINT32_MAX);
	if (idmap_put(set, id, 1) != 0)
		return set_error(f, "out of memory");
	return 0;
}

static int
add_pid(struct filter *f, const char *item)
{
	uint32_t pid = 0;

	if (add_id(f, &f->pids, item, "pid") != 0)
		return -1;
	(void)parse_u32(item, &pid);
	buf_put(&f->pid_list, &pid, sizeof(pid));
	return f->pid_list.oom ? set_error(f, "out of memory") : 0;
}

static int
add_tid(struct filter *f, const char *item)
{
	return add_id(f, &f->tids, item, "tid");
}

int
filter_add_pids(struct filter *f, const char *list)
{
	return each_item(f, list, add_pid);
}

int
filter_add_tids(struct filter *f, const char *list)
{
	return each_item(f, list, add_tid);
}

static int
add_kind(struct filter *f, const char *item)
{
	int kind = stream_kind_by_name(item);

	if (strcmp(item, "stack") == 0)
		f->kind_stack = 1;
	else if (kind > 0 && kind < 32)
		f->kinds |= 1u << kind;
	else
		return set_error(f, "unknown kind '%s' (kinds: generic, "
		    "process, thread, image, sample, alloc, heap, heapsnap, "
		    "cswitch, ready, lost, query, stack)", item);
	return 0;
}

int
filter_add_kinds(struct filter *f, const char *list)
{
	return each_item(f, list, add_kind);
}

int
filter_add_provider(struct filter *f, const char *name)
{
	char **p = realloc(f->providers, (f->nproviders + 1) * sizeof(*p));
	size_t len = strlen(name);

	if (p == NULL)
		return set_error(f, "out of memory");
	f->providers = p;
	/* "{guid}" as the registry writes it: compare the GUID alone. */
	if (len == 38 && name[0] == '{' && name[37] == '}') {
		name++;
		len -= 2;
	}
	if ((p[f->nproviders] = malloc(len + 1)) == NULL)
		return set_error(f, "out of memory");
	memcpy(p[f->nproviders], name, len);
	p[f->nproviders++][len] = '\0';
	return 0;
}

static int
parse_bound(struct filter *f, const char *opt, const char *s,
    struct bound *b)
{
	char msg[SECONDS_MESSAGE_MAX];

	memset(b, 0, sizeof(*b));
	b->set = 1;
	/* A date starts with four digits and a dash; seconds never do. */
	if (strlen(s) > 4 && s[4] == '-' && s[0] != '-') {
		b->utc = 1;
		if (filter_parse_utc(s, &b->ticks) == 0)
			return 0;
	} else if (seconds_parse(s, &b->ns) == 0)
		return 0;
	return set_error(f, "%s, nor UTC as 2020-07-29T00:07:00.5Z",
	    seconds_message(msg, sizeof(msg), opt, s, SECONDS_WHAT));
}

int
filter_set_from(struct filter *f, const char *time)
{
	return parse_bound(f, "--from", time, &f->from);
}

int
filter_set_to(struct filter *f, const char *time)
{
	return parse_bound(f, "--to", time, &f->to);
}

static int
compile_one(struct filter *f, struct regex *re)
{
	uint32_t opts = PCRE2_UTF;
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE offset;
	int err;

#ifdef PCRE2_MATCH_INVALID_UTF
	/* Names come from the trace: do not let bad UTF-8 stop a match. */
	opts |= PCRE2_MATCH_INVALID_UTF;
#endif
	if (re->icase || (f->flags & FILTER_ICASE))
		opts |= PCRE2_CASELESS;
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	re->md = NULL;
	re->code = pcre2_compile((PCRE2_SPTR)re->pattern,
	    PCRE2_ZERO_TERMINATED, opts, &err, &offset, NULL);
	if (re->code == NULL) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		return set_error(f, "bad regex '%s': %s (at offset %lu)",
		    re->pattern, (const char *)msg, (unsigned long)offset);
	}
	re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
	if (re->md == NULL)
		return set_error(f, "out of memory");
	return 0;
}

static int
compile_list(struct filter *f, struct regex_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (compile_one(f, &l->items[i]) != 0)
			return -1;
	return 0;
}

int
filter_compile(struct filter *f)
{
	if (compile_list(f, &f->names) != 0)
		return -1;
	return compile_list(f, &f->cmdlines);
}

/* ---- Processes ---- */

/* Whether a process criterion is given at all. */
static int
by_process(const struct filter *f)
{
	return f->names.n > 0 || f->cmdlines.n > 0 || f->pids.count > 0;
}

int
filter_needs_scan(const struct filter *f)
{
	return f->names.n > 0 || f->cmdlines.n > 0 ||
	    (f->pids.count > 0 && (f->flags & FILTER_CHILDREN));
}

/* Whether any regex of a non-empty list matches s. */
static int
any_matches(const struct regex_list *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (pcre2_match(l->items[i].code, (PCRE2_SPTR)s, strlen(s), 0,
		    0, l->items[i].md, NULL) >= 0)
			return 1;
	return l->n == 0;
}

static int
pid_matches(const struct filter *f, uint32_t pid)
{
	uint32_t unused;

	return f->pids.count == 0 || idmap_get(&f->pids, pid, &unused);
}

/* Whether a process matches by its own definition. */
static int
own_match(const struct filter *f, const struct stream_process *p)
{
	return pid_matches(f, p->pid) && any_matches(&f->names, p->name) &&
	    any_matches(&f->cmdlines, p->cmdline);
}

void
filter_reset(struct filter *f)
{
	size_t i;

	for (i = 0; i < f->nsections; i++) {
		free(f->sections[i].procs);
		idmap_release(&f->sections[i].first);
	}
	f->nsections = 0;
	f->cur = 0;
	f->final = 0;
	f->walk_start = 0;
}

static int
new_section(struct filter *f)
{
	if (f->nsections == f->sections_cap) {
		size_t cap = f->sections_cap ? f->sections_cap * 2 : 4;
		struct section *s = realloc(f->sections, cap * sizeof(*s));

		if (s == NULL)
			return -1;
		f->sections = s;
		f->sections_cap = cap;
	}
	memset(&f->sections[f->nsections++], 0, sizeof(struct section));
	return 0;
}

/*
 * Notes what PROCESS `id` says.  A second definition of an id in the
 * section (no tool writes one) leaves the first one's note: a verdict
 * given in one pass must not change with what comes later.
 */
static int
note_process(struct filter *f, const struct stream_reader *r,
    const struct stream_process *p)
{
	struct section *s = &f->sections[f->nsections - 1];
	const struct stream_process *parent;
	struct proc_note *n;
	uint32_t first;

	if (p->id == 0)
		return 0;
	if (array_slot(&s->procs, &s->cap, p->id, sizeof(*s->procs)) == NULL)
		return -1;
	if (!idmap_get(&s->first, p->pid, &first) &&
	    idmap_put(&s->first, p->pid, p->id) != 0)
		return -1;
	n = &s->procs[p->id];
	if (n->flags & NOTE_DEFINED)
		return 0;
	memset(n, 0, sizeof(*n));
	n->flags = NOTE_DEFINED | (own_match(f, p) ? NOTE_OWN : 0);
	n->start_ns = p->start_ns;
	n->ppid = p->ppid;
	/* The reader already maps pid to this definition. */
	if (p->ppid == p->pid || p->ppid == PID_NONE)
		return 0;
	if ((parent = stream_process_by_pid(r, p->ppid)) != NULL)
		n->parent = parent->id;
	else
		n->flags |= NOTE_PENDING;
	return 0;
}

int
filter_scan(struct filter *f, const struct stream_reader *r,
    const struct stream_record *rec)
{
	if (rec->type == REC_HEADER)
		return new_section(f);
	if (rec->type == REC_PROCESS && f->nsections > 0)
		return note_process(f, r, &rec->u.process);
	return 0;
}

/* The parent of process `id` as the whole section shows it; 0 if none. */
static stream_id
parent_of(const struct section *s, stream_id id)
{
	const struct proc_note *n = &s->procs[id];
	stream_id parent = n->parent;
	uint32_t first;

	if (n->flags & NOTE_PENDING)
		parent = idmap_get(&s->first, n->ppid, &first) ? first : 0;
	if (parent == id || parent >= s->cap ||
	    !(s->procs[parent].flags & NOTE_DEFINED))
		return 0;
	/* A process started after the child is a later user of the pid. */
	if (n->start_ns != INT64_MIN && s->procs[parent].start_ns != INT64_MIN &&
	    s->procs[parent].start_ns > n->start_ns)
		return 0;
	return parent;
}

/*
 * Decides process `id`: it matches if it or an ancestor matches on its
 * own.  Walks up to the first decided or matching process, then gives
 * the answer to the whole path; a cycle (bad data) matches nothing more.
 */
static void
resolve_match(struct section *s, stream_id id)
{
	stream_id x = id;
	int match = 0;

	for (;;) {
		unsigned char fl = s->procs[x].flags;

		if (fl & (NOTE_DONE | NOTE_VISITING)) {
			match = (fl & NOTE_DONE) && (fl & NOTE_MATCH);
			break;
		}
		s->procs[x].flags |= NOTE_VISITING;
		if (fl & NOTE_OWN) {
			match = 1;
			break;
		}
		if ((x = s->procs[x].parent) == 0)
			break;
	}
	for (x = id; x != 0 && (s->procs[x].flags & NOTE_VISITING);
	    x = s->procs[x].parent) {
		s->procs[x].flags &= ~NOTE_VISITING;
		s->procs[x].flags |= NOTE_DONE | (match ? NOTE_MATCH : 0);
	}
}

/*
 * Gives every process its verdict, as the whole section shows it; the
 * one pass has settled some parents and decided some processes already,
 * as this would have.
 */
static void
resolve_section(const struct filter *f, struct section *s)
{
	stream_id id;

	for (id = 1; id < s->cap; id++)
		if ((s->procs[id].flags & (NOTE_DEFINED | NOTE_SETTLED)) ==
		    NOTE_DEFINED) {
			s->procs[id].parent = (f->flags & FILTER_CHILDREN) ?
			    parent_of(s, id) : 0;
			s->procs[id].flags &= ~NOTE_PENDING;
			s->procs[id].flags |= NOTE_SETTLED;
		}
	for (id = 1; id < s->cap; id++)
		if (s->procs[id].flags & NOTE_DEFINED)
			resolve_match(s, id);
	s->resolved = 1;
}

/* Whether the events of `pid` at this point belong to a match. */
static int
process_matches(struct filter *f, const struct stream_reader *r, uint32_t pid)
{
	const struct stream_process *p;
	struct section *s;
	uint32_t id;

	if (!by_process(f))
		return 1;
	if (!filter_needs_scan(f))
		return pid_matches(f, pid);
	if (f->cur == 0 || f->cur > f->nsections)
		return 0;	/* the input was not scanned */
	s = &f->sections[f->cur - 1];
	if (pid == PID_NONE)
		id = 0;	/* no process, whatever a definition says */
	else if ((p = stream_process_by_pid(r, pid)) != NULL)
		id = p->id;
	else if (!idmap_get(&s->first, pid, &id))
		id = 0;
	if (id == 0 || id >= s->cap)
		/* Never defined: only a pid can match it. */
		return f->names.n == 0 && f->cmdlines.n == 0 &&
		    pid_matches(f, pid);
	return (s->procs[id].flags & NOTE_MATCH) != 0;
}

/* ---- The second pass ---- */

/* Sets the window for a section; UTC bounds wait for its TRACE. */
static void
set_window(struct filter *f, const struct stream_trace *t)
{
	int utc = (f->from.set && f->from.utc) || (f->to.set && f->to.utc);

	f->window_known = !utc || (t != NULL && t->start_utc != 0);
	if (!f->window_known)
		return;
	f->from_ns = !f->from.set ? INT64_MIN : f->from.utc ?
	    filter_ticks_to_ns(f->from.ticks, t->start_utc) : f->from.ns;
	f->to_ns = !f->to.set ? INT64_MAX : f->to.utc ?
	    filter_ticks_to_ns(f->to.ticks, t->start_utc) : f->to.ns;
}

/* Forgets the classes and the window of the section before. */
static void
clear_section_state(struct filter *f)
{
	if (f->classes != NULL)
		memset(f->classes, 0, f->classes_cap);
	set_window(f, NULL);
}

/*
 * Criteria of pids alone judge events by pid: the section's processes
 * of those pids are noted for the SCOPE record.
 */
static int
note_kept_def(struct filter *f, const struct stream_process *p)
{
	uint32_t id = p->id;

	if (filter_needs_scan(f) || f->pids.count == 0 || id == 0 ||
	    !pid_matches(f, p->pid))
		return 0;
	buf_put(&f->kept_defs, &id, sizeof(id));
	return f->kept_defs.oom ? -1 : 0;
}

static void
enter_section(struct filter *f)
{
	f->kept_defs.len = 0;
	f->cur++;
	if (f->cur <= f->nsections && !f->sections[f->cur - 1].resolved)
		resolve_section(f, &f->sections[f->cur - 1]);
	clear_section_state(f);
}

static int
ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether a and b are the same text, ASCII letters in any case. */
static int
same_text(const char *a, const char *b)
{
	for (; *a != '\0' && ascii_lower(*a) == ascii_lower(*b); a++, b++)
		;
	return *a == '\0' && *b == '\0';
}

static int
provider_matches(const struct filter *f, const struct stream_class *c)
{
	char guid[37];
	size_t i;

	value_format_guid(c->guid, guid);
	for (i = 0; i < f->nproviders; i++)
		if (same_text(f->providers[i], c->provider) ||
		    same_text(f->providers[i], guid))
			return 1;
	return 0;
}

static int
note_class(struct filter *f, const struct stream_class *c)
{
	if (f->nproviders == 0 || c->id == 0)
		return 0;
	if (c->id >= f->classes_cap) {
		size_t cap = f->classes_cap ? f->classes_cap : 256;
		unsigned char *v;

		while (cap <= c->id)
			cap *= 2;
		if ((v = realloc(f->classes, cap)) == NULL)
			return -1;
		memset(v + f->classes_cap, 0, cap - f->classes_cap);
		f->classes = v;
		f->classes_cap = cap;
	}
	f->classes[c->id] = (unsigned char)provider_matches(f, c);
	return 0;
}

/*
 * Whether events of this kind carry state into a window: the schedule,
 * VirtualAlloc, lifetimes and losses are kept outside it as context, so
 * that the window's views see the state at its start (etl-stream(5)).
 */
static int
carries_state(unsigned kind)
{
	return kind == EV_CSWITCH || kind == EV_READY || kind == EV_VMEM ||
	    kind == EV_PROCESS || kind == EV_THREAD || kind == EV_IMAGE ||
	    kind == EV_LOST;
}

/* Whether an event meets the criteria other than its process's. */
static int
head_matches(const struct filter *f, const struct stream_event_head *h)
{
	uint32_t unused;

	if ((f->kinds != 0 || f->kind_stack) &&
	    !(h->kind < 32 && (f->kinds >> h->kind & 1)) &&
	    !(f->kind_stack && h->stack != 0))
		return 0;
	if (f->tids.count > 0 && !idmap_get(&f->tids, h->tid, &unused))
		return 0;
	if (f->nproviders > 0 &&
	    (h->cls >= f->classes_cap || !f->classes[h->cls]))
		return 0;
	if ((f->from.set || f->to.set) && (!f->window_known ||
	    h->ts < f->from_ns || h->ts >= f->to_ns) && !carries_state(h->kind))
		return 0;
	return 1;
}

/*
 * The other process of an event with two sides: the thread switched
 * out of a context switch, the thread readied by a ready event (the
 * head names the one switched in, the readying one).
 */
static int
other_pid(const struct filter *f, const struct stream_event *ev,
    uint32_t *pid)
{
	const struct value *v;

	if (!by_process(f) ||
	    (ev->h.kind != EV_CSWITCH && ev->h.kind != EV_READY))
		return 0;
	v = stream_event_field(ev, ev->h.kind == EV_CSWITCH ? "old_pid" :
	    "readied_pid");
	if (v == NULL || (v->type != VAL_U64 && v->type != VAL_I64 &&
	    v->type != VAL_HEX))
		return 0;
	*pid = (uint32_t)v->v.u;
	return 1;
}

/*
 * Lifetimes of every process and thread stay as context under process
 * criteria: they say which instance an id of a kept event names.
 */
static int
lifetime(const struct filter *f, const struct stream_event *ev)
{
	const struct stream_event_head *h = &ev->h;

	if (!by_process(f))
		return 0;
	if (h->kind == EV_PROCESS || h->kind == EV_THREAD)
		return 1;
	/*
	 * Compact switches: the ready events of such a trace do not name
	 * the readying thread, which is then the one running on the
	 * processor (etl-events-2.md 3.2), so every switch stays to say it.
	 */
	return h->kind == EV_CSWITCH &&
	    stream_event_field(ev, "compact") != NULL;
}

/*
 * Two passes: an event is kept if either of its sides is (filter.h);
 * -v turns each side round, not the whole.
 */
static int
event_matches(struct filter *f, const struct stream_reader *r,
    const struct stream_event *ev)
{
	int inv = (f->flags & FILTER_INVERT) != 0;
	uint32_t other;

	if (!head_matches(f, &ev->h))
		return inv;
	if (lifetime(f, ev) ||
	    (process_matches(f, r, ev->h.pid) ^ inv))
		return 1;
	return other_pid(f, ev, &other) &&
	    (process_matches(f, r, other) ^ inv);
}

int
filter_record(struct filter *f, const struct stream_reader *r,
    const struct stream_record *rec)
{
	switch (rec->type) {
	case REC_HEADER:
		enter_section(f);
		break;
	case REC_TRACE:
		set_window(f, &rec->u.trace);
		break;
	case REC_CLASS:
		if (note_class(f, &rec->u.cls) != 0)
			return -1;
		break;
	case REC_PROCESS:
		if (note_kept_def(f, &rec->u.process) != 0)
			return -1;
		break;
	case REC_EVENT:
		return event_matches(f, r, &rec->u.event);
	default:
		break;
	}
	return 1;
}

/* ---- One pass ---- */

/* A ticket names a PROCESS id with this bit, else a pid. */
#define TICKET_PROCESS (1ull << 32)
/* Both sides of a held switch or ready wait: the second is in pairq. */
#define TICKET_PAIR (1ull << 33)

/* A new section: the notes of the one before go. */
static int
onepass_enter(struct filter *f)
{
	filter_reset(f);
	if (new_section(f) != 0)
		return -1;
	f->cur = 1;
	f->sections[0].resolved = 1;	/* by filter_section_end() */
	f->pq_head = f->pq_len = 0;
	f->kept_defs.len = 0;
	f->onepass = 1;
	clear_section_state(f);
	return 1;
}

/*
 * Settles the parent of process `x` (parent_of()) once the process its
 * ppid denotes is defined.  @return : 0, or -1 while the first
 * definition of the ppid may still come.
 */
static int
settle_parent(const struct filter *f, struct section *s, stream_id x)
{
	struct proc_note *n = &s->procs[x];
	uint32_t first;

	if (n->flags & NOTE_SETTLED)
		return 0;
	if ((n->flags & NOTE_PENDING) && !f->final &&
	    !idmap_get(&s->first, n->ppid, &first))
		return -1;
	n->parent = parent_of(s, x);
	n->flags = (n->flags & ~NOTE_PENDING) | NOTE_SETTLED;
	return 0;
}

/* Gives the processes from `from` up to `to` their verdict. */
static void
mark_path(struct section *s, stream_id from, stream_id to, int match)
{
	for (;; from = s->procs[from].parent) {
		if (!(s->procs[from].flags & NOTE_DONE))
			s->procs[from].flags |= NOTE_DONE |
			    (match ? NOTE_MATCH : 0);
		if (from == to)
			return;
	}
}

/*
 * Decides process `start` as resolve_match() will with the whole
 * section, as soon as the notes so far allow: walks up its parents to
 * a decided process, one that matches on its own, one without a
 * parent, or one already on the way (a cycle).  A parent not defined
 * yet stops the walk: @return FILTER_WAIT, and the next call for
 * `start` goes on from there, so that no process is walked over twice
 * while the first held event waits.  Else @return 1 or 0.
 */
static int
walk(struct filter *f, struct section *s, stream_id start)
{
	struct proc_note *n;
	stream_id x;
	int match;

	if (f->walk_start != start) {
		f->walk_start = f->walk_at = start;
		if (++f->epoch == 0) {
			for (x = 0; x < s->cap; x++)
				s->procs[x].seen = 0;
			f->epoch = 1;
		}
	}
	for (x = f->walk_at;; x = n->parent) {
		n = &s->procs[x];
		n->seen = f->epoch;
		if (n->flags & (NOTE_DONE | NOTE_OWN)) {
			match = !(n->flags & NOTE_DONE) ||
			    (n->flags & NOTE_MATCH);
			break;
		}
		if (settle_parent(f, s, x) != 0) {
			f->walk_at = x;
			return FILTER_WAIT;
		}
		if (n->parent == 0 || s->procs[n->parent].seen == f->epoch) {
			match = 0;
			break;
		}
	}
	mark_path(s, start, x, match);
	f->walk_start = 0;
	return match;
}

/* The verdict on process `id` (defined), or FILTER_WAIT. */
static int
decide(struct filter *f, struct section *s, stream_id id, int may_walk)
{
	unsigned char fl;

	if (id >= s->cap)
		return 0;	/* never: a definition gets a note */
	fl = s->procs[id].flags;
	if (fl & NOTE_DONE)
		return (fl & NOTE_MATCH) != 0;
	if (!(f->flags & FILTER_CHILDREN))
		return (fl & NOTE_OWN) != 0;
	return may_walk ? walk(f, s, id) : FILTER_WAIT;
}

/* A verdict as given out: -v turns a match round, not a wait. */
static int
verdict(const struct filter *f, int v)
{
	if (v == FILTER_WAIT)
		return v;
	return v ^ ((f->flags & FILTER_INVERT) != 0);
}

/*
 * One side of an event in one pass: whether process `pid` matches (-v
 * not applied), or FILTER_WAIT with *ticket for side_held().
 */
static int
side_next(struct filter *f, const struct stream_reader *r, uint32_t pid,
    int holding, uint64_t *ticket)
{
	const struct stream_process *p;
	struct section *s;
	uint32_t id;

	if (!filter_needs_scan(f))
		return process_matches(f, r, pid);
	if (f->nsections == 0)
		return 0;
	s = &f->sections[f->nsections - 1];
	if (pid == PID_NONE)
		return f->names.n == 0 && f->cmdlines.n == 0 &&
		    pid_matches(f, pid);
	if ((p = stream_process_by_pid(r, pid)) != NULL)
		id = p->id;
	else if (!idmap_get(&s->first, pid, &id)) {
		*ticket = pid;
		return FILTER_WAIT;
	}
	*ticket = TICKET_PROCESS | id;
	return decide(f, s, id, !holding);
}

/* The verdict on two sides: kept if either is, after -v. */
static int
either(const struct filter *f, int a, int b)
{
	int inv = (f->flags & FILTER_INVERT) != 0;

	if (a != FILTER_WAIT)
		a ^= inv;
	if (b != FILTER_WAIT)
		b ^= inv;
	if (a == 1 || b == 1)
		return 1;
	return a == 0 && b == 0 ? 0 : FILTER_WAIT;
}

/* Holds the second side's ticket of a held pair, in order. */
static int
pair_push(struct filter *f, uint64_t ticket)
{
	if (f->pq_len == f->pq_cap) {
		size_t cap = f->pq_cap ? f->pq_cap * 2 : 64, i;
		uint64_t *q = malloc(cap * sizeof(*q));

		if (q == NULL)
			return -1;
		for (i = 0; i < f->pq_len; i++)
			q[i] = f->pairq[(f->pq_head + i) % f->pq_cap];
		free(f->pairq);
		f->pairq = q;
		f->pq_cap = cap;
		f->pq_head = 0;
	}
	f->pairq[(f->pq_head + f->pq_len++) % f->pq_cap] = ticket;
	return 0;
}

int
filter_next(struct filter *f, const struct stream_reader *r,
    const struct stream_record *rec, int holding, uint64_t *ticket)
{
	const struct stream_event_head *h = &rec->u.event.h;
	uint64_t ta = 0, tb = 0;
	uint32_t other;
	int a, b, v;

	switch (rec->type) {
	case REC_HEADER:
		return onepass_enter(f);
	case REC_PROCESS:
		if (filter_needs_scan(f) && f->nsections > 0 &&
		    note_process(f, r, &rec->u.process) != 0)
			return -1;
		return note_kept_def(f, &rec->u.process) != 0 ? -1 : 1;
	case REC_EVENT:
		break;
	default:
		return filter_record(f, r, rec);
	}
	if (!head_matches(f, h))
		return verdict(f, 0);
	if (lifetime(f, &rec->u.event))
		return 1;
	a = side_next(f, r, h->pid, holding, &ta);
	if (!other_pid(f, &rec->u.event, &other)) {
		*ticket = ta;
		return verdict(f, a);
	}
	if (a != FILTER_WAIT && (a ^ ((f->flags & FILTER_INVERT) != 0)))
		return 1;
	b = side_next(f, r, other, holding, &tb);
	if ((v = either(f, a, b)) != FILTER_WAIT)
		return v;
	if (a == FILTER_WAIT && b == FILTER_WAIT) {
		if (pair_push(f, tb) != 0)
			return -1;
		*ticket = TICKET_PAIR | ta;
	} else
		*ticket = a == FILTER_WAIT ? ta : tb;
	return FILTER_WAIT;
}

/* A held side: whether it matches (-v not applied), or FILTER_WAIT. */
static int
side_held(struct filter *f, struct section *s, uint64_t ticket)
{
	uint32_t id, pid = (uint32_t)ticket;

	if (ticket & TICKET_PROCESS)
		id = (uint32_t)ticket;
	else if (!idmap_get(&s->first, pid, &id)) {
		if (!f->final)
			return FILTER_WAIT;
		/* Never defined: only a pid can match it. */
		return f->names.n == 0 && f->cmdlines.n == 0 &&
		    pid_matches(f, pid);
	}
	return decide(f, s, id, 1);
}

int
filter_held(struct filter *f, uint64_t ticket)
{
	struct section *s;
	int v;

	if (f->nsections == 0)
		return verdict(f, 0);
	s = &f->sections[f->nsections - 1];
	if (!(ticket & TICKET_PAIR))
		return verdict(f, side_held(f, s, ticket));
	v = either(f, side_held(f, s, ticket & ~TICKET_PAIR),
	    f->pq_len > 0 ? side_held(f, s, f->pairq[f->pq_head]) : 0);
	if (v != FILTER_WAIT && f->pq_len > 0) {
		f->pq_head = (f->pq_head + 1) % f->pq_cap;
		f->pq_len--;
	}
	return v;
}

void
filter_section_end(struct filter *f)
{
	if (f->nsections > 0)
		resolve_section(f, &f->sections[f->nsections - 1]);
	f->final = 1;
	f->walk_start = 0;
}

/* ---- What the output says it holds (REC_SCOPE) ---- */

int
filter_scope_window(const struct filter *f, struct stream_scope *sc)
{
	if (!(f->from.set || f->to.set) || !f->window_known)
		return 0;
	memset(sc, 0, sizeof(*sc));
	sc->what = SCOPE_WINDOW;
	sc->from_ns = f->from.set ? f->from_ns : INT64_MIN;
	sc->to_ns = f->to.set ? f->to_ns : INT64_MAX;
	return 1;
}

static int
put_id(struct buf *b, uint32_t id)
{
	unsigned char le[4] = { id & 0xff, id >> 8 & 0xff, id >> 16 & 0xff,
	    id >> 24 };

	buf_put(b, le, sizeof(le));
	return b->oom ? -1 : 0;
}

/* The PROCESS ids that match in the section, as little-endian items. */
static int
matching_procs(struct filter *f, struct buf *out)
{
	struct section *s;
	const uint32_t *ids;
	size_t i, n;

	if (!filter_needs_scan(f)) {
		ids = (const uint32_t *)f->kept_defs.data;
		n = f->kept_defs.len / sizeof(*ids);
		for (i = 0; i < n; i++)
			if (put_id(out, ids[i]) != 0)
				return -1;
		return 0;
	}
	if (f->cur == 0 || f->cur > f->nsections)
		return 0;
	s = &f->sections[f->cur - 1];
	if (f->onepass)
		filter_section_end(f);	/* decides who was never asked */
	for (i = 1; i < s->cap; i++)
		if ((s->procs[i].flags & (NOTE_DEFINED | NOTE_MATCH)) ==
		    (NOTE_DEFINED | NOTE_MATCH) && put_id(out, (uint32_t)i) != 0)
			return -1;
	return 0;
}

int
filter_scope_kept(struct filter *f, struct stream_scope *sc)
{
	const uint32_t *pids = (const uint32_t *)f->pid_list.data;
	size_t i, n = f->pid_list.len / sizeof(*pids);

	if (!by_process(f))
		return 0;
	f->scope_procs.len = f->scope_pids.len = 0;
	if (matching_procs(f, &f->scope_procs) != 0)
		return -1;
	/* Pids never defined match by pid alone, without regexes. */
	if (f->names.n == 0 && f->cmdlines.n == 0)
		for (i = 0; i < n; i++)
			if (put_id(&f->scope_pids, pids[i]) != 0)
				return -1;
	memset(sc, 0, sizeof(*sc));
	sc->what = SCOPE_KEPT;
	sc->except = (f->flags & FILTER_INVERT) != 0;
	sc->nprocs = (uint32_t)(f->scope_procs.len / 4);
	sc->procs = f->scope_procs.data;
	sc->npids = (uint32_t)(f->scope_pids.len / 4);
	sc->pids = f->scope_pids.data;
	return 1;
}
