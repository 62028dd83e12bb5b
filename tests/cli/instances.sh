#!/bin/sh
# A process is an instance everywhere: on etlsynth traces that reuse
# pids (a build, where a pid comes back for another crate; the same with
# one crate renamed so that one pid compiles build_script_build twice;
# the memory scenario, where rustc.exe 2100 runs twice without a crate):
#
#  - every table grouped by process has a start column and one row per
#    (pid, start), and keeps the lives of a reused pid apart;
#  - every label that names a process (vmem's timeline, switches'
#    new_process, waits --by thread, threadtime's roots and readiers, the
#    svg chart's legend, the tree and thread timeline pages) is the
#    instance's "crate (pid)" for a rustc that compiles a crate, else
#    "image (pid)", with the start "(pid @S)" where two instances of the
#    trace would share that name; so no label is two instances';
#  - waits --by thread, switches, threadtime and the thread timeline keep
#    the threads of two lives of one pid apart, even when the tid comes
#    back too.

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip instances "no etlsynth (make builds it into build/)"
	exit 0
fi

# The CSV of `etlagg ARGS`, LF line ends, with its header.
csv() {
	etlagg -q "$@" | etlreport -q -f csv | csv_lf
}

# labels ST: "pid<TAB>start<TAB>label" for each process instance of the
# trace, the label as the rule gives it, from the processes table.
labels() {
	csv processes "$1" | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
	{
		pid = $(at["pid"]); start = $(at["start_s"])
		name = $(at["crate"]) != "" ? $(at["crate"]) : $(at["image"])
		k[++n] = pid "\t" start; base[n] = name " (" pid; s[n] = start
		count[base[n]]++
	}
	END {
		for (i = 1; i <= n; i++) {
			l = base[i]
			if (count[base[i]] > 1 && s[i] == "")
				l = l ", before the trace"
			else if (count[base[i]] > 1)
				l = l sprintf(" @%.6fs", s[i])
			print k[i] "\t" l ")"
		}
	}'
}

