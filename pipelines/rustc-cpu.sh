#!/bin/sh
# rustc-cpu.sh - what the rustc-dev-guide's WPA profile shows in its
# "rustc CPU Analysis" tab, from one trace: where the processes of a
# build (rustc, cargo, link, rustdoc, build scripts and their children)
# spent their CPU samples, by process, call stack, function and module,
# and the stacks as folded text and a flame graph.
#
# Usage: rustc-cpu.sh [-a] [-o dir] trace.etl
#   -a      every process of the trace, not only those of the build
#   -o dir  where to write the files (default: the current directory)
#
# Writes, for trace NAME.etl:
#   NAME.cpu-processes.csv  samples and CPU ms per process
#   NAME.cpu-stacks.csv     samples per call stack, root first
#   NAME.cpu-functions.csv  samples in and under each frame
#   NAME.cpu-modules.csv    the same per module
#   NAME.cpu.folded         collapsed stacks, for flamegraph.pl,
#                           inferno or speedscope
#   NAME.cpu.svg            the flame graph
# Frames are named module!0xRVA until symbols are resolved.
#
# The tools are taken from PATH, or from the bin/ beside this script.

usage() {
	echo "usage: rustc-cpu.sh [-a] [-o dir] trace.etl" >&2
	exit 2
}

die() {
	echo "rustc-cpu.sh: $*" >&2
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
for by in process stack function module; do
	etlagg -o "$tmp/$by.zst" cpu --by $by "$stream" ||
	    die "etlagg cpu --by $by failed"
	[ $by = process ] && file=processes || file=${by}s
	etlreport -f csv -o "$out/$name.cpu-$file.csv" "$tmp/$by.zst" ||
	    die "etlreport failed"
done
etlreport -f folded -o "$out/$name.cpu.folded" "$tmp/stack.zst" &&
    etlreport -f svg --title "CPU of $name by stack" \
    -o "$out/$name.cpu.svg" "$tmp/stack.zst" || die "etlreport failed"
for f in cpu-processes.csv cpu-stacks.csv cpu-functions.csv \
    cpu-modules.csv cpu.folded cpu.svg; do
	echo "$out/$name.$f"
done
