#!/bin/sh
# The Windows build (`make windows`, build-windows/bin/*.exe) run under
# wine: every tool's --help; decoding to a file with -o; a pipeline
# through files, through Unix pipes between Windows processes and through
# cmd.exe's own pipe; standard input from a file and from a pipe; a path
# with spaces and non-ASCII letters, given as a Unix and as a drive-letter
# path with backslashes.  Every stream, CSV and folded output must equal
# the Linux build's byte for byte, on the sample and on every corpus
# trace and profile; an xlsx workbook must hold the same cells.  Skips
# when wine or the Windows build is missing.

. "$(dirname "$0")/../testlib.sh"

win=$ETL_TOP/build-windows/bin
sample=$ETL_TOP/testdata/sample.etl
if ! command -v wine >/dev/null 2>&1; then
	skip windows "no wine (apt-get install wine64 wine)"
	exit 0
fi
if [ ! -x "$win/etlcat.exe" ]; then
	skip windows "no Windows build (make windows, which needs \
gcc-mingw-w64-x86-64, dpkg-dev and deb-src lines in the APT sources)"
	exit 0
fi
wine_start "$ETL_TOP/build-windows/wine" || {
	skip windows "wine cannot run the .exe files: $wine_error"
	exit 0
}

# w TOOL ARGS: the Windows build of TOOL.
w() {
	t=$1
	shift
	wine "$win/$t.exe" "$@"
}

for t in $(ls "$win" | sed -n 's/\.exe$//p'); do
	if w "$t" --help >"$tmp/help.w" 2>&1 && "$t" --help >"$tmp/help.l" 2>&1
	then
		same_file "windows-help-$t" "$tmp/help.w" "$tmp/help.l"
	else
		fail "windows-help-$t" "--help failed: $(head -c 200 "$tmp/help.w")"
	fi
done

# The sample: the stream, the events in every text format, and tables.
w etlcat -q -o "$tmp/s.w.zst" "$sample"
etlcat -q -o "$tmp/s.l.zst" "$sample"
same_file windows-sample-stream "$tmp/s.w.zst" "$tmp/s.l.zst"
for f in csv jsonl text; do
	w etlreport -f $f -o "$tmp/s.w.$f" "$tmp/s.w.zst"
	etlreport -f $f -o "$tmp/s.l.$f" "$tmp/s.l.zst"
	same_file "windows-sample-events-$f" "$tmp/s.w.$f" "$tmp/s.l.$f"
done

# The pipeline of rustc-cpu through files, then through Unix pipes.
w etlfilter --rustc -o "$tmp/b.w.zst" "$tmp/s.w.zst" &&
    w etlagg -o "$tmp/k.w.zst" cpu --by stack "$tmp/b.w.zst" &&
    w etlreport -f folded -o "$tmp/files.w.folded" "$tmp/k.w.zst" &&
    w etlagg -o "$tmp/p.w.zst" cpu --by process "$tmp/s.w.zst" &&
    w etlreport -f csv -o "$tmp/files.w.csv" "$tmp/p.w.zst"
etlcat -q "$sample" | etlfilter --rustc | etlagg cpu --by stack |
    etlreport -f folded >"$tmp/l.folded"
etlcat -q "$sample" | etlagg cpu --by process | etlreport -f csv >"$tmp/l.csv"
same_file windows-files-folded "$tmp/files.w.folded" "$tmp/l.folded"
same_file windows-files-csv "$tmp/files.w.csv" "$tmp/l.csv"
w etlcat -q "$sample" | w etlfilter --rustc | w etlagg cpu --by stack |
    w etlreport -f folded >"$tmp/pipe.w.folded"
same_file windows-pipe-folded "$tmp/pipe.w.folded" "$tmp/l.folded"
# The trace given to the tools directly: decoded on a Win32 thread.
w etlfilter --rustc "$sample" | w etlagg cpu --by stack |
    w etlreport -f folded >"$tmp/direct.w.folded"
same_file windows-direct-folded "$tmp/direct.w.folded" "$tmp/l.folded"
w etlagg cpu --by process "$sample" | w etlreport -f csv >"$tmp/direct.w.csv"
same_file windows-direct-csv "$tmp/direct.w.csv" "$tmp/l.csv"

