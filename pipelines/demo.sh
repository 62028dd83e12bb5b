#!/bin/sh
# The demo: decode the bundled sample trace and show what it holds.
top=$(cd "$(dirname "$0")/.." && pwd)
sample=$top/testdata/sample.etl
PATH=$top/bin:$PATH
if [ ! -f "$sample" ]; then
	echo "demo: $sample is missing (it is made by etlsynth)" >&2
	exit 1
fi
echo "== etlagg sysconfig"
etlcat "$sample" | etlagg sysconfig | etlreport
echo
echo "== etlagg stats"
etlcat "$sample" | etlagg stats | etlreport
echo
echo "== the first events"
etlcat "$sample" | etlreport | head -n 20
