#!/bin/sh
# etlfilter against the real traces of the corpus, and a synthetic rustc
# build when build/etlsynth exists.  What it keeps is checked against
# rows picked independently, with awk, from `etlreport -f csv` of the
# unfiltered stream.  Skips when the corpus is absent.

. "$(dirname "$0")/../testlib.sh"

etl=$ETL_CORPUS/etl

# Without input: messages and exit status only.
etlfilter -p 'x(' </dev/null >/dev/null 2>"$tmp/err"
check_eq bad-regex "$? $(cat "$tmp/err")" \
    "2 etlfilter: bad regex 'x(': missing closing parenthesis (at offset 2)"
# Usage errors: a message that starts as given, and exit 2.
usage_error() {
	name=$1 want=$2
	shift 2
	etlfilter "$@" </dev/null >/dev/null 2>"$tmp/err"
	status=$?
	case "$status $(cat "$tmp/err")" in
	"2 "*"$want"*)	pass "$name" ;;
	*)	fail "$name" "exit $status: $(cat "$tmp/err")" ;;
	esac
}
usage_error bad-kind "etlfilter: unknown kind 'samples' (kinds: " \
    --kind sample,samples
# The kinds --help lists are the ones the message lists, the manual's,
# and each is accepted.
kinds_help=$(etlfilter --help | sed -n '/^  --kind/,/^  --provider/p' |
    sed '$d; s/.*event kinds://' | tr ', ' '\n\n' | grep . | xargs)
kinds_msg=$(etlfilter --kind x </dev/null 2>&1 | sed 's/.*(kinds: //; s/)$//' |
    tr ', ' '\n\n' | grep . | xargs)
kinds_man=$(sed -n '/^\.It Fl \\-kind/,/^\.It Fl/p' \
    "${ETL_TOP:-.}/man/etlfilter.1" | grep '^\.Cm' | sed 's/^\.Cm //' |
    tr ', ' '\n\n' | grep . | xargs)
check_eq kinds-help-message "$kinds_help" "$kinds_msg"
check_eq kinds-help-man "$kinds_help" "$kinds_man"
bad=
for k in $kinds_help; do
	etlfilter --kind "$k" </dev/null 2>&1 | grep -q 'unknown kind' &&
	    bad="$bad $k"
done
check_eq kinds-accepted "$bad" ""
usage_error bad-time "etlfilter: --from: '2020-13-01T00:00:00Z' is not a \
time in seconds, nor UTC as " --from 2020-13-01T00:00:00Z
usage_error bad-seconds "etlfilter: --to: '1.5s' is not a time in seconds" \
    --to 1.5s
usage_error bad-pid "etlfilter: bad pid '12x': " --pid 1,12x
usage_error bad-option "usage: etlfilter " --bogus

# The usage line is the man page's SYNOPSIS.
if command -v mandoc >/dev/null 2>&1 && command -v col >/dev/null 2>&1; then
	etlfilter --help | sed -n '/^usage:/,/\[file \.\.\.\]$/p' |
	    sed 's/^usage: //' | tr -s ' \t\n' '   ' |
	    sed 's/^ //; s/ $//' >"$tmp/usage"
	mandoc -Tascii "$ETL_TOP/man/etlfilter.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//' >"$tmp/synopsis"
	check_eq usage-synopsis "$(cat "$tmp/usage")" \
	    "$(grep '^etlfilter \[' "$tmp/synopsis")"
else
	skip usage-synopsis "no mandoc or col (apt-get install mandoc \
bsdextrautils)"
fi

if [ ! -d "$etl" ]; then
	skip filter-corpus "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
	exit 0
fi

# The events of a stream as CSV rows, without the header: the columns
# every event has (time ... fields), not those of its fields, which
# depend on the events a stream holds.
rows() {
	etlreport -f csv "$@" | csv_lf | sed 1d | csv_first 10
}

