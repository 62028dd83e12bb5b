#!/bin/sh
# The pictures: folded stacks, the svg flame graph and the html process
# timeline, made from a synthetic trace (or the corpus when etlsynth is
# missing), checked for their totals and form; in headless Chromium (they
# skip without it: make check installs it as root), the svg and the
# pages are drawn and clicked.  Then the
# pipelines/rustc-*.sh scripts, from an .etl to their files.

. "$(dirname "$0")/../testlib.sh"

if command -v etlsynth >/dev/null; then
	etlsynth --events 30000 --seed 7 -o "$tmp/t.etl" >/dev/null ||
	    { fail render-synth "etlsynth failed"; exit 0; }
	trace=$tmp/t.etl
elif [ -f "$ETL_CORPUS/etl/perfview__net.4.5.2.x64.etl" ]; then
	trace=$ETL_CORPUS/etl/perfview__net.4.5.2.x64.etl
else
	skip render "neither build/etlsynth nor the corpus"
	exit 0
fi
etlcat -q "$trace" >"$tmp/t.zst" || { fail render-decode etlcat; exit 0; }
etlagg cpu --by stack "$tmp/t.zst" >"$tmp/stacks.zst"
etlagg tree "$tmp/t.zst" >"$tmp/tree.zst"
samples=$(etlreport -f csv "$tmp/stacks.zst" | csv_lf |
    awk -F, 'NR > 1 { s += $(NF - 2) } END { print s + 0 }')

# Folded: "frames weight" lines, stacks unique and sorted, the weights
# adding up to the samples.
etlreport -f folded "$tmp/stacks.zst" >"$tmp/folded"
check_eq folded-total "$(awk '{ s += $NF } END { print s + 0 }' \
    "$tmp/folded")" "$samples"
check_eq folded-form "$(grep -cv '^[^ ;][^;]*\(;[^;]\{1,\}\)* [1-9][0-9]*$' \
    "$tmp/folded")" 0
sed 's/ [0-9]*$//' "$tmp/folded" >"$tmp/keys"
LC_ALL=C sort -c -u "$tmp/keys" 2>/dev/null && pass folded-sorted ||
    fail folded-sorted "stacks repeat or are out of order"

# Nothing to draw: a table without a stack column.
etlagg stats "$tmp/t.zst" | etlreport -f folded >/dev/null 2>"$tmp/err"
check_eq folded-nothing "$?:$(grep -v ': lossy input: ' "$tmp/err")" \
    "1:etlreport: nothing to draw \
as folded: no table with a stack column and an integer weight column"
etlreport -f html "$tmp/stacks.zst" >/dev/null 2>"$tmp/err"
check_eq html-nothing "$?" 1

# The flame graph: one file, nothing fetched from elsewhere, a frame for
# each drawn box with its tooltip, the root holding every sample.
etlreport -f svg --title 'CPU & <stacks>' -o "$tmp/flame.svg" "$tmp/stacks.zst"
check_eq svg-status "$?" 0
if command -v xmllint >/dev/null; then
	xmllint --noout "$tmp/flame.svg" 2>"$tmp/err" && pass svg-xml ||
	    fail svg-xml "$(head -3 "$tmp/err")"
else
	skip svg-xml "no xmllint (apt-get install libxml2-utils)"
fi
check_eq svg-self-contained "$(grep -c 'href=\|src=\|url(\|@import' \
    "$tmp/flame.svg")" 0
grep -q "<title>all ($samples samples, 100.00%)</title>" "$tmp/flame.svg" &&
    pass svg-root || fail svg-root "no root frame of $samples samples"
grep -q '>CPU &amp; &lt;stacks&gt;</text>' "$tmp/flame.svg" &&
    pass svg-title || fail svg-title "title not escaped"
check_eq svg-frames "$(grep -c '<g class="f"><title>' "$tmp/flame.svg")" \
    "$(grep -c '<rect x=[^>]* rx="2"/>' "$tmp/flame.svg")"

# The timeline: a row for every process of the tree table.
etlreport -f html --title 'Build & <tree>' -o "$tmp/tree.html" "$tmp/tree.zst"
check_eq html-status "$?" 0
check_eq html-rows "$(grep -c '^<div class="row"' "$tmp/tree.html")" \
    "$(etlreport -f csv "$tmp/tree.zst" | csv_lf | sed 1d | wc -l |
    tr -d ' ')"
check_eq html-self-contained "$(grep -c 'href=\|src=\|url(\|@import' \
    "$tmp/tree.html")" 0
