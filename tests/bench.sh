#!/bin/sh
# make bench: two kinds of figures.
#
# Instructions per event (valgrind --tool=callgrind), on small fixed
# traces: testdata/sample.etl and an etlsynth trace with plain buffers.
# They do not depend on the machine's speed or load, so a change in them
# is a change in the code (or in the compiler, libc or libzstd); they
# skip with a message when valgrind is absent.
#
# Throughput of the tools on synthetic rustc-build traces, one with
# compressed buffers and one with plain buffers (1 GiB each by default;
# BENCH_SIZE=bytes to change), next to cat and zstd -1 over the same
# file, with the peak RSS of each stage, and the ratios of etlcat and of
# the 4-stage pipeline to zstd -1 against issue 13's targets (etlcat
# 1.0x on plain buffers, 1.5x on compressed ones; the pipeline 1.5x on
# plain buffers).  The traces are made once by etlsynth and kept in
# build/bench/.
#
# Usage: sh tests/bench.sh [trace.etl]
#   With a trace: the throughput figures of that trace only.
#   BENCH_SIZE=bytes      size of the generated traces (default 1 GiB)
#   BENCH_RUNS=n          time each command n times, keep the best
#                         (default 3); the commands of a table take
#                         turns, so that a busy moment of the machine
#                         does not fall on one of them only
#   BENCH_PARTS="..."     which parts to run: instructions, timing,
#                         views (memory views beside cpu), report
#                         (pipelines/rustc-report.sh against etlcat
#                         alone, issue 25's target 1.5x), waits
#                         (context switches), symbols (etlsym against
#                         llvm-symbolizer), measureme (rustc profiles
#                         against measureme's summarize, stack_collapse
#                         and crox), diff (etlagg --diff against the
#                         two views it runs), twins (the .ps1 pipelines
#                         against their .sh), timeline (etlagg timeline
#                         + cpu --by query over a build and its
#                         self-profiles against etlcat of them, issue
#                         35's target 1.3x, and the report's Timeline
#                         tab in Chromium); default all
#   BENCH_WAITS_SIZE=bytes  size of the context-switch trace (64 MiB)
#   MEASUREME_BIN=dir     where measureme's tools are (default: PATH)
#   BENCH_RUST_SRC=file   the crate (lib.rs, edition 2018, no
#                         dependencies) whose rustc self-profile is the
#                         large profile of the measureme part

top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:$top/build:$PATH
size=${BENCH_SIZE:-1073741824}
runs=${BENCH_RUNS:-3}
parts=${BENCH_PARTS:-instructions timing views report waits symbols measureme diff twins timeline}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM

timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time

# The pipeline of issue 13's second target, after etlcat.
filter_args="-p rustc"
agg_args="cpu --by stack"
report_args="-f folded"

# events TRACE: the number of events etlcat decodes from TRACE.
events() {
	etlcat -q "$1" 2>/dev/null | etlagg stats 2>/dev/null |
	    etlreport -f csv 2>/dev/null | tr -d '\r' |
	    awk -F, 'NR > 1 { s += $NF } END { print s + 0 }'
}

# gen_trace FILE ARGS...: makes FILE with etlsynth unless it is there.
gen_trace() {
	file=$1
	shift
	[ -f "$file" ] && return 0
	command -v etlsynth >/dev/null ||
	    { echo "bench: no etlsynth (make build/etlsynth)" >&2; return 1; }
	mkdir -p "$(dirname "$file")"
	echo "bench: generating $file" >&2
	etlsynth --scenario rustc-build "$@" -o "$file" >/dev/null ||
	    { rm -f "$file"; return 1; }
}

# ---- Instructions per event ----

# instr CMD...: the instructions CMD runs, its output to $out/stage.
instr() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	    --log-file="$out/vg.log" "$@" >"$out/stage" 2>/dev/null
	awk '/Collected :/ { print $NF }' "$out/vg.log"
}

# instr_row NAME EVENTS CMD...: one line of the table.
instr_row() {
	name=$1 ev=$2
	shift 2
	n=$(instr "$@")
	printf '%-44s %14s %10s\n' "$name" "$n" \
	    "$(awk -v n="$n" -v e="$ev" 'BEGIN {
		if (n == "" || e == 0) print "n/a"; else printf "%.0f", n / e }')"
}

