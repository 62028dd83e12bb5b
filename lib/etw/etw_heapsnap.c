/*
 * etw_heapsnap.c - WPR heap snapshots (etl-events-2.md section 1): the
 * chunk events of Microsoft-Windows-Heap-Snapshot reassembled (1.2,
 * 1.3), the stream parsed (1.4), its stacks written as ordinary stack
 * definitions and its heaps and blocks as "heapsnap" events.
 *
 * Chunks are kept by (process id, instance) until an End event finds
 * them whole: sequence numbers 0..n-1 without a gap, their bytes adding
 * up to its TotalData, and a stream that holds at least one heap (the
 * serializer also ends the stack database with an End, which must not
 * end the snapshot).  A snapshot still incomplete when the trace ends
 * is written with what it has, its summary event saying what is
 * missing, and a REC_DIAG counting it.  All of a snapshot's events carry
 * the time of its last End event (the spec leaves open which one WPA
 * uses).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etw_heapsnap.h"
#include "etw_state.h"

#define CHUNK_MAX	16384		/* HeapSnapshotBufferLen, at most */
#define PENDING_MAX	64		/* snapshots being reassembled */
#define TERM_ADDRESS	0x1234cdefULL
#define TERM_SIZE	0xffffffffULL
#define PROVIDER	"Microsoft-Windows-Heap-Snapshot"

/* ---- the stream (1.4) ---- */

struct parser {
	const unsigned char *p;
	size_t len, off;
	int P, v2;
	struct intern segs;		/* SegmentId -> index */
	uint64_t *seg_frames;		/* 8 a segment */
	uint8_t *seg_n;
	struct intern stacks;		/* StackId, to check allocations */
	uint32_t nsegs;			/* slots of the database's segments */
	uint32_t nstacks;		/* ids of the database's stacks */
	struct heapsnap_result *res;
};

static int
has(const struct parser *ps, size_t n)
{
	return ps->len - ps->off >= n;
}

static uint64_t
take(struct parser *ps, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)ps->p[ps->off + i] << (8 * i);
	ps->off += n;
	return v;
}

static int
problem(struct parser *ps, const char *what)
{
	snprintf(ps->res->problem, sizeof(ps->res->problem),
	    "%s (stream offset 0x%zx)", what, ps->off);
	return 1;
}

static size_t
info_size(const struct parser *ps)
{
	return ps->v2 && ps->P == 8 ? 8 : 4;
}

static unsigned
frame_count(const struct parser *ps, uint64_t info)
{
	return (unsigned)(info >> (info_size(ps) == 8 ? 56 : 24)) & 0xff;
}

static int
read_segments(struct parser *ps, uint64_t count)
{
	size_t min = info_size(ps) + (size_t)ps->P, i;
	uint64_t k, id;
	unsigned n;
	uint32_t slot;

	/* Each segment takes at least min bytes: bound the table by them. */
	if (count > (ps->len - ps->off) / min)
		count = (ps->len - ps->off) / min;
	if ((ps->seg_frames = calloc((size_t)count + 1, 8 * sizeof(uint64_t)))
	    == NULL || (ps->seg_n = calloc((size_t)count + 1, 1)) == NULL)
		return -1;
	for (k = 0; k < ps->res->segments; k++) {
		if (k == count || !has(ps, min))
			return problem(ps, "segment count larger than the data");
		n = frame_count(ps, take(ps, info_size(ps)));
		id = take(ps, (size_t)ps->P);
		if (n > 8)
			return problem(ps, "segment of more than 8 frames");
		if (!has(ps, (size_t)n * (size_t)ps->P))
			return problem(ps, "segment cut short");
		if ((slot = intern_add(&ps->segs, &id, sizeof(id), NULL)) == 0)
			return -1;
		/* A repeated id: the later one wins. */
		ps->seg_n[slot] = (uint8_t)n;
		for (i = 0; i < n; i++)
			ps->seg_frames[(size_t)slot * 8 + i] = take(ps,
			    (size_t)ps->P);
	}
	ps->nsegs = ps->segs.count;
	return 0;
}

