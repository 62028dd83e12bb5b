#!/bin/sh
# rustc-queries.sh - what the rustc-dev-guide's "Profiling Queries"
# chapter asked of -Z profile-queries, from the -Z self-profile output of
# a build: the query counts, the nested query trace, measureme
# summarize's table, and the query stacks as folded text and a flame
# graph (and, for chrome://tracing or Perfetto, crox's trace JSON).
#
# Usage: rustc-queries.sh [-d depth] [-p percent] [-o dir] profdir
#   -h, --help  this text
#   -d depth    the HTML trace shows this many levels (default: all)
#   -p percent  the HTML trace folds away boxes under percent of the
#               time (default 1, as the old page did; 0 shows all, and
#               full traces are large)
#   -o dir      where to write the files (default: the current directory)
#
# profdir holds the .mm_profdata files of one build, one per rustc
# process, as RUSTFLAGS=-Zself-profile=profdir cargo build leaves them
# (with RUSTC_BOOTSTRAP=1 on a stable toolchain).  Writes:
#   profile_queries.counts.txt  provider,count,seconds by falling time
#   profile_queries.html        the nested query trace
#   queries.csv                 summarize's table
#   queries_total.csv           the total time
#   queries_artifacts.csv       the artifact sizes
#   queries.folded              stack_collapse's folded stacks
#   queries.svg                 the flame graph
#   queries.chrome.json         crox's Chrome trace
# A profile cut short (a killed rustc) is read as far as it goes.
#
# The tools are taken from PATH, or from the bin/ beside this script.

usage() {
	echo "usage: rustc-queries.sh [-d depth] [-p percent] [-o dir] profdir" >&2
	exit 2
}

die() {
	echo "rustc-queries.sh: $*" >&2
	exit 1
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

here=$(CDPATH= cd "$(dirname "$0")" && pwd)
PATH=$PATH:$here/../bin
depth=0
percent=1
out=.
want_help "$@"
while getopts d:ho:p: opt; do
	case $opt in
	d)	depth=$OPTARG ;;
	h)	help ;;
	o)	out=$OPTARG ;;
	p)	percent=$OPTARG ;;
	*)	usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
dir=$1
[ -d "$dir" ] || die "$dir: no such directory"
set -- "$dir"/*.mm_profdata
[ -f "$1" ] || die "$dir: no .mm_profdata files"
mkdir -p "$out" || die "$out: cannot make the directory"

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT INT TERM

# What a profile lost is said once: etlcat says it as it decodes, naming
# the profile; the later stages take -q, which drops that line (the
# stream still carries it into every table) but not the errors.  It is
# said again under the list of files.
status=0
etlcat -o "$tmp/profiles.zst" "$@" || status=$?
[ $status -le 1 ] || die "etlcat failed"
[ $status -eq 0 ] || echo "rustc-queries.sh: some profiles had" \
    "problems (above); going on with what they hold" >&2
etlagg -q -o "$tmp/queries.zst" queries "$tmp/profiles.zst" &&
    etlagg -q -o "$tmp/stacks.zst" querystacks "$tmp/profiles.zst" ||
    die "etlagg failed"
etlreport -q -f counts -o "$out/profile_queries.counts.txt" \
    "$tmp/profiles.zst" &&
    etlreport -q -f html --max-depth "$depth" --min-percent "$percent" \
    --title "rustc queries of $(basename "$dir")" \
    -o "$out/profile_queries.html" "$tmp/profiles.zst" &&
    etlreport -q -f csv --table queries -o "$out/queries.csv" \
    "$tmp/queries.zst" &&
    etlreport -q -f csv --table queries_total -o "$out/queries_total.csv" \
    "$tmp/queries.zst" &&
    etlreport -q -f csv --table queries_artifacts \
    -o "$out/queries_artifacts.csv" "$tmp/queries.zst" &&
    etlreport -q -f folded -o "$out/queries.folded" "$tmp/stacks.zst" &&
    etlreport -q -f svg --title "rustc query stacks of $(basename "$dir")" \
    -o "$out/queries.svg" "$tmp/stacks.zst" &&
    etlreport -q -f chrome -o "$out/queries.chrome.json" "$tmp/profiles.zst" ||
    die "etlreport failed"
for f in profile_queries.counts.txt profile_queries.html queries.csv \
    queries_total.csv queries_artifacts.csv queries.folded queries.svg \
    queries.chrome.json; do
	echo "$out/$f"
done
note=$(etlreport -q -f text --table queries_total "$tmp/queries.zst" \
    2>/dev/null | sed -n 's/^note: computed from lossy input: //p' | tail -1)
[ -z "$note" ] || echo "rustc-queries.sh: $dir: the files are computed" \
    "from lossy input: $note" >&2
exit $status