# instructions_of TRACE: etlcat, then each stage of the pipeline over the
# output of the stage before it, kept in files, so each counts alone.
instructions_of() {
	ev=$(events "$1")
	echo "$(basename "$1"): $ev events, $(wc -c <"$1" | tr -d ' ') bytes"
	printf '%-44s %14s %10s\n' stage instructions "per event"
	instr_row "etlcat" "$ev" etlcat -q "$1"
	mv "$out/stage" "$out/s1"
	instr_row "etlfilter $filter_args" "$ev" etlfilter -q $filter_args \
	    "$out/s1"
	mv "$out/stage" "$out/s2"
	instr_row "etlagg $agg_args" "$ev" etlagg -q $agg_args "$out/s2"
	mv "$out/stage" "$out/s3"
	instr_row "etlreport $report_args" "$ev" etlreport -q $report_args \
	    "$out/s3"
	instr_row "etlagg stats (of etlcat's stream)" "$ev" etlagg -q stats \
	    "$out/s1"
	instr_row "zstd -1 (of the .etl)" "$ev" zstd -1 -q -c "$1"
	rm -f "$out"/s[123] "$out/stage"
}

bench_instructions() {
	if ! command -v valgrind >/dev/null; then
		echo "bench: no valgrind: instructions per event skipped" \
		    "(apt-get install valgrind)"
		return 0
	fi
	synth=$top/build/bench/ipe-20000-plain.etl
	gen_trace "$synth" --events 20000 --seed 1 || return 1
	echo "== instructions per event (valgrind --tool=callgrind)"
	instructions_of "$top/testdata/sample.etl"
	echo
	instructions_of "$synth"
	echo
}

# ---- Throughput ----

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

# want NAME PIPELINE VAR: a row for rows() to time.
want() {
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$out/rows"
}

# once PIPELINE VAR: times PIPELINE once; keeps the least time in
# secs_VAR and the peak RSS of its stages in that run in rss_VAR.
once() {
	rm -f "$out"/rss.*
	start=$(date +%s.%N)
	sh -c "$(staged "$1")" >/dev/null 2>"$out/err" </dev/null ||
	    echo "bench: $1 failed: $(head -c 200 "$out/err")" >&2
	end=$(date +%s.%N)
	t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')
	r=$(cat "$out"/rss.* 2>/dev/null |
	    awk '{ printf "%s%d", (NR > 1 ? "+" : ""), $2 / 1024 }')
	rm -f "$out"/rss.*
	eval "best=\${secs_$2:-}"
	if [ -z "$best" ] ||
	    awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
		eval "secs_$2=\$t rss_$2=\$r"
	fi
}

# rows: times the rows wanted, each once a round for $runs rounds and
# the rows in turn, so that a busy moment of the machine falls on all of
# them alike, not on one command's runs; then prints each row: the best
# time, the throughput of $bytes and the peak RSS of each stage, and
# keeps the seconds in secs_VAR.
rows() {
	tab=$(printf '\t')
	while IFS=$tab read -r name cmd var; do
		eval "secs_$var="
	done <"$out/rows"
	i=0
	while [ $i -lt "$runs" ]; do
		while IFS=$tab read -r name cmd var; do
			once "$cmd" "$var"
		done <"$out/rows"
		i=$((i + 1))
	done
	while IFS=$tab read -r name cmd var; do
		eval "secs=\$secs_$var rss=\$rss_$var"
		printf '%-58s %8s s %9.1f MB/s %12s MB\n' "$name" "$secs" \
		    "$(awk -v b="$bytes" -v s="$secs" 'BEGIN { print b / 1e6 / s }')" \
		    "${rss:-n/a}"
	done <"$out/rows"
	rm -f "$out/rows"
}

# run NAME PIPELINE VAR: one row alone.
run() {
	want "$@"
	rows
}

