/*
 * view_sysconfig.c - "etlagg sysconfig": one row per trace with its
 * header and system configuration, and warnings on the trace's health
 * (etl-events-2.md 2.1, 3.3): CPU samples and CSwitch stacks in one
 * trace (the stack walks of every switch skew the samples), and context
 * switches logged as compact batches (fewer fields; stacks are joined to
 * the switches by time only).  The
 * warnings also go to standard error.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "view.h"

struct trace_row {
	struct stream_trace t;
	char source[512], logger[128], computer[64], os[40];
	uint64_t memory_bytes;
	int64_t end_ns;
	int samples, cswitch_stacks, compact;
	char warnings[160];
};

struct view {
	struct trace_row *rows;
	size_t n, cap;
};

static struct view *
sysconfig_create(int argc, char *argv[], int *used, struct model *m)
{
	(void)m;
	(void)argc;
	(void)argv;
	return view_no_options(calloc(1, sizeof(struct view)), used);
}

static int
add_trace(struct view *v, const struct stream_trace *t)
{
	struct trace_row *row;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		struct trace_row *rows = realloc(v->rows, cap * sizeof(*rows));

		if (rows == NULL)
			return -1;
		v->rows = rows;
		v->cap = cap;
	}
	row = &v->rows[v->n++];
	memset(row, 0, sizeof(*row));
	row->t = *t;
	snprintf(row->source, sizeof(row->source), "%s", t->source);
	snprintf(row->logger, sizeof(row->logger), "%s", t->logger);
	/*
	 * major.minor.build, as Windows's own ver spells it: "10.0" alone is
	 * a number to a spreadsheet, which would make it 10.
	 */
	snprintf(row->os, sizeof(row->os), "%u.%u.%u", t->os_major,
	    t->os_minor, t->os_build);
	return 0;
}

static int
sysconfig_record(struct view *v, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct trace_row *row = v->n ? &v->rows[v->n - 1] : NULL;

	(void)r;
	if (rec->type == REC_TRACE)
		return add_trace(v, &rec->u.trace);
	if (rec->type == REC_EVENT && row != NULL) {
		const struct stream_event *ev = &rec->u.event;

		row->samples |= ev->h.kind == EV_SAMPLE;
		if (ev->h.kind == EV_CSWITCH) {
			row->cswitch_stacks |= ev->h.stack != 0;
			row->compact |= stream_event_field(ev, "compact") != NULL;
		}
	}
	if (rec->type == REC_END && row != NULL) {
		row->memory_bytes = rec->u.end.memory_bytes;
		row->end_ns = (int64_t)rec->u.end.end_ns;
		snprintf(row->computer, sizeof(row->computer), "%s",
		    rec->u.end.computer);
	}
	return 0;
}

static struct value
str(const char *s)
{
	return (struct value){ .type = VAL_STR, .v.s = { s, strlen(s) } };
}

static struct value
u64(uint64_t u)
{
	return (struct value){ .type = VAL_U64, .v.u = u };
}

static int
write_row(struct stream_writer *w, const struct trace_row *row)
{
	const struct stream_trace *t = &row->t;
	uint64_t span = t->end_utc > t->start_utc ? t->end_utc - t->start_utc : 0;
	struct value c[20];
	struct stream_row sr = { 1, 20, c };

	c[0] = str(row->source);
	c[1] = str(row->os);
	c[2] = u64(t->os_build);
	c[3] = u64(t->cpus);
	c[4] = u64(t->cpu_mhz);
	c[5] = u64(row->memory_bytes >> 20);
	c[6] = str(row->computer);
	c[7] = u64(t->pointer_size);
	c[8] = u64(t->clock_type);
	c[9] = u64(t->perf_freq);
	c[10] = (struct value){ .type = VAL_UTC, .v.u = t->start_utc };
	c[11] = (struct value){ .type = VAL_UTC, .v.u = t->end_utc };
	c[12] = (struct value){ .type = VAL_F64, .v.f = span / 1e7 };
	c[13] = u64(t->buffer_size);
	c[14] = u64(t->buffers_written);
	c[15] = u64(t->buffers_lost);
	c[16] = u64(t->events_lost);
	c[17] = (struct value){ .type = VAL_HEX, .v.u = t->log_file_mode };
	c[18] = str(row->logger);
	c[19] = str(row->warnings);
	return stream_write_row(w, &sr);
}

/* The health warnings of a trace, in its row and on stderr. */
static void
warn(struct trace_row *row)
{
	static const char both[] = "CPU samples and CSwitch stacks both on: "
	    "their overhead skews the samples";
	static const char compact[] = "compact CSwitch batches: fewer fields "
	    "per switch; stacks joined by time";

	snprintf(row->warnings, sizeof(row->warnings), "%s%s%s",
	    row->samples && row->cswitch_stacks ? both : "",
	    row->samples && row->cswitch_stacks && row->compact ? "; " : "",
	    row->compact ? compact : "");
	if (row->warnings[0] != '\0')
		view_warning("sysconfig: %s: warning: %s", row->source,
		    row->warnings);
}

static int
sysconfig_finish(struct view *v, struct stream_writer *w)
{
	static const struct stream_column cols[] = {
		{ "source", VAL_STR, "" }, { "os_version", VAL_STR, "" },
		{ "os_build", VAL_U64, "" }, { "cpus", VAL_U64, "" },
		{ "cpu_mhz", VAL_U64, "MHz" }, { "memory", VAL_U64, "MiB" },
		{ "computer", VAL_STR, "" }, { "pointer_size", VAL_U64, "bytes" },
		{ "clock_type", VAL_U64, "" }, { "perf_freq", VAL_U64, "Hz" },
		{ "start_utc", VAL_UTC, "" }, { "end_utc", VAL_UTC, "" },
		{ "duration_s", VAL_F64, "s" }, { "buffer_size", VAL_U64, "bytes" },
		{ "buffers_written", VAL_U64, "" },
		{ "buffers_lost", VAL_U64, "" }, { "events_lost", VAL_U64, "" },
		{ "log_file_mode", VAL_HEX, "" }, { "logger", VAL_STR, "" },
		{ "warnings", VAL_STR, "" },
	};
	size_t i;
	int rc = view_write_table(w, 1, "sysconfig", cols, 20);

	for (i = 0; i < v->n && rc == 0; i++) {
		warn(&v->rows[i]);
		rc = write_row(w, &v->rows[i]);
	}
	return rc;
}

static void
sysconfig_destroy(struct view *v)
{
	free(v->rows);
	free(v);
}

static const char *const tables[] = { "sysconfig", NULL };

const struct view_ops view_sysconfig_ops = {
	.name = "sysconfig",
	.usage = "",
	.summary = "trace header and system configuration, a row per trace",
	.tables = tables,
	.create = sysconfig_create,
	.record = sysconfig_record,
	.finish = sysconfig_finish,
	.destroy = sysconfig_destroy,
};
