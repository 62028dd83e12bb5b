#!/bin/sh
# Runs every test and counts the verdicts.  Each unit-test binary in
# build/tests and each script in tests/cli prints lines that begin with
# PASS, FAIL or SKIP; anything else it prints is detail for a failure.
# The last line is "N passed, N failed, N skipped".
#
# Usage: sh tests/run.sh [-v]	(-v shows the detail of passing tests too)

# cd prints the directory it finds through CDPATH, into $(cd ... && pwd).
unset CDPATH
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
verbose=0
[ "${1:-}" = "-v" ] && verbose=1

export PATH="$top/bin:$top/build:$PATH"
export ETL_CORPUS="${ETL_CORPUS:-$top/../shared/corpus}"
export ETL_TOP="$top"

log=$(mktemp)
trap 'rm -f "$log"' EXIT INT TERM

run_one() {
	name=$1
	shift
	"$@" >"$log" 2>&1
	status=$?
	if [ $verbose = 1 ] || grep -q '^FAIL' "$log"; then
		cat "$log"
	else
		grep '^\(PASS\|SKIP\)' "$log"
	fi
	if ! grep -q '^\(PASS\|FAIL\|SKIP\)' "$log"; then
		cat "$log"
		echo "FAIL $name: printed no verdict (exit $status)"
	elif [ $status -gt 1 ]; then
		echo "FAIL $name: exit status $status"
	fi
}

results=$(
	for t in build/tests/test_*; do
		[ -x "$t" ] && run_one "$t" "$t"
	done
	for t in tests/cli/*.sh; do
		[ -f "$t" ] && run_one "$t" sh "$t"
	done
)
printf '%s\n' "$results"
pass=$(printf '%s\n' "$results" | grep -c '^PASS')
fail=$(printf '%s\n' "$results" | grep -c '^FAIL')
skip=$(printf '%s\n' "$results" | grep -c '^SKIP')
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
