/*
 * in_mmprof.h - reads the events of a rustc self-profile (measureme
 * .mm_profdata, format versions 8 and 9), in file order.
 *
 * Implements measureme-format.md sections 2 to 5 and 9: the paged
 * container, the event records, the string table with its references and
 * virtual ids, the event_id grammar (label and arguments) and the
 * metadata JSON, read leniently.  It does not nest events or aggregate
 * them; mmprof_decode and the query views do.
 *
 * Use: mmprof_reader_open_mem(), then mmprof_reader_next() until
 * MMPROF_EOF, then mmprof_reader_free().  The file's bytes belong to the
 * caller and must outlive the reader.  An event returned by
 * mmprof_reader_next() points into the reader's buffers and stays valid
 * until the next call.
 *
 * Memory: the string-data stream (copied, since its pages interleave with
 * the others), a hash map of the string index, a scratch buffer for the
 * strings of the current event, the id cache (each event id's text
 * resolved and split once, up to 64 KiB of text an id, 16 MiB plus a
 * byte a byte of the file in all; past that, ids are resolved at each
 * use), the distinct labels (16 MiB plus a quarter of the file), a table
 * of 1024 short expansions of references (1 MiB), so that a reference
 * shared down a tree is expanded once, and the first 1024 short kind
 * strings.  The references and text that
 * resolving all strings of a file may take are bounded by a multiple of
 * its size (a fixed amount plus 16 steps and 64 bytes a byte), so time
 * stays linear however the references nest; past that, strings read
 * "<invalid>" and one problem says so.  Events are
 * read in place from their pages, one at a time; with
 * mmprof_reader_drop_pages() the pages of a mapped file are let go once
 * read.
 *
 * Lenience, as measureme does it: a string id that cannot be resolved
 * reads "<unknown>", string data without a terminator "<invalid>", an
 * event_id whose label is empty or holds a control character the label
 * "<parse error>".  Beyond measureme, a file cut short (a killed rustc)
 * is read as far as it goes: missing streams are taken as empty, a page
 * cut by the end of the file is used for the records it holds.  Each
 * such problem found at open is reported by mmprof_reader_next() as one
 * MMPROF_WARN before the first event.
 */
#ifndef IN_MMPROF_H
#define IN_MMPROF_H

#include <stddef.h>
#include <stdint.h>

#define MMPROF_ARGS_MAX		16	/* arguments kept; more are counted */
#define MMPROF_STRING_MAX	(256u << 10)	/* bytes of one event's text */

enum mmprof_status {
	MMPROF_OK = 0,
	MMPROF_EOF = 1,
	MMPROF_WARN = 2,	/* something was skipped or is missing; go on */
	MMPROF_FATAL = -1	/* not a profile, or a version we do not read */
};

enum mmprof_type {
	MMPROF_INTERVAL = 0,	/* start, end */
	MMPROF_INSTANT = 1,	/* start == end: the time */
	MMPROF_INTEGER = 2	/* value; no time at all */
};

struct mmprof_text {
	const char *ptr;	/* not NUL-terminated */
	size_t len;
};

struct mmprof_event {
	enum mmprof_type type;
	struct mmprof_text kind;	/* "Query", "GenericActivity", ... */
	struct mmprof_text label;	/* "typeck", "<unknown>", ... */
	size_t nargs;
	struct mmprof_text args[MMPROF_ARGS_MAX];
	uint32_t thread_id;
	uint64_t start, end;	/* counter units since the profiler started */
	uint64_t value;		/* MMPROF_INTEGER */
	uint64_t index;		/* record number in the event stream */
	uint64_t kind_id, event_id;	/* the raw string ids */
	/*
	 * The kind's and the label's numbers among the file's kind and
	 * label texts, from 1 (0: not numbered), so that a consumer can
	 * tell a pair it has seen without looking at the texts.
	 */
	uint32_t kind_index, label_index;
};

