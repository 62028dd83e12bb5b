/*
 * stream.h - the event stream that the tools pass to one another.
 *
 * The format is specified in man/etl-stream.5; this module is its only
 * implementation.  In short: a stream is a sequence of zstd frames, each
 * independently decodable, checksummed, and holding whole records of at
 * most STREAM_FRAME_MAX bytes in all.  A record is a 4-byte little-endian
 * word (type in the low 8 bits, body length in the high 24) and its body.
 * A HEADER record opens a section; definitions (strings, event classes,
 * processes, threads, images, stacks) are numbered from 1 within a section
 * and referenced by id.  Concatenated streams are a valid stream.
 *
 * Data flow: a decoder (in_etl, in_mmprof) or a reader feeds records to a
 * stream_writer; a stream_reader turns bytes back into records.
 *
 * Memory: the reader owns every record it returns, and the record stays
 * valid until the next call to stream_reader_next().  The reader keeps the
 * definitions of the current section (strings, classes, processes,
 * threads, images; stacks too if asked) so that consumers can look them up
 * by id; those stay valid until the next HEADER record.  What they take
 * is bounded by the input (etl-stream.5, Limits): 16 MiB plus 64 bytes a
 * compressed byte read; past that, or at a STRING out of order or
 * repeated, the reader stops with an error naming the input and offset.
 * The writer copies what it is given.  No function here keeps global
 * state.
 */
#ifndef STREAM_H
#define STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/value.h"

struct buf;

#define STREAM_MAGIC		"ETLSTRM"	/* 7 bytes + NUL in HEADER */
#define STREAM_VERSION_MAJOR	2	/* 2: REC_SCHEMA, events of values */
#define STREAM_VERSION_MINOR	1	/* 2.1: REC_SCOPE */
#define STREAM_FRAME_MAX	(1u << 20)	/* uncompressed bytes a frame */
#define STREAM_RECORD_MAX	(STREAM_FRAME_MAX - 4)
#define STREAM_STACK_MAX	1024		/* frames in one REC_STACK */

enum stream_rec_type {
	REC_HEADER = 0x01,	/* opens a section */
	REC_TRACE = 0x02,	/* trace metadata, from the source's header */
	REC_END = 0x03,		/* closes a section, with counts */
	REC_DIAG = 0x04,	/* something skipped or lost, counted */
	REC_COUNT = 0x05,	/* source records absorbed into definitions */
	REC_STRING = 0x10,
	REC_CLASS = 0x11,
	REC_PROCESS = 0x12,
	REC_THREAD = 0x13,
	REC_IMAGE = 0x14,
	REC_STACK = 0x15,
	REC_SYMBOL = 0x16,	/* 1.1: what an address of an image is */
	REC_IMAGE_SYMBOLS = 0x17, /* 1.1: how an image's PDB was looked for */
	REC_SCHEMA = 0x18,	/* 2.0: an event class's fields, once */
	REC_SCOPE = 0x19,	/* 2.1: what a filter cut the section to */
	REC_EVENT = 0x20,
	REC_TABLE = 0x30,	/* a table's schema */
	REC_ROW = 0x31		/* a row of a table */
};

/* What an event is.  Anything without a kind of its own is EV_GENERIC. */
enum stream_ev_kind {
	EV_GENERIC = 1,
	EV_PROCESS = 2,		/* op: EVOP_START, END, DCSTART, DCEND, DEFUNCT */
	EV_THREAD = 3,		/* op as for EV_PROCESS */
	EV_IMAGE = 4,		/* op: EVOP_LOAD, UNLOAD, DCSTART, DCEND */
	EV_SAMPLE = 5,
	EV_VMEM = 6,		/* op: EVOP_ALLOC, EVOP_FREE */
	EV_HEAP = 7,		/* op: CREATE, ALLOC, REALLOC, FREE, DESTROY */
	EV_CSWITCH = 8,
	EV_READY = 9,
	EV_LOST = 10,		/* a record saying events were lost */
	EV_QUERY = 11,		/* rustc self-profile interval or instant */
	EV_HEAPSNAP = 12,	/* heap snapshot: op START, CREATE (heap), ALLOC */
	EV_KIND_MAX = 12
};

