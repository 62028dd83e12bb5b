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

#include "base/buf.h"
#include "base/idmap.h"
#include "base/seconds.h"
#include "filter_state.h"
#include "filter_time.h"

/*
 * --rustc: the programs of a Rust build.  Always without regard to case,
 * as Windows file names are; ".exe" is optional for traces of other
 * systems.
 */
#define RUSTC_NAMES \
	"^(rustc|cargo|link|lld-link|rustdoc|build-script-build.*)(\\.exe)?$"

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

/* Adds the number `item` to `set`, and gives it in *id. */
static int
add_id(struct filter *f, struct idmap *set, const char *item,
    const char *what, uint32_t *id)
{
	if (parse_u32(item, id) != 0)
		return set_error(f, "bad %s '%s': not a number from 0 to %lu",
		    what, item, (unsigned long)UINT32_MAX);
	if (idmap_put(set, *id, 1) != 0)
		return set_error(f, "out of memory");
	return 0;
}

static int
add_pid(struct filter *f, const char *item)
{
	uint32_t pid;

	if (add_id(f, &f->pids, item, "pid", &pid) != 0)
		return -1;
	buf_put(&f->pid_list, &pid, sizeof(pid));
	return f->pid_list.oom ? set_error(f, "out of memory") : 0;
}

