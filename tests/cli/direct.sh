#!/bin/sh
# A trace or rustc profile named as the input of etlfilter, etlsym,
# etlagg or etlreport is decoded in the tool, and the tool's output, exit
# status and messages are those of `etlcat -q FILE | tool`: on the
# sample, the test profile, etlsynth traces with plain and compressed
# buffers, cut and damaged ones, the crafted inputs and every corpus
# trace and profile (but for the problems of query arguments, which a
# view of labels does not read).  A tool that stops reading early stops the decoder;
# a trace cannot be read twice; standard input must still be a stream.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}

# Messages of the pipe, as the tool alone would print them: etlcat's
# lines under the tool's name, and the file's name for "(stdin)".
as_direct() {
	sed -e "s|^etlcat: |$1: |" -e "s|^$1: (stdin): |$1: $2: |" | sort
}

# failed_with NAME PATTERN: the last command ($st) exited 1 and said
# PATTERN in $tmp/err.
failed_with() {
	if [ "$st" = 1 ] && grep -q "$2" "$tmp/err"; then
		pass "$1"
	else
		fail "$1" "exit $st: $(head -1 "$tmp/err")"
	fi
}

# like NAME FILE TOOL ARGS...: the tool on FILE against etlcat piped in.
like() {
	name=$1
	file=$2
	tool=$3
	shift 2
	etlcat -q "$file" 2>"$tmp/pipe.err" | "$@" >"$tmp/one.st" \
	    2>>"$tmp/pipe.err"
	pst=$?
	"$@" "$file" >"$tmp/two.st" 2>"$tmp/direct.raw"
	dst=$?
	sort "$tmp/direct.raw" >"$tmp/two.err"
	# etlcat's status counts too: the pipe fails if either does.  When
	# etlcat has said why, the tool does not add that it read nothing.
	if etlcat -q "$file" >/dev/null 2>&1; then
		as_direct "$tool" "$file" <"$tmp/pipe.err" >"$tmp/one.err"
	else
		[ "$pst" = 0 ] && pst=1
		grep -v ': empty input, not an event stream$' "$tmp/pipe.err" |
		    as_direct "$tool" "$file" >"$tmp/one.err"
	fi
	one=$pst two=$dst
	agree "$name" "through etlcat" directly
}

# every NAME FILE: each tool on a trace.
every() {
	like "direct etlfilter $1" "$2" etlfilter -p rustc
	like "direct etlagg stats $1" "$2" etlagg stats
	like "direct etlagg cpu $1" "$2" etlagg cpu --by stack
	like "direct etlreport $1" "$2" etlreport -f jsonl
	like "direct etlsym $1" "$2" etlsym -y "$tmp/nosyms"
}

# profile NAME FILE: the views of a rustc profile.
profile() {
	like "direct etlagg queries $1" "$2" etlagg queries
	like "direct etlreport chrome $1" "$2" etlreport -f chrome
	like "direct etlagg querystacks $1" "$2" etlagg querystacks
	like "direct etlreport counts $1" "$2" etlreport -f counts
	like "direct etlreport html $1" "$2" etlreport -f html
}

# labels_only FILE: a view of labels reads a profile's ids for their
# labels alone: the same table as through etlcat, but the problems of
# the keys it did not read (a control byte in one) are not counted.
labels_only() {
	etlagg queries "$1" 2>"$tmp/direct.err" | etlreport 2>/dev/null |
	    grep -v -e '^note:' -e '^$' >"$tmp/direct.txt"
	etlcat -q "$1" 2>/dev/null | etlagg queries 2>"$tmp/pipe.err" |
	    etlreport 2>/dev/null | grep -v -e '^note:' -e '^$' >"$tmp/pipe.txt"
	if ! grep -q typeck "$tmp/direct.txt" ||
	    ! cmp -s "$tmp/direct.txt" "$tmp/pipe.txt"; then
		fail "direct labels only" "not the table of etlcat's stream"
	elif ! grep -q 'arguments left out' "$tmp/pipe.err"; then
		fail "direct labels only" "etlcat's stream counts no bad key"
	elif [ -s "$tmp/direct.err" ]; then
		fail "direct labels only" "said: $(head -1 "$tmp/direct.err")"
	else
		pass "direct labels only"
	fi
}

mkdir -p "$tmp/nosyms"
every sample "$top/testdata/sample.etl"
profile tiny "$top/testdata/selfprofile/tiny-0030637.mm_profdata"

