#!/bin/sh
# many-traces.sh - one table over many traces: map an etlagg view over
# each trace apart, in parallel, then reduce the tables with
# `etlagg --merge`.  The result is the table that one run over all the
# traces gives (etlcat *.etl | etlagg VIEW), but the work is spread over
# the cores of this machine, or of several machines, and no process ever
# holds more than one trace's table and the merged table.
#
# Usage: many-traces.sh [-j jobs] [-S sshlogin] [-F filter] [-f format]
#                       [-o file] view [view-options] -- trace ...
#        (with no trace after --, the traces are read from the standard
#        input, one name a line, as `find ... | many-traces.sh cpu --`)
#   -j jobs     jobs at once on each machine (GNU parallel's -j: a number,
#               or 100% for one per core, the default)
#   -S sshlogin run jobs on other machines too (GNU parallel's
#               --sshlogin, may be repeated): [user@]host, N/host for N
#               jobs there, ':' for this machine.  The traces are copied
#               to each host with rsync (to the same path when absolute,
#               under the login directory when relative) and removed
#               after; the tables come back over ssh.  The hosts need
#               etlcat and etlagg (and etlfilter with -F) on their PATH.
#   -F filter   etlfilter options applied to each trace first, as one
#               word-split string: -F '--rustc' or -F '-p rustc'
#   -f format   render the merged table with etlreport -f format
#               (csv, text, folded, ...) instead of writing the stream
#   -o file     where to write it (default: the standard output)
#   -h, --help  this text
#
# Examples:
#   many-traces.sh -o cpu.zst cpu --by stack -- ci/*.etl
#   many-traces.sh -f csv -o procs.csv processes -- ci/*.etl
#   many-traces.sh -j 2 -S : -S 8/build1 -S 8/build2 -f folded \
#       cpu --by stack -- /nfs/traces/*.etl > all.folded
#
# A table written as CSV loads into DuckDB as it is:
#   SELECT * FROM read_csv_auto('procs.csv');
# and into Spark: spark.read.csv('procs.csv', header=True, inferSchema=True)
#
# A trace whose job fails (an unreadable trace, a lost host) is reported
# and left out of the merge; the others are still merged, and the exit
# status is then 1.  Warnings of each job (a lossy trace) are shown
# after the map, and how many traces were lossy again at the end.  What
# a trace lost is said once, by the etlcat that decodes it, naming the
# trace: the later stages take -q, which drops that line (the tables
# still carry it) but not the errors.
#
# The tools are taken from PATH, or from the bin/ beside this script.

prog=many-traces.sh

usage() {
	cat >&2 <<EOF
usage: $prog [-j jobs] [-S sshlogin] [-F filter] [-f format]
                      [-o file] view [view-options] -- trace ...
EOF
	exit 2
}

die() {
	echo "$prog: $*" >&2
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

# Quotes $1 for a shell: the command line parallel gives to sh.
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

here=$(CDPATH= cd "$(dirname "$0")" && pwd)
PATH=$PATH:$here/../bin
jobs=100%
logins=
remote=0
filter=
format=
output=
want_help "$@"
while getopts hj:S:F:f:o: opt; do
	case $opt in
	h)	help ;;
	j)	jobs=$OPTARG ;;
	S)	logins="$logins --sshlogin $(quote "$OPTARG")"
		# Traces go only to other hosts: ':' is this machine.
		for l in $(echo "$OPTARG" | tr ',' ' '); do
			case ${l#*/} in
			:)	;;
			*)	remote=1 ;;
			esac
		done ;;
	F)	filter=$OPTARG ;;
	f)	format=$OPTARG ;;
	o)	output=$OPTARG ;;
	*)	usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
command -v parallel >/dev/null 2>&1 ||
    die "GNU parallel is needed (apt-get install parallel)"

# The view and its options, up to --; the traces after it.
view=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	view="$view $(quote "$1")"
	shift
done
[ -n "$view" ] || usage
[ $# -gt 0 ] && shift

work=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# The job: one trace to one table, written to the job's standard output,
# which parallel keeps in $work/N (its standard error in $work/N.err).
job="etlcat {}"
if [ -n "$filter" ]; then
	fargs=
	for w in $filter; do
		fargs="$fargs $(quote "$w")"
	done
	job="$job | etlfilter -q$fargs"
fi
job="$job | etlagg -q -f$view"

transfer=
[ $remote = 1 ] && transfer="--transferfile {} --cleanup"
if [ $# -gt 0 ]; then
	printf '%s\n' "$@"
else
	cat
fi | eval parallel --will-cite --no-notice -j "$(quote "$jobs")" \
    "$logins" "$transfer" --results "$(quote "$work/{#}")" \
    --joblog "$(quote "$work/log")" "$(quote "$job")"
status=$?

# Each job's warnings, then the jobs that failed.  The joblog's columns:
# Seq Host Starttime JobRuntime Send Receive Exitval Signal Command.
tables=
lossy=0
for err in "$work"/*.err; do
	[ -s "$err" ] && cat "$err" >&2
	grep -q ': lossy input: ' "$err" 2>/dev/null && lossy=$((lossy + 1))
done
failed=$(awk -F'\t' 'NR > 1 && ($7 != 0 || $8 != 0) { print $1 }' \
    "$work/log" 2>/dev/null)
for n in $(awk -F'\t' 'NR > 1 { print $1 }' "$work/log" | sort -n); do
	if [ -s "$work/$n" ] && ! printf '%s\n' $failed | grep -qx "$n"; then
		tables="$tables $work/$n"
	fi
done
[ -n "$failed" ] || [ $status -eq 0 ] || failed=parallel
if [ -n "$failed" ]; then
	echo "$prog: $(printf '%s\n' $failed | wc -l | tr -d ' ') of" \
	    "$(($(wc -l <"$work/log") - 1)) traces failed and are left out" \
	    "(see above)" >&2
	status=1
fi
[ -n "$tables" ] || die "no table to merge"

# The reduce.  The tables are named in the order of the traces, so that
# the merge reads them as one run over all the traces would.
reduce="etlagg -q --merge -f$view$tables"
if [ -n "$format" ]; then
	reduce="$reduce | etlreport -q -f $(quote "$format")"
	[ -n "$output" ] && reduce="$reduce -o $(quote "$output")"
elif [ -n "$output" ]; then
	reduce="$reduce -o $(quote "$output")"
fi
eval "$reduce" || exit 1
[ $lossy -eq 0 ] || echo "$prog: $lossy of $(($(wc -l <"$work/log") - 1))" \
    "traces are lossy input (above): the table is computed from what" \
    "they hold" >&2
exit $status
