#!/bin/sh
# rustc-report.sh - the whole report of a build's trace as one page that
# stands alone: the tabs of WPA's rustc profile (Summary, Crates, Build
# processes, Process tree, CPU, Memory, Waits, Timeline, and Queries
# with -p),
# drawn by etlreport -f html from the tables of one etlagg pass.
#
# Usage: rustc-report.sh [-ax] [-p dir] [-o file] [-y path]
#            [--baseline old.etl] trace.etl
#   -a       every process of the trace, not only those of the build
#            (the waits and threads of every process but Idle)
#   --baseline old.etl, -b old.etl
#            compare with the build of old.etl: the crates, processes,
#            threads, CPU, commit and waits tables get the baseline's
#            figures and the changes (etlagg --diff), the flame graphs
#            are differential (red grew, blue shrank), and the Summary
#            shows both machines and both sample counts
#   -p dir   rustc self-profiles (*.mm_profdata) for the Queries tab,
#            and joined to the trace for the Timeline tab's queries
#   -o file  the page (default: NAME.report.html in the current
#            directory; in `file` when it is a directory)
#   -x       also the tables as an Excel workbook beside the page
#            (NAME.report.xlsx for NAME.report.html: etlreport -f xlsx,
#            a Summary sheet and a sheet a table); a sheet cut at
#            Excel's row limit is said, and the exit status is 1
#   -y path  the symbol path for etlsym (default: _NT_SYMBOL_PATH; frames
#            are named when either is set)
#   -h, --help  this text
#
# The trace is decoded once, and every table is made in one etlagg
# pass over it (the timeline in a second one with -p or -x): each view of the build's processes (etlagg's --rustc,
# which is etlfilter's) unless -a is given.  By the composition law of
# etlfilter(1) their rows are those the whole trace gives for the
# build's processes.
# The tools are taken from PATH, or from the bin/ beside this script.

prog=rustc-report.sh

usage() {
	echo "usage: $prog [-ax] [-p dir] [-o file] [-y path]" \
	    "[--baseline old.etl] trace.etl" >&2
	exit 2
}

die() {
	echo "$prog: $*" >&2
	exit 1
}

# -h, --help: the comment at the top of the script, its manual, on the
# standard output.
help() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
	exit 0
}

here=$(cd "$(dirname "$0")" && pwd)
PATH=$PATH:$here/../bin
all=0 xlsx=0 profiles="" page="" sympath=${_NT_SYMBOL_PATH:-} baseline=""
# --baseline takes its word out of the arguments; getopts reads the rest.
n=$#
while [ "$n" -gt 0 ]; do
	arg=$1
	shift
	n=$((n - 1))
	case $arg in
	--baseline)
		[ "$n" -gt 0 ] || usage
		baseline=$1
		shift
		n=$((n - 1)) ;;
	--baseline=*)
		baseline=${arg#--baseline=} ;;
	--help)	help ;;
	*)	set -- "$@" "$arg" ;;
	esac
done
while getopts ab:hp:o:xy: opt; do
	case $opt in
	a)	all=1 ;;
	x)	xlsx=1 ;;
	b)	baseline=$OPTARG ;;
	h)	help ;;
	p)	profiles=$OPTARG ;;
	o)	page=$OPTARG ;;
	y)	sympath=$OPTARG ;;
	*)	usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
trace=$1
[ -f "$trace" ] || die "$trace: no such file"
[ -z "$baseline" ] || [ -f "$baseline" ] || die "$baseline: no such file"
[ -z "$profiles" ] || [ -d "$profiles" ] ||
    die "$profiles: no such directory"
name=$(basename "$trace")
name=${name%.[eE][tT][lL]}
if [ -z "$page" ]; then
	page=$name.report.html
elif [ -d "$page" ]; then
	page=${page%/}/$name.report.html
fi
# Where the page goes is looked at now, not after the work.
pagedir=$(dirname -- "$page")
[ -d "$pagedir" ] || die "$page: cannot create: no directory $pagedir"
[ -w "$pagedir" ] || die "$page: cannot create: $pagedir is not writable"

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT INT TERM

