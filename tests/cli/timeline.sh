#!/bin/sh
# etlagg timeline: each thread's spans of a state add up to its figures
# in `threads` (the same schedule, one model), on the whole trace, in a
# window and behind a filter; a thread's spans never overlap, and each
# waiting span names how the thread went out.  On the sample and on
# etlsynth traces of context switches, classic and compact.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}

# sums STREAM ARGS...: "tid pid start_ns running ready waiting" per
# thread of the timeline, sorted.
sums() {
	s=$1
	shift
	etlagg -q timeline "$@" "$s" 2>/dev/null | etlreport -q -f csv |
	    tr -d '\r' | awk -F, '
	function ns(x) { if (x == "") return 0; gsub(/\./, "", x)
		sub(/^0+/, "", x); return x == "" ? 0 : x }
	NR == 1 || $15 != "state" { next }
	{ k = $3 " " $2 " " ns($4); r[k] += 0; q[k] += 0; w[k] += 0
	  if ($5 == "running") r[k] += $8
	  else if ($5 == "ready") q[k] += $8
	  else w[k] += $8 }
	END { for (k in r) print k, r[k], q[k], w[k] }' | LC_ALL=C sort
}

# threads_sums STREAM ARGS...: the same from `threads`, the threads
# with any time only, and not the idle thread.
threads_sums() {
	s=$1
	shift
	etlagg -q threads "$@" "$s" 2>/dev/null | etlreport -q -f csv |
	    tr -d '\r' | awk -F, 'NR > 1 && $1 != 0 &&
	    $5 + $6 + $7 > 0 { print $1, $2, $4, $5, $6, $7 }' |
	    LC_ALL=C sort
}

# check NAME STREAM ARGS...: the sums agree, the spans do not overlap.
check() {
	name=$1
	shift
	sums "$@" >"$tmp/t.sums"
	threads_sums "$@" >"$tmp/h.sums"
	if [ -s "$tmp/t.sums" ] && cmp -s "$tmp/t.sums" "$tmp/h.sums"; then
		pass "timeline $name: the spans add up to threads ($(wc -l \
		    <"$tmp/t.sums") threads)"
	else
		fail "timeline $name" "$(diff "$tmp/h.sums" "$tmp/t.sums" |
		    sed -n 2,3p | tr '\n' ' ')"
	fi
	s=$1
	shift
	etlagg -q timeline "$@" "$s" 2>/dev/null | etlreport -q -f csv |
	    tr -d '\r' | awk -F, '
	function ns(x) { gsub(/\./, "", x); sub(/^0+/, "", x); return x + 0 }
	NR == 1 || $15 != "state" { next }
	{ k = $3 " " $4
	  if (k == last && ns($6) < end) { print "overlap: " $0; exit }
	  if ($5 == "waiting" && $9 != "") { print "waiting on a cpu: " $0; exit }
	  if ($5 == "running" && $9 == "") { print "running on no cpu: " $0; exit }
	  last = k; end = ns($7) }' >"$tmp/bad"
	if [ -s "$tmp/bad" ]; then
		fail "timeline $name: spans" "$(cat "$tmp/bad")"
	else
		pass "timeline $name: spans in order, none overlapping"
	fi
}

etlcat -q "$top/testdata/sample.etl" >"$tmp/sample.st"
check sample "$tmp/sample.st"
check "sample 0.5 to 1.25 s" "$tmp/sample.st" --from 0.5 --to 1.25
# A filter: the same spans for the threads it keeps as in the whole.
etlfilter -q --rustc "$tmp/sample.st" >"$tmp/f.st"
check "sample --rustc" "$tmp/f.st"
etlagg -q timeline "$tmp/sample.st" | etlreport -q -f csv | tr -d '\r' |
    sed 1d | LC_ALL=C sort >"$tmp/whole.rows"
etlagg -q timeline --rustc "$tmp/sample.st" | etlreport -q -f csv |
    tr -d '\r' | sed 1d | LC_ALL=C sort >"$tmp/kept.rows"
extra=$(LC_ALL=C comm -13 "$tmp/whole.rows" "$tmp/kept.rows" | head -1)
if [ -s "$tmp/kept.rows" ] && [ -z "$extra" ]; then
	pass "timeline --rustc: rows of the whole trace ($(wc -l \
	    <"$tmp/kept.rows"))"
else
	fail "timeline --rustc" "a row the whole trace does not give: $extra"
fi
# The waiting spans of the sample name their reasons and readiers.
n=$(awk -F, '$15 == "state" && $5 == "waiting" && $11 != "" && $12 != ""' \
    "$tmp/whole.rows" | wc -l)
if [ "$n" -gt 0 ]; then
	pass "timeline: $n waiting spans with a reason and a readying thread"
else
	fail "timeline" "no waiting span names its reason and readier"
fi

