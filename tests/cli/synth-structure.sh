#!/bin/sh
# etlsynth, the generator of synthetic traces: the same options give the
# same bytes, --events and --size are honoured, the buffers tile the file,
# the manifest adds up, and testdata/sample.etl is what its recorded
# command (testdata/README.md) makes.

. "$(dirname "$0")/../testlib.sh"

# Keep in step with testdata/README.md, which the last check reads.
sample_args="--events 20000 --seed 3 --compress"

if ! command -v etlsynth >/dev/null; then
	skip synth "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi

# The u32 at byte offset $2 of file $1 (od reads host order: little-endian).
u32() {
	od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '
}

# Walks the buffers of $1 by their BufferSize fields; prints the buffer
# count, or "bad OFFSET" if one runs past the end of the file.
walk_buffers() {
	size=$(wc -c <"$1" | tr -d ' ')
	off=0
	n=0
	while [ "$off" -lt "$size" ]; do
		len=$(u32 "$1" "$off")
		if [ "$len" -lt 72 ] || [ $((off + len)) -gt "$size" ]; then
			echo "bad $off"
			return
		fi
		off=$((off + len))
		n=$((n + 1))
	done
	echo "$n"
}

# A "total NAME" value of manifest $1.
total() {
	awk -F'\t' -v n="$2" '$1 == "total" && $2 == n { print $3 }' "$1"
}

gen() {
	name=$1
	shift
	etlsynth "$@" -o "$tmp/$name.etl" 2>"$tmp/$name.err"
}

# Same options, same bytes; another seed, other bytes.
for ptr in 4 8; do
	for comp in "" --compress; do
		for seed in 1 2; do
			id=p$ptr${comp:+-lz}-s$seed
			if ! gen "$id-a" --events 6000 --seed $seed \
			    --pointer-size $ptr $comp ||
			    ! gen "$id-b" --events 6000 --seed $seed \
			    --pointer-size $ptr $comp; then
				fail "deterministic-$id" "$(cat "$tmp/$id-a.err")"
				continue
			fi
			if cmp -s "$tmp/$id-a.etl" "$tmp/$id-b.etl" &&
			    cmp -s "$tmp/$id-a.etl.manifest.tsv" \
			    "$tmp/$id-b.etl.manifest.tsv"; then
				pass "deterministic-$id"
			else
				fail "deterministic-$id" "two runs differ"
			fi
		done
		id=p$ptr${comp:+-lz}
		if cmp -s "$tmp/$id-s1-a.etl" "$tmp/$id-s2-a.etl"; then
			fail "seeds-differ-$id" "seeds 1 and 2 gave one trace"
		else
			pass "seeds-differ-$id"
		fi
	done
done

# The buffers tile the file and the manifest's counts agree.
for f in "$tmp"/*-a.etl; do
	id=$(basename "$f" -a.etl)
	m=$f.manifest.tsv
	check_eq "buffers-tile-$id" "$(walk_buffers "$f")" "$(total "$m" buffers)"
	# BuffersWritten: buffer header 0x48 + event header 0x20 + 0x24.
	check_eq "header-buffers-written-$id" "$(u32 "$f" 140)" \
	    "$(total "$m" buffers)"
	check_eq "events-$id" "$(total "$m" events)" 6000
	check_eq "hooks-add-up-$id" "$(awk -F'\t' '$1 == "hook" { s += $3 }
	    $1 == "guid" { s += $4 } END { print s }' "$m")" 6000
	check_eq "stacks-add-up-$id" "$(awk -F'\t' '$1 == "stack" { s += $2 }
	    END { print s }' "$m")" \
	    "$(($(total "$m" samples) - $(total "$m" samples_without_stack)))"
	check_eq "processes-$id" "$(grep -c '^process' "$m")" \
	    "$(total "$m" processes)"
done

# --events N gives exactly N events, down to the smallest trace.
for n in 164 1000 25000; do
	if gen ev$n --events $n --seed 7; then
		check_eq "events-exact-$n" "$(total "$tmp/ev$n.etl.manifest.tsv" \
		    events)" $n
	else
		fail "events-exact-$n" "$(cat "$tmp/ev$n.err")"
	fi
done
if gen ev163 --events 163; then
	fail events-too-few "163 events were accepted"
else
	check_eq events-too-few-status $? 2
fi

# --size stops once the file is that big, then closes the trace: at most
# the partly filled buffers and the closing rundown come after.
for comp in "" --compress; do
	id=size${comp:+-lz}
	if gen "$id" --size 3m --cpus 2 --seed 5 $comp; then
		size=$(wc -c <"$tmp/$id.etl" | tr -d ' ')
		if [ "$size" -ge 3145728 ] &&
		    [ "$size" -le $((3145728 + 6 * 65536)) ]; then
			pass "$id"
		else
			fail "$id" "3m asked, $size bytes written"
		fi
	else
		fail "$id" "$(cat "$tmp/$id.err")"
	fi
done

# Usage errors exit 2, --help prints the usage on stdout and exits 0.
etlsynth --events 100 >/dev/null 2>&1
check_eq usage-no-output $? 2
etlsynth --size 1m --events 200 -o "$tmp/x.etl" >/dev/null 2>&1
check_eq usage-size-and-events $? 2
check_eq help "$(etlsynth --help 2>/dev/null | head -c 15)" "usage: etlsynth"

# The committed sample is what its recorded command makes.
top=${ETL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ ! -f "$top/testdata/sample.etl" ]; then
	fail sample-present "no testdata/sample.etl"
	exit 0
fi
if grep -qF "etlsynth $sample_args -o testdata/sample.etl" \
    "$top/testdata/README.md"; then
	pass sample-command-recorded
else
	fail sample-command-recorded \
	    "testdata/README.md lacks 'etlsynth $sample_args -o ...'"
fi
# shellcheck disable=SC2086
if ! gen sample $sample_args; then
	fail sample-regenerates "$(cat "$tmp/sample.err")"
	exit 0
fi
if cmp -s "$tmp/sample.etl" "$top/testdata/sample.etl"; then
	pass sample-regenerates
else
	fail sample-regenerates "testdata/sample.etl differs (see its README)"
fi
if cmp -s "$tmp/sample.etl.manifest.tsv" \
    "$top/testdata/sample.etl.manifest.tsv"; then
	pass sample-manifest-regenerates
else
	fail sample-manifest-regenerates \
	    "testdata/sample.etl.manifest.tsv differs"
fi
