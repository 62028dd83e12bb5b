// duckdb.js - DuckDB for the shell tests, through npm's @duckdb/node-api
// (installed by .ci/npm.sh into $ETL_NPM, build/npm by default).
//
//   node tests/duckdb.js check          exit 0 if the module loads
//   node tests/duckdb.js sql QUERY      each row's values, comma-joined
//   node tests/duckdb.js types FILE.csv "column TYPE" a line, as
//                                       read_csv_auto() reads FILE.csv
'use strict';
const path = require('path');

const dir = process.env.ETL_NPM ||
    path.join(__dirname, '..', 'build', 'npm');
let api;
try {
	api = require(path.join(dir, 'node_modules', '@duckdb', 'node-api'));
} catch (e) {
	process.stderr.write('duckdb.js: no @duckdb/node-api in ' + dir +
	    ' (sh .ci/npm.sh)\n');
	process.exit(3);
}

async function run(sql) {
	const db = await api.DuckDBInstance.create(':memory:');
	const con = await db.connect();
	return (await con.runAndReadAll(sql)).getRows();
}

// A file name as a SQL string literal.
function literal(s) {
	return "'" + s.replace(/'/g, "''") + "'";
}

async function main(argv) {
	if (argv[0] === 'check') {
		await run('SELECT 1');
	} else if (argv[0] === 'sql' && argv.length === 2) {
		for (const row of await run(argv[1]))
			console.log(row.map(String).join(','));
	} else if (argv[0] === 'types' && argv.length === 2) {
		const rows = await run('DESCRIBE SELECT * FROM read_csv_auto(' +
		    literal(argv[1]) + ')');
		for (const row of rows)
			console.log(row[0] + ' ' + row[1]);
	} else {
		process.stderr.write('usage: duckdb.js check | sql query | ' +
		    'types file.csv\n');
		process.exit(2);
	}
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write('duckdb.js: ' + e.message + '\n');
	process.exit(1);
});
