<#
.SYNOPSIS
The whole report of a Rust build's trace as one page that stands alone.

.DESCRIPTION
rustc-report.ps1 - the whole report of a build's trace as one page that
stands alone: the tabs of WPA's rustc profile (Summary, Crates, Build
processes, Process tree, CPU, Memory, Waits, Timeline, and Queries
with -ProfDir), drawn by etlreport -f html from the tables of one etlagg
pass.  The twin of rustc-report.sh.

Writes NAME.report.html for trace NAME.etl, into the current directory,
or -Out (a file, or a directory to write NAME.report.html into).
-All takes every process of the trace, not only those of the build
(the waits and threads of every process but Idle);
-ProfDir names a directory of rustc self-profiles (*.mm_profdata) for
the Queries tab, joined to the trace for the Timeline tab's queries; -SymbolPath (default: $env:_NT_SYMBOL_PATH) names the
frames with etlsym.  The trace is decoded once, and every table made in
one etlagg pass over it (the timeline in a second one with -ProfDir or
-Xlsx): each view of the build's processes (etlagg's
--rustc, which is etlfilter's) unless -All is given; by the composition
law of etlfilter(1) their rows are those the whole trace gives for the
build's processes.  -Baseline names the trace of an earlier build
to compare with: the crates, processes, threads, CPU, commit and waits
tables get its figures and the changes (etlagg --diff), the flame
graphs are differential (red grew, blue shrank), and the Summary shows
both machines and both sample counts.  -Xlsx also writes the tables
as an Excel workbook beside the page (NAME.report.xlsx: a Summary sheet
and a sheet a table; a sheet cut at Excel's row limit is said and the
exit status is 1; a build of the tools without xlsx says so).  The tools are taken from PATH, or from the bin
folder beside this script.  Needs PowerShell 7.4 or later; the tools
read and write files, so no bytes go through PowerShell's pipes.

.PARAMETER Trace
The trace (.etl) to read, recorded with WPR (see record-rustc.ps1).

.PARAMETER Out
The page to write (default: NAME.report.html in the current directory),
or a directory to write NAME.report.html into.  -OutDir is the same.

.PARAMETER ProfDir
A directory of rustc self-profiles (*.mm_profdata) for the Queries tab,
joined to the trace for the Timeline tab's queries.

.PARAMETER SymbolPath
The symbol path for etlsym (default: $env:_NT_SYMBOL_PATH); frames are
named when either is set.

.PARAMETER Baseline
The trace of an earlier build to compare with.

.PARAMETER All
Takes every process of the trace, not only those of the build (the
waits and threads of every process but Idle).

.PARAMETER Xlsx
Also writes the tables as one Excel workbook, NAME.report.xlsx, beside
the page.

.PARAMETER Help
Shows this help (as Get-Help -Detailed does) and exits.

.EXAMPLE
./rustc-report.ps1 build.etl -ProfDir prof -Out report.html
#>
[CmdletBinding(DefaultParameterSetName = 'Run')]
param(
	[Parameter(ParameterSetName = 'Run', Mandatory = $true, Position = 0)] [string] $Trace,
	[Parameter(ParameterSetName = 'Run')] [Alias('OutDir')] [string] $Out = '',
	[Parameter(ParameterSetName = 'Run')] [string] $ProfDir = '',
	[Parameter(ParameterSetName = 'Run')] [string] $SymbolPath = $env:_NT_SYMBOL_PATH,
	[Parameter(ParameterSetName = 'Run')] [string] $Baseline = '',
	[Parameter(ParameterSetName = 'Run')] [switch] $All,
	[Parameter(ParameterSetName = 'Run')] [switch] $Xlsx,
	[Parameter(Mandatory = $true, ParameterSetName = 'Help')] [switch] $Help
)

# -Help: the help above, as Get-Help -Detailed shows it, on the standard
# output (-? and Get-Help show it too).
if ($Help) {
	Get-Help -Detailed $PSCommandPath
	exit 0
}

$me = 'rustc-report.ps1'
. (Join-Path $PSScriptRoot 'common.ps1')
$env:PATH = $env:PATH + [IO.Path]::PathSeparator +
    (Join-Path (Split-Path -Parent $PSScriptRoot) 'bin')

