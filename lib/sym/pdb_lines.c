/*
 * pdb_lines.c - C13 line blocks and inline sites of PDB modules
 * (pdb-format.md 4.3, 6.1 to 6.4).
 *
 * Line records are kept per DEBUG_S_LINES contribution, in file order,
 * because the lookup rule that reproduces llvm-symbolizer (6.4) works
 * on that order.  Inline sites are kept with the procedure that holds
 * them (module and start RVA) and their nesting depth; their binary
 * annotations are decoded once into code ranges with a line each.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "pdb_lines.h"

#define DEBUG_S_LINES		0xf2
#define DEBUG_S_FILECHKSMS	0xf4
#define DEBUG_S_INLINEELINES	0xf6
#define S_INLINESITE		0x114d
#define S_INLINESITE_END	0x114e
#define S_INLINESITE2		0x115d
#define LF_FUNC_ID		0x1601
#define LF_MFUNC_ID		0x1602
#define LF_STRING_ID		0x1605
#define IPI_HEADER_MIN		56
#define MAX_DEPTH		64	/* nested inline sites kept */
#define LSEC_SORT_MAX		(1u << 24)	/* moves to sort one table */

struct lsec {			/* one DEBUG_S_LINES contribution */
	uint32_t rva, size;
	uint32_t first, count;	/* its records in lines[] */
	uint16_t module;
};

struct line {
	uint32_t rva, line, file;	/* file: an intern id */
};

struct site {
	uint32_t proc_rva;
	uint16_t module, depth;
	uint32_t name;			/* intern id */
	uint32_t first, count;		/* its ranges */
	uint32_t order;			/* record order, for a stable sort */
};

struct range {
	uint32_t rva, len, line, file;
};

struct inlinee {			/* a DEBUG_S_INLINEELINES entry */
	uint32_t id, file_off, line;
};

struct pdb_lines {
	struct intern strings;		/* file and inlinee names */
	const char **string_of;		/* after finish: id -> name */
	struct lsec *lsecs;
	size_t nlsecs, lsecs_cap;
	struct line *lines;
	size_t nlines, lines_cap;
	struct site *sites;
	size_t nsites, sites_cap;
	struct range *ranges;
	size_t nranges, ranges_cap;
	/* The IPI records: offsets by type index - ipi_begin. */
	uint32_t *ipi_off, ipi_begin, ipi_count;
	uint32_t *ipi_name;		/* intern id of each, 0: not yet */
	struct inlinee *inlinees;	/* the current module's */
	size_t ninlinees, inlinees_cap;
};

struct pdb_lines *
pdb_lines_new(void)
{
	return calloc(1, sizeof(struct pdb_lines));
}

void
pdb_lines_free(struct pdb_lines *l)
{
	if (l == NULL)
		return;
	intern_release(&l->strings);
	free(l->string_of);
	free(l->lsecs);
	free(l->lines);
	free(l->sites);
	free(l->ranges);
	free(l->ipi_off);
	free(l->ipi_name);
	free(l->inlinees);
	free(l);
}

/* Room for one more element of a growable array. */
static int
grow(void *arrayp, size_t *cap, size_t n, size_t size)
{
	void **a = arrayp;
	void *na;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 256;
	if ((na = realloc(*a, ncap * size)) == NULL)
		return -1;
	*a = na;
	*cap = ncap;
	return 0;
}

/* ---- names ---- */

/* The string at `index` of /names, interned; 0 if none or no memory. */
static uint32_t
names_string(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    uint32_t index)
{
	const unsigned char *area, *nul;
	size_t size;

	if (c->names == NULL || c->names_len < 12)
		return 0;
	size = le32(c->names + 8);
	if (size > c->names_len - 12 || index >= size)
		return 0;
	area = c->names + 12;
	if ((nul = memchr(area + index, '\0', size - index)) == NULL)
		return 0;
	return intern_add(&l->strings, area + index,
	    (size_t)(nul - area - index) + 1, NULL);
}

/* The name of file `off` of a module's checksum subsection (6.3). */
static uint32_t
file_name(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    const unsigned char *f4, size_t f4len, uint32_t off)
{
	if (f4 == NULL || off > f4len || f4len - off < 6)
		return 0;
	return names_string(l, c, le32(f4 + off));
}

