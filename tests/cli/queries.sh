#!/bin/sh
# rustc self-profiles (.mm_profdata): etlcat decodes them; etlagg queries
# and querystacks must equal measureme's summarize and stack_collapse,
# and etlreport -f chrome its crox, on every profile of the corpus
# (../shared/corpus/selfprofile); -f counts and the rest are checked on
# testdata/selfprofile and on profiles recorded here when rustc is
# installed.  Corpus and recording checks skip when they cannot run.

. "$(dirname "$0")/../testlib.sh"

td=$ETL_TOP/testdata/selfprofile
tiny=$td/tiny-0030637.mm_profdata
sp=$ETL_CORPUS/selfprofile

# The first table of a stream as CSV with LF line ends (a CSV output
# holds one table: the others are left out, with a warning).
first_table() {
	etlreport -f csv "$1" 2>/dev/null | csv_lf
}

# A table of a stream, by its name, as CSV with LF line ends.
table_after() {
	etlreport -f csv --table "$2" "$1" | csv_lf
}

# The tables of a stream as CSV files in directory $2, a file a table.
csv_files() {
	rm -rf "$2" && mkdir "$2" && etlreport -f csv -o "$2/t.csv" "$1"
}

# Our queries rows as summarize.json gives them: label, self, total,
# count, hits, blocked, load, hashing.
our_rows() {
	first_table "$1" | awk -F, 'NR > 1 { print $1 "," $2 "," $4 "," $5 "," \
	    $6 "," $7 "," $8 "," $9 }' | sort
}

# The query_data rows of a summarize.json, the same way.
json_rows() {
	awk '
	function ns(key,   s, secs, nanos) {
		if (!match($0, "\"" key "\":\\{\"secs\":[0-9]+,\"nanos\":[0-9]+\\}"))
			return "?"
		s = substr($0, RSTART, RLENGTH)
		sub(/.*"secs":/, "", s)
		secs = s; sub(/,.*/, "", secs)
		nanos = s; sub(/.*"nanos":/, "", nanos); sub(/\}/, "", nanos)
		return secs == 0 ? nanos : sprintf("%s%09d", secs, nanos)
	}
	function num(key,   s) {
		if (!match($0, "\"" key "\":[0-9]+"))
			return "?"
		s = substr($0, RSTART, RLENGTH)
		sub(/.*:/, "", s)
		return s
	}
	BEGIN { RS = "\\{\"label\":\"" }
	NR > 1 && !done {
		label = $0
		sub(/".*/, "", label)
		done = index($0, "\"artifact_sizes\"") > 0
		print label "," ns("self_time") "," ns("time") "," \
		    num("invocation_count") "," num("number_of_cache_hits") "," \
		    ns("blocked_time") "," ns("incremental_load_time") "," \
		    ns("incremental_hashing_time")
	}' "$1" | sort
}

json_total() {
	grep -o '"total_time":{"secs":[0-9]*,"nanos":[0-9]*}' "$1" |
	    sed 's/.*"secs":\([0-9]*\),"nanos":\([0-9]*\)}/\1 \2/' |
	    awk '{ print $1 == 0 ? $2 : sprintf("%s%09d", $1, $2) }'
}

total_ns() {
	table_after "$1" queries_total | awk -F, 'NR == 2 { print $3 }'
}

# querystacks as folded lines "stack weight", sorted.
stack_lines() {
	first_table "$1" | awk -F, 'NR > 1 { print $1 " " $2 }' | sort
}

have_format() {
	etlreport --help 2>&1 | grep -q "^  $1 "
}

# ---- the test profile in testdata ----

if etlcat "$tiny" >"$tmp/t.zst" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
	pass decode-tiny
else
	fail decode-tiny "exit or stderr: $(cat "$tmp/err")"
fi
etlagg queries "$tmp/t.zst" >"$tmp/tq.zst"
etlagg querystacks "$tmp/t.zst" >"$tmp/ts.zst"

# The stacks add up to summarize's total: self times plus the gaps.
# (printf: mawk prints a sum past 2^31 as 4.19284e+09.)
check_eq stacks-sum-tiny "$(stack_lines "$tmp/ts.zst" |
    awk '{ s += $NF } END { printf "%.0f\n", s }')" \
    "$(total_ns "$tmp/tq.zst")"

# Hits come as instants and as counts; only the counts may count.
check_eq hits-not-doubled-tiny "$(our_rows "$tmp/tq.zst" |
    awk -F, '{ s += $5 } END { print s }')" "$(etlreport -f csv "$tmp/t.zst" |
    csv_lf | awk -F, '$7 == "QueryCacheHitCount" { sub(/.*value=/, "");
    sub(/;.*/, ""); s += $0 } END { print s }')"

