#!/bin/sh
# etlreport -f xlsx read back with openpyxl (python3-openpyxl): a first
# sheet "Summary", then a sheet a table holding the rows of the CSV of
# that table (etlreport --csv-raw -o, a file a table, named as the
# sheets are): numbers numeric and equal, UTC times dates, text equal,
# the hostile names of a renamed trace included, and no formula
# anywhere; the header frozen under an autofilter.  A sheet past the
# row limit (lowered with ETL_XLSX_ROWS) says where it was cut, and the
# exit status is 1; so are the tables past a workbook's 250.

. "$(dirname "$0")/../testlib.sh"

if ! etlreport --help | grep -q '^  xlsx '; then
	skip xlsx "etlreport built without xlsx (libxlsxwriter-dev, make XLSX=yes)"
	exit 0
fi
etlreport -f xlsx "$tmp/none" >/dev/null 2>&1
check_eq xlsx-needs-o "$?" 2
if ! find_openpyxl; then
	skip xlsx "no openpyxl (apt-get install python3-openpyxl)"
	exit 0
fi
if ! command -v etlsynth >/dev/null; then
	skip xlsx "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi

etlsynth --events 20000 --rename 'rustc.exe==1+1+1+11' \
    --rename 'cargo.exe=@SUM(1+1)' \
    --rename 'rustc_driver-6a4f21c5a1e9d7b3.dll=-2+3.dll' \
    -o "$tmp/h.etl" >/dev/null 2>&1 &&
    etlcat -q -o "$tmp/h.zst" "$tmp/h.etl" ||
    { fail xlsx-generate "etlsynth or etlcat failed"; exit 0; }
views='sysconfig + stats + processes + tree + cpu --by process +
    cpu --by stack + cpu --by module + vmem + heap + threads +
    waits --by thread + switches + images'
# shellcheck disable=SC2086
etlagg -q -o "$tmp/all.zst" $views "$tmp/h.zst" 2>/dev/null
mkdir "$tmp/csv"
etlreport -q --csv-raw -f csv -o "$tmp/csv/t.csv" "$tmp/all.zst"
etlreport -q -f xlsx -o "$tmp/w.xlsx" "$tmp/all.zst"
check_eq xlsx-exit "$?" 0
etlreport -q --csv-raw -f csv -o "$tmp/csv/e.events.csv" "$tmp/h.zst"
etlreport -q -f xlsx -o "$tmp/e.xlsx" "$tmp/h.zst"

# Compares each sheet with its CSV; prints "ok SHEETS" or what differs.
compare() {
	"$py" - "$@" <<'PY'
import csv, datetime, re, sys
import openpyxl

book, prefix, ncols = sys.argv[1], sys.argv[2], int(sys.argv[3])
wb = openpyxl.load_workbook(book)
bad = []
if wb.sheetnames[0] != 'Summary':
    bad.append('first sheet %r' % wb.sheetnames[0])
dates = hostile = 0
for ws in wb.worksheets[1:]:
    name = ws.title
    rows = list(csv.reader(open('%s.%s.csv' % (prefix, name), newline='',
                                encoding='utf-8')))
    if ws.freeze_panes != 'A2' or not ws.auto_filter.ref:
        bad.append('%s: header not frozen or no filter' % name)
    cells = [[c for c in r] for r in ws.iter_rows()]
    if len(cells) != len(rows):
        bad.append('%s: %d rows, CSV %d' % (name, len(cells), len(rows)))
        continue
    head = rows[0]
    for i, (xr, cr) in enumerate(zip(cells, rows)):
        cr = cr[:ncols] if ncols else cr
        xr = xr[:len(cr)]
        for j, (xc, text) in enumerate(zip(xr, cr)):
            v = xc.value
            where = '%s!%s' % (name, xc.coordinate)
            if xc.data_type == 'f':
                bad.append('%s: a formula' % where)
            elif v is None:
                if text != '':
                    bad.append('%s: empty, CSV %r' % (where, text))
            elif isinstance(v, bool):
                if text != ('true' if v else 'false'):
                    bad.append('%s: %r, CSV %r' % (where, v, text))
            elif isinstance(v, datetime.datetime):
                dates += 1
                t = datetime.datetime.strptime(text, '%Y-%m-%d %H:%M:%S.%f')
                if abs((v - t).total_seconds()) > 0.001:
                    bad.append('%s: %s, CSV %r' % (where, v, text))
            elif isinstance(v, (int, float)):
                if re.match(r'^-?\d+$', text):
                    ok = v == int(text)
                else:
                    places = len(text.split('.')[1]) if '.' in text else 0
                    ok = abs(v - float(text)) <= 0.5 * 10 ** -places + \
                        1e-12 * abs(v)
                if not ok:
                    bad.append('%s: %r, CSV %r' % (where, v, text))
            elif v != text:
                bad.append('%s: %r, CSV %r' % (where, v, text))
            elif re.match(r'^(=1\+1|@SUM|-2\+3)', v):
                hostile += 1
            if i > 0 and head[j].endswith('_utc') and v is not None and \
                    not isinstance(v, datetime.datetime):
                bad.append('%s: a UTC time that is no date' % where)
print(' '.join(bad[:5]) if bad else 'ok %d %d %d' %
      (len(wb.sheetnames) - 1, dates, hostile))
PY
}

