#!/bin/sh
# The composition law (etl-stream(5), "Scope"), checked as a metamorphic
# relation on the sample and on etlsynth traces of every scenario, both
# pointer sizes, classic, version 5 and compact CSwitch, plain and
# compressed buffers:
#
#  processes	for every filter F and view V, the rows of
#		`etlfilter F | etlagg V` are rows of `etlagg V`, and every
#		row of `etlagg V` of a process F keeps is among them;
#  time		`etlfilter --from A --to B | etlagg V` gives the rows of
#		`etlagg V --from A --to B`, for every view that takes a
#		window;
#  both		a process filter and a window together give rows of the
#		windowed view.
#
# Columns of a share of the whole (percent) are left out: they say which
# total they are of.  A failure names the first row that differs.
#
# COMPOSE_QUICK=1 checks the sample and one etlsynth trace only.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}

# The views whose rows are of a process or thread, and the column that
# says which process ("(pid)" inside a text key counts too).
views='threads|pid
threads --by process|pid
waits --by thread|thread
switches|new_pid
timeline|pid
threadtime|stack
crates|pid
processes|pid
tree|pid
cpu --by process|pid
vmem --by process|pid
heap --by process|pid'

# The views that take --from and --to.
windowed='threads
threads --by process
waits --by thread
waits --by stack
switches
timeline
threadtime
vmem --by process'

# pids COLUMN FILE: the process of each row of a view's CSV with a header
# row, as "pid<TAB>row".
pids() {
	awk -F, -v col="$1" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
	{
		v = $c
		if (v !~ /^[0-9]+$/) {
			if (match(v, /\([0-9]+\)/))
				v = substr(v, RSTART + 1, RLENGTH - 2)
			else
				v = "?"
		}
		print v "\t" $0
	}' "$2"
}

# table VIEW STREAM: the CSV with its header, unsorted, without the
# columns of a share of the total, and the tree's depth and indented
# name: those are of the tree of what is kept, whose roots are the kept
# processes whose parents are not.
table() {
	# shellcheck disable=SC2086
	etlagg -q $1 "$2" 2>/dev/null | etlreport -q -f csv 2>/dev/null |
	    tr -d '\r' | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++)
		skip[i] = $i ~ /share_pct$/ || $i == "tree" || $i == "depth" }
	{
		line = ""; n = 0
		for (i = 1; i <= NF; i++) if (!skip[i])
			line = line (n++ ? "," : "") $i
		print line
	}'
}

# law_process NAME STREAM FILTER...: the process law for every view.
law_process() {
	name=$1
	whole=$2
	shift 2
	etlfilter -q "$@" "$whole" >"$tmp/f.st" 2>/dev/null ||
	    { fail "compose $name" "etlfilter $* failed"; return; }
	# The processes the filter keeps, and those it drops, by pid.
	table processes "$tmp/f.st" | pids pid /dev/stdin | cut -f1 |
	    sort -u >"$tmp/kept"
	table processes "$whole" | pids pid /dev/stdin | cut -f1 |
	    sort -u >"$tmp/all"
	bad=
	printf '%s\n' "$views" | while IFS='|' read -r view col; do
		table "$view" "$whole" >"$tmp/w.csv"
		table "$view" "$tmp/f.st" >"$tmp/x.csv"
		# Every filtered row is a row of the whole.
		tail -n +2 "$tmp/w.csv" | LC_ALL=C sort >"$tmp/w.rows"
		tail -n +2 "$tmp/x.csv" | LC_ALL=C sort >"$tmp/x.rows"
		extra=$(LC_ALL=C comm -13 "$tmp/w.rows" "$tmp/x.rows" | head -1)
		if [ -n "$extra" ]; then
			printf 'FAIL compose %s | etlagg %s: a row the whole' \
			    "$name" "$view"
			printf ' trace does not give: %s\n' "$extra"
			continue
		fi
		# Every row of the whole of a kept pid is there, unless the
		# pid was also a dropped process's (reused).
		pids "$col" "$tmp/w.csv" | awk -F'\t' '
		    NR == FNR { kept[$1] = 1; next }
		    $1 in kept { print substr($0, index($0, "\t") + 1) }' \
		    "$tmp/kept" - | LC_ALL=C sort >"$tmp/want.rows"
		missing=$(LC_ALL=C comm -23 "$tmp/want.rows" "$tmp/x.rows" |
		    head -1)
		if [ -n "$missing" ] && ! reused "$view" "$missing"; then
			printf 'FAIL compose %s | etlagg %s: a row of a kept' \
			    "$name" "$view"
			printf ' process is missing: %s\n' "$missing"
			continue
		fi
		echo "PASS compose $name | etlagg $view" \
		    "($(wc -l <"$tmp/x.rows") rows)"
		# The same filter given to the view inside etlagg: the bytes
		# of etlfilter | etlagg.
		# shellcheck disable=SC2086
		etlagg -q $view "$@" "$whole" >"$tmp/in.st" 2>/dev/null
		# shellcheck disable=SC2086
		etlagg -q $view "$tmp/f.st" >"$tmp/out.st" 2>/dev/null
		if cmp -s "$tmp/in.st" "$tmp/out.st"; then
			echo "PASS compose etlagg $view $*: etlfilter's bytes"
		else
			echo "FAIL compose etlagg $view $*: not the bytes of" \
			    "etlfilter $* | etlagg $view"
		fi
	done
}