# Each row of counts.txt is "provider,count,seconds", by falling time.
etlreport -f counts "$tmp/t.zst" >"$tmp/counts.txt"
if [ -s "$tmp/counts.txt" ] &&
    ! grep -qv '^[^, ]*,[0-9]*,[0-9]*\.[0-9][0-9][0-9]$' "$tmp/counts.txt" &&
    sort -s -t, -k3,3nr "$tmp/counts.txt" | cmp -s - "$tmp/counts.txt"; then
	pass counts-format
else
	fail counts-format "$(head -3 "$tmp/counts.txt")"
fi
# A query's count is its runs and its cache hits.
check_eq counts-typeck "$(grep '^typeck,' "$tmp/counts.txt" | cut -d, -f2)" \
    "$(our_rows "$tmp/tq.zst" | awk -F, '$1 == "typeck" { print $4 + $5 }')"

# One Chrome event for each interval.
etlreport -f chrome "$tmp/t.zst" >"$tmp/t.json"
check_eq chrome-intervals "$(grep -c '"ph":"X"' "$tmp/t.json")" \
    "$(etlreport -f csv "$tmp/t.zst" | csv_lf | grep -c '^[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,query,[^,]*,[^,]*,[^,]*,end=')"
grep -q '"name":"process_name","ph":"M","pid":30637' "$tmp/t.json" &&
    pass chrome-process-name || fail chrome-process-name "no crate name"

# Two profiles in one stream: two processes, added up.
etlcat "$tiny" "$tiny" >"$tmp/tt.zst"
etlagg queries "$tmp/tt.zst" >"$tmp/ttq.zst"
check_eq two-profiles "$(table_after "$tmp/ttq.zst" queries_total | sed -n 2p |
    cut -d, -f1)" 2
check_eq two-profiles-total "$(total_ns "$tmp/ttq.zst")" \
    "$(($(total_ns "$tmp/tq.zst") * 2))"

# Tables merged back give what the events give.
etlagg queries --merge "$tmp/tq.zst" "$tmp/t.zst" >"$tmp/m.zst"
csv_files "$tmp/ttq.zst" "$tmp/ttq"
csv_files "$tmp/m.zst" "$tmp/m"
if [ "$(ls "$tmp/m" | wc -l)" -eq 3 ] && diff -r "$tmp/m" "$tmp/ttq" >/dev/null
then
	pass merge-queries
else
	fail merge-queries "merged tables differ from the events"
fi
etlagg querystacks --merge "$tmp/ts.zst" "$tmp/ts.zst" >"$tmp/ms.zst"
etlagg querystacks "$tmp/tt.zst" >"$tmp/tts.zst"
if [ "$(stack_lines "$tmp/ms.zst")" = "$(stack_lines "$tmp/tts.zst")" ]; then
	pass merge-querystacks
else
	fail merge-querystacks "merged stacks differ from the events"
fi

# A diff against itself is all zero; against two copies, one copy.
etlagg queries --diff "$tmp/t.zst" "$tmp/t.zst" >"$tmp/d0.zst"
check_eq diff-self "$(first_table "$tmp/d0.zst" | awk -F, 'NR > 1 &&
    ($2 != 0 || $4 != 0 || $6 != 0 || $7 != 0) { n++ }
    END { print (NR > 10 ? n + 0 : "too few rows") }')" 0
etlagg queries --diff "$tmp/t.zst" "$tmp/tt.zst" >"$tmp/d1.zst"
check_eq diff-double "$(first_table "$tmp/d1.zst" | awk -F, 'NR > 1 {
    print $1 "," $2 "," $4 }' | sort)" "$(first_table "$tmp/tq.zst" |
    awk -F, 'NR > 1 { print $1 "," $2 "," $4 }' | sort)"
etlagg queries --diff "$tmp/tq.zst" "$tmp/tt.zst" >"$tmp/d2.zst"
csv_files "$tmp/d2.zst" "$tmp/d2"
csv_files "$tmp/d1.zst" "$tmp/d1"
if [ "$(ls "$tmp/d1" | wc -l)" -eq 3 ] && diff -r "$tmp/d1" "$tmp/d2" >/dev/null
then
	pass diff-base-tables
else
	fail diff-base-tables "a base of tables differs from its events"
