#!/bin/sh
# pipelines/many-traces.sh: the tables mapped over traces in parallel and
# merged equal one run over all the traces; a trace that fails is left
# out and said; the merge's memory does not grow with the number of
# tables; the CSV loads into DuckDB when DuckDB is here.

. "$(dirname "$0")/../testlib.sh"

many="$(cd "$(dirname "$0")/../.." && pwd)/pipelines/many-traces.sh"

if ! command -v etlsynth >/dev/null; then
	skip many "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
if ! command -v parallel >/dev/null; then
	skip many "no GNU parallel (apt-get install parallel)"
	exit 0
fi

# Six traces, of two pointer sizes, with and without compressed buffers.
set --
for seed in 1 2 3 4 5 6; do
	ptr=8 comp=
	[ $((seed % 2)) = 0 ] && ptr=4
	[ $seed -gt 3 ] && comp=--compress
	etlsynth --events 4000 --seed $seed --pointer-size $ptr $comp \
	    -o "$tmp/t$seed.etl" 2>/dev/null ||
	    { fail many-synth "etlsynth --seed $seed failed"; exit 0; }
	set -- "$@" "$tmp/t$seed.etl"
done

# The merged table of each view, as CSV, against one run over all traces.
for view in "cpu --by stack" "cpu --by function" "cpu --by module" \
    "cpu --by process" processes tree; do
	id=$(echo "$view" | sed 's/ --by /-/')
	etlcat -q "$@" 2>/dev/null | etlagg $view 2>/dev/null |
	    etlreport -f csv -o "$tmp/one.csv" 2>/dev/null
	sh "$many" -j 2 -f csv -o "$tmp/many.csv" $view -- "$@" 2>/dev/null
	status=$?
	rows=$(sed 1d "$tmp/one.csv" | wc -l | tr -d ' ')
	if [ "$rows" -lt 2 ]; then
		fail "many-$id" "one run gave $rows rows"
	elif ! cmp -s "$tmp/one.csv" "$tmp/many.csv"; then
		fail "many-$id" "merged table differs from one run:
$(diff "$tmp/one.csv" "$tmp/many.csv" | head -5)"
	else
		check_eq "many-$id" "$status" 0
	fi
done

# The stream out (no -f) is a table etlreport renders the same way, and
# the traces may come on the standard input.
printf '%s\n' "$@" | sh "$many" -j 3 -o "$tmp/many.zst" cpu --by stack -- \
    2>/dev/null
etlreport -f folded "$tmp/many.zst" >"$tmp/many.folded" 2>/dev/null
etlcat -q "$@" 2>/dev/null | etlagg cpu --by stack 2>/dev/null |
    etlreport -f folded >"$tmp/one.folded" 2>/dev/null
if [ -s "$tmp/one.folded" ] && cmp -s "$tmp/one.folded" "$tmp/many.folded"
then
	pass many-stdin-stream
else
	fail many-stdin-stream "folded stacks differ from one run"
fi

# A filter applies to each trace before its table.
etlcat -q "$@" 2>/dev/null | etlfilter -p rustc 2>/dev/null |
    etlagg processes 2>/dev/null | etlreport -f csv >"$tmp/one.csv" 2>/dev/null
sh "$many" -F '-p rustc' -f csv processes -- "$@" >"$tmp/many.csv" \
    2>/dev/null
if [ "$(sed 1d "$tmp/one.csv" | wc -l)" -gt 0 ] &&
    cmp -s "$tmp/one.csv" "$tmp/many.csv"; then
	pass many-filter
else
	fail many-filter "filtered merge differs from one run"
fi

# A trace that cannot be read is named, the others are merged, exit 1.
printf 'not a trace' >"$tmp/bad.etl"
sh "$many" -f csv -o "$tmp/part.csv" processes -- "$1" "$tmp/bad.etl" "$2" \
    2>"$tmp/err"
status=$?
etlcat -q "$1" "$2" 2>/dev/null | etlagg processes 2>/dev/null |
    etlreport -f csv -o "$tmp/one.csv" 2>/dev/null