etlreport -f html --max-depth 1 "$tmp/tree.zst" |
    grep '^<div class="row"' | grep -vc 'data-depth="0"' >"$tmp/n"
check_eq html-max-depth "$(cat "$tmp/n")" 0

# Drawn and clicked in headless Chromium, as a user would: the flame
# graph zooms on a click, highlights a search, opens scrolled to its
# root and says what it counts; the timeline spans the trace (bars of
# processes running at its end reach the right edge), folds a row's
# children on a click and highlights a search; the query page stands
# alone, shows its title and folds a box on a click.  A test page loads
# each output in a frame, acts on it and leaves what it saw in its DOM.
find_browser
if [ -n "$browser" ]; then
	test_page svg.html flame.svg 'width="1200" height="800"' <<'JS'
    var gs = Array.prototype.slice.call(d.querySelectorAll('g.f'));
    var t = gs.filter(function (g) { return g.getBoundingClientRect().width
      > 0 && g.querySelector('title').textContent.indexOf('all ') != 0; })[0];
    t.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    out = 'zoomed ' + t.querySelector('rect').getAttribute('width');
    w.search('.');
    out += ' ' + d.getElementById('matched').textContent;
JS
	check_eq chromium-svg "$(seen svg.html)" 'zoomed 1180.00 Matched: 100.0%'
	# In a frame lower than the graph it opens at the bottom, the root
	# in view; the title and subtitle say what it counts and how much.
	etlreport -f svg -o "$tmp/flame-plain.svg" "$tmp/stacks.zst"
	test_page svg-scroll.html flame-plain.svg 'width="1200" height="120"' <<'JS'
    var root = Array.prototype.slice.call(d.querySelectorAll('g.f'))
      .filter(function (g) { return g.querySelector('title').textContent
      .indexOf('all ') == 0; })[0].querySelector('rect')
      .getBoundingClientRect();
    out = (w.scrollY > 0 ? 'scrolled' : 'at the top') +
      (root.top >= 0 && root.bottom <= w.innerHeight ? ' root shown' :
      ' root hidden') + '; ' + d.getElementById('title').textContent +
      '; ' + d.getElementById('subtitle').textContent.replace(/ in all.*/,
      '');
JS
	check_eq chromium-svg-opens-at-root "$(seen svg-scroll.html)" \
	    "scrolled root shown; CPU samples by call stack; $(echo "$samples" |
	    sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\(,\|$\)/\1,\2\3/' \
	    -e 'ta') samples"
	test_page page.html tree.html 'width="1200" height="800"' <<'JS'
    var rows = Array.prototype.slice.call(d.querySelectorAll('.row'));
    var bars = rows.filter(function (r) {
      return r.querySelector('.bar').getBoundingClientRect().width >= 1; });
    var p = rows.filter(function (r, i) { return rows[i + 1] &&
      +rows[i + 1].getAttribute('data-depth') > +r.getAttribute('data-depth');
      })[0];
    p.click();
    var hidden = rows.filter(function (r) {
      return r.style.display == 'none'; }).length;
    out = (bars.length == rows.length ? 'drawn' : 'bars missing') +
      (hidden > 0 ? ' folded' : ' not folded');
JS
	check_eq chromium-html "$(seen page.html)" 'drawn folded'
	# The axis spans the trace: a process running at its end (a bar
	# with a dashed right edge) reaches the right edge, one that exited
	# ends before it; a search highlights the rows that match.
	test_page span.html tree.html 'width="1200" height="800"' <<'JS'
    var rows = Array.prototype.slice.call(d.querySelectorAll('.row'));
    var right = rows[0].querySelector('.track').getBoundingClientRect().right;
    var ends = function (r) {
      return r.querySelector('.bar').getBoundingClientRect().right; };
    var running = rows.filter(function (r) {
      return r.querySelector('.bar.after'); });
    var exited = rows.filter(function (r) {
      return !r.querySelector('.bar.after'); });
    var atEdge = running.filter(function (r) {
      return Math.abs(ends(r) - right) < 1.5; });
    var before = exited.filter(function (r) { return ends(r) < right - 1; });
    var box = d.getElementById('filter');
    box.value = 'link';
    box.dispatchEvent(new Event('input'));
    var hits = d.querySelectorAll('.row.hit').length;
    var want = rows.filter(function (r) {
      return /link/i.test(r.title); }).length;
    out = (running.length > 0 && atEdge.length == running.length ?
      'running to the end' : atEdge.length + ' of ' + running.length +
      ' running at the edge') + ', ' + (before.length == exited.length ?
      'exited before it' : 'exited at the edge') + ', ' +
      (hits > 0 && hits == want ? 'search highlights' : hits + ' of ' +
      want + ' highlighted');