# Rows of $1 (a CSV file) for which the awk condition $2 holds; `name`
# is the process an event belongs to: the one its pid denotes, or for an
# event before any definition of its pid, the first one defined later
# (the name of the first row that shows one for that pid).
pick() {
	awk -F, "NR == FNR { if (\$2 != \"\" && !(\$3 in first)) first[\$3] = \$2; next }
	    { name = \$2 != \"\" ? \$2 : first[\$3] } $2" "$1" "$1"
}

# Compares the rows that etlfilter keeps with the rows picked by awk.
same_rows() {
	name=$1 want=$2 got=$3
	if ! cmp -s "$want" "$got"; then
		fail "$name" "$(wc -l <"$got") rows, expected $(wc -l <"$want"): $(diff "$want" "$got" | head -3)"
	elif [ ! -s "$want" ]; then
		fail "$name" "nothing to compare: no rows picked"
	else
		pass "$name"
	fi
}

x64=$tmp/x64.zst
airbus=$tmp/airbus.zst
etlcat -q -o "$x64" "$etl/perfview__net.4.5.2.x64.etl"
etlcat -q -o "$airbus" "$etl/airbus-etl-parser__ShutdownPerfDiagLogger.etl"
rows "$x64" >"$tmp/x64.csv"
rows "$airbus" >"$tmp/airbus.csv"

# A name keeps exactly its process's events; -v keeps the rest.  Besides
# them, only context (etl-stream(5), "Scope"): the lifetimes of every
# process and thread, and switches and ready events of which one side is
# kept.
context_only() {
	awk -F, '$6 != "process" && $6 != "thread" && $6 != "cswitch" &&
	    $6 != "ready"' "$2" >"$tmp/odd"
	if [ -s "$tmp/odd" ]; then
		fail "$1" "$(wc -l <"$tmp/odd") rows of a dropped process" \
		    "that are not context: $(head -1 "$tmp/odd")"
	else
		pass "$1"
	fi
}
etlfilter -p '^PerfView\.exe$' -o "$tmp/pv.zst" "$x64"
check_eq name-exit "$?" 0
pick "$tmp/x64.csv" 'name == "PerfView.exe"' >"$tmp/want"
rows "$tmp/pv.zst" >"$tmp/all"
pick "$tmp/all" 'name == "PerfView.exe"' >"$tmp/got"
same_rows name-keeps-process "$tmp/want" "$tmp/got"
pick "$tmp/all" 'name != "PerfView.exe"' >"$tmp/rest"
context_only name-keeps-context-only "$tmp/rest"
etlfilter -v -p '^PerfView\.exe$' "$x64" >"$tmp/nopv.zst"
pick "$tmp/x64.csv" 'name != "PerfView.exe"' >"$tmp/want"
rows "$tmp/nopv.zst" >"$tmp/all-v"
pick "$tmp/all-v" 'name != "PerfView.exe"' >"$tmp/got-v"
same_rows invert-keeps-the-rest "$tmp/want" "$tmp/got-v"
pick "$tmp/all-v" 'name == "PerfView.exe"' >"$tmp/rest"
context_only invert-keeps-context-only "$tmp/rest"
check_eq invert-adds-up \
    "$(($(wc -l <"$tmp/got") + $(wc -l <"$tmp/got-v")))" \
    "$(wc -l <"$tmp/x64.csv" | tr -d ' ')"
sort "$tmp/got" >"$tmp/a"
sort "$tmp/got-v" >"$tmp/b"
check_eq invert-shares-nothing "$(comm -12 "$tmp/a" "$tmp/b" | wc -l | tr -d ' ')" 0

# Filtering twice is filtering once, for -v as well.
etlfilter -p '^PerfView\.exe$' "$tmp/pv.zst" >"$tmp/pv2.zst"
rows "$tmp/pv2.zst" >"$tmp/got2"
check_eq idempotent "$(cmp -s "$tmp/all" "$tmp/got2" && echo same)" same
etlfilter -v -p '^PerfView\.exe$' "$tmp/nopv.zst" | rows >"$tmp/got2"
check_eq idempotent-invert "$(cmp -s "$tmp/all-v" "$tmp/got2" && echo same)" same

# The output is a valid stream: its END counts match, the views read it,
# and it counts the events it left out.  Nothing on stderr: every stack
# walk of this trace finds its event (etl-format.md 5.6, the late user
# parts too), so the input lost nothing.
if etlagg stats "$tmp/pv.zst" >"$tmp/stats.zst" 2>"$tmp/err" &&
    etlreport -o /dev/null "$tmp/stats.zst" 2>>"$tmp/err" &&
    [ ! -s "$tmp/err" ]; then
	pass valid-stream
else
	fail valid-stream "$(cat "$tmp/err")"
fi
cat "$tmp/pv.zst" "$tmp/nopv.zst" | etlfilter -o /dev/null 2>"$tmp/err"
check_eq concatenated-outputs "$? $(cat "$tmp/err")" "0 "

# Children: descendants through the ppid of process events, by pid (no
# pid is reused in this trace), from the tree awk builds.
etlfilter -p '^explorer\.exe$' --children "$x64" | rows >"$tmp/got"
awk -F, '$6 == "process" && ($8 == "Process/DCStart" || $8 == "Process/Start") {
	if (match($10, /ppid=[0-9]+/)) print $3, substr($10, RSTART + 5, RLENGTH - 5), $2
    }' "$tmp/x64.csv" | sort -u >"$tmp/tree"