enum stream_ev_op {
	EVOP_NONE = 0,
	EVOP_START = 1, EVOP_END = 2, EVOP_DCSTART = 3, EVOP_DCEND = 4,
	EVOP_DEFUNCT = 5, EVOP_LOAD = 6, EVOP_UNLOAD = 7,
	EVOP_ALLOC = 8, EVOP_FREE = 9, EVOP_REALLOC = 10, EVOP_CREATE = 11,
	EVOP_DESTROY = 12
};

/* The id of a definition; 0 means none. */
typedef uint32_t stream_id;

struct stream_header {
	uint16_t major, minor;
	const char *producer;		/* "etlcat 0.1" */
};

struct stream_trace {
	const char *source;		/* file name as given */
	const char *format;		/* "etl", "mm_profdata" */
	const char *logger;		/* logger (session) name */
	uint64_t start_utc, end_utc;	/* FILETIME */
	uint64_t boot_utc;
	uint64_t perf_freq;		/* clock ticks a second */
	uint32_t clock_type;		/* 1 QPC, 2 system time, 3 CPU cycles */
	uint32_t os_major, os_minor, os_build;
	uint32_t cpus, cpu_mhz;
	uint32_t pointer_size;
	uint32_t log_file_mode;
	uint32_t buffer_size;
	uint32_t buffers_written, buffers_lost, events_lost;
	int32_t tz_bias_minutes;
	uint32_t sample_interval_100ns;	/* 0 = unknown; default 10000 */
};

/* REC_END: what a section held, so a truncated stream shows. */
struct stream_end {
	uint64_t records;		/* records in the section before END */
	uint64_t events;
	uint64_t source_events;		/* events read from the source */
	uint64_t source_bytes;
	uint64_t end_ns;		/* time of the last event */
	/* SystemConfig facts that only arrive at the end of a trace. */
	uint64_t memory_bytes;
	const char *computer;
};

/* REC_DIAG: a problem met while decoding, and how many times. */
struct stream_diag {
	const char *what;		/* "corrupt buffer header", ... */
	uint64_t count;
	uint64_t first_offset;		/* source offset of the first one */
	uint64_t bytes;			/* source bytes it made unreadable */
};

/* REC_CLASS: the identity of a kind of record in the source. */
struct stream_class {
	stream_id id;
	unsigned char guid[16];		/* provider, or kernel group */
	const char *provider;		/* "Windows Kernel", a name or "" */
	const char *event;		/* "Process/Start", "EventID(12)", ... */
	int32_t hook;			/* group<<8|type, or -1 */
	int32_t event_id;		/* EVENT_HEADER id, or -1 */
	uint8_t version, opcode;
	uint8_t level;
	uint16_t task;
};

struct stream_process {
	stream_id id;
	uint32_t pid, ppid;
	int64_t start_ns;		/* INT64_MIN: before the trace */
	uint32_t session;
	uint64_t key;			/* UniqueProcessKey, 0 if none */
	const char *name;		/* "rustc.exe" */
	const char *cmdline;
};

struct stream_thread {
	stream_id id;
	uint32_t tid, pid;
	stream_id process;
	int64_t start_ns;		/* INT64_MIN: before the trace */
	const char *name;
};

struct stream_image {
	stream_id id;
	uint32_t pid;
	stream_id process;
	uint64_t base, size;
	uint32_t checksum, timestamp;
	const char *path;
	unsigned char pdb_guid[16];	/* all zero: no PDB identity */
	uint32_t pdb_age;
	const char *pdb_name;
	const char *original_name;	/* ImageID's OriginalFileName */
};

/*
 * REC_STACK: the frames of stack `head` (0: none), then `frames`
 * (innermost first), then the frames of stack `next` (0: none).  Kernel
 * and user parts of one stack, and cached stacks, are joined this way.  A
 * stack may be defined after the events that use it (cached stacks are
 * resolved only when the source says what they held); readers look stacks
 * up when they need the frames, at the latest at REC_END.
 */
struct stream_stack {
	stream_id id;
	stream_id head;
	stream_id next;
	uint32_t nframes;
	const uint64_t *frames;
	uint8_t unresolved;		/* the source never defined it */
};

#define STREAM_INLINE_MAX	64	/* inlined frames of one REC_SYMBOL */

/* An inlined function at an address, in its caller. */
struct stream_inline {
	const char *function;
	const char *file;		/* "" when not known */
	uint32_t line;			/* 0 when not known */
};