fi
# A base that cannot be read is a data error (1), as a missing input is.
etlagg queries --diff "$tmp/nonexistent.zst" "$tmp/t.zst" >/dev/null \
    2>"$tmp/err"
check_eq diff-missing-base "$?:$(grep -c 'nonexistent.zst' "$tmp/err")" "1:1"
: >"$tmp/empty.zst"
etlagg queries --diff "$tmp/empty.zst" "$tmp/t.zst" >/dev/null 2>"$tmp/err"
check_eq diff-empty-base "$?:$(cat "$tmp/err")" "1:etlagg: queries: --diff \
$tmp/empty.zst: empty input, not an event stream"

# ---- damaged profiles ----

# Cut short, as a killed rustc leaves it: what is there is decoded, the
# rest reads <unknown>, a warning, exit 1, and a stream that is whole.
head -c 50000 "$tiny" >"$tmp/tiny-0030637.mm_profdata"
etlcat "$tmp/tiny-0030637.mm_profdata" >"$tmp/cut.zst" 2>"$tmp/err"
check_eq cut-exit "$?" 1
grep -q 'cut short' "$tmp/err" && pass cut-warning ||
    fail cut-warning "$(cat "$tmp/err")"
if etlagg queries "$tmp/cut.zst" >"$tmp/cutq.zst" &&
    first_table "$tmp/cutq.zst" | grep -q '^<unknown>,'; then
	pass cut-unknown
else
	fail cut-unknown "no <unknown> row"
fi
# A stream of a profile cut before its END (after 17 whole records of
# the kept format 1 stream), with intervals still open:
# querystacks says so, exit 1, and gives the stacks read so far (the
# open intervals' stacks were once written past the end of its array).
zstd -q -dc "$ETL_TOP/testdata/format1/profile.v1.st" | head -c 671 |
    zstd -q >"$tmp/open.zst"
etlagg querystacks "$tmp/open.zst" >"$tmp/openq.zst" 2>"$tmp/err"
check_eq open-section-exit "$?" 1
grep -q 'truncated' "$tmp/err" && pass open-section-warning ||
    fail open-section-warning "$(cat "$tmp/err")"
check_eq open-section-stacks "$(first_table "$tmp/openq.zst" |
    grep -c '^rustc')" 3
# Without its metadata the pid comes from the file name.
head -c 20 "$tiny" >"$tmp/tiny-0030637.mm_profdata"
etlcat "$tmp/tiny-0030637.mm_profdata" 2>/dev/null |
    etlreport -f csv | csv_lf | grep -q '^[^,]*,rustc,30637,' &&
    pass cut-pid-from-name || fail cut-pid-from-name "no process 30637"

printf 'MMPD\007\000\000\000' >"$tmp/v7.mm_profdata"
etlcat "$tmp/v7.mm_profdata" >/dev/null 2>"$tmp/err"
check_eq old-version "$?:$(cat "$tmp/err")" \
    "1:etlcat: $tmp/v7.mm_profdata: format version 7 is not read (only 8 and 9) (offset 0x4)"

# ---- folded and svg from a profile's events ----

# Given a rustc profile, or etlcat's stream of one (events, no table),
# the folded and svg formats draw the query stacks as etlagg querystacks
# would tabulate them; two profiles add up as they do there.
etlcat -q "$tiny" "$tiny" >"$tmp/two.zst"
for f in folded svg; do
	etlagg querystacks "$tiny" 2>/dev/null | etlreport -f $f >"$tmp/qs.$f"
	etlreport -f $f "$tiny" >"$tmp/direct.$f" 2>"$tmp/err"
	same_file "events-$f-profile" "$tmp/direct.$f" "$tmp/qs.$f"
	etlcat -q "$tiny" | etlreport -f $f >"$tmp/events.$f"
	same_file "events-$f-stream" "$tmp/events.$f" "$tmp/qs.$f"
	etlagg querystacks "$tmp/two.zst" | etlreport -f $f >"$tmp/qs2.$f"
	etlreport -f $f "$tmp/two.zst" >"$tmp/events2.$f"
	same_file "events-$f-two-profiles" "$tmp/events2.$f" "$tmp/qs2.$f"
done
check_eq events-folded-weight "$(awk '{ s += $NF }
    END { printf "%.0f\n", s }' "$tmp/events2.folded")" \
    "$(awk '{ s += 2 * $NF } END { printf "%.0f\n", s }' "$tmp/qs.folded")"
