#!/bin/sh
# etlreport's text format draws the tables of etlagg queries as measureme's
# `summarize summarize` prints them: for every profile of the corpus
# (../shared/corpus/selfprofile) with an expected summarize.txt, the
# output must equal it byte for byte.  Summarize orders rows tied on self
# time as a hash map happens to (measureme-format.md 8.2), so where the
# bytes differ the check is repeated with each run of rows of exactly the
# same self time (in ns, from the view's table) sorted in both; all else
# must still be equal.
# Skips when the corpus is absent.

. "$(dirname "$0")/../testlib.sh"

sp=$ETL_CORPUS/selfprofile
tab=$(printf '\t')

# "label<TAB>self_ns" for each row of the queries table of stream $1.
self_ns() {
	etlreport -f csv "$1" | csv_lf | awk 'NF == 0 { exit } NR > 1 {
		n = split($0, f, ",")
		label = $0
		for (i = 0; i < 8; i++)
			sub(/,[^,]*$/, "", label)
		if (label ~ /^"/) {
			label = substr(label, 2, length(label) - 2)
			gsub(/""/, "\"", label)
		}
		print label "\t" f[n - 7]
	}'
}

# Text $2 with each run of query rows tied on self time sorted.  The rows
# are those after the second rule line and before the third; $1 gives
# the self time of each item in nanoseconds.
ties_sorted() {
	awk -F'|' 'FILENAME == ARGV[1] {
		split($0, m, "\t")
		ns[m[1]] = m[2]
		next
	}
	/^\+/ { rules++ }
	rules == 2 && /^\|/ {
		item = $2
		sub(/^ /, "", item)
		sub(/ \.* *$/, "", item)
		key = item in ns ? ns[item] : "none " NR
		if (key != last)
			group = FNR
		last = key
		printf "%09d\t%s\n", group, $0
		next
	}
	{ last = ""; printf "%09d\t%s\n", FNR, $0 }' "$1" "$2" |
	    LC_ALL=C sort -t "$tab" -k1,1 -k2 | cut -f2-
}

if [ ! -d "$sp/expected" ]; then
	skip summarize-text "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
	exit 0
fi
for dir in "$sp"/expected/*/; do
	name=$(basename "$dir")
	want=$dir/summarize.txt
	[ -f "$want" ] || continue
	set -- "$sp/$name"/*.mm_profdata
	if ! etlcat "$1" 2>"$tmp/err" | etlagg queries >"$tmp/q.zst" \
	    2>>"$tmp/err" || ! etlreport "$tmp/q.zst" >"$tmp/$name.txt" \
	    2>>"$tmp/err" || [ -s "$tmp/err" ]; then
		fail "summarize-text-$name" "$(cat "$tmp/err")"
	elif cmp -s "$tmp/$name.txt" "$want"; then
		pass "summarize-text-$name"
	else
		self_ns "$tmp/q.zst" >"$tmp/ns"
		ties_sorted "$tmp/ns" "$tmp/$name.txt" >"$tmp/ours"
		ties_sorted "$tmp/ns" "$want" >"$tmp/theirs"
		if cmp -s "$tmp/ours" "$tmp/theirs"; then
			pass "summarize-text-$name"
		else
			fail "summarize-text-$name" "$(diff "$tmp/theirs" \
			    "$tmp/ours" | head -5)"
		fi
	fi
done

# Other tables keep the generic layout around the view's (which is not
# counted as a table before them: no empty line after it).
etlcat "$sp/b-medium"/*.mm_profdata >"$tmp/b.zst"
etlagg queries "$tmp/b.zst" >"$tmp/bq.zst"
etlagg stats "$tmp/b.zst" >"$tmp/bs.zst"
etlreport "$tmp/bs.zst" >"$tmp/stats.txt"
etlreport "$tmp/bq.zst" >"$tmp/queries.txt"
cat "$tmp/bs.zst" "$tmp/bq.zst" "$tmp/bs.zst" | etlreport >"$tmp/mixed.txt"
{
	cat "$tmp/stats.txt" "$tmp/queries.txt"
	echo
	cat "$tmp/stats.txt"
} >"$tmp/mixed-want.txt"
if [ -s "$tmp/stats.txt" ] && grep -q '^Total cpu time: ' "$tmp/mixed.txt" &&
    cmp -s "$tmp/mixed.txt" "$tmp/mixed-want.txt"; then
	pass summarize-text-mixed
else
	fail summarize-text-mixed "$(diff "$tmp/mixed-want.txt" \
	    "$tmp/mixed.txt" | head -5)"
fi

# The other formats are not summarize's.
etlreport -f csv "$tmp/bq.zst" | csv_lf | sed -n 1p >"$tmp/csv-head"
check_eq summarize-not-csv "$(cut -d, -f1-3 "$tmp/csv-head")" \
    "item,self_ns,self_pct"
etlagg queries --diff "$tmp/b.zst" "$tmp/b.zst" | etlreport >"$tmp/diff.txt"
# The --diff tables are summarize diff's: its columns, signed times and
# changes; against itself, every change is zero.
check_eq summarize-diff-columns "$(sed -n 2p "$tmp/diff.txt" | tr -s ' ')" \
    "| Item | Self Time | Self Time Change | Time | Time Change | Item count \
| Cache hits | Blocked time | Incremental load time | Incremental hashing \
time |"
check_eq summarize-diff-zero "$(awk -F' *[|] *' 'NR > 3 && NF > 10 {
    print $3 " " $5 " " $7 " " $8 " " $9 }' "$tmp/diff.txt" | sort -u |
    tr '\n' ' ')" "+0ns +0ns +0 +0 +0ns "
check_eq summarize-diff-change "$(awk -F' *[|] *' 'NR > 3 && NF > 10 {
    print $4 }' "$tmp/diff.txt" | sort -u | tr '\n' ' ')" "+0.00% NaN% "
grep -q '^Total cpu time: +0ns$' "$tmp/diff.txt" &&
    pass summarize-diff-total || fail summarize-diff-total "no signed total"