int
pdb_lines_ipi(struct pdb_lines *l, const struct pdb_lines_ctx *c)
{
	uint32_t hsize, begin, end, bytes, n = 0;
	size_t pos, stop;

	if (c->ipi == NULL || c->ipi_len < IPI_HEADER_MIN)
		return 0;
	hsize = le32(c->ipi + 4);
	begin = le32(c->ipi + 8);
	end = le32(c->ipi + 12);
	bytes = le32(c->ipi + 16);
	if (hsize < IPI_HEADER_MIN || hsize > c->ipi_len || end < begin)
		return 0;
	stop = bytes < c->ipi_len - hsize ? hsize + (size_t)bytes : c->ipi_len;
	/* Each record takes 4 bytes at least: this bounds the count. */
	if ((size_t)(end - begin) > (stop - hsize) / 4)
		end = begin + (uint32_t)((stop - hsize) / 4);
	l->ipi_off = calloc((size_t)(end - begin) + 1, sizeof(uint32_t));
	l->ipi_name = calloc((size_t)(end - begin) + 1, sizeof(uint32_t));
	if (l->ipi_off == NULL || l->ipi_name == NULL)
		return -1;
	for (pos = hsize; stop - pos >= 4 && n < end - begin; n++) {
		size_t len = le16(c->ipi + pos);

		if (len < 2 || len > stop - pos - 2)
			break;
		l->ipi_off[n] = (uint32_t)pos;
		pos += 2 + len;
	}
	l->ipi_begin = begin;
	l->ipi_count = n;
	return 0;
}

/* One IPI record: kind, payload.  @return : 0, or -1 if none. */
static int
ipi_record(const struct pdb_lines *l, const struct pdb_lines_ctx *c,
    uint32_t ti, uint16_t *kind, const unsigned char **pl, size_t *len)
{
	uint32_t off;

	if (ti < l->ipi_begin || ti - l->ipi_begin >= l->ipi_count)
		return -1;
	off = l->ipi_off[ti - l->ipi_begin];
	*len = le16(c->ipi + off) - 2;
	*kind = le16(c->ipi + off + 2);
	*pl = c->ipi + off + 4;
	return 0;
}

/* The NUL-terminated name at `at` of a payload, or NULL. */
static const char *
payload_name(const unsigned char *pl, size_t len, size_t at, size_t *n)
{
	const unsigned char *nul;

	if (len <= at || (nul = memchr(pl + at, '\0', len - at)) == NULL)
		return NULL;
	*n = (size_t)(nul - pl - at);
	return (const char *)pl + at;
}

/*
 * The name of inlinee `id`: an LF_FUNC_ID's name after its scope's
 * (an LF_STRING_ID) and `::`, or an LF_MFUNC_ID's name.
 */
static uint32_t
inlinee_name(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    uint32_t id)
{
	const unsigned char *pl, *spl;
	const char *name, *scope = NULL;
	size_t len, slen, n, sn = 0;
	uint16_t kind, skind;
	struct buf b = { 0 };
	uint32_t r;

	if (ipi_record(l, c, id, &kind, &pl, &len) == -1)
		return 0;
	if (l->ipi_name[id - l->ipi_begin] != 0)
		return l->ipi_name[id - l->ipi_begin];
	if ((kind != LF_FUNC_ID && kind != LF_MFUNC_ID) ||
	    (name = payload_name(pl, len, 8, &n)) == NULL)
		return 0;
	if (kind == LF_FUNC_ID && le32(pl) != 0 &&
	    ipi_record(l, c, le32(pl), &skind, &spl, &slen) == 0 &&
	    skind == LF_STRING_ID)
		scope = payload_name(spl, slen, 4, &sn);
	if (scope != NULL && sn > 0) {
		buf_put(&b, scope, sn);
		buf_put(&b, "::", 2);
	}
	if (n > 0)
		buf_put(&b, name, n);
	buf_put_u8(&b, 0);
	r = b.oom ? 0 : intern_add(&l->strings, b.data, b.len, NULL);
	buf_release(&b);
	l->ipi_name[id - l->ipi_begin] = r;
	return r;
}

/* ---- line blocks (6.2) ---- */

static int
place(const struct pdb_lines_ctx *c, uint16_t seg, uint32_t off,
    uint32_t *rva)
{
	if (seg == 0 || seg > c->nsections ||
	    (uint64_t)c->sections[seg - 1].rva + off > UINT32_MAX)
		return -1;
	*rva = c->sections[seg - 1].rva + off;
	return 0;
}

