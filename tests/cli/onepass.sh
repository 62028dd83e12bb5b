#!/bin/sh
# etlfilter's one pass against its two passes (ETLFILTER_TWO_PASS=1, the
# way etlfilter read its inputs before): the same bytes out, the same
# exit status and messages, on etlsynth traces, the corpus (skipped when
# absent), concatenated and cut streams, from a file and from a pipe.
# Then what one pass is for: output before the input ends, the line of
# --verbose, and flat memory when much is held back.
# tests/unit/test_filter_out.c does the same on streams made to wait.

. "$(dirname "$0")/../testlib.sh"

filters='-p rustc
--rustc
-p ^cargo --children
-p ^(csrss|perfview|powershell) --children
--cmdline build -i
-v -p rustc
--pid 4 --children
--kind sample -p rustc
--provider Rust-Compiler -p rustc'

# same NAME STREAM: every filter both ways on the file STREAM, and one
# pass from a pipe.  One verdict for all the filters.
same() {
	name=$1 in=$2 bad=
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		etlfilter -q $args "$in" >"$tmp/one" 2>"$tmp/one.err"
		s1=$?
		# shellcheck disable=SC2086
		ETLFILTER_TWO_PASS=1 etlfilter -q $args "$in" >"$tmp/two" \
		    2>"$tmp/two.err"
		s2=$?
		# shellcheck disable=SC2086
		cat "$in" | etlfilter -q $args >"$tmp/pipe" 2>/dev/null
		if [ $s1 != $s2 ] || ! cmp -s "$tmp/one" "$tmp/two" ||
		    ! cmp -s "$tmp/one.err" "$tmp/two.err" ||
		    ! cmp -s "$tmp/one" "$tmp/pipe"; then
			bad="$bad [$args: exit $s1/$s2, $(wc -c <"$tmp/one" |
			    tr -d ' ')/$(wc -c <"$tmp/two" | tr -d ' ') bytes]"
		fi
	done <<EOF
$filters
EOF
	check_eq "$name" "$bad" ""
}

if command -v etlsynth >/dev/null; then
	for sc in rustc-build memory waits stack-joins; do
		etlsynth --scenario $sc --size 2000000 --seed 3 \
		    -o "$tmp/$sc.etl" >/dev/null &&
		    etlcat -q "$tmp/$sc.etl" -o "$tmp/$sc.st" ||
		    fail "synth-$sc" "etlsynth or etlcat failed"
		same "onepass-synth-$sc" "$tmp/$sc.st"
	done
	# Several sections; a section cut short; the input cut anywhere.
	cat "$tmp/rustc-build.st" "$tmp/memory.st" >"$tmp/two.st"
	same onepass-sections "$tmp/two.st"
	etlfilter -q -p rustc --verbose "$tmp/two.st" >/dev/null \
	    2>"$tmp/verbose"
	check_eq onepass-verbose-line "$(grep -c '^etlfilter: .*two.st: held back [0-9]* records, [0-9]* bytes at most ([0-9]* records at once, [0-9]* in a temporary file)$' "$tmp/verbose")" 1
	size=$(wc -c <"$tmp/rustc-build.st")
	head -c $((size / 2)) "$tmp/rustc-build.st" >"$tmp/cut.st"
	cat "$tmp/cut.st" "$tmp/waits.st" >"$tmp/cutcat.st"
	same onepass-cut "$tmp/cut.st"
	same onepass-cut-concatenated "$tmp/cutcat.st"
	# Several inputs, the first cut short: one output.
	bad=
	for args in "-p rustc" "--rustc" "-v --cmdline build"; do
		# shellcheck disable=SC2086
		etlfilter -q $args "$tmp/cut.st" "$tmp/waits.st" >"$tmp/one" \
		    2>"$tmp/one.err"
		s1=$?
		# shellcheck disable=SC2086
		ETLFILTER_TWO_PASS=1 etlfilter -q $args "$tmp/cut.st" \
		    "$tmp/waits.st" >"$tmp/two" 2>"$tmp/two.err"
		s2=$?
		if [ $s1 != 1 ] || [ $s2 != 1 ] || ! cmp -s "$tmp/one" "$tmp/two" ||
		    ! cmp -s "$tmp/one.err" "$tmp/two.err"; then
			bad="$bad [$args: exit $s1/$s2]"
		fi
	done
	check_eq onepass-inputs "$bad" ""
