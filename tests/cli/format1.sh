#!/bin/sh
# Streams of format version 1 (testdata/format1, written by the etlcat
# of the commit before format 2) read as they did: every event and every
# view of one is what the tools make of a fresh version 2 stream of the
# same source; etlfilter passes a version 1 section on as version 1; a
# stream of a version 1 and a version 2 section reads whole.  And the
# reader's refusals of format 2: a newer major version, an event of a
# schema not defined, a SCHEMA out of order (etl-stream(5), HEADER and
# Limits).

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
v1=$top/testdata/format1

if ! command -v zstd >/dev/null; then
	skip format1 "no zstd (apt-get install zstd): the checks read and \
patch the decompressed records"
	exit 0
fi

# version FILE: "major.minor" of each HEADER record of the stream FILE,
# one a line.  A HEADER's body: "ETLSTRM\0", u16 major, u16 minor (LE).
version() {
	zstd -q -d -c "$1" | od -A n -t u1 -v | tr -s ' \n' '\n\n' | grep . |
	    awk '{ b[n++] = $1 }
	END {
		for (at = 0; at + 4 <= n; at += 4 + len) {
			len = b[at + 1] + 256 * (b[at + 2] + 256 * b[at + 3])
			if (b[at] == 1)
				print (b[at + 12] + 256 * b[at + 13]) "." \
				    (b[at + 14] + 256 * b[at + 15])
		}
	}'
}

sum256() {
	if command -v sha256sum >/dev/null; then
		sha256sum <"$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null; then
		shasum -a 256 <"$1" | cut -d' ' -f1
	else
		echo unknown
	fi
}

# The sources of the kept streams, made as testdata/format1/README.md
# says, under the names they had (the TRACE record holds the name etlcat
# was given, and messages show it); a source that is not the same bytes
# any more (sha256) cannot be compared with its version 1 stream.
mkdir "$tmp/src"
head -c 14157 "$top/testdata/sample.etl" >"$tmp/src/sample-head.etl"
cp "$top/testdata/selfprofile/tiny-0030637.mm_profdata" "$tmp/src/"
if command -v etlsynth >/dev/null; then
	etlsynth --scenario waits --compact-cswitch --size 60000 --seed 1 \
	    -o "$tmp/src/waits-compact.etl" >/dev/null 2>&1 ||
	    rm -f "$tmp/src/waits-compact.etl"
fi
source_of() {
	case $1 in
	sample-head) echo sample-head.etl ;;
	profile) echo tiny-0030637.mm_profdata ;;
	waits-compact) echo waits-compact.etl ;;
	*) echo "$1.etl" ;;
	esac
}
want_sum() {
	case $1 in
	sample-head) echo 1cf6f967c181e05525775b366a4e438bf5246816a5986593df0a8259efe43dc5 ;;
	profile) echo 77039159222adf7d37f2d7546a11da5bc43fe8d67a539caabc7b2af061643aa3 ;;
	waits-compact) echo 07e829fdd03489e238d2ab1b71aca8ee0471ae06100731e9c590e071182db1a9 ;;
	esac
}

# run NAME SIDE CMD: CMD with $ST naming the stream of SIDE (v1 or v2),
# under one name for both sides since messages name it; its output,
# messages and exit status in $tmp/NAME.SIDE.{out,err,st}.
run() {
	name=$1 side=$2
	shift 2
	cp "$tmp/$stream.$side" "$tmp/in.st"
	ST=$tmp/in.st "$@" >"$tmp/$name.$side.out" 2>"$tmp/$name.$side.err"
	echo $? >"$tmp/$name.$side.status"
}
# same NAME CMD: CMD on both sides gives the same output, the same
# messages and the same exit status.  The output may be empty only where
# the source has nothing for it (a folded graph of a stream without
# samples): then that of version 1 must be empty too.
same() {
	name=$1
	shift
	run "$name" v1 "$@"
	run "$name" v2 "$@"
	if ! cmp -s "$tmp/$name.v1.status" "$tmp/$name.v2.status"; then
		fail "$stream-$name" "exit $(cat "$tmp/$name.v1.status") from \
version 1, $(cat "$tmp/$name.v2.status") from version 2"
	elif ! cmp -s "$tmp/$name.v1.err" "$tmp/$name.v2.err"; then
		fail "$stream-$name" "the messages differ: $(diff \
		    "$tmp/$name.v1.err" "$tmp/$name.v2.err" | head -3 | tr '\n' ' ')"
	elif [ ! -s "$tmp/$name.v2.out" ]; then
		check_eq "$stream-$name (empty)" "$(cat "$tmp/$name.v1.out")" ""
	else
		same_file "$stream-$name" "$tmp/$name.v1.out" "$tmp/$name.v2.out"
	fi
}