static int
read_lines(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    const unsigned char *s, size_t len, const unsigned char *f4,
    size_t f4len, uint16_t module, uint64_t *bad)
{
	struct lsec sec;
	size_t pos = 12, n, i, bsize;
	uint32_t file;

	if (len < 12 || place(c, le16(s + 4), le32(s), &sec.rva) == -1) {
		(*bad)++;
		return 0;
	}
	sec.size = le32(s + 8);
	sec.first = (uint32_t)l->nlines;
	sec.module = module;
	while (len - pos >= 12) {
		file = file_name(l, c, f4, f4len, le32(s + pos));
		n = le32(s + pos + 4);
		bsize = le32(s + pos + 8);
		if (bsize < 12 || bsize > len - pos || n > (bsize - 12) / 8) {
			(*bad)++;
			break;
		}
		for (i = 0; i < n; i++) {
			const unsigned char *r = s + pos + 12 + 8 * i;
			struct line *ln;

			if (grow(&l->lines, &l->lines_cap, l->nlines,
			    sizeof(*ln)) == -1)
				return -1;
			ln = &l->lines[l->nlines++];
			ln->rva = sec.rva + le32(r);
			ln->line = le32(r + 4) & 0xffffff;
			ln->file = file;
		}
		pos += bsize;
	}
	sec.count = (uint32_t)(l->nlines - sec.first);
	if (sec.count == 0)
		return 0;
	if (grow(&l->lsecs, &l->lsecs_cap, l->nlsecs, sizeof(sec)) == -1)
		return -1;
	l->lsecs[l->nlsecs++] = sec;
	return 0;
}

/* The module's DEBUG_S_INLINEELINES entries (6.1), for the sites. */
static int
read_inlinees(struct pdb_lines *l, const unsigned char *s, size_t len)
{
	size_t pos = 4, extra;
	int ex;

	if (len < 4)
		return 0;
	ex = le32(s) == 1;
	while (len - pos >= 12) {
		struct inlinee *e;

		if (grow(&l->inlinees, &l->inlinees_cap, l->ninlinees,
		    sizeof(*e)) == -1)
			return -1;
		e = &l->inlinees[l->ninlinees++];
		e->id = le32(s + pos);
		e->file_off = le32(s + pos + 4);
		e->line = le32(s + pos + 8);
		pos += 12;
		if (ex) {
			if (len - pos < 4)
				break;
			extra = le32(s + pos);
			pos += 4;
			if (extra > (len - pos) / 4)
				break;
			pos += 4 * extra;
		}
	}
	return 0;
}

static const struct inlinee *
find_inlinee(const struct pdb_lines *l, uint32_t id)
{
	size_t i;

	/* Few per module, and each site looks once. */
	for (i = 0; i < l->ninlinees; i++)
		if (l->inlinees[i].id == id)
			return &l->inlinees[i];
	return NULL;
}

/* ---- inline sites (4.3) ---- */

/* A compressed annotation operand; @return 0, or -1 at the end. */
static int
annotation(const unsigned char *a, size_t len, size_t *pos, uint32_t *v)
{
	unsigned b0;

	if (*pos >= len)
		return -1;
	b0 = a[(*pos)++];
	if ((b0 & 0x80) == 0) {
		*v = b0;
		return 0;
	}
	if ((b0 & 0xc0) == 0x80) {
		if (*pos >= len)
			return -1;
		*v = (b0 & 0x3f) << 8 | a[(*pos)++];
		return 0;
	}
	if ((b0 & 0xe0) == 0xc0) {
		if (len - *pos < 3)
			return -1;
		*v = (uint32_t)(b0 & 0x1f) << 24 | (uint32_t)a[*pos] << 16 |
		    (uint32_t)a[*pos + 1] << 8 | a[*pos + 2];
		*pos += 3;
		return 0;
	}
	return -1;
}

static int32_t
signed_operand(uint32_t v)
{
	return v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
}

struct state {
	uint32_t proc_rva, proc_size;
	uint32_t code, line, file;
	int open;			/* the last range has no length yet */
};

