#!/bin/sh
# The names of every table's columns: every view of etlagg --help, with
# its defaults and with each key of its --by, alone and under --diff (the
# views that join: etlagg's --diff, and queries' own), over the sample
# trace and the sample rustc profile.
# - No table names a column twice.  A name met twice is a column a
#   spreadsheet, DuckDB's read_csv_auto and a JSON Lines reader cannot
#   tell apart (etlagg waits --by reason once wrote "reason,reason").
#   The header is the CSV's, written for a table even when it has no
#   row, so every table has one here.
# - The one rule for units (etl-stream(5), "Column Names"; issue 34): a
#   unit's word last in a name and nowhere else (cpu_base_ms, never
#   cpu_ms_base_ms or peak_commit_bytes_base_b), every --diff X_base
#   with its X, X_delta and X_delta_pct, JSON Lines keys the CSV's (a
#   time since the start in ns: start_ns for start_s), and the text's
#   headers the names without their unit word, the unit once in
#   parentheses (cpu (ms), never cpu_ms (ms)): tests/units.py names.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
if ! command -v python3 >/dev/null; then
	skip columns "no python3 to read the tables (apt-get install python3)"
	exit 0
fi
etlcat -q -o "$tmp/s.zst" "$top/testdata/sample.etl" 2>/dev/null &&
    etlcat -q -o "$tmp/p.zst" \
    "$top/testdata/selfprofile/tiny-0030637.mm_profdata" 2>/dev/null ||
    { fail columns "etlcat failed on the test data"; exit 0; }

# The views --diff joins, as etlagg --help names them.
diffs=$(etlagg --help | sed -n '/^  --diff base/,/:/p' | tr '\n' ' ' |
    sed 's/.*--diff base *of \([^:]*\):.*/\1/; s/ or /, /' | tr -d ',' |
    xargs)
[ -n "$diffs" ] || fail columns-diff-views "etlagg --help names no view for --diff"

# check NAME ARGS...: every CSV header of etlagg ARGS over both inputs
# names each column once, and the CSV, JSON Lines and text follow the
# rule for units; says the repeated names and the breaches.
check() {
	name=$1
	shift
	seen=0 twice= breach=
	for in in s p; do
		rm -rf "$tmp/t" && mkdir "$tmp/t"
		etlagg -q "$@" "$tmp/$in.zst" >"$tmp/t/t.zst" 2>/dev/null
		etlreport -q -f csv -o "$tmp/t/t.csv" "$tmp/t/t.zst" 2>/dev/null
		etlreport -q -f jsonl -o "$tmp/t/t.jsonl" "$tmp/t/t.zst" \
		    2>/dev/null
		etlreport -q -f text -o "$tmp/t/t.txt" "$tmp/t/t.zst" 2>/dev/null
		for f in "$tmp"/t/*.csv; do
			[ -s "$f" ] || continue
			seen=$((seen + 1))
			d=$(head -1 "$f" | csv_lf | tr ',' '\n' | sort | uniq -d |
			    xargs)
			[ -z "$d" ] || twice="$twice $in:${f##*/}: $d;"
		done
		[ -f "$tmp/t/t.jsonl" ] || : >"$tmp/t/t.jsonl"
		[ -f "$tmp/t/t.txt" ] || : >"$tmp/t/t.txt"
		b=$(python3 "$top/tests/units.py" names "$tmp/t" 2>&1 |
		    tr '\n' ';')
		[ -z "$b" ] || breach="$breach $in: $b"
	done
	if [ $seen = 0 ]; then
		fail "$name" "etlagg $* wrote no table"
	elif [ -n "$twice" ]; then
		fail "$name" "a column named twice:$twice"
	elif [ -n "$breach" ]; then
		fail "$name-units" "$breach"
	else
		pass "$name"
	fi
}

n=0
for view in $(etlagg --help | sed -n 's/^  \([a-z]*\)\( .*\)*$/\1/p'); do
	bys=$(etlagg --help | grep "^  $view\( \|$\)" |
	    sed -n 's/.*--by \([a-z|]*\).*/\1/p' | tr '|' ' ')
	for by in "" $bys; do
		set -- "$view" ${by:+--by "$by"}
		check "columns-$view${by:+-$by}" "$@"
		n=$((n + 1))
		# etlagg --diff, or the view's own (queries).
		case " $diffs " in
		*" $view "*)
			check "columns-$view${by:+-$by}-diff" --diff \
			    "$tmp/s.zst" "$@"
			;;
		esac
		if etlagg --help | grep "^  $view " | grep -q -- '--diff base'
		then
			check "columns-$view${by:+-$by}-diff" "$@" --diff \
			    "$tmp/p.zst"
		fi
	done
done
# All the views and the keys of waits at least (the one that repeated).
[ $n -ge 30 ] && pass "columns-views ($n)" ||
    fail columns-views "$n views and keys in etlagg --help, expected 30 or more"
