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
#   -h, --help  this text
#
# Writes, for trace NAME.etl:
#   NAME.processes.csv   one row per process, in order of start
#   NAME.tree.csv        the same rows in parent-child order, with depth
#   NAME.tree.txt        the tree as indented text
#   NAME.tree.html       the tree as a timeline page
#
# The tools are taken from PATH, or from the bin/ beside this script.

prog=rustc-processes.sh
synopsis="[-a] [-o dir] trace.etl"
. "$(dirname "$0")/build-trace.sh"
build_trace "$@"
etlagg -q -o "$tmp/processes.zst" processes "$stream" &&
    etlagg -q -o "$tmp/tree.zst" tree "$stream" || die "etlagg failed"
etlreport -q -f csv -o "$out/$name.processes.csv" "$tmp/processes.zst" &&
    etlreport -q -f csv -o "$out/$name.tree.csv" "$tmp/tree.zst" &&
    etlreport -q -f text -o "$out/$name.tree.txt" "$tmp/tree.zst" &&
    etlreport -q -f html --title "Processes of $name" \
    -o "$out/$name.tree.html" "$tmp/tree.zst" || die "etlreport failed"
for f in processes.csv tree.csv tree.txt tree.html; do
	echo "$out/$name.$f"
done
say_lossy "$tmp/processes.zst"