/* The frames of segment `id` appended to frames[*n..f). */
static int
append_segment(struct parser *ps, uint64_t id, uint64_t *frames,
    unsigned *n, unsigned f)
{
	uint32_t slot = intern_add(&ps->segs, &id, sizeof(id), NULL);
	unsigned j;

	if (slot == 0)
		return -1;
	if (slot > ps->nsegs) {
		ps->res->missing_segments++;
		return 0;
	}
	for (j = 0; j < ps->seg_n[slot] && *n < f; j++)
		frames[(*n)++] = ps->seg_frames[(size_t)slot * 8 + j];
	return 0;
}

static int
read_stacks(struct parser *ps, const struct heapsnap_ops *ops)
{
	uint64_t frames[HEAPSNAP_MAX_FRAMES], k, id;
	size_t min = info_size(ps) + (size_t)ps->P, nseg, i;
	unsigned f, n;

	for (k = 0; k < ps->res->stacks; k++) {
		if (!has(ps, min))
			return problem(ps, "stack count larger than the data");
		f = frame_count(ps, take(ps, info_size(ps)));
		id = take(ps, (size_t)ps->P);
		nseg = (f + 7) / 8;
		if (!has(ps, nseg * (size_t)ps->P))
			return problem(ps, "stack cut short");
		for (i = 0, n = 0; i < nseg; i++)
			if (append_segment(ps, take(ps, (size_t)ps->P), frames,
			    &n, f) != 0)
				return -1;
		if (intern_add(&ps->stacks, &id, sizeof(id), NULL) == 0)
			return -1;
		ps->res->stacks_read++;
		if (ops->stack != NULL && ops->stack(ops->ctx, id, frames, n) != 0)
			return -1;
	}
	return 0;
}

/* 1 if stack `id` is 0 or in the database, 0 if not, -1 (no memory). */
static int
known_stack(struct parser *ps, uint64_t id)
{
	uint32_t slot;

	if (id == 0)
		return 1;
	/* An unknown id is added: the table grows only with the data. */
	if ((slot = intern_add(&ps->stacks, &id, sizeof(id), NULL)) == 0)
		return -1;
	return slot <= ps->nstacks;
}

/* One heap: its header, then blocks up to the terminator. */
static int
read_heap(struct parser *ps, const struct heapsnap_ops *ops)
{
	size_t P = (size_t)ps->P, hlen = P == 8 ? 32 : 16;
	uint64_t heap, commit, reserve, addr, id, size;
	unsigned version, psize;
	int known;

	if (!has(ps, hlen))
		return problem(ps, "heap header cut short");
	version = (unsigned)take(ps, 2);
	psize = (unsigned)take(ps, 2);
	if (version != 2 || psize != P) {
		ps->off -= 4;
		return problem(ps, "heap header of an unknown version");
	}
	if (P == 8)
		take(ps, 4);
	heap = take(ps, P);
	commit = take(ps, P);
	reserve = take(ps, P);
	ps->res->heaps++;
	if (ops->heap != NULL && ops->heap(ops->ctx, heap, commit, reserve))
		return -1;
	for (;;) {
		if (!has(ps, 3 * P))
			return problem(ps, "heap's blocks cut short (no "
			    "terminator)");
		addr = take(ps, P);
		id = take(ps, P);
		size = take(ps, P);
		if (addr == TERM_ADDRESS && id == 0 && size == TERM_SIZE)
			return 0;
		if ((known = known_stack(ps, id)) < 0)
			return -1;
		ps->res->allocations++;
		ps->res->bytes += size;
		if (!known)
			ps->res->unknown_stacks++;
		if (ops->alloc != NULL && ops->alloc(ops->ctx, heap, addr, id,
		    size, known) != 0)
			return -1;
	}
}

