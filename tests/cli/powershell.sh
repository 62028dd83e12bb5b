#!/bin/sh
# The tools and pipelines under real PowerShell 7 (pwsh), on Linux with
# the Linux build:
# - native byte pipes and redirection (pwsh 7.4 and later pass bytes);
# - every pipelines/*.ps1 that has a .sh twin, end to end on the sample
#   and on a corpus trace, writing the same files as its twin, byte for
#   byte, and printing the same list;
# - Import-Csv reads every CSV the tools write (each table of each view,
#   and the events) with the header's columns and the same rows and
#   numbers as the JSON Lines of the same table;
# - ConvertFrom-Json reads the JSON Lines one object a line, an event's
#   decoded fields as properties of their own.
# Skips when pwsh is missing (.ci/pwsh.sh installs it).

. "$(dirname "$0")/../testlib.sh"

pwsh=$(command -v pwsh 2>/dev/null || echo "$HOME/.dotnet/tools/pwsh")
if [ ! -x "$pwsh" ]; then
	skip powershell "no pwsh (not packaged by Debian: sh .ci/pwsh.sh \
installs PowerShell 7 where the .NET SDK is)"
	exit 0
fi
export POWERSHELL_TELEMETRY_OPTOUT=1 POWERSHELL_UPDATECHECK=Off \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
ps() { "$pwsh" -NoProfile -NonInteractive -Command "$@"; }
if ! version=$(ps '$PSVersionTable.PSVersion.ToString()' 2>&1); then
	skip powershell "pwsh does not start: $(echo "$version" | head -c 200)"
	exit 0
fi
sample=$ETL_TOP/testdata/sample.etl
profiles=$ETL_TOP/testdata/selfprofile


# Native byte pipes: PSNativeCommandPreserveBytePipe, on by default
# since 7.4.
case $version in
[0-6].* | 7.[0-3].*)
	skip powershell-byte-pipe "pwsh $version passes text, not bytes (7.4 or later needed)"
	;;
*)
	etlcat -q "$sample" >"$tmp/s.zst"
	etlcat -q "$sample" | etlagg stats | etlreport -f csv >"$tmp/stats.csv"
	etlcat -q "$sample" | etlagg cpu --by stack | etlreport -f folded \
	    >"$tmp/stack.folded"
	ps "etlcat -q '$sample' > '$tmp/ps.zst'
	    etlcat -q '$sample' | etlagg stats | etlreport -f csv > '$tmp/ps.csv'
	    etlcat -q '$sample' | etlagg cpu --by stack | etlreport -f folded > '$tmp/ps.folded'"
	same_file powershell-byte-redirect "$tmp/ps.zst" "$tmp/s.zst"
	same_file powershell-byte-pipe-csv "$tmp/ps.csv" "$tmp/stats.csv"
	same_file powershell-byte-pipe-folded "$tmp/ps.folded" "$tmp/stack.folded"
	;;
esac

