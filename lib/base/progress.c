/*
 * progress.c - see progress.h.
 */
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "progress.h"

#define MS		1000000ULL
#define CHECK_BYTES	(256u << 10)	/* bytes between looks at the clock */

void
progress_init(struct progress *p, const char *prog)
{
	const char *env = getenv("ETL_PROGRESS");
	int mode = env != NULL && *env != '\0' ? atoi(env) : -1;

	memset(p, 0, sizeof(*p));
	p->prog = prog;
	p->delay_ns = PROGRESS_DELAY_MS * MS;
	if (mode == 0 || (mode != 2 && !platform_is_terminal(stderr)))
		return;
	if (mode >= 1)
		p->delay_ns = 0;
	p->fp = stderr;
}

void
progress_start(struct progress *p, const char *name, uint64_t total)
{
	p->name = name;
	p->total = total;
	p->next_check = 0;
	p->start_ns = p->last_ns = p->fp != NULL ? platform_now_ns() : 0;
	p->width = 0;
}

/* "45.2 MiB" */
static void
size_text(char *buf, size_t cap, double bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (bytes >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, cap, u == 0 ? "%.0f %s" : "%.1f %s", bytes, unit[u]);
}

static void
draw(struct progress *p, uint64_t done, unsigned long long now)
{
	double secs = (double)(now - p->start_ns) / 1e9;
	double rate = secs > 0 ? (double)done / secs : 0;
	char line[200], a[32], b[32], r[32];
	int n;

	size_text(a, sizeof(a), (double)done);
	size_text(r, sizeof(r), rate);
	if (p->total > 0 && done <= p->total) {
		unsigned long left = rate > 0 ?
		    (unsigned long)((double)(p->total - done) / rate) : 0;

		size_text(b, sizeof(b), (double)p->total);
		n = snprintf(line, sizeof(line), "%s: %s: %s of %s (%d%%), "
		    "%s/s, %lu:%02lu left", p->prog, p->name, a, b,
		    (int)(100.0 * (double)done / (double)p->total), r,
		    left / 60, left % 60);
	} else
		n = snprintf(line, sizeof(line), "%s: %s: %s, %s/s", p->prog,
		    p->name, a, r);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	/* Spaces over what a longer line before left. */
	fprintf(p->fp, "\r%s%*s", line, p->width > (size_t)n ?
	    (int)(p->width - (size_t)n) : 0, "");
	fflush(p->fp);
	p->width = (size_t)n;
}

void
progress_update(struct progress *p, uint64_t done)
{
	unsigned long long now;

	if (p->fp == NULL || done < p->next_check)
		return;
	p->next_check = done + (p->delay_ns == 0 ? 1 : CHECK_BYTES);
	now = platform_now_ns();
	if (now - p->start_ns < p->delay_ns ||
	    (p->width > 0 && now - p->last_ns < PROGRESS_PERIOD_MS * MS))
		return;
	p->last_ns = now;
	draw(p, done, now);
}

void
progress_end(struct progress *p)
{
	if (p->fp == NULL || p->width == 0)
		return;
	fprintf(p->fp, "\r%*s\r", (int)p->width, "");
	fflush(p->fp);
	p->width = 0;
}
