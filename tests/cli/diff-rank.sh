#!/bin/sh
# Rankings that point at the cause (views/view_diff.h): a crate made
# slower by etlsynth --slow-crate, in several seeds and by 1.3, 2 and 3
# times, is the first row of etlagg crates --diff and of the Crates tab
# of rustc-report.sh --baseline, ahead of the crates that the end of a
# trace cut off.  Checked here:
# - etlsynth --slow-crate keeps the rest of the build: the same crates in
#   the same order, every crate complete in the baseline complete in the
#   slow trace, the others' wall times as they were (within the 30 ms a
#   rustc may wait for a processor), the slow crate's FACTOR times its
#   own, a trace that ends no earlier; with FACTOR 1 and --size, the
#   baseline's bytes; its manifest names the option; a crate the build
#   lacks is a usage error;
# - crates --diff: the slow crate first, with a score beyond noise;
#   every cut row after every complete row, complete rows by falling
#   |score|; a cut row, whatever its lower bound, never above; the
#   processes --diff puts its cut rows (end_state running) last too;
# - a trace against itself: every score 0, every row within noise;
# - the page: the Crates tab's first row is the slow crate, and its cut
#   rows come last.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
if ! command -v etlsynth >/dev/null; then
	skip diff-rank "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	skip diff-rank "no python3 to read the tables (apt-get install python3)"
	exit 0
fi
size=4000000
# seed:crate, each complete in its baseline of $size bytes.
cases="1:compiler_builtins 7707:libc 42:memchr"

# --- etlsynth --slow-crate ---------------------------------------------

etlsynth --slow-crate no_such_crate -o "$tmp/x.etl" >/dev/null \
    2>"$tmp/err"
status=$?
if [ $status = 2 ] && grep -q "no_such_crate: no crate of the build" \
    "$tmp/err"; then
	pass synth-slow-unknown-crate
else
	fail synth-slow-unknown-crate "exit $status: $(head -1 "$tmp/err")"
fi
etlsynth --scenario waits --slow-crate libc -o "$tmp/x.etl" >/dev/null \
    2>&1
check_eq synth-slow-other-scenario "$?" 2
etlsynth --seed 5 --size 2000000 -o "$tmp/one.etl" >/dev/null &&
    etlsynth --seed 5 --size 2000000 --slow-crate libc=1.0 \
    -o "$tmp/one-slow.etl" >/dev/null
if cmp -s "$tmp/one.etl" "$tmp/one-slow.etl"; then
	pass synth-slow-factor-1-same-bytes
else
	fail synth-slow-factor-1-same-bytes "$(cmp "$tmp/one.etl" \
	    "$tmp/one-slow.etl" 2>&1 | head -1)"
fi

# table VIEW BASE NEW OUT: the view's diff of two traces as JSON Lines.
table() {
	etlagg -q $1 --diff "$2" "$3" | etlreport -q -f jsonl >"$4"
}