awk 'NR == FNR { if ($3 == "explorer.exe") set[$1] = 1; kid[NR] = $1; par[NR] = $2; n = NR; next }
    END { do { more = 0; for (i = 1; i <= n; i++)
	if ((par[i] in set) && !(kid[i] in set)) { set[kid[i]] = 1; more = 1 }
    } while (more); for (p in set) print p }' "$tmp/tree" "$tmp/tree" |
    sort >"$tmp/pids"
check_eq children-tree "$(tr '\n' ' ' <"$tmp/pids")" "2876 3508 3516 3676 "
awk -F, 'NR == FNR { want[$1] = 1; next } $3 in want' "$tmp/pids" \
    "$tmp/x64.csv" >"$tmp/want"
awk -F, 'NR == FNR { want[$1] = 1; next } $3 in want' "$tmp/pids" \
    "$tmp/got" >"$tmp/own"
same_rows children-keeps-descendants "$tmp/want" "$tmp/own"
etlfilter -p '^explorer\.exe$' "$x64" | rows | awk -F, '$3 != 2876' \
    >"$tmp/rest"
context_only no-children-context-only "$tmp/rest"
awk -F, '$6 != "process" && $6 != "thread"' "$tmp/rest" | wc -l >"$tmp/n"
check_eq no-children-without-option "$(tr -d ' ' <"$tmp/n")" 0

# Processes defined only when they end (no rundown at the start): their
# earlier events belong to them too.
etlfilter -p '^YourPhoneServer\.exe$' "$airbus" | rows >"$tmp/all"
awk -F, '$3 == 6832' "$tmp/airbus.csv" >"$tmp/want"
awk -F, '$3 == 6832' "$tmp/all" >"$tmp/got"
same_rows late-definition "$tmp/want" "$tmp/got"
awk -F, '$3 != 6832' "$tmp/all" >"$tmp/rest"
context_only late-definition-context-only "$tmp/rest"
etlfilter -i --cmdline 'yourphone_.*YOURPHONESERVER' "$airbus" | rows |
    awk -F, '$3 == 6832' >"$tmp/got"
same_rows cmdline-ignore-case "$tmp/want" "$tmp/got"
check_eq cmdline-case "$(etlfilter --cmdline 'yourphone_.*YOURPHONESERVER' \
    "$airbus" | rows | awk -F, '$3 == 6832 && $6 != "process" &&
    $6 != "thread"' | wc -l | tr -d ' ')" 0

# Event criteria.
etlfilter --kind sample,stack "$x64" | rows >"$tmp/got"
awk -F, '$6 == "sample" || $9 != 0' "$tmp/x64.csv" >"$tmp/want"
same_rows kind-sample-stack "$tmp/want" "$tmp/got"
etlfilter --pid 3676 --tid 3680,3656 "$x64" | rows >"$tmp/got"
awk -F, '$3 == 3676 && ($4 == 3680 || $4 == 3656)' "$tmp/x64.csv" >"$tmp/want"
same_rows pid-tid "$tmp/want" "$tmp/got"
etlfilter --provider '{A669021C-C450-4609-A035-5AF59AF4DF18}' \
    --provider kerneltracecontrol "$x64" | rows >"$tmp/got"
awk -F, '$7 == "KernelTraceControl" || $7 == "Microsoft-Windows-DotNETRuntimeRundown"' \
    "$tmp/x64.csv" >"$tmp/want"