set -- $(compare "$tmp/w.xlsx" "$tmp/csv/t" 0)
if [ "$1" = ok ] && [ "$2" -ge 13 ] && [ "$3" -gt 0 ] && [ "$4" -gt 0 ]; then
	pass "xlsx-tables ($2 sheets, $3 dates, $4 hostile names)"
else
	fail xlsx-tables "$* (want ok, 13 sheets or more, dates, hostile names)"
fi
set -- $(compare "$tmp/e.xlsx" "$tmp/csv/e" 10)
[ "$1" = ok ] && [ "$4" -gt 0 ] && pass xlsx-events ||
    fail xlsx-events "$*"

# The Summary: the machine and the time range from sysconfig, the loss.
summary=$("$py" -c '
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["Summary"]
d = {}
for r in ws.iter_rows(values_only=True):
    d.setdefault(r[0], r[1])
print(str(d.get("source")).split("/")[-1], d.get("computer"), type(d.get("start_utc")).__name__,
    "lost" in d)' "$tmp/w.xlsx")
check_eq xlsx-summary "$summary" "h.etl RUSTBUILD-01 datetime True"

# A cut sheet: its last row says so, the Summary too, the exit status 1.
ETL_XLSX_ROWS=10 etlreport -q -f xlsx -o "$tmp/c.xlsx" "$tmp/all.zst" \
    2>"$tmp/c.err"
check_eq xlsx-cut-exit "$?" 1
grep -q 'sheet processes: cut after 8 rows' "$tmp/c.err" &&
    pass xlsx-cut-said || fail xlsx-cut-said "$(head -1 "$tmp/c.err")"
cut=$("$py" -c '
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb["processes"]
last = ws.cell(row=ws.max_row, column=1).value
cuts = [r[1] for r in wb["Summary"].iter_rows(values_only=True)
    if r[0] == "cut"]
print(ws.max_row, "left out here" in last, len(cuts) > 0)' "$tmp/c.xlsx")
check_eq xlsx-cut-sheet "$cut" "10 True True"

# A workbook of more tables than it holds (250: each sheet keeps a file
# open, and Windows' C library opens 512): the first 250, the rest said.
etlagg -q -o "$tmp/st.zst" stats "$tmp/h.zst" 2>/dev/null
for i in $(seq 260); do cat "$tmp/st.zst"; done >"$tmp/many.zst"
etlreport -q -f xlsx -o "$tmp/m.xlsx" "$tmp/many.zst" 2>"$tmp/m.err"
check_eq xlsx-many-tables-exit "$?" 1
check_eq xlsx-many-tables-said "$(cat "$tmp/m.err")" "etlreport: xlsx: 10 \
tables left out after the first 250: a workbook holds 250 sheets of \
tables; the CSV has them all"
many=$("$py" -c '
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
cuts = [r[1] for r in wb["Summary"].iter_rows(values_only=True)
    if r[0] == "cut"]
print(len(wb.sheetnames), wb.sheetnames[-1], len(cuts))' "$tmp/m.xlsx")
check_eq xlsx-many-tables-sheets "$many" "251 stats-250 1"

# The build report writes the workbook beside the page with -x.
report=$ETL_TOP/pipelines/rustc-report.sh
sh "$report" -x -o "$tmp/r.html" "$tmp/h.etl" >"$tmp/r.out" 2>/dev/null
sheets=$("$py" -c '
import sys, openpyxl
print(" ".join(openpyxl.load_workbook(sys.argv[1]).sheetnames[:4]))' \
    "$tmp/r.xlsx" 2>/dev/null)
check_eq xlsx-report "$(tail -1 "$tmp/r.out") $sheets" \
    "$tmp/r.xlsx Summary sysconfig crates threads"
