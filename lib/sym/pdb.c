/*
 * pdb.c - the identity and the functions of a PDB (pdb-format.md
 * sections 2 to 5 and 7).
 *
 * Opening reads, in this order: the info stream (GUID), the DBI stream
 * (age, module list, section contributions, optional debug header), the
 * section headers, the publics of the symbol-record stream, then every
 * module's symbols.  Each stream is read whole, one at a time, through
 * one scratch buffer; what is kept is copied out of it (names into an
 * interning table, so that the aliases and generic instances that share
 * a name share its copy).  At the end the functions are sorted by RVA
 * and two index arrays over them, one of the sized ones (procedures and
 * thunks) and one of the publics, serve the binary searches of
 * pdb_lookup() and pdb_lookup_public().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "msf.h"
#include "pdb.h"
#include "pdb_lines.h"

#define INFO_STREAM		1
#define DBI_STREAM		3
#define IPI_STREAM		4
#define NO_STREAM		0xffff
#define INFO_LEN		28	/* version .. GUID */
#define DBI_HEADER_LEN		64
#define MODULE_FIXED_LEN	64	/* a module record before its names */
#define SECTION_HEADER_LEN	40
#define C13_SIGNATURE		4
/* Slots of the optional debug header (3.5). */
#define DBG_OMAP_TO_SRC		3
#define DBG_OMAP_FROM_SRC	4
#define DBG_SECTION_HEADERS	5
/* Section contribution substream versions (3.3). */
#define SC_V60			0xf12eba2du
#define SC_V2			0xf13151e4u
#define SCN_CNT_CODE		0x00000020u
#define SCN_MEM_EXECUTE		0x20000000u
/* The fixed part of each record's payload, before its name (4.1, 4.2). */
#define PUB32_FIXED		10
#define PROC32_FIXED		35
#define THUNK32_FIXED		21

/* A module's symbol stream, from the DBI module info substream. */
struct module {
	uint16_t stream;
	uint32_t sym_size;	/* signature included */
	uint32_t c11_size, c13_size;	/* the line parts after it */
};

/* A section contribution, placed: which module's code lies where. */
struct contrib {
	uint32_t rva, size;
	uint16_t module;
};

/* What the DBI stream says and later steps need. */
struct dbi {
	uint16_t sym_records;	/* the symbol-record stream (GSS) */
	uint16_t section_headers;
	struct module *modules;
	size_t nmodules, modules_cap;
	/*
	 * The contributions as recorded: raw[i].rva holds the offset in
	 * section raw_sections[i] until the sections are known.
	 */
	struct contrib *raw;
	uint16_t *raw_sections;
	size_t nraw;
};

struct pdb {
	struct msf *msf;		/* while opening */
	struct buf scratch;		/* while opening */
	struct buf names_buf, ipi_buf;	/* while opening */
	uint32_t names_stream;		/* "/names", 0 if none */
	struct pdb_lines_ctx ctx;	/* while opening */
	struct pdb_lines *lines;
	uint32_t *name_ids;		/* while opening: funcs[i]'s name */
	struct intern names;
	unsigned char guid[16];
	uint32_t age;
	uint16_t machine;		/* the DBI header's */
	struct pdb_section *sections;
	size_t nsections;
	struct contrib *contribs;	/* sorted by rva */
	size_t ncontribs;
	struct pdb_function *funcs;
	size_t nfuncs, funcs_cap;
	uint32_t *sized;		/* procedures and thunks, by rva */
	size_t nsized;
	uint32_t *publics;		/* by rva */
	size_t npublics;
	struct pdb_counts counts;
	int opened;			/* pdb_open_mem() was called */
	enum pdb_status status;
	char error[MSF_ERROR_LEN + 64];	/* "what: " and an msf message */
};

struct pdb *
pdb_new(void)
{
	return calloc(1, sizeof(struct pdb));
}