/*
 * REC_SYMBOL (etlsym): what the address `address` (as stacks hold it) of
 * image `image` is: the function that holds it, the offset in it, the
 * source line, and the functions inlined there, innermost first.  There
 * is one per distinct (image, address) that a stack uses.
 */
struct stream_symbol {
	stream_id id;
	stream_id image;
	uint64_t address;
	const char *function;
	uint64_t offset;
	const char *file;		/* "" when not known */
	uint32_t line;
	uint32_t ninlines;
	const struct stream_inline *inlines;
};

enum stream_sym_status {
	STREAM_SYM_NOT_FOUND = 0,
	STREAM_SYM_FOUND = 1,
	STREAM_SYM_MISMATCH = 2,	/* a PDB of that name did not match */
	STREAM_SYM_CORRUPT = 3,		/* unreadable or unsupported PDB */
	STREAM_SYM_NO_ID = 4		/* the image has no PDB identity */
};

/* REC_IMAGE_SYMBOLS (etlsym): the symbol search for one image. */
struct stream_image_symbols {
	stream_id image;
	uint8_t status;			/* enum stream_sym_status */
	unsigned char pdb_guid[16];	/* the identity looked for, which an */
	uint32_t pdb_age;		/* image definition may lack (unload) */
	const char *pdb_name;
	const char *pdb_path;		/* the PDB used or refused, or "" */
	const char *message;		/* why it was refused, or "" */
	uint64_t frames;		/* stack frames (uses) in the image */
	uint64_t addresses;		/* distinct addresses among them */
	uint64_t named;			/* of those, named */
};

/* The part every event has. */
struct stream_event_head {
	uint8_t kind;			/* enum stream_ev_kind */
	uint8_t op;			/* enum stream_ev_op */
	uint16_t cpu;
	stream_id stack;
	int64_t ts;			/* ns since trace start */
	uint32_t pid, tid;
	stream_id cls;			/* the REC_CLASS it came from */
};

struct stream_field {
	const char *name;
	struct value val;
};

#define STREAM_EVENT_FIELDS_MAX 256

struct stream_column;

/*
 * The fields of a kind of event, declared once (a static const, or
 * memory that lives as long as the writer) by a decoder that writes
 * many such events: the writer knows the event's schema by the shape's
 * address, and the event gives only its values, in the shape's order.
 * The types are the shape's; a value's own type is not read.
 */
struct stream_shape {
	size_t n;
	const struct stream_column *cols;	/* name, type (unit unused) */
};


/*
 * REC_SCHEMA (version 2): what the events that name schema `id` are:
 * their kind, op and class, and their fields' names and types, in the
 * order the values follow.  `payload` says whether source bytes follow
 * the values.  A reader looks a field up by index from then on.
 */
struct stream_schema {
	stream_id id;
	uint8_t kind, op;
	uint8_t payload;
	stream_id cls;
	uint32_t nfields;
	const char **names;
	const uint8_t *types;		/* enum value_type */
	/* The reader's memo of names asked for (stream_event_field()). */
	struct stream_schema_memo *memo;
};

/*
 * An event: the head, then the kind's values.  Every kind's values are a
 * list of named, typed fields (for the kernel kinds the names are fixed
 * and documented in etl-stream.5), so tools that do not know a kind can
 * still show it.  `payload` holds the source bytes of generic events whose
 * layout is unknown.
 */
struct stream_event {
	struct stream_event_head h;
	size_t nfields;
	const struct stream_field *fields;
	/*
	 * A writer's caller may give a shape and its values instead of
	 * fields (stream_shape above).  A reader sets `schema` to the
	 * event's schema in a version 2 stream, NULL in version 1.
	 */
	const struct stream_shape *shape;
	const struct value *vals;
	struct stream_schema *schema;
	/*
	 * 1 if every field name is a string literal (or otherwise lives,
	 * unchanged, as long as the writer): the writer then knows a name
	 * by its address, without comparing the text.
	 */
	int static_names;
	const unsigned char *payload;
	size_t payload_len;
};

struct stream_column {
	const char *name;
	enum value_type type;
	const char *unit;
};

