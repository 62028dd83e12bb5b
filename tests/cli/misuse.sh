#!/bin/sh
# Command lines that are wrong, found by mutating good ones (issue 33):
# - a time that is not one (NaN, infinities, exponents, beyond int64
#   ns) given to any view or tool that takes a time: one message, exit
#   2, for every such option; the times the manuals document still
#   taken;
# - -o naming a file the tool also reads (an input, a --diff base, a
#   --merge input), by the same name, a hard link or a symbolic link:
#   refused, exit 2, the file's bytes and links as they were;
# - vmem, heap and heapsnap --merge given events (or a stream of
#   neither): which input it got and which it needs, exit 1.

. "$(dirname "$0")/../testlib.sh"

cd "$tmp" || exit 2
top=${ETL_TOP:-.}

# --- Times ---------------------------------------------------------------

# bad_time NAME OPT ARG WANT CMD...: CMD with "OPT ARG" exits 2 and says
# WANT on its first line.
bad_time() {
	name=$1 opt=$2 arg=$3 want=$4
	shift 4
	"$@" "$opt" "$arg" </dev/null >/dev/null 2>err
	check_eq "$name" "$?:$(head -1 err)" "2:$want"
}

for arg in nan inf -inf 1e300 -1e300 NaN 0x10 1e-3 9223372036.854775808 \
    99999999999; do
	for view in threads waits switches threadtime; do
		for opt in --from --to; do
			bad_time "time-$view$opt-$arg" $opt "$arg" \
			    "etlagg: $view: $opt: '$arg' is not a time in seconds" \
			    etlagg $view
		done
	done
	bad_time "time-vmem--at-$arg" --at "$arg" \
	    "etlagg: vmem: --at: '$arg' is not a time in seconds" etlagg vmem
	bad_time "time-vmem--from-$arg" --from "$arg" \
	    "etlagg: vmem: --from: '$arg' is not a time in seconds" \
	    etlagg vmem --to 1
	bad_time "time-vmem--to-$arg" --to "$arg" \
	    "etlagg: vmem: --to: '$arg' is not a time in seconds" \
	    etlagg vmem --from 0
	[ "$arg" = 9223372036.854775808 ] && arg=9223372037	# ms
	bad_time "time-vmem--step-$arg" --step "$arg" \
	    "etlagg: vmem: --step: '$arg' is not a positive time in milliseconds" \
	    etlagg vmem --timeline
	for opt in --from --to; do
		bad_time "time-etlfilter$opt-$arg" $opt "$arg" \
		    "etlfilter: $opt: '$arg' is not a time in seconds, nor UTC as 2020-07-29T00:07:00.5Z" \
		    etlfilter
	done
done
# A step is a duration: 0 and below are no step.
for arg in 0 -1 -0.5; do
	bad_time "time-vmem--step-$arg" --step "$arg" \
	    "etlagg: vmem: --step: '$arg' is not a positive time in milliseconds" \
	    etlagg vmem --timeline
done

# What the manuals document is taken: seconds before the trace's start
# (an event logged before its header event has a negative time), the
# ends of what int64 ns hold.
if command -v etlsynth >/dev/null; then
	etlsynth --scenario waits --events 1500 --seed 1 -o w.etl >/dev/null
	etlcat -q -o w.st w.etl
	etlsynth --scenario memory --events 1500 --seed 1 -o m.etl >/dev/null
	etlcat -q -o m.st m.etl
else
	etlcat -q -o w.st "$top/testdata/sample.etl"
	cp w.st m.st
fi
for arg in -0.001 2.5 .5 9223372036.854775807 -9223372036.854775808; do
	for view in threads waits switches threadtime; do
		etlagg -q $view --from "$arg" w.st >/dev/null 2>err
		check_eq "time-ok-$view-$arg" "$?:$(cat err)" "0:"
	done
	etlfilter --from "$arg" w.st >/dev/null 2>err
	check_eq "time-ok-etlfilter-$arg" "$?:$(cat err)" "0:"
	etlagg -q vmem --at "$arg" m.st >/dev/null 2>err
	check_eq "time-ok-vmem-at-$arg" "$?:$(cat err)" "0:"
done
# Exact to the nanosecond: a window that ends a nanosecond after the
# last switch counts it, one that ends at it does not.  Switches stay
# outside a window as context (etl-stream(5)); the view counts the
# window's.
last=$(etlagg -q switches w.st | etlreport -f csv | csv_lf |
    awk -F, 'NR > 1 && $1 > t { t = $1 } END { print t }')
next=$(echo "$last" | awk -F. '{ n = $1 * 1e9 + $2 + 1
	printf "%d.%09d\n", int(n / 1e9), n % 1e9 }')
count() {
	etlfilter --to "$1" w.st | etlagg -q switches | etlreport -f csv |
	    csv_lf | awk -F, -v t="$last" 'NR > 1 && $1 == t' | wc -l
}
check_eq time-exact-to-the-ns "$(($(count "$next") > 0)):$(count "$last")" \
    "1:0"

# --- -o onto a file the tool reads ----------------------------------------

etlagg -q vmem m.st -o vm.st
etlagg -q heap m.st -o hp.st
etlcat -q -o q.st "$top/testdata/selfprofile/tiny-0030637.mm_profdata"