int
heapsnap_parse(const unsigned char *stream, size_t len,
    const struct heapsnap_ops *ops, struct heapsnap_result *res)
{
	struct parser ps;
	int rc;

	memset(&ps, 0, sizeof(ps));
	memset(res, 0, sizeof(*res));
	ps.p = stream;
	ps.len = len;
	ps.res = res;
	if (!has(&ps, 12)) {
		rc = problem(&ps, "stream too short for its stack database "
		    "header");
		goto out;
	}
	res->segments = take(&ps, 4);
	res->stacks = take(&ps, 4);
	res->version = (uint32_t)take(&ps, 2);
	res->pointer_size = (uint32_t)take(&ps, 2);
	ps.P = (int)res->pointer_size;
	ps.v2 = res->version == 2;
	if ((res->version != 1 && res->version != 2) ||
	    (ps.P != 4 && ps.P != 8)) {
		ps.off = 8;
		rc = problem(&ps, "stack database of an unknown format version "
		    "or pointer size");
		goto out;
	}
	if ((rc = read_segments(&ps, res->segments)) != 0 ||
	    (rc = read_stacks(&ps, ops)) != 0)
		goto out;
	ps.nstacks = ps.stacks.count;
	res->database_only = ps.off == len;
	while (ps.off < len)
		if ((rc = read_heap(&ps, ops)) != 0)
			goto out;
	res->complete = 1;
out:
	intern_release(&ps.segs);
	intern_release(&ps.stacks);
	free(ps.seg_frames);
	free(ps.seg_n);
	return rc;
}

/* ---- reassembly and records (1.2, 1.3) ---- */

struct chunk {
	uint32_t seq, len;
	size_t off;			/* in the snapshot's bytes */
};

struct snap {
	uint32_t pid, instance;
	struct buf bytes;		/* chunk payloads as they came */
	struct chunk *chunks;
	size_t nchunks, cap;
	uint64_t total;			/* the last End's TotalData */
	struct etl_event end;		/* the last End, without payload */
	int used, ended, done;
};

struct etw_heapsnap {
	struct snap snaps[PENDING_MAX];
	struct buf stream;		/* one snapshot, in sequence order */
	struct intern ids;		/* StackId -> slot of ... */
	stream_id *stack_of;		/* ... its stream stack */
	size_t stack_cap;
	struct stream_field fields[12];
	char problem[320];
	uint64_t bad_chunks, dup_chunks, overflow, late, incomplete;
	uint64_t partial, written;
};

struct emit {
	struct etw_decoder *d;
	struct snap *s;
	stream_id cls_heap, cls_alloc;
};

static struct etw_heapsnap *
state(struct etw_decoder *d)
{
	if (d->heapsnap == NULL)
		d->heapsnap = calloc(1, sizeof(*d->heapsnap));
	if (d->heapsnap == NULL)
		d->failed = 1;
	return d->heapsnap;
}

static int
is_snapshot_event(const struct etl_event *ev)
{
	static const unsigned char guid[16] = {	/* 901d2afa-4ff6-46d7-... */
		0xfa, 0x2a, 0x1d, 0x90, 0xf6, 0x4f, 0xd7, 0x46,
		0x8d, 0x0e, 0x53, 0x64, 0x5e, 0x1a, 0x47, 0xf5
	};

	return ev->hdr == ETL_HDR_EVENT && (ev->id == 100 || ev->id == 200) &&
	    memcmp(ev->guid, guid, 16) == 0;
}

static struct snap *
find_snap(struct etw_heapsnap *hs, uint32_t pid, uint32_t instance,
    int create)
{
	struct snap *free_slot = NULL, *done_slot = NULL, *s;
	size_t i;

	for (i = 0; i < PENDING_MAX; i++) {
		s = &hs->snaps[i];
		if (s->used && s->pid == pid && s->instance == instance)
			return s;
		if (!s->used && free_slot == NULL)
			free_slot = s;
		if (s->used && s->done && done_slot == NULL)
			done_slot = s;
	}
	if (!create)
		return NULL;
	if ((s = free_slot != NULL ? free_slot : done_slot) == NULL) {
		hs->overflow++;
		return NULL;
	}
	buf_release(&s->bytes);
	free(s->chunks);
	memset(s, 0, sizeof(*s));
	s->used = 1;
	s->pid = pid;
	s->instance = instance;
	return s;
}

