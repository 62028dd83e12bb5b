/*
 * frames.c - frame names from the image definitions of a section.
 *
 * Images are kept in one array, sorted by (process, base) when the first
 * name is asked for after a change, and searched by bisection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "frames.h"

/*
 * Images before the nearest one by base that are tried when it does not
 * cover the address: ranges overlap only when an image was unloaded and
 * another loaded where it was, so a few are enough.
 */
#define OVERLAP_TRIES	8

#define KERNEL		0		/* the process key of pid 0's images */
#define NO_PROCESS	UINT32_MAX	/* an image whose process is unknown */

struct image_range {
	stream_id id;			/* the REC_IMAGE */
	stream_id process;
	uint32_t order;			/* definition order, for ties */
	uint64_t base, size;
	size_t name, len;		/* the module name in f->names */
};

/* What a REC_SYMBOL said of an address: its names in f->symnames. */
struct symbol {
	size_t function, flen;		/* the function's name */
	uint32_t first, ninlines;	/* its inlined frames in f->inlines */
};

struct inline_frame {
	size_t function, flen;
};

struct frames {
	unsigned flags;
	struct buf images;		/* struct image_range */
	struct buf names;		/* module names, back to back */
	uint32_t nimages;
	int sorted;
	struct intern symkeys;		/* (image id, address) */
	struct symbol *symbols;		/* by symkeys id - 1 */
	size_t symbols_cap;
	struct inline_frame *inlines;
	size_t ninlines, inlines_cap;
	struct buf symnames;		/* function names, back to back */
};

struct frames *
frames_new(unsigned flags)
{
	struct frames *f = calloc(1, sizeof(*f));

	if (f != NULL)
		f->flags = flags;
	return f;
}

void
frames_free(struct frames *f)
{
	if (f == NULL)
		return;
	buf_release(&f->images);
	buf_release(&f->names);
	intern_release(&f->symkeys);
	free(f->symbols);
	free(f->inlines);
	buf_release(&f->symnames);
	free(f);
}

const char *
frames_base_name(const char *path)
{
	const char *p, *s = path;

	for (p = path; *p != '\0'; p++)
		if (*p == '\\' || *p == '/')
			s = p + 1;
	return s;
}

static stream_id
image_process(const struct stream_reader *r, const struct stream_image *im)
{
	const struct stream_process *p;

	if (im->pid == 0)
		return KERNEL;
	if (im->process != 0)
		return im->process;
	p = stream_process_by_pid(r, im->pid);
	return p != NULL ? p->id : NO_PROCESS;
}

static int
add_image(struct frames *f, const struct stream_reader *r,
    const struct stream_image *im)
{
	const char *name = frames_base_name(im->path);
	struct image_range *ir;

	if (*name == '\0' && im->original_name != NULL)
		name = im->original_name;
	if (*name == '\0')
		name = "unknown";
	if ((ir = (struct image_range *)buf_reserve(&f->images,
	    sizeof(*ir))) == NULL)
		return -1;
	ir->id = im->id;
	ir->process = image_process(r, im);
	ir->order = f->nimages++;
	ir->base = im->base;
	ir->size = im->size;
	ir->name = f->names.len;
	ir->len = strlen(name);
	f->images.len += sizeof(*ir);
	buf_put(&f->names, name, ir->len);
	f->sorted = 0;
	return f->names.oom ? -1 : 0;
}

/* Copies a name into f->symnames; @return its offset. */
static size_t
put_name(struct frames *f, const char *name, size_t *len)
{
	size_t at = f->symnames.len;

	*len = strlen(name);
	if (*len > 0)
		buf_put(&f->symnames, name, *len);
	return at;
}

/* Keeps what a REC_SYMBOL says; a second one for an address wins. */
static int
add_symbol(struct frames *f, const struct stream_symbol *sym)
{
	uint64_t key[2] = { sym->image, sym->address };
	struct symbol *s;
	uint32_t id, i;

	if (sym->function == NULL || *sym->function == '\0')
		return 0;
	if ((id = intern_add(&f->symkeys, key, sizeof(key), NULL)) == 0 ||
	    (s = array_slot(&f->symbols, &f->symbols_cap, id - 1,
	    sizeof(*s))) == NULL)
		return -1;
	s->function = put_name(f, sym->function, &s->flen);
	s->first = (uint32_t)f->ninlines;
	s->ninlines = 0;
	for (i = 0; i < sym->ninlines; i++) {
		struct inline_frame *in = array_slot(&f->inlines,
		    &f->inlines_cap, f->ninlines, sizeof(*in));

		if (in == NULL)
			return -1;
		in->function = put_name(f, sym->inlines[i].function,
		    &in->flen);
		f->ninlines++;
		s->ninlines++;
	}
	return f->symnames.oom ? -1 : 0;
}

int
frames_record(struct frames *f, const struct stream_reader *r,
    const struct stream_record *rec)
{
	switch (rec->type) {
	case REC_HEADER:
		f->images.len = f->names.len = 0;
		f->nimages = 0;
		f->sorted = 0;
		intern_clear(&f->symkeys);
		f->ninlines = 0;
		f->symnames.len = 0;
		return 0;
	case REC_IMAGE:
		return add_image(f, r, &rec->u.image);
	case REC_SYMBOL:
		return add_symbol(f, &rec->u.symbol);
	default:
		return 0;
	}
}

