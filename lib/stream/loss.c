/*
 * loss.c - see loss.h.
 */
#include <stdio.h>
#include <string.h>

#include "loss.h"

#define NOTE	"note: "

int
loss_diag_is_loss(const struct stream_diag *d)
{
	return d->count > 0 && strncmp(d->what, NOTE, strlen(NOTE)) != 0;
}

static void
add_kind(struct loss *l, const char *what, uint64_t count, uint64_t bytes)
{
	size_t i;

	for (i = 0; i < l->nkinds; i++)
		if (strncmp(l->kind[i].what, what, LOSS_WHAT_MAX - 1) == 0)
			break;
	if (i == l->nkinds) {
		if (i == LOSS_KINDS) {
			l->other += count;
			l->other_bytes += bytes;
			return;
		}
		snprintf(l->kind[i].what, LOSS_WHAT_MAX, "%s", what);
		l->nkinds++;
	}
	l->kind[i].count += count;
	l->kind[i].bytes += bytes;
}

/* Keeps a message of missing events once, however many inputs say it. */
static void
add_missing(struct loss *l, const char *text)
{
	size_t i;

	for (i = 0; i < l->nmissing; i++)
		if (strncmp(l->missing[i], text, LOSS_MISSING_LEN - 1) == 0)
			return;
	if (l->nmissing < LOSS_MISSING_MAX)
		snprintf(l->missing[l->nmissing++], LOSS_MISSING_LEN, "%s",
		    text);
}

int
loss_add_diag(struct loss *l, const struct stream_diag *d)
{
	if (d->count > 0 &&
	    strncmp(d->what, LOSS_MISSING, strlen(LOSS_MISSING)) == 0)
		add_missing(l, d->what + strlen(LOSS_MISSING));
	if (!loss_diag_is_loss(d))
		return 0;
	add_kind(l, d->what, d->count, d->bytes);
	return 1;
}

void
loss_add(struct loss *l, const struct loss *from)
{
	size_t i;

	for (i = 0; i < from->nkinds; i++)
		add_kind(l, from->kind[i].what, from->kind[i].count,
		    from->kind[i].bytes);
	for (i = 0; i < from->nmissing; i++)
		add_missing(l, from->missing[i]);
	l->other += from->other;
	l->other_bytes += from->other_bytes;
	l->cut += from->cut;
}

int
loss_any(const struct loss *l)
{
	return l->nkinds > 0 || l->other > 0 || l->cut > 0;
}

/* Appends to buf at *len, keeping the NUL; cut when full. */
static void
append(char *buf, size_t cap, size_t *len, const char *what, uint64_t count,
    uint64_t bytes)
{
	int n;

	if (*len + 1 >= cap)
		return;
	n = snprintf(buf + *len, cap - *len, "%s%llu %s", *len ? ", " : "",
	    (unsigned long long)count, what);
	if (n > 0 && bytes > 0 && *len + (size_t)n + 1 < cap)
		n += snprintf(buf + *len + n, cap - *len - n, " (%llu bytes)",
		    (unsigned long long)bytes);
	*len = n < 0 ? *len : *len + (size_t)n < cap ? *len + (size_t)n :
	    cap - 1;
}

size_t
loss_format(const struct loss *l, char *buf, size_t cap)
{
	size_t i, len = 0;

	if (cap == 0)
		return 0;
	buf[0] = '\0';
	for (i = 0; i < l->nkinds; i++)
		append(buf, cap, &len, l->kind[i].what, l->kind[i].count,
		    l->kind[i].bytes);
	if (l->other > 0)
		append(buf, cap, &len, "other problems", l->other,
		    l->other_bytes);
	if (l->cut > 0)
		append(buf, cap, &len, LOSS_CUT, l->cut, 0);
	return len;
}
