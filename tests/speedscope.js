// speedscope.js - speedscope for the shell tests: its file format's JSON
// schema and its web app, both from npm's speedscope package, the app
// run in headless Chromium through puppeteer-core (modules installed by
// .ci/npm.sh into $ETL_NPM, build/npm by default).
//
//   node tests/speedscope.js check
//	exit 0 if the modules and the app are there, else 3 and why
//   node tests/speedscope.js expect VIEW FILE.jsonl
//	what the app should show for the view's table (etlreport -f
//	jsonl): {"name", "total", "unit"} a line a profile (JSON: names
//	may hold tabs and line breaks), heaviest first, a
//	profile per root frame (the first of the stack), its total the sum
//	of the view's weight column over its rows (negative ones left out,
//	as the stack formats leave them out)
//   node tests/speedscope.js schema NAME FILE
//	PASS or FAIL NAME: FILE against the package's schema (ajv), and
//	what the schema cannot say: frame indices in range, as many weights
//	as samples, endValue the sum of the weights
//   node tests/speedscope.js app NAME FILE EXPECTED [NAME FILE EXPECTED ...]
//	PASS or FAIL NAME for each FILE loaded into the app (served over
//	HTTP, opened with #profileURL=): the profile names it lists and the
//	totals it shows beside them (formatted as the app formats them)
//	equal EXPECTED's, in order; and so do the names, exact totals and
//	units of the app's own export of what it loaded (its Export button)
//
//   node tests/speedscope.js loads NAME FILE MIN WORD
//	PASS or FAIL NAME for FILE (of any format the app imports, such as
//	Chrome's trace events) loaded into the app: it loads without an
//	error, its export holds at least MIN profiles, and one of their
//	names holds WORD (what the file names its lanes)
//
// CHROMIUM names the browser (default /usr/bin/chromium).
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

const dir = process.env.ETL_NPM ||
    path.join(__dirname, '..', 'build', 'npm');
const modules = path.join(dir, 'node_modules');
const release = path.join(modules, 'speedscope', 'dist', 'release');
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';

// The weight column of each view's stack table and speedscope's unit.
const weights = {
	cpu: ['samples', 'none'],
	vmem: ['outstanding_bytes', 'bytes'],
	heap: ['outstanding_bytes', 'bytes'],
	waits: ['blocked_ns', 'nanoseconds'],
	threadtime: ['ns', 'nanoseconds'],
};

function need(name) {
	try {
		return require(path.join(modules, name));
	} catch (e) {
		process.stderr.write('speedscope.js: no ' + name + ' in ' + dir +
		    ' (sh .ci/npm.sh)\n');
		process.exit(3);
	}
}

function check() {
	need('puppeteer-core');
	need('ajv');
	for (const f of [path.join(release, 'index.html'),
	    path.join(release, 'file-format-schema.json'), browserPath]) {
		if (!fs.existsSync(f)) {
			process.stderr.write('speedscope.js: no ' + f + '\n');
			process.exit(3);
		}
	}
}

// By falling total, then by name in byte order (as etlreport sorts).
function byWeight(a, b) {
	if (a.total !== b.total)
		return a.total > b.total ? -1 : 1;
	return Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
}

function expect(view, file) {
	const [col, unit] = weights[view];
	const sums = new Map();

	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		if (line === '')
			continue;
		const row = JSON.parse(line);
		const w = row[col];
		if (typeof row.stack !== 'string' || row.stack === '' ||
		    typeof w !== 'number' || w <= 0)
			continue;
		const semi = row.stack.indexOf(';');
		const root = semi < 0 ? row.stack : row.stack.slice(0, semi);
		sums.set(root, (sums.get(root) || 0) + w);
	}
	const out = [...sums].map(([name, total]) => ({ name, total }));
	for (const p of out.sort(byWeight))
		console.log(JSON.stringify({ name: p.name, total: p.total,
		    unit }));
}

function verdict(name, problems) {
	if (problems.length === 0)
		console.log('PASS ' + name);
	else
		console.log('FAIL ' + name + ': ' + problems.slice(0, 3).join('; '));
}

