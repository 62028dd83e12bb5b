#!/bin/sh
# One progress line for a whole run: the report (pipelines/rustc-report.sh,
# with a baseline, so that several tools read in turn) and a + chain with
# --diff (two inputs in one etlagg) draw their progress on one line of
# the terminal, rewritten with CR and cleared at the end, never a line
# of progress left behind a newline; without a terminal, nothing but
# errors reaches stderr.

. "$(dirname "$0")/../testlib.sh"

top=$(cd "${ETL_TOP:-.}" && pwd)
report=$top/pipelines/rustc-report.sh
cd "$tmp" || exit 1
etlsynth --size 4000000 --seed 5 -o a.etl >/dev/null 2>&1 &&
    etlsynth --size 4000000 --seed 6 -o b.etl >/dev/null 2>&1 ||
    { fail progress-run-synth "etlsynth failed"; exit 0; }
etlcat -q -o a.st a.etl && etlcat -q -o b.st b.etl ||
    { fail progress-run-etlcat "etlcat failed"; exit 0; }

# left_behind FILE: how many progress texts a newline ends rather than
# a CR that rewrites them: lines whose text after the last CR is one.
left_behind() {
	awk 'BEGIN { RS = "\n" } { n = split($0, part, "\r");
	    if (part[n] ~ /\([0-9]+%\)/) bad++ } END { print bad + 0 }' "$1"
}

# drawn FILE: how many times a progress text was drawn.
drawn() {
	tr '\r' '\n' <"$1" | grep -c ' of .* ([0-9]*%)'
}

if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1
then
	mkdir -p out
	ETL_PROGRESS=1 script -qc "sh '$report' -o out --baseline b.etl a.etl \
	    >/dev/null" /dev/null </dev/null >tty.out 2>&1
	[ "$(drawn tty.out)" -gt 0 ] && pass progress-run-report-drawn ||
	    fail progress-run-report-drawn "no progress: $(tr '\r' '\n' <tty.out | head -5)"
	check_eq progress-run-report-one-line "$(left_behind tty.out)" 0
	# The last progress text drawn is wiped: blanks follow it.
	wiped=$(tr -d '\n' <tty.out | awk 'BEGIN { RS = "\r" }
	    /\([0-9]+%\)/ { w = 0; next } /^ +$/ { w = 1 } END { print w + 0 }')
	check_eq progress-run-report-cleared "$wiped" 1
	ETL_PROGRESS=1 script -qc "etlagg cpu --diff b.st + threads --diff \
	    b.st + crates a.st -o /dev/null" /dev/null </dev/null >tty.out 2>&1
	[ "$(drawn tty.out)" -gt 0 ] && pass progress-run-chain-drawn ||
	    fail progress-run-chain-drawn "$(tr '\r' '\n' <tty.out | head -5)"
	check_eq progress-run-chain-one-line "$(left_behind tty.out)" 0
else
	skip progress-run-terminal "no script(1) with -c"
fi

# Without a terminal: no progress at all, from any tool of the run.
sh "$report" -o out2 --baseline b.etl a.etl >/dev/null 2>err.txt
check_eq progress-run-report-no-tty "$(tr -cd '\r' <err.txt | wc -c | tr -d ' ')" 0
check_eq progress-run-report-no-tty-text "$(grep -c '([0-9]*%)' err.txt)" 0
etlagg cpu --diff b.st + threads --diff b.st + crates a.st -o /dev/null \
    2>err.txt
check_eq progress-run-chain-no-tty "$(tr -cd '\r' <err.txt | wc -c | tr -d ' ')" 0
