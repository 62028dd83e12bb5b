#!/bin/sh
# rustc self-profiles joined to the trace (issue 35): etlsynth builds
# with --self-profile and --slow-query over a few seeds, against the
# ground truth of their manifests.
#
#	- cpu --by query gives, per process, exactly the manifest's samples
#	  by innermost query (query_samples), "(no query)" included;
#	- so every sample of a profiled process is counted once: its rows
#	  add up to its process line's samples, and their percents to 100;
#	- the planted slow query is the top row of every process that ran
#	  it and finished in the trace;
#	- the thread mapping of the notes is the manifest's (profile_thread);
#	- inputs in any order, or one etlcat stream of them all, give the
#	  same table; cpu --by query+function and +stack hold the same
#	  samples;
#	- --pause: waits --by query puts the planted wait in its query of
#	  its process, readied by the worker that held the lock;
#	- a profile whose pid matches no process, whose process compiles
#	  another crate, or whose clock lies outside the trace gives a note
#	  (and a message) and no row.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}

# rows Q.CSV: "pid query samples" of a cpu --by query table, sorted.
rows() {
	awk -F, 'NR > 1 { print $2, $3, $4 }' "$1" | LC_ALL=C sort
}

# truth MANIFEST: the same from query_samples lines.
truth() {
	awk -F'\t' '$1 == "query_samples" { print $2, $4, $5 }' "$1" |
	    LC_ALL=C sort
}

# labels NOTES MANIFEST: "label<TAB>pid start_ns" of each joined profile:
# the note names the profile's file and its process; the manifest says
# which process wrote that file.
labels() {
	sed -n 's/^note: query join: \([^:]*\): \(.*([0-9][^)]*)\): threads .*/\1\t\2/p' \
	    "$1" | LC_ALL=C sort >"$tmp/notes.files"
	awk -F'\t' '$1 == "profile" { print $7 "\t" $2 " " $3 }' "$2" |
	    LC_ALL=C sort >"$tmp/man.files"
	LC_ALL=C join -t '	' "$tmp/notes.files" "$tmp/man.files" |
	    cut -f 2,3
}