# ratio NAME SECS TARGET: NAME's time against zstd -1's, and the target
# (none if -).
ratio() {
	awk -v n="$1" -v a="$2" -v z="$secs_zstd" -v t="$3" 'BEGIN {
		r = a / z
		printf "  %-22s %5.2fx zstd -1", n, r
		if (t != "-")
			printf " (target %sx: %s)", t,
			    r <= t ? "met" : "not met"
		printf "\n" }'
}

# timing_of TRACE TARGET PIPELINE-TARGET: the timing table of TRACE and
# the ratios to zstd -1 of etlcat and of the 4-stage pipeline.
timing_of() {
	trace=$1
	bytes=$(wc -c <"$trace")
	mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
	cat "$trace" >/dev/null	# warm the page cache for every run alike
	ev=$(events "$trace")
	echo "trace: $trace, $mb MB, $ev events"
	printf '%-58s %10s %14s %13s\n' command time throughput "peak RSS"
	want "cat" "cat '$trace'" cat
	want "zstd -1" "zstd -1 -q -c '$trace'" zstd
	want "etlcat" "etlcat -q '$trace'" etlcat
	want "etlcat on one thread (ETL_THREADS=1)" \
	    "env ETL_THREADS=1 etlcat -q '$trace'" etlcat1
	want "etlcat | etlagg stats | etlreport -f csv" \
	    "etlcat -q '$trace' | etlagg stats | etlreport -f csv" stats
	want "etlcat | etlfilter $filter_args | etlagg $agg_args | etlreport $report_args" \
	    "etlcat -q '$trace' | etlfilter $filter_args | etlagg $agg_args | etlreport $report_args" \
	    cpu
	want "etlfilter TRACE | etlagg $agg_args | etlreport $report_args" \
	    "etlfilter $filter_args '$trace' | etlagg $agg_args | etlreport $report_args" \
	    cpu3
	rows
	awk -v e="$ev" -v a="$secs_etlcat" 'BEGIN {
		printf "etlcat: %.2f M events/s\n", e / a / 1e6 }'
	ratio etlcat "$secs_etlcat" "$2"
	ratio "4-stage pipeline" "$secs_cpu" "$3"
	ratio "the same, trace direct" "$secs_cpu3" -
	echo
}

bench_timing() {
	echo "machine: $(nproc) cores, $(uname -sm), $(date -u +%Y-%m-%d)"
	if [ $# -gt 0 ]; then
		timing_of "$1" 1.0 1.5
		return
	fi
	plain=$top/build/bench/rustc-build-$size-plain.etl
	comp=$top/build/bench/rustc-build-$size.etl
	gen_trace "$plain" --size "$size" --seed 1 || return 1
	gen_trace "$comp" --size "$size" --seed 1 --compress || return 1
	echo "== plain buffers"
	timing_of "$plain" 1.0 1.5
	echo "== compressed buffers"
	timing_of "$comp" 1.5 -
}

# ---- The views alone ----

# The memory views beside cpu, each alone on the compressed trace decoded
# once, so that they compare without the decoding.
bench_views() {
	comp=$top/build/bench/rustc-build-$size.etl
	gen_trace "$comp" --size "$size" --seed 1 --compress || return 1
	etlcat -q -o "$out/trace.zst" "$comp" ||
	    { echo "bench: etlcat failed" >&2; return 1; }
	bytes=$(wc -c <"$out/trace.zst")
	echo "== the views on the decoded stream of $comp"
	for view in "cpu --by stack" "vmem --by stack" "heap --by stack"; do
		run "etlagg $view (decoded stream)" \
		    "etlagg $view '$out/trace.zst'" \
		    "view_$(echo "$view" | cut -d' ' -f1)"
	done
	rm -f "$out/trace.zst"
	echo
}

# ratio_to NAME SECS BASE: NAME's time against etlcat's (1.5x the target).
ratio_to() {
	awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN {
		r = a / b
		s = r <= 1.5 ? "met" : "not met"
		printf "  %-22s %5.2fx etlcat (target 1.5x: %s)\n", n, r, s }'
}

# ratio_target NAME SECS BASE-SECS TARGET: NAME's time against etlcat's.
ratio_target() {
	awk -v n="$1" -v a="$2" -v b="$3" -v t="$4" 'BEGIN {
		r = a / b
		printf "  %-30s %5.2fx etlcat (target %sx: %s)\n", n, r, t,
		    r <= t ? "met" : "not met" }'
}

