// timeline-page.js - the report's Timeline tab in headless Chromium
// (puppeteer-core from $ETL_NPM, build/npm by default, as speedscope.js
// takes it), for make bench: how long the page takes from its loading
// to the timeline's first drawing, and how long a zoom (a notch of the
// wheel) takes to redraw it, as the mean of 10.
//
//   node tests/timeline-page.js PAGE.html
//	prints "first_ms zoom_ms lanes"; exit 3 without the modules
//
// CHROMIUM names the browser (default /usr/bin/chromium).
'use strict';
const path = require('path');

const dir = process.env.ETL_NPM ||
    path.join(__dirname, '..', 'build', 'npm');
let puppeteer;
try {
	puppeteer = require(path.join(dir, 'node_modules', 'puppeteer-core'));
} catch (e) {
	process.stderr.write('timeline-page.js: no puppeteer-core in ' + dir +
	    ' (sh .ci/npm.sh)\n');
	process.exit(3);
}

async function main(file) {
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run',
		    '--disable-background-networking'],
	});
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1400, height: 1000 });
		const t0 = Date.now();
		await page.goto('file://' + path.resolve(file) + '#timeline',
		    { waitUntil: 'load', timeout: 600000 });
		let frame = null;
		for (const f of page.frames())
			if (await f.evaluate(() => !!window.timeline))
				frame = f;
		if (frame === null)
			throw new Error('no timeline in ' + file);
		await frame.waitForFunction(() =>
		    document.body.hasAttribute('data-drawn'), { timeout: 600000 });
		const first = Date.now() - t0;
		const [zoom, lanes] = await frame.evaluate(() => {
			const tl = window.timeline;
			const cv = document.getElementById('tl');
			const r = cv.getBoundingClientRect();
			const mid = (tl.whole[0] + tl.whole[1]) / 2, n = 10;
			const a = performance.now();
			for (let i = 0; i < n; i++)
				cv.dispatchEvent(new WheelEvent('wheel', {
				    deltaY: -100, clientX: r.left + tl.xOf(mid),
				    clientY: r.top + 40, bubbles: true,
				    cancelable: true }));
			return [(performance.now() - a) / n, tl.lanes.length];
		});
		console.log(first + ' ' + zoom.toFixed(1) + ' ' + lanes);
	} finally {
		await browser.close();
	}
}

main(process.argv[2]).catch((e) => {
	process.stderr.write('timeline-page.js: ' + (e.message || e) + '\n');
	process.exit(1);
});
