#!/bin/sh
# etlreport -f speedscope, read by speedscope itself: the stack tables of
# cpu, vmem, heap and waits (--by stack --instances) and of threadtime,
# on the sample trace and on etlsynth builds (one whose reused pid
# compiles one crate twice, so that two labels need their starts, and
# one whose names hold quotes, backslashes and control characters), are
#
#  - valid against the file format's JSON schema that npm's speedscope
#    package ships (with ajv), frame indices in range and totals right;
#  - the same stacks as -f folded draws, a profile a root frame;
#  - loaded into speedscope's web app (the package's, in headless
#    Chromium through puppeteer-core), whose list of profiles shows the
#    view's instances, heaviest first, each with its total (the sum of
#    the view's weight column over the instance's rows) as the app
#    formats it, and whose export of what it loaded has those names,
#    exact totals and units;
#
# and the differential folded output of etlagg --diff loads in the app,
# its total the input side's.  A broken file and a wrong total must be
# caught by the same checks.

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip speedscope "no etlsynth (make builds it into build/)"
	exit 0
fi
find_browser || {
	skip speedscope "no chromium to run speedscope's web app in" \
	    "(apt-get install chromium)"
	exit 0
}
ss="node $ETL_TOP/tests/speedscope.js"
export CHROMIUM="$browser"
if ! command -v node >/dev/null || ! $ss check 2>"$tmp/why"; then
	skip speedscope "$(cat "$tmp/why" 2>/dev/null) (sh .ci/npm.sh" \
	    "installs speedscope, puppeteer-core and ajv; needs node and" \
	    "npm: apt-get install nodejs npm)"
	exit 0
fi

etlsynth --events 30000 --seed 11 -o "$tmp/build.etl" >/dev/null 2>&1 &&
etlsynth --events 30000 --seed 11 --rename \
    'crate-name rustc_std_workspace_core=crate-name build_script_build' \
    -o "$tmp/twice.etl" >/dev/null 2>&1 &&
etlsynth --events 20000 --seed 5 \
    --rename "cargo.exe=car\"go$(printf '\t')\\$(printf '\001').exe" \
    -o "$tmp/hostile.etl" >/dev/null 2>&1 ||
    { fail speedscope-generate "etlsynth failed"; exit 0; }
cp "$ETL_TOP/testdata/sample.etl" "$tmp/sample.etl"

# speedscope.sh's jobs for the app: "name file expected" a line.
: >"$tmp/jobs"

# export TRACE VIEW ARGS...: the view's table, its speedscope file, what
# the app should show, the schema check and the folded comparison.
export_view() {
	t=$1 v=$2
	shift 2
	n=$t-$v
	etlagg -q "$v" "$@" "$tmp/$t.etl" -o "$tmp/$n.st" 2>/dev/null ||
	    { fail "speedscope-$n" "etlagg $v $* failed"; return; }
	etlreport -q -f speedscope "$tmp/$n.st" >"$tmp/$n.json" ||
	    { fail "speedscope-$n" "etlreport -f speedscope failed"; return; }
	etlreport -q -f jsonl "$tmp/$n.st" >"$tmp/$n.jsonl"
	$ss expect "$v" "$tmp/$n.jsonl" >"$tmp/$n.want"
	if [ ! -s "$tmp/$n.want" ]; then
		fail "speedscope-$n" "the view has no rows to draw"
		return
	fi
	$ss schema "speedscope-schema-$n" "$tmp/$n.json"
	# The profiles' stacks, rooted again, are the folded lines.
	node -e '
	    const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
	    const f = d.shared.frames.map((x) => x.name), m = new Map();
	    for (const p of d.profiles)
		p.samples.forEach((s, i) => {
		    const k = p.name + ";" + s.map((j) => f[j]).join(";");
		    m.set(k, (m.get(k) || 0) + p.weights[i]);
		});
	    for (const [k, w] of [...m].sort((a, b) =>
		Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0]))))
		console.log(k + " " + w);' "$tmp/$n.json" >"$tmp/$n.refolded"
	etlreport -q -f folded "$tmp/$n.st" | awk '$NF != 0' >"$tmp/$n.folded"
	same_file "speedscope-folded-$n" "$tmp/$n.refolded" "$tmp/$n.folded"
	cut -d';' -f1 "$tmp/$n.folded" | sed 's/ [0-9]*$//' |
	    LC_ALL=C sort -u >"$tmp/$n.roots"
	echo "speedscope-app-$n $tmp/$n.json $tmp/$n.want" >>"$tmp/jobs"
}