if command -v etlsynth >/dev/null; then
	etlsynth --scenario rustc-build --events 200000 --seed 3 \
	    -o "$tmp/plain.etl" >/dev/null
	etlsynth --scenario rustc-build --events 200000 --seed 4 --compress \
	    -o "$tmp/comp.etl" >/dev/null
	every "synth plain" "$tmp/plain.etl"
	every "synth compressed" "$tmp/comp.etl"
	size=$(wc -c <"$tmp/comp.etl")
	cut_trace "$tmp/comp.etl" "$tmp/cut.etl"
	every "synth truncated" "$tmp/cut.etl"
	damage_trace "$tmp/plain.etl" "$tmp/damaged.etl" $((size / 3))
	every "synth damaged" "$tmp/damaged.etl"
	# A cut trace fails, but its output file is kept, as through etlcat:
	# the stream that etlcat wrote of it was whole.
	etlcat -q "$tmp/cut.etl" 2>/dev/null |
	    etlagg -o "$tmp/one.st" cpu --by stack 2>/dev/null
	etlagg -o "$tmp/two.st" cpu --by stack "$tmp/cut.etl" 2>/dev/null
	if [ -s "$tmp/two.st" ] && cmp -s "$tmp/one.st" "$tmp/two.st"; then
		pass "direct output kept"
	else
		fail "direct output kept" "no output, or not etlcat's"
	fi

	# A reader that goes away ends the decoder too, quietly.
	start=$(date +%s)
	timeout 60 etlreport -f jsonl "$tmp/plain.etl" 2>"$tmp/err" |
	    head -1 >/dev/null
	took=$(($(date +%s) - start))
	if [ "$took" -ge 60 ]; then
		fail "direct reader gone" "still running after 60 s"
	elif [ -s "$tmp/err" ]; then
		fail "direct reader gone" "said: $(head -1 "$tmp/err")"
	else
		pass "direct reader gone"
	fi
	# Nor does a stopped decoder hang the tool: its output refused.
	etlagg cpu --by stack "$tmp/comp.etl" >/dev/full 2>"$tmp/err"
	st=$?
	failed_with "direct output refused" 'write error'
else
	skip "direct synth" "no etlsynth (make builds it into build/)"
fi

# Two passes need a file to read twice: a trace is refused, by name.
ETLFILTER_TWO_PASS=1 etlfilter -p rustc --children \
    "$top/testdata/sample.etl" >/dev/null 2>"$tmp/err"
st=$?
failed_with "direct two passes refused" \
    'sample.etl: a trace, not an event stream'

# Standard input is a stream: a trace there is named as not one.
etlagg stats <"$top/testdata/sample.etl" >/dev/null 2>"$tmp/err"
st=$?
failed_with "direct not from stdin" 'not an event stream'

# A stream from a named pipe is read as it comes: nothing is peeked at.
etlcat -q "$top/testdata/sample.etl" >"$tmp/sample.st"
etlagg stats "$tmp/sample.st" >"$tmp/want" 2>/dev/null
if mkfifo "$tmp/fifo" 2>/dev/null; then
	# The writer opens the FIFO under timeout: a tool that fails
	# before opening it must not leave the test waiting for ever.
	timeout 60 sh -c 'cat "$1" >"$2"' sh "$tmp/sample.st" "$tmp/fifo" &
	etlagg stats "$tmp/fifo" >"$tmp/got" 2>"$tmp/err"
	st=$?
	wait
	if [ $st = 0 ] && cmp -s "$tmp/want" "$tmp/got"; then
		pass "direct fifo stream"
	else
		fail "direct fifo stream" "exit $st: $(head -1 "$tmp/err")"
	fi
else
	skip "direct fifo stream" "no mkfifo"
fi

# Neither a trace nor a stream: etlcat's message, since a trace would
# have been read too.
printf 'plain text, not a trace\n' >"$tmp/text.txt"
etlreport "$tmp/text.txt" >/dev/null 2>"$tmp/err"
st=$?
failed_with "direct neither" 'text.txt: not an ETL file, rustc self-profile or event stream'

crafted=$top/build/fuzz/crafted
if [ -d "$crafted" ]; then
	for f in "$crafted"/*.etl; do
		like "direct crafted $(basename "$f")" "$f" etlagg stats
	done
	for f in "$crafted"/*.mm_profdata; do
		case $f in
		*/bad-keys.mm_profdata)
			like "direct crafted chrome bad-keys" "$f" etlreport \
			    -f chrome
			labels_only "$f" ;;
		*)	profile "crafted $(basename "$f")" "$f" ;;
		esac
	done
else
	skip "direct crafted" "no $crafted (make check makes it)"
fi

if [ -d "$ETL_CORPUS/etl" ]; then
	for f in "$ETL_CORPUS"/etl/*.etl; do
		like "direct corpus $(basename "$f")" "$f" etlagg cpu \
		    --by stack
		like "direct corpus filter $(basename "$f")" "$f" etlfilter \
		    -p rustc
	done
	for f in "$ETL_CORPUS"/selfprofile/*/*.mm_profdata; do
		profile "corpus $(basename "$(dirname "$f")")" "$f"
	done
else
	skip "direct corpus" "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
fi
