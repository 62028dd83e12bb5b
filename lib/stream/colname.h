/*
 * colname.h - the names a table's columns go by in the files programs
 * read (CSV, JSON Lines, xlsx): one rule for their units, written in
 * etl-stream(5), "Column names".
 *
 * The rule: a figure's name ends in the word of its unit, and a unit's
 * word stands nowhere else in it.  The words are "ns", "us", "ms" and
 * "s" for times, "bytes" for bytes, "pct" for per cent, and any other
 * unit in lower case ("events", "mhz"); counts, ids, flags and text
 * have none.  A column derived from another puts what it is before the
 * unit: "cpu_ms" gives "cpu_base_ms", "cpu_delta_ms" and
 * "cpu_delta_pct"; "wall" (a time, in s) gives "wall_base" and
 * "wall_delta", whose files name them "wall_base_s" or "wall_base_ns".
 *
 * A stream's columns carry their unit apart from their name (struct
 * stream_column): a view may name a figure with its word ("cpu_ms") or
 * without ("wall"), and the writer of a file adds the word a name lacks.
 * A time since the trace's start (type ns) takes the word of the unit
 * the file writes it in: seconds in CSV and xlsx, nanoseconds in JSON
 * Lines.
 *
 * Functions write at most cap bytes into buf, with a NUL, and return
 * buf; nothing is allocated.
 */
#ifndef COLNAME_H
#define COLNAME_H

#include <stddef.h>

#include "base/value.h"

/* The word of a unit: "pct" for "%", "bytes" for "B", "us" for "µs". */
char *colname_unit_word(const char *unit, char *buf, size_t cap);

/*
 * The length of `name` without "_" and the word of `unit` at its end
 * (3 for "cpu_ms" in ms); 0 for a name that is the word alone ("ns");
 * strlen(name) for a name that does not end in it.
 */
size_t colname_stem(const char *name, const char *unit);

/*
 * The name of the column that `role` ("base", "delta", "delta_pct") of
 * the column `name` in `unit` goes by: its stem, "_", role, then "_"
 * and the unit's word if the name ended in it.  "delta_pct" is a per
 * cent, and ends so whatever the name.
 */
char *colname_derive(const char *name, const char *unit, const char *role,
    char *buf, size_t cap);

/*
 * The name of a column in a file for programs: `name` with "_" and the
 * word of its unit when it does not end in it.  A column of type ns
 * takes the word `ns_word`, the unit the file writes its values in
 * ("s" or "ns"), in place of the word of its unit.
 */
char *colname_header(const char *name, enum value_type type,
    const char *unit, const char *ns_word, char *buf, size_t cap);

#endif
