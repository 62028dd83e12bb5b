/*
 * stream_write_defs.c - encodes every record but events: the section's
 * header, trace and end, its diagnostics, the definitions, the tables,
 * and records passed on as read.  Events and their schemas are
 * stream_write_event.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"
#include "stream.h"
#include "stream_write_state.h"

/* A HEADER starts a section: string ids and counts start again. */
static void
section_start(struct stream_writer *w, unsigned major)
{
	w->major = major;
	w->last_ts = 0;
	writer_schemas_reset(w);
	intern_clear(&w->strings);
	memset(w->names, 0, sizeof(w->names));
	w->records = w->events = 0;
}

int
stream_write_header(struct stream_writer *w, const char *producer)
{
	struct buf *b;

	section_start(w, STREAM_VERSION_MAJOR);
	b = writer_rec_begin(w, REC_HEADER);
	buf_put(b, STREAM_MAGIC, sizeof(STREAM_MAGIC));
	buf_put_u16(b, STREAM_VERSION_MAJOR);
	buf_put_u16(b, STREAM_VERSION_MINOR);
	buf_put_str(b, producer);
	return writer_rec_end(w);
}

int
stream_write_trace(struct stream_writer *w, const struct stream_trace *t)
{
	struct buf *b = writer_rec_begin(w, REC_TRACE);

	buf_put_str(b, t->source);
	buf_put_str(b, t->format);
	buf_put_str(b, t->logger);
	buf_put_var(b, t->start_utc);
	buf_put_var(b, t->end_utc);
	buf_put_var(b, t->boot_utc);
	buf_put_var(b, t->perf_freq);
	buf_put_var(b, t->clock_type);
	buf_put_var(b, t->os_major);
	buf_put_var(b, t->os_minor);
	buf_put_var(b, t->os_build);
	buf_put_var(b, t->cpus);
	buf_put_var(b, t->cpu_mhz);
	buf_put_var(b, t->pointer_size);
	buf_put_var(b, t->log_file_mode);
	buf_put_var(b, t->buffer_size);
	buf_put_var(b, t->buffers_written);
	buf_put_var(b, t->buffers_lost);
	buf_put_var(b, t->events_lost);
	buf_put_svar(b, t->tz_bias_minutes);
	buf_put_var(b, t->sample_interval_100ns);
	return writer_rec_end(w);
}

int
stream_write_end(struct stream_writer *w, const struct stream_end *e)
{
	struct buf *b = writer_rec_begin(w, REC_END);

	/* The counts are the writer's own, so a reader can check them. */
	buf_put_var(b, w->records);
	buf_put_var(b, w->events);
	buf_put_var(b, e->source_events);
	buf_put_var(b, e->source_bytes);
	buf_put_var(b, e->end_ns);
	buf_put_var(b, e->memory_bytes);
	buf_put_str(b, e->computer);
	return writer_rec_end(w);
}

int
stream_write_diag(struct stream_writer *w, const struct stream_diag *d)
{
	struct buf *b = writer_rec_begin(w, REC_DIAG);

	buf_put_str(b, d->what);
	buf_put_var(b, d->count);
	buf_put_var(b, d->first_offset);
	buf_put_var(b, d->bytes);
	return writer_rec_end(w);
}

int
stream_write_count(struct stream_writer *w, stream_id cls, uint64_t n)
{
	struct buf *b = writer_rec_begin(w, REC_COUNT);

	buf_put_var(b, cls);
	buf_put_var(b, n);
	return writer_rec_end(w);
}

int
stream_write_scope(struct stream_writer *w, const struct stream_scope *s)
{
	struct buf *b = writer_rec_begin(w, REC_SCOPE);
	uint32_t i;

	buf_put_u8(b, s->what);
	buf_put_svar(b, s->from_ns);
	buf_put_svar(b, s->to_ns);
	buf_put_u8(b, s->except);
	buf_put_var(b, s->nprocs);
	for (i = 0; i < s->nprocs; i++)
		buf_put_u32(b, stream_scope_item(s->procs, i));
	buf_put_var(b, s->npids);
	for (i = 0; i < s->npids; i++)
		buf_put_u32(b, stream_scope_item(s->pids, i));
	return writer_rec_end(w);
}

