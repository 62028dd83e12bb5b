#!/bin/sh
# windows-deps.sh - zstd, PCRE2, libcsv, libmspack, zlib and
# libxlsxwriter built as static libraries for 64-bit Windows with
# mingw-w64, from Debian's source packages (`apt-get source`; nothing
# else is downloaded).  `make windows` runs it.
#
# Usage: sh .ci/windows-deps.sh DIR [CC [AR]]
#
# Leaves DIR/include/{zstd.h,zstd_errors.h,pcre2.h,csv.h,mspack.h,
# zlib.h,zconf.h,xlsxwriter.h,xlsxwriter/} and DIR/lib/{libzstd.a,
# libpcre2-8.a,libcsv.a,libmspack.a,libz.a,libxlsxwriter.a}; the sources
# stay in DIR/src.
# What is already there is kept, so only the first run fetches and
# builds (a minute or so on two cores).  `apt-get source` needs deb-src
# lines in the APT sources: as root, or through sudo that needs no
# password, this script adds them (to the deb822 .sources files and to
# sources.list) and refreshes the lists; otherwise it says what to do.
# dpkg-dev unpacks the sources.  Every message goes to standard error:
# fetch() is called as $(fetch ...), and what it prints on standard
# output is taken for the path of the sources.

set -e
# cd prints the directory it finds through CDPATH, into $(cd ... && pwd).
unset CDPATH
dir=${1:?usage: windows-deps.sh DIR [CC [AR]]}
cc=${2:-x86_64-w64-mingw32-gcc}
ar=${3:-x86_64-w64-mingw32-ar}
jobs=2
me=windows-deps

die() {
	echo "$me: $*" >&2
	exit 1
}

command -v "$cc" >/dev/null 2>&1 ||
    die "no $cc (apt-get install gcc-mingw-w64-x86-64)"
mkdir -p "$dir/src" "$dir/include" "$dir/lib" "$dir/obj"
dir=$(cd "$dir" && pwd)

# Whether the package lists know source package $1.
has_source() {
	apt-cache showsrc "$1" 2>/dev/null | grep -q '^Version:'
}

