<#
.SYNOPSIS
common.ps1 - what the pipeline scripts share, dot-sourced by them: how
they stop, how they run a tool, and what they say after their list of
files (the twin of say_lossy in build-trace.sh).

.DESCRIPTION
Fail says why on the standard error, naming the script ($me, the
caller's), and exits 1; Invoke-Tool runs a tool and fails when it does.
What the trace lost is said once a run: etlcat says it as it decodes,
naming the trace; every later stage takes -q, which drops that line (the
stream still carries it into every table) but not the errors.  So are
the events the trace lacks for a view (etlagg's "vmem: the trace has no
VirtualAlloc events ..."), which -q drops too.  Write-Lossy says both
again after the list of files: the notes that etlreport writes under a
text table of $Table, one of the tables made; $Subject names the input
($me is the calling script's name), $Extra goes to etlreport.
#>
function Fail([string] $Message) {
	[Console]::Error.WriteLine("${me}: $Message")
	exit 1
}

function Invoke-Tool([string] $Tool, [string[]] $Arguments) {
	& $Tool @Arguments
	if ($LASTEXITCODE -ne 0) {
		Fail "$Tool failed (exit status $LASTEXITCODE)"
	}
}

function Write-Lossy([string] $Table, [string] $Subject,
    [string[]] $Extra = @()) {
	$prefix = 'note: computed from lossy input: '
	$lines = @(& etlreport (@('-q', '-f', 'text') + $Extra + @($Table)) 2>$null)
	$note = @($lines | Where-Object { $_.StartsWith($prefix) }) |
	    Select-Object -Last 1
	if ($note) {
		$lost = $note.Substring($prefix.Length)
		[Console]::Error.WriteLine("${me}: ${Subject}: the files are " +
		    "computed from lossy input: $lost")
	}
	$lines | Where-Object { $_ -match '^note: ([a-z]+: the trace has no .*)' } |
	    Sort-Object -Unique | ForEach-Object {
		[Console]::Error.WriteLine("${me}: ${Subject}: " +
		    $_.Substring('note: '.Length))
	}
}
