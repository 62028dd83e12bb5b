/*
 * render_speedscope.c - "etlreport -f speedscope": the stack tables in
 * speedscope's file format (its JSON schema,
 * https://www.speedscope.app/file-format-schema.json), which the
 * speedscope web app opens in its time order, left heavy and sandwich
 * views, as it opens PerfView's exports.
 *
 * Each stack table (stackrows.h: its stack column and its weight, the
 * last integer column) gives "sampled" profiles: a stack is a sample
 * weighing what its rows weigh, equal stacks added up, its frames
 * indices into shared.frames, the root first.  The tables of the views
 * whose stacks are rooted at a process (cpu, vmem, heap, heapsnap,
 * waits and threadtime) give a profile per root frame, named by it and
 * left out of its stacks: a profile per process instance, "serde
 * (4242)" as proclabel.h names them, where the view roots its stacks at
 * instances (threadtime; the others with --instances), else one per
 * image.  Any other stack table gives one profile named after the
 * table, and a rustc profile without one its query stacks (as folded).
 * With several tables, a profile's name begins with its table's
 * ("vmem: serde (4242)").
 *
 * Profiles run heaviest first, so that speedscope opens on the heaviest
 * (activeProfileIndex 0); those that weigh nothing are left out.  The
 * unit is the weight column's: "nanoseconds" for ns, "bytes" for B,
 * "milliseconds", "microseconds" and "seconds" likewise, else "none"
 * (CPU samples, counts).  An etlagg --diff table gives each root two
 * profiles, the input's weights and the base's ("base: serde (4242)"),
 * to flip between.  Names are JSON strings whatever the trace held:
 * quotes, backslashes and control characters escaped, invalid UTF-8 as
 * U+FFFD.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/idmap.h"
#include "base/intern.h"
#include "base/utf.h"
#include "model/stackrows.h"
#include "render.h"

/* A stack table's stacks, by its name across sections. */
struct sstable {
	char *name;
	struct stackrows *rows;
	int rooted;		/* a profile per root frame */
};

struct render {
	FILE *fp;
	struct render_options opt;
	struct sstable *tables;
	size_t ntables, cap;
	struct idmap of_id;		/* the section's table ids -> index */
	struct stackrows *profile;	/* a rustc profile's query stacks */
	struct intern frames;		/* names -> shared.frames index + 1 */
	struct intern roots;		/* a table's root frames, while drawn */
	uint64_t nprofiles;		/* profiles written */
};

/* The views whose stacks start at the process (or its instance). */
static const char *const rooted_views[] = {
	"cpu", "vmem", "heap", "heapsnap", "waits", "threadtime", NULL
};

static struct render *
speedscope_open(FILE *fp, const char *format, const struct render_options *opt)
{
	struct render *rd = calloc(1, sizeof(*rd));

	(void)format;
	if (rd == NULL)
		return NULL;
	rd->fp = fp;
	rd->opt = *opt;
	if ((rd->profile = stackrows_new()) == NULL) {
		free(rd);
		return NULL;
	}
	return rd;
}

static int
is_rooted(const char *name)
{
	const char *const *v;

	for (v = rooted_views; *v != NULL; v++)
		if (strcmp(*v, name) == 0)
			return 1;
	return 0;
}

/*
 * The index of the table named `name`, made if new (*made): the stacks
 * of a name add up over sections, as folded adds them.  @return : -1 if
 * out of memory.
 */
static long
table_named(struct render *rd, const char *name, int *made)
{
	struct sstable *t;
	size_t i, len = strlen(name);

	*made = 0;
	for (i = 0; i < rd->ntables; i++)
		if (strcmp(rd->tables[i].name, name) == 0)
			return (long)i;
	if ((t = array_slot(&rd->tables, &rd->cap, rd->ntables,
	    sizeof(*t))) == NULL || (t->name = malloc(len + 1)) == NULL)
		return -1;
	memcpy(t->name, name, len + 1);
	if ((t->rows = stackrows_new()) == NULL) {
		free(t->name);
		return -1;
	}
	t->rooted = is_rooted(name);
	*made = 1;
	return (long)rd->ntables++;
}