# The scripts keep to what Windows PowerShell 5.1 understands, as the
# README promises: no PowerShell 7 syntax (?:, ??, &&, ||), no Join-Path
# of three paths, no ForEach-Object -Parallel, no $IsWindows, and ASCII
# text (5.1 reads a file without a byte-order mark as ANSI).  Checked on
# the syntax tree.
cat >"$tmp/ps51.ps1" <<'EOF'
param([Parameter(ValueFromRemainingArguments = $true)] [string[]] $Scripts)
foreach ($file in $Scripts) {
	$tokens = $null; $errors = $null
	$ast = [System.Management.Automation.Language.Parser]::ParseFile($file, [ref] $tokens, [ref] $errors)
	$bad = @()
	if ($errors.Count -gt 0) { $bad += "does not parse: $($errors[0].Message)" }
	$bytes = [IO.File]::ReadAllBytes($file)
	$bom = $bytes.Count -ge 3 -and $bytes[0] -eq 0xef -and $bytes[1] -eq 0xbb -and $bytes[2] -eq 0xbf
	if (-not $bom -and @($bytes | Where-Object { $_ -gt 127 }).Count -gt 0) {
		$bad += "non-ASCII text without a byte-order mark (5.1 would read it as ANSI)"
	}
	$found = $ast.FindAll({ param($n)
		$n -is [System.Management.Automation.Language.TernaryExpressionAst] -or
		$n -is [System.Management.Automation.Language.PipelineChainAst] -or
		($n -is [System.Management.Automation.Language.BinaryExpressionAst] -and $n.Operator -eq 'QuestionQuestion') -or
		($n -is [System.Management.Automation.Language.AssignmentStatementAst] -and $n.Operator -eq 'QuestionQuestionEquals') -or
		($n -is [System.Management.Automation.Language.VariableExpressionAst] -and $n.VariablePath.UserPath -in 'IsWindows', 'IsLinux', 'IsMacOS')
	}, $true)
	foreach ($n in $found) { $bad += "line $($n.Extent.StartLineNumber): $($n.Extent.Text)" }
	foreach ($c in $ast.FindAll({ param($n) $n -is [System.Management.Automation.Language.CommandAst] }, $true)) {
		$name = $c.GetCommandName()
		$args1 = @($c.CommandElements | Select-Object -Skip 1)
		$positional = @($args1 | Where-Object { $_ -isnot [System.Management.Automation.Language.CommandParameterAst] })
		if ($name -eq 'Join-Path' -and $positional.Count -gt 2) {
			$bad += "line $($c.Extent.StartLineNumber): Join-Path with more than two paths"
		}
		if ($name -eq 'ForEach-Object' -and ($args1 | Where-Object { $_ -is [System.Management.Automation.Language.CommandParameterAst] -and $_.ParameterName -like 'Parallel*' })) {
			$bad += "line $($c.Extent.StartLineNumber): ForEach-Object -Parallel"
		}
	}
	$name = "powershell-5.1-syntax-" + [IO.Path]::GetFileNameWithoutExtension($file)
	if ($bad) { "FAIL ${name}: $($bad -join '; ')" } else { "PASS $name" }
}
EOF
"$pwsh" -NoProfile -NonInteractive -File "$tmp/ps51.ps1" \
    "$ETL_TOP"/pipelines/*.ps1 2>&1

# Each .ps1 with a .sh twin, on the sample or the test profiles, and on
# a corpus trace or profile with every process (-All, -a).
corpus_trace=$ETL_CORPUS/etl/perfview__net.4.5.2.x64.etl
corpus_profiles=$ETL_CORPUS/selfprofile/b-medium
n=0
for script in "$ETL_TOP"/pipelines/*.ps1; do
	twin=${script%.ps1}.sh
	[ -f "$twin" ] || continue
	base=$(basename "$script" .ps1)
	param=$(sed -n 's/.*Position = 0)\] \[string\] \$\([A-Za-z]*\).*/\1/p' \
	    "$script" | head -1)
	case $param in
	ProfDir)	runs="sample:$profiles corpus:$corpus_profiles" ;;
	*)		runs="sample:$sample corpus:$corpus_trace" ;;
	esac
	for run in $runs; do
		what=${run%%:*}
		input=${run#*:}
		if [ ! -e "$input" ]; then
			skip "powershell-$base-$what" "no $input"
			continue
		fi
		shopt=
		psopt=
		if [ $what = corpus ] && grep -q '\[switch\] \$All' "$script"; then
			shopt=-a
			psopt=-All
		fi
		d=$tmp/$base-$what
		mkdir -p "$d/sh" "$d/ps"
		sh "$twin" $shopt -o "$d/sh" "$input" >"$d/sh.out" 2>"$d/sh.err"
		shst=$?
		"$pwsh" -NoProfile -NonInteractive -File "$script" "$input" \
		    -OutDir "$d/ps" $psopt >"$d/ps.out" 2>"$d/ps.err"
		psst=$?
		name=powershell-$base-$what
		n=$((n + 1))
		if [ $shst -ne $psst ]; then
			fail "$name" "exit $psst, the .sh twin $shst: $(head -c 300 "$d/ps.err")"
			continue
		fi
		[ $shst -eq 0 ] || { fail "$name" "exit $shst: $(head -c 300 "$d/sh.err")"; continue; }
		check_eq "$name-list" \
		    "$(sed 's,.*/,,' "$d/ps.out")" "$(sed 's,.*/,,' "$d/sh.out")"
		check_eq "$name-files" "$(ls "$d/ps")" "$(ls "$d/sh")"
		bad=
		for f in "$d/sh"/*; do
			# The sample holds every kind of event; a corpus trace
			# may lack some (no VirtualAlloc: an empty flame graph).
			[ -s "$f" ] || [ $what != sample ] ||
			    bad="$bad $(basename "$f")(empty)"
			cmp -s "$f" "$d/ps/$(basename "$f")" ||
			    bad="$bad $(basename "$f")"
		done
		if [ -z "$bad" ] && [ -n "$(ls "$d/sh")" ]; then
			pass "$name-equal"
		else
			fail "$name-equal" "differ from the .sh twin's:$bad"
		fi
	done
done
[ $n -gt 0 ] || fail powershell-pipelines "no .ps1 with a .sh twin ran"

# record-rustc.ps1 with a stand-in for wpr that logs its arguments and
# saves the sample as the trace: the commands WPR gets, the trace kept
# under a name with a space, the build's exit status, the reports.
mkdir -p "$tmp/wpr"
cat >"$tmp/wpr/wpr" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/wpr.log"
case \$1 in
-start)	[ -z "\$WPR_FAIL" ] || exit 5 ;;
-stop)	cp "$sample" "\$2" ;;
esac
EOF
chmod +x "$tmp/wpr/wpr"
rec=$ETL_TOP/pipelines/record-rustc.ps1
wprp=$ETL_TOP/pipelines/rustc.wprp
mkdir -p "$tmp/rec"
# record CMD: record-rustc.ps1 run from a PowerShell prompt in $tmp/rec.
record() {
	(cd "$tmp/rec" && PATH=$tmp/wpr:$PATH "$pwsh" -NoProfile \
	    -NonInteractive -Command "& '$rec' $1; exit \$LASTEXITCODE" \
	    >"$tmp/rec.out" 2>"$tmp/rec.err")
}
: >"$tmp/wpr.log"
record "-Trace 'the build.etl' -OutDir report -- sh -c 'echo \$0 \$* >build.txt; exit 3' x build --stage 2 library"
check_eq powershell-record-status "$?" 3
check_eq powershell-record-wpr "$(cat "$tmp/wpr.log")" \
    "-start $wprp!Rustc -filemode
-stop $tmp/rec/the build.etl"
check_eq powershell-record-build "$(cat "$tmp/rec/build.txt")" \
    "x build --stage 2 library"
check_eq powershell-record-reports "$(ls "$tmp/rec/report")" \
    "$( (ls "$tmp/rustc-cpu-sample/sh"; ls "$tmp/rustc-processes-sample/sh"
    ls "$tmp/rustc-memory-sample/sh") |
    sed 's/^sample/the build/' | sort)"
if cmp -s "$tmp/rec/report/the build.cpu-stacks.csv" \
    "$tmp/rustc-cpu-sample/sh/sample.cpu-stacks.csv"; then
	pass powershell-record-report-equal
else
	fail powershell-record-report-equal "the build.cpu-stacks.csv differs"
fi
: >"$tmp/wpr.log"
record "-Mode Heap -SnapshotSeconds 1 -NoAnalysis -Trace heap.etl -- sh -c 'sleep 1.5'"
check_eq powershell-record-heap "$?:$(grep -v singlesnapshot "$tmp/wpr.log")" \
    "0:-snapshotconfig heap -name rustc.exe enable
-start $wprp!RustcHeap -filemode
-stop $tmp/rec/heap.etl
-snapshotconfig heap -name rustc.exe disable"
: >"$tmp/wpr.log"
WPR_FAIL=1 record "-Trace no.etl -- sh -c 'echo ran >ran.txt'"
check_eq powershell-record-wpr-fails \
    "$?:$(grep -c 'wpr -start .* failed (exit status 5)' "$tmp/rec.err"):$(ls "$tmp/rec/ran.txt" 2>/dev/null)" \
    "1:1:"

# Import-Csv and ConvertFrom-Json, checked by a PowerShell script: one
# directory a table, with t.csv (etlreport -f csv -o; more files if a
# table is split) and t.jsonl; events in events/.
cat >"$tmp/check.ps1" <<'EOF'
param([string] $Dir)
$inv = [Globalization.CultureInfo]::InvariantCulture
$styles = [Globalization.NumberStyles]::Float
function Say([string] $Verdict, [string] $Name, [string] $Why) {
	if ($Why) { "$Verdict ${Name}: $Why" } else { "$Verdict $Name" }
}
# A number in CSV equals one in JSON as is, or in a unit 10^3, 10^6 or
# 10^9 larger (CSV times in seconds or ms, JSON in ns).
function Same-Number([double] $c, [double] $j) {
	foreach ($scale in 1, 1e3, 1e6, 1e9) {
		$d = [math]::Abs($c * $scale - $j)
		if ($d -le 1e-6 * [math]::Max(1, [math]::Abs($j))) {
			return $true
		}
	}
	return $false
}
# How a CSV row differs from a JSON object of the same table, or ''.
function Compare-Row($Row, $Object, [string] $Where) {
	$out = ''
	$cv = @($Row.PSObject.Properties.Value)
	$cn = @($Row.PSObject.Properties.Name)
	$jp = @($Object.PSObject.Properties)
	for ($k = 0; $k -lt $jp.Count -and $k -lt $cv.Count; $k++) {
		$j = $jp[$k].Value
		if ($j -isnot [long] -and $j -isnot [int] -and
		    $j -isnot [double] -and $j -isnot [decimal] -and
		    $j -isnot [Numerics.BigInteger]) { continue }
		$c = 0.0
		$when = [datetime]::MinValue
		if ([double]::TryParse($cv[$k], $styles, $inv, [ref] $c)) {
			# Percentages are written with two decimals in CSV.
			if ($cn[$k] -match '_pct$' -and
			    [math]::Abs($c - [double] $j) -le 0.005) { continue }
			if (-not (Same-Number $c ([double] $j))) {
				$out += " $Where $($jp[$k].Name): CSV $($cv[$k]), JSON $j"
			}
		} elseif (-not [datetime]::TryParse($cv[$k], $inv,
		    [Globalization.DateTimeStyles]::None, [ref] $when)) {
			$out += " $Where $($jp[$k].Name): '$($cv[$k])' is not a number"
		}
	}
	return $out
}

foreach ($t in Get-ChildItem -Directory -LiteralPath $Dir) {
	$name = "powershell-import-csv-$($t.Name)"
	# One section a table: a file of its own, or separated by a blank line.
	$sections = @()
	foreach ($f in Get-ChildItem -LiteralPath $t.FullName -Filter '*.csv' |
	    Sort-Object Name) {
		$text = [IO.File]::ReadAllText($f.FullName)
		foreach ($s in $text -split "\r\n\r\n|\n\n") {
			if ($s.Trim()) { $sections += $s }
		}
	}
	$tables = @()
	$nrows = 0
	$bad = ''
	$i = 0
	foreach ($s in $sections) {
		$file = Join-Path $t.FullName "section$i.tmp"
		[IO.File]::WriteAllText($file, $s)
		$i++
		$header = ($s -split "\r?\n")[0] -split ','
		$got = @(Import-Csv -LiteralPath $file)
		if ($got.Count -eq 0) { $bad += " a table without rows"; continue }
		$cols = @($got[0].PSObject.Properties.Name)
		if (($cols -join ',') -ne ($header -join ',')) {
			$bad += " columns [$($cols -join ',')] for header [$($header -join ',')]"
		}
		$tables += , $got
		$nrows += $got.Count
	}
	$json = @(Get-Content -LiteralPath (Join-Path $t.FullName 't.jsonl') |
	    ForEach-Object { $_ | ConvertFrom-Json })
	if ($nrows -ne $json.Count) {
		$bad += " $nrows CSV rows, $($json.Count) JSON lines"
	} elseif ($t.Name -ne 'events') {
		# The JSON objects of one table share their keys, and the
		# tables come in order; a table's CSV may be a file of its own.
		$groups = @()
		$keys = $null
		foreach ($o in $json) {
			$k = @($o.PSObject.Properties.Name) -join ','
			if ($k -ne $keys) { $groups += , (New-Object Collections.ArrayList) }
			[void] $groups[-1].Add($o)
			$keys = $k
		}
		$used = @{}
		foreach ($rows in $tables) {
			$match = $null
			for ($g = 0; $g -lt $groups.Count -and $null -eq $match; $g++) {
				if ($used[$g] -or $groups[$g].Count -ne $rows.Count -or
				    @($groups[$g][0].PSObject.Properties).Count -ne
				    @($rows[0].PSObject.Properties).Count -or
				    (Compare-Row $rows[0] $groups[$g][0] 'row 1')) { continue }
				$match = $g
			}
			if ($null -eq $match) {
				$bad += " no JSON table has the rows of the CSV table [$(@($rows[0].PSObject.Properties.Name) -join ',')]"
				continue
			}
			$used[$match] = $true
			for ($r = 0; $r -lt $rows.Count -and -not $bad; $r++) {
				$bad += Compare-Row $rows[$r] $groups[$match][$r] "row $($r + 1)"
			}
		}
	}
	if ($bad) { Say FAIL $name $bad } else { Say PASS $name }
}

# Events: one object a line, the decoded fields as their own properties.
$lines = @(Get-Content -LiteralPath (Join-Path $Dir 'events/t.jsonl'))
$objs = @($lines | ForEach-Object { $_ | ConvertFrom-Json })
if ($objs.Count -eq $lines.Count -and $objs.Count -gt 0 -and
    $null -ne $objs[0].time_ns -and $null -ne $objs[0].event) {
	Say PASS powershell-json-lines
} else {
	Say FAIL powershell-json-lines "$($objs.Count) objects from $($lines.Count) lines"
}
$proc = @($objs | Where-Object { $_.event -like 'Process/*' })[0]
$fields = if ($proc.PSObject.Properties['fields']) { $proc.fields } else { $proc }
if ($null -eq $proc) {
	Say FAIL powershell-json-fields "no Process event"
} elseif ($fields -is [string] -and $fields -match '^(\w+=[^;]*; )*\w+=[^;]*$') {
	# The packed form of the outputs before issue 8; any other string fails.
	Say SKIP powershell-json-fields "the fields are one packed string ('$fields'): needs issue 8's output change (fields as their own properties)"
} elseif ($null -ne $fields.ppid -and ($fields.ppid -is [long] -or $fields.ppid -is [int])) {
	Say PASS powershell-json-fields
} else {
	Say FAIL powershell-json-fields "no numeric ppid property: $($proc | ConvertTo-Json -Compress)"
}
EOF

# Every table of every view, on the sample and the test profile.
etlcat -q -o "$tmp/s.zst" "$sample"
etlcat -q -o "$tmp/q.zst" "$profiles"/*.mm_profdata
mkdir -p "$tmp/csv/events"
etlreport -f csv -o "$tmp/csv/events/t.csv" "$tmp/s.zst"
etlreport -f jsonl -o "$tmp/csv/events/t.jsonl" "$tmp/s.zst"
for view in stats sysconfig processes tree "cpu --by process" \
    "cpu --by stack" "cpu --by function" "cpu --by module" queries \
    querystacks; do
	case $view in
	quer*)	in=$tmp/q.zst ;;
	*)	in=$tmp/s.zst ;;
	esac
	d=$tmp/csv/$(echo "$view" | tr -d ' -')
	mkdir -p "$d"
	etlagg -o "$d/t.zst" $view "$in" &&
	    etlreport -f csv -o "$d/t.csv" "$d/t.zst" &&
	    etlreport -f jsonl -o "$d/t.jsonl" "$d/t.zst" ||
	    fail "powershell-import-csv-$view" "the tools failed"
	rm -f "$d/t.zst"
done
"$pwsh" -NoProfile -NonInteractive -File "$tmp/check.ps1" "$tmp/csv" 2>&1
