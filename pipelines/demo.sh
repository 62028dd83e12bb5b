#!/bin/sh
# demo.sh - the demo: decode the bundled sample trace (a synthetic rustc
# build made by etlsynth, see testdata/README.md) and show what it holds.
#
# Usage: demo.sh
#   -h, --help  this text
#
# The tools are taken from the bin/ beside this script's folder.

# -h, --help: the comment above, on the standard output.
help() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
	exit 0
}

if [ $# -gt 0 ]; then
	case $1 in
	-h | --help)
		help ;;
	*)	echo "usage: demo.sh" >&2
		exit 2 ;;
	esac
fi
top=$(cd "$(dirname "$0")/.." && pwd)
sample=$top/testdata/sample.etl
PATH=$top/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== etlcat -v testdata/sample.etl"
etlcat -v -o "$tmp/sample.zst" "$sample" || exit 1
echo
echo "== etlagg sysconfig"
etlagg sysconfig "$tmp/sample.zst" | etlreport || exit 1
echo
echo "== etlagg stats"
etlagg stats "$tmp/sample.zst" | etlreport || exit 1
echo
echo "== the first events"
etlreport "$tmp/sample.zst" | head -n 20
