#!/bin/sh
# The memory views (vmem, heap, heapsnap) against the truth: the
# manifest of etlsynth --scenario memory (figures its page map and block
# list computed while writing the trace), for both pointer sizes, with
# and without compressed buffers; and against an independent model of
# the same rules (tests/model/memory.awk: a page map and a block list
# over the event list, where the views keep interval maps and hash
# tables), per process and as the multiset of per-stack outstanding
# bytes, on the memory scenario and on rustc-build traces.

. "$(dirname "$0")/../testlib.sh"

model=${ETL_TOP:-.}/tests/model/memory.awk

if ! command -v etlsynth >/dev/null; then
	skip memory "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi

# The view's table ($@) as CSV, LF line ends, no header.
csv() {
	etlagg "$@" | etlreport -f csv | csv_lf
}

# cols FILE NAME...: the named columns of a CSV file with a header, one
# row a line, space-separated; an empty start becomes "-".
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
			# A column the table lacks shows, not the whole line.
			v = w[i] in at ? $(at[w[i]]) : "no-column-" w[i]
			if (v == "") v = "-"
			line = line (i > 1 ? " " : "") v
		}
		print line
	    }' "$f"
}

# ns S: seconds as written (0.001000100) to ns; "-" to 0.
to_ns() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+$/) {
		split($i, p, "."); $i = (p[1] * 1000000000) + p[2] + 0 }
		else if ($i == "-") $i = 0; print }'
}

same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2" "$3" | head -6 | tr '\n' '|')"
	fi
}

# The model's lines of kind $2 from event list $1, sorted.
model_of() {
	awk -v k="$2" '$1 == k' "$1" | cut -d' ' -f2- | sort
}

check_model() {
	id=$1
	st=$2
	etlfilter --kind alloc,heap,process "$st" | etlreport -f csv |
	    csv_lf | sed 1d | awk -f "$model" >"$tmp/$id.model"
	csv vmem "$st" >"$tmp/$id.vmem"
	cols "$tmp/$id.vmem" pid start_s committed_bytes decommitted_bytes \
	    outstanding_bytes peak_outstanding_bytes commits frees \
	    before_trace_bytes | sort >"$tmp/$id.vmem.got"
	model_of "$tmp/$id.model" vmem >"$tmp/$id.vmem.want"
	same "model-vmem-$id" "$tmp/$id.vmem.got" "$tmp/$id.vmem.want"
	csv heap "$st" >"$tmp/$id.heap"
	cols "$tmp/$id.heap" pid start_s allocated_bytes freed_bytes allocs \
	    frees outstanding_count outstanding_bytes unmatched_frees |
	    sort >"$tmp/$id.heap.got"
	model_of "$tmp/$id.model" heap >"$tmp/$id.heap.want"
	same "model-heap-$id" "$tmp/$id.heap.got" "$tmp/$id.heap.want"
	csv vmem --by stack "$st" >"$tmp/$id.vs"
	cols "$tmp/$id.vs" outstanding_bytes | awk '$1 != 0' | sort \
	    >"$tmp/$id.vs.got"
	model_of "$tmp/$id.model" vstack >"$tmp/$id.vs.want"
	same "model-vmem-stacks-$id" "$tmp/$id.vs.got" "$tmp/$id.vs.want"
	csv heap --by stack "$st" >"$tmp/$id.hs"
	cols "$tmp/$id.hs" outstanding_count outstanding_bytes |
	    awk '$1 != 0' | sort >"$tmp/$id.hs.got"
	model_of "$tmp/$id.model" hstack >"$tmp/$id.hs.want"
	same "model-heap-stacks-$id" "$tmp/$id.hs.got" "$tmp/$id.hs.want"
}

# The manifest's lines of kind $2, fields $3..., sorted.
manifest() {
	m=$1
	k=$2
	shift 2
	awk -F'\t' -v k="$k" -v f="$*" '$1 == k {
		n = split(f, w, " "); line = ""
		for (i = 1; i <= n; i++) line = line (i > 1 ? " " : "") $(w[i])
		print line }' "$m" | sort
}

