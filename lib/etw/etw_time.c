/*
 * etw_time.c - a raw time stamp of the trace as nanoseconds since its
 * start (etl-format.md section 4).  Every decoder of the folder needs it,
 * and it needs only the header's clock: so it sits below them all.
 */
#include <stdint.h>

#include "etw_state.h"

/* Nanoseconds since trace start for a raw timestamp (section 4). */
int64_t
etw_to_ns(const struct etw_decoder *d, uint64_t ts)
{
	int neg = ts < d->h.t0;
	uint64_t delta = neg ? d->h.t0 - ts : ts - d->h.t0, ns;

	switch (d->h.clock_type) {
	case 2:		/* system time: already 100 ns units */
		ns = delta * 100;
		break;
	case 3:		/* CPU cycles */
		ns = d->h.cpu_mhz ? delta * 1000 / d->h.cpu_mhz : delta;
		break;
	default:	/* QPC; split to keep the product in 64 bits */
		if (d->ns_per_tick != 0)
			ns = delta * d->ns_per_tick;	/* 10 MHz and the like */
		else if (d->h.perf_freq == 0)
			ns = delta * 100;
		else
			ns = delta / d->h.perf_freq * 1000000000ULL +
			    delta % d->h.perf_freq * 1000000000ULL /
			    d->h.perf_freq;
		break;
	}
	return neg ? -(int64_t)ns : (int64_t)ns;
}