int
stream_write_class(struct stream_writer *w, const struct stream_class *c)
{
	stream_id provider = writer_intern(w, c->provider);
	stream_id event = writer_intern(w, c->event);
	struct buf *b = writer_rec_begin(w, REC_CLASS);

	buf_put_var(b, c->id);
	buf_put(b, c->guid, 16);
	buf_put_var(b, provider);
	buf_put_var(b, event);
	buf_put_svar(b, c->hook);
	buf_put_svar(b, c->event_id);
	buf_put_u8(b, c->version);
	buf_put_u8(b, c->opcode);
	buf_put_u8(b, c->level);
	buf_put_var(b, c->task);
	return writer_rec_end(w);
}

int
stream_write_process(struct stream_writer *w, const struct stream_process *p)
{
	stream_id name = writer_intern(w, p->name);
	stream_id cmdline = writer_intern(w, p->cmdline);
	struct buf *b = writer_rec_begin(w, REC_PROCESS);

	buf_put_var(b, p->id);
	buf_put_var(b, p->pid);
	buf_put_var(b, p->ppid);
	buf_put_svar(b, p->start_ns);
	buf_put_var(b, p->session);
	buf_put_var(b, p->key);
	buf_put_var(b, name);
	buf_put_var(b, cmdline);
	return writer_rec_end(w);
}

int
stream_write_thread(struct stream_writer *w, const struct stream_thread *t)
{
	stream_id name = writer_intern(w, t->name);
	struct buf *b = writer_rec_begin(w, REC_THREAD);

	buf_put_var(b, t->id);
	buf_put_var(b, t->tid);
	buf_put_var(b, t->pid);
	buf_put_var(b, t->process);
	buf_put_svar(b, t->start_ns);
	buf_put_var(b, name);
	return writer_rec_end(w);
}

int
stream_write_image(struct stream_writer *w, const struct stream_image *im)
{
	stream_id path = writer_intern(w, im->path);
	stream_id pdb = writer_intern(w, im->pdb_name);
	stream_id orig = writer_intern(w, im->original_name);
	struct buf *b = writer_rec_begin(w, REC_IMAGE);

	buf_put_var(b, im->id);
	buf_put_var(b, im->pid);
	buf_put_var(b, im->process);
	buf_put_var(b, im->base);
	buf_put_var(b, im->size);
	buf_put_var(b, im->checksum);
	buf_put_var(b, im->timestamp);
	buf_put_var(b, path);
	buf_put(b, im->pdb_guid, 16);
	buf_put_var(b, im->pdb_age);
	buf_put_var(b, pdb);
	buf_put_var(b, orig);
	return writer_rec_end(w);
}

int
stream_write_stack(struct stream_writer *w, const struct stream_stack *s)
{
	struct buf *b = writer_rec_begin(w, REC_STACK);
	uint32_t i;

	buf_put_var(b, s->id);
	buf_put_var(b, s->head);
	buf_put_var(b, s->next);
	buf_put_u8(b, s->unresolved);
	buf_put_var(b, s->nframes);
	for (i = 0; i < s->nframes; i++)
		buf_put_u64(b, s->frames[i]);
	return writer_rec_end(w);
}

int
stream_write_symbol(struct stream_writer *w, const struct stream_symbol *s)
{
	stream_id fn[STREAM_INLINE_MAX], file[STREAM_INLINE_MAX];
	stream_id function = writer_intern(w, s->function);
	stream_id sfile = writer_intern(w, s->file);
	uint32_t i, n = s->ninlines < STREAM_INLINE_MAX ? s->ninlines :
	    STREAM_INLINE_MAX;
	struct buf *b;

	for (i = 0; i < n; i++) {
		fn[i] = writer_intern(w, s->inlines[i].function);
		file[i] = writer_intern(w, s->inlines[i].file);
	}
	b = writer_rec_begin(w, REC_SYMBOL);
	buf_put_var(b, s->id);
	buf_put_var(b, s->image);
	buf_put_var(b, s->address);
	buf_put_var(b, function);
	buf_put_var(b, s->offset);
	buf_put_var(b, sfile);
	buf_put_var(b, s->line);
	buf_put_var(b, n);
	for (i = 0; i < n; i++) {
		buf_put_var(b, fn[i]);
		buf_put_var(b, file[i]);
		buf_put_var(b, s->inlines[i].line);
	}
	return writer_rec_end(w);
}