for ptr in 4 8; do
	for comp in "" --compress; do
		id=p$ptr${comp:+-lz}
		m=$tmp/$id.etl.manifest.tsv
		if ! etlsynth --scenario memory --pointer-size $ptr $comp \
		    -o "$tmp/$id.etl" 2>"$tmp/err" ||
		    ! etlcat -q "$tmp/$id.etl" >"$tmp/$id.zst" 2>"$tmp/err"; then
			fail "memory-$id" "$(cat "$tmp/err")"
			continue
		fi
		csv vmem "$tmp/$id.zst" >"$tmp/v"
		cols "$tmp/v" pid start_s committed_bytes decommitted_bytes \
		    outstanding_bytes peak_outstanding_bytes commits frees \
		    before_trace_bytes | to_ns | sort >"$tmp/got"
		manifest "$m" vmem 2 3 5 6 7 8 9 10 11 >"$tmp/want"
		same "manifest-vmem-$id" "$tmp/got" "$tmp/want"
		csv heap "$tmp/$id.zst" >"$tmp/h"
		cols "$tmp/h" pid start_s allocated_bytes freed_bytes allocs \
		    frees outstanding_count outstanding_bytes unmatched_frees |
		    to_ns | sort >"$tmp/got"
		manifest "$m" heap 2 3 5 6 7 8 9 10 11 >"$tmp/want"
		same "manifest-heap-$id" "$tmp/got" "$tmp/want"
		csv vmem --by stack "$tmp/$id.zst" >"$tmp/vs"
		cols "$tmp/vs" outstanding_bytes committed_bytes |
		    awk '$1 != 0 || $2 != 0' | sort >"$tmp/got"
		manifest "$m" vstack 4 5 >"$tmp/want"
		same "manifest-vmem-stacks-$id" "$tmp/got" "$tmp/want"
		csv heap --by stack "$tmp/$id.zst" >"$tmp/hs"
		cols "$tmp/hs" outstanding_count outstanding_bytes |
		    awk '$1 != 0' | sort >"$tmp/got"
		manifest "$m" hstack 4 5 >"$tmp/want"
		same "manifest-heap-stacks-$id" "$tmp/got" "$tmp/want"
		csv heapsnap "$tmp/$id.zst" >"$tmp/s"
		cols "$tmp/s" pid instance outstanding_count outstanding_bytes \
		    complete | sort >"$tmp/got"
		manifest "$m" snapshot 2 3 4 5 | sed 's/$/ 1/' >"$tmp/want"
		same "manifest-snapshots-$id" "$tmp/got" "$tmp/want"
		for n in 1 2; do
			csv heapsnap --by stack --snapshot $n "$tmp/$id.zst" \
			    >"$tmp/ss"
			cols "$tmp/ss" outstanding_count outstanding_bytes |
			    sort >"$tmp/got"
			awk -F'\t' -v n=$n '$1 == "snapstack" && $3 == n {
			    print $5 " " $6 }' "$m" | sort >"$tmp/want"
			same "manifest-snapshot-$n-stacks-$id" "$tmp/got" \
			    "$tmp/want"
		done
		check_model "$id" "$tmp/$id.zst"
	done
done

# --diff: the growth by stack is snapshot 2 minus snapshot 1.
st=$tmp/p8.zst
csv heapsnap --diff 1 2 "$st" >"$tmp/d"
got=$(cols "$tmp/d" growth_bytes | awk '{ s += $1 } END { print s }')
want=$(awk -F'\t' '$1 == "snapshot" { b[$3] = $5 }
    END { print b[2] - b[1] }' "$tmp/p8.etl.manifest.tsv")
check_eq heapsnap-diff-total "$got" "$want"
rows=$(cols "$tmp/d" a_bytes b_bytes growth_bytes |
    awk '$3 != $2 - $1' | wc -l | tr -d ' ')
check_eq heapsnap-diff-rows "$rows" 0
# --diff A B after the files, as etlagg takes options anywhere after
# the view's name: the same table.
etlagg heapsnap "$st" --diff 1 2 | etlreport -f csv | csv_lf >"$tmp/d2"
same heapsnap-diff-after-files "$tmp/d2" "$tmp/d"

# A lost chunk: the snapshot is listed, incomplete, saying what is missing.
if etlsynth --scenario memory-lossy -o "$tmp/lossy.etl" &&
    etlcat -q "$tmp/lossy.etl" >"$tmp/lossy.zst"; then
	csv heapsnap "$tmp/lossy.zst" >"$tmp/l"
	check_eq heapsnap-lossy-listed "$(cols "$tmp/l" instance complete |
	    tr '\n' ' ')" "1 1 2 0 "
	case $(cols "$tmp/l" problem | sed -n 2p) in
	*"chunks 1-1 missing"*) pass heapsnap-lossy-problem ;;
	*) fail heapsnap-lossy-problem "$(cat "$tmp/l")" ;;
	esac
	# The REC_DIAG records, read as bytes (no tool renders them yet).
	if ! command -v zstd >/dev/null; then
		skip heapsnap-lossy-diag "no zstd on PATH (apt-get install zstd)"
	elif zstd -dc "$tmp/lossy.zst" | grep -aq 'written in part' &&
	    etlagg heapsnap "$tmp/lossy.zst" | zstd -dc |
	    grep -aq 'snapshots incomplete'; then
		pass heapsnap-lossy-diag
	else
		fail heapsnap-lossy-diag "no diagnostic for the snapshot"
	fi
else
	fail heapsnap-lossy "etlsynth or etlcat failed"
fi

