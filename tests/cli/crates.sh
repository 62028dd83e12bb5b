#!/bin/sh
# etlagg crates against the other views, instance by instance, on
# etlsynth traces of both pointer sizes, with plain and compressed
# buffers, with and without CSwitch and VirtualAlloc events: wall_s and
# cpu_ms are processes' duration and cpu_ms (a process still running at
# the end: up to its last sight, marked wall_cut), the commit columns vmem's
# peak and outstanding bytes (0 where vmem has no row), the time columns
# the sums of threads' rows over the threads that started in the
# instance's life (joined here by time, where the view joins them by
# the pid's definition when it first sees the thread); a figure the
# input lacks is empty, with its note; the instances, starts and CPU
# time are those of etlsynth's manifest.  Then --by crate, and --merge.

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip crates "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi

csv() {
	etlagg "$@" 2>/dev/null | etlreport -f csv 2>/dev/null | csv_lf
}

# cols FILE NAME...: the named columns of a CSV file with a header, one
# row a line, space-separated; an empty cell becomes "-".
cols() {
	f=$1
	shift
	awk -F, -v want="$*" 'NR == 1 {
		n = split(want, w, " ")
		for (i = 1; i <= NF; i++) at[$i] = i
		next
	    }
	    {
		line = ""
		for (i = 1; i <= n; i++) {
			v = w[i] in at ? $(at[w[i]]) : "no-column-" w[i]
			if (v == "") v = "-"
			line = line (i > 1 ? " " : "") v
		}
		print line
	    }' "$f"
}

same() {
	if [ ! -s "$2" ]; then
		fail "$1" "$2 is empty"
	elif cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2" "$3" | head -6 | tr '\n' '|')"
	fi
}

# check ID STREAM SAMPLES VMEM CSWITCH: crates of STREAM against the
# views; SAMPLES, VMEM and CSWITCH say whether the input has CPU samples,
# VirtualAlloc events and context switches (1) or not (0).
check() {
	id=$1 st=$2 has_samples=$3 has_vmem=$4 has_cs=$5
	csv crates "$st" >"$tmp/$id.crates"
	cols "$tmp/$id.crates" pid start_s >"$tmp/$id.keys"
	rows=$(wc -l <"$tmp/$id.keys")
	if [ "$rows" -eq 0 ]; then
		fail "crates-$id-rows" "no row"
		return
	fi
	# processes: wall and cpu, for the rows crates lists.
	csv processes "$st" >"$tmp/$id.procs"
	# A process running at the trace's end: its wall up to its last
	# sight (the trace's end), a lower bound that wall_cut marks.
	cols "$tmp/$id.procs" pid start_s duration_s cpu_ms last_seen_s |
	    awk -v s="$has_samples" '
		function ns(x, p) { split(x, p, "."); return p[1] * 1e9 + p[2] }
		NR == FNR { want[$1 " " $2] = 1; next }
		($1 " " $2) in want { if (!s) $4 = "-"; cut = "false"
		if ($3 == "-" && $2 != "-" && $5 != "-") {
			d = ns($5) - ns($2)
			$3 = sprintf("%d.%09d", int(d / 1e9), d % 1e9)
			cut = "true"
		}
		print $1, $2, $3, cut, $4 }' \
		"$tmp/$id.keys" - | sort \
	    >"$tmp/$id.p.want"
	cols "$tmp/$id.crates" pid start_s wall_s wall_cut cpu_ms | sort \
	    >"$tmp/$id.p.got"
	same "crates-$id-processes" "$tmp/$id.p.got" "$tmp/$id.p.want"
	# vmem: peak and outstanding, 0 for an instance without a row.
	if [ "$has_vmem" = 1 ]; then
		csv vmem "$st" >"$tmp/$id.vmem"
		cols "$tmp/$id.vmem" pid start_s peak_outstanding_bytes \
		    outstanding_bytes | awk '
		    NR == FNR { v[$1 " " $2] = $3 " " $4; next }
		    { k = $1 " " $2; print k, (k in v ? v[k] : "0 0") }' \
		    - "$tmp/$id.keys" | sort >"$tmp/$id.v.want"
	else
		awk '{ print $1, $2, "- -" }' "$tmp/$id.keys" | sort \
		    >"$tmp/$id.v.want"
	fi
	cols "$tmp/$id.crates" pid start_s peak_commit_bytes \
	    outstanding_commit_bytes | sort >"$tmp/$id.v.got"
	same "crates-$id-vmem" "$tmp/$id.v.got" "$tmp/$id.v.want"
	# threads: each thread to the instance of its pid that had started
	# by the thread's start (start_ns 0: there before the trace) and
	# had not ended, the latest such.
	if [ "$has_cs" = 1 ]; then
		cols "$tmp/$id.procs" pid start_s end_s >"$tmp/$id.life"
		csv threads "$st" >"$tmp/$id.thr"
		cols "$tmp/$id.thr" pid start_ns running_ns ready_ns \
		    waiting_ns | awk '
		function ns(s,  p) { if (s == "-") return -1
			split(s, p, "."); return p[1] * 1e9 + p[2] }
		FILENAME == ARGV[1] { n++; pid[n] = $1; st[n] = $2
			s[n] = ns($2); e[n] = $3 == "-" ? 1e30 : ns($3); next }
		FILENAME == ARGV[2] { key[$1 " " $2] = 1; next }
		{
			t = $2 == 0 ? -1 : $2; best = 0
			for (i = 1; i <= n; i++)
				if (pid[i] == $1 && s[i] <= t && t <= e[i] &&
				    (!best || s[i] > s[best]))
					best = i
			if (!best) next
			k = pid[best] " " st[best]
			run[k] += $3; rdy[k] += $4; wt[k] += $5
		}
		END { for (k in key) printf "%s %.0f %.0f %.0f\n", k, run[k],
			rdy[k], wt[k] }' "$tmp/$id.life" "$tmp/$id.keys" - |
		    sort >"$tmp/$id.t.want"
	else
		awk '{ print $1, $2, "- - -" }' "$tmp/$id.keys" | sort \
		    >"$tmp/$id.t.want"
	fi
	cols "$tmp/$id.crates" pid start_s running_ns ready_ns waiting_ns |
	    sort >"$tmp/$id.t.got"
	same "crates-$id-threads" "$tmp/$id.t.got" "$tmp/$id.t.want"
	# The notes say what is empty, and only that.
	etlagg crates "$st" 2>/dev/null | etlreport 2>/dev/null |
	    grep '^note: crates:' >"$tmp/$id.notes"
	check_eq "crates-$id-vmem-note" \
	    "$(grep -c VirtualAlloc "$tmp/$id.notes")" "$((1 - has_vmem))"
	check_eq "crates-$id-cswitch-note" \
	    "$(grep -c 'context switches' "$tmp/$id.notes")" \
	    "$((1 - has_cs))"
}

