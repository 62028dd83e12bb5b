<#
.SYNOPSIS
The rustc queries of a build, from its -Z self-profile files: counts,
the nested trace, summarize's table and a flame graph.

.DESCRIPTION
rustc-queries.ps1 - what the rustc-dev-guide's "Profiling Queries" chapter
asked of -Z profile-queries, from the -Z self-profile output of a build:
the query counts, the nested query trace, measureme summarize's table,
and the query stacks as folded text and a flame graph (and crox's Chrome
trace JSON).  The twin of rustc-queries.sh.

ProfDir holds the .mm_profdata files of one build, one per rustc process,
as a build with RUSTFLAGS=-Zself-profile=ProfDir leaves them (with
RUSTC_BOOTSTRAP=1 on a stable toolchain).  Writes into -OutDir (default:
the current directory):
  profile_queries.counts.txt  provider,count,seconds by falling time
  profile_queries.html        the nested query trace
  queries.csv                 summarize's table
  queries_total.csv           the total time
  queries_artifacts.csv       the artifact sizes
  queries.folded              stack_collapse's folded stacks
  queries.svg                 the flame graph
  queries.chrome.json         crox's Chrome trace
-Depth limits the levels the HTML trace shows, -Percent folds away boxes
under that share of the time (default 1, as the old page did; 0 shows
all, and full traces are large).  A profile cut
short (a killed rustc) is read as far as it goes; the script then exits
with status 1 after writing the files.  The tools are taken from PATH, or
from the bin folder beside this script.  Runs under PowerShell 7 and
Windows PowerShell 5.1 alike: the tools read and write files (-o), so no
bytes go through PowerShell's pipes, which 5.1 would mangle.

.PARAMETER ProfDir
The directory of the build's .mm_profdata files, one per rustc process.

.PARAMETER OutDir
Where to write the files (default: the current directory); it is made
when missing.

.PARAMETER Depth
The levels the HTML trace shows (default 0: all).

.PARAMETER Percent
The HTML trace folds away boxes under this share of the time, in
percent (default 1; 0 shows all).

.PARAMETER Help
Shows this help (as Get-Help -Detailed does) and exits.

.EXAMPLE
./rustc-queries.ps1 target/profiles -OutDir report -Percent 0.5
#>
[CmdletBinding(DefaultParameterSetName = 'Run')]
param(
	[Parameter(ParameterSetName = 'Run', Mandatory = $true, Position = 0)] [string] $ProfDir,
	[Parameter(ParameterSetName = 'Run')] [string] $OutDir = '.',
	[Parameter(ParameterSetName = 'Run')] [int] $Depth = 0,
	[Parameter(ParameterSetName = 'Run')] [string] $Percent = '1',
	[Parameter(Mandatory = $true, ParameterSetName = 'Help')] [switch] $Help
)

# -Help: the help above, as Get-Help -Detailed shows it, on the standard
# output (-? and Get-Help show it too).
if ($Help) {
	Get-Help -Detailed $PSCommandPath
	exit 0
}

$me = 'rustc-queries.ps1'
. (Join-Path $PSScriptRoot 'common.ps1')
$env:PATH = $env:PATH + [IO.Path]::PathSeparator +
    (Join-Path (Split-Path -Parent $PSScriptRoot) 'bin')


if (-not (Test-Path -LiteralPath $ProfDir -PathType Container)) {
	Fail "${ProfDir}: no such directory"
}
$profiles = @(Get-ChildItem -LiteralPath $ProfDir -Filter '*.mm_profdata' |
    ForEach-Object { $_.FullName })
if ($profiles.Count -eq 0) {
	Fail "${ProfDir}: no .mm_profdata files"
}
New-Item -ItemType Directory -Force -Path $OutDir | Out-Null
$name = Split-Path -Leaf (Resolve-Path -LiteralPath $ProfDir)
$tmp = Join-Path ([IO.Path]::GetTempPath()) ([IO.Path]::GetRandomFileName())
New-Item -ItemType Directory -Path $tmp | Out-Null
$status = 0
try {
	$stream = Join-Path $tmp 'profiles.zst'
	& etlcat -o $stream @profiles
	$status = $LASTEXITCODE
	if ($status -gt 1) {
		Fail "etlcat failed (exit status $status)"
	}
	if ($status -ne 0) {
		[Console]::Error.WriteLine("${me}: some profiles had problems " +
		    "(above); going on with what they hold")
	}
	$queries = Join-Path $tmp 'queries.zst'
	$stacks = Join-Path $tmp 'stacks.zst'
	Invoke-Tool etlagg @('-q', '-o', $queries, 'queries', $stream)
	Invoke-Tool etlagg @('-q', '-o', $stacks, 'querystacks', $stream)
	Invoke-Tool etlreport @('-q', '-f', 'counts', '-o',
	    (Join-Path $OutDir 'profile_queries.counts.txt'), $stream)
	Invoke-Tool etlreport @('-q', '-f', 'html', '--max-depth', "$Depth",
	    '--min-percent', $Percent, '--title', "rustc queries of $name",
	    '-o', (Join-Path $OutDir 'profile_queries.html'), $stream)
	foreach ($t in 'queries', 'queries_total', 'queries_artifacts') {
		Invoke-Tool etlreport @('-q', '-f', 'csv', '--table', $t, '-o',
		    (Join-Path $OutDir "$t.csv"), $queries)
	}
	Invoke-Tool etlreport @('-q', '-f', 'folded', '-o',
	    (Join-Path $OutDir 'queries.folded'), $stacks)
	Invoke-Tool etlreport @('-q', '-f', 'svg', '--title',
	    "rustc query stacks of $name", '-o',
	    (Join-Path $OutDir 'queries.svg'), $stacks)
	Invoke-Tool etlreport @('-q', '-f', 'chrome', '-o',
	    (Join-Path $OutDir 'queries.chrome.json'), $stream)
	foreach ($f in 'profile_queries.counts.txt', 'profile_queries.html',
	    'queries.csv', 'queries_total.csv', 'queries_artifacts.csv',
	    'queries.folded', 'queries.svg',
	    'queries.chrome.json') {
		Join-Path $OutDir $f
	}
	Write-Lossy $queries $ProfDir @('--table', 'queries_total')
} finally {
	Remove-Item -Recurse -Force -LiteralPath $tmp
}
exit $status
