<#
.SYNOPSIS
Which stacks of a Rust build's processes committed memory, and how
much each process had committed over time, from one trace.

.DESCRIPTION
rustc-memory.ps1 - what the rustc-dev-guide's WPA profile shows in its
"rustc Memory Analysis" tab, from a trace recorded with VirtualAlloc
usage: which stacks of the build's processes (rustc, cargo, link,
rustdoc, build scripts and their children) committed memory, and how
much each process had committed over time.  The twin of rustc-memory.sh.

Writes, for trace NAME.etl, into -OutDir (default: the current directory):
  NAME.commit-processes.csv  committed, freed and outstanding bytes per
                             process instance, with the peak
  NAME.commit-stacks.csv     the same per committing stack, root first
  NAME.commit.folded         bytes committed by stack, for flamegraph.pl,
                             inferno or speedscope
  NAME.commit.svg            the commit flame graph
  NAME.commit-timeline.csv   outstanding commit per process every 100 ms
  NAME.commit-timeline.svg   the same as a line chart
Frames are named module!0xRVA until symbols are resolved.  -All takes
every process of the trace, not only those of the build.  The tools are
taken from PATH, or from the bin folder beside this script.  Needs
PowerShell 7.4 or later; the tools read and write files, so no bytes go
through PowerShell's pipes.

.PARAMETER Trace
The trace (.etl) to read, recorded with WPR (see record-rustc.ps1).

.PARAMETER OutDir
Where to write the files (default: the current directory); it is made
when missing.

.PARAMETER All
Takes every process of the trace, not only those of the build.

.PARAMETER Help
Shows this help (as Get-Help -Detailed does) and exits.

.EXAMPLE
./rustc-memory.ps1 build.etl -OutDir report
#>
[CmdletBinding(DefaultParameterSetName = 'Run')]
param(
	[Parameter(ParameterSetName = 'Run', Mandatory = $true, Position = 0)] [string] $Trace,
	[Parameter(ParameterSetName = 'Run')] [string] $OutDir = '.',
	[Parameter(ParameterSetName = 'Run')] [switch] $All,
	[Parameter(Mandatory = $true, ParameterSetName = 'Help')] [switch] $Help
)

# -Help: the help above, as Get-Help -Detailed shows it, on the standard
# output (-? and Get-Help show it too).
if ($Help) {
	Get-Help -Detailed $PSCommandPath
	exit 0
}

$me = 'rustc-memory.ps1'
. (Join-Path $PSScriptRoot 'common.ps1')
$env:PATH = $env:PATH + [IO.Path]::PathSeparator +
    (Join-Path (Split-Path -Parent $PSScriptRoot) 'bin')


if (-not (Test-Path -LiteralPath $Trace -PathType Leaf)) {
	Fail "${Trace}: no such file"
}
New-Item -ItemType Directory -Force -Path $OutDir | Out-Null
$name = [IO.Path]::GetFileNameWithoutExtension($Trace)
$tmp = Join-Path ([IO.Path]::GetTempPath()) ([IO.Path]::GetRandomFileName())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
	$stream = Join-Path $tmp 'trace.zst'
	Invoke-Tool etlcat @('-o', $stream, $Trace)
	if (-not $All) {
		$build = Join-Path $tmp 'build.zst'
		Invoke-Tool etlfilter @('-q', '--rustc', '-o', $build, $stream)
		$stream = $build
	}
	$base = Join-Path $OutDir $name
	$process = Join-Path $tmp 'process.zst'
	$stacks = Join-Path $tmp 'stack.zst'
	$timeline = Join-Path $tmp 'timeline.zst'
	Invoke-Tool etlagg @('-q', '-o', $process, 'vmem', '--by', 'process',
	    $stream)
	Invoke-Tool etlagg @('-q', '-o', $stacks, 'vmem', '--by', 'stack',
	    '--weight', 'committed', $stream)
	Invoke-Tool etlagg @('-q', '-o', $timeline, 'vmem', '--timeline',
	    $stream)
	Invoke-Tool etlreport @('-q', '-f', 'csv', '-o',
	    "$base.commit-processes.csv", $process)
	Invoke-Tool etlreport @('-q', '-f', 'csv', '-o',
	    "$base.commit-stacks.csv", $stacks)
	Invoke-Tool etlreport @('-q', '-f', 'folded', '-o',
	    "$base.commit.folded", $stacks)
	Invoke-Tool etlreport @('-q', '-f', 'svg', '--title',
	    "Memory committed by $name, by stack", '-o', "$base.commit.svg",
	    $stacks)
	Invoke-Tool etlreport @('-q', '-f', 'csv', '-o',
	    "$base.commit-timeline.csv", $timeline)
	Invoke-Tool etlreport @('-q', '-f', 'svg', '--title',
	    "Outstanding commit of $name", '-o', "$base.commit-timeline.svg",
	    $timeline)
	foreach ($f in 'commit-processes.csv', 'commit-stacks.csv',
	    'commit.folded', 'commit.svg', 'commit-timeline.csv',
	    'commit-timeline.svg') {
		"$base.$f"
	}
	Write-Lossy $process $Trace
} finally {
	Remove-Item -Recurse -Force -LiteralPath $tmp
}