for c in $cases; do
	seed=${c%%:*} crate=${c#*:}
	etlsynth --seed "$seed" --size $size -o "$tmp/b$seed.etl" \
	    >/dev/null || { fail "synth-$seed" "etlsynth failed"; continue; }
	etlagg -q crates "$tmp/b$seed.etl" | etlreport -q -f jsonl \
	    >"$tmp/b$seed.jsonl"
	etlagg -q processes "$tmp/b$seed.etl" | etlreport -q -f jsonl \
	    >"$tmp/bp$seed.jsonl"
	for f in 1.3 2 3; do
		n=$seed-$crate-$f
		if ! etlsynth --seed "$seed" --size $size \
		    --slow-crate "$crate=$f" -o "$tmp/s$n.etl" >/dev/null \
		    2>"$tmp/err"; then
			fail "synth-slow-$n" "$(head -1 "$tmp/err")"
			continue
		fi
		etlagg -q crates "$tmp/s$n.etl" | etlreport -q -f jsonl \
		    >"$tmp/s$n.jsonl"
		etlagg -q processes "$tmp/s$n.etl" | etlreport -q -f jsonl \
		    >"$tmp/sp$n.jsonl"
		table crates "$tmp/b$seed.etl" "$tmp/s$n.etl" "$tmp/d$n.jsonl"
		table processes "$tmp/b$seed.etl" "$tmp/s$n.etl" \
		    "$tmp/dp$n.jsonl"
		made=$(sed -n 's/^# made by: etlsynth //p' \
		    "$tmp/s$n.etl.manifest.tsv")
		case $made in
		*" --slow-crate $crate=$f") pass "synth-slow-made-by-$n" ;;
		*) fail "synth-slow-made-by-$n" "made by: $made" ;;
		esac
		python3 - "$crate" "$f" "$tmp/b$seed.jsonl" "$tmp/s$n.jsonl" \
		    "$tmp/bp$seed.jsonl" "$tmp/sp$n.jsonl" "$tmp/d$n.jsonl" \
		    "$tmp/dp$n.jsonl" >"$tmp/out" <<'PY'
import json, sys
crate, factor = sys.argv[1], float(sys.argv[2])
b, s, bp, sp, d, dp = ([json.loads(l) for l in open(p)]
    for p in sys.argv[3:9])
def order(t):
    return [r['crate'] for r in sorted(t, key=lambda r: (r['start_ns'],
        r['crate'], r['instance']))]
def by_key(t):
    return {(r['crate'], r['instance']): r for r in t}
# The slow build keeps the rest of the build.
kb, ks = by_key(b), by_key(s)
bad = []
if order(b) != order(s):
    bad.append('crates or their order differ')
for k, x in kb.items():
    y = ks.get(k)
    if y is None:
        continue
    if not x['wall_cut'] and y['wall_cut']:
        bad.append('%s cut' % k[0])
    elif x['wall_cut'] or y['wall_cut']:
        continue
    elif k[0] == crate:
        ratio = y['wall_ns'] / x['wall_ns']
        if abs(ratio - factor) > 0.05 * factor:
            bad.append('%s %.3f times as long' % (k[0], ratio))
    elif abs(y['wall_ns'] - x['wall_ns']) > 30e6:
        bad.append('%s %+d ms' % (k[0], (y['wall_ns'] - x['wall_ns']) / 1e6))
if not any(k[0] == crate and not x['wall_cut'] for k, x in kb.items()):
    bad.append('%s not complete in the baseline: the case proves '
        'nothing' % crate)
# To the millisecond: the closing rundown's length varies.
end = lambda t: max(r['trace_end_ns'] for r in t)
if end(sp) < end(bp) - 1e6:
    bad.append('the slow trace ends %d ms earlier' % ((end(bp) -
        end(sp)) / 1e6))
print('keeps', ' '.join(bad) or 'yes')
# The diff: the slow crate first, beyond noise; cut rows last.
first = d[0]
print('first', first['crate'], first['cut'], first['score_ns'] is not None
    and first['score_ns'] > 0)
def ranked(t):
    seen_cut, last, why = False, None, []
    for r in t:
        # In the weight's unit: crates' wall in ns, processes' samples.
        score = r['score_ns'] if 'score_ns' in r else r['score']
        if r['cut']:
            seen_cut = True
            if score is not None:
                why.append('cut row with a score')
        elif seen_cut:
            why.append('%s complete after a cut row' % (r.get('crate') or
                r.get('image')))
        elif last is not None and abs(score or 0) > last:
            why.append('%s out of order' % r.get('crate'))
        else:
            last = abs(score or 0)
    return ' '.join(why[:3]) or 'yes'
print('ranked', ranked(d))
print('processes', ranked(dp) if any(r['cut'] for r in dp) else
    'no cut row')
