/*
 * etw_class.c - event classes: each kind of source record gets a REC_CLASS
 * the first time it is seen, and is counted, so that records absorbed
 * into definitions can be accounted for in REC_COUNT.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/value.h"
#include "etw_names.h"
#include "etw_state.h"

/*
 * Hashed and compared as bytes, so every byte is a member: an initializer
 * zeroes members it does not name, but not padding, which held whatever
 * the stack did and made one class two (a clang build, fuzz_etl).
 */
struct class_key {
	unsigned char guid[16];
	int32_t hook, event_id;
	uint8_t version, opcode, level, pad;
	uint16_t task, pad2;
};
_Static_assert(sizeof(struct class_key) == 16 + 4 + 4 + 4 + 2 + 2,
    "a class key has no padding");

static int
grow_class_counts(struct etw_decoder *d, uint32_t id)
{
	size_t cap = d->class_cap ? d->class_cap * 2 : 256;
	uint64_t *seen, *written;

	while (cap <= id)
		cap *= 2;
	if ((seen = realloc(d->class_seen, cap * sizeof(*seen))) == NULL)
		return -1;
	d->class_seen = seen;
	if ((written = realloc(d->class_written, cap * sizeof(*written))) == NULL)
		return -1;
	d->class_written = written;
	memset(seen + d->class_cap, 0, (cap - d->class_cap) * sizeof(*seen));
	memset(written + d->class_cap, 0,
	    (cap - d->class_cap) * sizeof(*written));
	d->class_cap = cap;
	return 0;
}

/* Makes (*ids)[need] addressable.  @return : 0, or -1 if out of memory. */
int
etw_grow_ids(stream_id **ids, size_t *cap, uint32_t need)
{
	size_t n = *cap ? *cap : 256;
	stream_id *p;

	if (need < *cap)
		return 0;
	while (n <= need)
		n *= 2;
	if ((p = realloc(*ids, n * sizeof(*p))) == NULL)
		return -1;
	*ids = p;
	*cap = n;
	return 0;
}

/*
 * The class id of an event with key `k` and names provider/event (the
 * event name is part of the identity: TraceLogging events differ only
 * by name).  Writes REC_CLASS the first time.
 */
static stream_id
class_id(struct etw_decoder *d, const struct class_key *k,
    const char *provider, const char *event)
{
	unsigned char key[sizeof(*k) + 256];
	size_t elen = strlen(event), klen;
	int added;
	uint32_t id;

	if (elen > 255)
		elen = 255;
	memcpy(key, k, sizeof(*k));
	memcpy(key + sizeof(*k), event, elen);
	klen = sizeof(*k) + elen;
	if ((id = intern_add(&d->classes, key, klen, &added)) == 0)
		return 0;
	if (id >= d->class_cap && grow_class_counts(d, id) != 0)
		return 0;
	if (added) {
		struct stream_class c = { .id = id, .provider = provider,
		    .event = event, .hook = k->hook, .event_id = k->event_id,
		    .version = k->version, .opcode = k->opcode,
		    .level = k->level, .task = k->task };

		memcpy(c.guid, k->guid, 16);
		if (stream_write_class(d->w, &c) != 0)
			d->failed = 1;
	}
	d->class_seen[id]++;
	return id;
}

/* The class of a classic kernel event. */
stream_id
etw_kernel_class(struct etw_decoder *d, const struct etl_event *ev, int hook)
{
	struct class_key k = { .hook = hook, .event_id = -1,
	    .version = ev->version, .opcode = hook & 0xff };
	uint64_t cache_key = (uint64_t)hook << 8 | ev->version;
	size_t c = ((unsigned)hook * 0x9e3779b1u >> 20 ^ ev->version) %
	    KCLASS_CACHE;
	uint32_t id;

	/* Kernel classes are few and hot: skip naming and hashing. */
	if (d->kclass_cache[c].key == cache_key + 1) {
		id = d->kclass_cache[c].id;
		d->class_seen[id]++;
		return id;
	}
	if (idmap_get(&d->kernel_classes, cache_key, &id)) {
		d->kclass_cache[c].key = (uint32_t)cache_key + 1;
		d->kclass_cache[c].id = id;
		d->class_seen[id]++;
		return id;
	}
	etw_group_guid((unsigned)hook >> 8, k.guid);
	etw_kernel_event_name((unsigned)hook, d->name, sizeof(d->name));
	id = class_id(d, &k, ETW_KERNEL_PROVIDER, d->name);
	if (id != 0)
		idmap_put(&d->kernel_classes, cache_key, id);
	return id;
}

/* Names a GUID event (from the tables where the caller has no name). */
static stream_id
named_guid_class(struct etw_decoder *d, const struct class_key *k,
    const struct etl_event *ev, const char *provider, const char *event)
{
	char pname[37];
	const char *known;

	if (provider == NULL &&
	    (provider = etw_provider_name(ev->guid)) == NULL) {
		value_format_guid(ev->guid, pname);
		provider = pname;
	}
	if (event == NULL) {
		if (ev->hdr != ETL_HDR_EVENT &&
		    (known = etw_guid_event_name(ev->guid, ev->opcode, d->name,
		    sizeof(d->name))) != NULL)
			event = known;
		else if (ev->hdr == ETL_HDR_EVENT)
			snprintf(d->name, sizeof(d->name), "EventID(%u)", ev->id);
		else
			snprintf(d->name, sizeof(d->name), "Opcode(%u)",
			    ev->opcode);
		if (event == NULL)
			event = d->name;
	}
	return class_id(d, k, provider, event);
}

/*
 * The class of a GUID event named from the tables only: its key says
 * everything, so remember the id by key and skip the naming.
 */
static stream_id
unnamed_class(struct etw_decoder *d, const struct class_key *k,
    const struct etl_event *ev)
{
	int added;
	uint32_t slot = intern_add(&d->guid_classes, k, sizeof(*k), &added);
	stream_id id;

	if (slot == 0 ||
	    etw_grow_ids(&d->guid_class_ids, &d->guid_class_cap, slot) != 0)
		return 0;
	if (!added) {
		id = d->guid_class_ids[slot];
		d->class_seen[id]++;
		return id;
	}
	id = named_guid_class(d, k, ev, NULL, NULL);
	d->guid_class_ids[slot] = id;
	return id;
}

/* The class of an event that has a GUID but no known schema. */
stream_id
etw_guid_class(struct etw_decoder *d, const struct etl_event *ev,
    const char *provider, const char *event)
{
	struct class_key k = { .hook = -1, .version = ev->version,
	    .opcode = ev->opcode, .level = ev->level, .task = ev->task };

	memcpy(k.guid, ev->guid, 16);
	k.event_id = ev->hdr == ETL_HDR_EVENT ? ev->id : -1;
	if (provider == NULL && event == NULL)
		return unnamed_class(d, &k, ev);
	return named_guid_class(d, &k, ev, provider, event);
}
