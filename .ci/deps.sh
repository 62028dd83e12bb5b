#!/bin/sh
# Installs what the build needs and is missing: a C compiler, make,
# pkg-config, and the development files of zstd, PCRE2, libcsv, libmspack
# (CAB-compressed PDBs) and libcurl (symbol servers).
# Uses apt-get when it can (as root, or through sudo); otherwise it says
# exactly what to install.

need=""
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v zstd >/dev/null 2>&1 || need="$need zstd"
for pkg in libzstd-dev libpcre2-dev libcsv-dev libmspack-dev \
    libcurl4-openssl-dev; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
	    grep -q 'install ok installed' || need="$need $pkg"
done
[ -z "$need" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo"
else
	echo "deps: missing:$need" >&2
	echo "deps: install them with: sudo apt-get install$need" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing:$need (no apt-get here; install the equivalents)" >&2
	exit 1
fi
echo "deps: installing$need"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq </dev/null >/dev/null &&
    $sudo apt-get install -y -qq $need </dev/null >/dev/null || {
	echo "deps: apt-get install$need failed" >&2
	exit 1
}