views="stats sysconfig processes tree cpu queries querystacks vmem heap
heapsnap threads waits switches threadtime images"
filters="--rustc|--kind sample,process,thread,image|-p ^c --children|\
--from 0.01 --to 0.02"

for stream in sample-head profile waits-compact; do
	kept=$v1/$stream.v1.st
	check_eq "$stream-kept-is-1.1" "$(version "$kept")" 1.1
	src=$(source_of "$stream")
	if [ ! -f "$tmp/src/$src" ]; then
		case $stream in
		waits-compact) skip "$stream-v2" "no etlsynth to make its \
source (make build/etlsynth)" ;;
		esac
		continue
	fi
	sum=$(sum256 "$tmp/src/$src")
	if [ "$sum" != unknown ] && [ "$sum" != "$(want_sum "$stream")" ]; then
		skip "$stream-v2" "its source is not the one the kept stream \
was made of (sha256 $sum; see testdata/format1/README.md)"
		continue
	fi
	cp "$kept" "$tmp/$stream.v1"
	if ! (cd "$tmp/src" && etlcat -q -o "$tmp/$stream.v2" "$src") \
	    2>"$tmp/err"; then
		fail "$stream-etlcat" "$(cat "$tmp/err")"
		continue
	fi
	check_eq "$stream-v2-is-2.1" "$(version "$tmp/$stream.v2")" 2.1

	# Every event and every field.
	for f in jsonl text; do
		same "events-$f" sh -c 'etlreport -q -f "$1" "$ST"' - "$f"
	done
	for v in $views; do
		same "$v-csv" sh -c 'etlagg -q "$1" "$ST" | etlreport -f csv' - "$v"
	done
	same cpu-stack-folded sh -c \
	    'etlagg -q cpu --by stack "$ST" | etlreport -f folded'

	# etlfilter: a version 1 section stays version 1 (and a version 2
	# one version 2), and the events it keeps read the same.
	i=0
	old_ifs=$IFS
	IFS='|'
	for filter in $filters; do
		IFS=$old_ifs
		i=$((i + 1))
		for side in v1 v2; do
			etlfilter -q $filter -o "$tmp/f$i.$side" "$tmp/$stream.$side" \
			    2>"$tmp/err" || fail "$stream-filter$i-$side" \
			    "etlfilter $filter: $(cat "$tmp/err")"
		done
		# Holding back (one pass) or reading twice: the same bytes.
		ETLFILTER_TWO_PASS=1 etlfilter -q $filter -o "$tmp/f$i.two" \
		    "$tmp/$stream.v1" 2>/dev/null
		same_file "$stream-filter$i-two-pass ($filter)" "$tmp/f$i.two" \
		    "$tmp/f$i.v1"
		check_eq "$stream-filter$i-keeps-1.1 ($filter)" \
		    "$(version "$tmp/f$i.v1")" 1.1
		check_eq "$stream-filter$i-keeps-2.1 ($filter)" \
		    "$(version "$tmp/f$i.v2")" 2.1
		etlreport -q -f jsonl "$tmp/f$i.v1" >"$tmp/f$i.v1.jsonl" 2>&1
		etlreport -q -f jsonl "$tmp/f$i.v2" >"$tmp/f$i.v2.jsonl" 2>&1
		if [ -s "$tmp/f$i.v2.jsonl" ]; then
			same_file "$stream-filter$i-events ($filter)" \
			    "$tmp/f$i.v1.jsonl" "$tmp/f$i.v2.jsonl"
		else
			# Nothing kept of this source: still nothing of either.
			check_eq "$stream-filter$i-events ($filter)" \
			    "$(cat "$tmp/f$i.v1.jsonl")" ""
		fi
	done
	IFS=$old_ifs
	same filter-kind-folded sh -c 'etlfilter -q --kind \
	    sample,process,thread,image "$ST" | etlagg -q cpu --by stack |
	    etlreport -f folded'
	# etlsym passes the section on in its version too (no PDBs here:
	# it adds what it looked for, IMAGE_SYMBOLS records).
	for side in v1 v2; do
		etlsym -q -y "$tmp/nopdb" -o "$tmp/sym.$side" "$tmp/$stream.$side" \
		    2>"$tmp/err" || fail "$stream-etlsym-$side" "$(cat "$tmp/err")"
	done
	check_eq "$stream-etlsym-keeps-1.1" "$(version "$tmp/sym.v1")" 1.1
	check_eq "$stream-etlsym-keeps-2.1" "$(version "$tmp/sym.v2")" 2.1
	same etlsym-events sh -c 'etlsym -q -y "$1" "$ST" | etlreport -q -f jsonl' \
	    - "$tmp/nopdb"
	# A filter's version 1 output read through a second filter.
	same filter-twice sh -c 'etlfilter -q --kind sample,process,thread,\
cswitch,ready,query "$ST" | etlfilter -q --from 0.01 | etlreport -q -f jsonl'
done