static int
add_tid(struct filter *f, const char *item)
{
	uint32_t tid;

	return add_id(f, &f->tids, item, "tid", &tid);
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
int
filter_by_process(const struct filter *f)
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

int
filter_pid_matches(const struct filter *f, uint32_t pid)
{
	uint32_t unused;

	return f->pids.count == 0 || idmap_get(&f->pids, pid, &unused);
}

/* Whether a process matches by its own definition. */
static int
own_match(const struct filter *f, const struct stream_process *p)
{
	return filter_pid_matches(f, p->pid) && any_matches(&f->names, p->name) &&
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

int
filter_new_section(struct filter *f)
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
int
filter_note_process(struct filter *f, const struct stream_reader *r,
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
	if (p->start_ns == INT64_MIN && s->rundown != RUNDOWN_OVER)
		n->flags |= NOTE_EARLY;
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
		return filter_new_section(f);
	if (rec->type == REC_PROCESS && f->nsections > 0)
		return filter_note_process(f, r, &rec->u.process);
	filter_note_rundown(f, rec);
	return 0;
}

void
filter_note_rundown(struct filter *f, const struct stream_record *rec)
{
	const struct stream_event_head *h = &rec->u.event.h;
	struct section *s;

	if (rec->type != REC_EVENT || f->nsections == 0 ||
	    (h->kind != EV_PROCESS && h->kind != EV_THREAD &&
	    h->kind != EV_IMAGE))
		return;
	s = &f->sections[f->nsections - 1];
	if (h->op == EVOP_DCSTART && s->rundown == RUNDOWN_NONE)
		s->rundown = RUNDOWN_IN;
	else if (h->op != EVOP_DCSTART && s->rundown == RUNDOWN_IN)
		s->rundown = RUNDOWN_OVER;
}

/* The parent of process `id` as the whole section shows it; 0 if none. */
stream_id
filter_parent_of(const struct section *s, stream_id id)
{
	const struct proc_note *n = &s->procs[id];
	stream_id parent = n->parent;
	uint32_t first;

	/*
	 * A parent defined after its child: without a rundown, processes
	 * are defined when they end, parents after their children; with
	 * one, only a process of the rundown (which may list a child before
	 * its parent) can be, since a process alive at the child's start is
	 * in the rundown or started before the child.
	 */
	if (n->flags & NOTE_PENDING)
		parent = idmap_get(&s->first, n->ppid, &first) &&
		    (s->rundown == RUNDOWN_NONE ||
		    (s->procs[first].flags & NOTE_EARLY)) ? first : 0;
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
void
filter_resolve_section(const struct filter *f, struct section *s)
{
	stream_id id;

	for (id = 1; id < s->cap; id++)
		if ((s->procs[id].flags & (NOTE_DEFINED | NOTE_SETTLED)) ==
		    NOTE_DEFINED) {
			s->procs[id].parent = (f->flags & FILTER_CHILDREN) ?
			    filter_parent_of(s, id) : 0;
			s->procs[id].flags &= ~NOTE_PENDING;
			s->procs[id].flags |= NOTE_SETTLED;
		}
	for (id = 1; id < s->cap; id++)
		if (s->procs[id].flags & NOTE_DEFINED)
			resolve_match(s, id);
	s->resolved = 1;
}

/* Whether the events of `pid` at this point belong to a match. */
int
filter_process_matches(struct filter *f, const struct stream_reader *r, uint32_t pid)
{
	const struct stream_process *p;
	struct section *s;
	uint32_t id;

	if (!filter_by_process(f))
		return 1;
	if (!filter_needs_scan(f))
		return filter_pid_matches(f, pid);
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
		    filter_pid_matches(f, pid);
	return (s->procs[id].flags & NOTE_MATCH) != 0;
}

/* ---- The second pass ---- */

/*
 * Sets the window for a section; UTC bounds wait for its TRACE.  A
 * rustc self-profile is kept whole: its times are on its own clock, and
 * the join that places it on the trace's (etl-stream(5), "Joining
 * Self-Profiles to a Trace") needs all its queries to find its threads;
 * the views cut its rows to the trace's window.
 */
static void
set_window(struct filter *f, const struct stream_trace *t)
{
	int utc = (f->from.set && f->from.utc) || (f->to.set && f->to.utc);

	f->whole = t != NULL && t->format != NULL &&
	    strcmp(t->format, "mm_profdata") == 0;
	if (f->whole) {
		f->window_known = 1;
		f->from_ns = INT64_MIN;
		f->to_ns = INT64_MAX;
		return;
	}
	f->window_known = !utc || (t != NULL && t->start_utc != 0);
	if (!f->window_known)
		return;
	f->from_ns = !f->from.set ? INT64_MIN : f->from.utc ?
	    filter_ticks_to_ns(f->from.ticks, t->start_utc) : f->from.ns;
	f->to_ns = !f->to.set ? INT64_MAX : f->to.utc ?
	    filter_ticks_to_ns(f->to.ticks, t->start_utc) : f->to.ns;
}

/* Forgets the classes and the window of the section before. */
void
filter_clear_section_state(struct filter *f)
{
	if (f->classes != NULL)
		memset(f->classes, 0, f->classes_cap);
	set_window(f, NULL);
}

/*
 * Criteria of pids alone judge events by pid: the section's processes
 * of those pids are noted for the SCOPE record.
 */
int
filter_note_kept_def(struct filter *f, const struct stream_process *p)
{
	uint32_t id = p->id;

	if (filter_needs_scan(f) || f->pids.count == 0 || id == 0 ||
	    !filter_pid_matches(f, p->pid))
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
		filter_resolve_section(f, &f->sections[f->cur - 1]);
	filter_clear_section_state(f);
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
int
filter_head_matches(const struct filter *f, const struct stream_event_head *h)
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
int
filter_other_pid(const struct filter *f, const struct stream_event *ev,
    uint32_t *pid)
{
	const struct value *v;

	if (!filter_by_process(f) ||
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
int
filter_lifetime(const struct filter *f, const struct stream_event *ev)
{
	const struct stream_event_head *h = &ev->h;

	if (!filter_by_process(f))
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

	if (!filter_head_matches(f, &ev->h))
		return inv;
	if (filter_lifetime(f, ev) ||
	    (filter_process_matches(f, r, ev->h.pid) ^ inv))
		return 1;
	return filter_other_pid(f, ev, &other) &&
	    (filter_process_matches(f, r, other) ^ inv);
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
		if (filter_note_kept_def(f, &rec->u.process) != 0)
			return -1;
		break;
	case REC_EVENT:
		return event_matches(f, r, &rec->u.event);
	default:
		break;
	}
	return 1;
}

