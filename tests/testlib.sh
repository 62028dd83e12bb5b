# Helpers for the CLI tests: verdict lines and a scratch directory.
# Sourced by tests/cli/*.sh, which tests/run.sh runs with bin/ on PATH.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$2', expected '$3'"
	fi
}

# CSV rows end in CRLF (RFC 4180); shell tools want LF.
csv_lf() { tr -d '\r'; }

# same_file NAME FILE1 FILE2: FILE1 is not empty and equals FILE2.
same_file() {
	if [ ! -s "$2" ]; then
		fail "$1" "$2 is empty or missing"
	elif cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(cmp "$2" "$3" 2>&1 | head -1)"
	fi
}

# The first $1 fields of each CSV line (quotes respected; one line a row).
csv_first() {
	awk -v n="$1" '{
		q = 0; f = 0; len = length($0)
		for (i = 1; i <= len; i++) {
			c = substr($0, i, 1)
			if (c == "\"") q = !q
			else if (c == "," && !q && ++f == n) break
		}
		print substr($0, 1, i - 1)
	}'
}

# agree NAME HOW1 HOW2: the verdict on two runs that must agree, their
# exit statuses in $one and $two, their output and messages in
# $tmp/one.st, $tmp/one.err, $tmp/two.st and $tmp/two.err.
agree() {
	if [ "$one" != "$two" ]; then
		fail "$1" "exit $one $2, $two $3"
	elif ! cmp -s "$tmp/one.st" "$tmp/two.st"; then
		fail "$1" "the outputs differ"
	elif ! cmp -s "$tmp/one.err" "$tmp/two.err"; then
		fail "$1" "the messages differ: $(diff "$tmp/one.err" \
		    "$tmp/two.err" | head -3 | tr '\n' ' ')"
	else
		pass "$1"
	fi
}

# cut_trace FROM TO: FROM cut inside a buffer, two thirds of the way.
cut_trace() {
	head -c $(($(wc -c <"$1") * 2 / 3 + 1000)) "$1" >"$2"
}

# damage_trace FROM TO AT: FROM with 8 bytes of 0xff at offset AT.
damage_trace() {
	cp "$1" "$2"
	printf '\377\377\377\377\377\377\377\377' | dd of="$2" \
	    bs=1 seek="$3" conv=notrunc 2>/dev/null
}

# make_cab FILE CAB NAME: CAB, a cabinet holding FILE stored (not
# compressed) as NAME, as symbol stores keep a .pd_; needs python3.
make_cab() {
	command -v python3 >/dev/null || return 1
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
blocks = [data[i:i + 32768] for i in range(0, len(data), 32768)]
name = sys.argv[3].encode() + b'\0'
files_at = 36 + 8
data_at = files_at + 16 + len(name)
total = data_at + sum(8 + len(b) for b in blocks)
out = struct.pack('<4sIIIIIBBHHHHH', b'MSCF', 0, total, 0, files_at, 0, 3, 1,
    1, 1, 0, 0, 0)
out += struct.pack('<IHH', data_at, len(blocks), 0)
out += struct.pack('<IIHHHH', len(data), 0, 0, 0x5821, 0, 0x20) + name
for b in blocks:
	out += struct.pack('<IHH', 0, len(b), len(b)) + b
open(sys.argv[2], 'wb').write(out)
PY
}

# wine_start PREFIX: wine set up to run the Windows build, in a prefix of
# our own (made once, some seconds, and kept with the build; no Mono or
# Gecko installer, no debug chatter), with one wineserver for the whole
# test, stopped at the end: a server that is shutting down as the next
# program starts can lose that program.  It persists without a timeout:
# under a sanitizer build the Linux steps between two wine programs can
# take long enough for a timed server to begin shutting down.  Returns 1,
# with the reason in $wine_error, when wine cannot run a program.
wine_start() {
	export WINEPREFIX="${WINEPREFIX:-$1}"
	export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	wineserver=$(command -v wineserver 2>/dev/null ||
	    echo /usr/lib/wine/wineserver)
	if [ -x "$wineserver" ]; then
		# The server of the test before, stopped at its end, may
		# still be going away: wait until it has, then start ours.
		"$wineserver" -k 2>/dev/null
		"$wineserver" -w 2>/dev/null
		"$wineserver" -p 2>/dev/null
		trap '"$wineserver" -k 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
	fi
	if ! wine "$ETL_TOP/build-windows/bin/etlcat.exe" --version \
	    >"$tmp/wine.out" 2>&1; then
		wine_error=$(head -c 200 "$tmp/wine.out")
		return 1
	fi
}

# find_openpyxl: sets $py to a python3 that has openpyxl (Debian's
# python3-openpyxl), which reads xlsx workbooks back; returns 1 when none
# has it.
find_openpyxl() {
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import openpyxl' >/dev/null 2>&1 && return 0
	done
	py=
	return 1
}

# Headless Chromium, for the tests that draw pages as a user would: a
# test page loads an output in a frame, acts on it once it has loaded
# and leaves what it saw in its DOM, which Chromium dumps.
# find_browser: sets $browser, or returns 1 (skip: apt-get install
# chromium).  Chromium refuses to run as root with its sandbox (as in a
# chroot or a container); for another user it keeps it.
find_browser() {
	browser=$(command -v chromium || command -v chromium-browser ||
	    command -v google-chrome) || return 1
	sandbox=
	[ "$(id -u)" = 0 ] && sandbox=--no-sandbox
	return 0
}
chromium_dom() {
	timeout 120 "$browser" --headless $sandbox --disable-gpu \
	    --disable-background-networking --disable-component-update \
	    --disable-sync --no-first-run --user-data-dir="$tmp/profile" \
	    --allow-file-access-from-files --virtual-time-budget=10000 \
	    --dump-dom "file://$1" 2>/dev/null
}
# test_page NAME SRC ATTRS: writes test page $tmp/NAME, a frame of SRC
# (attributes ATTRS) and, once it has loaded, the script on standard
# input, with d its document, w its window and ms the milliseconds it
# took to load; what the script leaves in `out` becomes data-out.
test_page() {
	{
		printf '<!DOCTYPE html><html><body><iframe id="f" src="%s" ' "$2"
		printf '%s></iframe><script>\n' "$3"
		printf 'var t0 = performance.now();\n'
		printf "document.getElementById('f').onload = function () {\n"
		printf '  var d = this.contentDocument, w = this.contentWindow;\n'
		printf '  var out, ms = performance.now() - t0;\n  try {\n'
		cat
		printf '  } catch (e) { out = "error " + e; }\n'
		printf "  document.body.setAttribute('data-out', out);\n};\n"
		printf '</script></body></html>\n'
	} >"$tmp/$1"
}
# What test page NAME saw.
seen() {
	chromium_dom "$tmp/$1" | grep -o 'data-out="[^"]*"' |
	    sed 's/^data-out="//; s/"$//'
}

