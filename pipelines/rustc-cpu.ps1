<#
.SYNOPSIS
Where the processes of a Rust build spent their CPU samples, from one
trace: tables by process, stack, function and module, and a flame graph.

.DESCRIPTION
rustc-cpu.ps1 - what the rustc-dev-guide's WPA profile shows in its
"rustc CPU Analysis" tab, from one trace: where the processes of a build
(rustc, cargo, link, rustdoc, build scripts and their children) spent
their CPU samples, by process, call stack, function and module, and the
stacks as folded text and a flame graph.  The twin of rustc-cpu.sh.

Writes, for trace NAME.etl, into -OutDir (default: the current directory):
  NAME.cpu-processes.csv  samples and CPU ms per process
  NAME.cpu-stacks.csv     samples per call stack, root first
  NAME.cpu-functions.csv  samples in and under each frame
  NAME.cpu-modules.csv    the same per module
  NAME.cpu.folded         collapsed stacks, for flamegraph.pl, inferno or
                          speedscope
  NAME.cpu.svg            the flame graph
Frames are named module!function by etlsym where the symbol path
(_NT_SYMBOL_PATH) holds the image's PDB, module!0xRVA elsewhere.  -All takes
every process of the trace, not only those of the build.  The tools are
taken from PATH, or from the bin folder beside this script.  Runs under
PowerShell 7 and Windows PowerShell 5.1 alike: the tools read and write
files (-o), so no bytes go through PowerShell's pipes, which 5.1 would
mangle.

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
./rustc-cpu.ps1 build.etl -OutDir report
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

$me = 'rustc-cpu.ps1'
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
	# A PDB that cannot be read leaves its frames unnamed; the rest goes on.
	$named = Join-Path $tmp 'named.zst'
	& etlsym @('-q', '-o', $named, $stream)
	if ($LASTEXITCODE -ne 0) {
		[Console]::Error.WriteLine("${me}: etlsym: some frames stay unnamed")
	}
	if ((Test-Path -LiteralPath $named) -and
	    (Get-Item -LiteralPath $named).Length -gt 0) {
		$stream = $named
	}
	$base = Join-Path $OutDir $name
	$files = @{ process = 'processes'; stack = 'stacks';
	    function = 'functions'; module = 'modules' }
	foreach ($by in 'process', 'stack', 'function', 'module') {
		$table = Join-Path $tmp "$by.zst"
		Invoke-Tool etlagg @('-q', '-o', $table, 'cpu', '--by', $by,
		    $stream)
		Invoke-Tool etlreport @('-q', '-f', 'csv', '-o',
		    "$base.cpu-$($files[$by]).csv", $table)
	}
	$stacks = Join-Path $tmp 'stack.zst'
	Invoke-Tool etlreport @('-q', '-f', 'folded', '-o', "$base.cpu.folded",
	    $stacks)
	Invoke-Tool etlreport @('-q', '-f', 'svg', '--title',
	    "CPU of $name by stack", '-o', "$base.cpu.svg", $stacks)
	foreach ($f in 'cpu-processes.csv', 'cpu-stacks.csv',
	    'cpu-functions.csv', 'cpu-modules.csv', 'cpu.folded', 'cpu.svg') {
		"$base.$f"
	}
	Write-Lossy (Join-Path $tmp 'process.zst') $Trace
} finally {
	Remove-Item -Recurse -Force -LiteralPath $tmp
}