static void
release_open_state(struct pdb *p)
{
	msf_free(p->msf);
	p->msf = NULL;
	buf_release(&p->scratch);
	buf_release(&p->names_buf);
	buf_release(&p->ipi_buf);
	free(p->name_ids);
	p->name_ids = NULL;
}

void
pdb_free(struct pdb *p)
{
	if (p == NULL)
		return;
	release_open_state(p);
	intern_release(&p->names);
	pdb_lines_free(p->lines);
	free(p->sections);
	free(p->contribs);
	free(p->funcs);
	free(p->sized);
	free(p->publics);
	free(p);
}

const char *
pdb_error(const struct pdb *p)
{
	return p->error;
}

void
pdb_identity(const struct pdb *p, unsigned char guid[16], uint32_t *age)
{
	memcpy(guid, p->guid, 16);
	*age = p->age;
}

unsigned
pdb_machine(const struct pdb *p)
{
	return p->machine;
}

const struct pdb_section *
pdb_sections(const struct pdb *p, size_t *n)
{
	*n = p->nsections;
	return p->sections;
}

const struct pdb_function *
pdb_functions(const struct pdb *p, size_t *n)
{
	*n = p->nfuncs;
	return p->funcs;
}

const struct pdb_counts *
pdb_counts(const struct pdb *p)
{
	return &p->counts;
}

/* ---- messages ---- */

static void
format(struct pdb *p, uint64_t off, const char *fmt, va_list ap)
{
	char what[200];

	vsnprintf(what, sizeof(what), fmt, ap);
	snprintf(p->error, sizeof(p->error), "%s (offset 0x%llx)", what,
	    (unsigned long long)off);
}

/* Says what went wrong; the file cannot be used.  @return : -1 */
static int
fatal(struct pdb *p, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format(p, off, fmt, ap);
	va_end(ap);
	p->status = PDB_FATAL;
	return -1;
}

static int
no_memory(struct pdb *p)
{
	snprintf(p->error, sizeof(p->error), "out of memory");
	p->status = PDB_FATAL;
	return -1;
}

/* Something was skipped; the first such message is kept. */
static void
warn(struct pdb *p, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (p->status != PDB_OK)
		return;
	va_start(ap, fmt);
	format(p, off, fmt, ap);
	va_end(ap);
	p->status = PDB_WARN;
}

static uint64_t
file_offset(const struct pdb *p, uint32_t stream, uint64_t off)
{
	return msf_file_offset(p->msf, stream, off);
}

/*
 * Stream `stream` whole, in the scratch buffer or the file.  A failure
 * is said as "what: why", fatal if `must`, else as a warning.
 * @return : 0, or -1 if the stream cannot be read.
 */
static int
read_stream(struct pdb *p, uint32_t stream, const char *what, int must,
    const unsigned char **s, size_t *len)
{
	char why[MSF_ERROR_LEN];

	if (msf_stream(p->msf, stream, &p->scratch, s, len, why,
	    sizeof(why)) == 0)
		return 0;
	if (must || p->status == PDB_OK) {
		snprintf(p->error, sizeof(p->error), "%s: %s", what, why);
		p->status = must ? PDB_FATAL : PDB_WARN;
	}
	return -1;
}

/* A stream that must be there, with at least `min` bytes. */
static int
read_header_stream(struct pdb *p, uint32_t stream, const char *what,
    size_t min, const unsigned char **s, size_t *len)
{
	if (read_stream(p, stream, what, 1, s, len) == -1)
		return -1;
	if (*len < min)
		return fatal(p, file_offset(p, stream, 0), "%s of %zu bytes, "
		    "too short", what, *len);
	return 0;
}

/* ---- the info stream (section 2) ---- */

/*
 * The named-stream map after the GUID (2): the stream called "/names"
 * (the string table of file names), if there is one.
 */
