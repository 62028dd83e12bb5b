/*
 * sym_stream.c - the symbol records of each section (sym_stream.h).
 *
 * Uses are keyed {process definition, what, value}: `what` 0 for a
 * stack id, 1 for an instruction pointer.  PDBs are keyed by their
 * identity {GUID, age, file name}, so an image loaded in many processes
 * and sections costs one search and one open.
 */
#include <stdlib.h>
#include <string.h>

#include "stream/frames.h"
#include "base/intern.h"
#include "base/value.h"
#include "pdb.h"
#include "sym_resolve.h"
#include "sym_stream.h"

#define FRAMES_CAP	4096
#define SUMMARY_LINES	20	/* images the summary lists without -v */

struct use {
	uint32_t process, what;
	uint64_t value;
};

/* A PDB looked for, once a run. */
struct pdbent {
	enum sym_status status;
	struct pdb *pdb;
	char *path, *message, *name, *image;
	unsigned char guid[16];
	uint32_t age;
	uint64_t frames, addresses, named;	/* over the run */
	int told;				/* its error was said */
};

/* An image of the current section that stacks touched. */
struct imgent {
	stream_id image;
	uint64_t frames, addresses, named;
};

/*
 * The PDB identity of an image, its own or, for an image definition
 * without one (an unload event, a rundown), that of another definition
 * of the same mapping (pid, base, size) in the section.
 */
struct ident {
	unsigned char guid[16];
	uint32_t age;
	const char *pdb;
	const char *path;
};

struct mapping {
	uint64_t pid, base, size;
};

struct sym_stream {
	struct sym_path *sp;
	const char *prog;
	struct frames *frames;
	struct intern uses;		/* struct use */
	uint64_t *use_counts;
	size_t use_counts_cap;
	struct intern addrs;		/* {image id, address} */
	struct intern images;		/* image id -> index into imgs */
	struct imgent *imgs;
	size_t imgs_cap;
	struct intern mappings;		/* struct mapping with an identity */
	stream_id *mapping_image;	/* its REC_IMAGE, by id - 1 */
	size_t mapping_image_cap;
	struct intern imagekeys;	/* {timestamp, size, name} looked for */
	struct sym_pe *images_found;	/* by imagekeys id - 1; has_codeview */
	size_t images_found_cap;
	struct intern pdbkeys;		/* identity -> index into pdbs */
	struct pdbent *pdbs;
	size_t pdbs_cap;
	uint64_t frame_buf[FRAMES_CAP];
	struct sym_answer answer;
	stream_id next_symbol;
	int flushed;			/* this section's records are out */
};