# reused VIEW ROW: whether the row's pid also names a process the
# filter dropped, whose rows the filter rightly leaves out.
reused() {
	p=$(printf '%s\n%s\n' "$(head -n 1 "$tmp/w.csv")" "$2" |
	    pids "$(printf '%s\n' "$views" |
	    grep "^$1|" | cut -d'|' -f2)" /dev/stdin 2>/dev/null | cut -f1)
	n_all=$(table processes "$whole" | pids pid /dev/stdin |
	    awk -v p="$p" '$1 == p' | wc -l)
	n_kept=$(table processes "$tmp/f.st" | pids pid /dev/stdin |
	    awk -v p="$p" '$1 == p' | wc -l)
	[ "$n_all" -gt "$n_kept" ]
}

# csv VIEW STREAM: table's rows, sorted, without the header.
csv() {
	table "$1" "$2" | sed 1d | LC_ALL=C sort
}

# law_time NAME STREAM FROM TO: the window law for every windowed view.
law_time() {
	etlfilter -q --from "$3" --to "$4" "$2" >"$tmp/t.st" 2>/dev/null ||
	    { fail "compose $1 window" "etlfilter failed"; return; }
	printf '%s\n' "$windowed" | while read -r view; do
		csv "$view --from $3 --to $4" "$2" >"$tmp/a"
		csv "$view" "$tmp/t.st" >"$tmp/b"
		if cmp -s "$tmp/a" "$tmp/b"; then
			pass "compose $1 window $3-$4 $view ($(wc -l <"$tmp/a") rows)"
		else
			fail "compose $1 window $3-$4 $view" "first difference:
$(LC_ALL=C diff "$tmp/a" "$tmp/b" | grep '^[<>]' | head -2)"
		fi
	done
}

# law_both NAME STREAM FROM TO FILTER...: a filter and a window.
law_both() {
	n=$1 s=$2 a=$3 b=$4
	shift 4
	etlfilter -q --from "$a" --to "$b" "$@" "$s" >"$tmp/t.st" \
	    2>/dev/null || { fail "compose $n both" "etlfilter failed"; return; }
	for view in threads "waits --by thread" switches; do
		csv "$view --from $a --to $b" "$s" >"$tmp/a"
		csv "$view" "$tmp/t.st" >"$tmp/b"
		extra=$(LC_ALL=C comm -13 "$tmp/a" "$tmp/b" | head -1)
		if [ -z "$extra" ]; then
			pass "compose $n $* window $view"
		else
			fail "compose $n $* window $view" "$(printf \
			    'row not in the windowed whole: %s' "$extra")"
		fi
	done
}

# check NAME STREAM: every law, with filters of every kind.
check() {
	# A rustc instance's pid, and the build's cargo, for --pid.
	rpid=$(table processes "$2" | awk -F, '$3 ~ /^rustc/ { print $1; exit }')
	cpid=$(table processes "$2" | awk -F, '$3 ~ /^cargo/ { print $1; exit }')
	law_process "$1 -p rustc" "$2" -p '^rustc'
	law_process "$1 --rustc" "$2" --rustc
	[ -n "$rpid" ] && law_process "$1 --pid" "$2" --pid "$rpid"
	[ -n "$cpid" ] && law_process "$1 --pid --children" "$2" \
	    --pid "$cpid" --children
	law_process "$1 --cmdline" "$2" --cmdline 'crate-name (core|std)'
	law_process "$1 -v --rustc" "$2" -v --rustc
	law_time "$1" "$2" 0.5 1.25
	law_time "$1" "$2" 0 0.3
	law_both "$1" "$2" 0.5 1.25 --rustc
}

etlcat -q "$top/testdata/sample.etl" >"$tmp/sample.st"
check sample "$tmp/sample.st"

