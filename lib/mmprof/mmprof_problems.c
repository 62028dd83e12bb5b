/*
 * mmprof_problems.c - how the .mm_profdata reader records what is wrong
 * with a file: the error text, with its offset, and the problems kept
 * for next() to report (mmprof_reader.h).  Both the page reader
 * (in_mmprof.c) and the string table (mmprof_strings.c) record them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mmprof_reader.h"

void
mmprof_set_error(struct mmprof_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	n = strlen(r->error);
	if (offset != NO_OFFSET)
		snprintf(r->error + n, sizeof(r->error) - n, " (offset 0x%llx)",
		    (unsigned long long)offset);
}

/* Keeps the current error text as a problem for next() to report. */
void
mmprof_hold_problem(struct mmprof_reader *r)
{
	if (r->nproblems == MAX_PROBLEMS) {
		r->more_problems++;
		return;
	}
	memcpy(r->problems[r->nproblems++], r->error, sizeof(r->error));
}

/* Checks a stream's own header; an absent stream is a problem, not fatal. */
int
mmprof_stream_ok(struct mmprof_reader *r, const unsigned char *p, size_t len,
    const char *magic, const char *what)
{
	if (len == 0) {
		mmprof_set_error(r, NO_OFFSET, "no %s in the file (it is cut short)",
		    what);
		mmprof_hold_problem(r);
		return 0;
	}
	if (len < STREAM_HEADER_LEN || memcmp(p, magic, 4) != 0) {
		mmprof_set_error(r, NO_OFFSET, "%s stream does not begin with %s: not "
		    "read", what, magic);
		mmprof_hold_problem(r);
		return 0;
	}
	return 1;
}