struct sym_stream *
sym_stream_new(struct sym_path *sp, const char *prog)
{
	struct sym_stream *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->sp = sp;
	s->prog = prog;
	if ((s->frames = frames_new(0)) == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

void
sym_stream_free(struct sym_stream *s)
{
	size_t i;

	if (s == NULL)
		return;
	frames_free(s->frames);
	intern_release(&s->uses);
	intern_release(&s->addrs);
	intern_release(&s->images);
	intern_release(&s->mappings);
	free(s->mapping_image);
	free(s->use_counts);
	free(s->imgs);
	for (i = 0; i < s->pdbkeys.count; i++) {
		pdb_free(s->pdbs[i].pdb);
		free(s->pdbs[i].path);
		free(s->pdbs[i].message);
		free(s->pdbs[i].name);
		free(s->pdbs[i].image);
	}
	intern_release(&s->pdbkeys);
	intern_release(&s->imagekeys);
	free(s->images_found);
	free(s->pdbs);
	buf_release(&s->answer.name);
	free(s);
}

static void
reset_section(struct sym_stream *s)
{
	intern_clear(&s->uses);
	intern_clear(&s->addrs);
	intern_clear(&s->images);
	intern_clear(&s->mappings);
	s->next_symbol = 0;
	s->flushed = 0;
}

static int
add_use(struct sym_stream *s, uint32_t process, uint32_t what,
    uint64_t value)
{
	struct use u;
	uint64_t *n;
	uint32_t id;

	memset(&u, 0, sizeof(u));
	u.process = process;
	u.what = what;
	u.value = value;
	if ((id = intern_add(&s->uses, &u, sizeof(u), NULL)) == 0 ||
	    (n = array_slot(&s->use_counts, &s->use_counts_cap, id - 1,
	    sizeof(*n))) == NULL)
		return -1;
	(*n)++;
	return 0;
}

static int
has_identity(const struct stream_image *im)
{
	static const unsigned char zero[16];

	return memcmp(im->pdb_guid, zero, 16) != 0 && im->pdb_name != NULL &&
	    *im->pdb_name != '\0';
}

static int
note_mapping(struct sym_stream *s, const struct stream_image *im)
{
	struct mapping m = { im->pid, im->base, im->size };
	stream_id *slot;
	uint32_t k;

	if ((k = intern_add(&s->mappings, &m, sizeof(m), NULL)) == 0 ||
	    (slot = array_slot(&s->mapping_image, &s->mapping_image_cap,
	    k - 1, sizeof(*slot))) == NULL)
		return -1;
	*slot = im->id;
	return 0;
}

/*
 * The identity from the image file, found in the symbol path by its
 * time stamp and size (once a run for each).  @return NULL if none.
 */
static const struct sym_pe *
image_file(struct sym_stream *s, const struct stream_image *im)
{
	unsigned char key[8 + 512];
	const char *name = frames_base_name(im->path);
	size_t n = strlen(name) < 512 ? strlen(name) : 512;
	struct sym_pe *pe;
	uint32_t k;
	int added;

	if (im->timestamp == 0 || im->size == 0 || n == 0)
		return NULL;
	memcpy(key, &im->timestamp, 4);
	memcpy(key + 4, &im->size, 4);
	memcpy(key + 8, name, n);
	if ((k = intern_add(&s->imagekeys, key, 8 + n, &added)) == 0 ||
	    (pe = array_slot(&s->images_found, &s->images_found_cap, k - 1,
	    sizeof(*pe))) == NULL)
		return NULL;
	if (added && sym_path_find_image(s->sp, name, im->timestamp,
	    (uint32_t)im->size, pe) != 0)
		memset(pe, 0, sizeof(*pe));
	return pe->has_codeview ? pe : NULL;
}

/*
 * The identity of image `im`: its own, that of another definition of
 * its mapping, or its image file's.  @return 0, or -1 if it has none.
 */
static int
identity_of(struct sym_stream *s, const struct stream_reader *r,
    const struct stream_image *im, struct ident *id)
{
	struct mapping m = { im->pid, im->base, im->size };
	const struct sym_pe *pe;
	uint32_t k;

	if (!has_identity(im)) {
		if ((k = intern_find(&s->mappings, &m, sizeof(m))) != 0 &&
		    stream_image(r, s->mapping_image[k - 1]) != NULL)
			im = stream_image(r, s->mapping_image[k - 1]);
		else if ((pe = image_file(s, im)) != NULL) {
			memcpy(id->guid, pe->guid, 16);
			id->age = pe->age;
			id->pdb = pe->pdb;
			id->path = im->path && *im->path ? im->path : "";
			return 0;
		} else
			return -1;
	}
	memcpy(id->guid, im->pdb_guid, 16);
	id->age = im->pdb_age;
	id->pdb = im->pdb_name;
	id->path = im->path && *im->path ? im->path : im->original_name ?
	    im->original_name : "";
	return 0;
}

int
sym_stream_record(struct sym_stream *s, const struct stream_reader *r,
    const struct stream_record *rec)
{
	const struct stream_event *ev = &rec->u.event;
	const struct stream_process *p;
	uint32_t def;
	uint64_t ip;

	if (rec->type == REC_HEADER) {
		reset_section(s);
		/* The use counts restart with the ids. */
		if (s->use_counts != NULL)
			memset(s->use_counts, 0, s->use_counts_cap *
			    sizeof(*s->use_counts));
	}
	if (frames_record(s->frames, r, rec) != 0)
		return -1;
	if (rec->type == REC_IMAGE && has_identity(&rec->u.image))
		return note_mapping(s, &rec->u.image);
	if (rec->type != REC_EVENT)
		return 0;
	p = stream_process_by_pid(r, ev->h.pid);
	def = p != NULL ? p->id : 0;
	if (ev->h.stack != 0 && add_use(s, def, 0, ev->h.stack) != 0)
		return -1;
	if (ev->h.kind == EV_SAMPLE &&
	    (ip = stream_event_u(ev, "ip", 0)) != 0 &&
	    add_use(s, def, 1, ip) != 0)
		return -1;
	return 0;
}

/* The section's entry of image `id`. */
static struct imgent *
image_entry(struct sym_stream *s, stream_id id)
{
	uint32_t k;
	struct imgent *e;
	int added;

	if ((k = intern_add(&s->images, &id, sizeof(id), &added)) == 0 ||
	    (e = array_slot(&s->imgs, &s->imgs_cap, k - 1, sizeof(*e))) ==
	    NULL)
		return NULL;
	if (added) {
		memset(e, 0, sizeof(*e));
		e->image = id;
	}
	return e;
}

/* Places one address of a use in its image. */
static int
place(struct sym_stream *s, uint32_t process, uint64_t addr, uint64_t n)
{
	uint64_t key[2];
	struct imgent *e;
	stream_id im = frames_image(s->frames, process, addr);
	int added;

	if (im == 0)
		return 0;
	if ((e = image_entry(s, im)) == NULL)
		return -1;
	e->frames += n;
	key[0] = im;
	key[1] = addr;
	if (intern_add(&s->addrs, key, sizeof(key), &added) == 0)
		return -1;
	if (added)
		e->addresses++;
	return 0;
}

static int
collect(struct sym_stream *s, const struct stream_reader *r)
{
	uint32_t id;
	size_t len;
	long n, i;

	for (id = 1; id <= s->uses.count; id++) {
		const struct use *u = intern_key(&s->uses, id, &len);
		uint64_t count = s->use_counts[id - 1];

		if (u->what == 1) {
			if (place(s, u->process, u->value, count) != 0)
				return -1;
			continue;
		}
		n = stream_stack_frames(r, (stream_id)u->value, s->frame_buf,
		    FRAMES_CAP);
		for (i = 0; i < n; i++)
			if (place(s, u->process, s->frame_buf[i], count) != 0)
				return -1;
	}
	return 0;
}

static char *
dup(const char *t)
{
	size_t n = strlen(t ? t : "") + 1;
	char *d = malloc(n);

	if (d != NULL)
		memcpy(d, t ? t : "", n);
	return d;
}

/* The run's PDB entry of an identity, looked for the first time here. */
static struct pdbent *
pdb_of(struct sym_stream *s, const struct ident *im)
{
	unsigned char key[16 + 4 + 512];
	const char *name = frames_base_name(im->pdb);
	size_t n = strlen(name) < 512 ? strlen(name) : 512;
	struct sym_found found;
	struct pdbent *e;
	uint32_t k;
	int added;

	memcpy(key, im->guid, 16);
	memcpy(key + 16, &im->age, 4);
	memcpy(key + 20, name, n);
	if ((k = intern_add(&s->pdbkeys, key, 20 + n, &added)) == 0 ||
	    (e = array_slot(&s->pdbs, &s->pdbs_cap, k - 1, sizeof(*e))) ==
	    NULL)
		return NULL;
	if (!added)
		return e;
	memset(e, 0, sizeof(*e));
	memcpy(e->guid, im->guid, 16);
	e->age = im->age;
	if (sym_path_find(s->sp, im->pdb, im->guid, im->age, NULL,
	    &found) != 0)
		return NULL;
	e->status = found.status;
	e->pdb = found.pdb;
	e->path = dup(found.path);
	e->message = dup(found.message);
	e->name = dup(name);
	e->image = dup(frames_base_name(im->path));
	if (e->path == NULL || e->message == NULL || e->name == NULL ||
	    e->image == NULL)
		return NULL;
	if (e->status == SYM_CORRUPT && s->prog != NULL) {
		fprintf(stderr, "%s: %s: %s\n", s->prog, e->path, e->message);
		e->told = 1;
	}
	return e;
}

static int
write_symbols(struct sym_stream *s, const struct stream_reader *r,
    struct stream_writer *w)
{
	struct stream_inline in[STREAM_INLINE_MAX];
	struct sym_answer *a = &s->answer;
	struct stream_symbol sym;
	uint32_t id;
	size_t len, i;

	for (id = 1; id <= s->addrs.count; id++) {
		const uint64_t *key = intern_key(&s->addrs, id, &len);
		const struct stream_image *im = stream_image(r,
		    (stream_id)key[0]);
		struct imgent *e = image_entry(s, (stream_id)key[0]);
		struct pdbent *p;
		struct ident ide;

		if (im == NULL || e == NULL || identity_of(s, r, im, &ide) != 0)
			continue;
		if ((p = pdb_of(s, &ide)) == NULL)
			return -1;
		if (p->pdb == NULL || key[1] - im->base > UINT32_MAX)
			continue;
		sym_resolve(p->pdb, (uint32_t)(key[1] - im->base), 1, a);
		if (a->function == NULL)
			continue;
		memset(&sym, 0, sizeof(sym));
		sym.id = ++s->next_symbol;
		sym.image = im->id;
		sym.address = key[1];
		sym.function = a->function;
		sym.offset = a->offset;
		sym.file = a->file != NULL ? a->file : "";
		sym.line = a->line;
		for (i = 0; i < a->ninlines && i < STREAM_INLINE_MAX; i++) {
			in[i].function = a->inlines[i].name;
			in[i].file = a->inlines[i].file;
			in[i].line = a->inlines[i].line;
		}
		sym.ninlines = (uint32_t)i;
		sym.inlines = in;
		if (stream_write_symbol(w, &sym) != 0)
			return -1;
		e->named++;
	}
	return 0;
}

static int
write_image_records(struct sym_stream *s, const struct stream_reader *r,
    struct stream_writer *w)
{
	struct stream_image_symbols is;
	uint32_t k;

	for (k = 1; k <= s->images.count; k++) {
		struct imgent *e = &s->imgs[k - 1];
		const struct stream_image *im = stream_image(r, e->image);
		struct pdbent *p = NULL;
		struct ident id;

		memset(&is, 0, sizeof(is));
		is.image = e->image;
		is.frames = e->frames;
		is.addresses = e->addresses;
		is.named = e->named;
		is.pdb_path = "";
		is.message = "";
		is.pdb_name = "";
		if (im == NULL || identity_of(s, r, im, &id) != 0)
			is.status = STREAM_SYM_NO_ID;
		else if ((p = pdb_of(s, &id)) == NULL)
			return -1;
		else {
			memcpy(is.pdb_guid, id.guid, 16);
			is.pdb_age = id.age;
			is.pdb_name = frames_base_name(id.pdb);
			is.status = (uint8_t)p->status;
			is.pdb_path = p->path;
			is.message = p->message;
			p->frames += e->frames;
			p->addresses += e->addresses;
			p->named += e->named;
		}
		if (stream_write_image_symbols(w, &is) != 0)
			return -1;
	}
	return 0;
}

int
sym_stream_flush(struct sym_stream *s, const struct stream_reader *r,
    struct stream_writer *w)
{
	if (s->flushed)
		return 0;
	s->flushed = 1;
	if (collect(s, r) != 0 || write_symbols(s, r, w) != 0 ||
	    write_image_records(s, r, w) != 0)
		return -1;
	return 0;
}

static int
cmp_frames(const void *a, const void *b)
{
	const struct pdbent *x = *(const struct pdbent *const *)a;
	const struct pdbent *y = *(const struct pdbent *const *)b;

	return x->frames < y->frames ? 1 : x->frames > y->frames ? -1 : 0;
}

static const char *const status_names[] = {
	[SYM_NOT_FOUND] = "not found", [SYM_FOUND] = "found",
	[SYM_MISMATCH] = "mismatched", [SYM_CORRUPT] = "corrupt",
	[SYM_NO_ID] = "no PDB identity",
};

int
sym_stream_summary(struct sym_stream *s, FILE *fp, int verbose)
{
	struct pdbent **order;
	char key[41];
	size_t i, n = s->pdbkeys.count, shown = 0, more = 0;
	int bad = 0;

	if ((order = malloc((n + 1) * sizeof(*order))) == NULL)
		return 0;
	for (i = 0; i < n; i++)
		order[i] = &s->pdbs[i];
	qsort(order, n, sizeof(*order), cmp_frames);
	for (i = 0; i < n; i++) {
		const struct pdbent *e = order[i];

		if (e->status == SYM_CORRUPT)
			bad = 1;
		if (verbose < 0 && e->status != SYM_CORRUPT)
			continue;
		if (verbose == 0 && shown == SUMMARY_LINES &&
		    e->status != SYM_CORRUPT) {
			more++;
			continue;
		}
		shown++;
		value_format_pdb_key(e->guid, e->age, key);
		fprintf(fp, "%s: %s: %s %s: %s%s%s (%llu frames, %llu of %llu "
		    "addresses named)\n", s->prog, e->image, e->name, key,
		    status_names[e->status], *e->path ? " " : "", e->path,
		    (unsigned long long)e->frames,
		    (unsigned long long)e->named,
		    (unsigned long long)e->addresses);
		if (e->status == SYM_MISMATCH || (e->status == SYM_NOT_FOUND &&
		    *e->message))
			fprintf(fp, "%s:   %s\n", s->prog, e->message);
	}
	if (more > 0)
		fprintf(fp, "%s: and %zu more images with fewer frames (-v "
		    "lists them)\n", s->prog, more);
	free(order);
	return bad;
}
