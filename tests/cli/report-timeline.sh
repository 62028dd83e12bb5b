#!/bin/sh
# The report's Timeline tab (issue 35, item 3), as a person triaging a
# pause uses it: on an etlsynth build with a planted pause (one rustc
# thread blocked on a lock another holds) and its self-profiles,
# rustc-report.sh -p writes a page whose Timeline tab, in headless
# Chromium,
#
#	- draws a lane a thread of the build, and the queries;
#	- zooms in on the pause with the mouse wheel, keeping it in view;
#	- selects a range around it with Shift and a drag, and its table
#	  puts the paused thread first, its longest wait the planted one,
#	  to the ns, readied by the thread that held the lock;
#	- over the whole trace, sums each thread's running, ready and
#	  waiting time as etlagg threads does (to a microsecond);
#
# and says how long the first drawing and a zoom took (tests/BENCH.md
# has the figures of a large build).  A page whose spans are more than
# it holds merges the short ones, says so, and keeps the sums.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
report=$top/pipelines/rustc-report.sh

if ! command -v etlsynth >/dev/null; then
	skip report-timeline "no etlsynth (make builds it into build/)"
	exit 0
fi
d=$tmp/pause
mkdir -p "$d"
etlsynth --seed 5 --size 4m --self-profile "$d/prof" --pause 250 \
    -o "$d/t.etl" >/dev/null
pl=$(grep '^pause	' "$d/t.etl.manifest.tsv")
ppid=$(echo "$pl" | cut -f 2)
ptid=$(echo "$pl" | cut -f 4)
preadier=$(echo "$pl" | cut -f 6)
pfrom=$(echo "$pl" | cut -f 7)
pto=$(echo "$pl" | cut -f 8)
if ! sh "$report" -p "$d/prof" -o "$d/r.html" "$d/t.etl" >/dev/null \
    2>"$d/err"; then
	fail report-timeline-page "$(head -3 "$d/err")"
	exit 0
fi
check_eq report-timeline-tab "$(grep -c 'data-tab="timeline"' \
    "$d/r.html")" 1
# The threads of the build, as etlagg threads gives them, whole trace.
etlagg -q threads --rustc "$d/t.etl" | etlreport -q -f csv | csv_lf \
    >"$d/threads.csv"

if ! find_browser; then
	skip report-timeline-chromium "no chromium to draw the page in" \
	    "(apt-get install chromium)"
	exit 0
fi

# same_sums NAME GOT THREADS.CSV: the page's sums over the whole trace
# (GOT's "sums=pid tid run ready wait;..." in us) against etlagg
# threads, by pid and tid (two lives of a pid may each have a thread of
# one tid), each figure within 2 us (rounding, twice); Idle has no
# spans (etlagg(1), timeline).
same_sums() {
	echo "$2" | sed 's/.* sums=//' | tr ';' '\n' | awk 'NF == 5 {
	    k = $1 " " $2; r[k] += $3; q[k] += $4; w[k] += $5 }
	    END { for (k in r) print k, r[k], q[k], w[k] }' |
	    LC_ALL=C sort >"$tmp/page.sums"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["pid"] != 0 { k = $c["pid"] " " $c["tid"]; r[k] += $c["running_ns"]
	    q[k] += $c["ready_ns"]; w[k] += $c["waiting_ns"] }
	    END { for (k in r) if (r[k] + q[k] + w[k] > 0)
	    printf "%s %d %d %d\n", k, r[k] / 1e3 + 0.5, q[k] / 1e3 + 0.5,
	    w[k] / 1e3 + 0.5 }' "$3" | LC_ALL=C sort >"$tmp/threads.sums"
	bad=$(paste -d ' ' "$tmp/page.sums" "$tmp/threads.sums" | awk '
	    $1 != $6 || $2 != $7 { print "key " $0; exit }
	    { for (i = 3; i <= 5; i++) if ($i - $(i + 5) > 2 ||
	    $(i + 5) - $i > 2) { print; exit } }')
	n=$(wc -l <"$tmp/page.sums")
	if [ "$n" -ge 5 ] && [ "$n" = "$(wc -l <"$tmp/threads.sums")" ] &&
	    [ -z "$bad" ]; then
		pass "$1 ($n threads)"
	else
		fail "$1" "$n threads on the page, $(wc -l \
		    <"$tmp/threads.sums") in etlagg threads; $bad"
	fi
}

# The first part of a test page's script: the timeline's frame in the
# report d, its window tw, document td, the timeline tl, the canvas cv.
cat >"$tmp/head.js" <<'EOS'
var f = d.querySelector('#tab-timeline iframe');
var tw = f.contentWindow, td = f.contentDocument, tl = tw.timeline;
var cv = td.getElementById('tl'), r = cv.getBoundingClientRect();
EOS
# The sums of a selection of the whole trace, as the script's last part.
cat >"$tmp/sums.js" <<'EOS'
tl.select(tl.whole[0], tl.whole[1]);
var sums = [];
td.querySelectorAll('#sel-threads tbody tr').forEach(function (tr) {
	var c = tr.querySelectorAll('td');
	sums.push(tr.getAttribute('data-pid') + ' ' + c[1].textContent + ' ' +
	    Math.round(parseFloat(c[2].textContent) * 1e3) + ' ' +
	    Math.round(parseFloat(c[3].textContent) * 1e3) + ' ' +
	    Math.round(parseFloat(c[4].textContent) * 1e3));
});
EOS

