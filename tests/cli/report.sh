#!/bin/sh
# The build report: pipelines/rustc-report.sh on etlsynth traces (with
# every kind of event; with neither VirtualAlloc events nor context
# switches) and the sample with the test profiles: one page that stands
# alone, under 8 MB, with its tabs, the crates table holding the crates
# view's rows and a note where a table was cut; etlreport -f html of a
# lone table still draws the page it drew.  In headless Chromium (make
# check installs it) every tab is clicked and shows
# something, the crates table sorts, the flame graphs search, a tab of
# events the trace lacks says so, and the page loads in under 2 s.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
report=$top/pipelines/rustc-report.sh

if ! command -v etlsynth >/dev/null; then
	skip report "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
etlsynth --scenario rustc-build --events 60000 --seed 5 --compress \
    -o "$tmp/build.etl" >/dev/null
etlsynth --scenario rustc-build --events 20000 --seed 6 --pointer-size 4 \
    -o "$tmp/b4.etl" >/dev/null
# No VirtualAlloc events, no context switches.
etlfilter -q -v --kind alloc,cswitch,ready "$tmp/b4.etl" >"$tmp/lean.zst"

sh "$report" -o "$tmp/build.html" "$tmp/build.etl" >"$tmp/out" 2>"$tmp/err"
check_eq report-status "$?:$(cat "$tmp/out")" "0:$tmp/build.html"
sh "$report" -a -p "$top/testdata/selfprofile" -o "$tmp" \
    "$top/testdata/sample.etl" >"$tmp/out" 2>/dev/null
check_eq report-a-p-status "$?:$(cat "$tmp/out")" "0:$tmp/sample.report.html"
# The lean stream, reported as the script would.
etlagg -q sysconfig + crates + threads + waits --by stack + processes + \
    tree + cpu --by stack + cpu --by function + vmem --by stack + \
    vmem --timeline "$tmp/lean.zst" 2>/dev/null |
    etlreport -q -f html -o "$tmp/lean.html"
check_eq report-lean-status "$?" 0

for page in build sample.report lean; do
	f=$tmp/$page.html
	check_eq "report-$page-self-contained" \
	    "$(grep -c 'href=\|src=\|url(\|@import' "$f")" 0
	size=$(wc -c <"$f")
	[ "$size" -lt 8000000 ] && pass "report-$page-under-8-MB" ||
	    fail "report-$page-under-8-MB" "$size bytes"
done
check_eq report-tabs "$(grep -o '<button data-tab="[a-z]*"' \
    "$tmp/sample.report.html" | sed 's/.*="//; s/"//' | xargs)" \
    "summary crates processes tree cpu memory waits timeline queries"
check_eq report-no-queries-tab "$(grep -c 'data-tab="queries"' \
    "$tmp/build.html")" 0
# The crates rows are the crates view's, pids in the same order.
etlagg crates "$tmp/build.etl" 2>/dev/null | etlreport -f csv 2>/dev/null |
    csv_lf | sed 1d | cut -d, -f2 | xargs >"$tmp/want"
sed -n '/id="tab-crates"/,/<\/section>/p' "$tmp/build.html" |
    grep -o '<tr><td>[^<]*</td><td class="num" data-v="[0-9]*"' |
    sed 's/.*data-v="//; s/"//' | xargs >"$tmp/got"
same_file report-crates-rows "$tmp/got" "$tmp/want"
# The other tables name a rustc "crate (pid)": the sample's pid 10328
# was cfg_if, then alloc; its threads are told apart by their starts.
check_eq report-instance-names "$(sed -n '/id="tab-waits"/,/<\/section>/p' \
    "$tmp/sample.report.html" | grep -o '<td title="rustc.exe">[^<]*(10328)' |
    sed 's/.*">//' | sort -u | xargs)" "alloc (10328) cfg_if (10328)"
# A cut table says so: the switches, a row a switch.
n=$(etlagg switches "$tmp/build.etl" 2>/dev/null |
    etlreport -f csv 2>/dev/null | csv_lf | sed 1d | wc -l | tr -d ' ')
etlagg -q switches + stats "$tmp/build.etl" 2>/dev/null |
    etlreport -q -f html >"$tmp/cut.html"
check_eq report-cut-note "$(grep -c "class=\"cut\">The first 200 rows \
of $n; $((n - 200)) left out" "$tmp/cut.html"):$(sed -n \
    '/id="tab-waits"/,/<\/section>/p' "$tmp/cut.html" | grep -c '^<tr>')" \
    "1:200"
# A picture too large for the page is left out, and said: the page
# stays under 8 MB (a commit timeline of 20 us steps, 6 MB alone).
etlagg -q crates + vmem --timeline --step 0.02 "$tmp/build.etl" 2>/dev/null |
    etlreport -q -f html >"$tmp/big.html"
size=$(wc -c <"$tmp/big.html")
check_eq report-budget "$([ "$size" -lt 8000000 ] && echo under 8 MB):$(grep -c \
    'class="cut">Left out: its [0-9.]* MB would take the page over 8 MB' \
    "$tmp/big.html")" "under 8 MB:1"
