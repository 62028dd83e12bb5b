#!/bin/sh
# etlagg --diff BASE (views/view_diff.h) and what etlreport draws of it:
# - a trace against itself: every delta 0, every row within noise, and a
#   flame graph with no red or blue frame, for every view that counts;
# - two etlsynth traces of different seeds: the joined rows are those an
#   independent join (python3, by image, crate and order of start, never
#   by pid) makes of the two tables, every X_delta is X - X_base, and rows
#   of one side have the other side empty; pids that name different
#   crates in the two traces are not joined;
# - a regression planted in one crate (etlsynth --slow-crate) is the top
#   row of the processes diff;
# - the differential flame graph: frames that grew are red, those that
#   shrank blue, and the tooltip gives base, new and change, in the file
#   and as headless Chromium paints it; -f folded writes "stack base new".

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip diff "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
etlsynth --seed 1 --size 6000000 -o "$tmp/a.etl" >/dev/null 2>&1 &&
    etlsynth --seed 2 --size 6000000 -o "$tmp/b.etl" >/dev/null 2>&1 &&
    etlsynth --seed 2 --size 6000000 --slow-crate compiler_builtins=3 \
    -o "$tmp/slow.etl" >/dev/null 2>&1 &&
    etlcat -q -o "$tmp/a.zst" "$tmp/a.etl" &&
    etlcat -q -o "$tmp/b.zst" "$tmp/b.etl" ||
    { fail diff-generate "etlsynth or etlcat failed"; exit 0; }

# deltas CSV: the values of every *_delta column, one a line.
deltas() {
	csv_lf <"$1" | awk -F, 'NR == 1 {
		for (i = 1; i <= NF; i++)
			if ($i ~ /_delta(_[a-z]+)?$/ && $i !~ /_delta_pct$/)
				col[i] = 1
		next
	} { for (i in col) print $i }'
}

for view in "cpu --by process" "cpu --by stack" "cpu --by function" \
    "cpu --by module" "vmem" "vmem --by stack" "vmem --by function" \
    "vmem --by module" "heap" "heap --by stack" "threads" "waits" \
    "processes" "stats"; do
	name=$(echo "$view" | tr -d '-' | tr ' ' '-')
	# shellcheck disable=SC2086
	etlagg -q $view --diff "$tmp/a.zst" "$tmp/a.zst" 2>/dev/null |
	    etlreport -q -f csv >"$tmp/self.csv"
	nonzero=$(deltas "$tmp/self.csv" | grep -cv '^\(0\|0\.0*\|\)$')
	rows=$(($(wc -l <"$tmp/self.csv") - 1))
	noisy=$(csv_lf <"$tmp/self.csv" | grep -c ',false$')
	if [ "$rows" -gt 0 ] && [ "$nonzero" = 0 ] && [ "$noisy" = 0 ]; then
		pass "diff-self-$name"
	else
		fail "diff-self-$name" "$rows rows, $nonzero deltas not 0, \
$noisy out of noise"
	fi
done

# The self-diff's flame graph: white frames only.
etlagg -q cpu --by stack --diff "$tmp/a.zst" "$tmp/a.zst" |
    etlreport -q -f svg >"$tmp/self.svg"
frames=$(grep -c '<g class="f">' "$tmp/self.svg")
coloured=$(grep '<g class="f">' "$tmp/self.svg" |
    grep -vc 'fill="rgb(255,255,255)"')
if [ "$frames" -gt 10 ] && [ "$coloured" = 0 ]; then
	pass diff-self-svg-white
else
	fail diff-self-svg-white "$coloured of $frames frames coloured"
fi

if ! command -v python3 >/dev/null; then
	skip diff-join "no python3 for the independent join (apt-get \
install python3)"
	exit 0
fi
# The independent join of the processes tables, against etlagg's.
for f in a b; do
	etlagg -q processes "$tmp/$f.zst" | etlreport -q -f jsonl \
	    >"$tmp/$f.jsonl"
done
etlagg -q processes --diff "$tmp/a.zst" "$tmp/b.zst" | etlreport -q -f jsonl \
    >"$tmp/d.jsonl"
python3 - "$tmp/a.jsonl" "$tmp/b.jsonl" "$tmp/d.jsonl" >"$tmp/join.out" <<'PY'
import json, sys
def rows(path):
    return [json.loads(l) for l in open(path)]
def keyed(table):
    by = {}
    for i, r in enumerate(table):
        by.setdefault((r['image'], r['crate'] or ''), []).append(
            (r['start_ns'] or 0, i, r))
    out = {}
    for k, rs in by.items():
        for n, (_, _, r) in enumerate(sorted(rs, key=lambda t: t[:2])):
            out[k + (n,)] = r
    return out
a, b, d = (rows(p) for p in sys.argv[1:4])
ka, kb = keyed(a), keyed(b)
want = sorted((k[0], k[1], ka[k]['samples'] if k in ka else None,
    kb[k]['samples'] if k in kb else None) for k in set(ka) | set(kb))
