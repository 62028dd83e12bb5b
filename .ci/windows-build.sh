#!/bin/sh
# windows-build.sh - for make check: the Windows build that
# tests/cli/windows.sh runs under wine (`make windows`, and `make
# dist-windows` for its zip).  All its messages go to standard error.
#
# Usage: sh .ci/windows-build.sh MAKE DIR CC AR
#   (from the top of the tree: the make to run, then what `make windows`
#   gives .ci/windows-deps.sh)
#
# Without mingw-w64 or wine nothing is built: the tests say which package
# to install.  The libraries come from Debian's source packages
# (.ci/windows-deps.sh); where they cannot be had (not root and no
# deb-src lines, no network) the wine tests skip and this says why.  Once
# they are built, a tool that does not build is a failure.  .ci/run
# builds the same before make check and fails where apt works but the
# libraries cannot be had.

make=${1:?usage: windows-build.sh MAKE DIR CC AR}
dir=$2
cc=$3
ar=$4
me=windows-build

command -v "$cc" >/dev/null 2>&1 && command -v wine >/dev/null 2>&1 ||
    exit 0
if ! sh .ci/windows-deps.sh "$dir" "$cc" "$ar"; then
	echo "$me: no Windows libraries (above), so no Windows build: the" \
	    "wine tests skip" >&2
	exit 0
fi
"$make" --no-print-directory windows || exit 1
# The zip holds the manual as HTML.
if command -v mandoc >/dev/null 2>&1 && command -v zip >/dev/null 2>&1; then
	"$make" --no-print-directory dist-windows || exit 1
else
	echo "$me: no mandoc or zip, so no make dist-windows: its test" \
	    "skips" >&2
fi