# The lean trace: the tabs say what is missing.
check_eq report-lean-says-why "$(sed -n '/id="tab-memory"/,/<\/section>/p' \
    "$tmp/lean.html" | grep -c 'class="lacking">crates: no VirtualAlloc')" 1

# A lone table is drawn as before: the tree page, not a report.
etlagg tree "$top/testdata/sample.etl" 2>/dev/null |
    etlreport -f html -o "$tmp/tree.html" 2>/dev/null
check_eq report-lone-table "$(grep -c '<nav>' "$tmp/tree.html"):$(grep -c \
    '^<div class="row"' "$tmp/tree.html")" "0:$(etlagg tree \
    "$top/testdata/sample.etl" 2>/dev/null | etlreport -f csv 2>/dev/null |
    sed 1d | wc -l | tr -d ' ')"

if ! find_browser; then
	skip report-chromium "no chromium to draw the page in (apt-get \
install chromium)"
	exit 0
fi
cat >"$tmp/clicks.js" <<'JS'
    var shown = [], empty = [];
    Array.prototype.forEach.call(d.querySelectorAll('nav button'),
      function (b) {
        b.click();
        var s = d.getElementById('tab-' + b.getAttribute('data-tab'));
        var visible = s.getBoundingClientRect().height > 0 &&
          w.getComputedStyle(s).display != 'none';
        var others = Array.prototype.filter.call(
          d.querySelectorAll('section.tab'), function (o) {
            return o != s && w.getComputedStyle(o).display != 'none'; });
        var content = s.querySelectorAll('table tr, iframe, .lacking');
        (visible && others.length == 0 && content.length > 0 ? shown :
          empty).push(b.getAttribute('data-tab'));
      });
    out = 'tabs ' + shown.join(',') + (empty.length ? ' empty ' +
      empty.join(',') : '');
JS
cat >"$tmp/sort.js" <<'JS'
    d.querySelector('button[data-tab="crates"]').click();
    var t = d.querySelector('#tab-crates table.data');
    var heads = Array.prototype.slice.call(t.tHead.rows[0].cells);
    var k = heads.map(function (h) { return h.getAttribute('data-col'); })
      .indexOf('cpu_ms');
    heads[k].click();
    var v = Array.prototype.map.call(t.tBodies[0].rows, function (r) {
      return +r.cells[k].getAttribute('data-v'); });
    var down = v.every(function (x, i) { return i == 0 || v[i - 1] >= x; });
    heads[k].click();
    var v2 = Array.prototype.map.call(t.tBodies[0].rows, function (r) {
      return +r.cells[k].getAttribute('data-v'); });
    var up = v2.every(function (x, i) { return i == 0 || v2[i - 1] <= x; });
    var bars = t.querySelectorAll('td.bar').length;
    out = (down && v.length > 1 ? 'sorted down' : 'not sorted down') +
      ', ' + (up ? 'up' : 'not up') + ', ' + (bars > 0 ? 'bars' : 'no bars');
    var box = d.querySelector('#tab-processes input.filter');
    d.querySelector('button[data-tab="processes"]').click();
    box.value = '^zzz-no-such';
    box.dispatchEvent(new Event('input'));
    var rows = d.querySelectorAll('#tab-processes tbody tr');
    var hidden = Array.prototype.filter.call(rows, function (r) {
      return r.style.display == 'none'; }).length;
    out += ', ' + (hidden == rows.length && rows.length > 0 ?
      'filtered' : 'not filtered');
    var frames = Array.prototype.slice.call(
      d.querySelectorAll('#tab-cpu iframe, #tab-memory iframe, ' +
      '#tab-waits iframe')).filter(function (f) {
        return f.contentWindow.search; });
    var found = frames.filter(function (f) {
      f.contentWindow.search('rustc');
      var m = f.contentDocument.getElementById('matched');
      return m && /Matched: [1-9]/.test(m.textContent); });
    out += ', ' + found.length + ' of ' + frames.length + ' searched';
    out += ms < 2000 ? ', loaded in time' : ', slow: ' + ms + ' ms';
JS
test_page clicks.html build.html 'width="1300" height="900"' <"$tmp/clicks.js"
check_eq report-chromium-tabs "$(seen clicks.html)" \
    'tabs summary,crates,processes,tree,cpu,memory,waits,timeline'
test_page clicks-q.html sample.report.html 'width="1300" height="900"' <"$tmp/clicks.js"
check_eq report-chromium-tabs-queries "$(seen clicks-q.html)" \
    'tabs summary,crates,processes,tree,cpu,memory,waits,timeline,queries'
test_page sort.html build.html 'width="1300" height="900"' <"$tmp/sort.js"
check_eq report-chromium-sort-filter-search "$(seen sort.html)" \
    'sorted down, up, bars, filtered, 3 of 3 searched, loaded in time'
