/*
 * cli.c - the inputs and the output of a program: a stream, or a trace
 * or profile decoded on a thread of its own (cli_decode.c), read as one;
 * the output written under a temporary name and put in place at the end.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/platform.h"
#include "stream/stream.h"
#include "cli.h"

/* The output under its temporary name, removed if the program exits. */
static char *out_tmp;

/* Removes the unfinished output when the program exits before the end. */
static void
remove_tmp(void)
{
	if (out_tmp != NULL)
		remove(out_tmp);
}

static void
remove_tmp_on_signal(int sig)
{
	remove_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Refuses an output that is also an input; `out` names it. */
static void
check_not_input(const struct file_id *out, const char *out_name,
    int ninputs, char *const inputs[])
{
	struct file_id in;
	int i;

	for (i = 0; i < (ninputs > 0 ? ninputs : 1); i++) {
		const char *path = ninputs > 0 ? inputs[i] : "-";
		int is_stdin = strcmp(path, "-") == 0;

		if (platform_file_id(is_stdin ? NULL : path, stdin, &in) != 0)
			continue;
		if (platform_same_file(out, &in))
			cli_fatal(CLI_USAGE, "%s: the output is also an input "
			    "(%s); write it to another file", out_name,
			    is_stdin ? "standard input" : path);
	}
}

struct stream_writer *
cli_stream_writer(FILE *fp, int level)
{
	struct stream_writer *w = stream_writer_new(fp, level);

	if (w == NULL)
		cli_fatal(CLI_DATA_ERROR, "out of memory");
	if (cli_threads())
		stream_writer_async(w);
	return w;
}

FILE *
cli_open_output(const char *path, int binary, int force, int ninputs,
    char *const inputs[])
{
	struct file_id id;
	FILE *fp;

	if (path == NULL || strcmp(path, "-") == 0) {
		fp = stdout;
		path = "standard output";
		if (platform_file_id(NULL, stdout, &id) == 0)
			check_not_input(&id, path, ninputs, inputs);
	} else if (platform_file_id(path, NULL, &id) == 0 && !id.regular) {
		/* A device or a pipe: written as it is, no rename. */
		if ((fp = fopen(path, binary ? "wb" : "w")) == NULL)
			cli_fatal(CLI_DATA_ERROR, "%s: %s", path,
			    strerror(errno));
	} else {
		if (id.regular)
			check_not_input(&id, path, ninputs, inputs);
		if ((fp = platform_temp_beside(path, &out_tmp)) == NULL)
			cli_fatal(CLI_DATA_ERROR, "%s: %s", path,
			    strerror(errno));
		atexit(remove_tmp);
#ifdef SIGHUP
		signal(SIGHUP, remove_tmp_on_signal);
#endif
		signal(SIGINT, remove_tmp_on_signal);
		signal(SIGTERM, remove_tmp_on_signal);
	}
	if (binary) {
		if (!force && platform_is_terminal(fp))
			cli_fatal(CLI_USAGE, "%s is a terminal: the event stream "
			    "is binary (use -f to write it anyway, or pipe it "
			    "to etlreport)", path);
		platform_binary_mode(fp);
	}
	return fp;
}

static int
pipe_closed(int err)
{
	/* Windows reports a vanished reader as EINVAL on some runtimes. */
	return err == EPIPE
#ifdef _WIN32
	    || err == EINVAL
#endif
	    ;
}

void
cli_write_error(const char *path)
{
	int err = errno;

	if (pipe_closed(err)) {
#ifdef SIGPIPE
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
#endif
		exit(CLI_DATA_ERROR);
	}
	cli_fatal(CLI_DATA_ERROR, "%s: write error: %s", path ? path :
	    "standard output", strerror(err));
}

int
cli_close_output(FILE *fp, const char *path, int keep)
{
	if (path == NULL || strcmp(path, "-") == 0)
		path = NULL;
	errno = 0;
	if (fflush(fp) != 0 || ferror(fp)) {
		if (errno == 0)
			errno = EIO;
		cli_write_error(path);
	}
	if (fp != stdout && fclose(fp) != 0)
		cli_write_error(path);
	if (out_tmp == NULL)
		return CLI_OK;
	if (!keep) {
		cli_warn("%s: not written: no input could be read", path);
		return CLI_OK;
	}
	if (platform_replace(out_tmp, path) != 0)
		cli_fatal(CLI_DATA_ERROR, "%s: %s", path, strerror(errno));
	free(out_tmp);
	out_tmp = NULL;
	return CLI_OK;
}

void
cli_inputs_init(struct cli_inputs *in, struct stream_reader *r)
{
	memset(in, 0, sizeof(*in));
	in->r = r;
	in->progress = cli_progress();
}

enum input_kind { IN_STREAM, IN_TRACE, IN_FOREIGN };

/*
 * What `fp`, a regular file named as an input, holds: a trace to decode,
 * a stream (or what the reader is to judge: an empty file, a stream a
 * text pipe damaged), or none of the inputs a tool takes, which is said
 * as etlcat says it, since a trace would have been taken too.  It is left
 * at its start.  A pipe or a terminal (/dev/stdin, <(etlcat x.etl)) is
 * not looked at, since what is read from it could not be read again.
 */
static enum input_kind
input_kind(FILE *fp, const struct file_id *id)
{
	unsigned char head[256];
	size_t n;

	if (!id->regular)
		return IN_STREAM;
	n = fread(head, 1, sizeof(head), fp);
	rewind(fp);
	if (cli_decodable(head, n))
		return IN_TRACE;
	return n == 0 || stream_probe(head, n) ? IN_STREAM : IN_FOREIGN;
}

/*
 * Reads the trace in `path` by decoding it on a thread; 0 or -1.  The
 * progress line stays this thread's: it shows how far the decoder is.
 */
static int
open_direct(struct cli_inputs *in, const char *path, FILE *fp, int seekable)
{
	fclose(fp);
	if (seekable) {
		cli_warn("%s: a trace, not an event stream: this reads its "
		    "input twice, so decode it with etlcat first", in->name);
		return -1;
	}
	in->fp = NULL;
	progress_start(in->progress, in->name, in->size);
	in->direct = cli_direct_start(path, in->r, in->name);
	return 0;
}

int
cli_input_open(struct cli_inputs *in, const char *path, int seekable)
{
	int is_stdin = strcmp(path, "-") == 0;
	enum input_kind kind;
	struct file_id id;
	FILE *fp;

	in->name = is_stdin ? "(stdin)" : path;
	if (is_stdin)
		fp = seekable ? platform_spool(stdin) : stdin;
	else
		fp = fopen(path, "rb");
	if (fp == NULL) {
		cli_warn("%s: %s", in->name, strerror(errno));
		return -1;
	}
	in->fp = fp;
	in->direct = NULL;
	in->records = 0;
	in->size = 0;
	memset(&in->this_loss, 0, sizeof(in->this_loss));
	if (platform_file_id(NULL, fp, &id) != 0)
		id.regular = 0;
	if (id.regular && fseek(fp, 0, SEEK_END) == 0) {
		long end = ftell(fp);

		in->size = end > 0 ? (uint64_t)end : 0;
		rewind(fp);
	}
	kind = is_stdin ? IN_STREAM : input_kind(fp, &id);
	if (kind == IN_FOREIGN) {
		fclose(fp);
		in->fp = NULL;
		cli_not_an_input(in->name);
		return -1;
	}
	if (kind == IN_TRACE)
		return open_direct(in, path, fp, seekable);
	progress_start(in->progress, in->name, in->size);
	stream_reader_open_file(in->r, fp, in->name);
	return 0;
}

void
cli_input_record(struct cli_inputs *in, const struct stream_record *rec)
{
	/* ftell() may cost a system call: look now and then. */
	if (++in->records % 1024 == 0 && in->progress->fp != NULL) {
		long pos = in->fp != NULL ? ftell(in->fp) : (long)
		    cli_direct_done(in->direct);

		if (pos > 0)
			progress_update(in->progress, (uint64_t)pos);
	}
	if (rec->type == REC_DIAG)
		loss_add_diag(&in->this_loss, &rec->u.diag);
}

int
cli_input_close(struct cli_inputs *in, int st)
{
	int status, decoded = CLI_OK;

	/* The decoder's messages come first, as from etlcat before us. */
	if (in->direct != NULL)
		decoded = cli_direct_finish(in->direct);
	progress_end(in->progress);
	if (st == STREAM_EOF && in->records == 0) {
		if (decoded == CLI_OK)
			cli_warn("%s: empty input, not an event stream",
			    in->name);
		status = CLI_DATA_ERROR;
	} else
		status = cli_stream_status(in->r, st, in->name);
	if (!in->quiet)
		cli_loss_summary(in->name, &in->this_loss);
	loss_add(&in->loss, &in->this_loss);
	if (st == STREAM_ERROR || stream_reader_truncated(in->r))
		in->loss.cut++;
	else if (status == CLI_OK)
		in->read++;
	if (in->fp != NULL && in->fp != stdin)
		fclose(in->fp);
	in->fp = NULL;
	in->direct = NULL;
	/* A trace with problems fails as `etlcat | tool` would: etlcat's. */
	return decoded != CLI_OK ? CLI_DATA_ERROR : status;
}

int
cli_read_stream(struct cli_inputs *in, const char *path,
    int (*fn)(void *ctx, const struct stream_reader *r,
    const struct stream_record *rec), void *ctx)
{
	struct stream_record rec;
	enum stream_status st;
	int status;

	if (cli_input_open(in, path, 0) != 0)
		return CLI_DATA_ERROR;
	while ((st = stream_reader_next(in->r, &rec)) == STREAM_OK) {
		cli_input_record(in, &rec);
		if (fn(ctx, in->r, &rec) != 0)
			break;
	}
	status = cli_input_close(in, st);
	return st == STREAM_OK ? CLI_DATA_ERROR : status;
}