for seed in 11 23 37; do
	d=$tmp/s$seed
	mkdir -p "$d"
	if ! etlsynth --seed $seed --size 6m --self-profile "$d/prof" \
	    --slow-query typeck=10 -o "$d/t.etl" >/dev/null 2>"$d/err"; then
		fail "queryjoin-$seed-synth" "$(head -2 "$d/err")"
		continue
	fi
	m=$d/t.etl.manifest.tsv
	etlcat -q -o "$d/t.st" "$d/t.etl"
	nprof=$(ls "$d/prof" | wc -l)
	if [ "$nprof" -ge 8 ] && [ "$nprof" = "$(grep -c '^profile	' "$m")" ]
	then
		pass "queryjoin-$seed-profiles ($nprof written, as many lines)"
	else
		fail "queryjoin-$seed-profiles" "$nprof files, $(grep -c \
		    '^profile	' "$m") manifest lines"
	fi
	etlagg -q cpu --by query "$d/t.st" "$d/prof"/*.mm_profdata \
	    >"$d/q.st" 2>"$d/q.err"
	etlreport -q -f csv "$d/q.st" | csv_lf >"$d/q.csv"
	etlreport -q -f text "$d/q.st" | grep '^note: query join:' \
	    >"$d/notes"
	rows "$d/q.csv" >"$d/got"
	truth "$m" >"$d/want"
	same_file "queryjoin-$seed-samples-by-query ($(wc -l <"$d/want") \
rows)" "$d/got" "$d/want"

	# Each process's rows: its samples once, percents adding to 100.
	labels "$d/notes" "$m" >"$d/labels"
	awk -F, 'NR > 1 { s[$1] += $4; p[$1] += $5 }
	    END { for (k in s) printf "%s\t%d %.0f\n", k, s[k], p[k] }' \
	    "$d/q.csv" | LC_ALL=C sort >"$d/sums"
	awk -F'\t' '$1 == "process" { print $2 " " $3 "\t" $6 }' "$m" |
	    LC_ALL=C sort >"$d/proc.samples"
	LC_ALL=C sort -t '	' -k 2 "$d/labels" |
	    LC_ALL=C join -t '	' -1 2 -2 1 - "$d/proc.samples" |
	    awk -F'\t' '{ print $2 "\t" $3 " 100" }' | LC_ALL=C sort \
	    >"$d/sums.want"
	if [ "$(wc -l <"$d/sums.want")" -ge 8 ] &&
	    [ "$(wc -l <"$d/sums.want")" = "$nprof" ]; then
		same_file "queryjoin-$seed-each-sample-once ($nprof \
processes)" "$d/sums" "$d/sums.want"
	else
		fail "queryjoin-$seed-each-sample-once" "$(wc -l \
		    <"$d/sums.want") of $nprof profiles matched to a process"
	fi

	# The planted query leads every process that ran it to its end.
	awk -F'\t' '$1 == "profile" && $6 == 0 { print $2 " " $3 }' "$m" |
	    LC_ALL=C sort >"$d/complete"
	awk -F'\t' '$1 == "query_samples" && $4 == "typeck" && $5 > 0 {
	    print $2 " " $3 }' "$m" | LC_ALL=C sort >"$d/ran"
	LC_ALL=C comm -12 "$d/complete" "$d/ran" >"$d/planted"
	awk -F, 'NR > 1 && !top[$1]++ { print $1 "\t" $3 }' "$d/q.csv" |
	    LC_ALL=C sort >"$d/tops"
	LC_ALL=C sort -t '	' -k 2 "$d/labels" |
	    LC_ALL=C join -t '	' -1 2 -2 1 - "$d/planted" | cut -f 2 |
	    LC_ALL=C sort >"$d/planted.labels"
	bad=$(LC_ALL=C join -t '	' "$d/planted.labels" "$d/tops" |
	    awk -F'\t' '$2 != "typeck"' | head -3 | tr '\n\t' '; ')
	n=$(wc -l <"$d/planted.labels")
	if [ "$n" -ge 4 ] && [ -z "$bad" ]; then
		pass "queryjoin-$seed-planted-query-on-top ($n processes)"
	else
		fail "queryjoin-$seed-planted-query-on-top" \
		    "$n processes; not on top: $bad"
	fi

	# The thread mapping of the notes is the generator's.
	sed 's/^note: query join: \([^:]*\): .*: threads \([^;]*\);.*/\1 \2/' \
	    "$d/notes" | awk '{ f = $1; $1 = ""; n = split($0, a, ", ")
	    for (i = 1; i <= n; i++) if (split(a[i], b, " ") >= 4 &&
	        b[2] == "=") print f, b[1], b[4] }' | LC_ALL=C sort \
	    >"$d/map.got"
	awk -F'\t' '$1 == "profile" { file[$2 " " $3] = $7 }
	    $1 == "profile_thread" { t[++n] = $2 " " $3 "\t" $4 " " $5 }
	    END { for (i = 1; i <= n; i++) { split(t[i], x, "\t")
	        print file[x[1]], x[2] } }' "$m" | LC_ALL=C sort \
	    >"$d/map.want"
	same_file "queryjoin-$seed-thread-mapping ($(wc -l <"$d/map.want") \
threads)" "$d/map.got" "$d/map.want"
	grep -q 'unmapped' "$d/notes" &&
	    fail "queryjoin-$seed-all-mapped" "$(grep unmapped "$d/notes" |
	    head -1)" || pass "queryjoin-$seed-all-mapped"

	# Inputs in any order, or one stream of them all: the same table.
	etlagg -q cpu --by query "$d/prof"/*.mm_profdata "$d/t.st" |
	    etlreport -q -f csv | csv_lf >"$d/q2.csv"
	etlcat -q "$d/t.etl" "$d/prof"/*.mm_profdata |
	    etlagg -q cpu --by query | etlreport -q -f csv | csv_lf \
	    >"$d/q3.csv"
	same_file "queryjoin-$seed-profiles-first" "$d/q2.csv" "$d/q.csv"
	same_file "queryjoin-$seed-one-stream" "$d/q3.csv" "$d/q.csv"

	# query+function and query+stack count the same samples.
	for by in query+function query+stack; do
		etlagg -q cpu --by $by "$d/t.st" "$d/prof"/*.mm_profdata |
		    etlreport -q -f csv | csv_lf >"$d/by.csv"
		col=$(head -1 "$d/by.csv" | tr ',' '\n' | grep -n '^samples$' |
		    cut -d: -f1)
		awk -F, -v c="$col" 'NR > 1 { s[$2 "," $3] += $c }
		    END { for (k in s) print k "," s[k] }' "$d/by.csv" |
		    LC_ALL=C sort >"$d/by.got"
		awk -F, 'NR > 1 { s[$2 "," $3] += $4 }
		    END { for (k in s) print k "," s[k] }' "$d/q.csv" |
		    LC_ALL=C sort >"$d/by.want"
		same_file "queryjoin-$seed-$by" "$d/by.got" "$d/by.want"
	done
done

# Folded stacks of query+stack: process, queries outermost first, the
# frames; those under analysis;typeck but not evaluate_obligation weigh
# what the typeck rows of cpu --by query do.
etlagg -q cpu --by query+stack "$tmp/s11/t.st" "$tmp/s11"/prof/*.mm_profdata |
    etlreport -q -f folded >"$tmp/folded"
got=$(grep ';analysis;typeck;' "$tmp/folded" |
    grep -v ';analysis;typeck;evaluate_obligation;' |
    awk '{ s += $NF } END { print s + 0 }')
want=$(awk -F, '$3 == "typeck" { s += $4 } END { print s + 0 }' \
    "$tmp/s11/q.csv")
if [ "$want" -gt 0 ]; then
	check_eq "queryjoin-folded-by-query ($want typeck samples)" "$got" \
	    "$want"
else
	fail queryjoin-folded-by-query "no typeck samples"
fi

# --pause: the planted wait, in its query, readied by the lock's holder.
d=$tmp/pause
mkdir -p "$d"
etlsynth --seed 5 --size 4m --self-profile "$d/prof" --pause 250 \
    -o "$d/t.etl" >/dev/null
pl=$(grep '^pause	' "$d/t.etl.manifest.tsv")
ptid=$(echo "$pl" | cut -f 4)
preadier=$(echo "$pl" | cut -f 6)
pfrom=$(echo "$pl" | cut -f 7)
pto=$(echo "$pl" | cut -f 8)
plabel=$(echo "$pl" | cut -f 9)
ppid=$(echo "$pl" | cut -f 2)
etlcat -q -o "$d/t.st" "$d/t.etl"
etlagg -q waits --by query "$d/t.st" "$d/prof"/*.mm_profdata |
    etlreport -q -f csv | csv_lf >"$d/w.csv"
# The row of its process and query holds the wait, whole, and its
# readier; the timeline has it on the waiting thread.
row=$(awk -F, -v pid="$ppid" -v q="$plabel" '$2 == pid && $3 == q' \
    "$d/w.csv" | sort -t, -k5 -n | tail -1)
max=$(echo "$row" | cut -d, -f5)
wait=$((pto - pfrom))
if [ -n "$row" ] && [ "$(echo "$row" | cut -d, -f6)" = "$preadier" ] &&
    [ "$max" -ge "$wait" ] && [ "$wait" -ge 250000000 ]; then
	pass "queryjoin-pause-in-its-query ($plabel, $max ns, readied by \
$preadier)"
else
	fail "queryjoin-pause-in-its-query" "want $plabel of $ppid, $wait ns \
readied by $preadier; got '$row'"
fi
span=$(etlagg -q timeline --tid "$ptid" "$d/t.st" | etlreport -q -f csv |
    csv_lf | awk -F, -v w="$wait" '$5 == "waiting" && $8 == w {
    print $11 "," $12 }')
check_eq queryjoin-pause-on-the-timeline "$span" "WrAlertByThreadId,$preadier"
# Blocked time by query adds up to the waits of each joined process's
# threads (waits --by thread, whose keys begin with the same process
# names): the whole of each one's blocked time, once.
awk -F, 'NR > 1 { s[$1] += $10 } END { for (k in s) printf "%s,%.0f\n", k, s[k] }' \
    "$d/w.csv" | LC_ALL=C sort >"$d/w.got"
etlagg -q waits --by thread "$d/t.st" | etlreport -q -f csv | csv_lf |
    awk -F, 'NR > 1 { k = $1; sub(/ [0-9]+$/, "", k); s[k] += $NF }
    END { for (k in s) printf "%s,%.0f\n", k, s[k] }' | LC_ALL=C sort |
    LC_ALL=C join -t, - "$d/w.got" | cut -d, -f1,2 >"$d/w.want"
n=$(wc -l <"$d/w.got")
if [ "$n" -ge 6 ] && [ "$(wc -l <"$d/w.want")" = "$n" ]; then
	same_file "queryjoin-waits-by-query-add-up ($n processes)" \
	    "$d/w.got" "$d/w.want"
else
	fail queryjoin-waits-by-query-add-up "$n processes, $(wc -l \
	    <"$d/w.want") matched"
fi

# Profiles that must not join: a clock outside the trace (a real
# profile of 2026), a pid no process has, a pid whose process compiles
# another crate (python's, alive throughout).
d=$tmp/s11
one=$(ls "$d/prof" | grep -v '^build_script' | head -1)
pid=$(echo "$one" | sed 's/.*-0*\([0-9]*\)\.mm_profdata/\1/')
LC_ALL=C sed "s/\"process_id\": $pid,/\"process_id\": 99996,/" \
    "$d/prof/$one" >"$tmp/nopid.mm_profdata"
python=$(awk -F'\t' '$1 == "process" && $5 ~ /python/ { print $2; exit }' \
    "$d/t.etl.manifest.tsv")
# The same number of digits keeps the file's string addresses.
if [ ${#python} = ${#pid} ]; then
	LC_ALL=C sed "s/\"process_id\": $pid,/\"process_id\": $python,/" \
	    "$d/prof/$one" >"$tmp/crate.mm_profdata"
fi
cmp -s "$tmp/nopid.mm_profdata" "$d/prof/$one" &&
    fail queryjoin-patched "the pid was not patched in $one"
etlagg cpu --by query "$d/t.st" "$top/testdata/selfprofile/tiny-0030637.mm_profdata" \
    "$tmp/nopid.mm_profdata" "$tmp/crate.mm_profdata" >"$tmp/bad.st" \
    2>"$tmp/bad.err"
st=$?
etlreport -q -f text "$tmp/bad.st" | grep '^note: query join' >"$tmp/bad.notes"
etlreport -q -f csv "$tmp/bad.st" | csv_lf | sed 1d >"$tmp/bad.rows"
check_eq queryjoin-bad-exit "$st" 0
check_eq queryjoin-bad-no-rows "$(wc -l <"$tmp/bad.rows")" 0
for what in "tiny-0030637.mm_profdata (pid 30637): not joined: its clock lies outside the trace" \
    "nopid.mm_profdata (pid 99996): not joined: its pid matches no process" \
    "crate.mm_profdata (pid $python): not joined: the process of its pid alive at its start compiles another crate"; do
	name=$(echo "$what" | cut -d' ' -f1)
	if grep -qF "note: query join: $what" "$tmp/bad.notes" &&
	    grep -qF "cpu: query join: $what" "$tmp/bad.err"; then
		pass "queryjoin-not-joined $name"
	else
		fail "queryjoin-not-joined $name" "$(cat "$tmp/bad.notes" \
		    "$tmp/bad.err" | head -4 | tr '\n' ' ')"
	fi
done
# No profile at all: an empty table, said on stderr.
etlagg cpu --by query "$d/t.st" 2>"$tmp/none.err" | etlreport -q -f csv |
    csv_lf | sed 1d >"$tmp/none.rows"
if [ ! -s "$tmp/none.rows" ] && grep -q 'no profile joined' "$tmp/none.err"
then
	pass queryjoin-no-profile
else
	fail queryjoin-no-profile "$(head -2 "$tmp/none.err")"
fi
