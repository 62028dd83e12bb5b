#!/bin/sh
# The conventions of the platforms (issue 34), as a user meets them:
# - every tool takes -h as it takes --help: the same usage on stdout,
#   nothing on stderr, exit 0 (as zstd -h does);
# - every script of pipelines/ that is run takes -h and --help (its
#   opening comment, which holds the usage it prints on a misuse), and
#   every .ps1 there -Help, with comment-based help that Get-Help shows
#   whole (a synopsis, a description, each parameter, an example);
# - the scripts that are run have their run bit in git;
# - a message names the path as the user gave it and says what is wrong
#   with it, once;
# - -q leaves no warning on stderr.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
sample=$top/testdata/sample.etl
tools="etlcat etlsym etlfilter etlagg etlreport"
command -v etlsynth >/dev/null && tools="$tools etlsynth"

# ---- -h and --help ----

# run NAME CMD...: CMD's stdout in $tmp/NAME.out, stderr in $tmp/NAME.err,
# status in $st.
run() {
	run_as=$1
	shift
	"$@" >"$tmp/$run_as.out" 2>"$tmp/$run_as.err" </dev/null
	st=$?
}

# helped NAME FIRST: the run $tmp/h (-h) printed its help as $tmp/l
# (--help) did: status 0, stdout starting with FIRST, stderr empty.
helped() {
	if [ "$st" != 0 ]; then
		fail "$1" "exit $st: $(head -1 "$tmp/h.err")"
	elif [ -s "$tmp/h.err" ]; then
		fail "$1" "said on stderr: $(head -1 "$tmp/h.err")"
	elif ! head -1 "$tmp/h.out" | grep -q "^$2"; then
		fail "$1" "stdout begins '$(head -1 "$tmp/h.out")'"
	elif ! cmp -s "$tmp/h.out" "$tmp/l.out"; then
		fail "$1" "-h and --help print different texts"
	else
		pass "$1"
	fi
}

for tool in $tools; do
	run l "$tool" --help
	run h "$tool" -h
	helped "conventions-$tool-h" "usage: $tool"
done
# After other options, and after etlagg's view (views have no usage of
# their own: etlagg's lists them all).
run l etlcat --help
run h etlcat -q -h
helped conventions-etlcat-q-h "usage: etlcat"
run l etlagg --help
run h etlagg cpu --by stack -h
helped conventions-etlagg-view-h "usage: etlagg"
run h etlagg cpu --help
helped conventions-etlagg-view-help "usage: etlagg"

