#!/bin/sh
# Stack walks reach the samples they belong to (etl-format.md 5.6): idle
# samples at one time on several processors each get their own walk, a
# user-mode walk logged past the decoder's hold still reaches its sample,
# one logged far too late is counted, not dropped in silence.  On the
# stack-joins scenario of etlsynth, then on the corpus traces.

. "$(dirname "$0")/../testlib.sh"

# The stacks of `cpu --by stack --addresses`, without the process, as
# "COUNT FRAMES" lines, to compare with the manifest's stack lines.
our_stacks() {
	etlagg cpu --by stack --addresses "$1" | etlreport -f csv | csv_lf |
	    awk -F, 'NR > 1 && $1 !~ /\[no stack\]/ {
		sub(/^[^;]*;/, "", $1); print $2, $1 }' | sort
}

if command -v etlsynth >/dev/null; then
	etl=$tmp/sj.etl
	etlsynth --scenario stack-joins -o "$etl" ||
	    fail stackjoins-synth "etlsynth failed"
	etlcat -v -o "$tmp/sj.zst" "$etl" 2>"$tmp/err"
	check_eq stackjoins-exit "$?" 0
	awk -F'\t' '$1 == "stack" { print $2, $3 }' "$etl.manifest.tsv" |
	    sort >"$tmp/want"
	our_stacks "$tmp/sj.zst" >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then
		pass stackjoins-stacks
	else
		fail stackjoins-stacks "$(diff "$tmp/want" "$tmp/got")"
	fi
	want=$(awk -F'\t' '$2 == "samples_without_stack" { print $3 }' \
	    "$etl.manifest.tsv")
	check_eq stackjoins-stackless "$(etlreport -f csv "$tmp/sj.zst" |
	    csv_lf | awk -F, '$6 == "sample" && $9 == 0' | wc -l |
	    tr -d ' ')" "$want"
	want=$(awk -F'\t' '$2 == "stack_walks_orphaned" { print $3 }' \
	    "$etl.manifest.tsv")
	check_eq stackjoins-orphaned "$(sed -n \
	    's/.*: \([0-9]*\) stack walks without owner.*/\1/p' "$tmp/err")" \
	    "$want"
else
	skip stackjoins-synth "no etlsynth (make builds it into build/)"
fi

# A ReadyThread from a timer DPC just after the processor's thread exited:
# the event names no readying thread and its walk says thread 0, not the
# thread the decoder saw last on that processor; the walk still reaches
# it (5.6 step 3), so no ReadyThread of the sample is without a stack.
etlcat -o "$tmp/sample.zst" "$ETL_TOP/testdata/sample.etl" 2>"$tmp/err"
check_eq stackjoins-ready-dpc "$(etlreport -f csv "$tmp/sample.zst" |
    csv_lf | awk -F, '$6 == "ready" && $4 != 0 && $10 ~ /flags=0x1$/ {
	n++; if ($9 == 0) bare++ } END { print n + 0, bare + 0 }')" "4 0"
check_eq stackjoins-sample-orphaned "$(grep -c 'stack walks without' \
    "$tmp/err")" 0

if [ ! -d "$ETL_CORPUS/etl" ]; then
	skip stackjoins-corpus "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
	exit 0
fi

# name, stacks attached, walks without owner, samples without a stack,
# idle samples sharing their time with another processor's and those of
# them without a stack (the x64 trace has no idle walks at all).
while read -r name attached orphaned stackless idle; do
	etlcat -v -o "$tmp/c.zst" "$ETL_CORPUS/etl/$name.etl" 2>"$tmp/err"
	check_eq "stackjoins-attached-$name" "$(sed -n \
	    's/.*; \([0-9]*\) stacks attached$/\1/p' "$tmp/err")" "$attached"
	got=$(sed -n 's/.*: \([0-9]*\) stack walks without owner.*/\1/p' \
	    "$tmp/err")
	check_eq "stackjoins-orphaned-$name" "${got:-0}" "$orphaned"
	etlreport -f csv "$tmp/c.zst" | csv_lf |
	    awk -F, '$6 == "sample"' >"$tmp/samples"
	check_eq "stackjoins-stackless-$name" "$(awk -F, '$9 == 0' \
	    "$tmp/samples" | wc -l | tr -d ' ')" "$stackless"
	# Idle samples at one time on several processors: the walk each
	# logged reaches it (identical walks may share a stack id).
	check_eq "stackjoins-idle-$name" "$(awk -F, '$4 == 0 { n[$1]++
		if ($9 == 0) bare[$1]++ }
	    END { for (t in n) if (n[t] > 1) { all += n[t]; b += bare[t] }
		print all + 0, b + 0 }' "$tmp/samples")" "$idle"
done <<EOT
perfview__net.4.5.x86.2016__PerfViewData 17389 0 181 51 0
perfview__net.4.5.2.x64 7746 0 73210 13078 13078
EOT
