/*
 * cli.h - what the front ends in tools/ share and the library must not
 * know: the program name, messages on stderr, exit codes, opening the
 * output (and refusing to write the binary stream to a terminal, or over
 * an input), and a quiet exit when the reader of our output has gone
 * away; the read loop of the tools that read streams, with its progress
 * line and its summary of what the input lost.
 *
 * Messages follow "prog: file: what went wrong (offset 0x...)".
 * Included only by tools/.
 */
#ifndef CLI_H
#define CLI_H

#include <stdint.h>
#include <stdio.h>

#include "stream/loss.h"
#include "base/progress.h"

struct stream_reader;
struct stream_record;
struct stream_writer;
struct cli_direct;

enum cli_exit {
	CLI_OK = 0,
	CLI_DATA_ERROR = 1,	/* bad input or I/O error; output may be partial */
	CLI_USAGE = 2
};

/* Sets the name used in messages from argv[0]. */
void cli_init(const char *argv0);

/* The name used in messages: "etlagg". */
const char *cli_progname(void);

/*
 * The program's progress line (see progress.h), set up at the first
 * call; messages from cli_warn() clear it first.
 */
struct progress *cli_progress(void);

/* "prog: message" on stderr. */
void cli_warn(const char *fmt, ...);
/* "prog: message" on stderr, then exit(status). */
_Noreturn void cli_fatal(int status, const char *fmt, ...);

/*
 * Opens the output: `path`, or stdout when NULL or "-".  A binary output
 * going to a terminal is refused unless `force`.  An output that is one
 * of the inputs (the `ninputs` paths in `inputs`, "-" for stdin; stdin
 * when ninputs is 0), by name or because stdout is redirected to it, is
 * refused before anything is written.  A regular file is written under
 * a temporary name beside it, which cli_close_output() renames, so that
 * a failed run leaves an earlier output as it was (one such output a
 * program; more files can use platform_temp_beside() and
 * platform_replace() themselves).  Exits on failure.
 */
FILE *cli_open_output(const char *path, int binary, int force,
    int ninputs, char *const inputs[]);

/*
 * Flushes and closes the output.  A reader that went away (EPIPE) ends
 * the program quietly; another write error is reported.  With `keep`
 * the temporary file takes the place of `path`; without it (the run
 * could read no input) it is removed and `path` left as it was.
 * @return : CLI_OK or CLI_DATA_ERROR.
 */
int cli_close_output(FILE *fp, const char *path, int keep);

/* The same check in the middle of the output, after a failed write. */
void cli_write_error(const char *path);

/*
 * Whether the tool may use a second thread (reading ahead, compressing
 * its output): yes unless the environment says ETL_THREADS=1 (or 0).
 * The output is the same either way; the setting is for measuring and
 * for machines with one core.
 */
int cli_threads(void);

/*
 * The zstd level of the streams the tools write: -1 (zstd --fast=1)
 * compresses a fifth faster than 1 and decompresses a sixth faster, for
 * streams 2% larger.  A stream is mostly read by the next stage of a
 * pipeline, so the time counts for more than the size.
 */
#define CLI_STREAM_LEVEL (-1)

/*
 * A writer of the event stream on `fp`, at zstd `level`, compressing on
 * its own thread when cli_threads() allows.  Exits if out of memory.
 */
struct stream_writer *cli_stream_writer(FILE *fp, int level);

/*
 * Reading the inputs of a tool that reads event streams: each one in
 * turn through the same reader, with a progress line on a terminal, an
 * empty or non-stream input refused, and a one-line summary on stderr
 * of what the input's DIAG records say it lost ("etlagg: a.st: lossy
 * input: 12 events lost by the logger").  `loss` sums up every input's
 * (inputs cut short count in loss.cut), for the tool to pass on or to
 * note under its tables.
 */
struct cli_inputs {
	struct stream_reader *r;
	struct progress *progress;	/* cli_progress() */
	struct loss loss;	/* of all inputs read so far */
	unsigned read;		/* inputs read to their end */
	int quiet;		/* no line about what an input lost (-q) */
	/* The input being read. */
	FILE *fp;		/* NULL when read directly */
	struct cli_direct *direct;	/* a trace decoded on a thread */
	const char *name;
	struct loss this_loss;
	uint64_t records;
	uint64_t size;
};

