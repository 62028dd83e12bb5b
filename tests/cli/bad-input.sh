#!/bin/sh
# Malformed input: a clear message naming the file and offset, what can be
# decoded is decoded, the exit status is 1, and nothing crashes.  Closed
# pipes stay quiet; a full disk is an error.

. "$(dirname "$0")/../testlib.sh"

# expect NAME STATUS PATTERN CMD...: exit STATUS and stderr matching PATTERN.
expect() {
	name=$1 want=$2 pattern=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name" "exit $got, expected $want; stderr: $(cat "$tmp/err")"
	elif ! grep -q -- "$pattern" "$tmp/err"; then
		fail "$name" "stderr '$(cat "$tmp/err")' lacks '$pattern'"
	else
		pass "$name"
	fi
}

printf 'this is not a trace at all, just text\n' >"$tmp/text.etl"
expect wrong-magic 1 "etlcat: $tmp/text.etl: not an ETL file, rustc self-profile or event stream (offset 0x0)" \
    etlcat "$tmp/text.etl"
: >"$tmp/empty.etl"
expect empty-file 1 "empty.etl: not an ETL file" etlcat "$tmp/empty.etl"
expect missing-file 1 "etlcat: $tmp/none.etl: No such file" etlcat "$tmp/none.etl"
expect bad-option 2 "usage: etlcat" etlcat -Q
expect bad-level 2 "option -z" etlcat -z 99
expect bad-view 2 "unknown view 'nope'" etlagg nope
expect bad-format 2 "unknown format 'nope'" etlreport -f nope
expect bad-format-no-file 2 "unknown format" etlreport -f nope -o "$tmp/made"
[ -e "$tmp/made" ] && fail bad-format-no-file-made "output created" ||
    pass bad-format-no-file-made
expect stream-garbage 1 "etlreport: $tmp/text.etl: not an ETL file, rustc self-profile or event stream (offset 0x0)" \
    etlreport "$tmp/text.etl"

# A stream whose first string has id 2: the input is at fault, not the
# output, whichever tool passes it on.
printf '\001\022\000\000ETLSTRM\000\001\000\000\000\005craft\020\003\000\000\002\001a' |
    zstd -q -c >"$tmp/order.st"
for tool in etlcat etlfilter etlagg; do
	args=
	[ $tool = etlagg ] && args=stats
	expect "string-order-$tool" 1 \
	    "$tool: $tmp/order.st: string id 2 out of order (expected 1) (offset 0x0)" \
	    $tool -o "$tmp/order.out" $args "$tmp/order.st"
	grep -q "write error" "$tmp/err" &&
	    fail "string-order-$tool-blame" "$(cat "$tmp/err")" ||
	    pass "string-order-$tool-blame"
done

corpus=$ETL_CORPUS/etl
if [ ! -d "$corpus" ]; then
	skip corrupt-traces "no corpus at $ETL_CORPUS"
	exit 0
fi
plain=$corpus/airbus-etl-parser__ShutdownPerfDiagLogger.etl	# 49 x 64 KiB
packed=$corpus/perfview__net.4.5.2.x64.etl			# compressed

# count FILE: events decoded into the stream.
count() { etlreport -f csv "$1" 2>/dev/null | wc -l | tr -d ' '; }

head -c 1000000 "$plain" >"$tmp/cut.etl"
expect truncated 1 "cut.etl: truncated buffer: 16960 of 65536 bytes (offset 0xf0000)" \
    etlcat -q -o "$tmp/cut.zst" "$tmp/cut.etl"
n=$(count "$tmp/cut.zst")
[ "$n" -gt 5000 ] && pass truncated-decodes-rest || fail truncated-decodes-rest "$n rows"

# A buffer whose size field lies: the next buffers are still found.
cp "$plain" "$tmp/badhdr.etl"
printf '\020\000\000\000' | dd of="$tmp/badhdr.etl" bs=1 seek=196608 conv=notrunc 2>/dev/null
expect corrupt-buffer-header 1 "corrupt buffer header, 65536 bytes skipped (offset 0x30000)" \
    etlcat -q -o "$tmp/badhdr.zst" "$tmp/badhdr.etl"
