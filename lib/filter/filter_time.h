/*
 * filter_time.h - the times of etlfilter's --from and --to: ISO 8601 UTC
 * times as FILETIME ticks (seconds from the start of the trace are
 * base/seconds.h's).
 */
#ifndef FILTER_TIME_H
#define FILTER_TIME_H

#include <stdint.h>

/*
 * "2020-07-29T00:07:00.62Z" as FILETIME ticks; the seconds, the fraction
 * and the Z are optional, and so is the whole time of day.
 * @return : 0, or -1 if it is not such a time.
 */
int filter_parse_utc(const char *s, uint64_t *ticks);

/* FILETIME `ticks` as ns from `start`, clamped to what fits. */
int64_t filter_ticks_to_ns(uint64_t ticks, uint64_t start);

#endif