static void
find_names_stream(struct pdb *p, const unsigned char *s, size_t len)
{
	struct cursor c;
	const unsigned char *strings, *pair;
	uint32_t size, count, words, i;

	cursor_init(&c, s + INFO_LEN, len - INFO_LEN);
	size = cursor_u32(&c);
	if ((strings = cursor_take(&c, size)) == NULL)
		return;
	count = cursor_u32(&c);
	cursor_u32(&c);
	words = cursor_u32(&c);
	if (words > cursor_left(&c) / 4 || cursor_take(&c, 4 * (size_t)words)
	    == NULL)
		return;
	words = cursor_u32(&c);
	if (words > cursor_left(&c) / 4 || cursor_take(&c, 4 * (size_t)words)
	    == NULL)
		return;
	for (i = 0; i < count && !c.bad; i++) {
		uint32_t off, stream;

		if ((pair = cursor_take(&c, 8)) == NULL)
			return;
		off = le32(pair);
		stream = le32(pair + 4);
		if (off < size && size - off >= 7 &&
		    memcmp(strings + off, "/names", 7) == 0)
			p->names_stream = stream;
	}
}

/*
 * A stream the line tables use all through the modules' walk, so it
 * cannot share the scratch buffer; absent or unreadable is no error.
 */
static void
read_side_stream(struct pdb *p, uint32_t stream, struct buf *b,
    const unsigned char **data, size_t *len)
{
	char why[MSF_ERROR_LEN];

	*data = NULL;
	*len = 0;
	if (stream == 0 || stream >= msf_stream_count(p->msf) ||
	    msf_stream(p->msf, stream, b, data, len, why, sizeof(why)) != 0)
		*data = NULL;
}

/* What the line tables need before the modules: /names and IPI. */
static int
open_lines(struct pdb *p)
{
	if ((p->lines = pdb_lines_new()) == NULL)
		return no_memory(p);
	p->ctx.sections = p->sections;
	p->ctx.nsections = p->nsections;
	read_side_stream(p, p->names_stream, &p->names_buf, &p->ctx.names,
	    &p->ctx.names_len);
	read_side_stream(p, IPI_STREAM, &p->ipi_buf, &p->ctx.ipi,
	    &p->ctx.ipi_len);
	if (pdb_lines_ipi(p->lines, &p->ctx) == -1)
		return no_memory(p);
	return 0;
}

static int
read_info(struct pdb *p)
{
	const unsigned char *s;
	size_t len;

	if (read_header_stream(p, INFO_STREAM, "PDB info stream", INFO_LEN,
	    &s, &len) == -1)
		return -1;
	memcpy(p->guid, s + 12, 16);
	find_names_stream(p, s, len);
	return 0;
}

/* ---- the DBI stream (section 3) ---- */

static int
add_module(struct pdb *p, struct dbi *d, const unsigned char *rec)
{
	struct module *m;
	size_t cap;

	if (d->nmodules == d->modules_cap) {
		cap = d->modules_cap ? 2 * d->modules_cap : 64;
		if ((m = realloc(d->modules, cap * sizeof(*m))) == NULL)
			return no_memory(p);
		d->modules = m;
		d->modules_cap = cap;
	}
	m = &d->modules[d->nmodules++];
	m->stream = le16(rec + 34);
	m->sym_size = le32(rec + 36);
	m->c11_size = le32(rec + 40);
	m->c13_size = le32(rec + 44);
	return 0;
}

/*
 * The module info substream (3.2): records of 64 bytes, the module and
 * object names, padding to 4.  `base` is its offset in the DBI stream.
 */
static int
read_module_list(struct pdb *p, struct dbi *d, const unsigned char *s,
    size_t len, size_t base)
{
	const unsigned char *name, *obj;
	size_t pos = 0;

	while (len - pos >= MODULE_FIXED_LEN) {
		name = s + pos + MODULE_FIXED_LEN;
		obj = memchr(name, '\0', len - (size_t)(name - s));
		if (obj == NULL || (obj = memchr(obj + 1, '\0',
		    len - (size_t)(obj + 1 - s))) == NULL)
			break;
		if (add_module(p, d, s + pos) == -1)
			return -1;
		pos = ((size_t)(obj + 1 - s) + 3) & ~(size_t)3;
		if (pos > len)
			pos = len;
	}
	if (pos < len)
		warn(p, file_offset(p, DBI_STREAM, base + pos),
		    "module list cut short after %zu modules", d->nmodules);
	p->counts.modules = (uint32_t)d->nmodules;
	return 0;
}

