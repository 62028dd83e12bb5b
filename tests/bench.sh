#!/bin/sh
# make bench: throughput of the tools on a synthetic rustc-build trace,
# next to cat and zstd -1 over the same file, with the peak RSS of each
# stage.  The trace (1 GiB by default; BENCH_SIZE=bytes to change) is made
# once by etlsynth and kept in build/bench/.
#
# Usage: sh tests/bench.sh [trace.etl]

top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:$top/build:$PATH
size=${BENCH_SIZE:-1073741824}
trace=${1:-$top/build/bench/rustc-build-$size.etl}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM

if [ ! -f "$trace" ]; then
	command -v etlsynth >/dev/null || { echo "bench: no etlsynth" >&2; exit 1; }
	mkdir -p "$(dirname "$trace")"
	echo "bench: generating $trace ($size bytes)" >&2
	etlsynth --scenario rustc-build --size "$size" --seed 1 --compress \
	    -o "$trace" || exit 1
fi
bytes=$(wc -c <"$trace")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
cat "$trace" >/dev/null		# warm the page cache for every run alike

timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time

# Wraps each stage of a pipeline in $timer, which writes the stage's
# "seconds maxrss" to its own file.
staged() {
	[ -z "$timer" ] && { printf '%s' "$1"; return; }
	n=0 sep= result=
	old_ifs=$IFS
	IFS='|'
	for stage in $1; do
		result="$result$sep$timer -o $out/rss.$n -f '%e %M' $stage"
		sep=' | '
		n=$((n + 1))
	done
	IFS=$old_ifs
	printf '%s' "$result"
}

# run NAME PIPELINE VAR: prints the time, throughput and peak RSS of
# each stage, and keeps the seconds in secs_VAR.
run() {
	start=$(date +%s.%N)
	sh -c "$(staged "$2")" >/dev/null || echo "bench: $1 failed" >&2
	end=$(date +%s.%N)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
	rss=$(cat "$out"/rss.* 2>/dev/null |
	    awk '{ printf "%s%d", (NR > 1 ? "+" : ""), $2 / 1024 }')
	rm -f "$out"/rss.*
	printf '%-58s %8s s %9.1f MB/s %12s MB\n' "$1" "$secs" \
	    "$(awk -v b="$bytes" -v s="$secs" 'BEGIN { print b / 1e6 / s }')" \
	    "${rss:-n/a}"
	eval "secs_$3=$secs"
}

events=$(etlcat -q "$trace" | etlagg stats | etlreport -f csv |
    tr -d '\r' | awk -F, 'NR > 1 { s += $NF } END { print s + 0 }')
echo "trace: $trace, $mb MB, $events events"
echo "machine: $(nproc) cores, $(uname -sm), $(date -u +%Y-%m-%d)"
printf '%-58s %10s %14s %13s\n' command time throughput "peak RSS"
run "cat" "cat '$trace'" cat
run "zstd -1" "zstd -1 -q -c '$trace'" zstd
run "etlcat" "etlcat -q '$trace'" etlcat
run "etlcat | etlagg stats | etlreport -f csv" \
    "etlcat -q '$trace' | etlagg stats | etlreport -f csv" stats
run "etlcat | etlfilter -p rustc | etlagg cpu --by stack | etlreport -f folded" \
    "etlcat -q '$trace' | etlfilter -p rustc | etlagg cpu --by stack | etlreport -f folded" cpu
# The views alone, on the trace decoded once: the memory views beside cpu.
etlcat -q "$trace" >"$out/trace.zst" || echo "bench: etlcat failed" >&2
for view in "cpu --by stack" "vmem --by stack" "heap --by stack"; do
	run "etlagg $view (decoded stream)" \
	    "etlagg $view '$out/trace.zst'" "view_$(echo "$view" | cut -d' ' -f1)"
done
awk -v e="$events" -v a="$secs_etlcat" -v z="$secs_zstd" 'BEGIN {
	printf "etlcat: %.2f M events/s; %.2fx the time of zstd -1\n",
	    e / a / 1e6, a / z }'