# cmd.exe's pipe: Windows pipes end to end.  And NUL is not a terminal,
# so the stream may be written to it.
wsample=$(winepath -w "$sample" 2>/dev/null)
(cd "$win" && wine cmd /c "etlcat.exe -q $wsample | etlagg.exe cpu --by process | etlreport.exe -f csv") \
    >"$tmp/cmd.w.csv" 2>"$tmp/cmd.err"
same_file windows-cmd-pipe "$tmp/cmd.w.csv" "$tmp/l.csv"
(cd "$win" && wine cmd /c "etlcat.exe -q $wsample >NUL") 2>"$tmp/nul.err"
check_eq windows-nul-not-terminal "$?:$(cat "$tmp/nul.err")" "0:"

# A terminal (wine gives a pseudo-terminal a console): the stream is
# refused, with the usage status.
if command -v script >/dev/null 2>&1; then
	st=$(script -qc "wine '$win/etlcat.exe' -q '$sample'; echo rc=\$?" \
	    /dev/null </dev/null 2>&1 | tr -d '\r' |
	    sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | grep -o 'rc=[0-9]*')
	check_eq windows-terminal-refused "$st" rc=2
else
	skip windows-terminal-refused "no script(1) to make a terminal"
fi

# Standard input: a file (mapped) and a pipe (spooled to a temporary file).
etlcat -q <"$sample" >"$tmp/in.l.zst"
w etlcat -q <"$sample" >"$tmp/in.w.zst"
same_file windows-stdin-file "$tmp/in.w.zst" "$tmp/in.l.zst"
cat "$sample" | w etlcat -q >"$tmp/pipe.w.zst"
same_file windows-stdin-pipe "$tmp/pipe.w.zst" "$tmp/in.l.zst"

# Spaces and non-ASCII letters in directory and file names; the output
# named as a drive-letter path with backslashes.
dir="$tmp/dir with spaces/Ünïcödé 日本"
mkdir -p "$dir"
cp "$sample" "$dir/trace é ü.etl"
wdir=$(winepath -w "$dir" 2>/dev/null)
w etlcat -q -o "$wdir\\trace é ü.zst" "$dir/trace é ü.etl"
etlcat -q -o "$tmp/u.l.zst" "$dir/trace é ü.etl"
same_file windows-unicode-path-stream "$dir/trace é ü.zst" "$tmp/u.l.zst"
w etlreport -f csv -o "$wdir\\événements.csv" "$wdir\\trace é ü.zst"
same_file windows-unicode-path-csv "$dir/événements.csv" "$tmp/s.l.csv"
w etlcat -q -o "$tmp/missing.zst" "$dir/absent ü.etl" 2>"$tmp/err"
check_eq windows-unicode-path-error "$?:$(cat "$tmp/err")" \
    "1:etlcat.exe: $dir/absent ü.etl: No such file or directory
etlcat.exe: $tmp/missing.zst: not written: no input could be read"