# by_crate ID: --by crate sums the instance rows of each crate.
by_crate() {
	id=$1
	csv crates --by crate "$2" >"$tmp/$id.bycrate"
	cols "$tmp/$id.bycrate" crate instances cpu_ms running_ns \
	    peak_commit_bytes | sort >"$tmp/$id.bc.got"
	cols "$tmp/$id.crates" crate cpu_ms running_ns peak_commit_bytes |
	    awk '{ n[$1]++; c[$1] = $2 == "-" ? "-" : c[$1] + $2
		r[$1] = $3 == "-" ? "-" : r[$1] + $3
		if (!($1 in p) || $4 > p[$1]) p[$1] = $4 }
	    END { for (k in n) print k, n[k], c[k], r[k], p[k] }' |
	    sort >"$tmp/$id.bc.want"
	same "crates-$id-by-crate" "$tmp/$id.bc.got" "$tmp/$id.bc.want"
}

etlsynth --scenario rustc-build --events 40000 --seed 11 \
    -o "$tmp/b8.etl" >/dev/null
etlsynth --scenario rustc-build --events 40000 --seed 12 \
    --pointer-size 4 --compress -o "$tmp/b4c.etl" >/dev/null
etlsynth --scenario memory --pointer-size 4 -o "$tmp/m4.etl" >/dev/null
etlsynth --scenario memory --compress -o "$tmp/m8c.etl" >/dev/null
etlsynth --scenario waits --events 20000 --seed 3 --compact-cswitch \
    -o "$tmp/w.etl" >/dev/null
for t in b8 b4c m4 m8c w; do
	etlcat -q -f -o "$tmp/$t.zst" "$tmp/$t.etl"