# Context switches: etlagg threads and waits --by stack on a synthetic
# schedule (etlsynth --scenario waits; BENCH_WAITS_SIZE bytes, 64 MiB by
# default), made once and kept in build/bench/.
wsize=${BENCH_WAITS_SIZE:-67108864}
wtrace=$top/build/bench/waits-$wsize.etl
if [ -z "$1" ] && command -v etlsynth >/dev/null; then
	if [ ! -f "$wtrace" ]; then
		echo "bench: generating $wtrace ($wsize bytes)" >&2
		etlsynth --scenario waits --size "$wsize" --seed 1 \
		    -o "$wtrace" || exit 1
	fi
	trace=$wtrace
	bytes=$(wc -c <"$trace")
	cat "$trace" >/dev/null
	etlcat -q -o "$out/waits.zst" "$trace"
	echo "trace: $trace, $(awk -v b="$bytes" 'BEGIN {
	    printf "%.1f", b / 1e6 }') MB; the views read its stream"
	run "etlcat" "etlcat -q '$trace'" wcat
	bytes=$(wc -c <"$out/waits.zst")
	run "etlagg threads (stream)" "etlagg threads '$out/waits.zst'" threads
	run "etlagg waits --by stack (stream)" \
	    "etlagg waits --by stack '$out/waits.zst'" waits
fi
# Address mode against llvm-symbolizer --inlines, on the same PDB and the
# same addresses (every procedure's start and middle of the corpus's
# rustc-built PDB, ten times over), and etlsym on the stream of a trace
# whose rustc_driver DLL has that PDB.
sym_bench() {
	dir=${ETL_CORPUS:-$top/../shared/corpus}/pdb
	name=Native_x64_RustC_Rust_debuginfo2_v1.58.1
	llvm=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer)
	if [ ! -f "$dir/$name.exe" ] || [ -z "$llvm" ]; then
		echo "symbolizer: skipped (no corpus PDB or no llvm-symbolizer)"
		return
	fi
	awk -F'\t' '$3 ~ /PROC32$/ { print $1; printf "0x%x\n",
	    strtonum($1) + int($4 / 2) }' "$dir/$name.oracle.tsv" \
	    >"$out/addrs1" 2>/dev/null
	[ -s "$out/addrs1" ] || awk -F'\t' 'function h(s,  i, n) {
		s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n }
	    $3 ~ /PROC32$/ { print $1; printf "0x%x\n", h($1) + int($4 / 2) }' \
	    "$dir/$name.oracle.tsv" >"$out/addrs1"
	for i in 1 2 3 4 5 6 7 8 9 10; do cat "$out/addrs1"; done >"$out/addrs"
	n=$(wc -l <"$out/addrs" | tr -d ' ')
	t0=$(date +%s.%N)
	etlsym -e "$dir/$name.exe" -i <"$out/addrs" >"$out/etlsym.out"
	t1=$(date +%s.%N)
	"$llvm" --obj="$dir/$name.exe" --relative-address --inlines \
	    <"$out/addrs" >"$out/llvm.out" 2>/dev/null
	t2=$(date +%s.%N)
	awk -v n="$n" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
		e = b - a; l = c - b
		printf "etlsym -e -i: %d addresses in %.3f s (%.0f/s); " \
		    "llvm-symbolizer --inlines: %.3f s (%.0f/s); %.1fx\n",
		    n, e, n / e, l, n / l, l / e }'
	if command -v etlsynth >/dev/null; then
		etlsynth --events 2000000 --seed 1 --pdb \
		    "rustc_driver-6a4f21c5a1e9d7b3.dll=$dir/$name.pdb" \
		    -o "$out/pdb.etl" 2>/dev/null &&
		    etlcat -q -o "$out/pdb.zst" "$out/pdb.etl" || return
		mkdir -p "$out/sym" && cp "$dir/$name.pdb" "$out/sym/"
		rm -f "$out/pdb.etl"
		bytes=$(wc -c <"$out/pdb.zst")
		run "etlcat -f (a stream of $((bytes / 1000000)) MB, 2 M events)" \
		    "etlcat -q -f '$out/pdb.zst'" pass
		run "etlsym -y DIR (its rustc_driver PDB in DIR)" \
		    "etlsym -q -f -y '$out/sym' '$out/pdb.zst'" sym
		awk -v a="$secs_pass" -v b="$secs_sym" 'BEGIN {
			printf "etlsym: %.2fx the time of passing the stream " \
			    "through etlcat\n", b / a }'
	fi
}
sym_bench
