#!/bin/sh
# The build report's page as a reader sees it (pipelines/rustc-report.sh,
# issue 34): each title says which processes its table or picture covers
# (etlagg --note-filters); with -a the Waits tab leaves out Idle, whose
# idle threads do not wait, and the PowerShell twin writes the same page;
# and, in headless Chromium, the Crates tab draws a stacked bar a crate
# of its running, ready and waiting time, each part as wide as its
# figure, the frames of the pictures are as tall as the pictures (no
# blank taller than the window, also in a full-page capture, where the
# window is as tall as the page), Waits has no row of Idle, and the
# flame graphs' own titles say what they cover.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
report=$top/pipelines/rustc-report.sh
sample=$top/testdata/sample.etl

# The note of --note-filters: the filters as given, before the tables;
# a view without filters has none.
etlagg -q --note-filters cpu --rustc + threads -v --pid 0 + stats "$sample" |
    etlreport -q -f text >"$tmp/notes.txt" 2>/dev/null
check_eq report-page-note-filters "$(grep -c '^note: processes: --rustc$' \
    "$tmp/notes.txt"):$(grep -c '^note: processes: -v --pid 0$' \
    "$tmp/notes.txt"):$(grep -c '^note: processes:' "$tmp/notes.txt")" \
    "1:1:2"

sh "$report" -o "$tmp/build.html" "$sample" >/dev/null 2>&1 &&
    sh "$report" -a -o "$tmp/all.html" "$sample" >/dev/null 2>&1 ||
    { fail report-page-status "rustc-report.sh failed"; exit 0; }

# tab PAGE NAME: the section of tab NAME.
tab() {
	sed -n "/id=\"tab-$2\"/,/<\\/section>/p" "$1"
}
# The titles: each of a trace's processes says which it covers, that
# of the build's (--rustc), or with -a every process, every process but
# Idle in Waits.
titles() {
	for t in crates processes tree cpu memory waits; do
		tab "$1" $t | grep -o '<h2>[^<]*</h2>' |
		    sed "s/^<h2>[^<]* \xe2\x80\x94 /$t: /; s/<\\/h2>$//" |
		    sort -u
	done | sed 's/&#39;/'"'"'/g' | sort -u | tr '\n' '|'
}
# The Summary's "Not recorded" is not about coverage.
check_eq report-page-titles "$(titles "$tmp/build.html") summary \
$(tab "$tmp/build.html" summary | grep -c 'processes: --rustc')" \
"cpu: the build's processes (--rustc)|crates: the build's processes (--rustc)|\
memory: the build's processes (--rustc)|processes: the build's processes \
(--rustc)|tree: the build's processes (--rustc)|waits: the build's processes \
(--rustc)| summary 0"
check_eq report-page-titles-a "$(titles "$tmp/all.html")" \
"cpu: every process|crates: every process|memory: every process|\
processes: every process|tree: every process|waits: every process but Idle \
(-v --pid 0)|"

# -a: the Waits tab's threads table holds every process's rows but
# Idle's, the rows the view gives on the whole trace (etlfilter's
# composition law).
idle_rows() {
	tab "$1" waits | grep -c '^<tr><td class="num" data-v="0">0</td><td class="num" data-v="0">0</td><td>Idle</td>'
}
n=$(etlagg -q threads "$sample" | etlreport -q -f csv | csv_lf |
    sed 1d | grep -vc '^0,0,Idle,')
check_eq report-page-waits-no-idle "$(idle_rows "$tmp/all.html"):$(tab \
    "$tmp/all.html" waits | sed -n '/Threads: running/,/<\/table>/p' |
    grep -c '^<tr>')" "0:$n"