# The timeline joined to rustc's queries (issue 35), on a compressed
# build with self-profiles (etlsynth --self-profile, kept in
# build/bench/): etlagg timeline + cpu --by query over the trace and its
# profiles against etlcat of them alone (target 1.3x); then the report
# with -p, whose Timeline tab, in headless Chromium, is timed from its
# loading to its first drawing, and a zoom to its redrawing.
bench_timeline() {
	trace=$top/build/bench/rustc-build-$size-prof.etl
	prof=$trace.prof
	[ -d "$prof" ] || rm -f "$trace"
	gen_trace "$trace" --size "$size" --seed 1 --compress \
	    --self-profile "$prof" || return 1
	bytes=$(cat "$trace" "$prof"/*.mm_profdata | wc -c)
	cat "$trace" "$prof"/*.mm_profdata >/dev/null
	echo "== the timeline and the query join: $trace and" \
	    "$(ls "$prof" | wc -l | tr -d ' ') profiles"
	want "etlcat (trace and profiles)" \
	    "etlcat -q '$trace' '$prof'/*.mm_profdata" tcat
	want "etlagg timeline + cpu --by query" \
	    "etlagg -q timeline + cpu --by query '$trace' '$prof'/*.mm_profdata" \
	    tjoin
	rows
	ratio_target "timeline + cpu --by query" "$secs_tjoin" "$secs_tcat" 1.3
	start=$(date +%s.%N)
	sh "$top/pipelines/rustc-report.sh" -p "$prof" -o "$out/t.html" \
	    "$trace" >/dev/null 2>"$out/err" ||
	    { echo "bench: rustc-report.sh -p failed: $(head -c 200 \
	    "$out/err")"; return 0; }
	end=$(date +%s.%N)
	echo "  rustc-report.sh -p: $(awk -v a="$start" -v b="$end" \
	    'BEGIN { printf "%.1f", b - a }') s, page $(wc -c <"$out/t.html" |
	    tr -d ' ') bytes"
	if command -v node >/dev/null && set -- $(node \
	    "$top/tests/timeline-page.js" "$out/t.html" 2>"$out/err"); then
		echo "  Timeline tab in Chromium: first drawing $1 ms after" \
		    "loading began, a zoom $2 ms; $3 lanes"
	else
		echo "  Timeline tab: not timed ($(head -c 200 "$out/err"))"
	fi
	echo
}

# The build report, from the trace to the page, against etlcat alone on
# the same trace (issue 25: at most 1.5 times as long), on both traces.
bench_report() {
	for t in plain compressed; do
		trace=$top/build/bench/rustc-build-$size.etl
		[ $t = plain ] && trace=$top/build/bench/rustc-build-$size-plain.etl
		gen_trace "$trace" --size "$size" --seed 1 \
		    $([ $t = compressed ] && echo --compress) || return 1
		bytes=$(wc -c <"$trace")
		cat "$trace" >/dev/null
		echo "== the build report, $t buffers: $trace"
		want "etlcat" "etlcat -q '$trace'" etlcat
		want "rustc-report.sh (the build's processes)" \
		    "sh '$top/pipelines/rustc-report.sh' -o '$out/r.html' '$trace'" \
		    report
		want "rustc-report.sh -a (every process)" \
		    "sh '$top/pipelines/rustc-report.sh' -a -o '$out/a.html' '$trace'" \
		    report_a
		rows
		ratio_to "rustc-report.sh" "$secs_report" "$secs_etlcat"
		ratio_to "rustc-report.sh -a" "$secs_report_a" "$secs_etlcat"
		echo "  page: $(wc -c <"$out/r.html" | tr -d ' ') bytes," \
		    "-a: $(wc -c <"$out/a.html" | tr -d ' ') bytes"
		echo
	done
}

# Context switches: etlagg threads and waits --by stack on a synthetic
# schedule (etlsynth --scenario waits; BENCH_WAITS_SIZE bytes, 64 MiB by
# default), made once and kept in build/bench/.
bench_waits() {
	wsize=${BENCH_WAITS_SIZE:-67108864}
	wtrace=$top/build/bench/waits-$wsize.etl
	command -v etlsynth >/dev/null ||
	    { echo "bench: no etlsynth: waits skipped"; return 0; }
	if [ ! -f "$wtrace" ]; then
		mkdir -p "$(dirname "$wtrace")"
		echo "bench: generating $wtrace ($wsize bytes)" >&2
		etlsynth --scenario waits --size "$wsize" --seed 1 \
		    -o "$wtrace" || return 1
	fi
	bytes=$(wc -c <"$wtrace")
	cat "$wtrace" >/dev/null
	etlcat -q -o "$out/waits.zst" "$wtrace"
	echo "== context switches: $wtrace, $(awk -v b="$bytes" 'BEGIN {
	    printf "%.1f", b / 1e6 }') MB; the views read its stream"
	run "etlcat" "etlcat -q '$wtrace'" wcat
	bytes=$(wc -c <"$out/waits.zst")
	run "etlagg threads (stream)" "etlagg threads '$out/waits.zst'" threads
	run "etlagg waits --by stack (stream)" \
	    "etlagg waits --by stack '$out/waits.zst'" waits
	echo
}

# Address mode against llvm-symbolizer --inlines, on the same PDB and the
# same addresses (every procedure's start and middle of the corpus's
# rustc-built PDB, ten times over), and etlsym on the stream of a trace
# whose rustc_driver DLL has that PDB.
bench_symbols() {
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

# ---- rustc profiles against measureme ----

# measureme's tools, from $MEASUREME_BIN or PATH; "" if one is missing.
measureme_tools() {
	for tool in summarize stack_collapse crox; do
		if [ -n "${MEASUREME_BIN:-}" ]; then
			[ -x "$MEASUREME_BIN/$tool" ] || return 1
		else
			command -v $tool >/dev/null || return 1
		fi
	done
}

# mm TOOL: the path of measureme's TOOL.
mm() {
	if [ -n "${MEASUREME_BIN:-}" ]; then
		echo "$MEASUREME_BIN/$1"
	else
		command -v "$1"
	fi
}

# A real profile larger than the corpus's: rustc -Z self-profile of a
# crate of some 30,000 lines (regex-syntax, as Debian's
# librust-regex-syntax-dev installs it, or BENCH_RUST_SRC), optimized,
# with query keys and cache hits (5 M events, some 200 MB), recorded once
# into build/bench/selfprofile/.  Prints its path, or nothing when there
# is no rustc or no source.
big_profile() {
	dir=$top/build/bench/selfprofile
	set -- "$dir"/*.mm_profdata
	[ -f "$1" ] && { echo "$1"; return; }
	src=${BENCH_RUST_SRC:-}
	if [ -z "$src" ]; then
		for f in /usr/share/cargo/registry/regex-syntax-*/src/lib.rs; do
			[ -f "$f" ] && src=$f
		done
	fi
	rustc=$(command -v rustc || echo "$HOME/.cargo/bin/rustc")
	if [ -z "$src" ] || [ ! -f "$src" ] || [ ! -x "$rustc" ]; then
		echo "bench: no rustc or no crate to profile (BENCH_RUST_SRC):" \
		    "the corpus's profiles only" >&2
		return 0
	fi
	mkdir -p "$dir"
	echo "bench: recording the rustc self-profile of $src" >&2
	RUSTC_BOOTSTRAP=1 "$rustc" --edition 2018 --crate-type lib \
	    --crate-name bench_profile -C opt-level=2 \
	    -Z self-profile="$dir" \
	    -Z self-profile-events=default,query-keys,args,query-cache-hit \
	    -o "$out/libbench_profile.rlib" "$src" >/dev/null 2>&1 ||
	    { echo "bench: rustc could not build $src" >&2; rm -rf "$dir";
	    return 0; }
	rm -f "$out/libbench_profile.rlib"
	set -- "$dir"/*.mm_profdata
	[ -f "$1" ] && echo "$1"
}

# pair NAME THEIRS OURS TARGET: the ratio of measureme's time to ours,
# against the target (ours at least TARGET times as fast).
pair() {
	awk -v n="$1" -v a="$2" -v b="$3" -v t="$4" 'BEGIN {
		r = a / b
		if (t == "-")
			printf "  %-34s %5.2fx as fast (for comparison)\n", n, r
		else
			printf "  %-34s %5.2fx as fast (target %sx: %s)\n", n, \
			    r, t, (r >= t ? "met" : "not met") }'
}

# measureme_of PROFILE: each of measureme's tools beside our pipeline
# for the same output, the whole way from the .mm_profdata file.
# measureme's tools write their files (out.stacks_folded,
# chrome_profiler.json) into the current folder; ours write theirs there
# too, with -o.
measureme_of() {
	p=$1
	prefix=${p%.mm_profdata}
	bytes=$(wc -c <"$p")
	cat "$p" >/dev/null	# warm the page cache for every run alike
	echo "profile: $p, $(awk -v b="$bytes" 'BEGIN {
	    printf "%.1f", b / 1e6 }') MB"
	printf '%-58s %10s %14s %13s\n' command time throughput "peak RSS"
	mkdir -p "$out/mm"
	cd "$out/mm" || return 1
	want "summarize summarize" "'$(mm summarize)' summarize '$prefix'" \
	    mm_sum
	want "etlagg queries | etlreport" \
	    "etlagg queries '$p' | etlreport" mm_q
	want "etlcat | etlagg queries | etlreport" \
	    "etlcat -q '$p' | etlagg queries | etlreport" mm_qp
	want "stack_collapse" "'$(mm stack_collapse)' '$p'" mm_sc
	want "etlreport -f folded" "etlreport -f folded -o q.folded '$p'" mm_f
	want "etlagg querystacks | etlreport -f folded" \
	    "etlagg querystacks '$p' | etlreport -f folded -o q.folded" mm_fq
	want "etlcat | etlagg querystacks | etlreport -f folded" \
	    "etlcat -q '$p' | etlagg querystacks | etlreport -f folded -o q.folded" \
	    mm_fp
	want "crox" "'$(mm crox)' '$p'" mm_crox
	want "etlreport -f chrome" "etlreport -f chrome -o q.json '$p'" mm_c
	want "etlcat | etlreport -f chrome" \
	    "etlcat -q '$p' | etlreport -f chrome -o q.json" mm_cp
	rows
	cd "$top" || return 1
	rm -rf "$out/mm"
	# The targets are for the tools given the profile, which decode it
	# in process, as measureme's do; the other ways, for comparison.
	pair "queries against summarize" "$secs_mm_sum" "$secs_mm_q" 3
	pair "folded against stack_collapse" "$secs_mm_sc" "$secs_mm_f" 1
	pair "chrome against crox" "$secs_mm_crox" "$secs_mm_c" 1
	pair "(through etlcat) queries" "$secs_mm_sum" "$secs_mm_qp" -
	pair "(through querystacks) folded" "$secs_mm_sc" "$secs_mm_fq" -
	pair "(through etlcat) folded" "$secs_mm_sc" "$secs_mm_fp" -
	pair "(through etlcat) chrome" "$secs_mm_crox" "$secs_mm_cp" -
	echo
}

bench_measureme() {
	sp=${ETL_CORPUS:-$top/../shared/corpus}/selfprofile
	if ! measureme_tools; then
		echo "measureme: skipped (no summarize, stack_collapse and crox" \
		    "in ${MEASUREME_BIN:-PATH})"
		return 0
	fi
	echo "== rustc profiles against measureme ($(mm summarize))"
	big=$(big_profile)
	# The corpus's profiles with events, largest first, then the large one.
	for p in $( (ls -S "$sp"/*/*.mm_profdata 2>/dev/null |
	    grep -v /no-events/; echo "$big") | grep .); do
		measureme_of "$p"
	done
}


