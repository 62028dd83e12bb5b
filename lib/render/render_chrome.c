/*
 * render_chrome.c - "etlreport -f chrome": the Chrome trace event JSON
 * that measureme's crox writes (measureme-format.md section 11), which
 * chrome://tracing, Perfetto and speedscope load.
 *
 * One JSON array.  Each rustc interval, in stream order, is a complete
 * event {"name","cat","ph":"X","ts","dur","pid","tid","args"}: name the
 * label, cat the kind, ts and dur in whole microseconds (ts since the
 * Unix epoch), args null or {"arg0": ...}.  After each profile come its
 * process_name (the --crate-name of its command line, if any) and
 * process_sort_index (its start in microseconds) metadata records.
 * Instants and integer events are left out, as crox leaves them out.
 * Strings are escaped as serde_json escapes them.
 *
 * The rows of a timeline table (etlagg timeline) become complete events
 * too, a thread's states as slices on its lane: name the state (and the
 * wait reason), cat "thread state", ts and dur in whole microseconds from
 * the trace's start, pid and tid the thread's, args the processor, or
 * how the thread went out and who readied it; and before a process's
 * first, its process_name (the table's label of the instance) and each
 * thread's thread_name.  rustc's queries (rows of kind query, from the
 * self-profiles joined to the trace) are nested slices on a lane of
 * their own beside their thread's, named "Thread (tid) queries".
 *
 * The elements are made in a buffer and written a block at a time: with
 * putc() a character and fprintf() an element, writing was four fifths
 * of the time etlreport took over a profile's stream.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/seconds.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "mmprof/mmprof_decode.h"
#include "out/out_json.h"
#include "render.h"

#define FILETIME_UNIX_EPOCH 116444736000000000ULL
#define CRATE_NAME_MAX	256
#define PROCESSES_MAX	64	/* processes of one section given names */
#define FLUSH_AT	(64u << 10)	/* bytes buffered before a write */

/* The columns of etlagg timeline that become an event's parts. */
enum {
	TL_PROCESS, TL_PID, TL_TID, TL_STATE, TL_START, TL_END, TL_CPU,
	TL_OUT_STATE, TL_REASON, TL_RTID, TL_RPID, TL_RIMAGE, TL_KIND,
	TL_SAMPLES, TL_STACK, TL_COMMIT, TL_QUERY, TL_DEPTH, TL_NCOLS
};
static const char *const tl_names[TL_NCOLS] = {
	"process", "pid", "tid", "state", "start", "end", "cpu", "out_state",
	"wait_reason", "readying_tid", "readying_pid", "readying_image",
	"kind", "samples", "stack", "commit_bytes", "query", "query_depth"
};

/*
 * The lane of a thread's queries: beside its states, which do not nest
 * with them.  Chrome's lanes are 32-bit numbers (Perfetto reads them
 * so), and Windows numbers its threads by fours from small values, so
 * the high bit gives a lane no thread has.
 */
#define QUERY_LANE	0x80000000u
#define OTHER_LIFE	QUERY_LANE	/* the same bit, for pids */

struct process {
	uint32_t pid;
	char crate[CRATE_NAME_MAX];	/* "" if the command line has none */
};

struct render {
	FILE *fp;
	struct query_input in;
	int64_t epoch_ns;	/* the section's trace start, Unix ns */
	int profile;		/* the section is a profile, or has queries */
	struct process procs[PROCESSES_MAX];
	size_t nprocs;
	uint64_t records;	/* array elements written */
	struct buf out;		/* what is not yet written */
	/* A timeline table: its id, and the index of each column used. */
	stream_id timeline;
	int col[TL_NCOLS];
	/*
	 * The lives of the processes: (pid, label) -> an id, and by pid
	 * its first life's.  Later lives of a pid get a Chrome pid of their
	 * own, the id above the pid's 32 bits, so their lanes do not merge.
	 */
	struct intern lives;
	struct idmap first_life;
	struct intern named;	/* (Chrome pid, tid or -1) named */
};

static struct render *
chrome_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)format;
	(void)opt;
	if (rd != NULL)
		rd->fp = fp;
	return rd;
}

/* A string literal, without its NUL. */
#define put_lit(b, lit)	buf_put((b), (lit), sizeof(lit) - 1)

