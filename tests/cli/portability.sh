#!/bin/sh
# Every source file compiles for Windows with mingw-w64 (the POSIX-only
# calls stay behind _WIN32 in lib/base/platform.c).  The libraries'
# headers are taken from the build machine; linking needs their Windows
# builds, which this test does not have.

. "$(dirname "$0")/../testlib.sh"

cc=x86_64-w64-mingw32-gcc
if ! command -v $cc >/dev/null; then
	skip mingw "no $cc (apt-get install gcc-mingw-w64-x86-64)"
	exit 0
fi
for h in zstd.h zstd_errors.h csv.h pcre2.h mspack.h curl/curl.h; do
	f=$(echo '#include <'$h'>' | cc -E -M -x c - 2>/dev/null |
	    tr ' ' '\n' | grep "/$h\$" | head -1)
	[ -n "$f" ] || { skip mingw "no $h"; exit 0; }
	# curl.h comes with the other headers of its directory.
	case $h in
	*/*) mkdir -p "$tmp/${h%/*}" && cp "${f%/*}"/*.h "$tmp/${h%/*}/" ;;
	*) cp "$f" "$tmp/" ;;
	esac
done
# libxlsxwriter's headers, when here: render_xlsx.c compiles for Windows
# with them, as the Windows build has it (.ci/windows-deps.sh builds the
# library), and without them, as a build without the library
# (-DETL_NO_XLSX) has it; that way is checked below.
xlsx=-DETL_NO_XLSX
if [ -f /usr/include/xlsxwriter.h ] && [ -d /usr/include/xlsxwriter ]; then
	cp /usr/include/xlsxwriter.h "$tmp/" &&
	    cp -r /usr/include/xlsxwriter "$tmp/" && xlsx=
fi
if $cc -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror -DETL_NO_XLSX \
    -I"$ETL_TOP/lib" -I"$tmp" -fsyntax-only \
    "$ETL_TOP/lib/render/render_xlsx.c" "$ETL_TOP/lib/report/formats.c" \
    2>"$tmp/err"; then
	pass mingw-no-xlsx
else
	fail mingw-no-xlsx "$(head -c 400 "$tmp/err")"
fi
for src in "$ETL_TOP"/lib/*/*.c "$ETL_TOP"/tools/*.c; do
	if $cc -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror \
	    -DPCRE2_CODE_UNIT_WIDTH=8 $xlsx -I"$ETL_TOP/lib" -I"$tmp" \
	    -fsyntax-only "$src" 2>"$tmp/err"; then
		pass "mingw-$(basename "$src")"
	else
		fail "mingw-$(basename "$src")" "$(head -c 400 "$tmp/err")"
	fi
done