if [ $# -gt 0 ]; then
	bench_timing "$1"
	exit
fi
# The diff of two builds (issue 26): etlagg --diff against the two views
# it runs, on the decoded streams of two traces of different seeds.  Its
# target: at most the two views' time plus 10%.
bench_diff() {
	a=$top/build/bench/rustc-build-$size.etl
	b=$top/build/bench/rustc-build-$size-seed2.etl
	gen_trace "$a" --size "$size" --seed 1 --compress &&
	    gen_trace "$b" --size "$size" --seed 2 --compress || return 1
	etlcat -q -o "$out/a.zst" "$a" && etlcat -q -o "$out/b.zst" "$b" ||
	    { echo "bench: etlcat failed" >&2; return 1; }
	bytes=$(($(wc -c <"$out/a.zst") + $(wc -c <"$out/b.zst")))
	echo "== etlagg --diff on the decoded streams of $a and its seed 2"
	for view in "cpu --by stack" "processes"; do
		key=$(echo "$view" | tr -c 'a-z\n' '_')
		want "etlagg $view, first" "etlagg $view '$out/a.zst'" "a_$key"
		want "etlagg $view, second" "etlagg $view '$out/b.zst'" "b_$key"
		want "etlagg $view --diff" \
		    "etlagg $view --diff '$out/a.zst' '$out/b.zst'" "d_$key"
		rows	# (it reads into $var)
		eval "one=\$secs_a_$key two=\$secs_b_$key diff=\$secs_d_$key"
		awk -v d="$diff" -v a="$one" -v b="$two" 'BEGIN {
		    printf "%-58s %8.2fx (target 1.10x: %s)\n",
		    "  --diff / the two views", d / (a + b),
		    d / (a + b) <= 1.10 ? "met" : "not met" }'
	done
	rm -f "$out/a.zst" "$out/b.zst"
	echo
}

