<#
.SYNOPSIS
Why the threads of a Rust build were not running, from a trace with
context switches: time running, ready and waiting, and where they
blocked.

.DESCRIPTION
rustc-waits.ps1 - why the threads of a build were not running: from a
trace with context switches (CSwitch, ReadyThread), per thread the time
it ran, was ready and waited; where threads blocked and who readied
them; and an off-CPU flame graph weighted by nanoseconds.  The twin of
rustc-waits.sh.

Writes, for trace NAME.etl, into -OutDir (default: the current directory):
  NAME.waits-threads.csv    running, ready, waiting ns per thread
  NAME.waits-processes.csv  the same per process
  NAME.waits-stacks.csv     blocked time by where threads blocked
  NAME.waits-reasons.csv    blocked time by wait reason
  NAME.waits.folded         the blocked stacks, folded, by ns
  NAME.waits.svg            the off-CPU flame graph
-All takes every process of the trace, not only those of the build.  The
tools are taken from PATH, or from the bin folder beside this script.
Needs PowerShell 7.4 or later; the tools read and write files, so no
bytes go through PowerShell's pipes.

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
./rustc-waits.ps1 build.etl -OutDir report
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

$me = 'rustc-waits.ps1'
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
	$views = [ordered]@{ threads = @('threads', '--by', 'thread');
	    processes = @('threads', '--by', 'process');
	    stacks = @('waits', '--by', 'stack');
	    reasons = @('waits', '--by', 'reason') }
	foreach ($file in $views.Keys) {
		$table = Join-Path $tmp "$file.zst"
		Invoke-Tool etlagg (@('-q', '-o',
		    $table) + $views[$file] + @($stream))
		Invoke-Tool etlreport @('-q', '-f', 'csv', '-o',
		    "$base.waits-$file.csv", $table)
	}
	$stacks = Join-Path $tmp 'stacks.zst'
	Invoke-Tool etlreport @('-q', '-f', 'folded', '-o',
	    "$base.waits.folded", $stacks)
	Invoke-Tool etlreport @('-q', '-f', 'svg', '--title',
	    "Blocked time of $name by stack", '-o', "$base.waits.svg", $stacks)
	foreach ($f in 'waits-threads.csv', 'waits-processes.csv',
	    'waits-stacks.csv', 'waits-reasons.csv', 'waits.folded',
	    'waits.svg') {
		"$base.$f"
	}
	Write-Lossy (Join-Path $tmp 'processes.zst') $Trace
} finally {
	Remove-Item -Recurse -Force -LiteralPath $tmp
}
