#!/bin/sh
# A view over a trace that lacks the events it counts says so (etlagg(1),
# Missing events): once on etlagg's stderr (not under -q), naming the WPR
# profile of pipelines/rustc.wprp that records them; under the text
# table, in the svg and html pictures, through a merge; the figures it
# cannot give are empty, not 0; a trace with the events gets no such
# note; and the pipeline scripts pass the message on, once.  On etlsynth
# traces: stack-joins (samples only), memory (no samples, no switches),
# waits (switches only).

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip missing "no etlsynth (make builds it)"
	exit 0
fi
top=${ETL_TOP:-.}
for s in stack-joins memory waits; do
	etlsynth --scenario $s --events 3000 --seed 5 -o "$tmp/$s.etl" \
	    >/dev/null 2>&1
	etlcat -q -o "$tmp/$s.st" "$tmp/$s.etl"
done
etlcat -q -o "$tmp/sample.st" "$top/testdata/sample.etl"

# view_case VIEW TRACE EVENTS PROFILE: etlagg VIEW on a trace without
# EVENTS says it once, names PROFILE, exits 0; -q keeps it off stderr
# but not out of the table; etlreport shows it under the text table only.
view_case() {
	view=$1 st=$tmp/$2.st events=$3 profile=$4
	msg="etlagg: $view: the trace has no $events"
	etlagg -o "$tmp/t.st" $view "$st" 2>"$tmp/err"
	st_agg=$?
	n=$(grep -c "^$msg" "$tmp/err")
	if [ $st_agg = 0 ] && [ "$n" = 1 ] &&
	    grep "^$msg" "$tmp/err" | grep -q "$profile"; then
		pass "missing $view stderr"
	else
		fail "missing $view stderr" "exit $st_agg, $n lines: $(cat "$tmp/err")"
	fi
	etlagg -q -o "$tmp/q.st" $view "$st" 2>"$tmp/err"
	if grep -q "the trace has no" "$tmp/err"; then
		fail "missing $view -q" "said under -q: $(cat "$tmp/err")"
	else
		pass "missing $view -q"
	fi
	etlreport "$tmp/q.st" >"$tmp/out" 2>"$tmp/err"
	st_rep=$?
	if [ $st_rep = 0 ] && grep -q "^note: $view: the trace has no $events" \
	    "$tmp/out" && grep "^note: $view:" "$tmp/out" | grep -q "$profile" &&
	    ! grep -q "the trace has no" "$tmp/err"; then
		pass "missing $view footer"
	else
		fail "missing $view footer" "exit $st_rep: $(tail -2 "$tmp/out")"
	fi
}

view_case vmem stack-joins "VirtualAlloc events" "Rustc profile of pipelines/rustc.wprp"
view_case heap stack-joins "Heap events" "WPR's own Heap profile"
view_case heapsnap stack-joins "heap snapshots" "RustcHeap profile of pipelines/rustc.wprp"
view_case threads memory "CSwitch events" "RustcWaits profile of pipelines/rustc.wprp"
view_case waits memory "CSwitch events" "RustcWaits profile of pipelines/rustc.wprp"
view_case switches memory "CSwitch events" "RustcWaits profile of pipelines/rustc.wprp"
view_case threadtime stack-joins "CSwitch events" "RustcWaits profile of pipelines/rustc.wprp"
view_case cpu waits "CPU samples" "Rustc profile of pipelines/rustc.wprp"

# picture NAME FORMAT VIEW... TRACE: the picture carries the note.
picture() {
	name=$1 format=$2
	shift 2
	eval "trace=\${$#}"
	etlagg -q -o "$tmp/p.st" "$@" 2>/dev/null
	etlreport -f "$format" -o "$tmp/p.out" "$tmp/p.st" 2>"$tmp/err"
	if grep -q 'id="missing".*Note: [a-z]*: the trace has no' "$tmp/p.out"
	then
		pass "missing picture $name"
	else
		fail "missing picture $name" "no note in the $format"
	fi
}
picture "vmem svg" svg vmem --by stack "$tmp/stack-joins.st"
picture "vmem timeline svg" svg vmem --timeline "$tmp/stack-joins.st"
picture "heap svg" svg heap --by stack "$tmp/stack-joins.st"
picture "heapsnap svg" svg heapsnap --by stack "$tmp/stack-joins.st"
picture "waits svg" svg waits --by stack "$tmp/memory.st"
picture "threadtime svg" svg threadtime --by stack "$tmp/stack-joins.st"
picture "cpu svg" svg cpu --by stack "$tmp/waits.st"
picture "switches html" html switches "$tmp/memory.st"
# An empty flame graph gives no total of 0 as if measured.
etlagg -q cpu --by stack "$tmp/waits.st" | etlreport -f svg >"$tmp/p.out"
if grep -q 'id="subtitle"[^<]*in all' "$tmp/p.out"; then
	fail "missing svg subtitle" "$(grep -o 'id="subtitle"[^<]*' "$tmp/p.out")"