else
	skip onepass-synth "no etlsynth on PATH (make build/etlsynth)"
fi

if [ -d "$ETL_CORPUS/etl" ]; then
	n=0
	for t in "$ETL_CORPUS"/etl/*.etl "$ETL_CORPUS"/selfprofile/*/*.mm_profdata
	do
		[ -f "$t" ] || continue
		n=$((n + 1))
		etlcat -q "$t" -o "$tmp/c$n.st" 2>/dev/null
		[ -s "$tmp/c$n.st" ] && same "onepass-corpus-$(basename "$t")" \
		    "$tmp/c$n.st"
	done
else
	skip onepass-corpus "no corpus at $ETL_CORPUS"
fi

# Output comes while the input is still open: a pipe is not copied
# first.  The writer holds the FIFO open until the output shows.
if command -v etlsynth >/dev/null && command -v mkfifo >/dev/null; then
	etlsynth --scenario rustc-build --size 90000000 --seed 4 \
	    -o "$tmp/big.etl" >/dev/null && etlcat -q "$tmp/big.etl" \
	    -o "$tmp/big.st"
	mkfifo "$tmp/fifo"
	etlfilter -q -p rustc <"$tmp/fifo" >"$tmp/streamed" &
	fpid=$!
	(cat "$tmp/big.st"; exec sleep 30) >"$tmp/fifo" &
	wpid=$!
	i=0
	while [ ! -s "$tmp/streamed" ] && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	if [ -s "$tmp/streamed" ]; then
		pass onepass-streams
	else
		fail onepass-streams "no output while the input was open"
	fi
	kill $wpid 2>/dev/null
	wait $fpid 2>/dev/null
	# Held back: memory stays flat, the rest in a temporary file.  The
	# peak RSS holding back about 28 MB (of a stream in format 2) is
	# within 16 MB of the peak holding nothing back (8 MiB of memory
	# for what is held).  A trace with a process rundown holds back only
	# the rundown's few records with --rustc (a parent defined after its
	# child counts only if the rundown defines it), so the stream loses
	# its lifetime events first: without a rundown, a parent defined
	# after its child counts, and a process whose parent is never
	# defined holds back the rest of the section.
	if [ -x /usr/bin/time ]; then
		etlfilter -q -v --kind process,thread,image "$tmp/big.st" \
		    -o "$tmp/nr.st"
		/usr/bin/time -f %M -o "$tmp/rss0" etlfilter -q -p rustc \
		    "$tmp/nr.st" -o /dev/null
		/usr/bin/time -f %M -o "$tmp/rss" etlfilter -q --verbose \
		    --rustc "$tmp/nr.st" -o /dev/null 2>"$tmp/held"
		spilled=$(sed -n 's/.*, \([0-9]*\) in a temporary file)$/\1/p' \
		    "$tmp/held")
		held=$(sed -n 's/.*held back [0-9]* records, \([0-9]*\) bytes.*/\1/p' \
		    "$tmp/held")
		rss0=$(tail -n 1 "$tmp/rss0")
		rss=$(tail -n 1 "$tmp/rss")
		if [ "${spilled:-0}" -gt 0 ] && [ "${held:-0}" -gt 20000000 ] &&
		    [ $((rss - rss0)) -lt 16384 ]; then
			pass onepass-flat-memory
		else
			fail onepass-flat-memory "held $held bytes, $spilled \
records to the file, peak RSS $rss KB against $rss0 KB"
		fi
		etlfilter -q --verbose --rustc "$tmp/big.st" -o /dev/null \
		    2>"$tmp/held"
		held=$(sed -n 's/.*held back \([0-9]*\) records.*/\1/p' \
		    "$tmp/held")
		spilled=$(sed -n 's/.*, \([0-9]*\) in a temporary file)$/\1/p' \
		    "$tmp/held")
		if [ -n "$held" ] && [ "$held" -lt 1000 ] &&
		    [ "${spilled:-1}" = 0 ]; then
			pass "onepass-rundown-holds-little ($held records)"
		else
			fail onepass-rundown-holds-little \
			    "held ${held:-?} records, ${spilled:-?} to the file"
		fi
	else
		skip onepass-flat-memory "no /usr/bin/time (apt-get install time)"
	fi
else
	skip onepass-streams "no etlsynth or mkfifo"
fi