/*
 * REC_SCOPE (etlfilter, 2.1): what a section was cut to, so that every
 * view counts as it would on the whole trace (etl-stream(5), "Scope").
 * SCOPE_WINDOW comes before the section's events: only [from_ns, to_ns)
 * counts; events outside it that carry state into it (switches, readies,
 * VirtualAlloc, lifetimes) are there as context.  SCOPE_KEPT comes before
 * the section's END: only the listed processes count (or, with `except`,
 * all but them); the events of others that remain are context.  Both are
 * given by PROCESS id, and by pid for a pid no PROCESS of the section
 * defines.  Several of either kind in a section intersect.
 */
enum stream_scope_what { SCOPE_WINDOW = 1, SCOPE_KEPT = 2 };

struct stream_scope {
	uint8_t what;			/* enum stream_scope_what */
	int64_t from_ns, to_ns;		/* WINDOW: INT64_MIN/MAX for none */
	uint8_t except;			/* KEPT: the lists are the dropped */
	uint32_t nprocs, npids;		/* KEPT: the lists' lengths */
	const unsigned char *procs;	/* 4 bytes each: stream_scope_item() */
	const unsigned char *pids;
};

/* Item i of a SCOPE's list of PROCESS ids or pids. */
uint32_t stream_scope_item(const unsigned char *list, uint32_t i);

struct stream_table {
	stream_id id;
	const char *name;		/* the view: "stats", "processes" */
	size_t ncols;
	const struct stream_column *cols;
};

struct stream_row {
	stream_id table;
	size_t ncells;
	const struct value *cells;
};

/* One record as the reader returns it: `type` says which member is set. */
struct stream_record {
	enum stream_rec_type type;
	const unsigned char *body;	/* the encoded body, for pass-through */
	size_t body_len;
	union {
		struct stream_header header;
		struct stream_trace trace;
		struct stream_end end;
		struct stream_diag diag;
		struct stream_class cls;
		struct stream_process process;
		struct stream_thread thread;
		struct stream_image image;
		struct stream_stack stack;
		struct stream_event event;
		struct stream_table table;
		struct stream_row row;
		struct stream_symbol symbol;
		struct stream_image_symbols image_symbols;
		struct stream_schema schema;
		struct stream_scope scope;
		struct {
			stream_id id;
			const char *text;
			size_t len;
		} string;
		struct {
			stream_id cls;
			uint64_t count;
		} count;
	} u;
};

/* Status of stream_reader_next(). */
enum stream_status {
	STREAM_OK = 0,
	STREAM_EOF = 1,		/* clean end of input */
	STREAM_ERROR = -1	/* stream_reader_error() says what and where */
};

/* ---- A stream between two threads (stream_link.c) ---- */

/*
 * A bounded queue of uncompressed frames from a writer on one thread to
 * a reader on another: a tool that decodes a trace itself reads the
 * stream that etlcat would write, without compressing it.
 */
struct stream_link;

/* @return : NULL if out of memory. */
struct stream_link *stream_link_new(void);

/* Frees the link; the thread started on it must have been joined. */
void stream_link_free(struct stream_link *l);

/*
 * Starts the writing side, fn(arg), on a thread of its own.
 * @return : 0, or -1 if no thread could be made.
 */
int stream_link_thread(struct stream_link *l, void (*fn)(void *), void *arg);

/* Waits for that thread to return. */
void stream_link_join(struct stream_link *l);

/*
 * Writer: hands the full `frame` over, and gives back an empty buffer
 * in its place.  @return : 0, or -1 once the reader has stopped.
 */
int stream_link_put(struct stream_link *l, struct buf *frame);

/* Writer: there are no more frames. */
void stream_link_close(struct stream_link *l);

/*
 * Reader: the next frame, valid until the next call; the one before is
 * given back.  @return : NULL at the end (len 0).
 */
const unsigned char *stream_link_get(struct stream_link *l, size_t *len);

/* Reader: takes nothing more; the writer's next put fails. */
void stream_link_stop(struct stream_link *l);

/* ---- Writer ---- */

struct stream_writer;

/*
 * Creates a writer on `fp` with zstd `level` (1 is the default; negative
 * levels are faster).  @return : NULL if out of memory.
 */
struct stream_writer *stream_writer_new(FILE *fp, int level);

/*
 * Creates a writer whose frames go, uncompressed, to the reader at the
 * other end of `l`; closing it closes the link.  A write fails (EPIPE)
 * once that reader has stopped.  @return : NULL if out of memory.
 */
struct stream_writer *stream_writer_new_link(struct stream_link *l);