else
	pass "missing svg subtitle"
fi

# threads lists the threads, with their times empty, not 0.
etlagg -q threads "$tmp/stack-joins.st" | etlreport -f csv 2>/dev/null |
    csv_lf >"$tmp/threads.csv"
rows=$(sed 1d "$tmp/threads.csv" | wc -l | tr -d ' ')
figures=$(sed 1d "$tmp/threads.csv" | awk -F, '$5 $6 $7 $8 != ""' | wc -l |
    tr -d ' ')
if [ "$rows" -gt 0 ] && [ "$figures" = 0 ]; then
	pass "missing threads empty figures ($rows rows)"
else
	fail "missing threads empty figures" "$rows rows, $figures with figures"
fi
etlagg -q threads "$tmp/waits.st" | etlreport -f csv 2>/dev/null | csv_lf |
    sed 1d | awk -F, '$5 == "" || $8 == ""' >"$tmp/holes"
check_eq "missing threads figures kept" "$(wc -l <"$tmp/holes" | tr -d ' ')" 0

# Merged tables say it once.
etlagg -q -o "$tmp/a.st" cpu "$tmp/waits.st"
etlagg -q -o "$tmp/b.st" cpu "$tmp/memory.st"
etlagg cpu --merge "$tmp/a.st" "$tmp/b.st" 2>"$tmp/err" |
    etlreport 2>/dev/null >"$tmp/out"
check_eq "missing merged" "$(grep -c '^note: cpu: the trace has no' \
    "$tmp/out")/$(grep -c 'the trace has no' "$tmp/err")" "1/0"

# A trace with the events gets no note: the sample has samples, virtual
# and heap allocations and switches; the memory scenario has snapshots.
for case in "vmem sample" "heap sample" "threads sample" "waits sample" \
    "switches sample" "threadtime sample" "cpu sample" "heapsnap memory"; do
	set -- $case
	etlagg $1 "$tmp/$2.st" 2>"$tmp/err" | etlreport >"$tmp/out" 2>/dev/null
	if grep -q "the trace has no" "$tmp/err" "$tmp/out"; then
		fail "missing none $1" "a note on a trace with the events"
	else
		pass "missing none $1"
	fi
done

# The pipelines say it once, and their pictures carry it.
pipe=$top/pipelines
sh "$pipe/rustc-memory.sh" -a -o "$tmp/pm" "$tmp/stack-joins.etl" \
    >/dev/null 2>"$tmp/err"
check_eq "missing rustc-memory.sh" "$?/$(grep -c \
    'vmem: the trace has no VirtualAlloc' "$tmp/err")/$(grep -l \
    'id="missing"' "$tmp/pm"/*.svg | wc -l | tr -d ' ')" "0/1/2"
sh "$pipe/rustc-waits.sh" -a -o "$tmp/pw" "$tmp/memory.etl" \
    >/dev/null 2>"$tmp/err"
check_eq "missing rustc-waits.sh" "$?/$(grep -c \
    'threads: the trace has no CSwitch' "$tmp/err")/$(grep -c \
    'the trace has no' "$tmp/err")/$(grep -l 'id="missing"' \
    "$tmp/pw"/*.svg | wc -l | tr -d ' ')" "0/1/1/1"
sh "$pipe/rustc-cpu.sh" -a -o "$tmp/pc" "$tmp/waits.etl" \
    >/dev/null 2>"$tmp/err"
check_eq "missing rustc-cpu.sh" "$?/$(grep -c \
    'cpu: the trace has no CPU samples' "$tmp/err")/$(grep -l \
    'id="missing"' "$tmp/pc"/*.svg | wc -l | tr -d ' ')" "0/1/1"

# The PowerShell twins say it once too (when pwsh is there).
pwsh=$(command -v pwsh 2>/dev/null || echo "$HOME/.dotnet/tools/pwsh")
if [ ! -x "$pwsh" ]; then
	skip "missing pipelines.ps1" "no pwsh (sh .ci/pwsh.sh installs it)"
	exit 0
fi
for case in "memory stack-joins vmem" "waits memory threads" \
    "cpu waits cpu"; do
	set -- $case
	PATH=$top/bin:$PATH "$pwsh" -NoProfile -NonInteractive -File \
	    "$pipe/rustc-$1.ps1" "$tmp/$2.etl" -OutDir "$tmp/ps-$1" -All \
	    >/dev/null 2>"$tmp/err"
	check_eq "missing rustc-$1.ps1" "$?/$(grep -c \
	    "$3: the trace has no" "$tmp/err")/$(grep -c \
	    'the trace has no' "$tmp/err")" "0/1/1"
done
