#!/bin/sh
# One interface for the tools: options before and after the files (and
# etlagg's own options mixed with the view's), messages that start with
# the tool's name, exit status 2 for a usage error and 1 for bad data,
# the manual's promises (percentages with two decimals, etlcat -v after
# every input), and a progress line only on a terminal.

. "$(dirname "$0")/../testlib.sh"

cd "$tmp" || exit 2
etlcat "$ETL_TOP/testdata/sample.etl" >a.st 2>/dev/null

# Options after the file names give what they give before them.
etlcat -z 3 -o c1.st "$ETL_TOP/testdata/sample.etl" 2>/dev/null
etlcat "$ETL_TOP/testdata/sample.etl" -o c2.st -z 3 2>/dev/null
check_eq permute-etlcat "$(cmp -s c1.st c2.st && echo same)" same
etlfilter -p '^rustc' -o f1.st a.st 2>/dev/null
etlfilter a.st -o f2.st -p '^rustc' 2>/dev/null
check_eq permute-etlfilter "$(cmp -s f1.st f2.st && echo same)" same
etlreport -f csv -o r1.csv a.st 2>/dev/null
etlreport a.st -o r2.csv -f csv 2>/dev/null
check_eq permute-etlreport "$(cmp -s r1.csv r2.csv && echo same)" same
# etlagg: the view, its options, etlagg's options and the files in any
# order.
etlagg -o g1.st cpu --by stack a.st 2>/dev/null
etlagg cpu a.st -o g2.st --by stack 2>/dev/null
etlagg --by stack cpu a.st -o g3.st 2>/dev/null
etlagg cpu --by=stack -o g4.st -- a.st 2>/dev/null
for g in g2 g3 g4; do
	check_eq "permute-etlagg-$g" "$(cmp -s g1.st $g.st && echo same)" same
done
etlagg cpu a.st -o g5.st 2>/dev/null
check_eq permute-etlagg-o-last "$? $(test -s g5.st && echo written)" \
    "0 written"

# Usage errors: status 2, the tool's name first (also in getopt's own
# messages, whatever path the tool was run by).
for cmd in "etlcat --bogus" "etlfilter --bogus" "etlreport --bogus" \
    "etlagg --bogus" "etlagg stats --by stack" "etlagg nosuchview" \
    "etlagg" "etlreport -f nosuchformat" "etlcat -z 99" \
    "etlfilter --pid x"; do
	tool=${cmd%% *}
	"$(command -v $tool)" ${cmd#$tool} </dev/null >/dev/null 2>err
	status=$?
	first=$(head -1 err)
	check_eq "usage-$(echo $cmd | tr ' ' '_')" \
	    "$status ${first%%:*}" "2 $tool"
done
# Data errors: status 1, the tool's name first.
echo 'not a stream' >text.txt
for tool in etlcat etlfilter etlreport "etlagg stats"; do
	$tool text.txt >/dev/null 2>err
	status=$?
	first=$(head -1 err)
	check_eq "data-error-$(echo $tool | tr ' ' _)" "$status ${first%%:*}" \
	    "1 ${tool%% *}"
done
# The views' own messages too.
etlagg cpu --by nothing a.st >/dev/null 2>err
check_eq view-message "$?:$(head -1 err)" "2:etlagg: cpu: --by wants \
process, stack, function, module, query, query+function or query+stack, \
not 'nothing'"

# Percentages with two decimals in CSV, one in text (for people).
etlagg cpu --by module a.st 2>/dev/null | etlreport -f csv 2>/dev/null |
    csv_lf >pct.csv
bad=$(awk -F, 'NR > 1 && ($3 !~ /\.[0-9][0-9]$/ || $5 !~ /\.[0-9][0-9]$/)' \
    pct.csv | head -3)
check_eq percent-two-decimals-csv "$bad" ""
etlagg cpu a.st 2>/dev/null | etlreport 2>/dev/null |
    awk 'NR > 3 && NF > 5 && $1 != "note:" { print $(NF - 1) }' >pct.txt
check_eq percent-one-decimal-text \
    "$(grep -vc '^[0-9]*\.[0-9]$' pct.txt):$(grep -c . pct.txt)" "0:14"

# etlcat -v: a summary line after every input, whatever its kind.
etlcat -v "$ETL_TOP/testdata/sample.etl" a.st \
    "$ETL_TOP/testdata/selfprofile/tiny-0030637.mm_profdata" \
    >/dev/null 2>err
for f in sample.etl a.st tiny-0030637.mm_profdata; do
	grep -q "$f: [0-9]" err && pass "verbose-says-$f" ||
	    fail "verbose-says-$f" "no line for $f in: $(cat err)"
done

# Progress: nothing when stderr is not a terminal; a line of bytes done
# of the total, rate and time left when it is (under script(1)), or when
# ETL_PROGRESS=2 asks for it anyway.  ETL_PROGRESS=1 only drops the quiet
# first half second, so that a short test run shows it.
for tool in etlfilter etlreport "etlagg stats"; do
	name=$(echo $tool | tr ' ' _)
	$tool a.st -o /dev/null 2>err
	check_eq "progress-none-$name" "$(tr -cd '\r' <err | wc -c | tr -d ' ')" 0
	ETL_PROGRESS=2 $tool a.st -o /dev/null 2>err
	grep -q 'a\.st: .* of .* (100%), .*/s, 0:00 left' err &&
	    pass "progress-forced-$name" ||
	    fail "progress-forced-$name" "$(tr '\r' '\n' <err | head -3)"
done
ETL_PROGRESS=2 etlcat "$ETL_TOP/testdata/sample.etl" -o /dev/null 2>err
grep -q 'sample\.etl: .* of .* KiB (.*%), .*/s, .* left' err &&
    pass progress-forced-etlcat ||
    fail progress-forced-etlcat "$(tr '\r' '\n' <err | head -3)"
if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1
then
	ETL_PROGRESS=1 script -qc "etlagg stats a.st -o /dev/null" /dev/null \
	    </dev/null >tty.out 2>&1
	grep -q 'a\.st: .* of .* (100%)' tty.out &&
	    pass progress-terminal || fail progress-terminal "$(cat tty.out)"
	ETL_PROGRESS=0 script -qc "etlagg stats a.st -o /dev/null" /dev/null \
	    </dev/null >tty.out 2>&1
	check_eq progress-terminal-off "$(grep -c '(100%)' tty.out)" 0
else
	skip progress-terminal "no script(1) with -c"
fi
