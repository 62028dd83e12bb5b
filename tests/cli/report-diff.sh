#!/bin/sh
# The build report against a baseline (rustc-report.sh --baseline): the
# tables of the views that count have the baseline's figures and the
# changes, the flame graphs are differential, and the Summary shows both
# machines, warns when they differ, and gives both builds' samples (the
# sums of the processes tables of the two builds, made apart).  The
# PowerShell twin writes the same page.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
report=$top/pipelines/rustc-report.sh

if ! command -v etlsynth >/dev/null; then
	skip report-diff "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
etlsynth --seed 1 --size 4000000 -o "$tmp/old.etl" >/dev/null &&
    etlsynth --seed 2 --size 4000000 --slow-crate compiler_builtins \
    -o "$tmp/new.etl" >/dev/null &&
    etlsynth --seed 1 --size 4000000 --cpus 8 -o "$tmp/other.etl" \
    >/dev/null || { fail report-diff-generate "etlsynth failed"; exit 0; }

sh "$report" --baseline "$tmp/old.etl" -o "$tmp/d.html" "$tmp/new.etl" \
    >"$tmp/out" 2>"$tmp/err"
check_eq report-diff-status "$?:$(cat "$tmp/out")" "0:$tmp/d.html"
grep -q '<title>new: rustc build report against old.etl</title>' \
    "$tmp/d.html" && pass report-diff-title ||
    fail report-diff-title "$(grep -o '<title>[^<]*' "$tmp/d.html")"
check_eq report-diff-self-contained \
    "$(grep -c 'href=\|src=\|url(\|@import' "$tmp/d.html")" 0

# The crates table has the baseline's figures and the changes: the
# columns of their names in CSV (data-col), headed for people.
crates=$(sed -n '/id="tab-crates"/,/<\/section>/p' "$tmp/d.html")
for col in cpu_base_ms:'cpu base ([^)]*s)' cpu_delta_ms:'cpu delta ([^)]*s)' \
    wall_delta_s:'wall delta ([^)]*s)' \
    peak_commit_base_bytes:'peak commit base ([KMG]iB)'; do
	echo "$crates" | grep -q "data-col=\"${col%%:*}\">${col#*:}<" &&
	    pass "report-diff-${col%%:*}" || fail "report-diff-${col%%:*}" \
	    "no column ${col%%:*} headed '${col#*:}' in the crates tab"
done

# Both builds' samples: those of their processes tables.
samples() {
	etlfilter -q --rustc "$1" | etlagg -q processes |
	    etlreport -q -f csv | csv_lf | awk -F, 'NR == 1 {
		for (i = 1; i <= NF; i++) if ($i == "samples") c = i; next }
	    { n += $c } END { print n + 0 }'
}
want="CPU samples: $(samples "$tmp/old.etl") in the baseline, \
$(samples "$tmp/new.etl") in this build."
grep -q "$want" "$tmp/d.html" && pass report-diff-samples ||
    fail report-diff-samples "want '$want', got '$(grep -o \
'CPU samples: [0-9]* in the baseline, [0-9]* in this build.' "$tmp/d.html")'"
grep -q 'The traces come from one machine and system.' "$tmp/d.html" &&
    pass report-diff-same-machine ||
    fail report-diff-same-machine "no word on the machines"

# The CPU tab's flame graph is differential: red and blue frames.
sed -n '/id="tab-cpu"/,/<\/section>/p' "$tmp/d.html" >"$tmp/cpu"
red=$(grep -o 'fill=&quot;rgb(255,[0-9]*,[0-9]*)&quot;' "$tmp/cpu" |
    grep -vc 'rgb(255,255,255)')
blue=$(grep -o 'fill=&quot;rgb([0-9]*,[0-9]*,255)&quot;' "$tmp/cpu" |
    grep -vc 'rgb(255,255,255)')
if [ "$red" -gt 0 ] && [ "$blue" -gt 0 ] &&
    grep -q 'in the base (red grew, blue shrank)' "$tmp/cpu"; then
	pass report-diff-flame-graph
else
	fail report-diff-flame-graph "$red red, $blue blue frames"
fi

# Another machine: the Summary says which fields differ.
sh "$report" --baseline "$tmp/other.etl" -o "$tmp/o.html" "$tmp/new.etl" \
    >/dev/null 2>&1
grep -q 'recorded on different machines or systems.*: cpus' "$tmp/o.html" &&
    pass report-diff-other-machine ||
    fail report-diff-other-machine "no warning of another machine"

# The PowerShell twin writes the same page.
pwsh=$(command -v pwsh 2>/dev/null || echo "$HOME/.dotnet/tools/pwsh")
if [ ! -x "$pwsh" ]; then
	skip report-diff-ps1 "no pwsh (sh .ci/pwsh.sh installs PowerShell 7)"
	exit 0
fi
(cd "$tmp" && "$pwsh" -NoProfile -NonInteractive -File \
    "$top/pipelines/rustc-report.ps1" -Baseline "$tmp/old.etl" \
    -Out "$tmp/p.html" "$tmp/new.etl" >/dev/null 2>&1)
same_file report-diff-ps1 "$tmp/p.html" "$tmp/d.html"
