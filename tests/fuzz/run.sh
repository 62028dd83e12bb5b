#!/bin/sh
# Runs each libFuzzer target for a while and prints what it did: the
# executions and the coverage (cov: edges, ft: features) of libFuzzer's
# final statistics.  Memory is limited so that allocation without bound
# is a finding, and an input that runs 10 s is one too.
#
# Usage: sh tests/fuzz/run.sh SECONDS NAME...   (make fuzz runs it)
# Corpora grow in build/fuzz/corpus/NAME; crashes land in
# build/fuzz/crashes/ (keep small ones in tests/fuzz/regress/NAME/).

secs=$1
shift
status=0
mkdir -p build/fuzz/crashes
for name in "$@"; do
	corpus=build/fuzz/corpus/$name
	log=build/fuzz/$name.log
	mkdir -p "$corpus"
	dict=
	[ -f "tests/fuzz/$name.dict" ] && dict=-dict=tests/fuzz/$name.dict
	regress=
	[ -d "tests/fuzz/regress/$name" ] && regress=tests/fuzz/regress/$name
	"build/fuzz/bin/$name" -max_total_time="$secs" -rss_limit_mb=2048 \
	    -malloc_limit_mb=512 -timeout=10 -print_final_stats=1 \
	    -artifact_prefix="build/fuzz/crashes/$name-" $dict \
	    "$corpus" "build/fuzz/seeds/$name" $regress >"$log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
	cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(printf '%s\n' "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	if [ $st -eq 0 ]; then
		echo "$name: ${execs:-?} executions in ${secs} s, cov ${cov:-?}," \
		    "ft ${ft:-?}, corpus ${corp:-?}"
	else
		status=1
		echo "$name: FAILED after ${execs:-?} executions (exit $st):"
		grep -E '^(==|SUMMARY|fuzz:|artifact_prefix|Test unit written)' \
		    "$log" | head -20
		echo "  (whole log: $log)"
	fi
done
exit $status
