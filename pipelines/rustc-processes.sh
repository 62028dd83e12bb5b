#!/bin/sh
# rustc-processes.sh - what the rustc-dev-guide's WPA profile shows in
# its "rustc Build Processes" and "rustc Build Process Tree" tabs, from
# one trace: the processes of a build (rustc, cargo, link, rustdoc, build
# scripts and their children) with their command lines, times, exit
# status and CPU, as a table and as a tree, and the tree as a timeline.
#
# Usage: rustc-processes.sh [-a] [-o dir] trace.etl
#   -a      every process of the trace, not only those of the build
#   -o dir  where to write the files (default: the current directory)
#
# Writes, for trace NAME.etl:
#   NAME.processes.csv   one row per process, in order of start
#   NAME.tree.csv        the same rows in parent-child order, with depth
#   NAME.tree.txt        the tree as indented text
#   NAME.tree.html       the tree as a timeline page
#
# The tools are taken from PATH, or from the bin/ beside this script.

usage() {
	echo "usage: rustc-processes.sh [-a] [-o dir] trace.etl" >&2
	exit 2
}

die() {
	echo "rustc-processes.sh: $*" >&2
	exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
PATH=$PATH:$here/../bin
all=0
out=.
while getopts ao: opt; do
	case $opt in
	a)	all=1 ;;
	o)	out=$OPTARG ;;
	*)	usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
trace=$1
[ -f "$trace" ] || die "$trace: no such file"
mkdir -p "$out" || die "$out: cannot make the directory"
name=$(basename "$trace")
name=${name%.[eE][tT][lL]}

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT INT TERM

etlcat -q -o "$tmp/trace.zst" "$trace" || die "$trace: etlcat failed"
if [ $all = 1 ]; then
	stream=$tmp/trace.zst
else
	etlfilter --rustc -o "$tmp/build.zst" "$tmp/trace.zst" ||
	    die "etlfilter failed"
	stream=$tmp/build.zst
fi
etlagg -o "$tmp/processes.zst" processes "$stream" &&
    etlagg -o "$tmp/tree.zst" tree "$stream" || die "etlagg failed"
etlreport -f csv -o "$out/$name.processes.csv" "$tmp/processes.zst" &&
    etlreport -f csv -o "$out/$name.tree.csv" "$tmp/tree.zst" &&
    etlreport -f text -o "$out/$name.tree.txt" "$tmp/tree.zst" &&
    etlreport -f html --title "Processes of $name" \
    -o "$out/$name.tree.html" "$tmp/tree.zst" || die "etlreport failed"
for f in processes.csv tree.csv tree.txt tree.html; do
	echo "$out/$name.$f"
done