/*
 * From now on, compresses and writes frames on a thread of their own
 * (through a stream link), so that encoding and compressing use two
 * cores; the output is the same.  Nothing else may write to fp until
 * the writer is closed.  A write error is then seen one frame later.
 * Without threads (none could be made) the writer goes on as before.
 */
void stream_writer_async(struct stream_writer *w);

/*
 * Flushes the last frame and frees the writer; fp is not closed.
 * @return : 0, or -1 if a write failed (errno set).
 */
int stream_writer_close(struct stream_writer *w);

/* Each of these appends one record; 0, or -1 on a write error. */
int stream_write_header(struct stream_writer *w, const char *producer);
int stream_write_trace(struct stream_writer *w, const struct stream_trace *t);
int stream_write_end(struct stream_writer *w, const struct stream_end *e);
int stream_write_diag(struct stream_writer *w, const struct stream_diag *d);
int stream_write_count(struct stream_writer *w, stream_id cls, uint64_t n);
int stream_write_class(struct stream_writer *w, const struct stream_class *c);
int stream_write_process(struct stream_writer *w,
    const struct stream_process *p);
int stream_write_thread(struct stream_writer *w, const struct stream_thread *t);
int stream_write_image(struct stream_writer *w, const struct stream_image *im);
int stream_write_stack(struct stream_writer *w, const struct stream_stack *s);
int stream_write_symbol(struct stream_writer *w,
    const struct stream_symbol *s);
int stream_write_image_symbols(struct stream_writer *w,
    const struct stream_image_symbols *s);
int stream_write_event(struct stream_writer *w, const struct stream_event *ev);
/*
 * Passes on an event a reader returned, as it was read but for its
 * time, which is coded against the events before it in this stream.
 */
int stream_write_read_event(struct stream_writer *w,
    const struct stream_record *rec);
int stream_write_table(struct stream_writer *w, const struct stream_table *t);
int stream_write_scope(struct stream_writer *w, const struct stream_scope *s);
int stream_write_row(struct stream_writer *w, const struct stream_row *r);

/* Copies a record as read, unchanged (pass-through of any type). */
int stream_write_record(struct stream_writer *w,
    const struct stream_record *rec);

/*
 * Encodes an event into `buf` without writing it, so a decoder can hold
 * events back (to attach stacks that come later) and patch the stack id
 * in place with stream_event_set_stack(); stream_write_encoded() writes
 * it.  In a version 2 section the held form has the time in full (the
 * stream codes it against the event written before, known only then)
 * and a type byte of its own, so it is never written as it is.
 * @return : the encoded record length, or 0 if it does not fit in cap.
 */
size_t stream_encode_event(struct stream_writer *w, const struct stream_event *ev,
    unsigned char *buf, size_t cap);
void stream_event_set_stack(unsigned char *rec, stream_id stack);
int stream_write_encoded(struct stream_writer *w, const unsigned char *rec,
    size_t len);

/*
 * Makes the next stream_write_*() of a definition encode its record
 * without writing it (strings it interns are still written), so a
 * decoder can hold it back with the events around it; stream_captured()
 * then gives the record, valid until the next write, for
 * stream_write_encoded() later.
 */
void stream_capture_next(struct stream_writer *w);
const unsigned char *stream_captured(const struct stream_writer *w,
    size_t *len);

/* ---- Reader ---- */

struct stream_reader;

enum stream_reader_flags {
	STREAM_KEEP_STACKS = 1 << 0,	/* keep stack definitions for lookup */
	STREAM_EVENT_HEADS = 1 << 1,	/* events come with their head only */
	/*
	 * Query events are read for their label, not their arguments: a
	 * rustc profile that the tool decodes itself (cli_input_open) is
	 * decoded without them, which is most of its decoding time.
	 */
	STREAM_QUERY_LABELS = 1 << 2
};

/* @return : NULL if out of memory. */
struct stream_reader *stream_reader_new(unsigned flags);
void stream_reader_free(struct stream_reader *r);

/* The flags it was made with. */
unsigned stream_reader_flags(const struct stream_reader *r);

/*
 * Decodes the fields of the events of the kinds in `kinds` only (bit k
 * for kind k, STREAM_KIND(k)); the others come with their head only, as
 * with STREAM_EVENT_HEADS, and their fields are neither read nor
 * checked.  By default every kind's fields are decoded.
 */
#define STREAM_KIND(k)	(1u << (k))
void stream_reader_fields_of(struct stream_reader *r, uint32_t kinds);