# The PowerShell twin writes the same page with -All, also against a
# baseline.
pwsh=$(command -v pwsh 2>/dev/null || echo "$HOME/.dotnet/tools/pwsh")
if [ -x "$pwsh" ]; then
	sh "$report" -a --baseline "$sample" -o "$tmp/all-b.html" "$sample" \
	    >/dev/null 2>&1
	(cd "$tmp" && "$pwsh" -NoProfile -NonInteractive -File \
	    "$top/pipelines/rustc-report.ps1" -All -Out "$tmp/p.html" \
	    "$sample" >/dev/null 2>&1 &&
	    "$pwsh" -NoProfile -NonInteractive -File \
	    "$top/pipelines/rustc-report.ps1" -All -Baseline "$sample" \
	    -Out "$tmp/p-b.html" "$sample" >/dev/null 2>&1)
	for p in p:all p-b:all-b; do
		a=$tmp/${p%%:*}.html b=$tmp/${p#*:}.html
		check_eq "report-page-ps1-${p#*:}" "$([ -s "$a" ] &&
		    cmp -s "$a" "$b" && echo same), $(idle_rows "$a") Idle" \
		    "same, 0 Idle"
	done
else
	skip report-page-ps1 "no pwsh (sh .ci/pwsh.sh installs PowerShell 7)"
fi

if ! find_browser; then
	skip report-page-chromium "no chromium to draw the page in (apt-get \
install chromium)"
	exit 0
fi
if command -v etlsynth >/dev/null; then
	etlsynth --scenario rustc-build --events 60000 --seed 5 --compress \
	    -o "$tmp/synth.etl" >/dev/null &&
	    etlsynth --scenario rustc-build --events 60000 --seed 6 \
	    --compress -o "$tmp/synth6.etl" >/dev/null &&
	    sh "$report" -o "$tmp/synth.html" "$tmp/synth.etl" >/dev/null 2>&1 &&
	    sh "$report" --baseline "$tmp/synth6.etl" -o "$tmp/diff.html" \
	    "$tmp/synth.etl" >/dev/null 2>&1
fi
[ -f "$tmp/synth.html" ] || cp "$tmp/build.html" "$tmp/synth.html"

# The bars: one a row of the crates table, in its order, each part as
# wide as its figure in the table, on one scale for all (a pixel is
# the same time in every bar, to half a pixel); against a baseline, a
# second bar a row of the baseline's figures, on the same scale.
cat >"$tmp/bars.js" <<'JS'
    d.querySelector('button[data-tab="crates"]').click();
    var t = d.querySelector('#tab-crates table.data');
    var heads = Array.prototype.map.call(t.tHead.rows[0].cells,
      function (h) { return h.getAttribute('data-col'); });
    var rows = t.tBodies[0].rows;
    var names = d.querySelectorAll('#tab-crates .crate-name');
    var pairs = [], top = [0, 0], worst = 0, order = 0, parts = 0;
    var check = function (bars, end) {
      var cols = ['running', 'ready', 'waiting'].map(function (n) {
        return heads.indexOf(n + end + '_ns'); });
      for (var i = 0; i < rows.length && i < bars.length; i++) {
        var crate = rows[i].cells[heads.indexOf('crate')].textContent;
        if (names[i].textContent.indexOf(crate + ' (') != 0) order++;
        var spans = bars[i].children;
        for (var k = 0; k < 3; k++) {
          var c = rows[i].cells[cols[k]];
          var v = c && +c.getAttribute('data-v') || 0;
          var px = spans[k] ? spans[k].getBoundingClientRect().width : 0;
          if (px > 0) parts++;
          pairs.push([v, px]);
          if (v > top[0]) top = [v, px];
        }
      }
      return bars.length;
    };
    var n = check(d.querySelectorAll('#tab-crates .crate-bar:not(.base)'),
      ''), nb = check(d.querySelectorAll('#tab-crates .crate-bar.base'),
      '_base');
    pairs.forEach(function (p) {
      worst = Math.max(worst, Math.abs(p[1] - p[0] * top[1] / top[0])); });
    out = n + ' bars' + (nb ? ' and ' + nb + ' of the baseline' : '') +
      ' for ' + rows.length + ' rows, ' +
      (order ? order + ' out of order' : 'in order') + ', ' +
      (parts >= rows.length && worst <= 0.5 ? 'widths in proportion' :
      'widths off by ' + worst.toFixed(2) + ' px (' + parts + ' parts)');
JS
for page in synth build diff; do
	[ -f "$tmp/$page.html" ] || continue
	rows=$(tab "$tmp/$page.html" crates | grep -c '^<tr><td>')
	base=
	[ $page = diff ] && base=" and $rows of the baseline"
	test_page bars.html $page.html 'width="1300" height="900"' \
	    <"$tmp/bars.js"
	check_eq "report-page-bars-$page" "$(seen bars.html)" \
	    "$rows bars$base for $rows rows, in order, widths in proportion"