# Filters inside a + chain are each view's own: the chain's output is
# that of separate runs, each behind its filter, one after the other;
# --diff puts the base behind the view's filter too; several inputs are
# filtered as etlfilter filters them, one after the other.
s=$tmp/sample.st
etlfilter -q --rustc "$s" >"$tmp/f.st"
etlagg -q threads --rustc + cpu + crates -p rustc --children + \
    processes --rustc + waits --by stack -v --rustc "$s" >"$tmp/chain.st"
{ etlagg -q threads "$tmp/f.st" && etlagg -q cpu "$s" &&
    etlfilter -q -p rustc --children "$s" | etlagg -q crates &&
    etlagg -q processes "$tmp/f.st" &&
    etlfilter -q -v --rustc "$s" | etlagg -q waits --by stack
} >"$tmp/runs.st" 2>/dev/null
same_file "compose chain: each view behind its own filter" \
    "$tmp/chain.st" "$tmp/runs.st"
etlagg -q crates --rustc --diff "$s" + cpu --by stack --diff "$s" "$s" \
    >"$tmp/chain.st"
{ etlagg -q crates --diff "$tmp/f.st" "$tmp/f.st" &&
    etlagg -q cpu --by stack --diff "$s" "$s"; } >"$tmp/runs.st"
same_file "compose chain: --diff's base behind the view's filter" \
    "$tmp/chain.st" "$tmp/runs.st"
# Every view of the --diff base behind a filter: no view reads the
# base unfiltered, and the model the filtered views share is the one fed.
etlagg -q crates --rustc --diff "$s" + threads --rustc --diff "$s" "$s" \
    >"$tmp/chain.st"
{ etlagg -q crates --diff "$tmp/f.st" "$tmp/f.st" &&
    etlagg -q threads --diff "$tmp/f.st" "$tmp/f.st"; } >"$tmp/runs.st"
same_file "compose chain: every --diff base behind a filter" \
    "$tmp/chain.st" "$tmp/runs.st"
# Views that share the stream's model (processes, frames, schedules of
# one window, --tid picks of their own) give what each gives alone.
shared="threads + waits --by thread + switches --tid 10352 + timeline +
    crates + cpu --by stack + vmem --by stack + processes + tree +
    threads --from 0.5 --to 1 + timeline --from 0.5 --to 1 --tid 10352 +
    threadtime + heap"
etlagg -q $shared "$s" >"$tmp/chain.st"
echo "$shared" | tr '+' '\n' | grep -v '^ *$' | while read -r v; do
	etlagg -q $v "$s" || echo "failed: $v" >&2
done >"$tmp/runs.st"
same_file "compose chain: views sharing one model, as alone" \
    "$tmp/chain.st" "$tmp/runs.st"
etlagg -q threads --rustc "$s" "$s" >"$tmp/chain.st"
etlfilter -q --rustc "$s" "$s" | etlagg -q threads >"$tmp/runs.st"
same_file "compose chain: two inputs behind a filter" "$tmp/chain.st" \
    "$tmp/runs.st"
etlagg -q threads --rustc <"$s" >"$tmp/chain.st"
etlagg -q threads "$tmp/f.st" >"$tmp/runs.st"
same_file "compose chain: standard input behind a filter" \
    "$tmp/chain.st" "$tmp/runs.st"
etlagg -q threads --rustc "$top/testdata/sample.etl" >"$tmp/chain.st"
same_file "compose chain: a trace decoded behind a filter" \
    "$tmp/chain.st" "$tmp/runs.st"
if etlagg vmem --merge --rustc "$s" >/dev/null 2>"$tmp/err"; then
	fail "compose chain: --merge with a filter" "accepted"
else
	if grep -q "a filter judges events" "$tmp/err"; then
		pass "compose chain: --merge with a filter refused"
	else
		fail "compose chain: --merge with a filter" "$(cat "$tmp/err")"
	fi
fi

# The pipeline of the README's Waits section (the build's processes
# only) gives rows of the whole trace's threads, and every row of them.
mkdir -p "$tmp/waits"
if sh "$top/pipelines/rustc-waits.sh" -o "$tmp/waits" \
    "$top/testdata/sample.etl" >/dev/null 2>&1; then
	tr -d '\r' <"$tmp/waits/sample.waits-threads.csv" | sed 1d |
	    LC_ALL=C sort >"$tmp/p.rows"
	table threads "$tmp/sample.st" | sed 1d | LC_ALL=C sort >"$tmp/w.rows"
	etlfilter -q --rustc "$tmp/sample.st" | etlagg -q threads |
	    etlreport -q -f csv | tr -d '\r' | sed 1d | LC_ALL=C sort \
	    >"$tmp/r.rows"
	extra=$(LC_ALL=C comm -13 "$tmp/w.rows" "$tmp/p.rows" | head -1)
	if [ -z "$extra" ] && [ -s "$tmp/p.rows" ] &&
	    cmp -s "$tmp/p.rows" "$tmp/r.rows"; then
		pass "compose rustc-waits.sh threads are the whole trace's ($(wc -l <"$tmp/p.rows") rows)"
	else
		fail "compose rustc-waits.sh" "$(printf 'not the whole trace'"'"'s: %s' \
		    "$extra")"
	fi