if (-not (Test-Path -LiteralPath $Trace -PathType Leaf)) {
	Fail "${Trace}: no such file"
}
if ($Baseline -and -not (Test-Path -LiteralPath $Baseline -PathType Leaf)) {
	Fail "${Baseline}: no such file"
}
if ($ProfDir -and -not (Test-Path -LiteralPath $ProfDir -PathType Container)) {
	Fail "${ProfDir}: no such directory"
}
$name = [IO.Path]::GetFileNameWithoutExtension($Trace)
if (-not $Out) {
	$page = "$name.report.html"
} elseif (Test-Path -LiteralPath $Out -PathType Container) {
	$page = Join-Path $Out "$name.report.html"
} else {
	$page = $Out
}
# The views, each cut to the build's processes unless -All; with -All,
# the waits and threads of every process but Idle (pid 0), whose idle
# threads do not wait: they run while no other thread does.  Each view
# says its filters (--note-filters), which the page's titles say.
$f = if ($All) { @() } else { @('--rustc') }
$w = if ($All) { @('-v', '--pid', '0') } else { @('--rustc') }
$tmp = Join-Path ([IO.Path]::GetTempPath()) ([IO.Path]::GetRandomFileName())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
	# The source: the trace, decoded by etlagg itself, or its stream with
	# named frames.
	$src = $Trace
	if ($SymbolPath) {
		$decoded = Join-Path $tmp 'trace.zst'
		$src = Join-Path $tmp 'named.zst'
		Invoke-Tool etlcat @('-q', '-o', $decoded, $Trace)
		Invoke-Tool etlsym @('-y', $SymbolPath, '-o', $src, $decoded)
	}
	$parts = @()
	$title = "${name}: rustc build report"
	$views = @('sysconfig', '+', 'crates') + $f + @('+', 'threads') + $w +
	    @('+', 'waits', '--by', 'stack') + $w + @('+', 'processes') + $f +
	    @('+', 'tree') + $f + @('+', 'cpu', '--by', 'stack') + $f +
	    @('+', 'cpu', '--by', 'function') + $f +
	    @('+', 'vmem', '--by', 'stack') + $f + @('+', 'vmem', '--timeline') +
	    $f
	# A baseline: its stream is what the views that count are joined
	# with (--diff, behind the same filters); both traces' sysconfig
	# rows, the old first, make the Summary's machine table.
	if ($Baseline) {
		$old = Join-Path $tmp 'old.zst'
		if ($SymbolPath) {
			$oldEvents = Join-Path $tmp 'old-events.zst'
			Invoke-Tool etlcat @('-q', '-o', $oldEvents, $Baseline)
			Invoke-Tool etlsym @('-y', $SymbolPath, '-o', $old,
			    $oldEvents)
		} else {
			Invoke-Tool etlcat @('-q', '-o', $old, $Baseline)
		}
		$sys = Join-Path $tmp 'sys.zst'
		Invoke-Tool etlagg @('-q', '-o', $sys, 'sysconfig', $old, $src)
		$parts += $sys
		$d = @('--diff', $old)
		$views = @('crates') + $f + $d + @('+', 'threads') + $w + $d +
		    @('+', 'waits', '--by', 'stack') + $w + $d +
		    @('+', 'processes') + $f + $d + @('+', 'tree') + $f +
		    @('+', 'cpu', '--by', 'stack') + $f + $d +
		    @('+', 'cpu', '--by', 'function') + $f + $d +
		    @('+', 'vmem', '--by', 'stack') + $f + $d +
		    @('+', 'vmem', '--timeline') + $f
		$title = "${name}: rustc build report against " +
		    [IO.Path]::GetFileName($Baseline)
	}
	# The Timeline tab: in the same pass, but in a pass of its own when
	# the profiles are given (its query rows join them; the other views
	# would read a profile as a trace) or the workbook is asked for (a
	# timeline of a long trace has more rows than a sheet holds).
	$alone = $ProfDir -or $Xlsx
	if (-not $alone) {
		$views += @('+', 'timeline') + $f
	}
	$tables = Join-Path $tmp 'views.zst'
	Invoke-Tool etlagg (@('-q', '--note-filters', '-o', $tables) + $views +
	    @($src))
	$parts += $tables
	$profiles = @()
	if ($ProfDir) {
		$profiles = @(Get-ChildItem -LiteralPath $ProfDir -Filter '*.mm_profdata' |
		    Sort-Object Name | ForEach-Object { $_.FullName })
		if ($profiles.Count -eq 0) {
			Fail "${ProfDir}: no .mm_profdata file"
		}
		$queries = Join-Path $tmp 'queries.zst'
		Invoke-Tool etlagg (@('-q', '-o', $queries, 'queries', '+',
		    'querystacks') + $profiles)
		$parts += $queries
	}
	$pageParts = $parts
	if ($alone) {
		$timeline = Join-Path $tmp 'timeline.zst'
		Invoke-Tool etlagg (@('-q', '--note-filters', '-o', $timeline,
		    'timeline') + $f + @($src) + $profiles)
		$pageParts = $parts + @($timeline)
	}
	Invoke-Tool etlreport (@('-q', '-f', 'html', '--title', $title, '-o',
	    $page) + $pageParts)
	$page
	if ($Xlsx) {
		$book = [IO.Path]::ChangeExtension($page, '.xlsx')
		# A sheet cut at Excel's limit still leaves the workbook.
		& etlreport (@('-q', '-f', 'xlsx', '-o', $book) + $parts)
		if ($LASTEXITCODE -ne 0) {
			if (-not (Test-Path -LiteralPath $book)) {
				Fail "etlreport -f xlsx failed (exit status $LASTEXITCODE)"
			}
			$script:status = 1
		}
		$book
	}
} finally {
	Remove-Item -Recurse -Force -LiteralPath $tmp
}
if ($script:status) {
	exit 1
}
