#!/bin/sh
# Each tool's usage line (--help) says what its manual's SYNOPSIS says,
# and --help lists the same options as the manual: every option of the
# tool, and for etlagg every view with its options.

. "$(dirname "$0")/../testlib.sh"

if ! command -v mandoc >/dev/null; then
	skip help-synopsis "no mandoc (apt-get install mandoc)"
	exit 0
fi

# The options a --help text lists: the first words of its option lines
# ("  -i, --ignore-case  ..."), one a line, sorted.
help_options() {
	sed -n '/^ *-/p' | sed 's/^ *//; s/  .*//' | tr ',' '\n' |
	    sed 's/^ *//; s/ .*//' | grep '^-' | LC_ALL=C sort -u
}

# The options a manual lists in its option list (.It Fl ...), and
# -h, --help and --version where it says the tool accepts them.
man_options() {
	{
		grep '^\.It Fl' "$1" | sed 's/\\-/-/g' | tr ' ' '\n' |
		    awk 'p { print "-" $0 } { p = ($0 == "Fl") }'
		grep -o 'Fl \\-\(help\|version\)' "$1" | sed 's/Fl \\-/--/'
		grep -x '\.Fl h' "$1" | sed 's/\.Fl /-/'
	} | LC_ALL=C sort -u
}

for page in "$ETL_TOP"/man/*.1; do
	tool=$(basename "$page" .1)
	command -v "$tool" >/dev/null || { fail "help-$tool" "no $tool"; continue; }
	usage=$("$tool" --help | awk '/^usage:/ { p = 1 } p && /^(usage:| )/ {
	    print; next } { p = 0 }' | sed 's/^usage: //' | tr -s ' \n' '  ')
	synopsis=$(mandoc -Tascii "$page" | sed 's/.\x08//g' |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    tr -s ' \n' '  ')
	check_eq "help-$tool" "$(echo $usage)" "$(echo $synopsis)"
	"$tool" --help >/dev/null 2>&1 && pass "help-$tool-exit" ||
	    fail "help-$tool-exit" "--help did not exit 0"
	check_eq "help-$tool-options" \
	    "$("$tool" --help | grep -v '^usage:' | help_options | xargs)" \
	    "$(man_options "$page" | xargs)"
done

# etlagg's views: the same names, and each with the same options.
views_help=$(etlagg --help | sed -n 's/^  \([a-z]*\) .*/\1/p; s/^  \([a-z]*\)$/\1/p')
views_man=$(sed -n 's/^\.It Cm \([a-z]*\).*/\1/p' "$ETL_TOP/man/etlagg.1" |
    grep -v '^\(process\|stack\|function\|module\|query\)$')
check_eq help-etlagg-views "$(echo $views_help)" "$(echo $views_man)"
for view in $views_man; do
	in_help=$(etlagg --help | grep "^  $view\( \|$\)" |
	    grep -o -- '--[a-z-]*' | LC_ALL=C sort -u | xargs)
	in_man=$(grep "^\.It Cm $view\( \|$\)" "$ETL_TOP/man/etlagg.1" |
	    sed 's/Fl \\-/--/g' | grep -o -- '--[a-z-]*' | LC_ALL=C sort -u |
	    xargs)
	check_eq "help-etlagg-$view-options" "$in_help" "$in_man"
done
