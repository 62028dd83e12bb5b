#!/bin/sh
# Under -q every tool still says why it exits non-zero (etlcat(1) and the
# others: -q drops only the notes that leave the status as it is): each
# tool with -q on the project's damaged inputs (a profile whose string
# index points nowhere, the crafted inputs of tests/fuzz/craft.h, the
# fuzz regressions, the sample trace and the test profile cut and
# overwritten here and there, text and empty files) either exits 0 or
# prints a message.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
sample=$top/testdata/sample.etl
profile=$top/testdata/selfprofile/tiny-0030637.mm_profdata
d=$tmp/damaged
mkdir -p "$d" "$tmp/nosyms"

# poke FILE OFFSET: four 0xff bytes over FILE at OFFSET.
poke() {
	printf '\377\377\377\377' |
	    dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# The test profile with one string index entry whose address is past 4
# GiB: it points nowhere.  The fourth entry, not the metadata's (the
# first), so that this is the only problem.  Index entries are two u64,
# after the 8-byte MMSI stream header.
cp "$profile" "$d/bad-index.mm_profdata"
at=$(grep -obUa MMSI "$d/bad-index.mm_profdata" | head -1 | cut -d: -f1)
printf '\001' | dd of="$d/bad-index.mm_profdata" bs=1 \
    seek=$((at + 8 + 3 * 16 + 8 + 4)) conv=notrunc 2>/dev/null

# The regression itself: the reason, in one line, with and without -q.
for q in "" -q; do
	etlcat $q -o "$tmp/out.st" "$d/bad-index.mm_profdata" 2>"$tmp/err"
	st=$?
	if [ $st = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	    grep -q "^etlcat: $d/bad-index.mm_profdata: 1 string index entries that point nowhere$" \
	    "$tmp/err"; then
		pass "quiet bad-index etlcat ${q:-loud}"
	else
		fail "quiet bad-index etlcat ${q:-loud}" \
		    "exit $st: $(cat "$tmp/err")"
	fi
done

crafted=$top/build/fuzz/crafted
if [ -d "$crafted" ]; then
	cp "$crafted"/* "$d/"
else
	skip "quiet crafted" "no $crafted (make check makes it)"
fi
for dir in "$top"/tests/fuzz/regress/*/; do
	for f in "$dir"*; do
		[ -f "$f" ] && cp "$f" "$d/$(basename "$dir")-$(basename "$f")"
	done
done
for n in 100 5000 70000 300000; do
	head -c $n "$sample" >"$d/cut$n.etl"
done
for n in 100 5000 40000 84400 90000; do
	head -c $n "$profile" >"$d/cut$n.mm_profdata"
done
for o in 1000 20000 100000 250000 340000; do
	cp "$sample" "$d/poked$o.etl"
	poke "$d/poked$o.etl" $o
done
for o in 30 300 3000 30000 84340 90000; do
	cp "$profile" "$d/poked$o.mm_profdata"
	poke "$d/poked$o.mm_profdata" $o
done
etlcat -q -o "$tmp/sample.st" "$sample" 2>/dev/null
head -c 20000 "$tmp/sample.st" >"$d/cut.st"
echo 'not a trace' >"$d/text.etl"
: >"$d/empty.etl"

failed=0 runs=0
for f in "$d"/*; do
	for cmd in "etlcat -o /dev/null" "etlfilter -p rustc -o /dev/null" \
	    "etlagg stats" "etlagg queries" "etlreport" "etlreport -f folded" \
	    "etlsym -y $tmp/nosyms -o /dev/null"; do
		timeout 60 $cmd -q "$f" >/dev/null 2>"$tmp/err"
		st=$?
		runs=$((runs + 1))
		if [ $st != 0 ] && [ ! -s "$tmp/err" ]; then
			fail "quiet $(basename "$f") ${cmd%% *}" \
			    "exit $st with nothing said: $cmd -q $f"
			failed=$((failed + 1))
		fi
	done
done
# That the inputs are damaged at all: most runs must fail.
bad=0
for f in "$d"/*; do
	etlcat -q -o /dev/null "$f" 2>/dev/null || bad=$((bad + 1))
done
if [ $failed = 0 ] && [ $bad -ge 20 ]; then
	pass "quiet damaged inputs ($runs runs, $bad inputs failing)"
else
	fail "quiet damaged inputs" "$failed silent of $runs runs; $bad inputs failing"
fi