# Adds deb-src beside the deb sources of Debian's archive and refreshes
# the package lists.  Other sources (a vendor's packages) are left alone:
# many publish no sources, and a deb-src line that fails would fail every
# later apt-get update on this machine.
enable_deb_src() {
	if [ "$(id -u)" = 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=sudo
	else
		die "apt-get source needs deb-src lines in" \
		    "/etc/apt/sources.list.d/*.sources (Types: deb deb-src) or" \
		    "sources.list; add them, run apt-get update, and try again"
	fi
	echo "$me: enabling deb-src in the APT sources" >&2
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && grep -q '^URIs:.*debian' "$f" &&
		    $sudo sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
	done
	f=/etc/apt/sources.list
	if [ -f "$f" ] && ! grep -q '^deb-src ' "$f"; then
		sed -n 's/^deb \(.*debian.*\)/deb-src \1/p' "$f" |
		    $sudo tee -a "$f" >/dev/null
	fi
	# A source that cannot be reached fails the update but not the
	# others: whether the lists now hold the package is what counts.
	$sudo apt-get update -qq </dev/null >/dev/null ||
	    echo "$me: apt-get update failed (above)" >&2
}

# Unpacks source package $1 into $dir/src (once) and prints its
# directory.  The newest version is tried first, then the older ones:
# a mirror may lack the source of a security update.
fetch() {
	found=$(ls -d "$dir/src/$1"-[0-9]*/ 2>/dev/null | head -1)
	if [ -n "$found" ]; then
		echo "${found%/}"
		return
	fi
	command -v dpkg-source >/dev/null 2>&1 ||
	    die "dpkg-source is needed to unpack sources (apt-get install dpkg-dev)"
	if ! has_source "$1"; then
		enable_deb_src >&2
		has_source "$1" || die "$1: no source package in the APT" \
		    "lists, even with deb-src lines"
	fi
	for v in $(apt-cache showsrc "$1" | sed -n 's/^Version: //p' |
	    sort -r -V); do
		echo "$me: apt-get source $1=$v" >&2
		if (cd "$dir/src" && apt-get source -qq "$1=$v" \
		    </dev/null >/dev/null 2>&1); then
			found=$(ls -d "$dir/src/$1"-[0-9]*/ | head -1)
			echo "${found%/}"
			return
		fi
	done
	die "apt-get source $1 failed"
}

# Compiles the C files given after `--` into archive $1, two at a time.
archive() {
	lib=$1
	obj=$dir/obj/${lib%.a}
	shift
	flags=""
	while [ "$1" != -- ]; do
		flags="$flags $1"
		shift
	done
	shift
	mkdir -p "$obj"
	printf '%s\n' "$@" | xargs -P $jobs -I{} sh -c \
	    'o="$0/$(basename "$1" .c).o"; exec "$2" $3 -c -o "$o" "$1"' \
	    "$obj" {} "$cc" "-O2 $flags"
	rm -f "$dir/lib/$lib"
	"$ar" rcs "$dir/lib/$lib" "$obj"/*.o
	echo "$me: built $lib" >&2
}

if [ ! -f "$dir/lib/libzstd.a" ]; then
	src=$(fetch libzstd)
	[ -d "$src" ] ||
	    die "libzstd: no source directory (${src:-nothing} came back)"
	# Single-threaded, as the Linux tools use it; the Huffman assembly
	# is ELF-only, so the C decoder is used.
	archive libzstd.a -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 \
	    -DXXH_NAMESPACE=ZSTD_ -I"$src/lib" -I"$src/lib/common" -- \
	    "$src"/lib/common/*.c "$src"/lib/compress/*.c \
	    "$src"/lib/decompress/*.c
	cp "$src/lib/zstd.h" "$src/lib/zstd_errors.h" "$dir/include/"
fi

if [ ! -f "$dir/lib/libpcre2-8.a" ]; then
	src=$(fetch pcre2)
	[ -d "$src" ] ||
	    die "pcre2: no source directory (${src:-nothing} came back)"
	# The build without autotools that PCRE2's NON-AUTOTOOLS-BUILD
	# describes, with Unicode and the JIT as in Debian's build.
	gen=$dir/obj/pcre2-generated
	mkdir -p "$gen"
	cp "$src/src/config.h.generic" "$gen/config.h"
	cp "$src/src/pcre2.h.generic" "$gen/pcre2.h"
	cp "$src/src/pcre2_chartables.c.dist" "$gen/pcre2_chartables.c"
	set --
	for f in auto_possess compile config context convert dfa_match \
	    error extuni find_bracket jit_compile maketables match \
	    match_data newline ord2utf pattern_info script_run serialize \
	    string_utils study substitute substring tables ucd valid_utf \
	    xclass; do
		set -- "$@" "$src/src/pcre2_$f.c"
	done
	archive libpcre2-8.a -DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 \
	    -DPCRE2_STATIC -DSUPPORT_UNICODE -DSUPPORT_JIT -I"$gen" \
	    -I"$src/src" -- "$@" "$gen/pcre2_chartables.c"
	cp "$gen/pcre2.h" "$dir/include/"
fi

if [ ! -f "$dir/lib/libcsv.a" ]; then
	src=$(fetch libcsv)
	[ -d "$src" ] ||
	    die "libcsv: no source directory (${src:-nothing} came back)"
	archive libcsv.a -I"$src" -- "$src/libcsv.c"
	cp "$src/csv.h" "$dir/include/"
fi

if [ ! -f "$dir/lib/libmspack.a" ]; then
	src=$(fetch libmspack)
	[ -d "$src" ] ||
	    die "libmspack: no source directory (${src:-nothing} came back)"
	# The CAB reader and its three decompressors, all etlsym uses, with
	# the library's own file I/O (system.c) and no config.h: its
	# defaults suit mingw-w64.
	archive libmspack.a -D_FILE_OFFSET_BITS=64 -I"$src/mspack" -- \
	    "$src/mspack/cabd.c" "$src/mspack/system.c" \
	    "$src/mspack/mszipd.c" "$src/mspack/qtmd.c" "$src/mspack/lzxd.c"
	cp "$src/mspack/mspack.h" "$dir/include/"
fi

if [ ! -f "$dir/lib/libz.a" ]; then
	src=$(fetch zlib)
	[ -d "$src" ] ||
	    die "zlib: no source directory (${src:-nothing} came back)"
	# What win32/Makefile.gcc builds: every C file of the top folder.
	archive libz.a -I"$src" -- "$src"/*.c
	cp "$src/zlib.h" "$src/zconf.h" "$dir/include/"
fi

if [ ! -f "$dir/lib/libxlsxwriter.a" ]; then
	src=$(fetch libxlsxwriter)
	[ -d "$src" ] ||
	    die "libxlsxwriter: no source directory (${src:-nothing} came back)"
	# Its own copies of minizip (zip.c, ioapi.c: the fopen64 family,
	# which mingw-w64 has, so zip64 workbooks past 2 GiB are written,
	# not USE_FILE32API as upstream's MinGW build), tmpfileplus (the
	# temporary files of constant memory mode, in %TMP%: the C library's
	# tmpfile() makes them in the root of the drive, which a user may not
	# write) and md5, as its default build has them.  mingw's own printf
	# writes the numbers, as glibc's on Linux, so that both builds write
	# the same digits.
	archive libxlsxwriter.a -D__USE_MINGW_ANSI_STDIO=1 -DNOCRYPT \
	    -DNOUNCRYPT -I"$src/include" -I"$dir/include" -- \
	    "$src"/src/*.c "$src/third_party/minizip/zip.c" \
	    "$src/third_party/minizip/ioapi.c" \
	    "$src/third_party/tmpfileplus/tmpfileplus.c" \
	    "$src/third_party/md5/md5.c"
	cp -R "$src/include/xlsxwriter.h" "$src/include/xlsxwriter" \
	    "$dir/include/"
fi
