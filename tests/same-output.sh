#!/bin/sh
# same-output.sh - every output of this tree's tools against those of a
# build of another commit (by default HEAD~1), on the same inputs: for a
# change that must not change what a user sees (a refactor, a faster
# decoder, a new stream format).
#
# Compared: etlcat's summary, every event it writes (etlreport's JSON
# Lines and text of the whole stream, which show every field), every
# etlagg view in text, CSV and JSON Lines, and the folded, svg and html
# outputs of the stack and tree tables, each side's tools reading its own
# etlcat's stream, so that a change of the stream format is compared by
# what users see; on testdata/sample.etl, the test profile,
# an etlsynth trace of each pointer size, and every trace and profile of
# the corpus (../shared/corpus) when it is there.  Stderr is compared too.
#
# Usage: sh tests/same-output.sh [-x FILE] [REV]
# The other commit is built once in build/same/REV (a git worktree).
# Prints a line a difference and a last line "N same, N different";
# exits 1 when anything differs.
#
# -x FILE lists the differences a change means to make, a line each:
#	PATTERN<TAB>PART<TAB>WHY
# PATTERN is a shell pattern on the name of a comparison ("sample.etl
# threads -f csv"), PART what may differ: out (the output), err (the
# messages) or both; WHY names the fix.  A difference the list explains
# is printed as "expected: NAME: WHY" and does not count as different;
# a line of the list that explains nothing is said too.  Lines starting
# with # are comments.  tests/same-output/ keeps such lists, one a
# commit compared with.

top=$(cd "$(dirname "$0")/.." && pwd)
expect=
if [ "${1:-}" = -x ]; then
	[ -f "${2:-}" ] || { echo "same-output: -x: no file ${2:-}" >&2; exit 2; }
	expect=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	shift 2
fi
cd "$top" || exit 2
rev=${1:-HEAD~1}
sha=$(git rev-parse --verify -q "$rev^{commit}") ||
    { echo "same-output: no commit $rev" >&2; exit 2; }
old=$top/build/same/$sha
if [ ! -x "$old/bin/etlcat" ]; then
	rm -rf "$old"
	git worktree add -f --detach "$old" "$sha" >/dev/null 2>&1 ||
	    { echo "same-output: cannot check out $rev" >&2; exit 2; }
	make -C "$old" -j2 all >/dev/null 2>&1 ||
	    { echo "same-output: $rev does not build" >&2; exit 2; }
fi
make -j2 all >/dev/null || exit 2
corpus=${ETL_CORPUS:-$top/../shared/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# The inputs: traces, then profiles.
: >"$work/inputs"
echo "$top/testdata/sample.etl" >>"$work/inputs"
for synth in "rustc-build 8" "rustc-build 4 --compress" "memory 8" \
    "memory-lossy 4" "waits 8 --compact-cswitch" "waits 4 --cswitch-version 2" \
    "waits 8 --cswitch-version 5" "stack-joins 4"; do
	set -- $synth
	out=$work/synth-$1-$2${3:+-${3#--}}${4:+$4}.etl
	scenario=$1 bits=$2
	shift 2
	build/etlsynth --scenario "$scenario" --pointer-size "$bits" "$@" \
	    --size 4000000 -o "$out" >/dev/null 2>&1 &&
	    echo "$out" >>"$work/inputs"
done
ls "$corpus"/etl/*.etl 2>/dev/null >>"$work/inputs"
echo "$top/testdata/selfprofile/tiny-0030637.mm_profdata" >>"$work/inputs"
find "$corpus/selfprofile" -name '*.mm_profdata' 2>/dev/null | sort \
    >>"$work/inputs"

same=0 different=0 expected=0
: >"$work/used"

# explain NAME PART: the WHY of the first line of the -x list whose
# pattern matches NAME and whose part covers PART (out, err or both),
# on stdout; nothing (status 1) if none does.
explain() {
	[ -n "$expect" ] || return 1
	while IFS='	' read -r pat part why; do
		case $pat in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2254
		case $1 in
		$pat)	case $part:$2 in
			both:*|out:out|err:err)
				echo "$pat" >>"$work/used"
				echo "$why"
				return 0 ;;
			esac ;;
		esac
	done <"$expect"
	return 1
}
# compare NAME CMD...: runs CMD with the old and the new tools first on
# PATH (and ST naming that side's stream of the input), and compares
# stdout, stderr and the exit status.
compare() {
	name=$1
	shift
	# One name for both streams: messages name it.
	cp "$work/old.st" "$work/in.st"
	ST=$work/in.st PATH="$old/bin:$PATH" "$@" >"$work/a.out" \
	    2>"$work/a.err"
	a=$?
	cp "$work/new.st" "$work/in.st"
	ST=$work/in.st PATH="$top/bin:$PATH" "$@" >"$work/b.out" \
	    2>"$work/b.err"
	b=$?
	o=0 e=0
	cmp -s "$work/a.out" "$work/b.out" || o=1
	cmp -s "$work/a.err" "$work/b.err" || e=1
	case $o$e in
	00)	part= ;;
	10)	part=out ;;
	01)	part=err ;;
	*)	part=both ;;
	esac
	if [ $a = $b ] && [ -z "$part" ]; then
		same=$((same + 1))
	elif [ $a = $b ] && why=$(explain "$name" "$part"); then
		expected=$((expected + 1))
		echo "expected: $name ($part): $why"
	else
		different=$((different + 1))
		echo "different: $name (exit $a, $b; ${part:-status})"
	fi
}

views="stats sysconfig processes tree cpu queries querystacks vmem heap
heapsnap threads waits switches threadtime images"
while read -r in; do
	base=${in##*/}
	PATH="$old/bin:$PATH" etlcat -q -o "$work/old.st" "$in" 2>/dev/null
	PATH="$top/bin:$PATH" etlcat -q -o "$work/new.st" "$in" 2>/dev/null
	compare "$base etlcat" sh -c 'etlcat -v "$1" >/dev/null' - "$in"
	for f in jsonl text; do
		compare "$base events -f $f" sh -c 'etlreport -q -f "$1" "$ST"' \
		    - "$f"
	done
	for v in $views; do
		for f in text csv jsonl; do
			compare "$base $v -f $f" sh -c \
			    'etlagg -q "$1" "$ST" | etlreport -f "$2"' - \
			    "$v" "$f"
		done
	done
	for f in folded svg; do
		compare "$base cpu --by stack -f $f" sh -c \
		    'etlagg -q cpu --by stack "$ST" | etlreport -f "$1"' - "$f"
		compare "$base querystacks -f $f" sh -c \
		    'etlagg -q querystacks "$ST" | etlreport -f "$1"' - "$f"
	done
	compare "$base tree -f html" sh -c \
	    'etlagg -q tree "$ST" | etlreport -f html' -
	compare "$base queries -f html" sh -c 'etlreport -f html "$ST"' -
	# A stream passed on, less some events, and read again.
	compare "$base etlfilter --rustc" sh -c \
	    'etlfilter -q --rustc "$ST" | etlreport -q -f jsonl' -
	compare "$base etlfilter -k sample" sh -c \
	    'etlfilter -q --kind sample,process,thread,image "$ST" | etlagg -q cpu --by stack |
	    etlreport -f folded' -
done <"$work/inputs"
if [ -n "$expect" ]; then
	grep -v '^#' "$expect" | cut -f1 | grep -v '^$' | while read -r pat; do
		grep -qxF "$pat" "$work/used" ||
		    echo "unused: $pat (the list explains no difference by it)"
	done
fi
echo "$same same, $different different${expect:+, $expected expected}"
[ $different = 0 ]
