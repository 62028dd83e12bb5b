#!/bin/sh
# One lossy-input line a run: a pipeline script says what its input lost
# once, through the etlcat that decodes it (naming the input), not once
# per stage, and says it again after its list of files; an input that
# lost nothing gets neither.  pipelines/rustc-*.sh on the sample trace
# (12 events lost by the logger) and on cut profiles, many-traces.sh on
# two traces, and the PowerShell twins when pwsh is here.

. "$(dirname "$0")/../testlib.sh"

p=$ETL_TOP/pipelines
sample=$ETL_TOP/testdata/sample.etl
lost=$(etlcat "$sample" 2>&1 >/dev/null | sed -n 's/^etlcat: .*: lossy input: //p')
if [ -z "$lost" ]; then
	fail lossy-sample "etlcat says nothing lost in $sample"
	exit 0
fi

# lossy NAME ERR WHO WHAT: the messages in ERR hold one lossy-input line,
# etlcat's for $sample, and end with WHO's summary of it for WHAT.
lossy() {
	check_eq "$1" "$(grep ': lossy input: ' "$2")
$(tail -1 "$2")" "etlcat: $sample: lossy input: $lost
$3: $4: the files are computed from lossy input: $lost"
}

for s in rustc-processes rustc-cpu rustc-memory rustc-waits; do
	sh "$p/$s.sh" -o "$tmp/$s" "$sample" >"$tmp/$s.out" 2>"$tmp/$s.err"
	check_eq "$s-status" "$?" 0
	lossy "$s-lossy-once" "$tmp/$s.err" "$s.sh" "$sample"
done

# A trace that lost nothing: not a word of loss.
if command -v etlsynth >/dev/null; then
	etlsynth --events 3000 --seed 7 -o "$tmp/whole.etl" >/dev/null
	sh "$p/rustc-cpu.sh" -a -o "$tmp/whole" "$tmp/whole.etl" \
	    >/dev/null 2>"$tmp/whole.err"
	check_eq rustc-cpu-whole "$?:$(grep -c lossy "$tmp/whole.err")" "0:0"
else
	skip rustc-cpu-whole "no etlsynth (make builds it into build/)"
fi

# Profiles: etlcat names the cut one in its own words; the later stages
# say nothing; the summary says what the tables were computed from.
mkdir "$tmp/prof"
cp "$ETL_TOP/testdata/selfprofile/tiny-0030637.mm_profdata" "$tmp/prof/"
head -c 60000 "$tmp/prof/tiny-0030637.mm_profdata" \
    >"$tmp/prof/cut-1.mm_profdata"
sh "$p/rustc-queries.sh" -o "$tmp/q" "$tmp/prof" >/dev/null 2>"$tmp/q.err"
check_eq rustc-queries-status "$?" 1
check_eq rustc-queries-cut-named "$(grep -c "^etlcat: $tmp/prof/cut-1" \
    "$tmp/q.err" | sed 's/^[1-9][0-9]*$/some/')" some
check_eq rustc-queries-later-quiet \
    "$(grep -c '^etl\(filter\|agg\|report\): ' "$tmp/q.err")" 0
check_eq rustc-queries-summary "$(tail -1 "$tmp/q.err" | sed \
    's/\(the files are computed from lossy input: \).*/\1.../')" \
    "rustc-queries.sh: $tmp/prof: the files are computed from lossy input: ..."

# Many traces: each job's etlcat names its trace once, no stage says
# (stdin), and the summary counts the lossy traces.
if ! command -v parallel >/dev/null; then
	skip many-lossy-once "no GNU parallel (apt-get install parallel)"
elif ! command -v etlsynth >/dev/null; then
	skip many-lossy-once "no etlsynth (make builds it into build/)"
else
	sh "$p/many-traces.sh" -j 2 -f csv -o "$tmp/many.csv" cpu --by process \
	    -- "$sample" "$tmp/whole.etl" 2>"$tmp/many.err"
	check_eq many-lossy-once "$?:$(grep ': lossy input: ' "$tmp/many.err")
$(tail -1 "$tmp/many.err")" "0:etlcat: $sample: lossy input: $lost
many-traces.sh: 1 of 2 traces are lossy input (above): the table is \
computed from what they hold"
fi

# The PowerShell twins.
pwsh=$(command -v pwsh 2>/dev/null || echo "$HOME/.dotnet/tools/pwsh")
if [ ! -x "$pwsh" ]; then
	skip powershell-lossy-once "no pwsh (not packaged by Debian: sh \
.ci/pwsh.sh installs PowerShell 7 where the .NET SDK is)"
	exit 0
fi
export POWERSHELL_TELEMETRY_OPTOUT=1 POWERSHELL_UPDATECHECK=Off \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
for s in rustc-processes rustc-cpu rustc-memory rustc-waits; do
	"$pwsh" -NoProfile -NonInteractive -File "$p/$s.ps1" "$sample" \
	    -OutDir "$tmp/ps-$s" >/dev/null 2>"$tmp/ps-$s.err"
	check_eq "powershell-$s-status" "$?" 0
	lossy "powershell-$s-lossy-once" "$tmp/ps-$s.err" "$s.ps1" "$sample"
done
"$pwsh" -NoProfile -NonInteractive -File "$p/rustc-queries.ps1" \
    "$tmp/prof" -OutDir "$tmp/ps-q" >/dev/null 2>"$tmp/ps-q.err"
check_eq powershell-rustc-queries-later-quiet \
    "$(grep -c '^etl\(filter\|agg\|report\): ' "$tmp/ps-q.err")" 0
check_eq powershell-rustc-queries-summary "$(tail -1 "$tmp/ps-q.err" | sed \
    's/\(the files are computed from lossy input: \).*/\1.../')" \
    "rustc-queries.ps1: $tmp/prof: the files are computed from lossy input: ..."
