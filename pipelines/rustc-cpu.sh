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
#   -h, --help  this text
#
# Writes, for trace NAME.etl:
#   NAME.cpu-processes.csv  samples and CPU ms per process
#   NAME.cpu-stacks.csv     samples per call stack, root first
#   NAME.cpu-functions.csv  samples in and under each frame
#   NAME.cpu-modules.csv    the same per module
#   NAME.cpu.folded         collapsed stacks, for flamegraph.pl,
#                           inferno or speedscope
#   NAME.cpu.svg            the flame graph
# Frames are named module!function by etlsym where the symbol path
# (_NT_SYMBOL_PATH) holds the image's PDB, module!0xRVA elsewhere.
#
# The tools are taken from PATH, or from the bin/ beside this script.

prog=rustc-cpu.sh
synopsis="[-a] [-o dir] trace.etl"
. "$(dirname "$0")/build-trace.sh"
build_trace "$@"
# A PDB that cannot be read leaves its frames unnamed; the rest goes on.
etlsym -q -o "$tmp/named.zst" "$stream" ||
    echo "$prog: etlsym: some frames stay unnamed" >&2
[ -s "$tmp/named.zst" ] && stream=$tmp/named.zst
for by in process stack function module; do
	etlagg -q -o "$tmp/$by.zst" cpu --by $by "$stream" ||
	    die "etlagg cpu --by $by failed"
	[ $by = process ] && file=processes || file=${by}s
	etlreport -q -f csv -o "$out/$name.cpu-$file.csv" "$tmp/$by.zst" ||
	    die "etlreport failed"
done
etlreport -q -f folded -o "$out/$name.cpu.folded" "$tmp/stack.zst" &&
    etlreport -q -f svg --title "CPU of $name by stack" \
    -o "$out/$name.cpu.svg" "$tmp/stack.zst" || die "etlreport failed"
for f in cpu-processes.csv cpu-stacks.csv cpu-functions.csv \
    cpu-modules.csv cpu.folded cpu.svg; do
	echo "$out/$name.$f"
done
say_lossy "$tmp/process.zst"