# refused NAME SRC HOW CMD... (with @OUT@ for the output, @IN@ for the
# file read): a.st is a copy of SRC; the output names it as HOW says
# (same: a.st, hard: a hard link, sym: a symbolic link).  Exit 2, the
# message, a.st's bytes as they were, and both links still there.
refused() {
	name=$1 src=$2 how=$3
	shift 3
	rm -f a.st hard.st sym.st
	cp "$src" a.st
	ln a.st hard.st
	ln -s a.st sym.st
	case $how in
	same)	out=a.st ;;
	hard)	out=hard.st ;;
	sym)	out=sym.st ;;
	esac
	cmd=
	for w in "$@"; do
		case $w in
		@OUT@)	w=$out ;;
		@IN@)	w=a.st ;;
		esac
		cmd="$cmd '$w'"
	done
	eval "$cmd" >/dev/null 2>err
	status=$?
	tool=$1
	if [ $status != 2 ]; then
		fail "$name" "exit $status: $(cat err)"
	elif ! grep -q "^$tool: $out: the output is also an input (a.st)" err
	then
		fail "$name" "message: $(cat err)"
	elif ! cmp -s a.st "$src"; then
		fail "$name" "a.st changed"
	elif [ ! -L sym.st ] || ! cmp -s hard.st "$src" ||
	    [ "$(ls -i a.st | cut -d' ' -f1)" != \
	    "$(ls -i hard.st | cut -d' ' -f1)" ]; then
		fail "$name" "a link was replaced"
	else
		pass "$name"
	fi
}

for how in same hard sym; do
	refused "o-input-etlcat-$how" w.st $how etlcat -o @OUT@ @IN@
	refused "o-input-etlcat-trace-$how" w.etl $how etlcat -o @OUT@ @IN@
	refused "o-input-etlfilter-$how" w.st $how etlfilter --pid 4 -o @OUT@ @IN@
	refused "o-input-etlsym-$how" w.st $how etlsym -o @OUT@ @IN@
	refused "o-input-etlreport-$how" w.st $how etlreport -o @OUT@ @IN@
	refused "o-input-etlreport-svg-$how" vm.st $how \
	    etlreport -f svg -o @OUT@ @IN@
	refused "o-input-etlagg-$how" w.st $how etlagg -o @OUT@ stats @IN@
	refused "o-input-etlagg-second-$how" w.st $how \
	    etlagg -o @OUT@ stats w.st @IN@
	refused "o-diff-base-etlagg-$how" w.st $how \
	    etlagg -o @OUT@ threads --diff @IN@ w.st
	refused "o-diff-base-etlagg-chain-$how" w.st $how \
	    etlagg -o @OUT@ stats + cpu --diff @IN@ w.st
	refused "o-diff-base-queries-$how" q.st $how \
	    etlagg -o @OUT@ queries --diff @IN@ q.st
	refused "o-merge-input-etlagg-$how" vm.st $how \
	    etlagg -o @OUT@ vmem --merge vm.st @IN@
done
# The base of --diff read from standard input, and the output on
# standard output (appended to, which the shell does not truncate).
cp w.st a.st
etlagg threads --diff a.st w.st >>a.st 2>err
check_eq o-diff-base-stdout "$?:$(cmp -s a.st w.st && echo same):$(cat err)" \
    "2:same:etlagg: standard output: the output is also an input (a.st); write it to another file"
cp q.st a.st
etlagg queries --diff a.st <q.st >>a.st 2>err
check_eq o-queries-base-stdout "$?:$(cmp -s a.st q.st && echo same)" "2:same"
cp w.st a.st
etlagg -o a.st threads --diff - w.st <a.st 2>err
check_eq o-diff-base-stdin "$?:$(cmp -s a.st w.st && echo same)" "2:same"
# Reading the base and writing elsewhere is still fine.
etlagg -q -o d.st threads --diff w.st w.st 2>err
check_eq diff-base-elsewhere "$?:$(cat err)" "0:"

# --- --merge of what a view cannot merge ----------------------------------

for view in vmem heap heapsnap; do
	etlagg -o out.st $view --merge m.st 2>err
	check_eq "merge-events-$view" "$?:$(grep -v 'lossy input' err)" \
	    "1:etlagg: m.st: holds events, which $view --merge leaves out: it adds up the tables that etlagg $view writes"
	# A trace, decoded into events, is no better.
	etlagg -o out.st $view --merge m.etl 2>err
	check_eq "merge-trace-$view" "$?:$(grep -c 'm.etl: holds events' err)" \
	    "1:1"
	# Tables mixed with events: the events are not left out unsaid.
	cat vm.st hp.st m.st >mixed.st
	etlagg -o out.st $view --merge mixed.st 2>err
	check_eq "merge-mixed-$view" "$?:$(grep -c 'mixed.st: holds events' err)" \
	    "1:1"
done
# A stream of neither events nor tables (the events filtered out).
etlfilter --kind lost w.st -o none.st
etlagg -o out.st vmem --merge none.st 2>err
check_eq merge-neither "$?:$(cat err)" \
    "1:etlagg: none.st: holds neither events nor tables: vmem --merge adds up the tables that etlagg vmem writes"
# Its own tables merge without a word.
etlagg -q -o out.st vmem --merge vm.st vm.st 2>err
check_eq merge-tables-ok "$?:$(cat err)" "0:"
# The views with a --merge of their own count events and add in tables.
etlagg -q -o out.st processes --merge w.st 2>err
check_eq merge-own-events-ok "$?:$(cat err)" "0:"