/* The section contributions substream (3.3), kept as recorded. */
static int
read_contributions(struct pdb *p, struct dbi *d, const unsigned char *s,
    size_t len, size_t base)
{
	const unsigned char *rec;
	size_t recsize, i;
	uint32_t version;

	if (len < 4)
		return 0;
	version = le32(s);
	if (version != SC_V60 && version != SC_V2) {
		warn(p, file_offset(p, DBI_STREAM, base),
		    "unknown section contribution version 0x%x", version);
		return 0;
	}
	recsize = version == SC_V60 ? 28 : 32;
	d->nraw = (len - 4) / recsize;
	d->raw = calloc(d->nraw + 1, sizeof(*d->raw));
	d->raw_sections = calloc(d->nraw + 1, sizeof(*d->raw_sections));
	if (d->raw == NULL || d->raw_sections == NULL)
		return no_memory(p);
	for (i = 0; i < d->nraw; i++) {
		rec = s + 4 + i * recsize;
		d->raw_sections[i] = le16(rec);
		d->raw[i].rva = le32(rec + 4);
		d->raw[i].size = le32(rec + 8);
		d->raw[i].module = le16(rec + 16);
	}
	return 0;
}

/* The optional debug header (3.5): where the section headers are. */
static void
read_debug_header(struct pdb *p, struct dbi *d, const unsigned char *s,
    size_t len, size_t base)
{
	size_t n = len / 2;

	d->section_headers = n > DBG_SECTION_HEADERS ?
	    le16(s + 2 * DBG_SECTION_HEADERS) : NO_STREAM;
	if ((n > DBG_OMAP_TO_SRC && le16(s + 2 * DBG_OMAP_TO_SRC) !=
	    NO_STREAM) || (n > DBG_OMAP_FROM_SRC &&
	    le16(s + 2 * DBG_OMAP_FROM_SRC) != NO_STREAM))
		warn(p, file_offset(p, DBI_STREAM, base), "the PDB has OMAP "
		    "streams: its addresses are not translated");
}

/*
 * The DBI header (3.1) and the substreams that follow it: module info,
 * section contributions, section map, source info, type server map,
 * edit-and-continue, then the optional debug header.
 */
static int
read_dbi(struct pdb *p, struct dbi *d)
{
	static const int size_at[] = { 24, 28, 32, 36, 40, 52, 48 };
	uint64_t off[8];
	const unsigned char *s;
	size_t len, i;
	int32_t size;

	if (read_header_stream(p, DBI_STREAM, "DBI stream", DBI_HEADER_LEN,
	    &s, &len) == -1)
		return -1;
	p->age = le32(s + 8);
	p->machine = le16(s + 58);
	d->sym_records = le16(s + 20);
	off[0] = DBI_HEADER_LEN;
	for (i = 0; i < sizeof(size_at) / sizeof(size_at[0]); i++) {
		size = (int32_t)le32(s + size_at[i]);
		if (size < 0 || off[i] + (uint64_t)size > len)
			return fatal(p, file_offset(p, DBI_STREAM, size_at[i]),
			    "DBI substream size %d runs past the stream's "
			    "end", (int)size);
		off[i + 1] = off[i] + (uint64_t)size;
	}
	if (read_module_list(p, d, s + off[0], off[1] - off[0], off[0]) == -1 ||
	    read_contributions(p, d, s + off[1], off[2] - off[1], off[1]) == -1)
		return -1;
	read_debug_header(p, d, s + off[6], off[7] - off[6], off[6]);
	return 0;
}

/* ---- sections (3.5, 3.6) ---- */