static int
cmp_images(const void *a, const void *b)
{
	const struct image_range *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The image of `process` that covers addr, or NULL. */
static const struct image_range *
find_image(const struct frames *f, stream_id process, uint64_t addr)
{
	const struct image_range *im = (const struct image_range *)
	    f->images.data;
	size_t lo = 0, hi = f->nimages, tries;

	/* The first image after every one at or below (process, addr). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im[mid].process < process || (im[mid].process == process &&
		    im[mid].base <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (tries = 0; lo > 0 && tries < OVERLAP_TRIES; tries++) {
		const struct image_range *c = &im[--lo];

		if (c->process != process)
			break;
		if (addr - c->base < c->size)
			return c;
	}
	return NULL;
}

/* The image that covers addr in process, then in the kernel's. */
static const struct image_range *
image_of(struct frames *f, stream_id process, uint64_t addr)
{
	const struct image_range *im = NULL;

	if (!f->sorted && f->nimages > 0)
		qsort(f->images.data, f->nimages, sizeof(struct image_range),
		    cmp_images);
	f->sorted = 1;
	if (process != KERNEL)
		im = find_image(f, process, addr);
	if (im == NULL)
		im = find_image(f, KERNEL, addr);
	return im;
}

stream_id
frames_image(struct frames *f, stream_id process, uint64_t addr)
{
	const struct image_range *im = image_of(f, process, addr);

	return im != NULL ? im->id : 0;
}

/* What a REC_SYMBOL said of addr in image `im`, or NULL. */
static const struct symbol *
symbol_of(const struct frames *f, const struct image_range *im,
    uint64_t addr)
{
	uint64_t key[2] = { im->id, addr };
	uint32_t id;

	if (f->symkeys.count == 0 || (id = intern_find(&f->symkeys, key,
	    sizeof(key))) == 0)
		return NULL;
	return &f->symbols[id - 1];
}

size_t
frames_name(struct frames *f, stream_id process, uint64_t addr, char *buf,
    size_t cap)
{
	return frames_name_at(f, process, addr, SIZE_MAX, buf, cap);
}

size_t
frames_inlined(struct frames *f, stream_id process, uint64_t addr)
{
	const struct image_range *im;
	const struct symbol *s;

	if ((f->flags & FRAMES_ADDRESSES) || f->ninlines == 0 ||
	    (im = image_of(f, process, addr)) == NULL ||
	    (s = symbol_of(f, im, addr)) == NULL)
		return 0;
	return s->ninlines;
}

/*
 * A name being made in buf (cap bytes): what snprintf() would make of
 * it, without parsing a format for each of the thousands of frames a
 * section names.  `len` counts what would be written, past cap too.
 */
struct name {
	char *buf;
	size_t cap, len;
};

static void
name_put(struct name *nm, const char *s, size_t n)
{
	n = strnlen(s, n);	/* as "%.*s": a name ends at a NUL */
	if (nm->len < nm->cap) {
		size_t room = nm->cap - 1 - nm->len;

		memcpy(nm->buf + nm->len, s, n < room ? n : room);
	}
	nm->len += n;
}

static void
name_hex(struct name *nm, uint64_t v)
{
	char digits[2 + 16], *p = digits + sizeof(digits);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	*--p = 'x';
	*--p = '0';
	name_put(nm, p, (size_t)(digits + sizeof(digits) - p));
}

/* The length made, the name ended with a NUL where it fits. */
static size_t
name_end(struct name *nm)
{
	if (nm->cap > 0)
		nm->buf[nm->len < nm->cap ? nm->len : nm->cap - 1] = '\0';
	return nm->len;
}

size_t
frames_name_at(struct frames *f, stream_id process, uint64_t addr,
    size_t level, char *buf, size_t cap)
{
	const struct image_range *im = NULL;
	const struct symbol *s = NULL;
	struct name nm = { buf, cap, 0 };

	if (!(f->flags & FRAMES_ADDRESSES))
		im = image_of(f, process, addr);
	if (im == NULL) {
		name_hex(&nm, addr);
		return name_end(&nm);
	}
	name_put(&nm, (const char *)f->names.data + im->name, im->len);
	name_put(&nm, "!", 1);
	s = symbol_of(f, im, addr);
	if (s != NULL && level < s->ninlines) {
		const struct inline_frame *in = &f->inlines[s->first + level];

		name_put(&nm, (const char *)f->symnames.data + in->function,
		    in->flen);
		name_put(&nm, " " FRAMES_INLINE_MARK,
		    sizeof(" " FRAMES_INLINE_MARK) - 1);
	} else if (s != NULL)
		name_put(&nm, (const char *)f->symnames.data + s->function,
		    s->flen);
	else
		name_hex(&nm, addr - im->base);
	return name_end(&nm);
}

size_t
frames_module_len(const char *name, size_t len)
{
	const char *bang = memchr(name, '!', len);

	return bang != NULL ? (size_t)(bang - name) : 0;
}

int
frames_is_inlined(const char *name, size_t len)
{
	size_t n = sizeof(" " FRAMES_INLINE_MARK) - 1;

	return len >= n && memcmp(name + len - n, " " FRAMES_INLINE_MARK,
	    n) == 0;
}

int
frames_is_pseudo(const char *name, size_t len)
{
	return len > 0 && name[0] == '[';
}
