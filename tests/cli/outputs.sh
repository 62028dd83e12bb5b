#!/bin/sh
# Outputs a user takes further: the crate of a rustc in the process
# tables, how a process's life ends (exited, running at the trace's
# end, not known), the timeline over the whole trace, CSV one table a
# file with units in its headers and dates a spreadsheet reads, events
# with their fields as columns, one-row tables as name/value lines.

. "$(dirname "$0")/../testlib.sh"

sample=$ETL_TOP/testdata/sample.etl
etlcat -q "$sample" >"$tmp/s.zst" || { fail outputs-decode etlcat; exit 0; }
etlagg processes "$tmp/s.zst" >"$tmp/p.zst"
etlagg tree "$tmp/s.zst" >"$tmp/t.zst"

# A column by its header name, from CSV on stdin.
col() {
	csv_lf | awk -F, -v name="$1" 'NR == 1 {
		for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
	    c { print $c }'
}

# The crate of each rustc, from --crate-name of its command line.
check_eq processes-crate "$(etlreport -f csv "$tmp/p.zst" | col crate |
    grep . | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" \
    "alloc:1 build_script_build:3 cfg_if:1 compiler_builtins:1 core:1 \
libc:1 rustc_std_workspace_core:1 "
check_eq tree-crate "$(etlreport -f csv "$tmp/t.zst" | col crate |
    grep -c .)" 9
etlreport "$tmp/t.zst" | grep -q '^ *rustc\.exe .* core  *C:' &&
    pass tree-crate-text || fail tree-crate-text "no crate column in text"

# How each life ends: the sample's rundown at the end lists the
# processes still running; last_seen is then the trace's end.
trace_end=$(etlagg sysconfig "$tmp/s.zst" | etlreport -f csv |
    col duration_s)
check_eq processes-end-state "$(etlreport -f csv "$tmp/p.zst" |
    col end_state | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" \
    "exited:8 running:12 "
check_eq processes-running-to-end "$(etlreport -f csv "$tmp/p.zst" |
    csv_lf | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) {
	if ($i == "end_state") s = i; if ($i ~ /^last_seen/) l = i } next }
    $s == "running" { printf "%.7f\n", $l }' | sort -u)" "$trace_end"
# A process whose end no event tells is "unknown", seen until its
# last event: the sample cut short, without its end rundown.  (A window
# of etlfilter keeps the rundown as context: etl-stream(5), "Scope".)
cut_trace "$sample" "$tmp/cut.etl"
etlcat -q -o "$tmp/cut.zst" "$tmp/cut.etl"
check_eq processes-end-unknown "$(etlagg processes "$tmp/cut.zst" |
    etlreport -f csv | col end_state | sort -u | tr '\n' ' ')" \
    "exited unknown "
etlagg tree "$tmp/cut.zst" | etlreport -f html -o "$tmp/cut.html"
check_eq timeline-end-unknown "$(grep -c 'class="tail"' "$tmp/cut.html")" 12
# Cut at 0.6 s and the build's processes alone: the axis still runs to
# the trace's end (trace_end), the unknown ends drawn to it dotted.
etlfilter --to 0.6 --rustc "$tmp/s.zst" | etlagg tree >"$tmp/cut6.zst"
check_eq tree-trace-end "$(etlreport -f csv "$tmp/cut6.zst" |
    col trace_end_s | sort -u)" "0.941514700"
etlreport -f html -o "$tmp/cut6.html" "$tmp/cut6.zst"
grep -q '<span class="tick" style="left:[0-9.]*%">0.9 s</span>' \
    "$tmp/cut6.html" && pass timeline-span-filtered ||
    fail timeline-span-filtered "no tick at 0.9 s"

# The timeline's axis runs to the trace's end (0.94 s), not to the last
# start or end of a process (0.40 s); running bars reach the right edge.
etlreport -f html -o "$tmp/t.html" "$tmp/t.zst"
grep -q '<span class="tick" style="left:[0-9.]*%">0.9 s</span>' \
    "$tmp/t.html" && pass timeline-span ||
    fail timeline-span "no tick at 0.9 s: $(grep -o '[0-9.]* s</span>' \
    "$tmp/t.html" | tail -1)"