function schema(name, file) {
	const Ajv = need('ajv');
	const ajv = new Ajv({ allErrors: true, strict: false });
	const validate = ajv.compile(JSON.parse(fs.readFileSync(
	    path.join(release, 'file-format-schema.json'), 'utf8')));
	const problems = [];
	let doc;

	try {
		doc = JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch (e) {
		return verdict(name, [file + ': not JSON: ' + e.message]);
	}
	if (!validate(doc))
		for (const e of validate.errors)
			problems.push(file + ': ' + e.instancePath + ' ' + e.message);
	const nframes = doc.shared && Array.isArray(doc.shared.frames) ?
	    doc.shared.frames.length : 0;
	for (const p of Array.isArray(doc.profiles) ? doc.profiles : []) {
		if (p.type !== 'sampled' || !Array.isArray(p.samples) ||
		    !Array.isArray(p.weights))
			continue;
		const where = file + ': profile "' + p.name + '"';
		if (p.samples.length !== p.weights.length)
			problems.push(where + ': ' + p.samples.length +
			    ' samples, ' + p.weights.length + ' weights');
		if (p.samples.some((s) => Array.isArray(s) && s.some((i) =>
		    !Number.isInteger(i) || i < 0 || i >= nframes)))
			problems.push(where + ': a frame index out of range');
		const sum = p.weights.reduce((a, w) => a + w, 0);
		if (p.endValue - p.startValue !== sum)
			problems.push(where + ': endValue ' + p.endValue +
			    ', weights ' + sum);
	}
	verdict(name, problems);
}

// Serves the app at / and file i at /f/i/NAME (its own name: the app
// tells formats it sniffs by it, and names a folded profile after it).
function serve(files) {
	return new Promise((resolve) => {
		const server = http.createServer((req, res) => {
			const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
			const m = /^\/f\/(\d+)\//.exec(url);
			const file = m ? files[Number(m[1])] :
			    path.join(release, url === '/' ? 'index.html' :
			    path.normalize(url));
			fs.readFile(file || '', (err, data) => {
				res.writeHead(err ? 404 : 200);
				res.end(err ? '' : data);
			});
		});
		server.listen(0, '127.0.0.1', () => resolve(server));
	});
}

// In the page: speedscope 1.25's formatters (value-formatters.ts), to
// say what it shows for a total.
function formatIn(page, total, unit) {
	return page.evaluate((v, u) => {
		const time = { nanoseconds: 1e-9, microseconds: 1e-6,
		    milliseconds: 1e-3, seconds: 1 };
		if (u in time) {
			const s = v * time[u];
			if (s / 60 >= 1) {
				const m = Math.floor(s / 60);
				return m + ':' +
				    String(Math.floor(s - m * 60)).padStart(2, '0');
			}
			return s >= 1 ? s.toFixed(2) + 's' :
			    s / 1e-3 >= 1 ? (s / 1e-3).toFixed(2) + 'ms' :
			    s / 1e-6 >= 1 ? (s / 1e-6).toFixed(2) + '\xb5s' :
			    (s / 1e-9).toFixed(2) + 'ns';
		}
		if (u === 'bytes') {
			if (v < 1024)
				return v.toFixed(0) + ' B';
			for (const s of [' KB', ' MB', ' GB']) {
				v /= 1024;
				if (v < 1024 || s === ' GB')
					return v.toFixed(2) + s;
			}
		}
		return v.toLocaleString();
	}, total, unit);
}

// What the app lists: [name, shown total] a profile.  With one profile
// there is no list, only its name in the toolbar.
async function shown(page) {
	const title = await page.$$eval('span', (spans) => {
		const s = spans.find((e) => e.children.length === 1 &&
		    /^\(\d+\/\d+\)$/.test(e.children[0].textContent));
		return s ? 'list' : null;
	});
	if (title === null) {
		const lines = await page.evaluate(() =>
		    document.body.innerText.split('\n'));
		return [[lines[1], null]];
	}
	await page.evaluate(() => [...document.querySelectorAll('span')]
	    .find((e) => e.children.length === 1 &&
	    /^\(\d+\/\d+\)$/.test(e.children[0].textContent)).click());
	await page.waitForFunction(() => [...document.querySelectorAll(
	    'table')].some((t) => /Total Weight/.test(t.textContent)));
	return page.evaluate(() => {
		const t = [...document.querySelectorAll('table')].find((x) =>
		    /Total Weight/.test(x.textContent));
		return [...t.querySelectorAll('tbody tr')].map((tr) =>
		    [tr.cells[1].textContent, tr.cells[2].textContent]);
	});
}

// The app's export of what it loaded, caught as the Blob it saves.
async function exported(page) {
	await page.evaluate(() => [...document.querySelectorAll('div')]
	    .find((e) => e.children.length === 1 &&
	    e.textContent.endsWith('Export')).click());
	await page.waitForFunction(() => window.etlBlobs.length > 0);
	return JSON.parse(await page.evaluate(() =>
	    window.etlBlobs[0].text()));
}

// A page of the app with FILE (the server's i-th) loaded; what the app
// said in an alert, if it did, is in page.etlAlert.
async function openApp(browser, port, i, file) {
	const page = await browser.newPage();

	page.etlAlert = null;
	page.on('dialog', (d) => {
		page.etlAlert = d.message();
		d.dismiss();
	});
	await page.evaluateOnNewDocument(() => {
		const make = URL.createObjectURL;
		window.etlBlobs = [];
		URL.createObjectURL = (b) => {
			window.etlBlobs.push(b);
			return make.call(URL, b);
		};
	});
	return page;
}

// Waits until the app shows what it loaded.
async function appLoads(page, port, i, file) {
	await page.goto('http://127.0.0.1:' + port + '/#profileURL=' +
	    encodeURIComponent('/f/' + i + '/' + path.basename(file)));
	await page.waitForFunction(() =>
	    document.body.innerText.includes('Export'), { timeout: 60000 });
}

async function loadOne(browser, port, i, file, want) {
	const page = await openApp(browser, port, i, file);
	const problems = [];

	try {
		await appLoads(page, port, i, file);
		const list = await shown(page);
		const names = list.map((p) => p[0]);
		const wantNames = want.map((p) => p.name);
		if (JSON.stringify(names) !== JSON.stringify(wantNames))
			problems.push('shows ' + JSON.stringify(names.slice(0, 4)) +
			    ' (' + names.length + '), not ' +
			    JSON.stringify(wantNames.slice(0, 4)) + ' (' +
			    wantNames.length + ')');
		for (let k = 0; k < list.length && k < want.length; k++) {
			if (list[k][1] === null)
				continue;
			const text = await formatIn(page, want[k].total,
			    want[k].unit);
			if (list[k][1] !== text)
				problems.push(JSON.stringify(want[k].name) + ' shows ' +
				    list[k][1] + ', not ' + text);
		}
		const doc = await exported(page);
		const got = doc.profiles.map((p) => JSON.stringify([p.name,
		    p.endValue - p.startValue, p.unit]));
		const wanted = want.map((p) => JSON.stringify([p.name, p.total,
		    p.unit]));
		for (let k = 0; k < Math.max(got.length, wanted.length); k++)
			if (got[k] !== wanted[k]) {
				problems.push('exports ' + got[k] + ', not ' +
				    wanted[k]);
				break;
			}
	} catch (e) {
		problems.push(page.etlAlert !== null ? 'the app said ' +
		    JSON.stringify(page.etlAlert) : String(e.message || e));
	}
	await page.close();
	return problems;
}

// Loads a file of any format; the names of the profiles it exports.
async function loadAny(browser, port, file) {
	const page = await openApp(browser, port, 0, file);

	try {
		await appLoads(page, port, 0, file);
		return (await exported(page)).profiles.map((p) => p.name);
	} catch (e) {
		throw new Error(page.etlAlert !== null ? 'the app said ' +
		    JSON.stringify(page.etlAlert) : String(e.message || e));
	} finally {
		await page.close();
	}
}

async function loads(name, file, min, word) {
	const puppeteer = need('puppeteer-core');
	const server = await serve([file]);
	const browser = await puppeteer.launch({
		executablePath: browserPath,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run',
		    '--disable-background-networking'],
	});
	const problems = [];
	try {
		const names = await loadAny(browser, server.address().port, file);
		if (names.length < min)
			problems.push(names.length + ' profiles, not ' + min +
			    ' or more');
		if (!names.some((n) => n.includes(word)))
			problems.push('no profile named with ' +
			    JSON.stringify(word) + ': ' +
			    JSON.stringify(names.slice(0, 3)));
		if (!problems.length)
			console.log('PASS ' + name + ' (' + names.length +
			    ' profiles)');
		else
			verdict(name, problems);
	} catch (e) {
		verdict(name, [e.message]);
	} finally {
		await browser.close();
		server.close();
	}
}

