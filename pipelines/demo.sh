#!/bin/sh
# The demo: decode the bundled sample trace (a synthetic rustc build made
# by etlsynth, see testdata/README.md) and show what it holds.
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
