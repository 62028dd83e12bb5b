#!/bin/sh
# No table names a column twice: every view of etlagg --help, with its
# defaults and with each key of its --by, alone and under --diff (the
# views that join: etlagg's --diff, and queries' own), over the sample
# trace and the sample rustc profile.
# A name met twice is a column a spreadsheet, DuckDB's read_csv_auto
# and a JSON Lines reader cannot tell apart (etlagg waits --by reason
# once wrote "reason,reason").  The header is the CSV's, written for a
# table even when it has no row, so every table has one here.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
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
# names each column once; says the repeated names.
check() {
	name=$1
	shift
	rm -rf "$tmp/csv" && mkdir "$tmp/csv"
	for in in s p; do
		etlagg -q "$@" "$tmp/$in.zst" 2>/dev/null |
		    etlreport -q -f csv -o "$tmp/csv/$in.csv" 2>/dev/null
	done
	seen=0 twice=
	for f in "$tmp"/csv/*.csv; do
		[ -s "$f" ] || continue
		seen=$((seen + 1))
		d=$(head -1 "$f" | csv_lf | tr ',' '\n' | sort | uniq -d | xargs)
		[ -z "$d" ] || twice="$twice ${f##*/}: $d;"
	done
	if [ $seen = 0 ]; then
		fail "$name" "etlagg $* wrote no table"
	elif [ -n "$twice" ]; then
		fail "$name" "a column named twice:$twice"
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