static int
emit(struct pdb_lines *l, struct state *st)
{
	struct range *r;

	if (grow(&l->ranges, &l->ranges_cap, l->nranges, sizeof(*r)) == -1)
		return -1;
	r = &l->ranges[l->nranges++];
	r->rva = st->proc_rva + st->code;
	r->len = 0;
	r->line = st->line;
	r->file = st->file;
	st->open = 1;
	return 0;
}

/* Ends the open range at the new code offset, where the next begins. */
static void
close_range(struct pdb_lines *l, struct state *st, uint32_t first)
{
	struct range *r;

	if (!st->open || l->nranges == first)
		return;
	r = &l->ranges[l->nranges - 1];
	r->len = st->proc_rva + st->code - r->rva;
	st->open = 0;
}

/* Decodes a site's binary annotations into ranges. */
static int
decode_site(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    const unsigned char *f4, size_t f4len, struct state *st,
    const unsigned char *a, size_t len)
{
	uint32_t first = (uint32_t)l->nranges, op, v, v2;
	size_t pos = 0;

	while (annotation(a, len, &pos, &op) == 0 && op != 0) {
		if (annotation(a, len, &pos, &v) == -1)
			break;
		switch (op) {
		case 1:			/* CodeOffset */
			st->code = v;
			close_range(l, st, first);
			if (emit(l, st) == -1)
				return -1;
			break;
		case 3:			/* ChangeCodeOffset */
			st->code += v;
			close_range(l, st, first);
			if (emit(l, st) == -1)
				return -1;
			break;
		case 4:			/* ChangeCodeLength */
			if (st->open && l->nranges > first) {
				l->ranges[l->nranges - 1].len = v;
				st->open = 0;
			}
			st->code += v;
			break;
		case 5:			/* ChangeFile */
			st->file = file_name(l, c, f4, f4len, v);
			break;
		case 6:			/* ChangeLineOffset */
			st->line += (uint32_t)signed_operand(v);
			break;
		case 11:		/* ChangeCodeOffsetAndLineOffset */
			st->code += v & 0xf;
			close_range(l, st, first);
			st->line += (uint32_t)signed_operand(v >> 4);
			if (emit(l, st) == -1)
				return -1;
			break;
		case 12:		/* ChangeCodeLengthAndCodeOffset */
			if (annotation(a, len, &pos, &v2) == -1)
				return 0;
			st->code += v2;
			close_range(l, st, first);
			if (emit(l, st) == -1)
				return -1;
			l->ranges[l->nranges - 1].len = v;
			st->open = 0;
			st->code += v;
			break;
		default:		/* base, kinds, columns: no address */
			break;
		}
	}
	/* A last range without a length runs to the procedure's end. */
	if (st->open && l->nranges > first) {
		struct range *r = &l->ranges[l->nranges - 1];

		r->len = st->proc_rva + st->proc_size > r->rva ?
		    st->proc_rva + st->proc_size - r->rva : 1;
	}
	return 0;
}

static int
add_site(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    const unsigned char *f4, size_t f4len, uint16_t kind,
    const unsigned char *pl, size_t len, uint32_t proc_rva,
    uint32_t proc_size, uint16_t module, unsigned depth)
{
	size_t fixed = kind == S_INLINESITE2 ? 16 : 12;
	const struct inlinee *in;
	struct state st;
	struct site *s;
	uint32_t id;

	if (len < fixed)
		return 1;
	id = le32(pl + 8);
	memset(&st, 0, sizeof(st));
	st.proc_rva = proc_rva;
	st.proc_size = proc_size;
	if ((in = find_inlinee(l, id)) != NULL) {
		st.line = in->line;
		st.file = file_name(l, c, f4, f4len, in->file_off);
	}
	if (grow(&l->sites, &l->sites_cap, l->nsites, sizeof(*s)) == -1)
		return -1;
	s = &l->sites[l->nsites];
	s->proc_rva = proc_rva;
	s->module = module;
	s->depth = (uint16_t)depth;
	s->name = inlinee_name(l, c, id);
	s->first = (uint32_t)l->nranges;
	s->order = (uint32_t)l->nsites;
	l->nsites++;
	if (decode_site(l, c, f4, f4len, &st, pl + fixed, len - fixed) == -1)
		return -1;
	s = &l->sites[l->nsites - 1];
	s->count = (uint32_t)(l->nranges - s->first);
	return 0;
}