# The scripts: those with a #! line are run (build-trace.sh is sourced).
# Their help holds the usage they print on a misuse.
flat() { tr -s ' \n\t' '   ' | sed 's/^ //; s/ $//'; }
for script in "$top"/pipelines/*.sh; do
	name=$(basename "$script")
	head -1 "$script" | grep -q '^#!' || continue
	run l sh "$script" --help
	run h sh "$script" -h
	helped "conventions-$name-h" "$name - "
	grep -qx "Usage: $name.*" "$tmp/h.out" ||
	    fail "conventions-$name-h-usage" "no 'Usage: $name' line"
	run bad sh "$script" -Z
	usage=$(grep -v 'llegal option' "$tmp/bad.err" | sed 's/^usage: //' |
	    flat)
	if [ "$st" = 2 ] && [ -n "$usage" ] &&
	    flat <"$tmp/h.out" | grep -qF "Usage: $usage"; then
		pass "conventions-$name-h-usage"
	else
		fail "conventions-$name-h-usage" "exit $st; '$usage' not in -h"
	fi
done
run h sh "$top/pipelines/demo.sh" -h
if grep -q '^== ' "$tmp/h.out"; then
	fail conventions-demo-h-no-demo "demo.sh -h ran the demo"
else
	pass conventions-demo-h-no-demo
fi

# The .ps1 scripts under PowerShell 7 (dot-sourced common.ps1 is not run).
pwsh=$(command -v pwsh 2>/dev/null || echo "$HOME/.dotnet/tools/pwsh")
export POWERSHELL_TELEMETRY_OPTOUT=1 POWERSHELL_UPDATECHECK=Off \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
if [ ! -x "$pwsh" ]; then
	skip conventions-ps1-help "no pwsh (not packaged by Debian: sh \
.ci/pwsh.sh installs PowerShell 7 where the .NET SDK is)"
elif ! "$pwsh" -NoProfile -NonInteractive -Command 1 >/dev/null 2>&1; then
	skip conventions-ps1-help "pwsh does not start"
else
	# What Get-Help lacks: a synopsis of its own (without help it
	# shows the syntax there, which names the file; a synopsis says
	# what the script does, as a cmdlet's does), a description, a
	# parameter of the script (its param block, read from the syntax
	# tree) without its text, an example.
	cat >"$tmp/lacks.ps1" <<'EOF'
param([string] $File)
$h = Get-Help -Full $File
$lacks = @()
$leaf = Split-Path -Leaf $File
if (-not $h.Synopsis -or $h.Synopsis.Contains($leaf)) { $lacks += 'synopsis' }
if (-not $h.description) { $lacks += 'description' }
if (-not $h.examples) { $lacks += 'example' }
$ast = [System.Management.Automation.Language.Parser]::ParseFile($File, [ref] $null, [ref] $null)
foreach ($p in $ast.ParamBlock.Parameters) {
	$n = $p.Name.VariablePath.UserPath
	$d = @($h.parameters.parameter | Where-Object { $_.name -eq $n })
	if ($d.Count -eq 0 -or -not $d[0].description) { $lacks += "-$n" }
}
$lacks -join ' '
EOF
	for script in "$top"/pipelines/*.ps1; do
		name=$(basename "$script")
		[ "$name" = common.ps1 ] && continue
		run h "$pwsh" -NoProfile -NonInteractive -File "$script" -Help
		if [ "$st" != 0 ] || [ -s "$tmp/h.err" ]; then
			fail "conventions-$name-help" \
			    "exit $st: $(head -c 200 "$tmp/h.err")"
		elif ! grep -q '^SYNOPSIS' "$tmp/h.out" ||
		    ! grep -q '^ *-Help' "$tmp/h.out"; then
			fail "conventions-$name-help" "not Get-Help's text"
		else
			pass "conventions-$name-help"
		fi
		lacks=$("$pwsh" -NoProfile -NonInteractive -File \
		    "$tmp/lacks.ps1" "$script" 2>&1)
		check_eq "conventions-$name-get-help" "$lacks" ""
	done
fi

# ---- run bits, as git records them ----

if ! command -v git >/dev/null; then
	skip conventions-run-bits "no git"
elif ! git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	skip conventions-run-bits "not a git checkout: no modes to look at"
else
	# The scripts a user runs, named as README.md shows them: those of
	# pipelines/ with a #! line.  (The others are run as `sh FILE` by
	# make and CI, or sourced.)
	n=0 bad=
	for f in $(git -C "$top" ls-files 'pipelines/*.sh'); do
		head -1 "$top/$f" | grep -q '^#!' || continue
		n=$((n + 1))
		mode=$(git -C "$top" ls-files -s -- "$f" | cut -d' ' -f1)
		[ "$mode" = 100755 ] || bad="$bad $f ($mode)"
	done
	if [ $n -lt 8 ]; then
		fail conventions-run-bits "only $n scripts found"
	else
		check_eq conventions-run-bits "${bad# }" ""
	fi
fi

# ---- messages ----

# said NAME WANT: the run failed (status 1) and said WANT, only that.
said() {
	check_eq "$1" "$st $(cat "$tmp/m.err")" "1 $2"
}

etlcat -q "$sample" | etlagg -q crates + processes >"$tmp/two.zst"
etlcat -q "$sample" | etlagg -q processes >"$tmp/one.zst"
run m etlreport -q -f csv -o "$tmp/none/x.csv" "$tmp/one.zst"
said conventions-csv-no-dir \
    "etlreport: $tmp/none/x.csv: cannot create: No such file or directory"
# The second table's file cannot be made: it is named, and the first
# table's file is not left behind.
mkdir -p "$tmp/out/x.processes.csv.tmp"
run m etlreport -q -f csv -o "$tmp/out/x.csv" "$tmp/two.zst"
said conventions-csv-second \
    "etlreport: $tmp/out/x.processes.csv: cannot create: Is a directory"
check_eq conventions-csv-second-cleaned "$(ls "$tmp/out")" \
    x.processes.csv.tmp

run m sh "$top/pipelines/rustc-report.sh" -o "$tmp/none/dir/r.html" "$sample"
said conventions-report-no-dir "rustc-report.sh: $tmp/none/dir/r.html: \
cannot create: no directory $tmp/none/dir"

# A file that is no input: every tool says what etlcat says, since a
# trace or a profile would have been taken too.
echo 'some notes, not a trace' >"$tmp/notes.txt"
mkdir -p "$tmp/nosyms"
for cmd in "etlcat -o /dev/null" "etlsym -y $tmp/nosyms -o /dev/null" \
    "etlfilter -o /dev/null" "etlagg -o /dev/null stats" \
    "etlreport -o /dev/null"; do
	tool=${cmd%% *}
	run m $cmd "$tmp/notes.txt"
	said "conventions-not-input-$tool" "$tool: $tmp/notes.txt: not an \
ETL file, rustc self-profile or event stream (offset 0x0)"
done

# ---- -q: no warning ----

# The sample was recorded with CPU samples and CSwitch stacks, which the
# wait views and sysconfig warn of; it is also lossy input.
etlcat -q -o "$tmp/s.zst" "$sample"
for view in threads waits switches threadtime sysconfig; do
	run m etlagg "$view" "$tmp/s.zst"
	if ! grep -q 'overhead skews the samples' "$tmp/m.err"; then
		fail "conventions-quiet-$view" "no warning without -q to drop"
		continue
	fi
	run m etlagg -q "$view" "$tmp/s.zst"
	check_eq "conventions-quiet-$view" "$st $(cat "$tmp/m.err")" "0 "
done
for cmd in "etlcat -o /dev/null $sample" "etlfilter -o /dev/null $sample" \
    "etlsym -y $tmp/nosyms -o /dev/null $tmp/s.zst" \
    "etlreport -o /dev/null $tmp/s.zst"; do
	tool=${cmd%% *}
	run m $cmd
	grep -q 'lossy input' "$tmp/m.err" ||
	    fail "conventions-quiet-$tool" "no warning without -q to drop"
	run m $tool -q ${cmd#* }
	check_eq "conventions-quiet-$tool" "$st $(cat "$tmp/m.err")" "0 "
done
