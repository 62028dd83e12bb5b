/*
 * stream_write_event.c - encodes event records, in the layout of the
 * section's format (man/etl-stream.5).
 *
 * Version 2 writes an event as its values only.  What the values are,
 * the event's kind, op, class and fields' names and types, is its
 * schema, written once as a SCHEMA record before the first event that
 * uses it.  A decoder that declares its fields as a shape (stream.h) is
 * matched to its schema by the shape's address, class, kind and op, in
 * a cache that costs a few compares an event; any other event by a key
 * made of its fields' names and types.  The head is varints, the time
 * coded against the event written before.  An event held in a
 * decoder's queue keeps its stack id and its time in full, the stack id
 * at a fixed place so that it can take its stack later
 * (stream_event_set_stack()), until it is written.
 *
 * Version 1, a name and a type byte for every field of every event, is
 * written where a version 1 stream is passed on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "stream.h"
#include "stream_write_state.h"

#define EVENT_STACK_AT_V1 (4 + 4)	/* record word, then kind, op, cpu */
#define EVENT_STACK_AT	4		/* version 2, held: after the word */
/* The most a head takes: word, stack, time, schema, cpu, pid, tid. */
#define HEAD_MAX	(4 + 5 + 10 + 5 + 3 + 5 + 5)

/* The kinds of schema key, in their first byte. */
enum { KEY_SHAPE = 1, KEY_FIELDS = 2, KEY_PASSED = 3 };

void
writer_schemas_reset(struct stream_writer *w)
{
	intern_clear(&w->schemas);
	memset(w->shapes, 0, sizeof(w->shapes));
	memset(w->fields, 0, sizeof(w->fields));
}

int
writer_pass_schema(struct stream_writer *w, stream_id id)
{
	unsigned char key[5] = { KEY_PASSED };

	memcpy(key + 1, &id, 4);
	return intern_add(&w->schemas, key, sizeof(key), NULL) == id ? 0 : -1;
}

/* ---- stores into room reserved beforehand ---- */

static inline unsigned char *
store_u32(unsigned char *d, uint32_t v)
{
	d[0] = v & 0xff;
	d[1] = (v >> 8) & 0xff;
	d[2] = (v >> 16) & 0xff;
	d[3] = v >> 24;
	return d + 4;
}

