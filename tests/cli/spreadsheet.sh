#!/bin/sh
# A trace from someone else's machine cannot make a spreadsheet compute:
# a trace whose process, image and module names start with '=', '+',
# '-' and '@' (etlsynth --rename) through every view, the event list,
# --diff and --merge as CSV; no text cell may start with a character a
# spreadsheet evaluates, and the hostile names are there, defused as
# OWASP advises ("'=1+1+1+11").  --csv-raw writes them as they are.
# With LibreOffice (libreoffice-calc-nogui), the CSV goes through Calc
# headless and back, and no cell holds what a formula computed.

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip spreadsheet "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	skip spreadsheet "no python3 to read the CSV back"
	exit 0
fi

etlsynth --events 20000 --rename 'rustc.exe==1+1+1+11' \
    --rename 'cargo.exe=@SUM(1+1)*cmd|calc' \
    --rename 'rustc_driver-6a4f21c5a1e9d7b3.dll=-2+3.dll' \
    --rename 'link.exe=+7+7' -o "$tmp/h.etl" >/dev/null 2>&1 &&
    etlcat -q -o "$tmp/h.zst" "$tmp/h.etl" ||
    { fail spreadsheet-generate "etlsynth or etlcat failed"; exit 0; }

views='stats + sysconfig + processes + tree + cpu --by process +
    cpu --by stack + cpu --by module + cpu --by function + vmem +
    vmem --by stack + heap + threads + threads --by process +
    waits --by stack + waits --by thread + switches + threadtime + images'
# shellcheck disable=SC2086
etlagg -q -o "$tmp/all.zst" $views "$tmp/h.zst" 2>/dev/null
mkdir "$tmp/csv" "$tmp/raw"
etlreport -q -f csv -o "$tmp/csv/t.csv" "$tmp/all.zst" 2>/dev/null
etlreport -q --csv-raw -f csv -o "$tmp/raw/t.csv" "$tmp/all.zst" 2>/dev/null
etlreport -q -f csv -o "$tmp/csv/events.csv" "$tmp/h.zst" 2>/dev/null
etlreport -q --csv-raw -f csv -o "$tmp/raw/events.csv" "$tmp/h.zst" \
    2>/dev/null
etlagg -q cpu --by module --diff "$tmp/h.zst" "$tmp/h.zst" 2>/dev/null |
    etlreport -q -f csv -o "$tmp/csv/diff.csv"
etlagg -q -o "$tmp/m.zst" cpu --by stack "$tmp/h.zst" 2>/dev/null
etlagg -q --merge cpu --by stack "$tmp/m.zst" "$tmp/m.zst" 2>/dev/null |
    etlreport -q -f csv -o "$tmp/csv/merge.csv"

# Each file: "tables cells live defused hostile", live counting the text
# cells that start with = + - @ tab or CR (a plain number is not text),
# hostile those that hold one of the renamed names.
count() {
	python3 - "$@" <<'PY'
import csv, re, sys
num = re.compile(r'^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$')
files = cells = live = defused = hostile = 0
for path in sys.argv[1:]:
    files += 1
    with open(path, newline='', encoding='utf-8') as f:
        for row in csv.reader(f):
            for c in row:
                cells += 1
                if re.search(r'=1\+1\+1\+11|@SUM|-2\+3|\+7\+7', c):
                    hostile += 1
                if c[:1] == "'":
                    defused += 1
                elif c[:1] in ('=', '+', '-', '@', '\t', '\r') and \
                        not num.match(c):
                    live += 1
print(files, cells, live, defused, hostile)
PY
}

set -- $(count "$tmp"/csv/*.csv)
if [ "${1:-0}" -lt 20 ] || [ "${5:-0}" -eq 0 ]; then
	fail spreadsheet-tables "$1 files, $5 cells with a hostile name"
else
	pass spreadsheet-tables
fi
check_eq spreadsheet-no-live "${3:-x}" 0
[ "${4:-0}" -gt 0 ] && pass spreadsheet-defused ||
    fail spreadsheet-defused "no cell got its quote"
for f in events diff merge; do
	grep -q "\"'=1+1+1+11\|\"'-2+3.dll\|\"'+7+7" "$tmp/csv/$f.csv" &&
	    pass "spreadsheet-$f" ||
	    fail "spreadsheet-$f" "no defused hostile name in $f.csv"
done
set -- $(count "$tmp"/raw/*.csv)
[ "${3:-0}" -gt 0 ] && [ "${4:-x}" -eq 0 ] && pass spreadsheet-raw ||
    fail spreadsheet-raw "--csv-raw: $3 live cells, $4 quoted"
# Each cell is the raw one, or the raw one with a quote if it is live.
python3 - "$tmp"/csv/t.*.csv <<'PY' >"$tmp/same"
import csv, os, sys
bad = 0
for safe in sys.argv[1:]:
    raw = safe.replace('/csv/', '/raw/')
    a = list(csv.reader(open(safe, newline='', encoding='utf-8')))
    b = list(csv.reader(open(raw, newline='', encoding='utf-8')))
    if len(a) != len(b):
        bad += 1
        continue
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            if x != y and x != "'" + y:
                bad += 1
print(bad)
PY
check_eq spreadsheet-raw-same "$(cat "$tmp/same")" 0

# Calc: open the CSV with formulas evaluated, save it as CSV again.
calc=$(command -v soffice || command -v libreoffice || command -v localc)
if [ -z "$calc" ]; then
	skip spreadsheet-calc "no LibreOffice (apt-get install libreoffice-calc-nogui)"
	exit 0
fi
cp "$tmp/csv/t.processes.csv" "$tmp/p.csv"
cp "$tmp/raw/t.processes.csv" "$tmp/r.csv"
mkdir "$tmp/calc"
# Import: comma, double quote, UTF-8, from line 1, standard columns,
# ..., the 13th token "true": evaluate formulas.  Export the first
# sheet as CSV, each cell as Calc shows it.
HOME=$tmp timeout 120 "$calc" --headless --norestore \
    --infilter='CSV:44,34,76,1,,0,false,true,false,false,false,-1,true' \
    --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1' \
    --outdir "$tmp/calc" "$tmp/p.csv" "$tmp/r.csv" >/dev/null 2>&1
if [ ! -s "$tmp/calc/p.csv" ] || [ ! -s "$tmp/calc/r.csv" ]; then
	fail spreadsheet-calc "LibreOffice wrote no CSV"
	exit 0
fi
# "changed cells": the text cells (not numbers, not times) that Calc
# shows otherwise than the file holds them: what a formula made.
changed() {
	python3 - "$1" "$2" <<'PY'
import csv, re, sys
num = re.compile(r'^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$')
a = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
b = list(csv.reader(open(sys.argv[2], newline='', encoding='utf-8')))
n = 0 if len(a) == len(b) else 1000000
for ra, rb in zip(a, b):
    for x, y in zip(ra, rb):
        if x != y and not num.match(x) and not re.match(r'\d{4}-', x):
            n += 1
print(n)
PY
}
# The raw file shows that Calc evaluates here (=1+1+1+11 becomes 14).
raw=$(changed "$tmp/r.csv" "$tmp/calc/r.csv")
[ "${raw:-0}" -gt 0 ] && pass spreadsheet-calc-evaluates ||
    fail spreadsheet-calc-evaluates "Calc computed no cell of the raw CSV"
check_eq spreadsheet-calc-safe "$(changed "$tmp/p.csv" "$tmp/calc/p.csv")" 0