# A stream of a version 1 section and a version 2 section, either way
# round: read whole, it gives the events of each and counts both.
etlcat -q -o "$tmp/profile.new" "$top/testdata/selfprofile/tiny-0030637.mm_profdata"
cat "$v1/sample-head.v1.st" "$tmp/profile.new" >"$tmp/mixed12.st"
cat "$tmp/profile.new" "$v1/sample-head.v1.st" >"$tmp/mixed21.st"
check_eq mixed-versions "$(version "$tmp/mixed12.st" | xargs) / $(version \
    "$tmp/mixed21.st" | xargs)" "1.1 2.1 / 2.1 1.1"
{
	etlreport -q -f jsonl "$v1/sample-head.v1.st"
	etlreport -q -f jsonl "$tmp/profile.new"
} >"$tmp/want.jsonl"
etlreport -q -f jsonl "$tmp/mixed12.st" >"$tmp/got.jsonl" 2>&1
same_file mixed-events "$tmp/got.jsonl" "$tmp/want.jsonl"
stats_rows() { etlagg -q stats "$@" | etlreport -q -f csv | csv_lf | sed 1d; }
{
	stats_rows "$v1/sample-head.v1.st"
	stats_rows "$tmp/profile.new"
} | sort >"$tmp/want.csv"
for order in 12 21; do
	stats_rows "$tmp/mixed$order.st" | sort >"$tmp/got.csv"
	same_file "mixed$order-stats-counts-both" "$tmp/got.csv" "$tmp/want.csv"
done
# etlfilter keeps each section's version.
etlfilter -q --kind sample,process,query -o "$tmp/mixed.f" "$tmp/mixed12.st"
check_eq mixed-filter-versions "$(version "$tmp/mixed.f" | xargs)" "1.1 2.1"

# Streams crafted from the records of a version 2 stream: the HEADER's
# major version, an event's schema id, a SCHEMA's id changed in place.
etlcat -q -o "$tmp/head.st" "$tmp/src/sample-head.etl"
zstd -q -d -c "$tmp/head.st" >"$tmp/head.raw"

# patch_u16 FILE OFFSET VALUE: VALUE as u16 LE at OFFSET of FILE.
patch_u16() {
	printf "\\$(printf %o $(($3 & 255)))\\$(printf %o $(($3 >> 8)))" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# refused NAME FILE MESSAGE: each reading tool exits non-zero on the
# stream FILE and says MESSAGE.
refused() {
	for tool in "etlreport -q -f jsonl" "etlagg -q stats" "etlfilter -q"; do
		$tool "$2" >/dev/null 2>"$tmp/err"
		status=$?
		case "$status $(cat "$tmp/err")" in
		0\ *)	fail "$1 (${tool%% *})" "exit 0: $(cat "$tmp/err")" ;;
		*"$3"*)	pass "$1 (${tool%% *})" ;;
		*)	fail "$1 (${tool%% *})" "exit $status: $(cat "$tmp/err")" ;;
		esac
	done
}

