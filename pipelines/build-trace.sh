# build-trace.sh - what rustc-cpu.sh and rustc-processes.sh share: their
# options, and decoding a trace to the stream of a build's processes.
# Sourced, not run.  The sourcing script sets `prog` and `synopsis` first;
# its opening comment is what -h and --help print.
#
# After build_trace "$@": $out is the output directory, $name the trace's
# name without .etl, $tmp a scratch directory removed at exit, and
# $stream the decoded stream (filtered to the build unless -a was given).
#
# What the trace lost is said once a run: etlcat says it as it decodes,
# naming the trace; every later stage takes -q, which drops that line
# (the stream still carries it, as DIAG records, into every table) but
# not the errors.  say_lossy says it again under the list of files.

usage() {
	echo "usage: $prog $synopsis" >&2
	exit 2
}

# -h, --help: the comment at the top of the script, its manual, on the
# standard output.
help() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
	exit 0
}

# --help anywhere before "--" (getopts knows no long options).
want_help() {
	for arg; do
		case $arg in
		--)	return ;;
		--help)	help ;;
		esac
	done
}

die() {
	echo "$prog: $*" >&2
	exit 1
}

build_trace() {
	here=$(CDPATH= cd "$(dirname "$0")" && pwd)
	PATH=$PATH:$here/../bin
	all=0
	out=.
	want_help "$@"
	while getopts aho: opt; do
		case $opt in
		a)	all=1 ;;
		h)	help ;;
		o)	out=$OPTARG ;;
		*)	usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -eq 1 ] || usage
	trace=$1
	[ -f "$trace" ] || die "$trace: no such file"
	mkdir -p "$out" || die "$out: cannot make the directory"
	name=$(basename "$trace")
	name=${name%.[eE][tT][lL]}

	tmp=$(mktemp -d) || die "cannot make a temporary directory"
	trap 'rm -rf "$tmp"' EXIT INT TERM

	etlcat -o "$tmp/trace.zst" "$trace" || die "$trace: etlcat failed"
	if [ $all = 1 ]; then
		stream=$tmp/trace.zst
	else
		etlfilter -q --rustc -o "$tmp/build.zst" "$tmp/trace.zst" ||
		    die "etlfilter failed"
		stream=$tmp/build.zst
		# Empty tables would say nothing: say why there is nothing.
		found=$(etlagg processes "$stream" 2>/dev/null |
		    etlreport -f csv 2>/dev/null | sed 1d | wc -l)
		[ "$found" -gt 0 ] || die "$trace: no Rust process (rustc, \
cargo, rustdoc, build scripts) in the trace; -a takes every process"
	fi
}

# Says what the trace lost again, after the list of files, and the
# events it lacks for a view ("vmem: the trace has no VirtualAlloc
# events ...", which -q drops from etlagg's stderr too): the notes that
# etlreport writes under a text table of $1, one of the tables made.
say_lossy() {
	etlreport -q -f text "$1" 2>/dev/null >"$tmp/notes.txt"
	note=$(sed -n 's/^note: computed from lossy input: //p' \
	    "$tmp/notes.txt" | tail -1)
	[ -z "$note" ] || echo "$prog: $trace: the files are computed from" \
	    "lossy input: $note" >&2
	sed -n 's/^note: \([a-z]*: the trace has no .*\)/\1/p' \
	    "$tmp/notes.txt" | sort -u | sed "s|^|$prog: $trace: |" >&2
}
