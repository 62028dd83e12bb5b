/*
 * samplepath.c - a sample's frames as cpu --by stack names them; see
 * samplepath.h.
 */
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "samplepath.h"

#define FRAMES_CAP	4096	/* as etlagg cpu reads a stack */
#define INLINES_CAP	4096	/* inlined frames added to one path */
#define NAME_CAP	1024

/* Appends one name, ';' first unless it is the first, returns its place. */
static size_t
put_name(struct buf *out, size_t first, const char *name, size_t len)
{
	size_t at, i;

	if (out->len > first)
		buf_put_u8(out, ';');
	at = out->len;
	if (len >= NAME_CAP)
		len = NAME_CAP - 1;
	buf_put(out, name, len);
	for (i = at; i < out->len; i++)
		if (out->data[i] == ';' || out->data[i] == '\n' ||
		    out->data[i] == '\r')
			out->data[i] = '_';
	return at;
}

/* The frames of an address: its function, then what is inlined there. */
static size_t
put_frames(struct frames *f, stream_id def, uint64_t addr, struct buf *out,
    size_t first, size_t *inlined)
{
	char name[NAME_CAP];
	size_t k = frames_inlined(f, def, addr), len, at;

	len = frames_name_at(f, def, addr, SIZE_MAX, name, sizeof(name));
	at = put_name(out, first, name, len);
	while (k-- > 0 && *inlined < INLINES_CAP) {
		len = frames_name_at(f, def, addr, k, name, sizeof(name));
		at = put_name(out, first, name, len);
		(*inlined)++;
	}
	return at;
}

size_t
samplepath_text(struct frames *f, const struct stream_reader *r,
    stream_id def, stream_id stack, uint64_t ip, struct buf *out)
{
	static const char no_stack[] = FRAMES_NO_STACK;
	static const char not_defined[] = FRAMES_UNDEFINED;
	uint64_t frames[FRAMES_CAP];
	size_t first = out->len, at = out->len, inlined = 0;
	long n = 0, i;

	if (stack == 0)
		at = put_name(out, first, no_stack, sizeof(no_stack) - 1);
	else if (r == NULL || stream_stack_undefined(r, stack) ||
	    (n = stream_stack_frames(r, stack, frames, FRAMES_CAP)) < 0) {
		at = put_name(out, first, not_defined, sizeof(not_defined) - 1);
		n = 0;
	}
	for (i = n - 1; i >= 0; i--)
		at = put_frames(f, def, frames[i], out, first, &inlined);
	if (n == 0 || frames[0] != ip)
		at = put_frames(f, def, ip, out, first, &inlined);
	return at;
}