static void
put_cstr(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* A number in decimal, as printf's %lld would write it. */
static void
put_i64(struct buf *b, int64_t v)
{
	static const char pairs[] =
	    "00010203040506070809101112131415161718192021222324252627282930"
	    "31323334353637383940414243444546474849505152535455565758596061"
	    "62636465666768697071727374757677787980818283848586878889909192"
	    "93949596979899";
	char digits[24];
	size_t n = sizeof(digits);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	while (u >= 100) {
		n -= 2;
		memcpy(digits + n, pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		n -= 2;
		memcpy(digits + n, pairs + 2 * u, 2);
	} else
		digits[--n] = (char)('0' + u);
	if (v < 0)
		digits[--n] = '-';
	buf_put(b, digits + n, sizeof(digits) - n);
}

/* Writes what is buffered.  @return : 0, or -1 on a write error. */
static int
flush(struct render *rd)
{
	if (rd->out.oom)
		return -1;
	if (rd->out.len > 0 &&
	    fwrite(rd->out.data, 1, rd->out.len, rd->fp) != rd->out.len)
		return -1;
	rd->out.len = 0;
	return ferror(rd->fp) ? -1 : 0;
}

/* Starts an array element. */
static void
element(struct render *rd)
{
	put_cstr(&rd->out, rd->records++ == 0 ? "[\n" : ",\n");
}

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}


static int64_t
sub_sat(int64_t a, int64_t b)
{
	if (b < 0 && a > INT64_MAX + b)
		return INT64_MAX;
	if (b > 0 && a < INT64_MIN + b)
		return INT64_MIN;
	return a - b;
}

/*
 * A slice's length in whole microseconds: to its end rounded down as its
 * start is, so that slices nested in ns stay nested in microseconds and
 * slices that meet still meet.
 */
static int64_t
us_dur(int64_t start, int64_t end)
{
	return sub_sat(floor_div(end, 1000), floor_div(start, 1000));
}

static void
write_interval(struct render *rd, const struct query_event *q)
{
	struct buf *b = &rd->out;
	size_t i;

	element(rd);
	put_lit(b, "{\"name\":");
	out_json_string(b, q->label_text, strlen(q->label_text));
	put_lit(b, ",\"cat\":");
	out_json_string(b, q->kind_name, strlen(q->kind_name));
	put_lit(b, ",\"ph\":\"X\",\"ts\":");
	put_i64(b, floor_div(seconds_add_sat(rd->epoch_ns, q->start), 1000));
	put_lit(b, ",\"dur\":");
	put_i64(b, sub_sat(q->end, q->start) / 1000);
	put_lit(b, ",\"pid\":");
	put_i64(b, q->pid);
	put_lit(b, ",\"tid\":");
	put_i64(b, q->tid);
	put_lit(b, ",\"args\":");
	if (q->nargs == 0)
		put_lit(b, "null");
	for (i = 0; i < q->nargs; i++) {
		const struct value *v = &q->args[i].val;

		put_cstr(b, i == 0 ? "{" : ",");
		out_json_string(b, q->args[i].name, strlen(q->args[i].name));
		buf_put(b, ":", 1);
		if (v->type == VAL_STR)
			out_json_string(b, v->v.s.ptr, v->v.s.len);
		else
			put_lit(b, "null");
	}
	put_cstr(b, q->nargs > 0 ? "}}" : "}");
}

static void
add_process(struct render *rd, const struct stream_process *p)
{
	struct process *pr;
	const char *crate;
	size_t n = 0;

	if (rd->nprocs == PROCESSES_MAX)
		return;
	pr = &rd->procs[rd->nprocs++];
	pr->pid = p->pid;
	if ((crate = query_crate_name(p->cmdline, &n)) == NULL)
		n = 0;
	if (n >= CRATE_NAME_MAX)
		n = CRATE_NAME_MAX - 1;
	memcpy(pr->crate, crate ? crate : "", n);
	pr->crate[n] = '\0';
}

/* After a profile's events: the names and order of its processes. */
static void
close_section(struct render *rd)
{
	struct buf *b = &rd->out;
	size_t i;

	for (i = 0; rd->profile && i < rd->nprocs; i++) {
		const struct process *p = &rd->procs[i];

		if (p->crate[0] != '\0') {
			element(rd);
			put_lit(b, "{\"args\":{\"name\":");
			out_json_string(b, p->crate, strlen(p->crate));
			put_lit(b, "},\"cat\":\"\",\"name\":\"process_name\","
			    "\"ph\":\"M\",\"pid\":");
			put_i64(b, p->pid);
			put_lit(b, ",\"tid\":0,\"ts\":0}");
		}
		element(rd);
		put_lit(b, "{\"args\":{\"sort_index\":");
		put_i64(b, floor_div(rd->epoch_ns, 1000));
		put_lit(b, "},\"cat\":\"\",\"name\":\"process_sort_index\","
		    "\"ph\":\"M\",\"pid\":");
		put_i64(b, p->pid);
		put_lit(b, ",\"tid\":0,\"ts\":0}");
	}
	rd->nprocs = 0;
	rd->profile = 0;
}

/*
 * Unix ns of a FILETIME; 0, as for no start, when int64 cannot hold it
 * (years past 2262 or before 1678: only a hostile stream says so).
 */
static int64_t
unix_ns(uint64_t filetime)
{
	int64_t d;

	if (filetime == 0 || filetime > (uint64_t)INT64_MAX)
		return 0;
	d = (int64_t)filetime - (int64_t)FILETIME_UNIX_EPOCH;
	return d > INT64_MAX / 100 || d < INT64_MIN / 100 ? 0 : d * 100;
}

static void
begin_trace(struct render *rd, const struct stream_trace *t)
{
	rd->epoch_ns = unix_ns(t->start_utc);
	if (strcmp(t->format, "mm_profdata") == 0)
		rd->profile = 1;
}

/* A timeline table begins: where its columns are (-1: absent). */
static void
timeline_table(struct render *rd, const struct stream_table *t)
{
	size_t i, j;

	rd->timeline = strcmp(t->name, "timeline") == 0 ? t->id : 0;
	for (j = 0; j < TL_NCOLS; j++) {
		rd->col[j] = -1;
		for (i = 0; rd->timeline != 0 && i < t->ncols; i++)
			if (strcmp(t->cols[i].name, tl_names[j]) == 0)
				rd->col[j] = (int)i;
	}
	if (rd->col[TL_START] < 0 || rd->col[TL_END] < 0)
		rd->timeline = 0;
}

/* Cell `j` of a timeline row, or NULL when absent or empty. */
static const struct value *
tl_cell(const struct render *rd, const struct stream_row *row, int j)
{
	const struct value *v;

	if (rd->col[j] < 0 || (size_t)rd->col[j] >= row->ncells)
		return NULL;
	v = &row->cells[rd->col[j]];
	return v->type == VAL_NULL ? NULL : v;
}

static int64_t
tl_int(const struct render *rd, const struct stream_row *row, int j)
{
	const struct value *v = tl_cell(rd, row, j);

	return v != NULL && v->type != VAL_STR && v->type != VAL_BYTES ?
	    v->v.i : 0;
}

/* A string cell as JSON, or `dflt` when there is none. */
static void
tl_string(struct render *rd, const struct stream_row *row, int j,
    const char *dflt)
{
	const struct value *v = tl_cell(rd, row, j);

	if (v != NULL && v->type == VAL_STR)
		out_json_string(&rd->out, v->v.s.ptr, v->v.s.len);
	else
		out_json_string(&rd->out, dflt, strlen(dflt));
}

/*
 * The Chrome pid of a row's process instance: its pid for the first
 * life of the pid the table shows; for another, the life's id with the
 * high bit set (pids are 32-bit in Perfetto, and Windows numbers its
 * processes by fours from small values, so no process has it).
 */
static int64_t
tl_pid(struct render *rd, const struct stream_row *row, int64_t pid)
{
	const struct value *v = tl_cell(rd, row, TL_PROCESS);
	unsigned char key[4 + 256];
	size_t len = 0;
	uint32_t id, first, p32 = (uint32_t)pid;

	if (v != NULL && v->type == VAL_STR)
		len = v->v.s.len < 256 ? v->v.s.len : 256;
	memcpy(key, &p32, 4);
	if (len > 0)
		memcpy(key + 4, v->v.s.ptr, len);
	if ((id = intern_add(&rd->lives, key, 4 + len, NULL)) == 0)
		return pid;
	if (!idmap_get(&rd->first_life, (uint64_t)pid, &first)) {
		if (idmap_put(&rd->first_life, (uint64_t)pid, id) != 0)
			return pid;
		first = id;
	}
	return first == id ? pid : (int64_t)(OTHER_LIFE | id);
}

/* The name of a process or thread, once: {"name":"process_name",...}. */
static void
tl_name(struct render *rd, const struct stream_row *row, int64_t pid,
    int64_t tid)
{
	struct buf *b = &rd->out;
	int64_t key[2] = { pid, tid };
	int added = 0;

	if (intern_add(&rd->named, key, sizeof(key), &added) == 0 || !added)
		return;
	element(rd);
	put_lit(b, "{\"name\":");
	put_cstr(b, tid < 0 ? "\"process_name\"" : "\"thread_name\"");
	put_lit(b, ",\"ph\":\"M\",\"ts\":0,\"pid\":");
	put_i64(b, pid);
	put_lit(b, ",\"tid\":");
	put_i64(b, tid < 0 ? 0 : tid);
	put_lit(b, ",\"args\":{\"name\":");
	if (tid < 0)
		tl_string(rd, row, TL_PROCESS, "?");
	else {
		char name[48];

		if (tid & QUERY_LANE)
			snprintf(name, sizeof(name), "Thread (%lld) queries",
			    (long long)(tid & ~(int64_t)QUERY_LANE));
		else
			snprintf(name, sizeof(name), "Thread (%lld)",
			    (long long)tid);
		out_json_string(b, name, strlen(name));
	}
	put_lit(b, "}}");
}

/*
 * The start of a row's slice on lane (pid, tid), named by column
 * name_col, of category `cat` (a JSON string), up to its arguments'
 * opening brace.
 */
static void
slice_head(struct render *rd, const struct stream_row *row, int name_col,
    const char *cat, int64_t pid, int64_t tid)
{
	struct buf *b = &rd->out;
	int64_t start = tl_int(rd, row, TL_START), end = tl_int(rd, row,
	    TL_END);

	element(rd);
	put_lit(b, "{\"name\":");
	tl_string(rd, row, name_col, "?");
	put_lit(b, ",\"cat\":");
	put_cstr(b, cat);
	put_lit(b, ",\"ph\":\"X\",\"ts\":");
	put_i64(b, floor_div(start, 1000));
	put_lit(b, ",\"dur\":");
	put_i64(b, us_dur(start, end));
	put_lit(b, ",\"pid\":");
	put_i64(b, pid);
	put_lit(b, ",\"tid\":");
	put_i64(b, tid);
	put_lit(b, ",\"args\":{");
}

/* A span of a thread's state, as a slice on its lane. */
static void
state_row(struct render *rd, const struct stream_row *row, int64_t pid,
    int64_t tid)
{
	struct buf *b = &rd->out;

	slice_head(rd, row, TL_STATE, "\"thread state\"", pid, tid);
	if (tl_cell(rd, row, TL_CPU) != NULL) {
		put_lit(b, "\"cpu\":");
		put_i64(b, tl_int(rd, row, TL_CPU));
	} else {
		put_lit(b, "\"out_state\":");
		tl_string(rd, row, TL_OUT_STATE, "");
		put_lit(b, ",\"wait_reason\":");
		tl_string(rd, row, TL_REASON, "");
		if (tl_cell(rd, row, TL_RTID) != NULL) {
			put_lit(b, ",\"readying_tid\":");
			put_i64(b, tl_int(rd, row, TL_RTID));
			put_lit(b, ",\"readying_pid\":");
			put_i64(b, tl_int(rd, row, TL_RPID));
			put_lit(b, ",\"readying_image\":");
			tl_string(rd, row, TL_RIMAGE, "");
		}
	}
	put_lit(b, "}}");
}

/* Whether a row is of kind `k` (a table without kinds: all states). */
static int
tl_kind(const struct render *rd, const struct stream_row *row,
    const char *k)
{
	const struct value *v = tl_cell(rd, row, TL_KIND);

	if (v == NULL || v->type != VAL_STR)
		return strcmp(k, "state") == 0;
	return v->v.s.len == strlen(k) && memcmp(v->v.s.ptr, k,
	    v->v.s.len) == 0;
}

/* The start of an event: its name, phase, time and lane. */
static void
event_head(struct render *rd, const char *name, const char *cat,
    const char *ph, int64_t ts_ns, int64_t pid, int64_t tid)
{
	struct buf *b = &rd->out;

	element(rd);
	put_lit(b, "{\"name\":");
	out_json_string(b, name, strlen(name));
	put_lit(b, ",\"cat\":");
	out_json_string(b, cat, strlen(cat));
	put_lit(b, ",\"ph\":");
	out_json_string(b, ph, strlen(ph));
	put_lit(b, ",\"ts\":");
	put_i64(b, floor_div(ts_ns, 1000));
	put_lit(b, ",\"pid\":");
	put_i64(b, pid);
	put_lit(b, ",\"tid\":");
	put_i64(b, tid);
}

/*
 * A row of the timeline: a state or a lifetime as a slice on its lane
 * (a process's on lane 0), a bucket of samples as an instant event with
 * its stack, a step of commit as a counter of the process.
 */
static void
timeline_row(struct render *rd, const struct stream_row *row)
{
	struct buf *b = &rd->out;
	int64_t pid = tl_pid(rd, row, tl_int(rd, row, TL_PID));
	int64_t tid = tl_int(rd, row, TL_TID);
	int64_t start = tl_int(rd, row, TL_START), end = tl_int(rd, row,
	    TL_END);
	int proc = tl_kind(rd, row, "process");

	tl_name(rd, row, pid, -1);
	if (tl_kind(rd, row, "state")) {
		tl_name(rd, row, pid, tid);
		state_row(rd, row, pid, tid);
		return;
	}
	if (proc || tl_kind(rd, row, "thread")) {
		if (!proc)
			tl_name(rd, row, pid, tid);
		event_head(rd, proc ? "process lifetime" : "thread lifetime",
		    "lifetime", "X", start, pid, proc ? 0 : tid);
		put_lit(b, ",\"dur\":");
		put_i64(b, us_dur(start, end));
		put_lit(b, "}");
	} else if (tl_kind(rd, row, "samples")) {
		tl_name(rd, row, pid, tid);
		event_head(rd, "samples", "samples", "i", start, pid, tid);
		put_lit(b, ",\"s\":\"t\",\"args\":{\"samples\":");
		put_i64(b, tl_int(rd, row, TL_SAMPLES));
		put_lit(b, ",\"stack\":");
		tl_string(rd, row, TL_STACK, "");
		put_lit(b, "}}");
	} else if (tl_kind(rd, row, "query")) {
		tid = (int64_t)((uint32_t)tid | QUERY_LANE);
		tl_name(rd, row, pid, tid);
		slice_head(rd, row, TL_QUERY, "\"query\"", pid, tid);
		put_lit(b, "\"depth\":");
		put_i64(b, tl_int(rd, row, TL_DEPTH));
		put_lit(b, "}}");
	} else if (tl_kind(rd, row, "commit")) {
		event_head(rd, "commit", "memory", "C", start, pid, 0);
		put_lit(b, ",\"args\":{\"bytes\":");
		put_i64(b, tl_int(rd, row, TL_COMMIT));
		put_lit(b, "}}");
	}
}

static int
chrome_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct query_event q;
	int rc = query_input_event(&rd->in, r, rec, &q);

	if (rc < 0)
		return -1;
	if (rc > 0) {
		rd->profile = 1;
		if (q.type == QT_INTERVAL)
			write_interval(rd, &q);
		return rd->out.len >= FLUSH_AT ? flush(rd) : 0;
	}
	switch (rec->type) {
	case REC_HEADER:
	case REC_END:
		close_section(rd);
		rd->timeline = 0;	/* table ids are a section's */
		break;
	case REC_TRACE:
		begin_trace(rd, &rec->u.trace);
		break;
	case REC_PROCESS:
		add_process(rd, &rec->u.process);
		break;
	case REC_TABLE:
		timeline_table(rd, &rec->u.table);
		break;
	case REC_ROW:
		if (rd->timeline != 0 && rec->u.row.table == rd->timeline)
			timeline_row(rd, &rec->u.row);
		break;
	default:
		break;
	}
	return rd->out.len >= FLUSH_AT ? flush(rd) : 0;
}

static int
chrome_close(struct render *rd)
{
	int rc;

	close_section(rd);
	if (rd->records > 0)
		put_lit(&rd->out, "\n]\n");
	rc = flush(rd) != 0 ? -1 : rd->records == 0 ? 1 : 0;
	buf_release(&rd->out);
	intern_release(&rd->lives);
	idmap_release(&rd->first_life);
	intern_release(&rd->named);
	query_input_release(&rd->in);
	free(rd);
	return rc;
}

const struct render_ops render_chrome_ops = {
	.open = chrome_open,
	.record = chrome_record,
	.close = chrome_close,
	.nothing = "no rustc query events (give it etlcat's output of a "
	    ".mm_profdata file) and no timeline table (etlagg timeline)",
};