static int
read_sections(struct pdb *p, const struct dbi *d)
{
	const unsigned char *s, *h;
	struct pdb_section *sec;
	size_t len, i;

	if (d->section_headers == NO_STREAM)
		return fatal(p, file_offset(p, DBI_STREAM, 0),
		    "no section headers in the DBI stream");
	if (read_stream(p, d->section_headers, "section headers", 1, &s,
	    &len) == -1)
		return -1;
	p->nsections = len / SECTION_HEADER_LEN;
	if (p->nsections == 0)
		return fatal(p, file_offset(p, d->section_headers, 0),
		    "no section headers in stream %u", d->section_headers);
	if ((p->sections = calloc(p->nsections, sizeof(*sec))) == NULL)
		return no_memory(p);
	for (i = 0; i < p->nsections; i++) {
		h = s + i * SECTION_HEADER_LEN;
		sec = &p->sections[i];
		memcpy(sec->name, h, 8);
		sec->size = le32(h + 8) != 0 ? le32(h + 8) : le32(h + 16);
		sec->rva = le32(h + 12);
		sec->characteristics = le32(h + 36);
		sec->code = (sec->characteristics &
		    (SCN_CNT_CODE | SCN_MEM_EXECUTE)) != 0;
	}
	return 0;
}

/*
 * Places section:offset (1-based section) as an RVA (3.6).
 * @return : 0, or -1 if it is not a place in a section.
 */
static int
place(const struct pdb *p, uint16_t section, uint32_t offset, uint32_t *rva)
{
	const struct pdb_section *sec;

	if (section == 0 || section > p->nsections)
		return -1;
	sec = &p->sections[section - 1];
	if ((uint64_t)sec->rva + offset > UINT32_MAX)
		return -1;
	*rva = sec->rva + offset;
	return 0;
}

static int
cmp_contrib(const void *a, const void *b)
{
	const struct contrib *x = a, *y = b;

	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

/* Places the contributions and sorts them, for owner_module(). */
static void
place_contributions(struct pdb *p, struct dbi *d)
{
	size_t i;

	for (i = 0; i < d->nraw; i++)
		if (place(p, d->raw_sections[i], d->raw[i].rva,
		    &d->raw[i].rva) == 0 && d->raw[i].size > 0)
			d->raw[p->ncontribs++] = d->raw[i];
	p->contribs = d->raw;
	d->raw = NULL;
	if (p->ncontribs > 0)
		qsort(p->contribs, p->ncontribs, sizeof(*p->contribs),
		    cmp_contrib);
}

/* The module the section contributions give `rva` to, or -1. */
static int
owner_module(const struct pdb *p, uint32_t rva)
{
	size_t lo = 0, hi = p->ncontribs, mid;
	const struct contrib *c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->contribs[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	c = &p->contribs[lo - 1];
	return rva - c->rva < c->size ? c->module : -1;
}

/* ---- symbol records (section 4) ---- */

static int
add_function(struct pdb *p, const struct pdb_function *f, const char *name,
    size_t len)
{
	struct pdb_function *nf;
	uint32_t *ids, id;
	size_t cap;

	if (p->nfuncs == p->funcs_cap) {
		cap = p->funcs_cap ? 2 * p->funcs_cap : 1024;
		if ((nf = realloc(p->funcs, cap * sizeof(*nf))) == NULL)
			return no_memory(p);
		p->funcs = nf;
		if ((ids = realloc(p->name_ids, cap * sizeof(*ids))) == NULL)
			return no_memory(p);
		p->name_ids = ids;
		p->funcs_cap = cap;
	}
	/* The key holds the NUL, so that names come out as C strings. */
	if ((id = intern_add(&p->names, name, len + 1, NULL)) == 0)
		return no_memory(p);
	p->name_ids[p->nfuncs] = id;
	p->funcs[p->nfuncs++] = *f;
	return 0;
}

/*
 * Where the records that define functions keep their fields (4.1, 4.2):
 * the payload offsets of the offset, the segment and the size (of
 * size_len bytes, 0 for none), and the length of the part before the
 * name.  Publics come from the symbol-record stream, the others from
 * the modules' streams.
 */
static const struct layout {
	uint16_t record;
	uint8_t kind;
	uint8_t in_module;
	uint8_t offset_at, section_at, size_at, size_len;
	uint8_t fixed;
} layouts[] = {
	{ PDB_S_PUB32, PDB_PUBLIC, 0, 4, 8, 0, 0, PUB32_FIXED },
	{ PDB_S_LPROC32, PDB_PROCEDURE, 1, 28, 32, 12, 4, PROC32_FIXED },
	{ PDB_S_GPROC32, PDB_PROCEDURE, 1, 28, 32, 12, 4, PROC32_FIXED },
	{ PDB_S_LPROC32_ID, PDB_PROCEDURE, 1, 28, 32, 12, 4, PROC32_FIXED },
	{ PDB_S_GPROC32_ID, PDB_PROCEDURE, 1, 28, 32, 12, 4, PROC32_FIXED },
	{ PDB_S_THUNK32, PDB_THUNK, 1, 12, 16, 18, 2, THUNK32_FIXED },
};

static const struct layout *
layout_of(uint16_t record, int in_module)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].record == record &&
		    layouts[i].in_module == in_module)
			return &layouts[i];
	return NULL;
}