/* The id of a snapshot stack, shared with equal stacks of the trace. */
static stream_id
intern_snapshot_stack(struct etw_decoder *d, const uint64_t *frames,
    uint32_t n)
{
	/* The key etw_stacks.c gives a plain frame list: head 0, next 0. */
	unsigned char key[8 + HEAPSNAP_MAX_FRAMES * 8];
	int added;
	uint32_t iid;

	memset(key, 0, 8);
	memcpy(key + 8, frames, (size_t)n * 8);
	iid = intern_add(&d->stacks, key, 8 + (size_t)n * 8, &added);
	if (iid == 0 || etw_grow_ids(&d->stack_ids, &d->stack_ids_cap, iid) != 0)
		return 0;
	if (added) {
		struct stream_stack s = { .id = ++d->next_stack, .nframes = n,
		    .frames = frames };

		d->stack_ids[iid] = s.id;
		if (stream_write_stack(d->w, &s) != 0)
			d->failed = 1;
	}
	return d->stack_ids[iid];
}

static void
field(struct stream_field *f, size_t *n, const char *name,
    enum value_type type, uint64_t v)
{
	f[*n].name = name;
	f[*n].val.type = type;
	f[*n].val.v.u = v;
	(*n)++;
}

static int
queue(struct emit *e, unsigned op, stream_id cls, stream_id stack,
    size_t nfields)
{
	struct stream_event sev = { .h = { .kind = EV_HEAPSNAP, .op = op,
	    .cpu = e->s->end.cpu, .stack = stack, .pid = e->s->pid,
	    .tid = e->s->end.tid, .ts = etw_to_ns(e->d, e->s->end.ts),
	    .cls = cls }, .nfields = nfields,
	    .fields = e->d->heapsnap->fields };

	if (cls == 0 || etw_queue_event(e->d, &sev, &e->s->end, ETL_NO_ID,
	    NO_SLOT) == NULL) {
		e->d->failed = 1;
		return -1;
	}
	return 0;
}

static int
on_stack(void *ctx, uint64_t id, const uint64_t *frames, uint32_t n)
{
	struct emit *e = ctx;
	struct etw_heapsnap *hs = e->d->heapsnap;
	stream_id sid = intern_snapshot_stack(e->d, frames, n);
	uint32_t slot = intern_add(&hs->ids, &id, sizeof(id), NULL);
	stream_id *to;

	if (sid == 0 || slot == 0 || (to = array_slot(&hs->stack_of,
	    &hs->stack_cap, slot, sizeof(*to))) == NULL)
		return -1;
	*to = sid;
	return 0;
}

static int
on_heap(void *ctx, uint64_t heap, uint64_t commit, uint64_t reserve)
{
	struct emit *e = ctx;
	struct stream_field *f = e->d->heapsnap->fields;
	size_t n = 0;

	field(f, &n, "snapshot", VAL_U64, e->s->instance);
	field(f, &n, "heap", VAL_HEX, heap);
	field(f, &n, "commit_bytes", VAL_U64, commit);
	field(f, &n, "reserve_bytes", VAL_U64, reserve);
	return queue(e, EVOP_CREATE, e->cls_heap, 0, n);
}

static int
on_alloc(void *ctx, uint64_t heap, uint64_t address, uint64_t stack_id,
    uint64_t size, int known)
{
	struct emit *e = ctx;
	struct etw_heapsnap *hs = e->d->heapsnap;
	struct stream_field *f = hs->fields;
	stream_id stack = 0;
	uint32_t slot;
	size_t n = 0;

	if (stack_id != 0 && known && (slot = intern_add(&hs->ids, &stack_id,
	    sizeof(stack_id), NULL)) != 0 && slot < hs->stack_cap)
		stack = hs->stack_of[slot];
	field(f, &n, "snapshot", VAL_U64, e->s->instance);
	field(f, &n, "heap", VAL_HEX, heap);
	field(f, &n, "address", VAL_HEX, address);
	field(f, &n, "size", VAL_U64, size);
	field(f, &n, "stack_id", VAL_HEX, stack_id);
	return queue(e, EVOP_ALLOC, e->cls_alloc, stack, n);
}