static void
drop_last(struct render *rd)
{
	struct sstable *t = &rd->tables[--rd->ntables];

	stackrows_free(t->rows);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

/*
 * A table goes to the collector of its name, which keeps it if it has
 * a stack column (stackrows.h's rule), and then its rows; a collector
 * that kept nothing is dropped again.
 */
static int
add_table(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	struct sstable *t;
	uint32_t before;
	long i;
	int made;

	if ((i = table_named(rd, rec->u.table.name, &made)) < 0)
		return -1;
	t = &rd->tables[i];
	before = stackrows_tables(t->rows);
	if (stackrows_record(t->rows, r, rec) != 0)
		return -1;
	if (stackrows_tables(t->rows) > before)
		return idmap_put(&rd->of_id, rec->u.table.id, (uint32_t)i);
	if (made)
		drop_last(rd);
	return 0;
}

/*
 * Headers go to every table's collector, rows to their table's; the
 * rest to the query stacks of a rustc profile.
 */
static int
speedscope_record(struct render *rd, const struct stream_reader *r,
    const struct stream_record *rec)
{
	uint32_t i;

	switch (rec->type) {
	case REC_TABLE:
		return add_table(rd, r, rec);
	case REC_ROW:
		return idmap_get(&rd->of_id, rec->u.row.table, &i) ?
		    stackrows_record(rd->tables[i].rows, r, rec) : 0;
	case REC_HEADER:
		/* Table ids are the section's. */
		idmap_release(&rd->of_id);
		for (i = 0; i < rd->ntables; i++)
			if (stackrows_record(rd->tables[i].rows, r, rec) != 0)
				return -1;
		break;
	default:
		break;
	}
	return stackrows_record(rd->profile, r, rec);
}

/* ---- JSON ---- */

/* Writes s[0..len) as a JSON string: valid UTF-8 whatever s holds. */
static void
json_string(FILE *fp, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, from = 0, n;

	putc('"', fp);
	while (i < len) {
		if (p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' &&
		    p[i] != '\\') {
			i++;
			continue;
		}
		if (p[i] >= 0x80 && (n = utf8_seq_len(p + i, len - i)) > 0) {
			i += n;
			continue;
		}
		fwrite(s + from, 1, i - from, fp);
		if (p[i] >= 0x80)
			fputs("\xef\xbf\xbd", fp);	/* U+FFFD */
		else if (p[i] == '"' || p[i] == '\\')
			fprintf(fp, "\\%c", p[i]);
		else if (p[i] == '\n')
			fputs("\\n", fp);
		else if (p[i] == '\t')
			fputs("\\t", fp);
		else
			fprintf(fp, "\\u00%c%c", hex[p[i] >> 4], hex[p[i] & 15]);
		from = ++i;
	}
	fwrite(s + from, 1, len - from, fp);
	putc('"', fp);
}

/* speedscope's unit for the unit (or name) of a weight column. */
static const char *
unit_of(const char *unit)
{
	static const char *const units[][2] = {
		{ "ns", "nanoseconds" }, { "us", "microseconds" },
		{ "\xc2\xb5s", "microseconds" }, { "ms", "milliseconds" },
		{ "s", "seconds" }, { "B", "bytes" }, { "bytes", "bytes" },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i][0]) == 0)
			return units[i][1];
	return "none";
}

/* ---- frames and roots ---- */

/* Where the stack's frames after its root start, if the table has one. */
static size_t
frames_from(const struct sstable *t, const char *s, size_t len)
{
	const char *semi;

	if (!t->rooted || (semi = memchr(s, ';', len)) == NULL)
		return 0;	/* a root alone is its own frame */
	return (size_t)(semi - s) + 1;
}

/* The stack's root frame in rd->roots, 0 for a table not rooted. */
static uint32_t
root_of(struct render *rd, const struct sstable *t, uint32_t id)
{
	size_t len;
	const char *s = stackrows_stack(t->rows, id, &len);
	const char *semi = memchr(s, ';', len);

	if (!t->rooted)
		return 0;
	return intern_add(&rd->roots, s, semi != NULL ?
	    (size_t)(semi - s) : len, NULL);
}

