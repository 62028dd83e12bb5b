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
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof_decode.h"
#include "render.h"

#define FILETIME_UNIX_EPOCH 116444736000000000ULL
#define CRATE_NAME_MAX	256
#define PROCESSES_MAX	64	/* processes of one section given names */

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

static void
json_string(FILE *fp, const char *s, size_t len)
{
	size_t i;

	putc('"', fp);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\b')
			fputs("\\b", fp);
		else if (c == '\f')
			fputs("\\f", fp);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\r')
			fputs("\\r", fp);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
	putc('"', fp);
}

/* Starts an array element. */
static void
element(struct render *rd)
{
	fputs(rd->records++ == 0 ? "[\n" : ",\n", rd->fp);
}

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static void
write_interval(struct render *rd, const struct query_event *q)
{
	size_t i;

	element(rd);
	fputs("{\"name\":", rd->fp);
	json_string(rd->fp, q->label_text, strlen(q->label_text));
	fputs(",\"cat\":", rd->fp);
	json_string(rd->fp, q->kind_name, strlen(q->kind_name));
	fprintf(rd->fp, ",\"ph\":\"X\",\"ts\":%" PRId64 ",\"dur\":%" PRId64
	    ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":",
	    floor_div(rd->epoch_ns + q->start, 1000),
	    (q->end - q->start) / 1000, q->pid, q->tid);
	if (q->nargs == 0)
		fputs("null", rd->fp);
	for (i = 0; i < q->nargs; i++) {
		const struct value *v = &q->args[i].val;

		fputs(i == 0 ? "{" : ",", rd->fp);
		json_string(rd->fp, q->args[i].name, strlen(q->args[i].name));
		putc(':', rd->fp);
		if (v->type == VAL_STR)
			json_string(rd->fp, v->v.s.ptr, v->v.s.len);
		else
			fputs("null", rd->fp);
	}
	fputs(q->nargs > 0 ? "}}" : "}", rd->fp);
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
	size_t i;

	for (i = 0; rd->profile && i < rd->nprocs; i++) {
		const struct process *p = &rd->procs[i];

		if (p->crate[0] != '\0') {
			element(rd);
			fputs("{\"args\":{\"name\":", rd->fp);
			json_string(rd->fp, p->crate, strlen(p->crate));
			fprintf(rd->fp, "},\"cat\":\"\",\"name\":\"process_name\","
			    "\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":0,\"ts\":0}",
			    p->pid);
		}
		element(rd);
		fprintf(rd->fp, "{\"args\":{\"sort_index\":%" PRId64 "},"
		    "\"cat\":\"\",\"name\":\"process_sort_index\",\"ph\":\"M\","
		    "\"pid\":%" PRIu32 ",\"tid\":0,\"ts\":0}",
		    floor_div(rd->epoch_ns, 1000), p->pid);
	}
	rd->nprocs = 0;
	rd->profile = 0;
}

static void
begin_trace(struct render *rd, const struct stream_trace *t)
{
	rd->epoch_ns = t->start_utc == 0 ? 0 :
	    ((int64_t)t->start_utc - (int64_t)FILETIME_UNIX_EPOCH) * 100;
	if (strcmp(t->format, "mm_profdata") == 0)
		rd->profile = 1;
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
		return ferror(rd->fp) ? -1 : 0;
	}
	switch (rec->type) {
	case REC_HEADER:
	case REC_END:
		close_section(rd);
		break;
	case REC_TRACE:
		begin_trace(rd, &rec->u.trace);
		break;
	case REC_PROCESS:
		add_process(rd, &rec->u.process);
		break;
	default:
		break;
	}
	return ferror(rd->fp) ? -1 : 0;
}

static int
chrome_close(struct render *rd)
{
	int rc;

	close_section(rd);
	if (rd->records > 0)
		fputs("\n]\n", rd->fp);
	rc = rd->records == 0 ? 1 : ferror(rd->fp) ? -1 : 0;
	query_input_release(&rd->in);
	free(rd);
	return rc;
}

const struct render_ops render_chrome_ops = {
	.open = chrome_open,
	.record = chrome_record,
	.close = chrome_close,
	.nothing = "no rustc query events (give it etlcat's output of a "
	    ".mm_profdata file)",
};