/* Reads from fp (not closed by the reader); `name` is used in messages. */
void stream_reader_open_file(struct stream_reader *r, FILE *fp,
    const char *name);

/*
 * Reads the frames a writer on another thread sends through `l`
 * (stream_writer_new_link()); stream_link_stop() before freeing the link
 * if the reader stops before the end.
 */
void stream_reader_open_link(struct stream_reader *r, struct stream_link *l,
    const char *name);

/* Reads from memory that must outlive the reader's use of it. */
void stream_reader_open_mem(struct stream_reader *r, const void *data,
    size_t len, const char *name);

/*
 * Whether the bytes start like a zstd frame (a stream, probably), or
 * like one a text pipe mangled (stream_sniff.h; reading it then fails
 * with a message that says so).
 */
int stream_probe(const unsigned char *data, size_t len);

/*
 * Reads the next record into *rec.
 * @return : STREAM_OK, STREAM_EOF, or STREAM_ERROR (a corrupt or truncated
 *	frame, a record that does not parse, or a newer major version).  After
 *	STREAM_ERROR the reader cannot go on.
 */
enum stream_status stream_reader_next(struct stream_reader *r,
    struct stream_record *rec);

/*
 * A record that a reader returned, as it was read: its record word and
 * body, *len bytes, valid as long as the record.  Passing a record on
 * with stream_write_encoded() then copies it once.  Not for a record
 * made otherwise, nor for a HEADER or STRING (the writer must see
 * those: stream_write_record()).
 */
const unsigned char *stream_record_raw(const struct stream_record *rec,
    size_t *len);

/* "stream.zst: truncated frame (offset 0x1234)" or similar. */
const char *stream_reader_error(const struct stream_reader *r);

/*
 * Whether a section ended without its REC_END: at the end of the input,
 * or because a new HEADER came first (a cut stream concatenated with
 * another).
 */
int stream_reader_truncated(const struct stream_reader *r);

/* Look-ups in the current section; NULL if the id is not (yet) defined. */
const char *stream_string(const struct stream_reader *r, stream_id id);
const struct stream_class *stream_class(const struct stream_reader *r,
    stream_id id);
const struct stream_process *stream_process(const struct stream_reader *r,
    stream_id id);
const struct stream_thread *stream_thread(const struct stream_reader *r,
    stream_id id);
const struct stream_image *stream_image(const struct stream_reader *r,
    stream_id id);
const struct stream_stack *stream_stack(const struct stream_reader *r,
    stream_id id);
const struct stream_schema *stream_schema(const struct stream_reader *r,
    stream_id id);
/*
 * Collects the full frame list of stack `id` (innermost first) into
 * out[0..cap).  Needs STREAM_KEEP_STACKS.
 * @return : the number of frames, or -1 if a part is not defined (yet).
 */
long stream_stack_frames(const struct stream_reader *r, stream_id id,
    uint64_t *out, size_t cap);
const struct stream_trace *stream_current_trace(const struct stream_reader *r);

/* The process that `pid` denotes at the reader's current position. */
const struct stream_process *stream_process_by_pid(
    const struct stream_reader *r, uint32_t pid);
/*
 * A number that changes whenever what a pid denotes may have changed (a
 * PROCESS, a new section): a cache of stream_process_by_pid() holds
 * while it is the same.
 */
uint64_t stream_pids_version(const struct stream_reader *r);

/* Whether `type` is a record type this version defines. */
int stream_rec_known(unsigned type);

/* The name of an event kind ("sample") or op ("start"); "" if none. */
const char *stream_kind_name(enum stream_ev_kind kind);
const char *stream_op_name(enum stream_ev_op op);
/* The kind named `name`, or -1. */
int stream_kind_by_name(const char *name);

/*
 * The value of an event's field `name`; NULL if it has none.  In a
 * version 2 stream the answer is remembered per schema and name (by
 * its address, checked against the text), so asking again costs no
 * search.
 */
const struct value *stream_event_field(const struct stream_event *ev,
    const char *name);
/* The index of field `name` in the events of `s`, or -1. */
int stream_schema_index(struct stream_schema *s, const char *name);
/* Its number (v.u), or `dflt` if the event has no such field. */
uint64_t stream_event_u(const struct stream_event *ev, const char *name,
    uint64_t dflt);

#endif