static int
cmp_chunks(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Puts the chunks in sequence order into hs->stream, up to the first
 * one missing (what follows a gap cannot be parsed: records run across
 * chunks); writes what is missing into hs->problem.
 * @return : 1 if the snapshot is whole.
 */
static int
assemble(struct etw_heapsnap *hs, struct snap *s)
{
	size_t i, len = 0, cap = sizeof(hs->problem);
	uint32_t expect = 0;
	int gap = 0;

	if (s->nchunks > 0)
		qsort(s->chunks, s->nchunks, sizeof(*s->chunks), cmp_chunks);
	hs->stream.len = 0;
	for (i = 0; i < s->nchunks; i++) {
		if (s->chunks[i].seq != expect && len < cap - 48)
			len += (size_t)snprintf(hs->problem + len, cap - len,
			    "%schunks %u-%u missing", len ? ", " : "", expect,
			    s->chunks[i].seq - 1);
		gap |= s->chunks[i].seq != expect;
		expect = s->chunks[i].seq + 1;
		if (!gap)
			buf_put(&hs->stream, s->bytes.data + s->chunks[i].off,
			    s->chunks[i].len);
	}
	if (!s->ended && len < cap - 48)
		len += (size_t)snprintf(hs->problem + len, cap - len,
		    "%sno End event", len ? "; " : "");
	else if (!gap && hs->stream.len < s->total && len < cap - 48)
		len += (size_t)snprintf(hs->problem + len, cap - len,
		    "%schunks from %u on missing", len ? "; " : "", expect);
	if (len > 0 && len < cap - 64)
		snprintf(hs->problem + len, cap - len, "; %zu of %llu bytes "
		    "read", hs->stream.len, (unsigned long long)s->total);
	return len == 0 && s->ended && hs->stream.len == s->total &&
	    !hs->stream.oom;
}

/*
 * Writes the snapshot if it is whole, or anyway when `final`.
 * @return : 0, or -1 on failure.
 */
static int
try_emit(struct etw_decoder *d, struct snap *s, int final)
{
	struct etw_heapsnap *hs = d->heapsnap;
	struct heapsnap_ops count = { NULL, NULL, NULL, NULL };
	struct heapsnap_ops ops = { NULL, on_stack, on_heap, on_alloc };
	struct heapsnap_result res;
	struct emit e = { d, s, 0, 0 };
	struct stream_field *f = hs->fields;
	size_t n = 0, len;
	int whole, rc;

	hs->problem[0] = '\0';
	whole = assemble(hs, s);
	rc = heapsnap_parse(hs->stream.data, hs->stream.len, &count, &res);
	if (!final && (!whole || rc != 0 || res.database_only))
		return 0;
	ops.ctx = &e;
	if (rc != 0 && (len = strlen(hs->problem)) < sizeof(hs->problem) - 2)
		snprintf(hs->problem + len, sizeof(hs->problem) - len, "%s%s",
		    len ? "; " : "", res.problem);
	field(f, &n, "snapshot", VAL_U64, s->instance);
	field(f, &n, "allocations", VAL_U64, res.allocations);
	field(f, &n, "bytes", VAL_U64, res.bytes);
	field(f, &n, "heaps", VAL_U64, res.heaps);
	field(f, &n, "stacks", VAL_U64, res.stacks_read);
	field(f, &n, "unknown_stacks", VAL_U64, res.unknown_stacks);
	field(f, &n, "stream_bytes", VAL_U64, hs->stream.len);
	field(f, &n, "complete", VAL_U64, whole && rc == 0);
	f[n].name = "problem";
	f[n].val.type = VAL_STR;
	f[n].val.v.s.ptr = hs->problem;
	f[n].val.v.s.len = strlen(hs->problem);
	n++;
	if (queue(&e, EVOP_START, etw_guid_class(d, &s->end, PROVIDER,
	    "HeapSnapshot/Snapshot"), 0, n) != 0)
		return -1;
	e.cls_heap = etw_guid_class(d, &s->end, PROVIDER, "HeapSnapshot/Heap");
	e.cls_alloc = etw_guid_class(d, &s->end, PROVIDER,
	    "HeapSnapshot/Allocation");
	/* Each queued event counts as seen once; the first lookups did. */
	d->class_seen[e.cls_heap]--;
	d->class_seen[e.cls_alloc]--;
	intern_clear(&hs->ids);
	if (heapsnap_parse(hs->stream.data, hs->stream.len, &ops, &res) < 0)
		return -1;
	d->class_seen[e.cls_heap] += res.heaps;
	d->class_seen[e.cls_alloc] += res.allocations;
	hs->written++;
	if (!whole || rc != 0)
		hs->partial++;
	s->done = 1;
	buf_release(&s->bytes);
	free(s->chunks);
	s->chunks = NULL;
	s->nchunks = s->cap = 0;
	return 0;
}

static void
on_chunk(struct etw_heapsnap *hs, struct snap *s, const struct etl_event *ev)
{
	uint32_t seq = (uint32_t)etw_ptr(ev->payload + 4, 4);
	uint32_t len = (uint32_t)etw_ptr(ev->payload + 8, 4);
	struct chunk *c;
	size_t i;

	if (len == 0 || len > CHUNK_MAX || len > ev->payload_len - 12) {
		hs->bad_chunks++;
		return;
	}
	for (i = 0; i < s->nchunks; i++)
		if (s->chunks[i].seq == seq) {
			hs->dup_chunks++;
			return;
		}
	if ((c = array_slot(&s->chunks, &s->cap, s->nchunks,
	    sizeof(*c))) == NULL) {
		hs->bad_chunks++;
		return;
	}
	c->seq = seq;
	c->len = len;
	c->off = s->bytes.len;
	buf_put(&s->bytes, ev->payload + 12, len);
	s->nchunks++;
}

int
etw_heapsnap_event(struct etw_decoder *d, const struct etl_event *ev)
{
	struct etw_heapsnap *hs;
	struct snap *s;
	uint32_t instance;

	if (!is_snapshot_event(ev))
		return 0;
	if (etw_guid_class(d, ev, PROVIDER, ev->id == 100 ?
	    "HeapSnapshotSnap" : "HeapSnapshotEnd") == 0 ||
	    (hs = state(d)) == NULL)
		return 1;
	if (ev->payload_len < (ev->id == 100 ? 12u : 8u)) {
		hs->bad_chunks++;
		return 1;
	}
	instance = (uint32_t)etw_ptr(ev->payload, 4);
	if ((s = find_snap(hs, ev->pid, instance, 1)) == NULL)
		return 1;
	if (s->done) {
		hs->late++;
		return 1;
	}
	if (ev->id == 100) {
		on_chunk(hs, s, ev);
		return 1;
	}
	s->ended = 1;
	s->total = etw_ptr(ev->payload + 4, 4);
	s->end = *ev;
	s->end.payload = NULL;
	s->end.payload_len = 0;
	s->end.ext = NULL;
	s->end.ext_len = 0;
	if (try_emit(d, s, 0) != 0)
		d->failed = 1;
	return 1;
}

static void
diag(struct etw_decoder *d, const char *what, uint64_t count)
{
	struct stream_diag dg = { what, count, 0, 0 };

	if (count > 0 && stream_write_diag(d->w, &dg) != 0)
		d->failed = 1;
}

void
etw_heapsnap_finish(struct etw_decoder *d)
{
	struct etw_heapsnap *hs = d->heapsnap;
	size_t i;

	if (hs == NULL)
		return;
	for (i = 0; i < PENDING_MAX && !d->failed; i++) {
		struct snap *s = &hs->snaps[i];

		if (!s->used || s->done)
			continue;
		/* Without an End event there is no time: use the last chunk's. */
		if (!s->ended) {
			s->end.ts = d->last_ts;
			s->end.hdr = ETL_HDR_EVENT;
			s->end.pid = s->pid;
		}
		hs->incomplete++;
		if (try_emit(d, s, 1) != 0)
			d->failed = 1;
	}
	diag(d, "heap snapshots written in part (chunks missing, or a "
	    "stream that does not parse: see their problem field)",
	    hs->partial);
	diag(d, "heap snapshot chunks malformed", hs->bad_chunks);
	diag(d, "heap snapshot chunks repeated", hs->dup_chunks);
	diag(d, "heap snapshot events after their snapshot was written",
	    hs->late);
	diag(d, "heap snapshots dropped: too many in progress at once",
	    hs->overflow);
}

void
etw_heapsnap_free(struct etw_decoder *d)
{
	struct etw_heapsnap *hs = d->heapsnap;
	size_t i;

	if (hs == NULL)
		return;
	for (i = 0; i < PENDING_MAX; i++) {
		buf_release(&hs->snaps[i].bytes);
		free(hs->snaps[i].chunks);
	}
	buf_release(&hs->stream);
	intern_release(&hs->ids);
	free(hs->stack_of);
	free(hs);
	d->heapsnap = NULL;
}
