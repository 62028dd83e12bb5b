/*
 * render.h - etlreport's output formats, one file each (render_*.c).
 * A renderer sees every record of the stream in order and writes its
 * format to a FILE; its close() finishes the output.  The report of
 * several tables, which draws with the others' ops, and the table of
 * formats by name are the stage above (report/).
 *
 * Formats differ in what they draw: the table formats (text, csv, jsonl)
 * write any table and the event list; folded, svg and speedscope draw
 * tables that have a "stack" column (frames root first, joined by ';')
 * and a weight column; html draws the process tree or a rustc query trace; counts and
 * chrome draw rustc query data.  A renderer ignores records it cannot
 * draw and says so at close if it drew nothing.
 */
#ifndef RENDER_H
#define RENDER_H

#include <stdio.h>

#include "stream/stream.h"

struct buf;
struct loss;

struct render_options {
	const char *title;	/* svg and html titles; NULL for the default */
	double min_percent;	/* svg/html: leave out what is below this */
	int min_percent_given;	/* else the format's default (query page 1) */
	int max_depth;		/* html: nesting shown, 0 for all */
	/*
	 * What the input lost, as its DIAG records say (NULL: nothing).  The
	 * caller fills it in as it reads; a renderer looks at it in close(),
	 * when the whole input has been read, and notes it under what it
	 * drew (text, svg, html; csv and jsonl have no place for it), with
	 * the notes of events the input lacked.
	 */
	const struct loss *loss;
	const char *out;	/* -o: csv writes a file a table after it */
	const char *table;	/* text, csv, jsonl: only the tables so named */
	int csv_raw;		/* csv: cells as they are, none made safe */
	/* Says what was left out (prefixed by the caller); may be NULL. */
	void (*warn)(const char *fmt, ...);
};

struct render;

#define RENDER_SAID	(-2)	/* record(): an error said already */

struct render_ops {
	unsigned reader_flags;	/* STREAM_KEEP_STACKS if it needs stacks */
	/* @return : NULL if out of memory. */
	struct render *(*open)(FILE *fp, const char *format,
	    const struct render_options *opt);
	/*
	 * @return : 0, -1 on a write error, or RENDER_SAID when it cannot
	 * go on and has said why through render_options.warn (csv -o: a
	 * file it could not create); it has then removed its files.
	 */
	int (*record)(struct render *rd, const struct stream_reader *r,
	    const struct stream_record *rec);
	/*
	 * Finishes the output and frees the renderer.  @return : 0, -1 on a
	 * write error, 1 if the input held nothing this format draws (then
	 * `nothing` says what it wanted), or 2 if it drew but left something
	 * out and said what through render_options.warn.
	 */
	int (*close)(struct render *rd);
	const char *nothing;	/* "no table with a stack column", ... */
};

/*
 * Whether the format writes files of its own instead of the one it is
 * opened on (csv with -o: a file a table; xlsx: the workbook, which
 * needs -o); then open() gets fp NULL.
 */
int render_writes_files(const char *format, const struct render_options *opt);

/*
 * Writes `before`, "computed from lossy input: ...", `after` if
 * opt->loss holds anything (as markup text when `markup`).
 * @return : 1 if it wrote, else 0.
 */
int render_loss_note(FILE *fp, const struct render_options *opt, int markup,
    const char *before, const char *after);

/*
 * Keeps the text of a DIAG note of count 0 ("note: ..." that states
 * something of a table, such as what the trace lacked for it, rather
 * than counting what was left out), once, NUL-terminated in `notes`;
 * RENDER_NOTES_MAX of them at most, the others left out, each cut to
 * RENDER_NOTE_LEN bytes.  @return : 0, or -1 if out of memory.
 */
#define RENDER_NOTES_MAX	64
#define RENDER_NOTE_LEN		300
int render_note_keep(struct buf *notes, const struct stream_record *rec);

/* Writes each kept note between `before` and `after`. */
void render_notes_write(FILE *fp, const struct buf *notes, int markup,
    const char *before, const char *after);

/* How many notes of missing events opt->loss holds (stream/loss.h). */
size_t render_missing_count(const struct render_options *opt);

/*
 * Writes `before`, the message, `after` for each note that the input
 * lacked the events a view needs ("vmem: the trace has no VirtualAlloc
 * events ..."), as markup text when `markup`.  @return : 1 if it wrote.
 */
int render_missing_note(FILE *fp, const struct render_options *opt,
    int markup, const char *before, const char *after);

/*
 * The same notes as SVG text centred on x, a line of line_h pixels each,
 * the first below y.  @return : 1 if it wrote.
 */
int render_missing_svg(FILE *fp, const struct render_options *opt, int x,
    int y, int line_h);

extern const struct render_ops render_table_ops;
extern const struct render_ops render_counts_ops;
extern const struct render_ops render_chrome_ops;
extern const struct render_ops render_folded_ops;
extern const struct render_ops render_svg_ops;
extern const struct render_ops render_speedscope_ops;
extern const struct render_ops render_html_ops;
extern const struct render_ops render_timeline_ops;
extern const struct render_ops render_xlsx_ops;	/* a stub without it */

#endif
