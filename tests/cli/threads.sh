#!/bin/sh
# The second threads (reading .etl buffers ahead, merging them, and
# compressing the output) change nothing: etlcat with and without them
# writes the same bytes and the same messages, and exits alike, on the
# sample, on etlsynth traces with plain and compressed buffers, on the
# inputs crafted to break limits, on a truncated trace and on every
# corpus trace.  The downstream tools' writers too.  The index pass
# reads the head of each buffer from a file and from the mapping of a
# spooled pipe: both give the same too.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}

# same NAME FILE: etlcat of FILE with ETL_THREADS=1 and without.
same() {
	ETL_THREADS=1 etlcat -q -f -o "$tmp/one.st" "$2" 2>"$tmp/one.err"
	one=$?
	etlcat -q -f -o "$tmp/two.st" "$2" 2>"$tmp/two.err"
	two=$?
	agree "threads $1" alone "with threads"
}

# same_index NAME FILE: etlcat of FILE as standard input, a file it
# indexes by reads, and piped, which it spools and indexes in memory.
same_index() {
	etlcat -q -f -o "$tmp/one.st" - <"$2" 2>"$tmp/one.err"
	one=$?
	cat "$2" | etlcat -q -f -o "$tmp/two.st" - 2>"$tmp/two.err"
	two=$?
	agree "index $1" "from a file" "from a pipe"
}

# both NAME FILE: same and same_index.
both() {
	same "$@"
	same_index "$@"
}

both sample "$top/testdata/sample.etl"

if command -v etlsynth >/dev/null; then
	etlsynth --scenario rustc-build --events 300000 --seed 3 \
	    -o "$tmp/plain.etl" >/dev/null
	etlsynth --scenario rustc-build --events 300000 --seed 4 --compress \
	    -o "$tmp/comp.etl" >/dev/null
	etlsynth --scenario waits --compact-cswitch --events 100000 \
	    --seed 5 -o "$tmp/waits.etl" >/dev/null
	both "synth plain" "$tmp/plain.etl"
	both "synth compressed" "$tmp/comp.etl"
	both "synth compact cswitch" "$tmp/waits.etl"
	# Cut mid-buffer: the messages come at the same place.
	size=$(wc -c <"$tmp/comp.etl")
	cut_trace "$tmp/comp.etl" "$tmp/cut.etl"
	both "synth truncated" "$tmp/cut.etl"
	# A damaged buffer in the middle of a plain trace.
	damage_trace "$tmp/plain.etl" "$tmp/damaged.etl" $((size / 3))
	both "synth damaged" "$tmp/damaged.etl"

	# The other tools' writers: etlfilter, etlagg, etlsym.
	etlcat -q "$tmp/plain.etl" >"$tmp/plain.st"
	for cmd in "etlfilter -p rustc" "etlagg cpu --by stack" \
	    "etlsym -y $tmp"; do
		ETL_THREADS=1 $cmd "$tmp/plain.st" >"$tmp/a" 2>/dev/null
		$cmd "$tmp/plain.st" >"$tmp/b" 2>/dev/null
		check_eq "threads ${cmd%% *}" "$(cksum <"$tmp/a")" \
		    "$(cksum <"$tmp/b")"
	done
else
	skip "threads synth" "no etlsynth (make builds it into build/)"
fi

crafted=$top/build/fuzz/crafted
if [ -d "$crafted" ]; then
	for f in "$crafted"/*.etl; do
		both "crafted $(basename "$f")" "$f"
	done
else
	skip "threads crafted" "no $crafted (make check makes it)"
fi

if [ -d "$ETL_CORPUS/etl" ]; then
	for f in "$ETL_CORPUS"/etl/*.etl; do
		both "corpus $(basename "$f")" "$f"
	done
else
	skip "threads corpus" "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
fi
