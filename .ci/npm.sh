#!/bin/sh
# npm.sh - the test tools that come from npm, installed into DIR
# (build/npm by default) with npm's own cache:
#  - DuckDB's Node API, @duckdb/node-api, which ships its binary (Debian
#    has no DuckDB), for the tests that load the CSV into DuckDB
#    (many.sh, duckdb.sh);
#  - speedscope, whose package ships its web app and its file format's
#    JSON schema, puppeteer-core, to drive the Debian chromium headless
#    (it downloads no browser), and ajv, to check files against the
#    schema (speedscope.sh).
#
# Usage: sh .ci/npm.sh [DIR]
#
# Without node or npm, or offline, it says what it could not install and
# exits 0: the tests that need it skip, naming it.  A package already in
# DIR is not fetched again.

me=npm
dir=${1:-build/npm}
# The versions the tests were written against; a newer one is taken by
# changing it here.
packages='@duckdb/node-api@1.5.6-r.1 speedscope@1.25.0
puppeteer-core@25.19.0 ajv@8.20.0'

# The packages not in DIR yet.
missing=
for p in $packages; do
	name=${p%@*}
	[ -d "$dir/node_modules/$name" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1
then
	echo "$me: the tests need node and npm for$missing (apt-get install" \
	    "nodejs npm); without them the DuckDB and speedscope tests" \
	    "skip" >&2
	exit 0
fi
mkdir -p "$dir" || exit 0
echo "$me: installing$missing into $dir" >&2
# shellcheck disable=SC2086
npm install --prefix "$dir" --no-audit --no-fund --silent $missing \
    </dev/null >/dev/null ||
    echo "$me: npm install$missing failed (above); the tests that need" \
	"them skip" >&2
exit 0