# unknown NAME FILE: passes when every line of FILE is a label of
# $tmp/labels, else says the first that is not.
unknown() {
	bad=$(awk -F'\t' 'NR == FNR { ok[$3] = 1; next }
	    !($0 in ok) { print; exit }' "$tmp/labels" "$2")
	if [ ! -s "$2" ]; then
		fail "$1" "no labels to check"
	elif [ -z "$bad" ]; then
		pass "$1 ($(sort -u "$2" | wc -l | tr -d ' ') processes)"
	else
		fail "$1" "'$bad' is not an instance's label"
	fi
}

# grouped NAME ST VIEW: the table has pid and start_s, one row per
# (pid, start), and each row's (pid, start) is an instance of the trace.
grouped() {
	csv $3 "$2" >"$tmp/g.csv"
	bad=$(awk -F, -v inst="$tmp/labels" '
	BEGIN { while ((getline l < inst) > 0) {
		split(l, a, "\t"); known[a[1] "," a[2]] = 1 } }
	NR == 1 { for (i = 1; i <= NF; i++) {
		if ($i == "pid") p = i; if ($i == "start_s") s = i }
		if (!p || !s) { print "no pid or start_s column"; exit }
		next }
	$p == 0 { next }	# Idle, of every processor: no process
	{
		k = $p "," $s
		if (k in seen) { print "two rows of " k; exit }
		if (!(k in known)) { print "no instance " k; exit }
		seen[k] = 1; n[$p]++
	}
	END { for (x in n) if (n[x] > 1) r++; if (NR > 1 && !r)
		print "no reused pid has two rows" }' "$tmp/g.csv" | head -1)
	if [ -z "$bad" ]; then
		pass "instances $1: $3 keeps the instances apart"
	else
		fail "instances $1: $3" "$bad"
	fi
}

# check NAME ST CSWITCH: every rule on stream ST; CSWITCH 1 when the
# trace has context switches.
check() {
	name=$1
	st=$2
	labels "$st" >"$tmp/labels"
	views='processes|tree|cpu --by process|vmem --by process|heap --by process|crates'
	[ "$3" = 1 ] && views="$views|threads --by process"
	printf '%s\n' "$views" | tr '|' '\n' | while read -r view; do
		csv $view "$st" | sed -n 2p | grep -q . &&
		    grouped "$name" "$st" "$view"
	done
	# The commit timeline: a label per (pid, start), the instance's.
	csv vmem --timeline "$st" | sed 1d | awk -F, '{
		l = $2; for (i = 3; i <= NF - 3; i++) l = l "," $i
		print $(NF - 2) "\t" $(NF - 1) "\t" l }' | sort -u >"$tmp/tl"
	bad=$(awk -F'\t' 'NR == FNR { want[$1 "\t" $2] = $3; next }
	    { k = $1 "\t" $2 }
	    !(k in want) || want[k] != $3 || (k in seen) ||
	    ($3 in label) { print; exit }
	    { seen[k] = 1; label[$3] = 1 }' "$tmp/labels" "$tmp/tl")
	if [ -z "$bad" ] && [ -s "$tmp/tl" ]; then
		pass "instances $name: vmem --timeline labels ($(wc -l \
		    <"$tmp/tl" | tr -d ' ') instances)"
	else
		fail "instances $name: vmem --timeline labels" "${bad:-none}"
	fi
	# The chart: each legend entry an instance's label, or a long one
	# cut in its name ("build_scr.. (10256 @0.002713s)"), its "(pid)"
	# and start kept.
	etlagg -q vmem --timeline "$st" | etlreport -q -f svg |
	    sed -n 's|^<text x="[0-9]*" y="[0-9]*">\(.*\)</text>$|\1|p' |
	    awk -F'\t' -v inst="$tmp/labels" '
	    BEGIN { while ((getline l < inst) > 0) {
		split(l, a, "\t"); lab[++n] = a[3] } }
	    {
		out = $0
		if ((i = index($0, ".. (")) > 0) {
			pre = substr($0, 1, i - 1); suf = substr($0, i + 2)
			for (j = 1; j <= n; j++) {
				at = length(lab[j]) - length(suf) + 1
				if (index(lab[j], pre) == 1 &&
				    substr(lab[j], at) == suf)
					out = lab[j]
			}
		}
		print out
	    }' >"$tmp/legend"
	unknown "instances $name: the chart's legend" "$tmp/legend"
	[ "$3" = 1 ] || return 0

	# switches: new_process is the instance of new_pid.
	csv switches "$st" >"$tmp/sw.csv"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
	    { print $(at["new_process"]) }' "$tmp/sw.csv" | sort -u \
	    >"$tmp/got"
	unknown "instances $name: switches new_process" "$tmp/got"
	# waits --by thread: its threads are the switched-in threads of
	# the switches (those with a switch-out before), "process tid".
	csv waits --by thread "$st" | sed 1d | csv_first 1 | sort -u \
	    >"$tmp/got"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
	    $(at["last_switch_out_s"]) != "" {
		print $(at["new_process"]) " " $(at["new_tid"]) }' \
	    "$tmp/sw.csv" | sort -u >"$tmp/want"
	same_file "instances $name: waits --by thread, a row a thread instance" \
	    "$tmp/got" "$tmp/want"
	sed 's/ [0-9]*$//' "$tmp/got" | sort -u >"$tmp/procs"
	unknown "instances $name: waits --by thread processes" "$tmp/procs"
	# A tid that two lives of one pid had is two threads.
	twice=$(awk '{ sub(/ @[^)]*\)/, ")"); print }' "$tmp/got" |
	    sort | uniq -d | head -1)
	[ -n "$twice" ] && echo "PASS instances $name: $twice is two threads"
	# threadtime: its roots and readiers.
	csv threadtime "$st" | sed 1d | tr ';' '\n' | sed -n \
	    's/^\(.*\) ([0-9 @.,a-z]*)$/&/p' | grep -v '^Thread (' |
	    sed 's/^READIED_BY //; s/ [0-9]*$//' |
	    grep -v '^Idle (' | sort -u >"$tmp/got"
	csv threadtime "$st" | sed 1d | cut -d';' -f1 | sort -u >"$tmp/roots"
	unknown "instances $name: threadtime roots" "$tmp/roots"
	# The thread timeline page: a lane per thread instance, named.
	etlagg -q switches "$st" | etlreport -q -f html >"$tmp/tl.html"
	sed -n 's|^<text x="0" y="[0-9]*">\(.*\) [0-9]*</text>$|\1|p' \
	    "$tmp/tl.html" | sort -u >"$tmp/got"
	unknown "instances $name: thread timeline lanes" "$tmp/got"
	lanes=$(grep -c '^<text x="0" y=' "$tmp/tl.html")
	check_eq "instances $name: a lane a thread instance" "$lanes" \
	    "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
	    { print $(at["new_process"]) " " $(at["new_tid"]) }' \
	    "$tmp/sw.csv" | sort -u | wc -l | tr -d ' ')"
	# The tree page: a rustc by its crate.
	etlagg -q tree "$st" | etlreport -q -f html |
	    sed -n 's|.*<div class="label"[^>]*>\(.*\)</div><div class="track">.*|\1|p' |
	    sed 's|</*b>||g' | awk -F'\t' -v inst="$tmp/labels" '
	    BEGIN { while ((getline l < inst) > 0) {
		split(l, a, "\t"); x = a[3]
		sub(/ @[^)]*[)]$/, ")", x)
		sub(/, before the trace[)]$/, ")", x); ok[x] = 1 } }
	    $0 != "process (pid)" && !($0 in ok) { print; exit }' \
	    >"$tmp/bad"
	if [ -s "$tmp/bad" ]; then
		fail "instances $name: tree labels" "$(cat "$tmp/bad")"
	else
		pass "instances $name: tree labels"
	fi
}

synth() {
	etlsynth "$@" -o "$tmp/s.etl" >/dev/null &&
	    etlcat -q "$tmp/s.etl" >"$tmp/s.st"
}
synth --events 30000 --seed 11 --scenario rustc-build &&
    check build "$tmp/s.st" 1
# One pid compiles build_script_build twice: the two need their starts.
synth --events 30000 --seed 11 --scenario rustc-build --rename \
    'crate-name rustc_std_workspace_core=crate-name build_script_build' &&
    check "same crate" "$tmp/s.st" 1
if grep -q ' @0\.' "$tmp/labels"; then
	pass "instances same crate: a label with its start"
else
	fail "instances same crate" "no two instances share a name"
fi
synth --scenario memory && check memory "$tmp/s.st" 0