n=$(count "$tmp/badhdr.zst")
[ "$n" -gt 15000 ] && [ "$n" -lt 17079 ] && pass corrupt-buffer-decodes-rest ||
    fail corrupt-buffer-decodes-rest "$n rows"

# Garbage in place of events: the rest of that buffer is skipped.
cp "$plain" "$tmp/garbage.etl"
head -c 4000 /dev/zero | tr '\0' 'Z' |
    dd of="$tmp/garbage.etl" bs=1 seek=$((5 * 65536 + 72)) conv=notrunc 2>/dev/null
expect garbage-events 1 "garbage.etl: corrupt event header in buffer at 0x50000" \
    etlcat -q -o "$tmp/garbage.zst" "$tmp/garbage.etl"
n=$(count "$tmp/garbage.zst")
[ "$n" -gt 15000 ] && pass garbage-decodes-rest || fail garbage-decodes-rest "$n rows"

# A damaged compressed buffer.
cp "$packed" "$tmp/lz.etl"
head -c 2000 /dev/zero | tr '\0' '\377' |
    dd of="$tmp/lz.etl" bs=1 seek=600000 conv=notrunc 2>/dev/null
expect corrupt-compressed 1 "lz.etl: corrupt" etlcat -q -o "$tmp/lz.zst" "$tmp/lz.etl"
n=$(count "$tmp/lz.zst")
[ "$n" -gt 150000 ] && pass compressed-decodes-rest || fail compressed-decodes-rest "$n rows"

# Pipes and full disks.
etlcat "$plain" 2>"$tmp/err" | head -c 100 >/dev/null
[ -s "$tmp/err" ] && fail closed-pipe-quiet "$(cat "$tmp/err")" || pass closed-pipe-quiet
etlcat "$plain" | etlreport 2>"$tmp/err" | head -n 3 >/dev/null
[ -s "$tmp/err" ] && fail closed-pipe-report "$(cat "$tmp/err")" || pass closed-pipe-report
if [ -w /dev/full ]; then
	expect dev-full 1 "write error" etlcat -o /dev/full "$plain"
	expect dev-full-report 1 "write error" sh -c \
	    "etlcat '$plain' | etlreport -o /dev/full"
fi

# A stream cut short is noticed by every reader.
etlcat "$plain" | head -c 200000 >"$tmp/cut.zst"
expect truncated-stream 1 "truncated frame" etlagg stats "$tmp/cut.zst"

# A stream given to etlcat passes through unchanged in content.
etlcat "$plain" >"$tmp/whole.zst"
etlcat "$tmp/whole.zst" >"$tmp/again.zst"
check_eq stream-passthrough "$(etlreport -f csv "$tmp/again.zst" | cksum)" \
    "$(etlreport -f csv "$tmp/whole.zst" | cksum)"

# The binary stream is not written to a terminal without -f.
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
	for tool in "etlcat $ETL_TOP/testdata/sample.etl" \
	    "etlagg stats $tmp/whole.zst" "etlfilter --pid 4 $tmp/whole.zst"; do
		t=${tool%% *}
		script -qec "$tool" /dev/null >"$tmp/tty" 2>&1
		st=$?
		if [ $st -eq 2 ] && grep -q "is a terminal: the event stream is binary" "$tmp/tty"; then
			pass "terminal-refused-$t"
		else
			fail "terminal-refused-$t" "exit $st: $(head -c 200 "$tmp/tty")"
		fi
		script -qec "$t -f ${tool#* }" /dev/null >"$tmp/tty" 2>&1 &&
		    [ "$(wc -c <"$tmp/tty")" -gt 100 ] && pass "terminal-forced-$t" ||
		    fail "terminal-forced-$t" "-f did not write the stream"
	done
else
	skip terminal "script(1) cannot run a command on a pseudo-terminal here"
fi