JS
	check_eq chromium-html-span "$(seen span.html)" \
	    'running to the end, exited before it, search highlights'
	# The rustc query page.
	etlcat -q "$ETL_TOP/testdata/selfprofile/tiny-0030637.mm_profdata" |
	    etlreport -f html -o "$tmp/queries.html"
	test_page qpage.html queries.html 'width="1200" height="800"' <<'JS'
    var box = Array.prototype.slice.call(d.querySelectorAll('.trace'))
      .filter(function (b) { return b.querySelector('.trace'); })[0];
    var kid = box.querySelector('.trace');
    var shown = getComputedStyle(kid).display;
    box.querySelector('.eff').click();
    var after = getComputedStyle(kid).display;
    var sheets = Array.prototype.slice.call(d.styleSheets)
      .filter(function (s) { return s.href; }).length;
    out = d.querySelector('h1').textContent + '; ' +
      (shown != 'none' && after == 'none' ? 'a click folds' :
      'no fold: ' + shown + ' ' + after) + '; ' + sheets +
      ' external style sheets; ' + (d.querySelector('h1')
      .getBoundingClientRect().height > 0 ? 'title shown' : 'title hidden');
JS
	check_eq chromium-queries "$(seen qpage.html)" \
	    'rustc query trace; a click folds; 0 external style sheets; title shown'
else
	skip chromium "no chromium to draw the svg and html in (apt-get \
install chromium)"
fi

# The pipelines, from the .etl to their files.
if ! command -v etlfilter >/dev/null; then
	skip pipelines "no etlfilter"
	exit 0
fi
name=$(basename "$trace" .etl)
sh "$ETL_TOP/pipelines/rustc-processes.sh" -o "$tmp/p" "$trace" \
    >"$tmp/list" 2>"$tmp/err"
check_eq rustc-processes-files "$?:$(wc -l <"$tmp/list" | tr -d ' ')" "0:4"
for f in $(cat "$tmp/list"); do
	[ -s "$f" ] || fail rustc-processes-files "$f is empty or missing"
done
sh "$ETL_TOP/pipelines/rustc-cpu.sh" -a -o "$tmp/p" "$trace" \
    >"$tmp/list" 2>"$tmp/err"
check_eq rustc-cpu-files "$?:$(wc -l <"$tmp/list" | tr -d ' ')" "0:6"
check_eq rustc-cpu-folded "$(awk '{ s += $NF } END { print s + 0 }' \
    "$tmp/p/$name.cpu.folded")" "$samples"
sh "$ETL_TOP/pipelines/rustc-cpu.sh" -o "$tmp/q" "$trace" >/dev/null 2>&1
# Not the whole system: no Idle, System or shell samples.
grep '^Idle;\|^System;\|^cmd\.exe;\|^explorer\.exe;' \
    "$tmp/q/$name.cpu.folded" | head -1 >"$tmp/other"
if grep -q '^rustc\.exe' "$tmp/q/$name.cpu.folded" &&
    [ ! -s "$tmp/other" ]; then
	pass rustc-cpu-only-build
elif grep -q rustc "$tmp/p/$name.cpu-processes.csv"; then
	fail rustc-cpu-only-build "$(cat "$tmp/other")"
else
	skip rustc-cpu-only-build "no rustc in $name"
fi
sh "$ETL_TOP/pipelines/rustc-cpu.sh" >/dev/null 2>&1
check_eq rustc-cpu-usage "$?" 2
# A trace without a Rust process: said, with the way out, not empty files.
if [ -f "$ETL_CORPUS/etl/perfview__net.4.5.2.x64.etl" ]; then
	for script in rustc-cpu rustc-processes; do
		sh "$ETL_TOP/pipelines/$script.sh" -o "$tmp/none" \
		    "$ETL_CORPUS/etl/perfview__net.4.5.2.x64.etl" >/dev/null \
		    2>"$tmp/err"
		check_eq "$script-no-rust" "$?:$(tail -1 "$tmp/err")" \
		    "1:$script.sh: $ETL_CORPUS/etl/perfview__net.4.5.2.x64.etl: \
no Rust process (rustc, cargo, rustdoc, build scripts) in the trace; -a \
takes every process"
	done
else
	skip rustc-cpu-no-rust "no corpus trace without rustc"
fi