# Impacting bytes are the change of outstanding bytes over the window.
out_at() {
	csv vmem --at "$1" "$st" | cols /dev/stdin pid start_s \
	    outstanding_bytes | sort
}
out_at 0.004 >"$tmp/t0"
out_at 0.040 >"$tmp/t1"
csv vmem --from 0.004 --to 0.040 "$st" >"$tmp/w"
cols "$tmp/w" pid start_s impacting_bytes | sort >"$tmp/got"
awk 'FNR == NR { before[$1 " " $2] = $3; next }
    { print $1, $2, $3 - before[$1 " " $2] }' "$tmp/t0" "$tmp/t1" |
    sort >"$tmp/want"
same vmem-window-impacting "$tmp/got" "$tmp/want"

# The timeline: rustc.exe's first life drops to zero when it exits.
csv vmem --timeline --step 1 "$st" >"$tmp/tl"
check_eq vmem-timeline-exit "$(cols "$tmp/tl" time_s pid start_s \
    outstanding_bytes | awk '$2 == 2100 && $3 == "0.001000100"' |
    tail -1)" "0.021012100 2100 0.001000100 0"

# rustc-build traces: the manifest's per-process sums and the model.
for ptr in 4 8; do
	id=rb$ptr
	if ! etlsynth --events 15000 --seed 5 --pointer-size $ptr --compress \
	    -o "$tmp/$id.etl" 2>"$tmp/err" ||
	    ! etlcat -q "$tmp/$id.etl" >"$tmp/$id.zst" 2>"$tmp/err"; then
		fail "rustc-build-$id" "$(cat "$tmp/err")"
		continue
	fi
	csv vmem "$tmp/$id.zst" >"$tmp/v"
	cols "$tmp/v" pid start_s committed_bytes decommitted_bytes | to_ns |
	    sort >"$tmp/got"
	awk -F'\t' '$1 == "process" && $7 + $8 > 0 { print $2, $3, $7, $8 }' \
	    "$tmp/$id.etl.manifest.tsv" | sort >"$tmp/want"
	same "manifest-vmem-$id" "$tmp/got" "$tmp/want"
	csv heap "$tmp/$id.zst" >"$tmp/h"
	cols "$tmp/h" pid start_s outstanding_bytes | to_ns |
	    awk '$3 != 0' | sort >"$tmp/got"
	awk -F'\t' '$1 == "process" && $9 > 0 { print $2, $3, $9 }' \
	    "$tmp/$id.etl.manifest.tsv" | sort >"$tmp/want"
	same "manifest-heap-$id" "$tmp/got" "$tmp/want"
	check_model "$id" "$tmp/$id.zst"
done

# The timeline as a line chart: one line a process instance, titled as
# WPA's graph; vmem --by stack as a flame graph weighted by outstanding
# bytes (or, with --weight committed, by committed bytes).
st=$tmp/p8.zst
etlagg vmem --timeline --step 1 "$st" >"$tmp/tl.zst"
series=$(etlreport -f csv "$tmp/tl.zst" | csv_lf | sed 1d |
    cut -d, -f2-4 | sort -u | wc -l | tr -d ' ')
if etlreport -f svg -o "$tmp/tl.svg" "$tmp/tl.zst"; then
	check_eq vmem-timeline-svg-lines "$(grep -c '<polyline' "$tmp/tl.svg")" \
	    "$series"
	check_eq vmem-timeline-svg-title "$(grep -c \
	    '>Outstanding Commit</text>' "$tmp/tl.svg")" 1
else
	fail vmem-timeline-svg "etlreport -f svg failed"
fi
for w in outstanding committed; do
	got=$(etlagg vmem --by stack --weight $w "$st" | etlreport -f folded |
	    awk '{ s += $NF } END { print s }')
	want=$(csv vmem "$st" | cols /dev/stdin ${w}_bytes |
	    awk '{ s += $1 } END { print s }')
	check_eq "vmem-folded-$w" "$got" "$want"
done

# The pipeline: its six files, the flame graph weighing what was committed.
if sh "${ETL_TOP:-.}/pipelines/rustc-memory.sh" -a -o "$tmp/pipe" \
    "$tmp/p8.etl" >"$tmp/list" 2>"$tmp/err"; then
	check_eq rustc-memory-files "$(wc -l <"$tmp/list" | tr -d ' ')" 6
	got=$(awk '{ s += $NF } END { print s }' "$tmp/pipe/p8.commit.folded")
	want=$(csv_lf <"$tmp/pipe/p8.commit-processes.csv" |
	    cols /dev/stdin committed_bytes | awk '{ s += $1 } END { print s }')
	check_eq rustc-memory-folded "$got" "$want"
else
	fail rustc-memory "$(cat "$tmp/err")"
fi
sh "${ETL_TOP:-.}/pipelines/rustc-memory.sh" >/dev/null 2>&1
check_eq rustc-memory-usage "$?" 2