/* What the metadata string says; has_* is 0 for what it did not hold. */
struct mmprof_metadata {
	int has_start_time, has_process_id, has_cmd;
	uint64_t start_time;	/* ns since the Unix epoch */
	uint32_t process_id;
	const char *cmd;	/* argv, each followed by a space, unescaped */
	const char *counter;	/* "wall-time", ...; "" if not said */
	int json_invalid;	/* escapes JSON does not allow (rustc's bug) */
};

/* What the reader met, for diagnostics. */
struct mmprof_counts {
	uint64_t bytes;			/* file size */
	uint64_t pages;
	uint64_t events, intervals, instants, integers;
	uint64_t cut_bytes;		/* of pages cut by the end of the file */
	uint64_t tail_bytes;		/* a partial event record at the end */
	uint64_t unknown_ids;		/* ids without a string: "<unknown>" */
	uint64_t missing_strings;	/* ids past the end of the string data */
	uint64_t invalid_strings;	/* unterminated or too deeply nested */
	uint64_t cut_strings;		/* cut at MMPROF_STRING_MAX */
	uint64_t bad_labels;		/* "<parse error>" */
	uint64_t bad_args;		/* arguments not kept */
	uint64_t backward_intervals;	/* end before start: skipped, counted */
	uint64_t bad_index;		/* index entries that point nowhere */
	uint64_t budget_strings;	/* "<invalid>": the file's budget spent */
};

struct mmprof_reader;

/* @return : NULL if out of memory. */
struct mmprof_reader *mmprof_reader_new(void);
void mmprof_reader_free(struct mmprof_reader *r);

/*
 * Opens `len` bytes of a profile: splits its pages into the three
 * streams, loads the string table and reads the metadata.  A file cut
 * short opens; its problems come from mmprof_reader_next().  Messages do
 * not name the file: the caller does.
 * @return : MMPROF_OK, or MMPROF_FATAL (not a profile, not version 8 or
 *	9, or out of memory; mmprof_reader_error() says which).
 */
enum mmprof_status mmprof_reader_open_mem(struct mmprof_reader *r,
    const unsigned char *data, size_t len);

/*
 * Says that the bytes given to mmprof_reader_open_mem() are a read-only
 * file mapping, whose pages the reader may drop once it has read them,
 * so that memory stays flat however large the file.  Call before open.
 */
void mmprof_reader_drop_pages(struct mmprof_reader *r, int on);

/*
 * Says that the events' arguments will not be read: an event id is read
 * for its label alone (the text before its first separator), and its
 * arguments are left out (nargs 0) unread and uncounted.  Most of a
 * profile's ids are keys seen once, so this is most of the reading for
 * a view of labels (queries, query stacks).  Problems are counted in
 * what is read: a string that is only part of a key is not looked at.
 */
void mmprof_reader_labels_only(struct mmprof_reader *r, int on);

/* The format version (8 or 9) and the metadata, after a successful open. */
uint32_t mmprof_reader_version(const struct mmprof_reader *r);
const struct mmprof_metadata *mmprof_reader_metadata(
    const struct mmprof_reader *r);

/*
 * The next event in file order (an interval is written when it ends).
 * @return : MMPROF_OK with *ev filled, MMPROF_WARN for a problem of the
 *	file (a missing stream, a cut page, a record skipped, a partial
 *	record at the end; *ev is not filled, call again), MMPROF_EOF, or
 *	MMPROF_FATAL when out of memory.
 */
enum mmprof_status mmprof_reader_next(struct mmprof_reader *r,
    struct mmprof_event *ev);

/* The message of the last MMPROF_WARN or MMPROF_FATAL: "what (offset 0x...)". */
const char *mmprof_reader_error(const struct mmprof_reader *r);

const struct mmprof_counts *mmprof_reader_counts(
    const struct mmprof_reader *r);

/* Whether the first bytes look like a .mm_profdata file. */
int mmprof_probe(const unsigned char *data, size_t len);

#endif