# The Chrome trace event JSON of the timeline: a slice a span, on the
# lane of its thread, with the names of the processes and threads.
if command -v node >/dev/null; then
	etlagg -q timeline "$tmp/sample.st" | etlreport -q -f chrome \
	    >"$tmp/tl.json"
	rows=$(awk -F, '$15 == "state"' "$tmp/whole.rows" | wc -l)
	got=$(node -e '
	const a = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const x = a.filter(e => e.ph === "X" && e.cat !== "lifetime");
	const bad = x.find(e => !["running", "ready", "waiting"].includes(
	    e.name) || e.cat !== "thread state" || !Number.isInteger(e.ts) ||
	    !Number.isInteger(e.dur) || e.dur < 0 || !e.pid || !e.tid);
	const named = new Set(a.filter(e => e.name === "process_name")
	    .map(e => e.pid));
	const unnamed = x.find(e => !named.has(e.pid));
	console.log(bad ? "bad " + JSON.stringify(bad) :
	    unnamed ? "unnamed " + unnamed.pid : x.length);' "$tmp/tl.json" \
	    2>&1)
	check_eq "timeline -f chrome: a slice a span, processes named" \
	    "$got" "$rows"
else
	skip "timeline -f chrome" "no node (apt-get install nodejs)"
fi

# The other rows: lifetimes and samples by default, commit with
# --commit, at the instants and with the bytes vmem --timeline gives.
etlagg -q timeline --commit "$tmp/sample.st" | etlreport -q -f csv |
    tr -d '\r' >"$tmp/kinds.csv"
for k in process thread samples commit; do
	n=$(awk -F, -v k="$k" '$15 == k' "$tmp/kinds.csv" | wc -l)
	if [ "$n" -gt 0 ]; then
		pass "timeline: $n rows of kind $k"
	else
		fail "timeline: kind $k" "no row"
	fi
done
awk -F, '$15 == "commit" { print $6 "," $2 "," $18 }' "$tmp/kinds.csv" |
    LC_ALL=C sort >"$tmp/tc"
etlagg -q vmem --timeline --step 10 "$tmp/sample.st" | etlreport -q -f csv |
    tr -d '\r' | awk -F, 'NR > 1 { print $1 "," $3 "," $5 }' |
    LC_ALL=C sort >"$tmp/vc"
extra=$(LC_ALL=C comm -23 "$tmp/tc" "$tmp/vc" | head -1)
if [ -s "$tmp/tc" ] && [ -z "$extra" ]; then
	pass "timeline --commit: the bytes of vmem --timeline at its instants"
else
	fail "timeline --commit" "not in vmem --timeline: $extra"
fi
# Samples per process add up to cpu --by process's.
awk -F, '$15 == "samples" { s[$2] += $16 } END { for (p in s)
    print p, s[p] }' "$tmp/kinds.csv" | LC_ALL=C sort >"$tmp/ts"
etlagg -q cpu --by process "$tmp/sample.st" | etlreport -q -f csv |
    tr -d '\r' | awk -F, 'NR > 1 && $2 != 0 { s[$2] += $5 } END {
    for (p in s) print p, s[p] }' | LC_ALL=C sort >"$tmp/cs"
same_file "timeline: samples per process as cpu --by process" "$tmp/ts" \
    "$tmp/cs"
if command -v node >/dev/null; then
	etlagg -q timeline --commit "$tmp/sample.st" | etlreport -q -f chrome \
	    >"$tmp/all.json"
	got=$(node -e '
	const a = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const bad = a.find(e => ["ph", "ts", "pid", "tid", "name"].some(
	    f => e[f] === undefined) || (e.ph === "X" && e.dur === undefined));
	const ph = new Set(a.map(e => e.ph));
	console.log(bad ? "bad " + JSON.stringify(bad) :
	    ["X", "i", "C", "M"].filter(p => ph.has(p)).join(" "));' \
	    "$tmp/all.json" 2>&1)
	check_eq "timeline -f chrome: every event has its fields, of each kind" \
	    "$got" "X i C M"
fi

if ! command -v etlsynth >/dev/null; then
	skip "timeline synth" "no etlsynth (make builds it into build/)"
	exit 0
fi
# Two lives of one pid are two processes in the Chrome JSON: a lane each,
# named by its label, never one lane of both.
etlsynth --events 30000 --seed 11 --scenario rustc-build --rename \
    'crate-name rustc_std_workspace_core=crate-name build_script_build' \
    -o "$tmp/r.etl" >/dev/null
if command -v node >/dev/null && etlcat -q "$tmp/r.etl" >"$tmp/r.st"; then
	lives=$(etlagg -q processes "$tmp/r.st" | etlreport -q -f csv |
	    awk -F, '$1 == 10256' | wc -l)
	etlagg -q timeline "$tmp/r.st" | etlreport -q -f chrome >"$tmp/r.json"
	got=$(node -e '
	const a = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const p = a.filter(e => e.name === "process_name" &&
	    / \(10256( @[0-9.]+s)?\)$/.test(e.args.name));
	const names = new Set(p.map(e => e.args.name));
	const pids = new Set(p.map(e => e.pid));
	const lane32 = p.every(e => e.pid >= 0 && e.pid < 4294967296);
	console.log(p.length === names.size && p.length === pids.size &&
	    lane32 ? p.length : "shared or wider than 32 bits");' \
	    "$tmp/r.json" 2>&1)
	check_eq "timeline -f chrome: each life of a reused pid its own" \
	    "$got" "$lives"
fi

for args in "--scenario waits" "--scenario waits --compact-cswitch" \
    "--scenario rustc-build --pointer-size 4"; do
	# shellcheck disable=SC2086
	etlsynth --events 20000 --seed 5 $args -o "$tmp/s.etl" >/dev/null &&
	    etlcat -q "$tmp/s.etl" >"$tmp/s.st" && check "synth $args" "$tmp/s.st"
done
