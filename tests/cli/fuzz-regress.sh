#!/bin/sh
# Every fuzz target, built without libFuzzer (build/fuzz/regress/), over
# its seeds and the inputs that once made it fail (tests/fuzz/regress/):
# none may crash, trip a sanitizer or break an invariant of the target.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
found=0
for t in "$top"/build/fuzz/regress/fuzz_*; do
	[ -x "$t" ] || continue
	found=1
	name=${t##*/}
	set -- "$top/build/fuzz/seeds/$name"
	[ -d "$top/tests/fuzz/regress/$name" ] &&
	    set -- "$@" "$top/tests/fuzz/regress/$name"
	"$t" "$name" "$@" >"$tmp/out" 2>&1
	st=$?
	if [ $st -ne 0 ] || ! grep -q "^PASS" "$tmp/out"; then
		fail "fuzz-regress-$name" "exit $st: $(tail -5 "$tmp/out")"
	else
		grep "^PASS" "$tmp/out"
	fi
done
[ $found = 1 ] || skip fuzz-regress "no build/fuzz/regress (make check builds it)"
