/*
 * cli.h - what the front ends in tools/ share and the library must not
 * know: the program name, messages on stderr, exit codes, opening the
 * output (and refusing to write the binary stream to a terminal), and a
 * quiet exit when the reader of our output has gone away.
 *
 * Messages follow "prog: file: what went wrong (offset 0x...)".
 * Included only by tools/.
 */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

struct stream_reader;
struct stream_record;

enum cli_exit {
	CLI_OK = 0,
	CLI_DATA_ERROR = 1,	/* bad input or I/O error; output may be partial */
	CLI_USAGE = 2
};

/* Sets the name used in messages from argv[0]. */
void cli_init(const char *argv0);

/* "prog: message" on stderr. */
void cli_warn(const char *fmt, ...);
/* "prog: message" on stderr, then exit(status). */
void cli_fatal(int status, const char *fmt, ...);

/*
 * Opens the output: `path`, or stdout when NULL or "-".  A binary output
 * going to a terminal is refused unless `force`.  Exits on failure.
 */
FILE *cli_open_output(const char *path, int binary, int force);

/*
 * Flushes and closes the output.  A reader that went away (EPIPE) ends
 * the program quietly; another write error is reported.
 * @return : CLI_OK or CLI_DATA_ERROR.
 */
int cli_close_output(FILE *fp, const char *path);

/* The same check in the middle of the output, after a failed write. */
void cli_write_error(const char *path);

/*
 * Reads the stream in `path` ("-": standard input) to its end, giving
 * every record to fn(ctx, r, rec).  A message names what went wrong.
 * @return : CLI_OK, or CLI_DATA_ERROR if the input could not be opened,
 *	was not a whole stream, or fn returned non-zero.
 */
int cli_read_stream(const char *path, struct stream_reader *r,
    int (*fn)(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec), void *ctx);

/*
 * Says how reading a stream ended: the reader's error, or a section cut
 * short, on stderr.  `st` is the last stream_reader_next() status.
 * @return : CLI_OK or CLI_DATA_ERROR.
 */
int cli_stream_status(const struct stream_reader *r, int st, const char *name);

/*
 * Parses a whole decimal number in [min, max] for option `opt`; exits
 * with a usage error otherwise.
 */
long long cli_number(const char *arg, long long min, long long max,
    const char *opt);

/* The same for a decimal number such as 0.5. */
double cli_decimal(const char *arg, double min, double max, const char *opt);

#endif
