#!/bin/sh
# Each tool's usage line (--help) says what its manual's SYNOPSIS says.

. "$(dirname "$0")/../testlib.sh"

if ! command -v mandoc >/dev/null; then
	skip help-synopsis "mandoc is not installed"
	exit 0
fi
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
done
