#!/bin/sh
# Context switches and ready threads (etl-events-2.md sections 2 and 3):
# etlagg threads reproduces the per-thread running, ready and waiting time
# and switch counts in etlsynth's waits manifest, for ordinary CSwitch v2
# and v5 and for compact batches; a compact trace and its ordinary twin
# give the same threads and waits tables; an independent reckoning in awk
# over the event list (etlreport -f csv) agrees; damaged input is counted.

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip waits "no etlsynth (make builds it into build/)"
	exit 0
fi

manifest_threads() {
	awk -F'\t' '$1 == "thread" { print $2, $3, $4, $5, $6, $7, $8 }' \
	    "$1" | sort
}

our_threads() {
	etlagg threads "$1" 2>/dev/null | etlreport -f csv | csv_lf |
	    awk -F, 'NR > 1 { print $1, $2, $4, $5, $6, $7, $8 }' | sort
}

# The same figures the other way round: walk the event list once, keep
# per thread id the time of its last switch-out and of its last ready,
# and start a new instance at each Thread/Start.
awk_threads() {
	etlreport -f csv "$1" | csv_lf | awk -F, '
	function ns(t,    p) { split(t, p, "."); return p[1] * 1e9 + p[2] }
	function fld(name,    i, n, kv, parts) {
		n = split($10, parts, "; ")
		for (i = 1; i <= n; i++) {
			split(parts[i], kv, "=")
			if (kv[1] == name)
				return kv[2]
		}
		return ""
	}
	function inst(tid, pid) {
		if (!(tid in cur)) {
			cur[tid] = tid " " pid " 0"
			keys[cur[tid]] = 1
		}
		return cur[tid]
	}
	NR == 1 { next }
	{ t = ns($1); last = t }
	$6 == "thread" && $8 == "Thread/Start" {
		cur[$4] = $4 " " $3 " " t; keys[cur[$4]] = 1
		delete out[$4]; delete rdy[$4]
	}
	$6 == "thread" && $8 != "Thread/Start" { inst($4, $3) }
	$6 == "ready" {
		r = fld("readied_tid")
		if ((r in out) && t >= out[r]) rdy[r] = t
	}
	$6 == "cswitch" {
		o = fld("old_tid")
		if (o == 0) {
			if ($5 in idle) run[0] += t - idle[$5]
			delete idle[$5]
		} else if (o in in_at) {
			run[inst(o, "")] += t - in_at[o]
			delete in_at[o]
			out[o] = t
			delete rdy[o]
		}
		n = $4
		if (n == "") next
		if (n == 0) { idle[$5] = t; next }
		k = inst(n, $3)
		sw[k]++
		if (n in out) {
			r = (n in rdy) ? rdy[n] : out[n]
			ready[k] += t - r
			waiting[k] += r - out[n]
		}
		delete out[n]; delete rdy[n]
		in_at[n] = t
	}
	END {
		for (n in in_at) run[cur[n]] += last - in_at[n]
		for (c in idle) run[0] += last - idle[c]
		print 0, 0, 0, run[0] + 0, 0, 0, 0
		for (k in keys)
			print k, run[k] + 0, ready[k] + 0, waiting[k] + 0, sw[k] + 0
	}' | sort
}

compare() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2" "$3" | head -6)"
	fi
}

for seed in 1 2; do
	for form in v2 v5 compact; do
		name=waits-seed$seed-$form
		case $form in
		v2) opt="--cswitch-version 2" ;;
		v5) opt="--cswitch-version 5" ;;
		compact) opt="--compact-cswitch" ;;
		esac
		etl=$tmp/$name.etl
		etlsynth --scenario waits --events 3000 --seed $seed $opt \
		    -o "$etl" || { fail "$name" "etlsynth failed"; continue; }
		etlcat -q -o "$tmp/$name.zst" "$etl" 2>"$tmp/err" ||
		    { fail "$name" "$(cat "$tmp/err")"; continue; }
		manifest_threads "$etl.manifest.tsv" >"$tmp/want"
		our_threads "$tmp/$name.zst" >"$tmp/got"
		compare "$name-manifest" "$tmp/want" "$tmp/got"
		awk_threads "$tmp/$name.zst" >"$tmp/awk"
		compare "$name-independent" "$tmp/want" "$tmp/awk"
	done
	# The twins: compact and ordinary give the same tables.
	for view in "threads" "threads --by process" "waits --by reason" \
	    "waits --by thread" "waits --by stack" "threadtime"; do
		etlagg $view "$tmp/waits-seed$seed-v2.zst" 2>/dev/null |
		    etlreport -f csv >"$tmp/a"
		etlagg $view "$tmp/waits-seed$seed-compact.zst" 2>/dev/null |
		    etlreport -f csv >"$tmp/b"
		compare "waits-twins-seed$seed-$(echo $view | tr ' ' _)" \
		    "$tmp/a" "$tmp/b"
	done
done

z=$tmp/waits-seed1-v2.zst
# Blocked time by stack adds up to waiting plus ready time of all threads.
check_eq waits-stack-total "$(etlagg waits --by stack "$z" | etlreport -f csv |
    csv_lf | awk -F, 'NR > 1 { s += $NF } END { print s }')" \
    "$(etlagg threads "$z" | etlreport -f csv | csv_lf |
    awk -F, 'NR > 1 { s += $6 + $7 } END { print s }')"
etlagg waits --by stack "$z" | etlreport -f folded >"$tmp/folded"
check_eq waits-folded "$(grep -c '^rustc.exe;0x' "$tmp/folded" | tr -d ' ' |
    awk '{ print ($1 > 0) }')" 1