/* The symbols: procedures and the inline sites under them. */
static int
walk_symbols(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    const unsigned char *s, size_t end, const unsigned char *f4,
    size_t f4len, uint16_t module, uint64_t *bad)
{
	size_t pos = 4, reclen;
	uint32_t proc_rva = 0, proc_size = 0;
	unsigned depth = 0;
	int in_proc = 0, rc;

	while (end - pos >= 4) {
		uint16_t kind;
		const unsigned char *pl;

		reclen = le16(s + pos);
		if (reclen < 2 || reclen > end - pos - 2)
			return 0;
		kind = le16(s + pos + 2);
		pl = s + pos + 4;
		switch (kind) {
		case PDB_S_GPROC32:
		case PDB_S_LPROC32:
		case PDB_S_GPROC32_ID:
		case PDB_S_LPROC32_ID:
			in_proc = reclen - 2 >= 35 && place(c, le16(pl + 32),
			    le32(pl + 28), &proc_rva) == 0;
			proc_size = in_proc ? le32(pl + 12) : 0;
			depth = 0;
			break;
		case S_INLINESITE:
		case S_INLINESITE2:
			if (in_proc && depth < MAX_DEPTH) {
				rc = add_site(l, c, f4, f4len, kind, pl,
				    reclen - 2, proc_rva, proc_size, module,
				    depth);
				if (rc == -1)
					return -1;
				if (rc == 1)
					(*bad)++;
			}
			depth++;
			break;
		case S_INLINESITE_END:
			if (depth > 0)
				depth--;
			break;
		}
		pos += 2 + reclen;
	}
	return 0;
}

int
pdb_lines_module(struct pdb_lines *l, const struct pdb_lines_ctx *c,
    const unsigned char *s, size_t len, size_t sym_end, size_t c13_start,
    size_t c13_end, uint16_t module, uint64_t *bad)
{
	const unsigned char *f4 = NULL;
	size_t pos, f4len = 0, size;
	uint32_t kind;
	int pass;

	if (c13_end > len)
		c13_end = len;
	if (sym_end > len)
		sym_end = len;
	l->ninlinees = 0;
	/* First the file checksums and inlinee lines the others use. */
	for (pass = 0; pass < 2; pass++)
		for (pos = c13_start; c13_end > pos && c13_end - pos >= 8;
		    pos += (8 + size + 3) & ~(size_t)3) {
			kind = le32(s + pos);
			size = le32(s + pos + 4);
			if (size > c13_end - pos - 8) {
				(*bad)++;
				break;
			}
			if (pass == 0 && kind == DEBUG_S_FILECHKSMS) {
				f4 = s + pos + 8;
				f4len = size;
			} else if (pass == 0 && kind == DEBUG_S_INLINEELINES) {
				if (read_inlinees(l, s + pos + 8, size) == -1)
					return -1;
			} else if (pass == 1 && kind == DEBUG_S_LINES) {
				if (read_lines(l, c, s + pos + 8, size, f4,
				    f4len, module, bad) == -1)
					return -1;
			}
		}
	if (sym_end >= 4 && l->ipi_count + l->ninlinees > 0)
		return walk_symbols(l, c, s, sym_end, f4, f4len, module, bad);
	return 0;
}

/* ---- lookup ---- */

static int
cmp_lsec(const void *a, const void *b)
{
	const struct lsec *x = a, *y = b;

	if (x->rva != y->rva)
		return x->rva < y->rva ? -1 : 1;
	return x->module < y->module ? -1 : x->module > y->module;
}

static int
cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->proc_rva != y->proc_rva)
		return x->proc_rva < y->proc_rva ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Sorts one contribution's records by address, stably: insertion sort,
 * linear on the tables compilers write, which are in order already.  A
 * hostile table out of order costs at most its square once, bounded by
 * LSEC_SORT_MAX; a longer one is cut there.
 */
static void
sort_lsec(struct pdb_lines *l, struct lsec *s)
{
	struct line *e = l->lines + s->first, t;
	uint32_t i, j, moves = 0;

	for (i = 1; i < s->count; i++) {
		if (e[i - 1].rva <= e[i].rva)
			continue;
		t = e[i];
		for (j = i; j > 0 && e[j - 1].rva > t.rva; j--) {
			e[j] = e[j - 1];
			if (++moves > LSEC_SORT_MAX) {
				e[j - 1] = t;
				s->count = i;
				return;
			}
		}
		e[j] = t;
	}
}

