#!/bin/sh
# make check-tsan: the tools' threads under ThreadSanitizer, over the
# sample and an etlsynth trace of every scenario.  The threads are those
# that change no output (lib/base/ring.h): etlcat's read-ahead of .etl
# buffers and its merge thread, every writer's compressing thread, the
# stream links between etlagg's views and its filters, and etlagg's
# holdback of what views pass on.  Each run must exit as it would
# without the sanitizer and print no ThreadSanitizer report; its output
# must equal that of one thread (ETL_THREADS=1).
#
# Usage: sh tests/tsan.sh  (after a build with -fsanitize=thread)
# The last line is "N passed, N failed".

top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:$top/build:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
passed=0 failed=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# run NAME CMD: runs CMD (a shell command) twice, threaded and with
# ETL_THREADS=1; it must not report a race and must write the same.
run() {
	name=$1
	ETL_THREADS=1 sh -c "$2" >"$tmp/one" 2>"$tmp/one.err"
	one=$?
	sh -c "$2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if grep -q 'ThreadSanitizer' "$tmp/err" "$tmp/one.err"; then
		fail "$name" "$(grep -A12 'WARNING: ThreadSanitizer' \
		    "$tmp/err" "$tmp/one.err" | head -20)"
	elif [ $rc -ne $one ] || [ $rc -ge 2 ]; then
		fail "$name" "exit $rc (one thread: $one): $(head -3 "$tmp/err")"
	elif ! cmp -s "$tmp/one" "$tmp/out"; then
		fail "$name" "output differs from one thread's"
	else
		pass "$name"
	fi
}

traces=$top/testdata/sample.etl
for scenario in rustc-build memory memory-lossy stack-joins waits; do
	t=$tmp/$scenario.etl
	etlsynth --scenario "$scenario" --size 3000000 --seed 3 --compress \
	    -o "$t" >/dev/null 2>&1 || { fail "synth-$scenario" \
	    "etlsynth failed"; continue; }
	traces="$traces $t"
done
etlsynth --scenario rustc-build --size 3000000 --seed 4 \
    --compact-cswitch -o "$tmp/plain.etl" >/dev/null 2>&1 &&
    traces="$traces $tmp/plain.etl"

for t in $traces; do
	n=$(basename "$t" .etl)
	run "etlcat-$n" "etlcat -q '$t'"
	etlcat -q -o "$tmp/$n.st" "$t" 2>/dev/null
	run "pipeline-$n" "etlcat -q '$t' | etlfilter -q --rustc |
	    etlagg -q cpu --by stack | etlreport -q -f folded"
	run "chain-filters-$n" "etlagg -q threads --rustc + waits --by \
	    thread -v --pid 0 + cpu --by stack -p rustc + vmem --by stack \
	    --rustc + crates '$tmp/$n.st' | etlreport -q -f jsonl"
	run "chain-diff-$n" "etlagg -q crates --rustc --diff '$tmp/$n.st' + \
	    threads --diff '$tmp/$n.st' '$tmp/$n.st' | etlreport -q -f jsonl"
	run "direct-$n" "etlagg -q timeline --rustc + processes '$t' |
	    etlreport -q -f jsonl"
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