done
check build-8 "$tmp/b8.zst" 1 1 1
check build-4-compressed "$tmp/b4c.zst" 1 1 1
check memory-4 "$tmp/m4.zst" 0 1 0
check memory-8-compressed "$tmp/m8c.zst" 0 1 0
check waits-compact "$tmp/w.zst" 0 0 1
# Without the VirtualAlloc events, without the switches.
etlfilter -v --kind alloc "$tmp/b8.zst" >"$tmp/novmem.zst" 2>/dev/null
check build-no-vmem "$tmp/novmem.zst" 1 0 1
etlfilter -v --kind cswitch,ready "$tmp/b4c.zst" >"$tmp/nocs.zst" 2>/dev/null
check build-no-cswitch "$tmp/nocs.zst" 1 1 0
# The memory scenario reuses a pid for two rustc instances: two rows.
check_eq crates-reused-pid-two-rows \
    "$(cols "$tmp/memory-4.crates" pid | sort | uniq -d | wc -l)" 1
# The manifest's per-process figures: each rustc instance, its start and
# its samples (1 ms each, etlsynth's interval) are the crates rows'.
for t in b8 b4c; do
	csv crates "$tmp/$t.etl" | cols /dev/stdin pid start_s cpu_ms |
	    sort >"$tmp/$t.m.got"
	awk -F'\t' '$1 == "process" && $5 == "rustc.exe" {
		printf "%s %d.%09d %s\n", $2, $3 / 1e9, $3 % 1000000000, $6 }' \
	    "$tmp/$t.etl.manifest.tsv" | sort >"$tmp/$t.m.want"
	same "crates-$t-manifest" "$tmp/$t.m.got" "$tmp/$t.m.want"
done
by_crate build-8 "$tmp/b8.zst"
by_crate build-4-compressed "$tmp/b4c.zst"

# The trace named directly gives the same table.
etlagg crates "$tmp/b8.zst" 2>/dev/null >"$tmp/one.st"
etlagg crates "$tmp/b8.etl" 2>/dev/null >"$tmp/two.st"
one=0 two=0
: >"$tmp/one.err"
: >"$tmp/two.err"
agree crates-direct "from the stream" "from the trace"

# --merge: the tables of two traces merged are the table of both.
etlagg crates -o "$tmp/t1.zst" "$tmp/b8.zst" 2>/dev/null
etlagg crates -o "$tmp/t2.zst" "$tmp/b4c.zst" 2>/dev/null
etlagg crates "$tmp/b8.zst" "$tmp/b4c.zst" 2>/dev/null |
    etlreport -f csv 2>/dev/null >"$tmp/both.csv"
etlagg crates --merge "$tmp/t1.zst" "$tmp/t2.zst" 2>/dev/null |
    etlreport -f csv 2>/dev/null >"$tmp/merged.csv"
same crates-merge "$tmp/merged.csv" "$tmp/both.csv"
# The same table twice: each figure twice, the peak once.
etlagg crates --merge "$tmp/t1.zst" "$tmp/t1.zst" 2>/dev/null |
    etlreport -f csv 2>/dev/null | csv_lf >"$tmp/twice.csv"
cols "$tmp/twice.csv" pid cpu_ms running_ns peak_commit_bytes \
    >"$tmp/twice.got"
cols "$tmp/build-8.crates" pid cpu_ms running_ns peak_commit_bytes |
    awk '{ printf "%s %s %.0f %s\n", $1, $2 * 2, $3 * 2, $4 }' \
    >"$tmp/twice.want"
same crates-merge-twice "$tmp/twice.got" "$tmp/twice.want"
etlagg crates --by crate -o "$tmp/c1.zst" "$tmp/b8.zst" 2>/dev/null
etlagg crates --by crate --merge "$tmp/c1.zst" "$tmp/c1.zst" 2>/dev/null |
    etlreport -f csv 2>/dev/null | csv_lf >"$tmp/c2.csv"
cols "$tmp/c2.csv" crate instances | sort >"$tmp/c2.got"
cols "$tmp/build-8.bycrate" crate instances |
    awk '{ print $1, $2 * 2 }' | sort >"$tmp/c2.want"
same crates-merge-by-crate "$tmp/c2.got" "$tmp/c2.want"
etlagg crates --merge "$tmp/c1.zst" >/dev/null 2>&1
check_eq crates-merge-by-crate-wants-by "$?" 1
