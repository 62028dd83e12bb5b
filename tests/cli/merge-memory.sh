#!/bin/sh
# --merge of the memory views (vmem, heap, heapsnap), as many-traces.sh
# uses it: the tables of two traces computed apart, merged, are the
# table of the two traces read as one stream, byte for byte in text, by
# process and by stack, function and module; a table merged alone is
# itself (the timeline too); merged with itself, each count doubles and
# each peak stays.

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip merge-memory "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
etlsynth --scenario memory --pointer-size 4 -o "$tmp/m4.etl" >/dev/null
etlsynth --scenario rustc-build --events 30000 --seed 9 --compress \
    -o "$tmp/b.etl" >/dev/null
etlcat -q -f -o "$tmp/m4.zst" "$tmp/m4.etl"
etlcat -q -f -o "$tmp/b.zst" "$tmp/b.etl"

# same NAME VIEW...: VIEW of both traces as one stream, and merged.
same() {
	name=$1
	shift
	etlagg -q "$@" "$tmp/m4.zst" "$tmp/b.zst" 2>/dev/null |
	    etlreport -f csv 2>/dev/null >"$tmp/want"
	etlagg -q -o "$tmp/t1.zst" "$@" "$tmp/m4.zst" 2>/dev/null
	etlagg -q -o "$tmp/t2.zst" "$@" "$tmp/b.zst" 2>/dev/null
	etlagg -q "$@" --merge "$tmp/t1.zst" "$tmp/t2.zst" 2>/dev/null |
	    etlreport -f csv 2>/dev/null >"$tmp/got"
	same_file "merge-$name" "$tmp/got" "$tmp/want"
}

same vmem-process vmem
same vmem-stack vmem --by stack
same vmem-function vmem --by function
same vmem-module vmem --by module --weight committed
same heap-process heap
same heap-stack heap --by stack
same heap-module heap --by module
same heapsnap-stack heapsnap --by function --snapshot 1

# alone NAME VIEW...: VIEW merged alone is itself.
alone() {
	name=$1
	shift
	etlagg -q -o "$tmp/t.zst" "$@" "$tmp/m4.zst" 2>/dev/null
	etlreport -f csv "$tmp/t.zst" 2>/dev/null >"$tmp/want"
	etlagg -q "$@" --merge "$tmp/t.zst" 2>/dev/null |
	    etlreport -f csv 2>/dev/null >"$tmp/got"
	same_file "merge-alone-$name" "$tmp/got" "$tmp/want"
}
alone vmem-timeline vmem --timeline --step 5
alone heapsnap heapsnap
alone vmem-window vmem --from 0.01 --to 0.03

# Twice: counts double, the peak stays.
etlagg -q -o "$tmp/v.zst" vmem "$tmp/b.zst" 2>/dev/null
etlagg -q vmem --merge "$tmp/v.zst" "$tmp/v.zst" 2>/dev/null |
    etlreport -f csv 2>/dev/null | csv_lf >"$tmp/twice.csv"
etlreport -f csv "$tmp/v.zst" 2>/dev/null | csv_lf >"$tmp/once.csv"
check_eq merge-twice "$(awk -F, 'NR > 1 { print $2, $5 * 2, $7 }' \
    "$tmp/once.csv" | sort)" "$(awk -F, 'NR > 1 { print $2, $5, $7 }' \
    "$tmp/twice.csv" | sort)"
# A table of another view is refused, as for the other views.
etlagg -q -o "$tmp/p.zst" processes "$tmp/b.zst" 2>/dev/null
etlagg -q vmem --merge "$tmp/p.zst" >/dev/null 2>"$tmp/err"
check_eq merge-other-view "$?:$(cat "$tmp/err")" \
    "1:etlagg: $tmp/p.zst: no vmem table to merge (it holds processes tables, of another view)"