# The HEADER is the first record: its word (4 bytes), the magic
# "ETLSTRM\0" (8), then major at offset 12, minor at 14.
check_eq header-magic "$(dd if="$tmp/head.raw" bs=1 skip=4 count=7 \
    2>/dev/null)" ETLSTRM
cp "$tmp/head.raw" "$tmp/major3.raw"
patch_u16 "$tmp/major3.raw" 12 3
zstd -q -c "$tmp/major3.raw" >"$tmp/major3.st"
check_eq major3-crafted "$(version "$tmp/major3.st")" 3.1
refused major3-refused "$tmp/major3.st" \
    "stream format version 3.1 is newer than this program's 2.1"
# After a section it reads, too.
cat "$v1/sample-head.v1.st" "$tmp/major3.st" >"$tmp/then3.st"
refused major3-second-section-refused "$tmp/then3.st" \
    "stream format version 3.1 is newer than this program's 2.1"
# A newer minor version of major 2 reads as 2.1 does.
cp "$tmp/head.raw" "$tmp/minor.raw"
patch_u16 "$tmp/minor.raw" 14 9
zstd -q -c "$tmp/minor.raw" >"$tmp/minor.st"
etlreport -q -f jsonl "$tmp/head.st" >"$tmp/want.jsonl"
etlreport -q -f jsonl "$tmp/minor.st" >"$tmp/got.jsonl" 2>&1
same_file minor-2.9-read "$tmp/got.jsonl" "$tmp/want.jsonl"

if ! command -v python3 >/dev/null; then
	skip schema-limits "no python3 to craft the records"
	exit 0
fi
# craft.py RAW WHAT: RAW (decompressed records) with one id changed, to
# stdout; the message the reader must give, to stderr.
cat >"$tmp/craft.py" <<'PY'
import struct, sys

raw = bytearray(open(sys.argv[1], 'rb').read())
what = sys.argv[2]
SCHEMA, EVENT = 0x18, 0x20

def records():
    """(offset, type) of each record: a u32 word, type = its low byte,
    body length = the rest, then the body."""
    at = 0
    while at < len(raw):
        word, = struct.unpack_from('<I', raw, at)
        yield at, word & 0xff
        at += 4 + (word >> 8)

def var_end(at):
    """Offset past the LEB128 varint at `at`."""
    while raw[at] & 0x80:
        at += 1
    return at + 1

if what == 'undefined-schema':
    # The first EVENT: its body is stack (var), dts (svar), schema
    # (var), ...  Name a schema past the ones defined before it.
    defined = 0
    for at, typ in records():
        if typ == SCHEMA:
            defined += 1
        elif typ == EVENT:
            schema_at = var_end(var_end(at + 4))
            assert raw[schema_at] < 0x80 and defined + 5 < 0x80
            raw[schema_at] = defined + 5
            print('event of schema %d, of %d defined' % (defined + 5, defined),
                  file=sys.stderr)
            break
elif what == 'schema-order':
    # The second SCHEMA (id 2) says it is 3.
    n = 0
    for at, typ in records():
        if typ == SCHEMA:
            n += 1
            if n == 2:
                assert raw[at + 4] == 2
                raw[at + 4] = 3
                print('schema 3 out of order (the next is 2)',
                      file=sys.stderr)
                break
assert what in ('undefined-schema', 'schema-order')
sys.stdout.buffer.write(raw)
PY
for what in undefined-schema schema-order; do
	if python3 "$tmp/craft.py" "$tmp/head.raw" "$what" >"$tmp/$what.raw" \
	    2>"$tmp/$what.msg"; then
		zstd -q -c "$tmp/$what.raw" >"$tmp/$what.st"
		refused "$what-refused" "$tmp/$what.st" "$(cat "$tmp/$what.msg")"
	else
		fail "$what-crafted" "$(tail -1 "$tmp/$what.msg")"
	fi
done
# The messages are the man page's (its Limits section's examples).
check_eq schema-messages-documented "$(grep -c \
    -e 'event of schema 9, of 4 defined' \
    -e 'schema 3 out of order (the next is 2)' "$top/man/etl-stream.5")" 2