int
stream_write_image_symbols(struct stream_writer *w,
    const struct stream_image_symbols *s)
{
	stream_id path = writer_intern(w, s->pdb_path);
	stream_id message = writer_intern(w, s->message);
	stream_id name = writer_intern(w, s->pdb_name);
	struct buf *b = writer_rec_begin(w, REC_IMAGE_SYMBOLS);

	buf_put_var(b, s->image);
	buf_put_u8(b, s->status);
	buf_put(b, s->pdb_guid, 16);
	buf_put_var(b, s->pdb_age);
	buf_put_var(b, name);
	buf_put_var(b, path);
	buf_put_var(b, message);
	buf_put_var(b, s->frames);
	buf_put_var(b, s->addresses);
	buf_put_var(b, s->named);
	return writer_rec_end(w);
}

/* A typed value as the stream stores it: a type byte, then the value. */
static void
put_value(struct buf *b, const struct value *v)
{
	buf_put_u8(b, v->type);
	switch (v->type) {
	case VAL_I64:
	case VAL_NS:
		buf_put_svar(b, v->v.i);
		break;
	case VAL_U64:
	case VAL_HEX:
	case VAL_UTC:
	case VAL_BOOL:
		buf_put_var(b, v->v.u);
		break;
	case VAL_F64: {
		uint64_t bits;

		memcpy(&bits, &v->v.f, 8);
		buf_put_u64(b, bits);
		break;
	}
	case VAL_STR:
	case VAL_BYTES:
		buf_put_bytes(b, v->v.s.ptr, v->v.s.len);
		break;
	case VAL_GUID:
		buf_put(b, v->v.s.ptr, 16);
		break;
	case VAL_NULL:
		break;
	}
}

int
stream_write_table(struct stream_writer *w, const struct stream_table *t)
{
	struct buf *b = writer_rec_begin(w, REC_TABLE);
	size_t i;

	buf_put_var(b, t->id);
	buf_put_str(b, t->name);
	buf_put_var(b, t->ncols);
	for (i = 0; i < t->ncols; i++) {
		buf_put_str(b, t->cols[i].name);
		buf_put_u8(b, t->cols[i].type);
		buf_put_str(b, t->cols[i].unit);
	}
	return writer_rec_end(w);
}

int
stream_write_row(struct stream_writer *w, const struct stream_row *r)
{
	struct buf *b = writer_rec_begin(w, REC_ROW);
	size_t i;

	buf_put_var(b, r->table);
	buf_put_var(b, r->ncells);
	for (i = 0; i < r->ncells; i++)
		put_value(b, &r->cells[i]);
	return writer_rec_end(w);
}

int
stream_write_record(struct stream_writer *w, const struct stream_record *rec)
{
	struct buf *b;
	struct cursor c;

	/* Its time is coded against this stream's events, not the input's. */
	if (rec->type == REC_EVENT && w->major >= 2)
		return stream_write_read_event(w, rec);
	/* Its id read from the body: a held record has no parsed schema. */
	cursor_init(&c, rec->body, rec->body_len);
	if (rec->type == REC_SCHEMA &&
	    writer_pass_schema(w, (stream_id)cursor_var(&c)) != 0)
		return writer_fail(w, EINVAL);
	b = writer_rec_begin(w, rec->type);
	/* Read from the body: a held record has no parsed header. */
	if (rec->type == REC_HEADER)
		section_start(w, rec->body_len >= sizeof(STREAM_MAGIC) + 2 ?
		    le16(rec->body + sizeof(STREAM_MAGIC)) : 1);
	/*
	 * A string passed through keeps its id only if this writer hands
	 * out the same one, which it does while every string is passed on.
	 */
	if (rec->type == REC_STRING &&
	    intern_add(&w->strings, rec->u.string.text, rec->u.string.len,
	    NULL) != rec->u.string.id)
		return writer_fail(w, EINVAL);
	buf_put(b, rec->body, rec->body_len);
	return writer_rec_end(w);
}
