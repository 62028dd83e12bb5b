#!/bin/sh
# deps.sh - installs what is missing with apt-get when it can (as root,
# or through sudo that needs no password); otherwise it prints the exact
# `apt-get install` line to run.  All its messages go to standard error.
#
# Usage: sh .ci/deps.sh           what the build needs (make demo)
#        sh .ci/deps.sh --tests   the tools only the tests run (make check)
#        sh .ci/deps.sh --fuzz    clang and its libFuzzer (make fuzz)
#
# The build needs a C compiler, make, pkg-config, zstd and the
# development files of zstd, PCRE2, libcsv, libmspack (CAB-compressed
# PDBs), libcurl (symbol servers) and libxlsxwriter (etlreport -f xlsx;
# make XLSX=no builds without it), with zlib's, which its pkg-config
# file links (-lz) but its package does not bring: without them nothing builds, so
# this exits 1 when one is missing and cannot be installed.  A test
# whose tool is missing skips, naming the package, so with --tests this
# says what it could not install and exits 0; so does --fuzz, whose
# caller (.ci/run) skips make fuzz, saying so.

me=deps
case ${1:-} in
--tests)	mode=tests ;;
--fuzz)		mode=fuzz ;;
*)		mode=build ;;
esac

# What is missing, as Debian package names.
need=""
if [ $mode = build ]; then
	command -v cc >/dev/null 2>&1 || need="$need gcc"
	command -v make >/dev/null 2>&1 || need="$need make"
	command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
	command -v zstd >/dev/null 2>&1 || need="$need zstd"
	for pkg in libzstd-dev libpcre2-dev libcsv-dev libmspack-dev \
	    libcurl4-openssl-dev libxlsxwriter-dev zlib1g-dev; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		    grep -q 'install ok installed' || need="$need $pkg"
	done
elif [ $mode = fuzz ]; then
	# Whether clang links a libFuzzer target, which needs its runtime
	# (libclang-rt-14-dev on Debian 12) beside the compiler.
	probe=$(mktemp) || exit 1
	printf '%s\n' \
	    'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	    clang -fsanitize=fuzzer -x c -o "$probe" - >/dev/null 2>&1 ||
	    need=" clang libclang-rt-14-dev"
	rm -f "$probe"
else
	# The tools the tests look for, as they look for them (any of the
	# commands before the package will do): a python3 or a rustc
	# installed another way is used as it is.  Who runs them:
	# mandoc: --help against the manual pages (help.sh, filter.sh, which
	#   needs col too), and the manual as HTML in make dist-windows;
	# chromium: draws the svg and html outputs and clicks them (render.sh),
	#   and runs speedscope's web app (speedscope.sh);
	# xmllint: the svg is XML (render.sh), the WPR profile valid (wprp.sh);
	# parallel: pipelines/many-traces.sh (many.sh);
	# time: /usr/bin/time measures peak memory (many.sh, onepass.sh);
	# python3: crox's JSON (queries.sh), a CAB and an HTTP server
	#   (sym-stream.sh), fuzz seeds (tests/fuzz/*.seeds);
	# rustc: self-profiles recorded here (queries.sh);
	# python3-openpyxl: reads the xlsx workbooks back (xlsx.sh);
	# libreoffice-calc-nogui: opens the CSV with formulas evaluated
	#   (spreadsheet.sh);
	# nodejs, npm: DuckDB's Node API from npm (.ci/npm.sh), which loads
	#   the CSV tables (duckdb.sh, many.sh), and speedscope, puppeteer-core
	#   and ajv (speedscope.sh);
	# mingw-w64: every source compiles for Windows (portability.sh), and
	#   the Windows build that wine runs (windows.sh), whose libraries
	#   dpkg-dev unpacks from Debian's sources (.ci/windows-deps.sh) and
	#   whose zip (make dist-windows) zip packs.
	need=$(while read -r cmds pkg; do
		found=no
		for c in $(echo "$cmds" | tr '|' ' '); do
			command -v "$c" >/dev/null 2>&1 && found=yes
		done
		[ $found = yes ] || printf ' %s' "$pkg"
	done <<'EOF'
mandoc                  mandoc
col                     bsdextrautils
chromium|chromium-browser|google-chrome chromium
xmllint                 libxml2-utils
parallel                parallel
/usr/bin/time           time
python3                 python3
rustc                   rustc
soffice|localc          libreoffice-calc-nogui
node                    nodejs
npm                     npm
x86_64-w64-mingw32-gcc  gcc-mingw-w64-x86-64
wine                    wine wine64
dpkg-source             dpkg-dev
zip                     zip
EOF
)
	# A module, not a command: the python3 the tests run, or Debian's.
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import openpyxl' >/dev/null 2>&1 && break
		[ "$py" = /usr/bin/python3 ] && need="$need python3-openpyxl"
	done
fi
[ -z "$need" ] && exit 0

# Says what is missing and what to do ($*); fatal for the build, a note
# for the others.
missing() {
	case $mode in
	build)	echo "$me: missing:$need" >&2 ;;
	tests)	echo "$me: the tests need:$need (without them, the tests" \
		    "that use them skip)" >&2 ;;
	fuzz)	echo "$me: make fuzz needs:$need" >&2 ;;
	esac
	echo "$me: $*" >&2
	[ $mode = build ] && exit 1
	exit 0
}

if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo"
else
	missing "install them with: sudo apt-get install$need"
fi
command -v apt-get >/dev/null 2>&1 ||
    missing "there is no apt-get here: install the equivalents"

# env passes the setting through sudo, which clears the environment.
apt_get() {
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get "$@" \
	    </dev/null >/dev/null
}

echo "$me: installing$need" >&2
# A source that cannot be reached fails the update, not the install of
# what the others hold.
apt_get update -qq || echo "$me: apt-get update failed (above)" >&2
apt_get install -y -qq $need && exit 0
[ $mode = build ] && missing "apt-get install$need failed"
# One package that cannot be had must not cost the tests the others.
left=""
for pkg in $need; do
	apt_get install -y -qq "$pkg" || left="$left $pkg"
done
[ -z "$left" ] && exit 0
need=$left
missing "apt-get install$need failed"