PY
		check_eq "synth-slow-keeps-build-$n" \
		    "$(sed -n 's/^keeps //p' "$tmp/out")" yes
		check_eq "diff-rank-first-$n" \
		    "$(sed -n 's/^first //p' "$tmp/out")" "$crate False True"
		check_eq "diff-rank-cut-last-$n" \
		    "$(sed -n 's/^ranked //p' "$tmp/out")" yes
		check_eq "diff-rank-processes-cut-last-$n" \
		    "$(sed -n 's/^processes //p' "$tmp/out")" yes
	done
done

# The issue's case: a slow trace that also runs longer, so that the
# crates the baseline's end cut off grow by seconds in it.  Their lower
# bounds move more than the slow crate's wall, and still come after it.
etlsynth --seed 7707 --size 6000000 --slow-crate libc=1.3 \
    -o "$tmp/long.etl" >/dev/null
table crates "$tmp/b7707.etl" "$tmp/long.etl" "$tmp/long.jsonl"
python3 - "$tmp/long.jsonl" >"$tmp/out" <<'PY'
import json, sys
t = [json.loads(l) for l in open(sys.argv[1])]
first = t[0]
bigger = [r['crate'] for r in t if r['cut'] and abs(r['wall_delta_ns'] or
    0) > abs(first['wall_delta_ns'])]
print(first['crate'], len(bigger) > 0)
PY
check_eq diff-rank-cut-bound-outranked "$(cat "$tmp/out")" "libc True"

# A trace against itself: nothing beyond noise.
table crates "$tmp/b1.etl" "$tmp/b1.etl" "$tmp/self.jsonl"
python3 - "$tmp/self.jsonl" >"$tmp/out" <<'PY'
import json, sys
t = [json.loads(l) for l in open(sys.argv[1])]
bad = [r['crate'] for r in t if not r['cut'] and (r['score_ns'] != 0 or
    r['within_noise'] is not True)]
print(len(t) > 0 and not bad, bad[:3])
PY
check_eq diff-rank-self-within-noise "$(cat "$tmp/out")" "True []"

# --- the report's Crates tab -------------------------------------------

report=$top/pipelines/rustc-report.sh
for c in $cases; do
	seed=${c%%:*} crate=${c#*:}
	for f in 1.3 2 3; do
		n=$seed-$crate-$f
		[ -f "$tmp/s$n.etl" ] || continue
		if ! sh "$report" --baseline "$tmp/b$seed.etl" \
		    -o "$tmp/r$n.html" "$tmp/s$n.etl" >/dev/null 2>"$tmp/err"
		then
			fail "report-rank-$n" "$(head -1 "$tmp/err")"
			continue
		fi
		python3 - "$tmp/r$n.html" >"$tmp/out" <<'PY'
import sys
from html.parser import HTMLParser
class Tab(HTMLParser):
    # The Crates tab's table: its header cells and its rows' cells.
    def __init__(self):
        super().__init__()
        self.depth = 0; self.head = []; self.rows = []; self.cell = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'section' and a.get('id') == 'tab-crates':
            self.depth = 1
        elif self.depth and tag == 'section':
            self.depth += 1
        elif self.depth and tag == 'tr':
            self.rows.append([])
        elif self.depth and tag in ('td', 'th'):
            self.cell = ''
    def handle_endtag(self, tag):
        if self.depth and tag == 'section':
            self.depth -= 1
        elif self.depth and tag in ('td', 'th') and self.cell is not None:
            self.rows[-1].append(self.cell.strip()); self.cell = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
p = Tab(); p.feed(open(sys.argv[1]).read())
rows = [r for r in p.rows if r]
head, body = rows[0], rows[1:]
crate = head.index('crate')
cut = head.index('cut')
cuts = [r[cut] for r in body]
print(body[0][crate] if body else '-',
    'true' not in cuts or 'false' not in cuts[cuts.index('true'):])
PY
		check_eq "report-rank-first-$n" "$(cat "$tmp/out")" "$crate True"
	done
done