else
	fail "compose rustc-waits.sh" "the pipeline failed"
fi

if ! command -v etlsynth >/dev/null; then
	skip "compose synth" "no etlsynth (make builds it into build/)"
	exit 0
fi
synth() {
	etlsynth --events 30000 --seed 11 "$@" -o "$tmp/s.etl" >/dev/null &&
	    etlcat -q "$tmp/s.etl" >"$tmp/s.st"
}
synth --scenario rustc-build && check "synth build" "$tmp/s.st"
[ "${COMPOSE_QUICK:-0}" = 1 ] && exit 0
synth --scenario rustc-build --pointer-size 4 --compress &&
    check "synth build x86 compressed" "$tmp/s.st"
synth --scenario rustc-build --cswitch-version 5 &&
    check "synth build cswitch v5" "$tmp/s.st"
synth --scenario waits --compact-cswitch &&
    check "synth waits compact" "$tmp/s.st"
synth --scenario memory && check "synth memory" "$tmp/s.st"

# Two lives of one pid compile crates of one name: their labels carry
# their starts, also after a filter that keeps one of them.
synth --scenario rustc-build --rename \
    'crate-name rustc_std_workspace_core=crate-name build_script_build' &&
    law_process "synth one life of a reused pid" "$tmp/s.st" \
    --cmdline 'compiler_builtins-[^ ]*.build\.rs'

# A section cut short has no END, but the filter's SCOPE of the kept
# processes still comes last: the processes it kept as context only
# are not listed.
etlsynth --events 200000 --seed 3 --scenario rustc-build -o "$tmp/c.etl" \
    >/dev/null && etlcat -q "$tmp/c.etl" >"$tmp/c.st"
n=$(wc -c <"$tmp/c.st")
head -c $((n * 7 / 10)) "$tmp/c.st" | etlfilter -q --rustc >"$tmp/cf.st" \
    2>/dev/null
etlfilter -q --rustc "$tmp/c.st" | table processes /dev/stdin |
    cut -d, -f3 | sort -u >"$tmp/kept.images"
table processes "$tmp/cf.st" 2>/dev/null | cut -d, -f3 | sort -u \
    >"$tmp/cut.images"
extra=$(comm -13 "$tmp/kept.images" "$tmp/cut.images" | head -1)
rows=$(wc -l <"$tmp/cut.images")
if [ -z "$extra" ] && [ "$rows" -gt 1 ]; then
	pass "compose cut: a section cut short lists only the kept processes"
else
	fail "compose cut" "a process kept as context is listed: ${extra:-no rows}"
fi

# Pids reused within one trace: every view that groups by process keeps
# the instances apart, keyed by pid and start, and shows the start.
etlsynth --events 30000 --seed 11 --scenario rustc-build -o "$tmp/s.etl" \
    >/dev/null && etlcat -q "$tmp/s.etl" >"$tmp/s.st"
reuse=$(table processes "$tmp/s.st" | awk -F, 'NR > 1 { n[$1]++ }
    END { for (p in n) if (n[p] > 1) c++; print c + 0 }')
if [ "$reuse" -gt 0 ]; then
	pass "compose reuse: the trace reuses $reuse pids"
else
	fail "compose reuse" "etlsynth's build reuses no pid"
fi
for view in "threads --by process" crates "cpu --by process" \
    "vmem --by process" "heap --by process" processes; do
	table "$view" "$tmp/s.st" >"$tmp/r.csv"
	dup=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) {
		if ($i == "pid") p = i; if ($i == "start_s") s = i }; next }
	    { k = $p "," $s; if (k in seen) { print k; exit } seen[k] = 1 }
	    END { if (!p || !s) print "no pid or start_s column" }' "$tmp/r.csv")
	pids_seen=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == "pid") p = i; next } { n[$p]++ }
	    END { for (x in n) if (n[x] > 1) c++; print c + 0 }' "$tmp/r.csv")
	if [ -z "$dup" ] && [ "$pids_seen" -gt 0 ]; then
		pass "compose reuse: $view keeps $pids_seen reused pids apart"
	else
		fail "compose reuse: $view" "${dup:-no reused pid has two rows}"
	fi
done
