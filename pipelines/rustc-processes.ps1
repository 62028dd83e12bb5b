<#
.SYNOPSIS
The processes of a Rust build, from one trace: a table, a tree and a
timeline page.

.DESCRIPTION
rustc-processes.ps1 - what the rustc-dev-guide's WPA profile shows in its
"rustc Build Processes" and "rustc Build Process Tree" tabs, from one
trace: the processes of a build (rustc, cargo, link, rustdoc, build
scripts and their children) with their command lines, times, exit status
and CPU, as a table and as a tree, and the tree as a timeline.  The twin
of rustc-processes.sh.

Writes, for trace NAME.etl, into -OutDir (default: the current directory):
  NAME.processes.csv   one row per process, in order of start
  NAME.tree.csv        the same rows in parent-child order, with depth
  NAME.tree.txt        the tree as indented text
  NAME.tree.html       the tree as a timeline page
-All takes every process of the trace, not only those of the build.
The tools are taken from PATH, or from the bin folder beside this
script.  Runs under PowerShell 7 and Windows PowerShell 5.1 alike: the
tools read and write files (-o), so no bytes go through PowerShell's
pipes, which 5.1 would mangle.

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
./rustc-processes.ps1 build.etl -OutDir report
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

$me = 'rustc-processes.ps1'
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
		# Empty tables would say nothing: say why there is nothing.
		$found = Join-Path $tmp 'found.zst'
		& etlagg -o $found processes $stream 2>$null
		$rows = @(& etlreport -f csv $found 2>$null)
		if ($rows.Count -lt 2) {
			Fail ("${Trace}: no Rust process (rustc, cargo, " +
			    "rustdoc, build scripts) in the trace; -All takes " +
			    "every process")
		}
	}
	$processes = Join-Path $tmp 'processes.zst'
	$tree = Join-Path $tmp 'tree.zst'
	Invoke-Tool etlagg @('-q', '-o', $processes, 'processes', $stream)
	Invoke-Tool etlagg @('-q', '-o', $tree, 'tree', $stream)
	$base = Join-Path $OutDir $name
	Invoke-Tool etlreport @('-q', '-f', 'csv', '-o', "$base.processes.csv",
	    $processes)
	Invoke-Tool etlreport @('-q', '-f', 'csv', '-o', "$base.tree.csv",
	    $tree)
	Invoke-Tool etlreport @('-q', '-f', 'text', '-o', "$base.tree.txt",
	    $tree)
	Invoke-Tool etlreport @('-q', '-f', 'html', '--title',
	    "Processes of $name", '-o', "$base.tree.html", $tree)
	foreach ($f in 'processes.csv', 'tree.csv', 'tree.txt', 'tree.html') {
		"$base.$f"
	}
	Write-Lossy $processes $Trace
} finally {
	Remove-Item -Recurse -Force -LiteralPath $tmp
}