# switches: one row per switch-in with a switch-out before it.
check_eq waits-switches "$(etlagg switches "$z" | etlreport -f csv | csv_lf |
    awk -F, 'NR > 1' | wc -l | tr -d ' ')" "$(etlagg threads "$z" |
    etlreport -f csv | csv_lf | awk -F, 'NR > 1 { s += $8 } END { print s }')"
# --from/--to: the halves add up to the whole.
whole=$(etlagg threads "$z" | etlreport -f csv | csv_lf |
    awk -F, 'NR > 1 { s += $5 } END { print s }')
a=$(etlagg threads --to 0.02 "$z" | etlreport -f csv | csv_lf |
    awk -F, 'NR > 1 { s += $5 } END { print s }')
b=$(etlagg threads --from 0.02 "$z" | etlreport -f csv | csv_lf |
    awk -F, 'NR > 1 { s += $5 } END { print s }')
check_eq waits-window "$((a + b))" "$whole"
check_eq waits-window-part "$([ "$a" -gt 0 ] && [ "$b" -gt 0 ] && echo y)" y
# The compact trace says what it lacks.
etlagg threads "$tmp/waits-seed1-compact.zst" 2>"$tmp/err" >/dev/null
check_eq waits-compact-warning "$(grep -c 'compact CSwitch' "$tmp/err")" 1
etlagg waits --by nope "$z" >/dev/null 2>&1
check_eq waits-bad-by "$?" 2

# Damaged input: switches and readies of threads never named are counted.
etlfilter --kind cswitch,ready -o "$tmp/nothreads.zst" "$z"
etlagg threads "$tmp/nothreads.zst" 2>"$tmp/err" >/dev/null
check_eq waits-unknown-threads "$?:$(grep -c 'never named' "$tmp/err")" 0:1

# The pipeline: six files; the folded stacks hold all the blocked time.
sh "$ETL_TOP/pipelines/rustc-waits.sh" -a -o "$tmp/p" \
    "$tmp/waits-seed1-v2.etl" >"$tmp/list" 2>"$tmp/err"
check_eq waits-pipeline-files "$?:$(wc -l <"$tmp/list" | tr -d ' ')" "0:6"
check_eq waits-pipeline-folded "$(awk '{ s += $NF } END { print s + 0 }' \
    "$tmp/p/waits-seed1-v2.waits.folded")" "$(etlagg threads "$z" |
    etlreport -f csv | csv_lf | awk -F, 'NR > 1 { s += $6 + $7 } END {
    print s }')"

# Trace health in sysconfig: compact batches; samples with CSwitch stacks.
check_eq waits-sysconfig-compact "$(etlagg sysconfig \
    "$tmp/waits-seed1-compact.zst" 2>/dev/null | etlreport -f csv |
    csv_lf | awk -F, 'NR == 2 { print $NF }')" \
    "compact CSwitch batches: fewer fields per switch; stacks joined by time"
check_eq waits-sysconfig-clean "$(etlagg sysconfig "$z" 2>&1 >/dev/null |
    wc -c | tr -d ' ')" 0
etlcat -q "$ETL_TOP/testdata/sample.etl" | etlagg sysconfig 2>"$tmp/err" |
    etlreport -f csv | csv_lf >"$tmp/sys"
check_eq waits-sysconfig-both "$(grep -c 'CSwitch stacks both on' \
    "$tmp/err"):$(grep -c 'CSwitch stacks both on' "$tmp/sys")" 1:1

# threadtime: the off-CPU part adds up to the blocked time of threads;
# the on-CPU part to the samples of threads other than idle, 1 ms each.
s=$tmp/sample.zst
etlcat -q -o "$s" "$ETL_TOP/testdata/sample.etl"
etlagg threadtime --by stack "$s" 2>/dev/null | etlreport -f csv | csv_lf \
    >"$tmp/tt"
check_eq waits-threadtime-blocked "$(awk -F, '$1 ~ /;(BLOCKED|READIED)_TIME/ {
    s += $NF } END { print s + 0 }' "$tmp/tt")" "$(etlagg threads "$s" \
    2>/dev/null | etlreport -f csv | csv_lf | awk -F, 'NR > 1 {
    s += $6 + $7 } END { print s + 0 }')"
check_eq waits-threadtime-cpu "$(awk -F, '$1 ~ /;CPU_TIME;/ { s += $NF }
    END { print s / 1000000 }' "$tmp/tt")" "$(etlreport -f csv "$s" |
    csv_lf | awk -F, '$6 == "sample" && $4 != 0' | wc -l | tr -d ' ')"
check_eq waits-threadtime-readied "$(grep -c ';READIED_BY ' "$tmp/tt" |
    awk '{ print ($1 > 0) }')" 1

# The per-thread timeline: a lane per chosen thread instance (tid 1003
# twice: reused), a waiting band per switch-in after a switch-out.
etlagg switches --tid 1001,1003 "$z" >"$tmp/sw.zst"
etlreport -f html -o "$tmp/tl.html" "$tmp/sw.zst"
check_eq waits-timeline-lanes "$(grep -c '^<text x="0"' "$tmp/tl.html")" 3
check_eq waits-timeline-waiting "$(grep -c '<rect class="waiting"' \
    "$tmp/tl.html")" "$(etlreport -f csv "$tmp/sw.zst" | csv_lf |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
	if ($i == "last_switch_out_s") c = i }
    NR > 1 && c && $c != ""' | wc -l | tr -d ' ')"
check_eq waits-timeline-stack "$(grep -c 'wait stack (root first)' \
    "$tmp/tl.html" | awk '{ print ($1 > 0) }')" 1