/*
 * Adds the function that a record's payload defines, if it defines
 * one: from the symbol-record stream when module is PDB_NO_MODULE, else
 * from that module's stream.
 * @return : 0; 1 if the record is malformed; -1 out of memory.
 */
static int
add_record(struct pdb *p, uint16_t record, const unsigned char *pl,
    size_t len, uint16_t module)
{
	const struct layout *l;
	const unsigned char *nul;
	struct pdb_function f;
	uint16_t section;

	if ((l = layout_of(record, module != PDB_NO_MODULE)) == NULL)
		return 0;
	if (len <= l->fixed || (nul = memchr(pl + l->fixed, '\0',
	    len - l->fixed)) == NULL)
		return 1;
	memset(&f, 0, sizeof(f));
	f.record = record;
	f.kind = l->kind;
	f.module = module;
	if (l->kind == PDB_PUBLIC)
		f.flags = pl[0];
	if (l->size_len != 0)
		f.size = l->size_len == 4 ? le32(pl + l->size_at) :
		    le16(pl + l->size_at);
	section = le16(pl + l->section_at);
	if (place(p, section, le32(pl + l->offset_at), &f.rva) == -1) {
		p->counts.absolute++;
		return 0;
	}
	if (!p->sections[section - 1].code) {
		p->counts.not_code++;
		return 0;
	}
	f.section = section;
	return add_function(p, &f, (const char *)pl + l->fixed,
	    (size_t)(nul - pl) - l->fixed);
}

/*
 * Walks the records in [start, end) of stream `stream` (4): u16 length,
 * u16 kind, payload.  A length that runs past the end stops the walk.
 */
static int
walk_records(struct pdb *p, uint32_t stream, const unsigned char *s,
    size_t start, size_t end, uint16_t module)
{
	size_t pos = start, reclen;
	int rc;

	while (end - pos >= 4) {
		reclen = le16(s + pos);
		if (reclen < 2 || reclen > end - pos - 2) {
			p->counts.bad_records++;
			warn(p, file_offset(p, stream, pos), "stream %u: bad "
			    "symbol record length %zu", stream, reclen);
			return 0;
		}
		rc = add_record(p, le16(s + pos + 2), s + pos + 4, reclen - 2,
		    module);
		if (rc == -1)
			return -1;
		if (rc == 1) {
			p->counts.bad_records++;
			warn(p, file_offset(p, stream, pos), "stream %u: "
			    "malformed symbol record 0x%04x", stream,
			    le16(s + pos + 2));
		}
		pos += 2 + reclen;
	}
	return 0;
}

