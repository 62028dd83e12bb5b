/*
 * proclabel.c - the names process instances go by in labels (see
 * proclabel.h).  Each instance keeps the id of its name, "name (pid)";
 * a count per name says which names two instances share, and those get
 * the start when the label is asked for, so that the rule holds however
 * the instances came in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "proclabel.h"
#include "proctab.h"

/* An instance's key: its pid and start. */
struct inst_key {
	uint32_t pid;
	uint32_t pad;
	int64_t start_ns;
};

/* "name (pid)" into out, the name cut to what fits. */
static size_t
base_label(char *out, size_t cap, uint32_t pid, const char *image,
    size_t ilen, const char *cmdline, size_t clen)
{
	const char *name = NULL;
	size_t len = 0;
	int n;

	if (cmdline != NULL)
		name = proctab_crate(cmdline, clen, &len);
	if (name == NULL || len == 0) {
		name = image != NULL && ilen > 0 ? image : "?";
		len = image != NULL && ilen > 0 ? ilen : 1;
	}
	if (len > cap - 64)
		len = cap - 64;
	n = snprintf(out, cap, "%.*s (%u)", (int)len, name, pid);
	return n > 0 && (size_t)n < cap ? (size_t)n : strlen(out);
}

uint32_t
proclabels_add(struct proclabels *pl, uint32_t pid, int64_t start_ns,
    const char *image, size_t ilen, const char *cmdline, size_t clen)
{
	struct inst_key k = { pid, 0, start_ns };
	uint32_t id, name, *slot, *count;
	size_t len;
	int added;

	if ((id = intern_add(&pl->inst, &k, sizeof(k), &added)) == 0)
		return 0;
	if (!added)
		return id;
	len = base_label(pl->text, sizeof(pl->text), pid, image, ilen,
	    cmdline, clen);
	if ((name = intern_add(&pl->names, pl->text, len, NULL)) == 0 ||
	    (slot = array_slot(&pl->name_of, &pl->name_cap, id,
	    sizeof(*slot))) == NULL ||
	    (count = array_slot(&pl->count, &pl->count_cap, name,
	    sizeof(*count))) == NULL)
		return 0;
	*slot = name;
	(*count)++;
	return id;
}

uint32_t
proclabels_add_def(struct proclabels *pl, const struct stream_process *p,
    uint32_t pid, int64_t start_ns, const char *image)
{
	if (p == NULL)
		return proclabels_add(pl, pid, start_ns, image,
		    image != NULL ? strlen(image) : 0, NULL, 0);
	return proclabels_add(pl, p->pid, p->start_ns, p->name,
	    p->name != NULL ? strlen(p->name) : 0, p->cmdline,
	    p->cmdline != NULL ? strlen(p->cmdline) : 0);
}

const char *
proclabels_get(struct proclabels *pl, uint32_t id, size_t *len)
{
	const struct inst_key *k;
	const char *name;
	size_t klen, nlen;
	int n;

	if (id == 0 || id > pl->inst.count) {
		snprintf(pl->text, sizeof(pl->text), "?");
		if (len != NULL)
			*len = 1;
		return pl->text;
	}
	k = intern_key(&pl->inst, id, &klen);
	name = intern_key(&pl->names, pl->name_of[id], &nlen);
	if (pl->count[pl->name_of[id]] < 2)
		n = snprintf(pl->text, sizeof(pl->text), "%.*s", (int)nlen,
		    name);
	else if (k->start_ns != INT64_MIN)
		/* "name (pid" then the start: the name ends in ")". */
		n = snprintf(pl->text, sizeof(pl->text), "%.*s @%.6fs)",
		    (int)nlen - 1, name, (double)k->start_ns / 1e9);
	else
		n = snprintf(pl->text, sizeof(pl->text), "%.*s, before the "
		    "trace)", (int)nlen - 1, name);
	if (len != NULL)
		*len = n > 0 && (size_t)n < sizeof(pl->text) ? (size_t)n :
		    strlen(pl->text);
	return pl->text;
}

void
proclabels_clear(struct proclabels *pl)
{
	intern_clear(&pl->inst);
	intern_clear(&pl->names);
	if (pl->count != NULL)
		memset(pl->count, 0, pl->count_cap * sizeof(*pl->count));
}

void
proclabels_release(struct proclabels *pl)
{
	intern_release(&pl->inst);
	intern_release(&pl->names);
	free(pl->name_of);
	free(pl->count);
	memset(pl, 0, sizeof(*pl));
}

int
proclabels_record(struct proclabels *pl, const struct stream_record *rec)
{
	if (rec->type == REC_HEADER)
		proclabels_clear(pl);
	else if (rec->type == REC_PROCESS && rec->u.process.id != 0)
		return proclabels_add_def(pl, &rec->u.process, 0, 0, NULL) ?
		    0 : -1;
	return 0;
}