done

# Units (issue 34, 2): in every table of every tab, a column of times,
# bytes or per cents (its name in CSV, data-col, ends in ns, ms, s,
# bytes or pct) is headed by its name without that word and its unit
# once, in parentheses; its cells show the exact figure (data-v) in that
# unit, to the decimals shown, all with as many, the largest under 1000
# of a unit that has a larger one; per cents to one decimal.
cat >"$tmp/units.js" <<'JS'
    var own = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, bytes: 1 };
    var shown = { 'ns': 1, '\u00b5s': 1e3, 'ms': 1e6, 's': 1e9, 'B': 1,
      'KiB': 1024, 'MiB': 1048576, 'GiB': 1073741824 };
    var cols = 0, cells = 0, bad = [];
    d.querySelectorAll('table.data').forEach(function (t) {
      Array.prototype.forEach.call(t.tHead.rows[0].cells, function (h, k) {
        var name = h.getAttribute('data-col') || '';
        var word = name.split('_').pop();
        if (!(word in own) && word != 'pct') return;
        var m = /^(.*) \(([^()]*)\)$/.exec(h.textContent);
        var unit = m && m[2], stem = m ? m[1] : h.textContent;
        cols++;
        if (!m || (word == 'pct' ? unit != '%' : !(unit in shown) ||
            (word == 'bytes') != /B$/.test(unit)) ||
            /(^| )(ns|us|ms|s|bytes|pct|b|percent)$/.test(stem) ||
            /_/.test(stem)) {
          bad.push(name + ' headed ' + h.textContent);
          return;
        }
        var places = {}, big = 0;
        Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
          var c = r.cells[k], v = c && c.getAttribute('data-v');
          if (v === null || v === undefined || c.textContent === '') return;
          var text = c.textContent, dec = (text.split('.')[1] || '').length;
          cells++;
          if (word == 'pct') {
            if (!/^-?\d+\.\d$/.test(text) || Math.abs(+text - +v) > 0.0501)
              bad.push(name + ' ' + text + ' for ' + v);
            return;
          }
          places[dec] = 1;
          big = Math.max(big, Math.abs(+text));
          var tol = 0.5 * Math.pow(10, -dec) * shown[unit] * 1.0001;
          if (Math.abs(+text * shown[unit] - +v * (name.match(/_s$/) &&
              !/\./.test(v) ? 1 : own[word])) > tol)
            bad.push(name + ' ' + text + ' ' + unit + ' for ' + v);
        });
        if (Object.keys(places).length > 1)
          bad.push(name + ' with ' + Object.keys(places) + ' decimals');
        if (big >= 1024 && unit != 's')
          bad.push(name + ' up to ' + big + ' ' + unit);
      });
    });
    out = cols + ' columns of units, ' + (cells > 0 ? 'cells' : 'no cells') +
      ' scaled' + (bad.length ? ', ' + bad.length + ' wrong: ' +
      bad.slice(0, 3).join('; ') : ', none wrong');
JS
for page in build diff; do
	[ -f "$tmp/$page.html" ] || continue
	test_page units.html $page.html 'width="1300" height="900"' \
	    <"$tmp/units.js"
	got=$(seen units.html)
	case $got in
	*' columns of units, cells scaled, none wrong')
		n=${got%% *}
		[ "$n" -ge 10 ] && pass "report-page-units-$page ($n columns)" ||
		    fail "report-page-units-$page" "only $got" ;;
	*)	fail "report-page-units-$page" "$got" ;;
	esac
done