for t in sample build twice; do
	for v in cpu vmem heap waits; do
		export_view $t $v --by stack --instances
	done
	export_view $t threadtime
	# A stack rooted at an instance is one of threadtime's (whose roots
	# instances.sh checks against the rule), or the Idle process.
	for v in cpu vmem heap waits; do
		bad=$(echo 'Idle (0)' | LC_ALL=C sort -u - "$tmp/$t-threadtime.roots" |
		    LC_ALL=C comm -23 "$tmp/$t-$v.roots" - | head -1)
		check_eq "speedscope-roots-$t-$v" "$bad" ""
	done
done
# Without --instances the rustcs of a build share their image's root.
etlagg -q cpu --by stack "$tmp/build.etl" | etlreport -q -f speedscope |
    grep -o '"name":"rustc\.exe","unit"' >"$tmp/image"
check_eq speedscope-image-root "$(wc -l <"$tmp/image" | tr -d ' ')" 1
if grep -q '@0\.' "$tmp/twice-cpu.want"; then
	pass speedscope-twice-starts
else
	fail speedscope-twice-starts "no two instances share a name"
fi
export_view hostile cpu --by stack --instances
export_view hostile threadtime
# The name escaped in the file (the app's checks see it shown as it is).
if grep -qF 'car\"go\t\\\u0001.exe (' "$tmp/hostile-cpu.json"; then
	pass speedscope-hostile-names
else
	fail speedscope-hostile-names "cargo's name did not come through"
fi

# The differential folded output: speedscope reads a line's last count,
# the input's (the base's becomes part of the last frame's name).
etlagg -q cpu --by stack --diff "$tmp/sample.etl" "$tmp/build.etl" |
    etlreport -q -f folded >"$tmp/diff.folded"
awk '{ s += $NF }
    END { printf "{\"name\":\"diff.folded\",\"total\":%d,\"unit\":\"none\"}\n", s }' \
    "$tmp/diff.folded" >"$tmp/diff.want"
if [ "$(awk 'NF && $(NF - 1) ~ /^[0-9]+$/' "$tmp/diff.folded" | wc -l)" -gt 0 ]
then
	echo "speedscope-app-diff-folded $tmp/diff.folded $tmp/diff.want" \
	    >>"$tmp/jobs"
else
	fail speedscope-diff-folded "the diff's folded lines have one count"
fi

# The checks catch what is wrong: a file the schema refuses (a unit it
# does not know, a frame past the list), and a total off by one.
sed 's/"unit":"none"/"unit":"parsecs"/' "$tmp/sample-cpu.json" \
    >"$tmp/bad-unit.json"
$ss schema bad "$tmp/bad-unit.json" | grep -q '^FAIL bad:.*unit' &&
    pass speedscope-schema-catches-unit ||
    fail speedscope-schema-catches-unit "a unit not in the schema passed"
node -e '
    const fs = require("fs"), d = JSON.parse(fs.readFileSync(process.argv[1]));
    d.profiles[0].samples[0].push(d.shared.frames.length);
    fs.writeFileSync(process.argv[2], JSON.stringify(d));' \
    "$tmp/sample-cpu.json" "$tmp/bad-frame.json"
$ss schema bad "$tmp/bad-frame.json" | grep -q '^FAIL bad:.*out of range' &&
    pass speedscope-schema-catches-frame ||
    fail speedscope-schema-catches-frame "a frame past the list passed"
node -e '
    const fs = require("fs");
    const w = fs.readFileSync(process.argv[1], "utf8").split("\n");
    const p = JSON.parse(w[0]);
    p.total += 1;
    w[0] = JSON.stringify(p);
    fs.writeFileSync(process.argv[2], w.join("\n"));' \
    "$tmp/sample-cpu.want" "$tmp/off.want"
echo "wrong $tmp/sample-cpu.json $tmp/off.want" >>"$tmp/jobs"

# shellcheck disable=SC2046
$ss app $(cat "$tmp/jobs") >"$tmp/app.out" 2>"$tmp/app.err" ||
    fail speedscope-app "the app's driver failed: $(head -3 "$tmp/app.err")"
grep -v '^\(PASS\|FAIL\) wrong' "$tmp/app.out"
if grep -q '^FAIL wrong: .*shows .*, not .*exports' "$tmp/app.out"; then
	pass speedscope-app-catches-total
else
	fail speedscope-app-catches-total "a wrong total passed: $(grep \
	    '^\(PASS\|FAIL\) wrong' "$tmp/app.out")"
fi
check_eq speedscope-app-all "$(grep -c '^\(PASS\|FAIL\) speedscope-app' \
    "$tmp/app.out")" "$(grep -c '^speedscope-app' "$tmp/jobs")"