/* The publics of the symbol-record stream (section 5). */
static int
read_publics(struct pdb *p, const struct dbi *d)
{
	const unsigned char *s;
	size_t len;

	if (d->sym_records == NO_STREAM)
		return 0;
	if (read_stream(p, d->sym_records, "symbol records", 0, &s,
	    &len) == -1)
		return 0;
	return walk_records(p, d->sym_records, s, 0, len, PDB_NO_MODULE);
}

/* The procedures and thunks of a module's symbol stream (4.4). */
static int
read_module(struct pdb *p, const struct module *m, size_t index)
{
	const unsigned char *s;
	size_t len, end;
	uint64_t c13;
	uint16_t mod;
	char what[32];

	if (m->stream == NO_STREAM) {
		p->counts.modules_without_symbols++;
		return 0;
	}
	snprintf(what, sizeof(what), "module %zu", index);
	if (read_stream(p, m->stream, what, 0, &s, &len) == -1) {
		p->counts.bad_modules++;
		return 0;
	}
	if (m->sym_size < 4)
		return 0;
	if (len < 4 || le32(s) != C13_SIGNATURE) {
		p->counts.bad_modules++;
		warn(p, file_offset(p, m->stream, 0), "module %zu: stream %u "
		    "has no C13 symbols", index, m->stream);
		return 0;
	}
	end = m->sym_size;
	if (end > len) {
		p->counts.bad_modules++;
		warn(p, file_offset(p, m->stream, len), "module %zu: symbols "
		    "run past the end of stream %u", index, m->stream);
		end = len;
	}
	/*
	 * Contributions name modules in 16 bits: one beyond cannot own an
	 * address, and its procedures lose ties to the others'.
	 */
	mod = index < PDB_NO_MODULE ? (uint16_t)index : PDB_NO_MODULE - 1;
	if (walk_records(p, m->stream, s, 4, end, mod) == -1)
		return -1;
	c13 = (uint64_t)m->sym_size + m->c11_size;
	if (pdb_lines_module(p->lines, &p->ctx, s, len, end,
	    c13 < len ? (size_t)c13 : len, c13 + m->c13_size < len ?
	    (size_t)(c13 + m->c13_size) : len, mod,
	    &p->counts.bad_records) == -1)
		return no_memory(p);
	return 0;
}

/* ---- sorting and lookup ---- */

static int
cmp_function(const void *a, const void *b)
{
	const struct pdb_function *x = a, *y = b;
	int c;

	if (x->rva != y->rva)
		return x->rva < y->rva ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((x->flags & PDB_PUB_FUNCTION) != (y->flags & PDB_PUB_FUNCTION))
		return x->flags & PDB_PUB_FUNCTION ? -1 : 1;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->record < y->record ? -1 : x->record > y->record;
}

/* Names the functions, sorts them and builds the two indexes. */
static int
index_functions(struct pdb *p)
{
	size_t i, len;

	for (i = 0; i < p->nfuncs; i++)
		p->funcs[i].name = intern_key(&p->names, p->name_ids[i], &len);
	if (p->nfuncs > 0)
		qsort(p->funcs, p->nfuncs, sizeof(*p->funcs), cmp_function);
	p->sized = malloc((p->nfuncs + 1) * sizeof(*p->sized));
	p->publics = malloc((p->nfuncs + 1) * sizeof(*p->publics));
	if (p->sized == NULL || p->publics == NULL)
		return no_memory(p);
	for (i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].kind == PDB_PUBLIC)
			p->publics[p->npublics++] = (uint32_t)i;
		else
			p->sized[p->nsized++] = (uint32_t)i;
	return 0;
}

static void
free_dbi(struct dbi *d)
{
	free(d->modules);
	free(d->raw);
	free(d->raw_sections);
}

