#!/bin/sh
# rustc's queries in etlagg timeline (issue 35, item 1): the self-profiles
# given beside the trace become rows of kind "query", nested again, on the
# Windows thread the join maps each profile thread to.  On etlsynth builds
# with --self-profile:
#
#	- each joined instance's query rows give, by label, the count and
#	  the total time that etlagg queries gives of its profile alone;
#	- a query of depth d > 0 lies inside one of depth d - 1 of its lane;
#	- the rows are on the threads the manifest's profile_thread lines
#	  name, and no other;
#	- the laws of etlfilter(1): a window (the view's own or etlfilter's,
#	  which keeps a self-profile whole) and process filters (etlfilter's
#	  or the view's own) give the whole trace's rows of what they keep;
#	- the Chrome trace events of the timeline give a slice a query,
#	  nested on a lane of the thread's queries, and load in speedscope;
#	- a timeline without profiles has no query rows and no join note.

. "$(dirname "$0")/../testlib.sh"

# queries STREAM: the query rows of a timeline table, as CSV, sorted.
queries() {
	etlreport -q -f csv "$1" | csv_lf |
	    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["kind"] == "query"' | LC_ALL=C sort
}

for seed in 11 23; do
	d=$tmp/s$seed
	mkdir -p "$d"
	if ! etlsynth --seed $seed --size 6m --self-profile "$d/prof" \
	    -o "$d/t.etl" >/dev/null 2>"$d/err"; then
		fail "timeline-queries-$seed-synth" "$(head -2 "$d/err")"
		continue
	fi
	m=$d/t.etl.manifest.tsv
	etlcat -q -o "$d/all.st" "$d/t.etl" "$d/prof"/*.mm_profdata
	etlagg -q -o "$d/tl.st" timeline "$d/all.st"
	queries "$d/tl.st" >"$d/q.csv"

	# By label, count and total of each complete profile, against the
	# profile's own table.  Columns: process 1, tid 3, start 6, end 7,
	# duration_ns 8, query 19, query_depth 20.
	# The join's notes name each profile's instance.
	etlreport -q -f text "$d/tl.st" | sed -n \
	    's/^note: query join: \([^:]*\): \(.*([0-9][^)]*)\): threads .*/\1\t\2/p' \
	    >"$d/labels"
	bad="" n=0
	for f in $(awk -F'\t' '$1 == "profile" && $6 == 0 { print $7 }' "$m")
	do
		label=$(awk -F'\t' -v f="$f" '$1 == f { print $2 }' \
		    "$d/labels")
		awk -F'\t' -v f="$f" '$1 == "profile" && $7 == f {
		    print $2 " " $3 }' "$m" >"$d/inst"
		awk -F'\t' 'NR == FNR { i = $0; next } $1 == "profile_thread" &&
		    $2 " " $3 == i { print $5 }' "$d/inst" "$m" |
		    LC_ALL=C sort -u >"$d/tids.want"
		awk -F, -v l="$label" '$1 == l { print $3 }' "$d/q.csv" |
		    LC_ALL=C sort -u >"$d/tids.got"
		cmp -s "$d/tids.got" "$d/tids.want" ||
		    bad="$bad $f: threads $(tr '\n' ' ' <"$d/tids.got")"
		awk -F, -v l="$label" '$1 == l { t[$19] += $8; c[$19]++ }
		    END { for (k in t) print k, c[k], t[k] }' "$d/q.csv" |
		    LC_ALL=C sort >"$d/got"
		etlagg -q queries "$d/prof/$f" |
		    etlreport -q -f csv --table queries |
		    csv_lf | awk -F, 'NR > 1 { print $1, $5, $4 }' |
		    LC_ALL=C sort >"$d/want"
		cmp -s "$d/got" "$d/want" || bad="$bad $f: $(diff "$d/got" \
		    "$d/want" | sed -n 2p)"
		n=$((n + 1))
	done
	if [ "$n" -ge 6 ] && [ -z "$bad" ]; then
		pass "timeline-queries-$seed-as-profiles ($n profiles)"
	else
		fail "timeline-queries-$seed-as-profiles" "$n profiles;$bad"
	fi

	# Nesting: each row below the top inside a row one level up.
	out=$(awk -F, '{ k = $1 "," $3 } $20 > 0 { inner[++n] = k "," $20 \
	    "," $6 "," $7 } { from[k "," $20, ++m[k "," $20]] = $6
	    to[k "," $20, m[k "," $20]] = $7 }
	    END { for (i = 1; i <= n; i++) { split(inner[i], x, ",")
	        up = x[1] "," x[2] "," x[3] - 1; ok = 0
	        for (j = 1; j <= m[up] && !ok; j++)
	            ok = from[up, j] <= x[4] && to[up, j] >= x[5]
	        if (!ok) { bad++; if (!first) first = inner[i] } }
	    print n + 0, bad + 0, first }' "$d/q.csv")
	set -- $out
	if [ "$1" -ge 100 ] && [ "$2" = 0 ]; then
		pass "timeline-queries-$seed-nested ($1 inner rows)"
	else
		fail "timeline-queries-$seed-nested" "$2 of $1 not nested: $3"
	fi

	# The window, the view's own and etlfilter's.
	etlagg -q timeline --from 0.5 --to 1.5 "$d/all.st" >"$d/w1.st"
	etlfilter -q --from 0.5 --to 1.5 "$d/all.st" | etlagg -q timeline \
	    >"$d/w2.st"
	queries "$d/w1.st" >"$d/w1"
	queries "$d/w2.st" >"$d/w2"
	clipped=$(awk -F, '$6 < 0.5 || $7 > 1.5' "$d/w1" | wc -l)
	if [ "$(wc -l <"$d/w1")" -ge 100 ] && [ "$clipped" = 0 ]; then
		same_file "timeline-queries-$seed-window-law ($(wc -l \
<"$d/w1") rows)" "$d/w2" "$d/w1"
	else
		fail "timeline-queries-$seed-window-law" "$(wc -l <"$d/w1") \
rows, $clipped outside the window"
	fi

	# Process filters: etlfilter's and the view's own, against the whole.
	for f in --rustc "--cmdline crate-name.core" "--pid 10256"; do
		name=$(echo "$f" | tr -c 'a-z0-9\n' '-')
		# shellcheck disable=SC2086
		etlfilter -q $f "$d/all.st" | etlagg -q timeline >"$d/f1.st"
		# shellcheck disable=SC2086
		etlagg -q timeline $f "$d/all.st" >"$d/f2.st"
		queries "$d/f1.st" >"$d/f1"
		queries "$d/f2.st" >"$d/f2"
		cut -d, -f 1 "$d/f1" | LC_ALL=C sort -u >"$d/kept"
		awk -F, 'NR == FNR { k[$0] = 1; next } k[$1]' "$d/kept" \
		    "$d/q.csv" >"$d/f0"
		if [ "$(wc -l <"$d/f1")" -ge 50 ] && cmp -s "$d/f1" "$d/f2"
		then
			same_file "timeline-queries-$seed-filter$name($(wc -l \
<"$d/f1") rows)" "$d/f1" "$d/f0"
		else
			fail "timeline-queries-$seed-filter$name" "$(wc -l \
<"$d/f1") rows filtered, $(wc -l <"$d/f2") by the view's own"
		fi
	done