check_eq timeline-running-to-end "$(grep -c 'class="bar before after"[^>]*width:100.0000%' "$tmp/t.html")" 6
grep -q '^<div class="row"[^>]*crate core (pid 10280' "$tmp/t.html" &&
    pass timeline-crate || fail timeline-crate "no crate in the tooltip"

# CSV: a file a table after -o; a lone table keeps the name; --table.
etlcat -q "$ETL_TOP/testdata/selfprofile/tiny-0030637.mm_profdata" |
    etlagg queries >"$tmp/q.zst"
mkdir "$tmp/csv"
etlreport -f csv -o "$tmp/csv/out.csv" "$tmp/q.zst"
check_eq csv-file-a-table "$?:$(cd "$tmp/csv" && ls | tr '\n' ' ')" \
    "0:out.queries.csv out.queries_artifacts.csv out.queries_total.csv "
check_eq csv-file-header "$(csv_lf <"$tmp/csv/out.queries_total.csv")" \
    "profiles,threads,total_ns
1,1,$(etlreport -f jsonl --table queries_total "$tmp/q.zst" |
    sed 's/.*"total_ns":\([0-9]*\).*/\1/')"
etlreport -f csv "$tmp/q.zst" >"$tmp/one.csv" 2>"$tmp/err"
check_eq csv-stdout-one-table "$?:$(grep -c '^$' "$tmp/one.csv"):$(head -1 \
    "$tmp/err")" "1:0:etlreport: a CSV file holds one table; left out: \
queries_total, queries_artifacts"
check_eq csv-table-option "$(etlreport -f csv --table queries_artifacts \
    "$tmp/q.zst" | csv_lf | head -1)" "item,bytes"
etlreport -f csv --table nothing "$tmp/q.zst" >/dev/null 2>"$tmp/err"
check_eq csv-table-missing "$?:$(cat "$tmp/err")" \
    "1:etlreport: no table of that name: nothing"
etlagg sysconfig "$tmp/s.zst" | etlreport -f csv -o "$tmp/sys.csv"
check_eq csv-lone-table "$(ls "$tmp" | grep -c '^sys')" 1

# Headers keep units, UTC times are dates a spreadsheet reads, the
# Windows version stays text.
check_eq csv-units "$(etlreport -f csv "$tmp/p.zst" | csv_lf | head -1 |
    cut -d, -f4-8)" "start_utc,start_s,end_utc,end_s,duration_s"
check_eq csv-dates "$(csv_lf <"$tmp/sys.csv" | sed -n 2p |
    cut -d, -f2,11,12)" \
    "10.0.19045,2024-11-20 09:14:07.123,2024-11-20 09:14:08.064"

# Events: their fields as columns (CSV) and as an object (JSON Lines):
# VirtualAlloc events sorted by size.
etlfilter --kind alloc "$tmp/s.zst" >"$tmp/alloc.zst"
etlreport -f csv "$tmp/alloc.zst" | csv_lf >"$tmp/alloc.csv"
check_eq events-csv-columns "$(head -1 "$tmp/alloc.csv")" \
    "time_s,process,pid,tid,cpu,kind,provider,event,stack,fields,base,size,flags"
check_eq events-csv-sort "$(sed 1d "$tmp/alloc.csv" | csv_first 12 |
    sort -t, -k12,12nr | head -1 | cut -d, -f12)" \
    "$(sed 1d "$tmp/alloc.csv" | grep -o 'size=[0-9]*' | cut -d= -f2 |
    sort -nr | head -1)"
etlreport -f jsonl "$tmp/alloc.zst" | head -1 >"$tmp/alloc.json"
grep -q '"fields":{"base":"0x[0-9a-f]*","size":[0-9]*,"flags":"0x[0-9a-f]*"}}$' \
    "$tmp/alloc.json" && pass events-jsonl-object ||
    fail events-jsonl-object "$(cat "$tmp/alloc.json")"
