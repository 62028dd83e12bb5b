#!/bin/sh
# Remakes the pictures of the README from testdata/sample.etl with the
# tools of bin/ and headless Chromium: the build report's Crates tab
# (pipelines/rustc-report.sh), a flame graph of the build's CPU samples
# and the timeline of its processes.  Run from the top after
# `make`:  sh doc/pictures.sh
set -e
cd "$(dirname "$0")/.."
PATH=$PWD/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
browser=$(command -v chromium || command -v chromium-browser ||
    command -v google-chrome)
etlcat -q testdata/sample.etl | etlfilter --rustc >"$tmp/rustc.zst"
etlagg cpu --by stack "$tmp/rustc.zst" |
    etlreport -f svg -o "$tmp/flame.svg"
etlagg tree "$tmp/rustc.zst" | etlreport -f html -o "$tmp/tree.html"
height=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)".*/\1/p' "$tmp/flame.svg")
shot() {
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	    --user-data-dir="$tmp/profile" --window-size="$2" \
	    --virtual-time-budget=2000 --screenshot="$PWD/doc/$1" \
	    "file://$tmp/$3" 2>/dev/null
}
shot flamegraph.png "1200,$height" flame.svg
shot timeline.png 1200,330 tree.html
sh pipelines/rustc-report.sh -o "$tmp/report.html" testdata/sample.etl \
    >/dev/null 2>&1
shot report.png 1200,420 report.html#crates