# etlreport -f xlsx: the Windows build (its libxlsxwriter, zlib and
# temporary files) writes the workbook the Linux build writes of the
# same stream, cell for cell: the sheets, each cell's type, value and
# number format, the frozen header, the filter and the column widths.
# The bytes may differ (the zip's times, its compression), the cells
# may not.  Written to a drive-letter path with non-ASCII letters.
# same_cells NAME STREAM [STATUS]: both builds' workbooks of STREAM
# compared, and their exit statuses (STATUS, 0 if not given).
same_cells() {
	rm -f "$dir/wörkbook.xlsx" "$tmp/l.xlsx"
	w etlreport -q -f xlsx -o "$wdir\\wörkbook.xlsx" "$2" 2>"$tmp/x.err"
	st=$?
	etlreport -q -f xlsx -o "$tmp/l.xlsx" "$2" 2>/dev/null
	lst=$?
	if [ "$st:$lst" != "${3:-0}:${3:-0}" ]; then
		fail "$1" "exit $st, Linux $lst, expected ${3:-0}: $(head -c \
		    200 "$tmp/x.err")"
		return
	fi
	set -- "$1" $("$py" - "$dir/wörkbook.xlsx" "$tmp/l.xlsx" <<'PY'
import sys, openpyxl

def sheets(path):
    wb = openpyxl.load_workbook(path)
    out = []
    for ws in wb.worksheets:
        widths = sorted((k, v.width) for k, v in ws.column_dimensions.items())
        cells = [(c.coordinate, c.data_type, c.value, c.number_format)
                 for row in ws.iter_rows() for c in row]
        out.append((ws.title, ws.freeze_panes, ws.auto_filter.ref, widths,
                    cells))
    return out

win, lin = sheets(sys.argv[1]), sheets(sys.argv[2])
bad = []
if [s[0] for s in win] != [s[0] for s in lin]:
    bad.append('sheets %s, Linux %s' % ([s[0] for s in win],
                                        [s[0] for s in lin]))
for w, l in zip(win, lin):
    for what, i in (('frozen', 1), ('filter', 2), ('widths', 3)):
        if w[i] != l[i]:
            bad.append('%s: %s %r, Linux %r' % (w[0], what, w[i], l[i]))
    if len(w[4]) != len(l[4]):
        bad.append('%s: %d cells, Linux %d' % (w[0], len(w[4]), len(l[4])))
    for wc, lc in zip(w[4], l[4]):
        if wc != lc:
            bad.append('%s!%s: %r, Linux %r' % (w[0], wc[0], wc[1:], lc[1:]))
            break
n = sum(len(s[4]) for s in lin)
print(' '.join(bad[:3]).replace(' ', '_') if bad else
      'ok %d %d' % (len(lin), n))
PY
)
	if [ "$2" = ok ] && [ "$3" -ge "$want_sheets" ] && [ "$4" -gt 0 ]; then
		pass "$1 ($3 sheets, $4 cells)"
	else
		fail "$1" "${2:-nothing} $3 $4 (want ok, $want_sheets sheets or more)"
	fi
}

if ! w etlreport --help | grep -q '^  xlsx '; then
	fail windows-xlsx "etlreport.exe lists no xlsx format"
elif ! find_openpyxl; then
	skip windows-xlsx "no openpyxl to read the workbooks (apt-get install \
python3-openpyxl)"
else
	etlagg -q -o "$tmp/v.l.zst" sysconfig + stats + processes + tree + \
	    cpu --by process + cpu --by module + threads + waits --by thread + \
	    images "$sample" 2>/dev/null
	want_sheets=10
	same_cells windows-xlsx-views "$tmp/v.l.zst"
	want_sheets=2
	same_cells windows-xlsx-events "$tmp/s.l.zst"
	# More tables than Windows' C library opens files (512), each
	# sheet's temporary file open until the end: the tables past the
	# workbook's 250 are left out and said, as on Linux.
	etlagg -q -o "$tmp/st.zst" stats "$sample" 2>/dev/null
	for i in $(seq 600); do cat "$tmp/st.zst"; done >"$tmp/many.zst"
	want_sheets=251
	same_cells windows-xlsx-many-tables "$tmp/many.zst" 1
	check_eq windows-xlsx-many-tables-said "$(cat "$tmp/x.err")" \
	    "etlreport.exe: xlsx: 350 tables left out after the first 250: a \
workbook holds 250 sheets of tables; the CSV has them all"
	# A trace whose names start like formulas, with non-ASCII letters.
	if command -v etlsynth >/dev/null 2>&1 &&
	    etlsynth --events 5000 --rename 'rustc.exe==1+1+1+11' \
	    --rename 'cargo.exe=@SÜM(1+1)' -o "$tmp/h.etl" >/dev/null 2>&1 &&
	    etlagg -q -o "$tmp/h.l.zst" sysconfig + processes + threads + \
	    cpu --by process "$tmp/h.etl" 2>/dev/null; then
		want_sheets=5
		same_cells windows-xlsx-hostile "$tmp/h.l.zst"
	else
		skip windows-xlsx-hostile "no etlsynth on PATH (make build/etlsynth)"
	fi
fi

