/*
 * stream_read_state.h - the state of a stream reader (stream.h), shared
 * by the three files that make it: stream_read.c (the reader, its input
 * and frames, and the record loop), stream_parse.c (the record bodies)
 * and stream_defs.c (the definitions a section keeps, within the limits
 * of etl-stream.5, and their lookup).  No other module includes it.
 */
#ifndef STREAM_READ_STATE_H
#define STREAM_READ_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "base/idmap.h"
#include "stream.h"

#define ARENA_CHUNK	(256 * 1024)
/* Room for any whole frame, so that most decompress in one call. */
#define INBUF_SIZE	ZSTD_COMPRESSBOUND(STREAM_FRAME_MAX)
#define DEF_FIXED	(16u << 20)	/* definition bytes any stream may use */
#define DEF_RATIO	64u		/* ... plus this times its input bytes */
#define STACK_VISITS	1024		/* parts of one stack, joined */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	unsigned char data[];
};

/* An array of pointers indexed by definition id. */
struct deftab {
	void **items;
	size_t cap;
	size_t hi;		/* above the highest id set since cleared */
};

/* The texts of the section's strings, to refuse a second copy of one. */
struct strset {
	uint32_t *slots;	/* string id, 0 for empty */
	size_t nslots;
	uint32_t *lens;		/* by id */
	size_t lencap;
	uint32_t count;		/* strings of the section so far */
};

struct stream_reader {
	unsigned flags;
	uint32_t field_kinds;	/* kinds whose event fields are decoded */
	FILE *fp;
	const char *name;
	ZSTD_DCtx *dctx;

	unsigned char *inbuf;
	ZSTD_inBuffer in;
	uint64_t in_offset;	/* input bytes consumed before inbuf */
	uint64_t frame_offset;	/* where the current frame began */
	int in_eof;

	unsigned char *frame;	/* decompressed frame */
	size_t frame_len, pos;
	const unsigned char *cur;	/* the frame's bytes: frame or linked */
	/* Or frames from a writer on another thread, read where they are. */
	struct stream_link *link;

	struct arena_chunk *arena;
	struct deftab strings, classes, processes, threads, images, stacks;
	struct deftab schemas;	/* version 2 */
	uint32_t nschemas;	/* of the section so far: ids come in order */
	unsigned major;		/* the section's format */
	int64_t last_ts;	/* version 2: the last event's time */
	struct strset strset;
	size_t def_bytes;	/* what the section's definitions take */
	uint64_t read_before;	/* compressed bytes of the inputs before */
	int over_budget;	/* def_bytes would pass the limit */
	const char *bad_why;	/* why a definition was refused, or NULL */
	uint64_t bad_id, bad_arg;	/* the two numbers bad_why prints */
	char why[100];
	const struct stream_trace *trace;
	struct idmap pids;	/* pid -> process id */
	uint64_t pids_version;	/* changed with pids */

	struct stream_field fields[STREAM_EVENT_FIELDS_MAX];
	uint64_t frames[STREAM_STACK_MAX];	/* when stacks are not kept */
	struct stream_column *cols;
	size_t cols_cap;
	struct value *rowcells;
	size_t rowcells_cap;
	struct stream_inline inlines[STREAM_INLINE_MAX];	/* REC_SYMBOL's */

	int in_section;		/* a HEADER came and no END yet */
	uint64_t cut_sections;	/* sections that ended without END */
	int failed;
	char error[512];
};

/*
 * A schema's memo of the names asked for and their index (-1: none),
 * at a slot that the name's address picks, checked against its text.
 */
#define SCHEMA_MEMO	8
#define SCHEMA_MEMO_NAME 24
struct stream_schema_memo {
	struct {
		const char *ptr;
		int index;
		char text[SCHEMA_MEMO_NAME];
	} e[SCHEMA_MEMO];
};

static inline void *
deftab_get(const struct deftab *t, stream_id id)
{
	return id < t->cap ? t->items[id] : NULL;
}

/* stream_defs.c */

/* The compressed bytes read so far (uncompressed, from a link). */
uint64_t reader_input_read(const struct stream_reader *r);

/*
 * Accounts `n` more bytes to the section's definitions.
 * @return : 0, or -1 if that passes the limit (over_budget set).
 */
int reader_charge(struct stream_reader *r, size_t n);

/* Memory in the section's arena, and a copy of `len` bytes as a string. */
void *reader_arena_alloc(struct stream_reader *r, size_t n);
char *reader_strndup(struct stream_reader *r, const unsigned char *s,
    size_t len);

/* Whether `id` may name a definition; the reason set if not. */
int reader_def_id_ok(struct stream_reader *r, uint64_t id);

/* Sets definition `id` of table `t`; -1 with bad_why set if refused. */
int reader_deftab_set(struct stream_reader *r, struct deftab *t, uint64_t id,
    void *item);

/*
 * Adds string `id` to the section's set.  @return : 0, -1 if out of
 * memory or over the limit, -2 if the id is not the next one, -3 if the
 * text is there already.
 */
int reader_strset_add(struct stream_reader *r, uint64_t id, const char *s,
    size_t len);

/* Formats the reason a definition was refused into r->why. */
void reader_set_why(struct stream_reader *r);

/* Forgets the section's definitions, at a HEADER and at the end. */
void reader_section_reset(struct stream_reader *r);

/* stream_parse.c */

/*
 * Parses the body of `rec` (its type and body set) into rec->u, keeping
 * what definitions it makes.  @return : 0, or -1 if malformed (with
 * r->bad_why set when a definition was refused).
 */
int reader_parse_record(struct stream_reader *r, struct stream_record *rec);

#endif