# The script of the test page: d is the report, the tab's frame holds
# the timeline; events are dispatched as the mouse would send them.
{ cat "$tmp/head.js"; cat <<EOS
var from = $pfrom, to = $pto, res = [];
EOS
} >"$d/script.js"
cat >>"$d/script.js" <<'EOS'
function at(t) { return r.left + tl.xOf(t); }
function mouse(type, t, shift) {
	(type === 'mousedown' ? cv : tw).dispatchEvent(new tw.MouseEvent(type,
	    { clientX: at(t), clientY: r.top + 40, shiftKey: shift,
	    bubbles: true, cancelable: true }));
}
var lanes = tl.lanes.length, queries = 0;
tl.lanes.forEach(function (l) { queries += l.q.length; });
res.push('lanes=' + (lanes > 10) + ' queries=' + (queries > 100));
// Zoom on the pause: wheel notches at its start, which stays where it
// is (as does its end, then), until it fills a third of the view.
var z0 = tw.performance.now(), n = 0, v = tl.view();
while (v[1] - v[0] > 3 * (to - from) && n < 100) {
	cv.dispatchEvent(new tw.WheelEvent('wheel', { deltaY: -100,
	    clientX: at(from), clientY: r.top + 40, bubbles: true,
	    cancelable: true }));
	v = tl.view();
	n++;
}
var zoomMs = (tw.performance.now() - z0) / Math.max(n, 1);
res.push('zoomed=' + (n > 0 && v[0] <= from && v[1] >= to));
// Select around it: Shift and a drag from 5 ms before to 5 ms after.
mouse('mousedown', from - 5e6, true);
mouse('mousemove', to + 5e6, true);
mouse('mouseup', to + 5e6, true);
var row = td.querySelector('#sel-threads tbody tr');
res.push('first=' + (row && row.getAttribute('data-tid')) + ',' +
    (row && row.getAttribute('data-longest-ns')) + ',' +
    (row && row.querySelector('.readier').textContent));
res.push('paint=' + Math.round(parseFloat(td.body.getAttribute('data-drawn'))) +
    ' zoom=' + zoomMs.toFixed(1));
EOS
cat "$tmp/sums.js" >>"$d/script.js"
echo "out = res.join(' ') + ' sums=' + sums.join(';');" >>"$d/script.js"
test_page t.html "$d/r.html#timeline" "" <"$d/script.js"
got=$(seen t.html)
echo "$got" | grep -o 'lanes=[a-z]* queries=[a-z]*' >"$d/seen.draw"
check_eq report-timeline-draws-lanes-and-queries "$(cat "$d/seen.draw")" \
    "lanes=true queries=true"
check_eq report-timeline-zooms-on-the-pause "$(echo "$got" |
    grep -o 'zoomed=[a-z]*')" "zoomed=true"
check_eq report-timeline-selection-finds-the-pause "$(echo "$got" |
    grep -o 'first=[^ ]*[^=]*' | sed 's/ [a-z]*$//' |
    sed 's/(\([0-9]*\)), thread /(\1) /')" \
    "first=$ptid,$((pto - pfrom)),rustc.exe ($ppid) $preadier"
same_sums report-timeline-sums-as-threads "$got" "$d/threads.csv"
echo "$got" | grep -o 'paint=[0-9]* zoom=[0-9.]*' | sed 's/^/# /'

# More spans than the page holds: the short ones merged, which the page
# says, and a selection's sums still those of etlagg threads.
etlsynth --scenario waits --seed 7 --size 4m -o "$tmp/w.etl" >/dev/null
etlagg -q -o "$tmp/w.st" timeline + threads "$tmp/w.etl"
etlreport -q -f html -o "$tmp/w.html" "$tmp/w.st" 2>/dev/null
spans=$(etlreport -q -f csv --table timeline "$tmp/w.st" | grep -c ',state,')
etlreport -q -f csv --table threads "$tmp/w.st" | csv_lf >"$tmp/w.csv"
{ cat "$tmp/head.js" "$tmp/sums.js"; echo "out = 'note=' +
    /more than the page holds/.test(td.getElementById('notes').textContent)
    + ' sums=' + sums.join(';');"; } | test_page w.test.html \
    "$tmp/w.html#timeline" ""
got=$(seen w.test.html)
size=$(wc -c <"$tmp/w.html")
if [ "$spans" -gt 40000 ] && [ "$size" -lt 8000000 ] &&
    echo "$got" | grep -q '^note=true '; then
	pass "report-timeline-merges-what-it-cannot-hold ($spans spans, \
$size bytes)"
else
	fail report-timeline-merges-what-it-cannot-hold "$spans spans, \
$size bytes, $(echo "$got" | cut -c 1-80)"
fi
same_sums report-timeline-merged-sums-as-threads "$got" "$tmp/w.csv"
