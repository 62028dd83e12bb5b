/*
 * etw_imageid.c - images and their KernelTraceControl ImageID/DbgID rows
 * (etl-format.md section 6).  The rows carry the time of their image
 * event and may come before or after it in time order: each side waits
 * for the other in a small table.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_state.h"

/* What an ImageID or DbgID event says, from the decoder's scratch. */
static void
make_fact(const struct etl_event *ev, const struct etw_kernel *k,
    struct image_fact *f)
{
	const char *name;

	memset(f, 0, sizeof(*f));
	f->used = 1;
	f->ts = ev->ts;
	f->header_pid = ev->pid;
	f->kind = k->type;
	if (k->type == KREC_IMAGE_ID) {
		f->base = k->u.image_id.base;
		f->pid = k->u.image_id.pid;
		f->timestamp = k->u.image_id.timestamp;
		name = k->u.image_id.original_name;
	} else {
		f->base = k->u.dbg_id.base;
		f->pid = k->u.dbg_id.pid;
		f->age = k->u.dbg_id.age;
		memcpy(f->guid, k->u.dbg_id.guid, 16);
		name = k->u.dbg_id.pdb_name;
	}
	snprintf(f->name, sizeof(f->name), "%s", name ? name : "");
}

static void
apply_fact(struct etw_decoder *d, struct pending_image *pi,
    const struct image_fact *f)
{
	if (f->kind == KREC_IMAGE_ID) {
		snprintf(pi->original_name, sizeof(pi->original_name), "%s",
		    f->name);
		if (pi->def.timestamp == 0)
			pi->def.timestamp = f->timestamp;
	} else {
		memcpy(pi->def.pdb_guid, f->guid, 16);
		pi->def.pdb_age = f->age;
		snprintf(pi->pdb_name, sizeof(pi->pdb_name), "%s", f->name);
	}
	d->stats.images_joined++;
}

/*
 * Whether a fact describes the image: the same time and base, and the
 * payload pid, else the header pid (merged Win7/8 files log payload pid 0).
 */
static int
fact_matches(const struct image_fact *f, const struct pending_image *pi)
{
	if (!f->used || f->ts != pi->ts || f->base != pi->def.base)
		return 0;
	if (f->pid != 0)
		return f->pid == pi->def.pid;
	return f->header_pid == pi->header_pid || f->header_pid == pi->def.pid;
}

/* An image just decoded takes the facts logged before it. */
static void
take_facts(struct etw_decoder *d, struct pending_image *pi)
{
	size_t i;

	for (i = 0; i < FACTS_MAX; i++)
		if (fact_matches(&d->facts[i], pi)) {
			apply_fact(d, pi, &d->facts[i]);
			d->facts[i].used = 0;
		}
}

uint32_t
etw_add_pending_image(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k, stream_id id)
{
	uint32_t slot = (uint32_t)(d->image_next++ % IMAGES_MAX);
	struct pending_image *pi = &d->images[slot];
	uint32_t process = 0;

	if (pi->used && etw_write_image_def(d, slot) != 0)
		d->failed = 1;	/* too many in flight: write it unjoined */
	memset(pi, 0, sizeof(*pi));
	pi->used = 1;
	pi->ts = ev->ts;
	pi->header_pid = ev->pid;
	snprintf(pi->path, sizeof(pi->path), "%s", k->u.image.path ?
	    k->u.image.path : "");
	idmap_get(&d->pid_process, k->u.image.pid, &process);
	pi->def = (struct stream_image){ .id = id, .pid = k->u.image.pid,
	    .process = process, .base = k->u.image.base,
	    .size = k->u.image.size, .checksum = k->u.image.checksum,
	    .timestamp = k->u.image.timestamp, .path = pi->path,
	    .pdb_name = pi->pdb_name, .original_name = pi->original_name };
	take_facts(d, pi);
	return slot;
}

/*
 * ImageID and DbgID events carry the time of their image event, and in
 * time order may come before or after it: join now or keep the fact.
 */
void
etw_on_image_id(struct etw_decoder *d, const struct etl_event *ev,
    const struct etw_kernel *k)
{
	struct image_fact f, *slot;
	size_t i;

	make_fact(ev, k, &f);
	/* Images are in time order: look back only over this time stamp. */
	for (i = 1; i <= IMAGES_MAX && i <= d->image_next; i++) {
		struct pending_image *pi =
		    &d->images[(d->image_next - i) % IMAGES_MAX];

		if (pi->ts < f.ts)
			break;
		if (pi->used && fact_matches(&f, pi)) {
			apply_fact(d, pi, &f);
			return;
		}
	}
	slot = &d->facts[d->fact_next++ % FACTS_MAX];
	if (slot->used)
		d->stats.image_ids_unjoined++;
	*slot = f;
}