/* Sets up `in` to read with `r` (the caller frees r). */
void cli_inputs_init(struct cli_inputs *in, struct stream_reader *r);

/*
 * Reads the stream in `path` ("-": standard input) to its end, giving
 * every record to fn(ctx, r, rec).  A message names what went wrong.
 * @return : CLI_OK, or CLI_DATA_ERROR if the input could not be opened,
 *	was empty or not a whole stream, or fn returned non-zero.
 */
int cli_read_stream(struct cli_inputs *in, const char *path,
    int (*fn)(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec), void *ctx);

/*
 * The same in steps, for a tool with a loop of its own: open (seekable:
 * standard input is first copied to a temporary file, so that it can be
 * read twice), then cli_input_record() for every record read, then
 * cli_input_close() with the last stream_reader_next() status.
 *
 * A file named as an input that is a trace (.etl) or a rustc profile
 * (.mm_profdata) rather than a stream is decoded on a thread of its own
 * as `etlcat -q` would, and in->r reads that stream (in->fp is NULL);
 * cli_input_close() then also says how the decoding went.  Such an
 * input cannot be read twice: with `seekable` it is refused.
 * @return : 0 (in->r is opened on the input), or -1 after a message.
 *	cli_input_close() returns CLI_OK or CLI_DATA_ERROR.
 */
int cli_input_open(struct cli_inputs *in, const char *path, int seekable);
void cli_input_record(struct cli_inputs *in, const struct stream_record *rec);
int cli_input_close(struct cli_inputs *in, int st);

/*
 * Says how reading a stream ended: the reader's error, or a section cut
 * short, on stderr.  `st` is the last stream_reader_next() status.
 * @return : CLI_OK or CLI_DATA_ERROR.
 */
int cli_stream_status(const struct stream_reader *r, int st, const char *name);

/*
 * The one-line summary of a loss on stderr: "prog: name: lossy input: ..."
 * (nothing if nothing was lost).
 */
void cli_loss_summary(const char *name, const struct loss *l);

/*
 * Decoding an input into the stream (cli_decode.c): etlcat's job.
 */
/*
 * The producer of the sections decoded: etlcat's, also when another tool
 * decodes a trace, so that the stream is the one etlcat writes.
 */
#define CLI_DECODER	"etlcat 0.1"

struct cli_decode_opts {
	const char *producer;	/* for the HEADER: CLI_DECODER */
	int quiet;		/* no summary of what was skipped or lost */
	int verbose;		/* a summary of every input */
	int query_labels;	/* rustc profiles: labels, no arguments */
	struct progress *progress;
	/* Or, on a thread of its own, the bytes done go here instead. */
	_Atomic uint64_t *done;
};

/*
 * Decodes the input at `path` ("-": standard input, copied first) into
 * `w`: a .etl trace, a rustc .mm_profdata profile, or an event stream,
 * passed through.  Problems go to stderr, naming the file and offset;
 * `read` is set when the input was of a kind known.
 * @return : CLI_OK, CLI_DATA_ERROR if the input had problems (decoded as
 *	far as it goes), or -1 if writing failed (errno set).
 */
int cli_decode(struct stream_writer *w, const char *path,
    const struct cli_decode_opts *o, int *read);

/* Whether bytes that start an input are a trace cli_decode() reads. */
int cli_decodable(const unsigned char *p, size_t len);

/* Says that `name` is none of the inputs the tools read, as etlcat does. */
void cli_not_an_input(const char *name);

/*
 * cli_decode() of `path` on a thread of its own, into a link that `r` is
 * opened on (stream_link.c), and its end: waits for the thread (a reader
 * that stopped early stops it), and returns CLI_OK or CLI_DATA_ERROR.
 */
struct cli_direct *cli_direct_start(const char *path, struct stream_reader *r,
    const char *name);
int cli_direct_finish(struct cli_direct *d);

/*
 * How much of the input the decoder has read, for the progress line,
 * which only the reading thread draws.
 */
uint64_t cli_direct_done(struct cli_direct *d);

/*
 * Parses a whole decimal number in [min, max] for option `opt`; exits
 * with a usage error otherwise.
 */
long long cli_number(const char *arg, long long min, long long max,
    const char *opt);

/* The same for a decimal number such as 0.5. */
double cli_decimal(const char *arg, double min, double max, const char *opt);

#endif