function readExpected(file) {
	return fs.readFileSync(file, 'utf8').split('\n').filter((l) =>
	    l !== '').map((l) => JSON.parse(l));
}

async function app(args) {
	const puppeteer = need('puppeteer-core');
	const jobs = [];

	for (let i = 0; i + 2 < args.length; i += 3)
		jobs.push({ name: args[i], file: args[i + 1],
		    want: readExpected(args[i + 2]) });
	const server = await serve(jobs.map((j) => j.file));
	const browser = await puppeteer.launch({
		executablePath: browserPath,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run',
		    '--disable-background-networking'],
	});
	try {
		for (let i = 0; i < jobs.length; i++)
			verdict(jobs[i].name, await loadOne(browser,
			    server.address().port, i, jobs[i].file, jobs[i].want));
	} finally {
		await browser.close();
		server.close();
	}
}

async function main(argv) {
	if (argv[0] === 'check' && argv.length === 1)
		check();
	else if (argv[0] === 'expect' && argv.length === 3 && argv[1] in weights)
		expect(argv[1], argv[2]);
	else if (argv[0] === 'schema' && argv.length === 3)
		schema(argv[1], argv[2]);
	else if (argv[0] === 'loads' && argv.length === 5)
		await loads(argv[1], argv[2], Number(argv[3]), argv[4]);
	else if (argv[0] === 'app' && argv.length >= 4 &&
	    (argv.length - 1) % 3 === 0)
		await app(argv.slice(1));
	else {
		process.stderr.write('usage: node speedscope.js check | expect ' +
		    'VIEW FILE.jsonl | schema NAME FILE | app NAME FILE ' +
		    'EXPECTED ...\n');
		process.exit(2);
	}
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write('speedscope.js: ' + (e.stack || e) + '\n');
	process.exit(1);
});