same_rows provider-name-guid "$tmp/want" "$tmp/got"
# A window keeps the events in it, and outside it only those that carry
# state into it (switches, readies, VirtualAlloc, lifetimes, losses).
state='$6 ~ /^(cswitch|ready|vmem|process|thread|image|lost)$/'
etlfilter --from 2.5 --to 3 "$x64" | rows >"$tmp/got"
awk -F, '$1 >= 2.5 && $1 < 3' "$tmp/x64.csv" >"$tmp/want"
awk -F, "\$1 >= 2.5 && \$1 < 3" "$tmp/got" >"$tmp/in"
same_rows time-seconds "$tmp/want" "$tmp/in"
awk -F, "(\$1 < 2.5 || \$1 >= 3) && $state" "$tmp/x64.csv" >"$tmp/want"
awk -F, "\$1 < 2.5 || \$1 >= 3" "$tmp/got" >"$tmp/out"
same_rows time-outside-only-state "$tmp/want" "$tmp/out"
# The trace started at 2020-07-29T00:07:00.6236167Z (etlagg sysconfig).
etlfilter --from 2020-07-29T00:07:03.1236167Z --to 3 "$x64" | rows >"$tmp/got2"
check_eq time-utc "$(cmp -s "$tmp/got" "$tmp/got2" && echo same)" same

# Bad input: not a stream, a stream cut short.  (A trace is no bad
# input: it is decoded first, as tests/cli/direct.sh shows.)
printf 'ETL\0not a trace, not a stream\n' >"$tmp/neither.etl"
etlfilter "$tmp/neither.etl" >/dev/null 2>"$tmp/err"
check_eq not-a-stream "$? $(cat "$tmp/err")" \
    "1 etlfilter: $tmp/neither.etl: not an ETL file, rustc self-profile or event stream (offset 0x0)"
head -c 300000 "$x64" >"$tmp/cut.zst"
etlfilter -p PerfView "$tmp/cut.zst" >/dev/null 2>"$tmp/err"
check_eq truncated-input "$?" 1

# A synthetic rustc build: --rustc keeps the samples of the rustc, cargo,
# link and build-script processes and their descendants, pids reused.
synth=$ETL_TOP/build/etlsynth
if [ ! -x "$synth" ]; then
	skip filter-rustc-synth "no build/etlsynth"
	exit 0
fi
if ! "$synth" --scenario rustc-build --events 200000 --seed 7 \
    -o "$tmp/synth.etl" 2>"$tmp/err"; then
	fail filter-rustc-synth "etlsynth: $(cat "$tmp/err")"
	exit 0
fi
etlcat -q -o "$tmp/synth.zst" "$tmp/synth.etl"
# Samples of the process instances of the manifest that match: by the
# awk condition $1 on `pid` and `img`, or through their parent, the
# latest instance of their parent pid that started no later than they.
manifest_samples() {
	awk -F'\t' '$1 == "process" { print $3, $2, $4, $6, $5 }' \
	    "$tmp/synth.etl.manifest.tsv" | sort -n |
	awk "{ start[NR] = \$1; pid[NR] = \$2; samples = \$4; img = tolower(\$5)
	    par = 0
	    for (i = NR - 1; i >= 1; i--)
		if (pid[i] == \$3 && start[i] <= \$1) { par = i; break }
	    m[NR] = ($1) || (par && m[par])
	    if (m[NR]) s += samples } END { print s + 0 }"
}
samples() {
	etlfilter "$@" "$tmp/synth.zst" | etlfilter --kind sample | rows |
	    wc -l | tr -d ' '
}
want=$(manifest_samples \
    'img ~ /^(rustc|cargo|link|lld-link|rustdoc|build-script-build.*)(\.exe)?$/')
check_eq rustc-samples "$(samples --rustc)" "$want"
total=$(awk -F'\t' '$1 == "total" && $2 == "samples" { print $3 }' \
    "$tmp/synth.etl.manifest.tsv")
check_eq rustc-invert-samples "$(samples -v --rustc)" "$((total - want))"
# Pids used by two processes: each brings its own descendants only.
reused=$(awk -F'\t' '$1 == "process" { print $2 }' \
    "$tmp/synth.etl.manifest.tsv" | sort -n | uniq -d | head -3)
[ -n "$reused" ] || fail reused-pid-children "the synthetic trace reuses no pid"
for p in $reused; do
	check_eq "reused-pid-children-$p" "$(samples --pid "$p" --children)" \
	    "$(manifest_samples "pid[NR] == $p")"
done