done

# The Chrome trace event JSON: a query a slice, on a lane of its thread's
# queries, nested there as in the profile, every event with the fields
# the trace event format requires and lanes of 32 bits (as Perfetto
# reads them).
d=$tmp/s11
if ! command -v node >/dev/null; then
	skip "timeline-queries-chrome" "no node (apt-get install nodejs)"
elif [ -f "$d/tl.st" ]; then
	etlreport -q -f chrome "$d/tl.st" >"$d/tl.json"
	got=$(node -e '(() => {
	const a = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const int32 = (v) => Number.isInteger(v) && v >= 0 && v < 2 ** 32;
	const bad = a.find(e => typeof e.name !== "string" ||
	    typeof e.ph !== "string" || !Number.isInteger(e.ts) ||
	    !int32(e.pid) || !int32(e.tid) ||
	    (e.ph === "X" && !(Number.isInteger(e.dur) && e.dur >= 0)));
	if (bad) { console.log("bad " + JSON.stringify(bad)); return; }
	const names = new Map(a.filter(e => e.name === "thread_name")
	    .map(e => [e.pid + "/" + e.tid, e.args.name]));
	const q = a.filter(e => e.cat === "query");
	const lanes = new Map();
	for (const e of q) {
		const n = names.get(e.pid + "/" + e.tid);
		if (n !== "Thread (" + (e.tid - 2 ** 31) + ") queries") {
			console.log("lane " + e.tid + " named " + n);
			return;
		}
		const k = e.pid + "/" + e.tid;
		if (!lanes.has(k)) lanes.set(k, []);
		lanes.get(k).push(e);
	}
	let inner = 0;
	for (const l of lanes.values()) {
		l.sort((x, y) => x.ts - y.ts || y.dur - x.dur ||
		    x.args.depth - y.args.depth);
		const open = [];
		for (const e of l) {
			while (open.length && open[open.length - 1].ts +
			    open[open.length - 1].dur <= e.ts) open.pop();
			const up = open[open.length - 1];
			if (up && up.ts + up.dur < e.ts + e.dur) {
				console.log("not nested " + JSON.stringify(e));
				return;
			}
			inner += open.length > 0;
			open.push(e);
		}
	}
	console.log(q.length + " " + (inner > 100 ? "nested" : inner));
	})();' \
	    "$d/tl.json" 2>&1)
	check_eq "timeline-queries-chrome (a slice a query, nested)" "$got" \
	    "$(wc -l <"$d/q.csv" | tr -d ' ') nested"
fi

# It loads in speedscope's web app (headless Chromium), a profile a
# lane, the lanes of queries among them.
ss="node $ETL_TOP/tests/speedscope.js"
if [ -f "$d/tl.json" ] && find_browser && command -v node >/dev/null &&
    CHROMIUM=$browser $ss check 2>/dev/null; then
	CHROMIUM=$browser $ss loads timeline-queries-chrome-in-speedscope \
	    "$d/tl.json" 20 queries
else
	skip timeline-queries-chrome-in-speedscope "no chromium, node or" \
	    "speedscope (sh .ci/npm.sh)"
fi

# No profile: no query rows, no note of a join.
d=$tmp/s11
if [ -f "$d/t.etl" ]; then
	etlagg -q timeline "$d/t.etl" >"$d/none.st"
	n=$(queries "$d/none.st" | wc -l)
	notes=$(etlreport -q -f text "$d/none.st" | grep -c 'query join')
	states=$(etlreport -q -f csv "$d/none.st" | grep -c ',state,')
	if [ "$n" = 0 ] && [ "$notes" = 0 ] && [ "$states" -ge 1000 ]; then
		pass "timeline-queries-none-without-profiles ($states states)"
	else
		fail "timeline-queries-none-without-profiles" \
		    "$n query rows, $notes notes, $states states"
	fi
fi