/*
 * Interns the frames of s[from..len) in shared.frames and writes their
 * indices as a JSON array (fp NULL: interns only).  @return : 0, or -1
 * if out of memory.
 */
static int
put_frames(struct render *rd, FILE *fp, const char *s, size_t len,
    size_t from)
{
	size_t at = from, end;
	uint32_t id;

	if (fp != NULL)
		putc('[', fp);
	while (at <= len) {
		const char *semi = memchr(s + at, ';', len - at);

		end = semi != NULL ? (size_t)(semi - s) : len;
		if ((id = intern_add(&rd->frames, s + at, end - at, NULL)) == 0)
			return -1;
		if (fp != NULL)
			fprintf(fp, "%s%" PRIu32, at > from ? "," : "", id - 1);
		at = end + 1;
	}
	if (fp != NULL)
		putc(']', fp);
	return 0;
}

/*
 * Interns the frames of the table's stacks that weigh something, in
 * byte order of the stacks, so that shared.frames does not depend on
 * the order of the rows.
 */
static int
intern_all_frames(struct render *rd, const struct sstable *t)
{
	uint32_t *ids = stackrows_sorted(t->rows), i;
	size_t len;
	const char *s;
	int rc = 0;

	if (ids == NULL)
		return -1;
	for (i = 0; i < stackrows_count(t->rows) && rc == 0; i++) {
		if (stackrows_weight(t->rows, ids[i]) == 0 &&
		    stackrows_base(t->rows, ids[i]) == 0)
			continue;
		s = stackrows_stack(t->rows, ids[i], &len);
		rc = put_frames(rd, NULL, s, len, frames_from(t, s, len));
	}
	free(ids);
	return rc;
}

static void
write_frames(struct render *rd)
{
	uint32_t id;
	size_t len;
	const char *name;

	fputs("\"shared\":{\"frames\":[", rd->fp);
	for (id = 1; id <= rd->frames.count; id++) {
		name = intern_key(&rd->frames, id, &len);
		fputs(id > 1 ? ",\n{\"name\":" : "\n{\"name\":", rd->fp);
		json_string(rd->fp, name, len);
		putc('}', rd->fp);
	}
	fputs("]},\n", rd->fp);
}

/* ---- profiles ---- */

static uint64_t
weight_of(const struct sstable *t, uint32_t id, int base)
{
	return base ? stackrows_base(t->rows, id) :
	    stackrows_weight(t->rows, id);
}


