#!/bin/sh
# npm.sh - the test tools that come from npm, installed into DIR
# (build/npm by default) with npm's own cache: DuckDB's Node API,
# @duckdb/node-api, which ships its binary (Debian has no DuckDB), for
# the tests that load the CSV into DuckDB (many.sh, duckdb.sh).
#
# Usage: sh .ci/npm.sh [DIR]
#
# Without node or npm, or offline, it says what it could not install and
# exits 0: the tests that need it skip, naming it.  A package already in
# DIR is not fetched again.

me=npm
dir=${1:-build/npm}
# The version the tests were written against; a newer one is taken by
# changing it here.
duckdb='@duckdb/node-api@1.5.6-r.1'

[ -d "$dir/node_modules/@duckdb/node-api" ] && exit 0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1
then
	echo "$me: the tests need node and npm for $duckdb (apt-get install" \
	    "nodejs npm); without them the DuckDB tests skip" >&2
	exit 0
fi
mkdir -p "$dir" || exit 0
echo "$me: installing $duckdb into $dir" >&2
npm install --prefix "$dir" --no-audit --no-fund --silent "$duckdb" \
    </dev/null >/dev/null ||
    echo "$me: npm install $duckdb failed (above); the DuckDB tests skip" >&2
exit 0
