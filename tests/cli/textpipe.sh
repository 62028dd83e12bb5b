#!/bin/sh
# A stream sent through a text pipe is refused with a message that names
# the damage: re-encoded as UTF-16 (Windows PowerShell 5.1 redirecting to
# a file), as UTF-8 (with or without a byte-order mark), bytes above 0x7f
# replaced by '?' and CRLF line ends (5.1 piping into a program), or only
# LF turned into CRLF.  Each is simulated here with iconv, tr and perl,
# decoding the bytes in the console code page 437 as 5.1 does.  Other
# inputs keep their old messages.

. "$(dirname "$0")/../testlib.sh"

for t in iconv perl; do
	if ! command -v $t >/dev/null 2>&1; then
		skip textpipe "no $t"
		exit 0
	fi
done
sample=$ETL_TOP/testdata/sample.etl
etlcat -q -o "$tmp/s.zst" "$sample"
crlf() { perl -pe 's/\n/\r\n/g'; }

(printf '\377\376'; iconv -f CP437 -t UTF-16LE <"$tmp/s.zst") >"$tmp/utf16"
iconv -f CP437 -t UTF-16LE <"$tmp/s.zst" >"$tmp/utf16-nobom"
iconv -f CP437 -t UTF-8 <"$tmp/s.zst" >"$tmp/utf8"
(printf '\357\273\277'; cat "$tmp/utf8") >"$tmp/utf8-bom"
LC_ALL=C tr '\200-\377' '?' <"$tmp/s.zst" | crlf >"$tmp/ascii"
crlf <"$tmp/s.zst" >"$tmp/crlf"
# Two streams one after the other (a valid stream), the second
# translated: a damaged frame further on.
first=$(wc -c <"$tmp/s.zst")
(cat "$tmp/s.zst"; crlf <"$tmp/s.zst") >"$tmp/crlf-later"

for case in utf16:UTF-16 utf16-nobom:UTF-16 utf8:UTF-8 utf8-bom:UTF-8 \
    "ascii:replaced by '?'" crlf:CRLF crlf-later:CRLF; do
	f=${case%%:*}
	cause=${case#*:}
	for tool in etlreport "etlagg stats" etlcat etlfilter; do
		$tool <"$tmp/$f" >/dev/null 2>"$tmp/err"
		st=$?
		name="textpipe-$f-${tool%% *}"
		if [ $st -ne 1 ]; then
			fail "$name" "exit status $st"
		elif grep -q "^${tool%% *}: (stdin): stream mangled by a text pipe: .*$cause.*-o FILE.* (offset 0x[0-9a-f]*)\$" "$tmp/err"
		then
			pass "$name"
		else
			fail "$name" "$(head -c 300 "$tmp/err")"
		fi
	done
done
# By name too, and the offset of the damaged frame.
etlreport "$tmp/crlf-later" >/dev/null 2>"$tmp/err"
check_eq textpipe-offset "$(sed -n 's/.*mangled.*(offset \(0x[0-9a-f]*\))$/\1/p' "$tmp/err")" \
    "$(printf '0x%x' "$first")"

# What was not through a text pipe keeps its message.
printf 'time,event\r\n1,a\r\n' >"$tmp/text.csv"
etlcat "$tmp/text.csv" >/dev/null 2>"$tmp/err"
check_eq textpipe-plain-text "$(cat "$tmp/err")" \
    "etlcat: $tmp/text.csv: not an ETL file, rustc self-profile or event stream (offset 0x0)"
etlreport "$tmp/text.csv" >/dev/null 2>"$tmp/err"
check_eq textpipe-plain-text-report "$(cat "$tmp/err")" \
    "etlreport: $tmp/text.csv: not an ETL file, rustc self-profile or event stream (offset 0x0)"
# A damaged frame without the CRLF pattern is a corrupt frame.
head -c 100 "$tmp/s.zst" >"$tmp/cut"
printf '\001\002\003\004\005\006\007\010' >>"$tmp/cut"
tail -c +109 "$tmp/s.zst" >>"$tmp/cut"
etlreport "$tmp/cut" >/dev/null 2>"$tmp/err"
if grep -q "text pipe" "$tmp/err" || ! grep -q "corrupt\|checksum\|not an event" "$tmp/err"; then
	fail textpipe-corrupt-frame "$(head -c 300 "$tmp/err")"
else
	pass textpipe-corrupt-frame
fi