if [ $status != 1 ]; then
	fail many-bad-trace "exit status $status, expected 1"
elif ! grep -q "bad.etl: not an ETL" "$tmp/err" ||
    ! grep -q "1 of 3 traces failed" "$tmp/err"; then
	fail many-bad-trace "not reported: $(cat "$tmp/err")"
elif ! cmp -s "$tmp/one.csv" "$tmp/part.csv"; then
	fail many-bad-trace "the other traces were not merged"
else
	pass many-bad-trace
fi

# The merge reads one table at a time: the peak RSS of merging 100
# copies of a table stays within 512 KB of merging 2 (the 100 decoded
# tables would take more than 2 MB).
# AddressSanitizer keeps freed memory in quarantine and reserves
# terabytes of address space: a sanitizer build says nothing here.
if ! (ulimit -v 524288 && etlagg --version) >/dev/null 2>&1; then
	skip many-merge-rss "a sanitizer build: its peak RSS is not the program's"
elif [ -x /usr/bin/time ]; then
	etlsynth --events 60000 --seed 9 -o "$tmp/big.etl" 2>/dev/null
	etlcat -q "$tmp/big.etl" 2>/dev/null |
	    etlagg -o "$tmp/tab" cpu --by stack --addresses 2>/dev/null
	# The peak RSS in KB of merging $1 copies of the table.
	merge_rss() {
		i=0
		set --
		while [ $i -lt "$n" ]; do
			set -- "$@" "$tmp/tab"
			i=$((i + 1))
		done
		/usr/bin/time -f %M -o "$tmp/rss" etlagg --merge cpu \
		    --by stack --addresses -o "$tmp/merged.$n" "$@" 2>/dev/null
		tail -1 "$tmp/rss"
	}
	n=2 rss2=$(merge_rss)
	n=100 rss100=$(merge_rss)
	size=$(zstd -dc "$tmp/tab" 2>/dev/null | wc -c | tr -d ' ')
	if [ "$size" -lt 20000 ]; then
		fail many-merge-rss "the table is too small ($size bytes) to tell"
	elif [ $((rss100 - rss2)) -gt 512 ]; then
		fail many-merge-rss "merging 100 tables took ${rss100} KB, 2 took ${rss2} KB"
	else
		pass many-merge-rss
	fi
else
	skip many-merge-rss "no /usr/bin/time (apt-get install time)"
fi

# DuckDB reads the CSV as it is: the one-line load of the README, taken
# from the README, through npm's @duckdb/node-api (.ci/npm.sh), or a
# duckdb command or python3 module when there is one.
sh "$many" -f csv -o "$tmp/out.cpu.csv" cpu --by function -- "$@" \
    2>/dev/null
want=$(($(wc -l <"$tmp/out.cpu.csv") - 1))
load=$(grep "^SELECT .*read_csv_auto('out.cpu.csv');\$" "$ETL_TOP/README.md" |
    head -1 | sed 's/;$//')
[ -n "$load" ] || fail many-duckdb-readme "no read_csv_auto line in README.md"
count="SELECT count(*) FROM ($load)"
if command -v node >/dev/null &&
    node "$ETL_TOP/tests/duckdb.js" check 2>/dev/null; then
	got=$(cd "$tmp" && node "$ETL_TOP/tests/duckdb.js" sql "$count" 2>&1)
	check_eq many-duckdb "$got" "$want"
elif command -v duckdb >/dev/null; then
	got=$(cd "$tmp" && duckdb -csv -noheader -c "$count" 2>&1)
	check_eq many-duckdb "$got" "$want"
elif python3 -c 'import duckdb' 2>/dev/null; then
	got=$(cd "$tmp" && python3 -c "import duckdb, sys
print(duckdb.sql(sys.argv[1]).fetchone()[0])" "$count")
	check_eq many-duckdb "$got" "$want"
else
	skip many-duckdb "no @duckdb/node-api (sh .ci/npm.sh; needs node and \
npm: apt-get install nodejs npm)"
fi
