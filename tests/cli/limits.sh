#!/bin/sh
# The inputs crafted to break a limit (tests/fuzz/craft.h, written by
# build/craft into build/fuzz/crafted) under a 512 MiB address-space
# limit: every tool either processes each of them or refuses it with a
# message naming itself and the file, and none crashes, runs out of
# memory or takes more than a minute.  An .etl or .mm_profdata input goes
# through etlcat and the other tools read what it made.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
crafted=$top/build/fuzz/crafted
if [ ! -d "$crafted" ]; then
	skip limits "no $crafted (make check makes it)"
	exit 0
fi
# AddressSanitizer reserves terabytes of address space: no ulimit -v.
if ! (ulimit -v 524288 && etlcat --version) >/dev/null 2>&1; then
	skip limits "the tools do not start under ulimit -v (a sanitizer build?)"
	exit 0
fi

# limited NAME TOOL ARGS...: TOOL under the limit, exit 0, or 1 with a
# message "TOOL: FILE: ..." (FILE the last argument).
limited() {
	name=$1 tool=$2
	shift
	for last; do :; done
	(ulimit -v 524288; exec timeout 60 "$@") >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -eq 0 ]; then
		pass "limits-$name"
	elif [ $st -eq 1 ] && grep -q "^$tool: $last: " "$tmp/err"; then
		pass "limits-$name"
	else
		fail "limits-$name" "exit $st: $(head -c 300 "$tmp/err")"
	fi
}

for f in "$crafted"/*; do
	base=${f##*/}
	case $f in
	*.etl|*.mm_profdata)
		# Not -q: an input with counted losses exits 1 and says so.
		limited "etlcat-$base" etlcat -o "$tmp/s.st" "$f"
		[ -s "$tmp/s.st" ] || continue
		stream=$tmp/s.st ;;
	*)
		limited "etlcat-$base" etlcat -o "$tmp/s.st" "$f"
		stream=$f ;;
	esac
	limited "etlfilter-$base" etlfilter -o "$tmp/f.st" "$stream"
	limited "etlagg-stats-$base" etlagg -o "$tmp/a.st" stats "$stream"
	limited "etlagg-cpu-$base" etlagg -o "$tmp/a.st" cpu "$stream"
	limited "etlagg-queries-$base" etlagg -o "$tmp/a.st" queries "$stream"
	limited "etlreport-$base" etlreport -o "$tmp/r.txt" "$stream"
done
