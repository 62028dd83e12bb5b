#!/bin/sh
# rustc-waits.sh - why the threads of a build were not running: from a
# trace with context switches (CSwitch, ReadyThread), per thread the time
# it ran, was ready and waited; where threads blocked and who readied
# them; and an off-CPU flame graph weighted by nanoseconds.
#
# Usage: rustc-waits.sh [-a] [-o dir] trace.etl
#   -a      every process of the trace, not only those of the build
#   -o dir  where to write the files (default: the current directory)
#   -h, --help  this text
#
# Writes, for trace NAME.etl:
#   NAME.waits-threads.csv    running, ready, waiting ns per thread
#   NAME.waits-processes.csv  the same per process
#   NAME.waits-stacks.csv     blocked time by where threads blocked
#   NAME.waits-reasons.csv    blocked time by wait reason
#   NAME.waits.folded         the blocked stacks, folded, by ns
#   NAME.waits.svg            the off-CPU flame graph
#
# The tools are taken from PATH, or from the bin/ beside this script.

prog=rustc-waits.sh
synopsis="[-a] [-o dir] trace.etl"
. "$(dirname "$0")/build-trace.sh"
build_trace "$@"
for view in "threads --by thread:threads" "threads --by process:processes" \
    "waits --by stack:stacks" "waits --by reason:reasons"; do
	args=${view%%:*}
	file=${view##*:}
	etlagg -q -o "$tmp/$file.zst" $args "$stream" ||
	    die "etlagg $args failed"
	etlreport -q -f csv -o "$out/$name.waits-$file.csv" "$tmp/$file.zst" ||
	    die "etlreport failed"
done
etlreport -q -f folded -o "$out/$name.waits.folded" "$tmp/stacks.zst" &&
    etlreport -q -f svg --title "Blocked time of $name by stack" \
    -o "$out/$name.waits.svg" "$tmp/stacks.zst" || die "etlreport failed"
for f in waits-threads.csv waits-processes.csv waits-stacks.csv \
    waits-reasons.csv waits.folded waits.svg; do
	echo "$out/$name.$f"
done
say_lossy "$tmp/processes.zst"
