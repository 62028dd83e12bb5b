<#
.SYNOPSIS
Records a Rust build with Windows Performance Recorder and the
profiles of rustc.wprp, then runs the analysis pipelines on the trace.

.DESCRIPTION
record-rustc.ps1 - records a Rust build with Windows Performance Recorder
and the profiles of rustc.wprp, then runs the analysis pipelines on the
trace: the first step of every workflow of the etl toolkit.

Starts WPR with a profile of rustc.wprp (beside this script), runs the
build command given after the options, stops WPR and saves the trace as
-Trace, then runs the pipelines that fit the profile, writing into
-OutDir:
  -Mode Cpu    (default) CPU samples and VirtualAlloc with stacks, and
               processes: rustc-cpu.ps1, rustc-processes.ps1 (and
               rustc-memory.ps1 where it is installed)
  -Mode Waits  context switches and ready threads with stacks (no
               sampling, which they would skew): rustc-processes.ps1
               (and rustc-waits.ps1 where it is installed)
  -Mode Heap   heap snapshots of the processes named -HeapProcess
               (default rustc.exe), one every -SnapshotSeconds while the
               build runs: rustc-processes.ps1 (and rustc-memory.ps1
               where it is installed)
The trace is saved even when the build fails or is interrupted; the
script then exits with the build's status.  -NoAnalysis stops after
saving.  WPR traces the kernel, so run this from an elevated prompt.
Frames are named module!0xRVA until etlsym resolves them with the PDBs
(the trace names each image's PDB: ImageID).  WPR is taken from PATH,
or from $env:ETL_WPR (a newer wpr.exe from the Windows ADK, say).

Runs under PowerShell 7 and Windows PowerShell 5.1 alike: the tools read
and write files, so no bytes go through PowerShell's pipes.  Run it from
a PowerShell prompt and put `--` before the build command, so that its
options are not taken for this script's (pwsh -File does not know `--`).

.PARAMETER Trace
Where to save the trace (default: rustc-build.etl).

.PARAMETER OutDir
Where the pipelines write their files (default: the current directory).

.PARAMETER Mode
The profile to record with: Cpu (the default), Waits or Heap.

.PARAMETER HeapProcess
With -Mode Heap: the processes whose heaps are snapshotted (default
rustc.exe).

.PARAMETER SnapshotSeconds
With -Mode Heap: the seconds between two snapshots (default 10).

.PARAMETER NoAnalysis
Stops after saving the trace.

.PARAMETER Command
The build command and its arguments, after --.

.PARAMETER Help
Shows this help (as Get-Help -Detailed does) and exits.

.EXAMPLE
./record-rustc.ps1 -OutDir report -- x build --stage 2 library

.EXAMPLE
./record-rustc.ps1 -Mode Waits -Trace waits.etl -- cargo build --release
#>
[CmdletBinding(DefaultParameterSetName = 'Run')]
param(
	[Parameter(ParameterSetName = 'Run')] [string] $Trace = 'rustc-build.etl',
	[Parameter(ParameterSetName = 'Run')] [string] $OutDir = '.',
	[Parameter(ParameterSetName = 'Run')] [ValidateSet('Cpu', 'Waits', 'Heap')] [string] $Mode = 'Cpu',
	[Parameter(ParameterSetName = 'Run')] [string] $HeapProcess = 'rustc.exe',
	[Parameter(ParameterSetName = 'Run')] [ValidateRange(1, 3600)] [int] $SnapshotSeconds = 10,
	[Parameter(ParameterSetName = 'Run')] [switch] $NoAnalysis,
	[Parameter(Mandatory = $true, Position = 0, ParameterSetName = 'Run',
	    ValueFromRemainingArguments = $true)] [string[]] $Command,
	[Parameter(Mandatory = $true, ParameterSetName = 'Help')] [switch] $Help
)

# -Help: the help above, as Get-Help -Detailed shows it, on the standard
# output (-? and Get-Help show it too).
if ($Help) {
	Get-Help -Detailed $PSCommandPath
	exit 0
}

$me = 'record-rustc.ps1'
$wpr = if ($env:ETL_WPR) { $env:ETL_WPR } else { 'wpr' }
$wprp = Join-Path $PSScriptRoot 'rustc.wprp'
$name = @{ Cpu = 'Rustc'; Waits = 'RustcWaits'; Heap = 'RustcHeap' }[$Mode]
$pipelines = @{
	Cpu = 'rustc-cpu', 'rustc-processes', 'rustc-memory'
	Waits = 'rustc-processes', 'rustc-waits'
	Heap = 'rustc-processes', 'rustc-memory'
}[$Mode]

function Fail([string] $Message) {
	[Console]::Error.WriteLine("${me}: $Message")
	exit 1
}

function Say([string] $Message) {
	[Console]::Error.WriteLine("${me}: $Message")
}

# Runs WPR; a failure stops the script unless -Quiet.
function Invoke-Wpr([string[]] $Arguments, [switch] $Quiet) {
	& $wpr @Arguments
	if ($LASTEXITCODE -ne 0 -and -not $Quiet) {
		Fail "$wpr $($Arguments -join ' ') failed (exit status $LASTEXITCODE)"
	}
}

if ($Command[0] -eq '--') {
	$Command = @($Command | Select-Object -Skip 1)
}
if ($Command.Count -eq 0) {
	Fail 'no build command (give it after --)'
}
if (-not (Test-Path -LiteralPath $wprp -PathType Leaf)) {
	Fail "${wprp}: no such file"
}
if ($env:OS -eq 'Windows_NT') {
	$id = [Security.Principal.WindowsIdentity]::GetCurrent()
	$admin = [Security.Principal.WindowsBuiltInRole]::Administrator
	if (-not ([Security.Principal.WindowsPrincipal] $id).IsInRole($admin)) {
		Fail 'WPR records the kernel: run this from an elevated prompt'
	}
}
New-Item -ItemType Directory -Force -Path $OutDir | Out-Null
$Trace = [IO.Path]::GetFullPath((Join-Path (Get-Location) $Trace))

if ($Mode -eq 'Heap') {
	# Snapshots are configured by name before the processes start.
	Invoke-Wpr @('-snapshotconfig', 'heap', '-name', $HeapProcess, 'enable')
}
$started = $false
$status = 1
try {
	Say "recording with $wprp!$name"
	Invoke-Wpr @('-start', "$wprp!$name", '-filemode')
	$started = $true
	Say "running: $($Command -join ' ')"
	$args1 = @($Command | Select-Object -Skip 1)
	if ($Mode -eq 'Heap') {
		# The build in the background, a snapshot of each live
		# process every few seconds (WPR takes 8 at most at a time).
		# Start-Process joins its arguments with spaces: quote them.
		$quoted = @($args1 | ForEach-Object {
			if ($_ -match '[\s"]') { '"' + ($_ -replace '"', '\"') + '"' }
			else { $_ } })
		$base = [IO.Path]::GetFileNameWithoutExtension($HeapProcess)
		$build = if ($quoted.Count -gt 0) {
			Start-Process -FilePath $Command[0] -ArgumentList $quoted `
			    -NoNewWindow -PassThru
		} else {
			Start-Process -FilePath $Command[0] -NoNewWindow -PassThru
		}
		while (-not $build.WaitForExit($SnapshotSeconds * 1000)) {
			$pids = @(Get-Process -Name $base -ErrorAction SilentlyContinue |
			    Select-Object -First 8 | ForEach-Object { "$($_.Id)" })
			if ($pids.Count -gt 0) {
				Invoke-Wpr (@('-singlesnapshot', 'heap') + $pids) -Quiet
			}
		}
		$status = $build.ExitCode
	} else {
		& $Command[0] @args1
		$status = $LASTEXITCODE
	}
	if ($null -eq $status) {
		$status = 0
	}
} finally {
	if ($started) {
		Say "saving $Trace"
		Invoke-Wpr @('-stop', $Trace) -Quiet
	}
	if ($Mode -eq 'Heap') {
		Invoke-Wpr @('-snapshotconfig', 'heap', '-name', $HeapProcess,
		    'disable') -Quiet
	}
}
if (-not (Test-Path -LiteralPath $Trace -PathType Leaf)) {
	Fail "WPR saved no trace at $Trace"
}
if ($status -ne 0) {
	Say "the build failed (exit status $status); the trace is kept"
}
if (-not $NoAnalysis) {
	foreach ($p in $pipelines) {
		$script = Join-Path $PSScriptRoot "$p.ps1"
		if (-not (Test-Path -LiteralPath $script -PathType Leaf)) {
			continue
		}
		Say "analysing: $p"
		& $script $Trace -OutDir $OutDir
		if ($LASTEXITCODE -ne 0) {
			Fail "$p.ps1 failed (exit status $LASTEXITCODE)"
		}
	}
}
exit $status
