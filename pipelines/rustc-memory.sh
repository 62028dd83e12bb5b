#!/bin/sh
# rustc-memory.sh - what the rustc-dev-guide's WPA profile shows in its
# "rustc Memory Analysis" tab, from a trace recorded with VirtualAlloc
# usage: which stacks of the build's processes (rustc, cargo, link,
# rustdoc, build scripts and their children) committed memory, and how
# much each process had committed over time.
#
# Usage: rustc-memory.sh [-a] [-o dir] trace.etl
#   -a      every process of the trace, not only those of the build
#   -o dir  where to write the files (default: the current directory)
#   -h, --help  this text
#
# Writes, for trace NAME.etl:
#   NAME.commit-processes.csv  committed, freed and outstanding bytes
#                              per process instance, with the peak
#   NAME.commit-stacks.csv     the same per committing stack, root first
#                              (the Commit Stack column of WPA)
#   NAME.commit.folded         bytes committed by stack, for
#                              flamegraph.pl, inferno or speedscope
#   NAME.commit.svg            the commit flame graph: bytes committed
#                              over the trace by stack, as the guide's
#                              "~30gb through codegen" counts them
#   NAME.commit-timeline.csv   outstanding commit per process every 100 ms
#   NAME.commit-timeline.svg   the same as a line chart (Outstanding
#                              Commit)
# Frames are named module!0xRVA until symbols are resolved.
#
# The tools are taken from PATH, or from the bin/ beside this script.

prog=rustc-memory.sh
synopsis="[-a] [-o dir] trace.etl"
. "$(dirname "$0")/build-trace.sh"
build_trace "$@"
etlagg -q -o "$tmp/process.zst" vmem --by process "$stream" &&
    etlagg -q -o "$tmp/stack.zst" vmem --by stack --weight committed \
    "$stream" && etlagg -q -o "$tmp/timeline.zst" vmem --timeline "$stream" ||
    die "etlagg vmem failed"
etlreport -q -f csv -o "$out/$name.commit-processes.csv" "$tmp/process.zst" &&
    etlreport -q -f csv -o "$out/$name.commit-stacks.csv" "$tmp/stack.zst" &&
    etlreport -q -f folded -o "$out/$name.commit.folded" "$tmp/stack.zst" &&
    etlreport -q -f svg --title "Memory committed by $name, by stack" \
    -o "$out/$name.commit.svg" "$tmp/stack.zst" &&
    etlreport -q -f csv -o "$out/$name.commit-timeline.csv" \
    "$tmp/timeline.zst" &&
    etlreport -q -f svg --title "Outstanding commit of $name" \
    -o "$out/$name.commit-timeline.svg" "$tmp/timeline.zst" ||
    die "etlreport failed"
for f in commit-processes.csv commit-stacks.csv commit.folded commit.svg \
    commit-timeline.csv commit-timeline.svg; do
	echo "$out/$name.$f"
done
say_lossy "$tmp/process.zst"