static inline unsigned char *
store_var(unsigned char *d, uint64_t v)
{
	/* Most values of events take one or two bytes. */
	if (v < 0x80) {
		*d = (unsigned char)v;
		return d + 1;
	}
	if (v < 0x4000) {
		d[0] = (unsigned char)(v | 0x80);
		d[1] = (unsigned char)(v >> 7);
		return d + 2;
	}
	while (v >= 0x80) {
		*d++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*d++ = (unsigned char)v;
	return d;
}

static inline unsigned char *
store_svar(unsigned char *d, int64_t v)
{
	return store_var(d, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* A value of type `type`, without the type. */
static inline unsigned char *
store_bare(unsigned char *d, unsigned type, const struct value *v)
{
	switch (type) {
	case VAL_I64:
	case VAL_NS:
		return store_svar(d, v->v.i);
	case VAL_U64:
	case VAL_HEX:
	case VAL_UTC:
	case VAL_BOOL:
		return store_var(d, v->v.u);
	case VAL_F64: {
		uint64_t bits;

		memcpy(&bits, &v->v.f, 8);
		d = store_u32(d, (uint32_t)bits);
		return store_u32(d, (uint32_t)(bits >> 32));
	}
	case VAL_STR:
	case VAL_BYTES:
		d = store_var(d, v->v.s.len);
		if (v->v.s.len > 0)
			memcpy(d, v->v.s.ptr, v->v.s.len);
		return d + v->v.s.len;
	case VAL_GUID:
		memcpy(d, v->v.s.ptr, 16);
		return d + 16;
	}
	return d;
}

/* The most bytes store_bare() may write for `v` as `type`. */
static inline size_t
value_bound(unsigned type, const struct value *v)
{
	if (type == VAL_STR || type == VAL_BYTES)
		return 10 + v->v.s.len;
	return 16;
}

/* ---- version 1 ---- */

/*
 * The id of a field name, through the pointer cache.  A name that may
 * live in reused memory is checked against the text; a string literal
 * (the caller says all its names are) is known by its address alone.
 */
static stream_id
field_name_id(struct stream_writer *w, const char *name, int is_static)
{
	/* Short literals may share 8 bytes: hash every bit of the address. */
	size_t slot = (size_t)(((uint64_t)(uintptr_t)name *
	    0x9e3779b97f4a7c15ULL) >> 32) % NAME_CACHE, len;
	const char *key;

	if (w->names[slot].ptr == name && w->names[slot].id != 0) {
		if (is_static && w->names[slot].is_static)
			return w->names[slot].id;
		if ((key = intern_key(&w->strings, w->names[slot].id,
		    &len)) != NULL && strncmp(key, name, len) == 0 &&
		    name[len] == '\0')
			return w->names[slot].id;
	}
	w->names[slot].ptr = name;
	w->names[slot].is_static = is_static;
	return w->names[slot].id = writer_intern(w, name);
}

/* The i'th field of an event, from its shape or its fields. */
static inline const char *
field_name(const struct stream_event *ev, size_t i)
{
	return ev->shape ? ev->shape->cols[i].name : ev->fields[i].name;
}

static inline unsigned
field_type(const struct stream_event *ev, size_t i)
{
	return ev->shape ? (unsigned)ev->shape->cols[i].type :
	    ev->fields[i].val.type;
}

static inline const struct value *
field_value(const struct stream_event *ev, size_t i)
{
	return ev->shape ? &ev->vals[i] : &ev->fields[i].val;
}

static inline size_t
field_count(const struct stream_event *ev)
{
	size_t n = ev->shape ? ev->shape->n : ev->nfields;

	return n < STREAM_EVENT_FIELDS_MAX ? n : STREAM_EVENT_FIELDS_MAX;
}

/*
 * Encodes a version 1 event record, word included, at the end of `b`,
 * where it starts at *start.
 * @return : 0, or -1 (b as it was, but for string records interning
 *	added when b is the frame) if out of memory or too long.
 */
static int
encode_v1(struct stream_writer *w, const struct stream_event *ev,
    struct buf *b, size_t *start)
{
	const struct stream_event_head *h = &ev->h;
	stream_id names[STREAM_EVENT_FIELDS_MAX];
	size_t i, nfields = field_count(ev), bound, len;
	int is_static = ev->shape != NULL || ev->static_names;
	unsigned char *d, *rec;
	unsigned type;

	/* Intern the names first: interning may emit string records. */
	bound = 36 + 10 + 10 + ev->payload_len;
	for (i = 0; i < nfields; i++) {
		if ((names[i] = field_name_id(w, field_name(ev, i),
		    is_static)) == 0)
			return -1;
		bound += 6 + value_bound(field_type(ev, i), field_value(ev, i));
	}
	*start = b->len;
	if (bound > STREAM_FRAME_MAX + 64 || (d = buf_reserve(b, bound)) == NULL)
		return -1;
	rec = d;
	d = store_u32(d, REC_EVENT);
	*d++ = h->kind;
	*d++ = h->op;
	*d++ = h->cpu & 0xff;
	*d++ = h->cpu >> 8;
	d = store_u32(d, h->stack);
	d = store_u32(d, (uint32_t)h->ts);
	d = store_u32(d, (uint32_t)((uint64_t)h->ts >> 32));
	d = store_u32(d, h->pid);
	d = store_u32(d, h->tid);
	d = store_u32(d, h->cls);
	d = store_u32(d, 0);
	d = store_var(d, nfields);
	for (i = 0; i < nfields; i++) {
		d = store_var(d, names[i]);
		type = field_type(ev, i);
		*d++ = (unsigned char)type;
		d = store_bare(d, type, field_value(ev, i));
	}
	d = store_var(d, ev->payload_len);
	if (ev->payload_len > 0)
		memcpy(d, ev->payload, ev->payload_len);
	d += ev->payload_len;
	len = (size_t)(d - rec);
	if (len - 4 > STREAM_RECORD_MAX)
		return -1;
	writer_store_len(rec, len);
	b->len = *start + len;
	return 0;
}

/* ---- version 2: schemas ---- */

/* Writes the SCHEMA record of schema `id`: the fields of `ev`. */
static int
write_schema(struct stream_writer *w, stream_id id,
    const struct stream_event *ev, int payload)
{
	struct buf *b = &w->schema;
	size_t i, n = field_count(ev);
	stream_id name;

	b->len = 0;
	buf_put_u32(b, REC_SCHEMA);
	buf_put_var(b, id);
	buf_put_u8(b, ev->h.kind);
	buf_put_u8(b, ev->h.op);
	buf_put_var(b, ev->h.cls);
	buf_put_u8(b, (uint8_t)payload);
	buf_put_var(b, n);
	for (i = 0; i < n; i++) {
		/* Interning writes a STRING record first, from its own buffer. */
		if ((name = writer_intern(w, field_name(ev, i))) == 0)
			return -1;
		buf_put_var(b, name);
		buf_put_u8(b, (uint8_t)field_type(ev, i));
	}
	if (b->oom)
		return writer_fail(w, ENOMEM);
	if (b->len - 4 > STREAM_RECORD_MAX)
		return writer_fail(w, EMSGSIZE);
	writer_store_len(b->data, b->len);
	return writer_append(w, b->data, b->len);
}

/* The schema of key w->key, written first if new; 0 on an error. */
static stream_id
schema_of_key(struct stream_writer *w, const struct stream_event *ev,
    int payload)
{
	int added;
	stream_id id = intern_add(&w->schemas, w->key.data, w->key.len,
	    &added);

	if (id == 0 || w->key.oom) {
		writer_fail(w, ENOMEM);
		return 0;
	}
	return added && write_schema(w, id, ev, payload) != 0 ? 0 : id;
}

/* Puts the part of a key that every schema has: kind, op, class. */
static void
key_head(struct buf *k, int type, const struct stream_event *ev, int payload)
{
	k->len = 0;
	buf_put_u8(k, (uint8_t)type);
	buf_put_u8(k, ev->h.kind);
	buf_put_u8(k, ev->h.op);
	buf_put_u8(k, (uint8_t)payload);
	buf_put_u32(k, ev->h.cls);
}

/*
 * The schema of an event given as fields: its key holds each name, by
 * address if the caller says names are literals, else as text (the two
 * are told apart by a byte before each), and each type.
 */
static stream_id
fields_key_schema(struct stream_writer *w, const struct stream_event *ev,
    int payload)
{
	struct buf *k = &w->key;
	size_t i, n = field_count(ev);
	const char *name;

	key_head(k, KEY_FIELDS, ev, payload);
	buf_put_var(k, n);
	for (i = 0; i < n; i++) {
		name = ev->fields[i].name;
		if (ev->static_names) {
			buf_put_u8(k, 0);
			buf_put(k, &name, sizeof(name));
		} else {
			buf_put_u8(k, 1);
			buf_put(k, name, strlen(name) + 1);
		}
		buf_put_u8(k, ev->fields[i].val.type);
	}
	return schema_of_key(w, ev, payload);
}

/*
 * The same, through a cache by the addresses of the names, for events
 * of literal names and few fields (rustc's queries): a key and its
 * hash would cost more than the rest of the event.
 */
static stream_id
fields_schema(struct stream_writer *w, const struct stream_event *ev,
    int payload)
{
	size_t i, n = ev->nfields, slot;
	uint8_t op = (uint8_t)(ev->h.op | payload << 7);
	stream_id id;

	if (!ev->static_names || n > FIELDS_CACHED)
		return fields_key_schema(w, ev, payload);
	slot = (size_t)((((uint64_t)(uintptr_t)(n ? ev->fields[0].name : NULL) ^
	    ev->h.cls * 0x9e3779b1u ^ (uint64_t)ev->h.kind << 8 ^ op ^
	    (uint64_t)n << 16) * 0x9e3779b97f4a7c15ULL) >> 40) % FIELDS_CACHE;
	if (w->fields[slot].id != 0 && w->fields[slot].cls == ev->h.cls &&
	    w->fields[slot].kind == ev->h.kind && w->fields[slot].op == op &&
	    w->fields[slot].n == n) {
		for (i = 0; i < n; i++)
			if (w->fields[slot].names[i] != ev->fields[i].name ||
			    w->fields[slot].types[i] != ev->fields[i].val.type)
				break;
		if (i == n)
			return w->fields[slot].id;
	}
	if ((id = fields_key_schema(w, ev, payload)) == 0)
		return 0;
	for (i = 0; i < n; i++) {
		w->fields[slot].names[i] = ev->fields[i].name;
		w->fields[slot].types[i] = ev->fields[i].val.type;
	}
	w->fields[slot].cls = ev->h.cls;
	w->fields[slot].kind = ev->h.kind;
	w->fields[slot].op = op;
	w->fields[slot].n = (uint8_t)n;
	w->fields[slot].id = id;
	return id;
}

/* Whether a shape has values of their own length: text, bytes. */
static int
shape_varlen(const struct stream_shape *shape)
{
	size_t i;

	for (i = 0; i < shape->n; i++)
		if (shape->cols[i].type == VAL_STR ||
		    shape->cols[i].type == VAL_BYTES)
			return 1;
	return 0;
}

/*
 * The schema of an event given as a shape and values: a cache first.
 * *varlen says whether the shape has values of their own length.
 */
static stream_id
shape_schema(struct stream_writer *w, const struct stream_event *ev,
    int payload, int *varlen)
{
	const struct stream_shape *shape = ev->shape;
	uint8_t op = (uint8_t)(ev->h.op | payload << 7);
	size_t slot = (size_t)((((uint64_t)(uintptr_t)shape ^ ev->h.cls *
	    0x9e3779b1u ^ (uint64_t)ev->h.kind << 8 ^ op) *
	    0x9e3779b97f4a7c15ULL) >> 40) % SHAPE_CACHE;
	stream_id id;

	if (w->shapes[slot].shape == shape && w->shapes[slot].cls ==
	    ev->h.cls && w->shapes[slot].kind == ev->h.kind &&
	    w->shapes[slot].op == op && w->shapes[slot].id != 0) {
		*varlen = w->shapes[slot].varlen;
		return w->shapes[slot].id;
	}
	key_head(&w->key, KEY_SHAPE, ev, payload);
	buf_put(&w->key, &shape, sizeof(shape));
	if ((id = schema_of_key(w, ev, payload)) == 0)
		return 0;
	w->shapes[slot].shape = shape;
	w->shapes[slot].cls = ev->h.cls;
	w->shapes[slot].kind = ev->h.kind;
	w->shapes[slot].op = op;
	w->shapes[slot].id = id;
	*varlen = w->shapes[slot].varlen = shape_varlen(shape);
	return id;
}

/* ---- version 2: events ---- */

/* The values of a shape, in its types' encodings. */
static inline unsigned char *
store_shape_values(unsigned char *d, const struct stream_shape *shape,
    const struct value *v)
{
	size_t i, n = shape->n;
	unsigned type;

	for (i = 0; i < n; i++) {
		type = shape->cols[i].type;
		if (type == VAL_U64 || type == VAL_HEX)
			d = store_var(d, v[i].v.u);
		else if (type == VAL_I64)
			d = store_svar(d, v[i].v.i);
		else
			d = store_bare(d, type, &v[i]);
	}
	return d;
}

/*
 * Stores a version 2 event record at `d`, which has room for it:
 * written (its stack id and time, against the last event's, as
 * varints), or held (both in full, so that the stack can be set in
 * place and the time coded when it is written, and a type byte of its
 * own).  @return : its length.
 */
static size_t
store_v2(struct stream_writer *w, const struct stream_event *ev,
    stream_id id, unsigned char *d, int held)
{
	const struct stream_event_head *h = &ev->h;
	unsigned char *rec = d;
	size_t i, n, len;

	if (held) {
		d = store_u32(d + 4, h->stack);
		d = store_u32(d, (uint32_t)h->ts);
		d = store_u32(d, (uint32_t)((uint64_t)h->ts >> 32));
	} else {
		d = store_var(d + 4, h->stack);
		d = store_svar(d, (int64_t)((uint64_t)h->ts -
		    (uint64_t)w->last_ts));
	}
	d = store_var(d, id);
	d = store_var(d, h->cpu);
	/* Ids are mostly small, and "none" (all ones) becomes 0. */
	d = store_var(d, (uint32_t)(h->pid + 1));
	d = store_var(d, (uint32_t)(h->tid + 1));
	if (ev->shape)
		d = store_shape_values(d, ev->shape, ev->vals);
	else
		for (i = 0, n = field_count(ev); i < n; i++)
			d = store_bare(d, ev->fields[i].val.type,
			    &ev->fields[i].val);
	if (ev->payload_len > 0) {
		d = store_var(d, ev->payload_len);
		memcpy(d, ev->payload, ev->payload_len);
		d += ev->payload_len;
	}
	len = (size_t)(d - rec);
	store_u32(rec, (uint32_t)(held ? REC_EVENT_HELD : REC_EVENT) |
	    (uint32_t)(len - 4) << 8);
	return len;
}

/*
 * The schema of a version 2 event, and the most bytes its record may
 * take.  @return : 0, or -1 on an error.
 */
static int
prepare_v2(struct stream_writer *w, const struct stream_event *ev,
    stream_id *id, size_t *bound)
{
	size_t i, n = field_count(ev);
	int payload = ev->payload_len > 0, varlen = 1;

	*id = ev->shape ? shape_schema(w, ev, payload, &varlen) :
	    fields_schema(w, ev, payload);
	if (*id == 0)
		return -1;
	*bound = HEAD_MAX + 10 + ev->payload_len + n * 16;
	if (ev->shape == NULL)
		for (i = 0; i < n; i++)
			*bound += value_bound(ev->fields[i].val.type,
			    &ev->fields[i].val);
	else if (varlen)
		for (i = 0; i < n; i++)
			if (ev->shape->cols[i].type == VAL_STR ||
			    ev->shape->cols[i].type == VAL_BYTES)
				*bound += ev->vals[i].v.s.len;
	return *bound > STREAM_FRAME_MAX + 64 ? -1 : 0;
}

/*
 * Encodes a version 2 event record at the end of `b` (where it starts
 * at *start); see store_v2().
 * @return : 0, or -1 (b as it was, but for the records of its schema
 *	when b is the frame) if out of memory or too long.
 */
static int
encode_v2(struct stream_writer *w, const struct stream_event *ev,
    struct buf *b, size_t *start, int held)
{
	size_t bound, len;
	unsigned char *d;
	stream_id id;

	if (prepare_v2(w, ev, &id, &bound) != 0)
		return -1;
	*start = b->len;
	if ((d = buf_reserve(b, bound)) == NULL)
		return -1;
	len = store_v2(w, ev, id, d, held);
	if (len - 4 > STREAM_RECORD_MAX)
		return -1;
	b->len = *start + len;
	if (!held)
		w->last_ts = ev->h.ts;
	return 0;
}

/*
 * Writes a version 2 event of stack `stack` and time `ts`, whose body
 * after those two is `rest`.
 */
static int
put_event(struct stream_writer *w, stream_id stack, int64_t ts,
    const unsigned char *rest, size_t restlen)
{
	int64_t dts = (int64_t)((uint64_t)ts - (uint64_t)w->last_ts);
	size_t need = 4 + 5 + 10 + restlen, len;
	unsigned char *d, *rec;

	if (restlen > STREAM_RECORD_MAX)
		return writer_fail(w, EMSGSIZE);
	/* The frame has room but every so often: no call till then. */
	if ((w->frame.len + need > w->frame_max || w->failed) &&
	    writer_make_room(w, need) != 0)
		return -1;
	if ((d = buf_reserve(&w->frame, need)) == NULL)
		return writer_fail(w, ENOMEM);
	rec = d;
	d = store_var(d + 4, stack);
	d = store_svar(d, dts);
	memcpy(d, rest, restlen);
	len = (size_t)(d + restlen - rec);
	if (len - 4 > STREAM_RECORD_MAX)
		return writer_fail(w, EMSGSIZE);
	store_u32(rec, REC_EVENT | (uint32_t)(len - 4) << 8);
	w->frame.len += len;
	w->last_ts = ts;
	w->records++;
	w->events++;
	return 0;
}

int
stream_write_read_event(struct stream_writer *w,
    const struct stream_record *rec)
{
	struct cursor c;
	stream_id stack;

	if (w->failed)
		return writer_fail(w, w->saved_errno);
	if (w->major < 2) {
		buf_put(writer_rec_begin(w, REC_EVENT), rec->body,
		    rec->body_len);
		return writer_rec_end(w);
	}
	/* Past the stack id and the input's coding of the time. */
	cursor_init(&c, rec->body, rec->body_len);
	stack = (stream_id)cursor_var(&c);
	cursor_svar(&c);
	if (c.bad)
		return writer_fail(w, EINVAL);
	return put_event(w, stack, rec->u.event.h.ts, c.p,
	    (size_t)(c.end - c.p));
}

/* ---- the entry points ---- */

static int
encode_event(struct stream_writer *w, const struct stream_event *ev,
    struct buf *b, size_t *start, int held)
{
	return w->major >= 2 ? encode_v2(w, ev, b, start, held) :
	    encode_v1(w, ev, b, start);
}

/*
 * Writes an event encoded in place at the end of the frame, not copied
 * there from w->rec (4% of the decoder's instructions on a rustc
 * profile).  The frames end where writer_append() would end them.
 */
int
stream_write_event(struct stream_writer *w, const struct stream_event *ev)
{
	size_t start, len;

	if (w->failed)
		return writer_fail(w, w->saved_errno);
	if (encode_event(w, ev, &w->frame, &start, 0) != 0)
		return writer_fail(w, w->frame.oom ? ENOMEM : EMSGSIZE);
	len = w->frame.len - start;
	if (start > 0 && start + len > w->frame_max) {
		/* It begins the next frame: out of the way of the flush. */
		w->rec.len = 0;
		buf_put(&w->rec, w->frame.data + start, len);
		w->frame.len = start;
		if (w->rec.oom)
			return writer_fail(w, ENOMEM);
		return writer_append(w, w->rec.data, w->rec.len);
	}
	w->records++;
	w->events++;
	return 0;
}

size_t
stream_encode_event(struct stream_writer *w, const struct stream_event *ev,
    unsigned char *out, size_t cap)
{
	size_t start, bound, len;
	stream_id id;

	/* Straight into the caller's memory when it has room for any. */
	if (w->major >= 2) {
		if (prepare_v2(w, ev, &id, &bound) != 0)
			return 0;
		if (bound <= cap) {
			len = store_v2(w, ev, id, out, 1);
			return len - 4 > STREAM_RECORD_MAX ? 0 : len;
		}
	}

	w->rec.len = 0;
	if (encode_event(w, ev, &w->rec, &start, 1) != 0 || w->rec.len > cap)
		return 0;
	memcpy(out, w->rec.data, w->rec.len);
	return w->rec.len;
}

void
stream_event_set_stack(unsigned char *rec, stream_id stack)
{
	unsigned char *at = rec + (rec[0] == REC_EVENT_HELD ? EVENT_STACK_AT :
	    EVENT_STACK_AT_V1);

	store_u32(at, stack);
}

int
stream_write_encoded(struct stream_writer *w, const unsigned char *rec,
    size_t len)
{
	if (rec[0] == REC_EVENT_HELD && len >= 16)
		return put_event(w, le32(rec + 4), (int64_t)le64(rec + 8),
		    rec + 16, len - 16);
	return writer_append(w, rec, len);
}