/* Appends the text of s (buf_put_str() is a length and bytes). */
static void
put_text(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* The profile's name: [table: ][base: ]root, or the table's. */
static int
write_name(struct render *rd, const struct sstable *t, uint32_t root,
    int base)
{
	struct buf name = { 0 };
	const char *s;
	size_t len;

	if (rd->ntables > 1 && root != 0) {
		put_text(&name, t->name);
		put_text(&name, ": ");
	}
	if (base)
		put_text(&name, "base: ");
	if (root != 0) {
		s = intern_key(&rd->roots, root, &len);
		buf_put(&name, s, len);
	} else
		put_text(&name, t->name);
	if (name.oom) {
		buf_release(&name);
		return -1;
	}
	json_string(rd->fp, (const char *)name.data, name.len);
	buf_release(&name);
	return 0;
}

/*
 * Writes the profile of `root` (0: the whole table) on one side, its
 * stacks ids[0..n).  @return : 0, or -1 if out of memory.
 */
static int
write_profile(struct render *rd, const struct sstable *t, uint32_t root,
    int base, const uint32_t *ids, size_t n, uint64_t total)
{
	FILE *fp = rd->fp;
	const char *s;
	size_t i, len;
	int first = 1;

	fputs(rd->nprofiles++ > 0 ? ",\n{" : "\n{", fp);
	fputs("\"type\":\"sampled\",\"name\":", fp);
	if (write_name(rd, t, root, base) != 0)
		return -1;
	fprintf(fp, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64
	    ",\n\"samples\":[", unit_of(stackrows_unit(t->rows)), total);
	for (i = 0; i < n; i++) {
		if (weight_of(t, ids[i], base) == 0)
			continue;
		s = stackrows_stack(t->rows, ids[i], &len);
		fputs(first ? "\n" : ",\n", fp);
		first = 0;
		if (put_frames(rd, fp, s, len, frames_from(t, s, len)) != 0)
			return -1;
	}
	fputs("],\n\"weights\":[", fp);
	for (i = 0, first = 1; i < n; i++) {
		uint64_t w = weight_of(t, ids[i], base);

		if (w == 0)
			continue;
		fprintf(fp, first ? "%" PRIu64 : ",%" PRIu64, w);
		first = 0;
	}
	fputs("]}", fp);
	return 0;
}

/* A root of a table: its stacks and what they weigh on each side. */
struct group {
	uint32_t root;
	size_t first, n;	/* its stacks in the bucketed order */
	uint64_t total, base;
	const struct render *rd;
};

/* Heaviest first, then by the root's name. */
static int
cmp_groups(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	const char *x, *y;
	size_t lx, ly;
	int c;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->base != b->base)
		return a->base > b->base ? -1 : 1;
	if (a->root == 0 || b->root == 0)
		return 0;
	x = intern_key(&a->rd->roots, a->root, &lx);
	y = intern_key(&a->rd->roots, b->root, &ly);
	if ((c = memcmp(x, y, lx < ly ? lx : ly)) != 0)
		return c;
	return lx < ly ? -1 : lx > ly;
}

/*
 * Groups the table's stacks by root: g[0..ngroups) with their stacks in
 * *order (byte order of the stacks within a group).  @return : the
 * count of groups, or -1 if out of memory.
 */
static long
group_stacks(struct render *rd, const struct sstable *t, struct group **gp,
    uint32_t **order)
{
	uint32_t n = stackrows_count(t->rows), i, *ids, *of;
	size_t ng, k, at;
	struct group *g;

	intern_clear(&rd->roots);
	*gp = NULL;
	*order = NULL;
	if ((ids = stackrows_sorted(t->rows)) == NULL ||
	    (of = malloc(((size_t)n + 1) * sizeof(*of))) == NULL) {
		free(ids);
		return -1;
	}
	for (i = 0; i < n; i++)
		if ((of[i] = root_of(rd, t, ids[i])) == 0 && t->rooted)
			goto fail;
	ng = t->rooted ? rd->roots.count : 1;
	if ((g = calloc(ng + 1, sizeof(*g))) == NULL ||
	    (*order = malloc(((size_t)n + 1) * sizeof(**order))) == NULL) {
		free(g);
		goto fail;
	}
	/* Counted, then each stack put in its group's place. */
	for (i = 0; i < n; i++) {
		struct group *x = &g[t->rooted ? of[i] - 1 : 0];

		x->n++;
		x->total += stackrows_weight(t->rows, ids[i]);
		x->base += stackrows_base(t->rows, ids[i]);
	}
	for (k = 0, at = 0; k < ng; k++) {
		g[k].first = at;
		at += g[k].n;
		g[k].root = t->rooted ? (uint32_t)k + 1 : 0;
		g[k].rd = rd;
		g[k].n = 0;
	}
	for (i = 0; i < n; i++) {
		struct group *x = &g[t->rooted ? of[i] - 1 : 0];

		(*order)[x->first + x->n++] = ids[i];
	}
	free(ids);
	free(of);
	qsort(g, ng, sizeof(*g), cmp_groups);
	*gp = g;
	return (long)ng;
fail:
	free(ids);
	free(of);
	free(*order);
	*order = NULL;
	return -1;
}