int
pdb_lines_finish(struct pdb_lines *l)
{
	uint32_t i;
	size_t len;

	for (len = 0; len < l->nlsecs; len++)
		sort_lsec(l, &l->lsecs[len]);
	if (l->nlsecs > 0)
		qsort(l->lsecs, l->nlsecs, sizeof(*l->lsecs), cmp_lsec);
	if (l->nsites > 0)
		qsort(l->sites, l->nsites, sizeof(*l->sites), cmp_site);
	l->string_of = calloc((size_t)l->strings.count + 1,
	    sizeof(*l->string_of));
	if (l->string_of == NULL)
		return -1;
	for (i = 1; i <= l->strings.count; i++)
		l->string_of[i] = intern_key(&l->strings, i, &len);
	free(l->inlinees);
	l->inlinees = NULL;
	l->ninlinees = l->inlinees_cap = 0;
	return 0;
}

static const char *
string_of(const struct pdb_lines *l, uint32_t id)
{
	return id != 0 && l->string_of != NULL ? l->string_of[id] : NULL;
}

/*
 * The record of a contribution that covers rva (6.4): the first whose
 * start is rva, else the last that starts below it (a record covers up
 * to the next one's start; records that share a start cover only it),
 * else, before the first record, the first.  The records were sorted
 * by address at the end of opening (stably, so file order decides
 * among equal starts, and sorted tables, the rule, are unchanged), so
 * this is a bisection.
 */
static const struct line *
in_lsec(const struct pdb_lines *l, const struct lsec *s, uint32_t rva)
{
	const struct line *e = l->lines + s->first;
	uint32_t lo = 0, hi = s->count, mid;

	while (lo < hi) {		/* the first record at or after rva */
		mid = lo + (hi - lo) / 2;
		if (e[mid].rva < rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->count && e[lo].rva == rva)
		return &e[lo];
	if (lo == 0)
		return s->count > 0 && rva - s->rva < s->size ? &e[0] : NULL;
	return &e[lo - 1];
}

int
pdb_lines_find(const struct pdb_lines *l, uint32_t rva, int owner,
    const char **file, uint32_t *line)
{
	size_t lo = 0, hi = l->nlsecs, mid, steps;
	const struct lsec *best = NULL, *s;
	const struct line *e;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->lsecs[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Contributions overlap only where code was folded: look back a
	 * little for the owner's. */
	for (steps = 0; lo > 0 && steps < 64; lo--, steps++) {
		s = &l->lsecs[lo - 1];
		if (rva - s->rva >= s->size)
			continue;
		if (best == NULL)
			best = s;
		if ((int)s->module == owner) {
			best = s;
			break;
		}
	}
	if (best == NULL || (e = in_lsec(l, best, rva)) == NULL)
		return -1;
	*file = string_of(l, e->file);
	*line = e->line;
	if (*file == NULL)
		*file = "??";
	return 0;
}

size_t
pdb_lines_inlines(const struct pdb_lines *l, uint16_t module,
    uint32_t proc_rva, uint32_t rva, struct pdb_frame *out, size_t cap)
{
	size_t lo = 0, hi = l->nsites, mid, n = 0, i, j;
	const struct site *s;
	struct site key;
	int depth[MAX_DEPTH];

	key.module = module;
	key.proc_rva = proc_rva;
	key.order = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_site(&l->sites[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->nsites; lo++) {
		s = &l->sites[lo];
		if (s->module != module || s->proc_rva != proc_rva)
			break;
		for (i = 0; i < s->count; i++) {
			const struct range *r = &l->ranges[s->first + i];

			if (rva - r->rva < r->len)
				break;
		}
		if (i == s->count || n == cap || n == MAX_DEPTH)
			continue;
		/* Keep the frames innermost (deepest) first. */
		for (j = n; j > 0 && depth[j - 1] < s->depth; j--) {
			out[j] = out[j - 1];
			depth[j] = depth[j - 1];
		}
		out[j].name = string_of(l, s->name);
		out[j].file = string_of(l, l->ranges[s->first + i].file);
		out[j].line = l->ranges[s->first + i].line;
		out[j].inlined = 1;
		if (out[j].name == NULL)
			out[j].name = "??";
		if (out[j].file == NULL)
			out[j].file = "??";
		depth[j] = s->depth;
		n++;
	}
	return n;
}