# The zip of make dist-windows, when there is one: the tools, the
# PowerShell pipelines, the recording profile, the manual as HTML.
zip=$ETL_TOP/build-windows/etl-windows-x64.zip
if [ -f "$zip" ] && command -v zip >/dev/null 2>&1; then
	zip -sf "$zip" | sed -n 's,^ *etl-windows-x64/,,p' >"$tmp/zip.list"
	missing=
	for f in $(cd "$win" && ls *.exe | sed 's,^,bin/,') \
	    $(cd "$ETL_TOP" && ls pipelines/*.ps1 pipelines/*.wprp) \
	    $(cd "$ETL_TOP/man" && ls | sed 's,^\(.*\)$,man/\1.html,') \
	    README.md; do
		grep -qx "$f" "$tmp/zip.list" || missing="$missing $f"
	done
	check_eq windows-dist-zip "$missing" ""
else
	skip windows-dist-zip "no $zip (make dist-windows, which needs \
mandoc and zip)"
fi

# The corpus: streams, event CSV and statistics; folded CPU stacks of
# the traces that have samples.
if [ ! -d "$ETL_CORPUS/etl" ]; then
	skip windows-corpus "no corpus at $ETL_CORPUS"
	exit 0
fi
# csv_dirs WIN-STREAM LINUX-STREAM: etlreport -f csv -o of each into
# $tmp/csv.w and $tmp/csv.l (a table may take a file of its own).
csv_dirs() {
	rm -rf "$tmp/csv.w" "$tmp/csv.l"
	mkdir "$tmp/csv.w" "$tmp/csv.l"
	w etlreport -f csv -o "$tmp/csv.w/t.csv" "$1"
	etlreport -f csv -o "$tmp/csv.l/t.csv" "$2"
}

# same_dirs NAME: the two directories hold the same files, byte for byte.
same_dirs() {
	if [ -z "$(ls "$tmp/csv.l")" ]; then
		fail "$1" "no CSV written"
	elif d=$(diff -r "$tmp/csv.w" "$tmp/csv.l" 2>&1); then
		pass "$1"
	else
		fail "$1" "$(echo "$d" | head -3)"
	fi
}

n=0
for f in "$ETL_CORPUS"/etl/*.etl "$ETL_CORPUS"/selfprofile/*/*.mm_profdata; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$(dirname "$f")")-$(basename "$f")
	w etlcat -q -o "$tmp/c.w.zst" "$f"
	etlcat -q -o "$tmp/c.l.zst" "$f"
	same_file "windows-corpus-stream-$name" "$tmp/c.w.zst" "$tmp/c.l.zst"
	csv_dirs "$tmp/c.w.zst" "$tmp/c.l.zst"
	same_dirs "windows-corpus-csv-$name"
	w etlagg stats "$tmp/c.w.zst" | w etlreport -f csv >"$tmp/st.w.csv"
	etlagg stats "$tmp/c.l.zst" | etlreport -f csv >"$tmp/st.l.csv"
	same_file "windows-corpus-stats-$name" "$tmp/st.w.csv" "$tmp/st.l.csv"
	case $f in
	*.mm_profdata)
		w etlagg -o "$tmp/q.w.zst" queries "$tmp/c.w.zst"
		etlagg -o "$tmp/q.l.zst" queries "$tmp/c.l.zst"
		csv_dirs "$tmp/q.w.zst" "$tmp/q.l.zst"
		same_dirs "windows-corpus-queries-$name"
		w etlreport -f chrome -o "$tmp/q.w.json" "$f"
		etlcat -q "$f" | etlreport -f chrome -o "$tmp/q.l.json"
		same_file "windows-corpus-direct-chrome-$name" "$tmp/q.w.json" \
		    "$tmp/q.l.json"
		w etlreport -f folded -o "$tmp/q.w.folded" "$f"
		etlagg querystacks "$f" | etlreport -f folded >"$tmp/q.l.folded"
		same_file "windows-corpus-direct-folded-$name" "$tmp/q.w.folded" \
		    "$tmp/q.l.folded"
		;;
	*perfview__net*)
		w etlagg cpu --by stack "$tmp/c.w.zst" |
		    w etlreport -f folded >"$tmp/k.w.folded"
		etlagg cpu --by stack "$tmp/c.l.zst" |
		    etlreport -f folded >"$tmp/k.l.folded"
		same_file "windows-corpus-folded-$name" "$tmp/k.w.folded" \
		    "$tmp/k.l.folded"
		;;
	esac
done
[ $n -gt 0 ] || fail windows-corpus "no trace in $ETL_CORPUS"