static int
write_table(struct render *rd, const struct sstable *t)
{
	struct group *g;
	uint32_t *order;
	long ng, k;
	int rc = 0, diff = stackrows_is_diff(t->rows);

	if ((ng = group_stacks(rd, t, &g, &order)) < 0)
		return -1;
	for (k = 0; k < ng && rc == 0; k++) {
		if (g[k].total > 0)
			rc = write_profile(rd, t, g[k].root, 0,
			    order + g[k].first, g[k].n, g[k].total);
		if (rc == 0 && diff && g[k].base > 0)
			rc = write_profile(rd, t, g[k].root, 1,
			    order + g[k].first, g[k].n, g[k].base);
	}
	free(g);
	free(order);
	return rc;
}

/* ---- the file ---- */

/* "name": the title, else the tables' names. */
static void
write_head(struct render *rd)
{
	struct buf name = { 0 };
	size_t i;

	if (rd->opt.title != NULL)
		put_text(&name, rd->opt.title);
	for (i = 0; rd->opt.title == NULL && i < rd->ntables; i++) {
		put_text(&name, i > 0 ? " + " : "");
		put_text(&name, rd->tables[i].name);
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/"
	    "file-format-schema.json\",\n\"exporter\":\"etlreport\",\"name\":",
	    rd->fp);
	json_string(rd->fp, name.oom ? "" : (const char *)name.data,
	    name.oom ? 0 : name.len);
	fputs(",\"activeProfileIndex\":0,\n", rd->fp);
	buf_release(&name);
}

static int
write_all(struct render *rd)
{
	size_t i;

	for (i = 0; i < rd->ntables; i++)
		if (intern_all_frames(rd, &rd->tables[i]) != 0)
			return -1;
	write_head(rd);
	write_frames(rd);
	fputs("\"profiles\":[", rd->fp);
	for (i = 0; i < rd->ntables; i++)
		if (write_table(rd, &rd->tables[i]) != 0)
			return -1;
	/* Nothing weighs anything: an empty profile, for the app to open. */
	if (rd->nprofiles == 0) {
		fputs("\n{\"type\":\"sampled\",\"name\":", rd->fp);
		json_string(rd->fp, rd->tables[0].name,
		    strlen(rd->tables[0].name));
		fprintf(rd->fp, ",\"unit\":\"%s\",\"startValue\":0,"
		    "\"endValue\":0,\"samples\":[],\"weights\":[]}",
		    unit_of(stackrows_unit(rd->tables[0].rows)));
	}
	fputs("]}\n", rd->fp);
	return ferror(rd->fp) ? -1 : 0;
}

/* A rustc profile without a stack table: its query stacks, as a table. */
static int
take_profile(struct render *rd)
{
	static const char name[] = "querystacks";
	struct sstable *t;

	if (stackrows_finish(rd->profile) != 0)
		return -1;
	if (rd->ntables > 0 || stackrows_tables(rd->profile) == 0)
		return 0;
	if ((t = array_slot(&rd->tables, &rd->cap, 0, sizeof(*t))) == NULL ||
	    (t->name = malloc(sizeof(name))) == NULL)
		return -1;
	memcpy(t->name, name, sizeof(name));
	t->rows = rd->profile;
	rd->profile = NULL;
	rd->ntables = 1;
	return 0;
}

static int
speedscope_close(struct render *rd)
{
	size_t i;
	int rc;

	if (take_profile(rd) != 0)
		rc = -1;
	else if (rd->ntables == 0)
		rc = 1;
	else
		rc = write_all(rd);
	if (fflush(rd->fp) != 0)
		rc = -1;
	for (i = 0; i < rd->ntables; i++) {
		stackrows_free(rd->tables[i].rows);
		free(rd->tables[i].name);
	}
	free(rd->tables);
	idmap_release(&rd->of_id);
	stackrows_free(rd->profile);
	intern_release(&rd->frames);
	intern_release(&rd->roots);
	free(rd);
	return rc;
}

const struct render_ops render_speedscope_ops = {
	/* A profile's query stacks are drawn by label. */
	.reader_flags = STREAM_QUERY_LABELS,
	.open = speedscope_open,
	.record = speedscope_record,
	.close = speedscope_close,
	.nothing = "no table with a stack column and an integer weight column",
};