# The PowerShell twins of the pipelines against their .sh, on the same
# trace (issue 34: at most 1.2 times as long).  PowerShell's own start
# (about half a second here) is in the .ps1's time, as a user waits for
# it.  BENCH_TWINS_SIZE bytes (default: the bench's size).
bench_twins() {
	pwsh=$(command -v pwsh || echo "$HOME/.dotnet/tools/pwsh")
	[ -x "$pwsh" ] ||
	    { echo "bench: no pwsh (.ci/pwsh.sh): twins skipped"; return 0; }
	tsize=${BENCH_TWINS_SIZE:-$size}
	trace=$top/build/bench/rustc-build-$tsize.etl
	gen_trace "$trace" --size "$tsize" --seed 1 --compress || return 1
	bytes=$(wc -c <"$trace")
	cat "$trace" >/dev/null
	echo "== the .ps1 twins against their .sh: $trace"
	for p in processes cpu memory waits report; do
		sh_args="-o '$out/sh'" ps_args="-OutDir '$out/ps'"
		[ $p = report ] && sh_args="-o '$out/sh.html'" \
		    ps_args="-Out '$out/ps.html'"
		# (a want's fields are split at tabs: no tab in a command)
		cmd_sh="sh '$top/pipelines/rustc-$p.sh' $sh_args '$trace'"
		cmd_ps="'$pwsh' -NoProfile -File"
		cmd_ps="$cmd_ps '$top/pipelines/rustc-$p.ps1' '$trace' $ps_args"
		want "rustc-$p.sh" "$cmd_sh" "sh_$p"
		want "rustc-$p.ps1" "$cmd_ps" "ps_$p"
	done
	rows
	for p in processes cpu memory waits report; do
		eval "a=\$secs_sh_$p b=\$secs_ps_$p"
		awk -v a="$a" -v b="$b" -v n="rustc-$p" 'BEGIN {
		    printf "  %-22s %5.2fx its .sh (target 1.2x: %s)\n", n,
		    b / a, b / a <= 1.2 ? "met" : "not met" }'
	done
	echo
}

for part in $parts; do
	case $part in
	twins)		bench_twins ;;
	timeline)	bench_timeline ;;
	instructions)	bench_instructions ;;
	timing)		bench_timing ;;
	views)		bench_views ;;
	report)		bench_report ;;
	waits)		bench_waits ;;
	symbols)	bench_symbols ;;
	measureme)	bench_measureme ;;
	diff)		bench_diff ;;
	*)		echo "bench: unknown part $part" >&2; exit 2 ;;
	esac
done
