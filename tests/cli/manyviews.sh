#!/bin/sh
# etlagg with several views joined by +: one pass over the input, and
# the bytes that separate runs of each view write, one after the other,
# on the sample, on etlsynth traces (a trace named directly and a stream
# on standard input), with view options before and after the files, and
# with --merge; etlreport reads the output as the separate outputs.
# Then the misuses: + with no view before or after it.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}

# same NAME INPUT VIEW...: the views (words, "+" between them) on INPUT
# against separate runs.
same() {
	name=$1 input=$2
	shift 2
	: >"$tmp/want"
	view=""
	for w in "$@" +; do
		if [ "$w" = + ]; then
			# shellcheck disable=SC2086
			etlagg $view "$input" 2>/dev/null >>"$tmp/want"
			view=""
		else
			view="$view $w"
		fi
	done
	etlagg "$@" "$input" 2>/dev/null >"$tmp/got"
	same_file "manyviews-$name" "$tmp/got" "$tmp/want"
}

views='crates + processes + tree + cpu --by stack + vmem --timeline + threads + waits --by stack + stats + sysconfig'
# shellcheck disable=SC2086
same sample "$top/testdata/sample.etl" $views

if command -v etlsynth >/dev/null; then
	etlsynth --scenario rustc-build --events 30000 --seed 7 \
	    --pointer-size 4 --compress -o "$tmp/b.etl" >/dev/null
	etlsynth --scenario memory -o "$tmp/m.etl" >/dev/null
	# shellcheck disable=SC2086
	same synth-compressed "$tmp/b.etl" $views
	same synth-memory "$tmp/m.etl" vmem + heap --by stack + heapsnap + \
	    vmem --by function + crates --by crate
	etlcat -q -f -o "$tmp/b.zst" "$tmp/b.etl"
	# A stream on standard input; the files and options anywhere.
	etlagg cpu --by function <"$tmp/b.zst" 2>/dev/null >"$tmp/want"
	etlagg crates <"$tmp/b.zst" 2>/dev/null >>"$tmp/want"
	etlagg cpu + crates --by crate <"$tmp/b.zst" 2>/dev/null >/dev/null
	etlagg --by crate crates + cpu --by function <"$tmp/b.zst" \
	    2>/dev/null >/dev/null
	etlagg cpu - --by function + crates <"$tmp/b.zst" 2>/dev/null \
	    >"$tmp/got"
	same_file manyviews-stdin-files-anywhere "$tmp/got" "$tmp/want"
	# Rendered, the sections are the tables of the separate runs.
	etlagg processes "$tmp/b.zst" 2>/dev/null | etlreport 2>/dev/null \
	    >"$tmp/want"
	etlagg crates "$tmp/b.zst" 2>/dev/null | etlreport 2>/dev/null \
	    >>"$tmp/want"
	etlagg processes + crates "$tmp/b.zst" 2>/dev/null |
	    etlreport 2>/dev/null >"$tmp/got"
	check_eq manyviews-rendered-tables \
	    "$(grep -c '^\(processes\|crates\)$' "$tmp/got")" 2
	# --merge of a many-view output, view by view.
	etlagg processes + crates -o "$tmp/t.zst" "$tmp/b.zst" 2>/dev/null
	etlagg --merge processes + crates --merge -o "$tmp/tm.zst" \
	    "$tmp/t.zst" 2>/dev/null
	check_eq manyviews-merge "$?" 0
	etlagg processes --merge "$tmp/t.zst" 2>/dev/null >"$tmp/want"
	etlagg crates --merge "$tmp/t.zst" 2>/dev/null >>"$tmp/want"
	same_file manyviews-merge-same "$tmp/tm.zst" "$tmp/want"
fi

etlagg crates + "$top/testdata/sample.etl" >/dev/null 2>"$tmp/err"
st=$?
check_eq manyviews-plus-last "$st $(head -1 "$tmp/err")" \
    "2 etlagg: unknown view '$top/testdata/sample.etl'"
etlagg crates + >/dev/null 2>"$tmp/err"
check_eq manyviews-no-view-after "$? $(head -1 "$tmp/err")" \
    "2 etlagg: no view after +"
etlagg + crates >/dev/null 2>"$tmp/err"
check_eq manyviews-no-view-before "$? $(head -1 "$tmp/err")" \
    "2 etlagg: no view before +"
etlagg crates + processes --timeline "$top/testdata/sample.etl" \
    >/dev/null 2>"$tmp/err"
check_eq manyviews-options-are-the-views "$? $(head -1 "$tmp/err")" \
    "2 etlagg: view processes has no option --timeline"
