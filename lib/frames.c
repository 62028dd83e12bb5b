/*
 * frames.c - frame names from the image definitions of a section.
 *
 * Images are kept in one array, sorted by (process, base) when the first
 * name is asked for after a change, and searched by bisection.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
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
	stream_id process;
	uint32_t order;			/* definition order, for ties */
	uint64_t base, size;
	size_t name, len;		/* the module name in f->names */
};

struct frames {
	unsigned flags;
	struct buf images;		/* struct image_range */
	struct buf names;		/* module names, back to back */
	uint32_t nimages;
	int sorted;
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
	free(f);
}

/* The file name of a path, Windows or POSIX. */
static const char *
base_name(const char *path)
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
	const char *name = base_name(im->path);
	struct image_range *ir;

	if (*name == '\0' && im->original_name != NULL)
		name = im->original_name;
	if (*name == '\0')
		name = "unknown";
	if ((ir = (struct image_range *)buf_reserve(&f->images,
	    sizeof(*ir))) == NULL)
		return -1;
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

int
frames_record(struct frames *f, const struct stream_reader *r,
    const struct stream_record *rec)
{
	switch (rec->type) {
	case REC_HEADER:
		f->images.len = f->names.len = 0;
		f->nimages = 0;
		f->sorted = 0;
		return 0;
	case REC_IMAGE:
		return add_image(f, r, &rec->u.image);
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

size_t
frames_name(struct frames *f, stream_id process, uint64_t addr, char *buf,
    size_t cap)
{
	const struct image_range *im = NULL;
	int n;

	if (!(f->flags & FRAMES_ADDRESSES)) {
		if (!f->sorted && f->nimages > 0)
			qsort(f->images.data, f->nimages,
			    sizeof(struct image_range), cmp_images);
		f->sorted = 1;
		if (process != KERNEL)
			im = find_image(f, process, addr);
		if (im == NULL)
			im = find_image(f, KERNEL, addr);
	}
	if (im == NULL)
		n = snprintf(buf, cap, "0x%" PRIx64, addr);
	else
		n = snprintf(buf, cap, "%.*s!0x%" PRIx64, (int)im->len,
		    (const char *)f->names.data + im->name, addr - im->base);
	return n < 0 ? 0 : (size_t)n;
}

size_t
frames_module_len(const char *name, size_t len)
{
	const char *bang = memchr(name, '!', len);

	return bang != NULL ? (size_t)(bang - name) : 0;
}

int
frames_is_pseudo(const char *name, size_t len)
{
	return len > 0 && name[0] == '[';
}