enum pdb_status
pdb_open_mem(struct pdb *p, const unsigned char *data, size_t len)
{
	struct dbi d;
	size_t i;
	int rc;

	memset(&d, 0, sizeof(d));
	if (p->opened++) {
		snprintf(p->error, sizeof(p->error), "the reader is open "
		    "already");
		return p->status = PDB_FATAL;
	}
	if ((p->msf = msf_open(data, len, p->error, sizeof(p->error))) ==
	    NULL)
		return p->status = PDB_FATAL;
	p->counts.streams = msf_stream_count(p->msf);
	rc = read_info(p);
	if (rc == 0)
		rc = read_dbi(p, &d);
	if (rc == 0)
		rc = read_sections(p, &d);
	if (rc == 0) {
		place_contributions(p, &d);
		rc = read_publics(p, &d);
	}
	if (rc == 0)
		rc = open_lines(p);
	for (i = 0; rc == 0 && i < d.nmodules; i++)
		rc = read_module(p, &d.modules[i], i);
	if (rc == 0)
		rc = index_functions(p);
	if (rc == 0 && pdb_lines_finish(p->lines) == -1)
		rc = no_memory(p);
	free_dbi(&d);
	release_open_state(p);
	return p->status;
}

/* ---- lookup ---- */

/* How many of idx[0..n) lie below `rva`, or at it too if `at`. */
static size_t
count_below(const struct pdb *p, const uint32_t *idx, size_t n,
    uint32_t rva, int at)
{
	size_t lo = 0, hi = n, mid;
	uint32_t r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = p->funcs[idx[mid]].rva;
		if (r < rva || (at && r == rva))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The entries of idx[] at the greatest RVA not above `rva`:
 * [*first, end).  @return : end, 0 if there are none.
 */
static size_t
last_group(const struct pdb *p, const uint32_t *idx, size_t n,
    uint32_t rva, size_t *first)
{
	size_t end = count_below(p, idx, n, rva, 1);

	if (end > 0)
		*first = count_below(p, idx, end, p->funcs[idx[end - 1]].rva,
		    0);
	return end;
}

const struct pdb_function *
pdb_lookup_public(const struct pdb *p, uint32_t rva)
{
	const struct pdb_function *f;
	const struct pdb_section *sec;
	size_t first = 0, end;

	/*
	 * At one address, a public may end the section before (such as
	 * __enc$textbss$end) while another starts this one.
	 */
	end = last_group(p, p->publics, p->npublics, rva, &first);
	for (; first < end; first++) {
		f = &p->funcs[p->publics[first]];
		sec = &p->sections[f->section - 1];
		if (rva >= sec->rva && rva - sec->rva < sec->size)
			return f;
	}
	return NULL;
}

const struct pdb_function *
pdb_lookup(const struct pdb *p, uint32_t rva)
{
	const struct pdb_function *f, *best = NULL;
	size_t first = 0, end, i;
	int owner = -2;

	end = last_group(p, p->sized, p->nsized, rva, &first);
	for (i = first; i < end; i++) {
		f = &p->funcs[p->sized[i]];
		if (rva - f->rva >= f->size)
			continue;
		if (best == NULL) {
			best = f;
			continue;
		}
		/* Folded aliases: the owner of the address decides. */
		if (owner == -2)
			owner = owner_module(p, rva);
		if (best->module != owner && f->module == owner)
			best = f;
	}
	return best != NULL ? best : pdb_lookup_public(p, rva);
}

int
pdb_line(const struct pdb *p, uint32_t rva, const char **file,
    uint32_t *line)
{
	if (p->lines == NULL)
		return -1;
	return pdb_lines_find(p->lines, rva, owner_module(p, rva), file,
	    line);
}

size_t
pdb_inlines(const struct pdb *p, const struct pdb_function *f,
    uint32_t rva, struct pdb_frame *out, size_t cap)
{
	if (p->lines == NULL || f == NULL || f->kind != PDB_PROCEDURE)
		return 0;
	return pdb_lines_inlines(p->lines, f->module, f->rva, rva, out, cap);
}