# Blank: in each tab, the gaps between what it shows (the content of a
# frame, not the frame), in a 1300x900 window and in a full-page capture
# (the window made as tall as the page, three times over as the page
# grows with it); none may be taller than the 900 px window, and no
# frame more than 48 px taller than its picture.
cat >"$tmp/blank.js" <<'JS'
    var f = document.getElementById('f'), worst = 0, where = '', fat = [];
    var tabs = Array.prototype.map.call(d.querySelectorAll('nav button'),
      function (b) { return b.getAttribute('data-tab'); });
    var measure = function (full) {
      tabs.forEach(function (id) {
        d.querySelector('button[data-tab="' + id + '"]').click();
        f.style.height = '900px';
        for (var i = 0; full && i < 3; i++)
          f.style.height = d.documentElement.scrollHeight + 'px';
        var s = d.getElementById('tab-' + id), boxes = [];
        Array.prototype.forEach.call(s.children, function (e) {
          var r = e.getBoundingClientRect();
          if (r.height == 0) return;
          if (e.tagName != 'IFRAME') {
            boxes.push([r.top, r.bottom]);
            return;
          }
          var b = e.contentDocument.body, st = e.contentWindow
            .getComputedStyle(b);
          var h = b.getBoundingClientRect().height +
            parseFloat(st.marginTop) + parseFloat(st.marginBottom);
          boxes.push([r.top, Math.min(r.bottom, r.top + h)]);
          if (!full && r.height - h > 48)
            fat.push(id + ' ' + Math.round(r.height - h));
          boxes.push([r.bottom, r.bottom]);
        });
        var end = s.getBoundingClientRect().top;
        boxes.forEach(function (b) {
          if (b[0] - end > worst) {
            worst = b[0] - end;
            where = id + (full ? ' (full page)' : '');
          }
          end = Math.max(end, b[1]);
        });
      });
    };
    measure(false);
    measure(true);
    out = (worst <= 900 ? 'no blank taller than the window' :
      Math.round(worst) + ' px blank in ' + where) + ', ' +
      (fat.length ? 'frames taller than their pictures: ' + fat.join(' ') :
      'frames fit');
JS
for page in synth build all; do
	test_page blank.html $page.html 'width="1300" height="900"' \
	    <"$tmp/blank.js"
	check_eq "report-page-blank-$page" "$(seen blank.html)" \
	    'no blank taller than the window, frames fit'
done

# Waits: no row of Idle (pid 0, its threads or its stacks) in any of its
# tables; Idle may still be the process that readied a thread.
cat >"$tmp/idle.js" <<'JS'
    d.querySelector('button[data-tab="waits"]').click();
    var idle = 0, rows = 0;
    d.querySelectorAll('#tab-waits table.data').forEach(function (t) {
      var heads = Array.prototype.map.call(t.tHead.rows[0].cells,
        function (h) { return h.textContent.replace(/ \(.*\)$/, ''); });
      Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
        rows++;
        heads.forEach(function (h, k) {
          var c = r.cells[k], v = c ? c.textContent : '';
          var whole = c && c.getAttribute('title') || v;
          if ((h == 'pid' && v == '0') || (h == 'image' && v == 'Idle') ||
              (h == 'stack' && /^Idle(;|$)/.test(whole)) ||
              (h == 'thread' && /^Idle /.test(v)))
            idle++;
        });
      });
    });
    out = rows > 0 ? idle + ' rows of Idle' : 'no rows';
JS
test_page idle.html all.html 'width="1300" height="900"' <"$tmp/idle.js"
check_eq report-page-waits-no-idle-chromium "$(seen idle.html)" \
    '0 rows of Idle'

# The flame graphs and the chart say, in their own titles, which
# processes they cover.
cat >"$tmp/flames.js" <<'JS'
    var said = [], unsaid = [];
    d.querySelectorAll('iframe.pic').forEach(function (e) {
      var t = e.contentDocument.getElementById('title');
      if (!t) return;
      (/ \u2014 (the build's processes \(--rustc\)|every process( but Idle \(-v --pid 0\))?)$/
        .test(t.textContent) ? said : unsaid).push(t.textContent);
    });
    out = said.length + ' say, ' + unsaid.length + ' do not' +
      (unsaid.length ? ': ' + unsaid.join('; ') : '');
JS
for page in build all; do
	n=$(grep -c '<iframe class="pic"' "$tmp/$page.html")
	test_page flames.html $page.html 'width="1300" height="900"' \
	    <"$tmp/flames.js"
	# Every picture but the process tree's, which is no svg.
	check_eq "report-page-flame-titles-$page" "$(seen flames.html)" \
	    "$((n - 1)) say, 0 do not"
done