got = sorted((r['image'], r['crate'] or '', r['samples_base'],
    r['samples']) for r in d)
print('join', 'same' if want == got else 'differs: %s' %
    [x for x in want if x not in got][:3])
bad = [r for r in d if (r['samples_delta'] != (r['samples'] or 0) -
    (r['samples_base'] or 0)) or (r['samples_base'] is None and
    r['samples'] is None)]
print('delta', 'right' if not bad else 'wrong: %s' % bad[:2])
pa = {r['pid']: r['crate'] for r in a if r['crate']}
pb = {r['pid']: r['crate'] for r in b if r['crate']}
print('reused', len([p for p in pa if p in pb and pa[p] != pb[p]]))
PY
check_eq diff-join-by-key "$(sed -n 's/^join //p' "$tmp/join.out")" same
check_eq diff-delta "$(sed -n 's/^delta //p' "$tmp/join.out")" right
reused=$(sed -n 's/^reused //p' "$tmp/join.out")
if [ "${reused:-0}" -gt 0 ]; then
	pass diff-pid-reuse-not-matched
else
	fail diff-pid-reuse-not-matched "no pid names two crates: the test \
proves nothing"
fi

# The regression planted in compiler_builtins is the top row.
top=$(etlagg -q processes --diff "$tmp/a.zst" "$tmp/slow.etl" |
    etlreport -q -f jsonl | head -1 | python3 -c 'import json, sys
r = json.loads(sys.stdin.readline()); print(r["crate"], r["samples_delta"] > 0)')
check_eq diff-planted-regression-top "$top" "compiler_builtins True"

# The differential flame graph of the regression: its frames are red,
# and the tooltip says base, new and change.
etlagg -q cpu --by stack --diff "$tmp/a.zst" "$tmp/slow.etl" >"$tmp/d.zst"
etlreport -q -f svg "$tmp/d.zst" >"$tmp/d.svg"
etlreport -q -f folded "$tmp/d.zst" >"$tmp/d.folded"
python3 - "$tmp/d.svg" >"$tmp/svg.out" <<'PY'
import re, sys
bad = 0; red = blue = 0
for m in re.finditer(r'<title>[^<]*\(base (\d+), new (\d+) [^,]*, change '
        r'([+-]\d+)[^<]*</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"',
        open(sys.argv[1]).read()):
    base, new, change = int(m[1]), int(m[2]), int(m[3])
    r, g, b = int(m[4]), int(m[5]), int(m[6])
    if change != new - base:
        bad += 1
    elif change > 0:
        red += 1; bad += not (r == 255 and g == b and g < 255)
    elif change < 0:
        blue += 1; bad += not (b == 255 and r == g and r < 255)
    else:
        bad += (r, g, b) != (255, 255, 255)
print(red > 0 and blue > 0 and bad == 0, red, blue, bad)
PY
read -r ok red blue bad <"$tmp/svg.out"
if [ "$ok" = True ]; then
	pass diff-svg-colours
else
	fail diff-svg-colours "$red red, $blue blue, $bad wrong"
fi
# Folded: two counts, whose sums are the two sides' sample totals.
sums=$(awk '{ b += $(NF - 1); n += $NF } END { print NF == 0 ? "" : b " " n }' \
    "$tmp/d.folded")
want=$(for f in "$tmp/a.zst" "$tmp/slow.etl"; do
	etlagg -q cpu --by stack "$f" | etlreport -q -f folded |
	    awk '{ n += $NF } END { printf "%s ", n }'; done | sed 's/ $//')
check_eq diff-folded-two-counts "$sums" "$want"

# Drawn in headless Chromium: the frames the tooltip says grew are red,
# those that shrank blue, as the browser paints them.
if ! find_browser; then
	skip diff-chromium "no chromium to draw the flame graph in (apt-get \
install chromium)"
	exit 0
fi
test_page d.html d.svg 'width="1200" height="800"' <<'JS'
    var red = 0, blue = 0, wrong = 0;
    Array.prototype.forEach.call(d.querySelectorAll('g.f'), function (g) {
      var m = /change ([+-]\d+)/.exec(g.querySelector('title').textContent);
      var c = w.getComputedStyle(g.querySelector('rect')).fill
        .match(/\d+/g).map(Number);
      var change = m ? Number(m[1]) : NaN;
      if (change > 0 && c[0] == 255 && c[1] == c[2] && c[1] < 255) red++;
      else if (change < 0 && c[2] == 255 && c[0] == c[1] && c[0] < 255)
        blue++;
      else if (!(change == 0 && c[0] == 255 && c[1] == 255 && c[2] == 255))
        wrong++;
    });
    out = (red > 0 && blue > 0 ? 'red and blue' : 'red ' + red + ' blue ' +
      blue) + ', ' + wrong + ' wrong';
JS
check_eq diff-chromium-colours "$(seen d.html)" 'red and blue, 0 wrong'
