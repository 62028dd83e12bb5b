#!/bin/sh
# DuckDB (npm's @duckdb/node-api, installed by .ci/npm.sh) reads every
# view's CSV table with the types its columns have in the stream: UTC
# times as TIMESTAMP, booleans as BOOLEAN, integers as BIGINT, decimals
# and times since the start (seconds) as DOUBLE, text as VARCHAR.  The
# type a column should have is taken from the same table as JSON Lines
# (booleans, numbers, strings; a number column is DOUBLE when the CSV
# writes it with decimals, a string column named *_utc is a time, one of
# hexadecimal numbers BIGINT; other text is left to DuckDB's guess, which
# reads a column of "3" or "no" as a number or a boolean).

. "$(dirname "$0")/../testlib.sh"

duck="node $ETL_TOP/tests/duckdb.js"
if ! command -v node >/dev/null || ! $duck check 2>/dev/null; then
	skip duckdb "no @duckdb/node-api (sh .ci/npm.sh; needs node and npm:
apt-get install nodejs npm)"
	exit 0
fi
if ! command -v etlsynth >/dev/null; then
	skip duckdb "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
etlsynth --events 30000 -o "$tmp/t.etl" >/dev/null 2>&1 &&
    etlcat -q -o "$tmp/t.zst" "$tmp/t.etl" ||
    { fail duckdb-generate "etlsynth or etlcat failed"; exit 0; }
etlsynth --scenario memory -o "$tmp/m.etl" >/dev/null 2>&1 &&
    etlcat -q -o "$tmp/m.zst" "$tmp/m.etl" ||
    { fail duckdb-generate "etlsynth --scenario memory failed"; exit 0; }

# The types JSON Lines and the CSV give, "column TYPE" a line.
want_types() {
	node - "$1" "$2" <<'JS'
'use strict';
const fs = require('fs');
const rows = fs.readFileSync(process.argv[2], 'utf8').split('\n')
    .filter((l) => l !== '').map((l) => JSON.parse(l));
// The CSV's header and its cells, for the decimals of number columns.
const csv = fs.readFileSync(process.argv[3], 'utf8');
const lines = csv.split('\r\n').filter((l) => l !== '');
const head = lines[0].split(',');
const keys = rows.length > 0 ? Object.keys(rows[0]) : [];
keys.forEach((k, i) => {
	const vals = rows.map((r) => r[k]).filter((v) => v !== null);
	let type;
	if (vals.length === 0)
		return;		// an empty column: DuckDB can only guess
	if (vals.every((v) => typeof v === 'boolean'))
		type = 'BOOLEAN';
	else if (vals.every((v) => typeof v === 'number'))
		type = vals.every((v) => Number.isInteger(v)) &&
		    !/\d\.\d/.test(csvColumn(i)) ? 'BIGINT' : 'DOUBLE';
	else if (/_utc$/.test(head[i]))
		type = 'TIMESTAMP';
	else if (vals.every((v) => /^0x[0-9a-f]{1,15}$/.test(v)))
		type = 'BIGINT';	// DuckDB reads hex as a number
	else
		return;		// text: DuckDB may read "3" or "no" as it likes
	console.log(head[i] + ' ' + type);
});
// Column i's cells, joined: simple CSV (a quoted field may hold commas).
function csvColumn(i) {
	return lines.slice(1).map((l) => {
		const cells = [];
		let cur = '', q = false;
		for (const ch of l) {
			if (ch === '"')
				q = !q;
			else if (ch === ',' && !q) {
				cells.push(cur);
				cur = '';
			} else
				cur += ch;
		}
		cells.push(cur);
		return cells[i] || '';
	}).join(' ');
}
JS
}

n=0
for view in stats sysconfig processes tree "cpu --by process" \
    "cpu --by stack" "cpu --by function" "cpu --by module" vmem \
    "vmem --by stack" "vmem --timeline" heap "heap --by module" \
    heapsnap threads "threads --by process" waits "waits --by thread" \
    switches threadtime crates "cpu --by module --diff $tmp/t.zst" \
    "processes --diff $tmp/t.zst"; do
	name=$(echo "$view" | sed "s|$tmp/||" | tr -d '-' | tr ' .' '__')
	src=$tmp/t.zst
	case $view in heap*|vmem*) src=$tmp/m.zst ;; esac
	# shellcheck disable=SC2086
	etlagg -q -o "$tmp/$name.zst" $view "$src" 2>/dev/null
	# A view of several tables: the first.
	table=$(etlreport -q -f text "$tmp/$name.zst" 2>/dev/null | head -1)
	etlreport -q -f csv --table "$table" -o "$tmp/$name.csv" \
	    "$tmp/$name.zst" 2>/dev/null
	etlreport -q -f jsonl --table "$table" -o "$tmp/$name.jsonl" \
	    "$tmp/$name.zst" 2>/dev/null
	if [ "$(wc -l <"$tmp/$name.csv")" -lt 2 ]; then
		fail "duckdb-$name" "no rows"
		continue
	fi
	want_types "$tmp/$name.jsonl" "$tmp/$name.csv" >"$tmp/$name.want"
	(cd "$tmp" && $duck types "$name.csv") >"$tmp/$name.all" 2>&1
	# Only the columns with a value (the others are DuckDB's guess).
	grep -F -x -f "$tmp/$name.want" "$tmp/$name.all" >"$tmp/$name.got"
	if cmp -s "$tmp/$name.want" "$tmp/$name.got"; then
		pass "duckdb-$name"
	else
		fail "duckdb-$name" "$(grep -v -F -x -f "$tmp/$name.got" \
		    "$tmp/$name.want" | head -3 | tr '\n' ';') DuckDB: $(
		    grep -F -f "$(cut -d' ' -f1 "$tmp/$name.want" |
		    sed 's/^/^/; s/$/ /' >"$tmp/pat"; echo "$tmp/pat")" \
		    "$tmp/$name.all" | head -20 | tr '\n' ';')"
	fi
	n=$((n + $(wc -l <"$tmp/$name.want")))
done
# Each of the four types is met, so that the test cannot pass empty.
for t in TIMESTAMP BOOLEAN BIGINT DOUBLE; do
	cat "$tmp"/*.want | grep -q " $t\$" && pass "duckdb-has-$t" ||
	    fail "duckdb-has-$t" "no column of type $t among $n"
done
