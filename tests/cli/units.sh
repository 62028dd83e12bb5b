#!/bin/sh
# Text tables as a person reads them (issue 34, 2): every figure of a
# time or of bytes in its column's one unit, given once in the header
# (running (ms), peak commit (MiB), never cpu_ms (ms)), scaled so that
# the column's largest reads with 4 significant digits, and equal to the
# CSV's exact value to the decimals shown; per cents to one decimal;
# counts whole; time stamps of a log (switches, timeline) exact; a table
# of one row read down alike (test_out.c checks that the units of a long
# table, chosen from its first rows, hold after them).  The figures are
# checked against the CSV of the same stream by tests/units.py scaled.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
if ! command -v python3 >/dev/null; then
	skip units "no python3 to read the tables (apt-get install python3)"
	exit 0
fi
etlcat -q -o "$tmp/s.zst" "$top/testdata/sample.etl" 2>/dev/null ||
    { fail units "etlcat failed on the sample"; exit 0; }

# scaled NAME STREAM [STAMP ...]: the text of STREAM's table against its
# CSV; the STAMP columns are time stamps, exact.
scaled() {
	n=$1 s=$2
	shift 2
	etlreport -q -f text -o "$tmp/$n.txt" "$s" 2>/dev/null &&
	    etlreport -q -f csv -o "$tmp/$n.csv" "$s" 2>/dev/null ||
	    { fail "units-$n" "etlreport failed"; return; }
	check_eq "units-$n" "$(python3 "$top/tests/units.py" scaled \
	    "$tmp/$n.txt" "$tmp/$n.csv" "$@" 2>&1)" ""
}

etlagg -q crates "$tmp/s.zst" >"$tmp/crates.zst"
scaled crates "$tmp/crates.zst"
# The issue's figures: core's 783620200 ns running, 10354688 bytes of
# peak commit, 0.938923800 s of wall, in a unit each column.
head=$(sed -n 2p "$tmp/crates.txt")
row=$(grep '^core ' "$tmp/crates.txt")
check_eq units-crates-headers "$(echo "$head" | grep -o \
    'wall ([^)]*)\|cpu ([^)]*)\|running ([^)]*)\|peak commit ([^)]*)' |
    tr '\n' ,)" "wall (ms),cpu (ms),peak commit (MiB),running (ms),"
check_eq units-crates-core "$(echo "$row" | awk '{ print $4, $6, $7, $9 }')" \
    "938.9 782.0 9.9 783.6"
check_eq units-crates-no-raw "$(grep -c '783620200\|10354688\|0\.938923800' \
    "$tmp/crates.txt")" 0

for v in "cpu" "cpu --by module" threads "threads --by process" waits \
    "waits --by thread" processes vmem heap; do
	name=$(echo "$v" | tr -d '-' | tr ' ' _)
	# shellcheck disable=SC2086
	etlagg -q $v "$tmp/s.zst" >"$tmp/$name.zst" 2>/dev/null
	scaled "$name" "$tmp/$name.zst"
done
# The time stamps of a log keep their nanoseconds, its spans scale.
etlagg -q timeline "$tmp/s.zst" >"$tmp/timeline.zst"
scaled timeline "$tmp/timeline.zst" thread_start_s start_s end_s
etlagg -q switches "$tmp/s.zst" >"$tmp/switches.zst"
scaled switches "$tmp/switches.zst" time_s last_switch_out_s ready_time_s \
    next_switch_out_s

# A diff: deltas signed, per cents to one decimal, the base's unit once.
if command -v etlsynth >/dev/null; then
	etlsynth --seed 3 --size 2000000 -o "$tmp/a.etl" >/dev/null 2>&1 &&
	    etlsynth --seed 3 --size 2000000 --slow-crate libc=2 \
	    -o "$tmp/b.etl" >/dev/null 2>&1 ||
	    fail units-generate "etlsynth failed"
	etlagg -q crates --diff "$tmp/a.etl" "$tmp/b.etl" >"$tmp/d.zst"
	scaled crates-diff "$tmp/d.zst"
	check_eq units-crates-diff-headers "$(sed -n 2p "$tmp/crates-diff.txt" |
	    grep -o 'cpu[a-z ]* ([^)]*)' | sed 's/([^%)]*s)/(T)/' |
	    tr '\n' ,)" "cpu base (T),cpu (T),cpu delta (T),cpu delta (%),"
	check_eq units-crates-diff-pct "$(python3 -c 'import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
print(sum(1 for x in r if x["wall_delta_pct"] not in ("", "0.00")) > 0)' \
	    "$tmp/crates-diff.csv")" True
	etlagg -q cpu --by module --diff "$tmp/a.etl" "$tmp/b.etl" \
	    >"$tmp/dm.zst"
	scaled cpu-diff "$tmp/dm.zst"
else
	skip units-diff "no etlsynth on PATH (make build/etlsynth)"
fi

# A table of one row reads down: "name (unit)  value".
etlagg -q sysconfig "$tmp/s.zst" | etlreport -q -f text >"$tmp/sys.txt"
check_eq units-one-row "$(grep -o '^duration ([^)]*) *[0-9.]*\|^memory ([^)]*) *[0-9.]*\|^buffer size ([^)]*) *[0-9.]*' \
    "$tmp/sys.txt" | tr -s ' ' | tr '\n' ,)" \
    "memory (GiB) 32.00,duration (ms) 941.5,buffer size (KiB) 64.00,"
check_eq units-one-row-no-underscore "$(sed 1d "$tmp/sys.txt" |
    grep -v '^note:\|^$' | sed 's/  .*//' | grep -c _)" 0