# The views, each cut to the build's processes unless -a; with -a, the
# waits and threads of every process but Idle (pid 0), whose idle
# threads do not wait: they run while no other thread does.  Each view
# says its filters (--note-filters), which the page's titles say.
f=--rustc w=--rustc
[ $all = 1 ] && f= w="-v --pid 0"
views="sysconfig + crates $f + threads $w + waits --by stack $w +
    processes $f + tree $f + cpu --by stack $f + cpu --by function $f +
    vmem --by stack $f + vmem --timeline $f"

# stream TRACE OUT: TRACE's stream, its frames named when a symbol path
# is given.
stream() {
	if [ -n "$sympath" ]; then
		etlcat -q "$1" | etlsym -y "$sympath" -o "$2"
	else
		etlcat -q -o "$2" "$1"
	fi || die "$1: etlcat or etlsym failed"
}

# The source: the trace, decoded by etlagg itself, or its stream with
# named frames.
src=$trace
if [ -n "$sympath" ]; then
	stream "$trace" "$tmp/named.zst"
	src=$tmp/named.zst
fi
# A baseline: its stream is what the views that count are joined with
# (--diff, behind the same filters); both traces' sysconfig rows, the old
# first, make the Summary's machine table.
if [ -n "$baseline" ]; then
	stream "$baseline" "$tmp/old.zst"
	old=$tmp/old.zst
	etlagg -q -o "$tmp/sys.zst" sysconfig "$tmp/old.zst" "$src" ||
	    die "$baseline: etlagg sysconfig failed"
	views="crates $f --diff $old + threads $w --diff $old +
	    waits --by stack $w --diff $old + processes $f --diff $old +
	    tree $f + cpu --by stack $f --diff $old +
	    cpu --by function $f --diff $old + vmem --by stack $f --diff $old +
	    vmem --timeline $f"
fi

# The Timeline tab: in the same pass, but in a pass of its own when the
# profiles are given (its query rows join them; the other views would
# read a profile as a trace) or the workbook is asked for (a timeline of
# a long trace has more rows than a sheet holds).
tl=""
if [ -z "$profiles" ] && [ $xlsx = 0 ]; then
	views="$views + timeline $f"
else
	tl="timeline $f"
fi
# shellcheck disable=SC2086
etlagg -q --note-filters -o "$tmp/views.zst" $views "$src" ||
    die "$trace: etlagg failed"
if [ -n "$baseline" ]; then
	cat "$tmp/sys.zst" "$tmp/views.zst" >"$tmp/both.zst" &&
	    mv "$tmp/both.zst" "$tmp/views.zst" || die "cannot write $tmp"
	title="$name: rustc build report against $(basename "$baseline")"
else
	title="$name: rustc build report"
fi
cp "$tmp/views.zst" "$tmp/page.zst" || die "cannot write $tmp"
if [ -n "$profiles" ]; then
	set -- "$profiles"/*.mm_profdata
	[ -f "$1" ] || die "$profiles: no .mm_profdata file"
	etlagg -q -o "$tmp/queries.zst" queries + querystacks "$@" ||
	    die "$profiles: etlagg queries failed"
	cat "$tmp/queries.zst" >>"$tmp/views.zst"
	cat "$tmp/queries.zst" >>"$tmp/page.zst"
else
	set --
fi
if [ -n "$tl" ]; then
	# shellcheck disable=SC2086
	etlagg -q --note-filters -o "$tmp/timeline.zst" $tl "$src" "$@" ||
	    die "$trace: etlagg timeline failed"
	cat "$tmp/timeline.zst" >>"$tmp/page.zst"
fi
etlreport -q -f html --title "$title" -o "$page" \
    "$tmp/page.zst" || die "etlreport failed"
echo "$page"
if [ $xlsx = 1 ]; then
	book=${page%.[hH][tT][mM][lL]}.xlsx
	# A sheet cut at Excel's limit still leaves the workbook: say so.
	etlreport -q -f xlsx -o "$book" "$tmp/views.zst" ||
	    { [ -f "$book" ] || die "etlreport -f xlsx failed"; status=1; }
	echo "$book"
	exit ${status:-0}
fi