# A stream with a stack table draws the table, not the events.
etlcat -q "$tiny" | etlagg querystacks --merge >"$tmp/qs.zst"
check_eq events-table-wins "$(etlreport -f folded "$tmp/qs.zst")" \
    "$(cat "$tmp/qs.folded")"
# A trace is no profile: nothing to draw, as before.
etlreport -f folded "$ETL_TOP/testdata/sample.etl" >/dev/null 2>"$tmp/err"
check_eq events-trace-nothing "$?:$(tail -1 "$tmp/err")" \
    "1:etlreport: nothing to draw as folded: no table with a stack column and an integer weight column"

# ---- the corpus: measureme's own outputs ----

if [ ! -d "$sp/expected" ]; then
	skip corpus-selfprofile "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
else
	for dir in "$sp"/expected/*/; do
		name=$(basename "$dir")
		set -- "$sp/$name"/*.mm_profdata
		if ! etlcat "$1" >"$tmp/c.zst" 2>"$tmp/err" ||
		    [ -s "$tmp/err" ]; then
			fail "decode-$name" "$(cat "$tmp/err")"
			continue
		fi
		etlagg queries "$tmp/c.zst" >"$tmp/cq.zst"
		if [ "$(our_rows "$tmp/cq.zst")" = \
		    "$(json_rows "$dir/summarize.json")" ]; then
			pass "summarize-$name"
		else
			our_rows "$tmp/cq.zst" >"$tmp/ours"
			json_rows "$dir/summarize.json" >"$tmp/theirs"
			fail "summarize-$name" "$(diff "$tmp/theirs" "$tmp/ours" |
			    head -5)"
		fi
		check_eq "total-$name" "$(total_ns "$tmp/cq.zst")" \
		    "$(json_total "$dir/summarize.json")"
		etlagg querystacks "$tmp/c.zst" >"$tmp/cs.zst"
		check_eq "stacks-$name" "$(stack_lines "$tmp/cs.zst")" \
		    "$(sort "$dir/stacks_folded.txt")"
		if have_format folded; then
			check_eq "folded-$name" "$(etlreport -f folded \
			    "$tmp/cs.zst" 2>/dev/null | sort)" \
			    "$(sort "$dir/stacks_folded.txt")"
			check_eq "folded-events-$name" "$(etlreport -f folded \
			    "$1" 2>/dev/null | sort)" \
			    "$(sort "$dir/stacks_folded.txt")"
		fi
		if command -v python3 >/dev/null; then
			etlreport -f chrome "$tmp/c.zst" >"$tmp/c.json"
			check_eq "crox-$name" "$(python3 -c '
import gzip, json, sys
print(json.load(open(sys.argv[1])) == json.load(gzip.open(sys.argv[2])))
' "$tmp/c.json" "$dir/crox.json.gz")" True
		else
			skip "crox-$name" "no python3 (apt-get install python3)"
		fi
	done
fi

# ---- profiles recorded here ----

if ! RUSTC_BOOTSTRAP=1 rustc -Z help >/dev/null 2>&1; then
	skip record "no rustc that takes -Z with RUSTC_BOOTSTRAP=1 (apt-get \
install rustc)"
	exit 0
fi
mkdir "$tmp/rec"
for crate in one two; do
	RUSTC_BOOTSTRAP=1 rustc --crate-type lib --crate-name $crate \
	    --emit=metadata -o "$tmp/lib$crate.rmeta" \
	    -Z self-profile="$tmp/rec" "$td/tiny.rs" 2>"$tmp/err" ||
	    fail "record-$crate" "$(cat "$tmp/err")"
done
if etlcat "$tmp/rec"/*.mm_profdata >"$tmp/rec.zst" 2>"$tmp/err"; then
	pass record-decode
else
	fail record-decode "$(cat "$tmp/err")"
fi
check_eq record-processes "$(etlreport -f csv "$tmp/rec.zst" | csv_lf |
    awk -F, '$6 == "process" { print $3 }' | sort -u | wc -l | tr -d ' ')" 2
check_eq record-crates "$(etlreport -f chrome "$tmp/rec.zst" |
    grep -o '"args":{"name":"[a-z]*"}' | sort | tr '\n' ' ')" \
    '"args":{"name":"one"} "args":{"name":"two"} '
etlagg queries "$tmp/rec.zst" >"$tmp/recq.zst"
etlagg querystacks "$tmp/rec.zst" >"$tmp/recs.zst"
check_eq record-stacks-sum "$(stack_lines "$tmp/recs.zst" |
    awk '{ s += $NF } END { printf "%.0f\n", s }')" \
    "$(total_ns "$tmp/recq.zst")"
