#!/bin/sh
# etlsym on a stream: etlsynth --pdb makes a trace whose rustc_driver DLL
# has a real PDB's identity; through etlcat | etlsym -y DIR | etlagg cpu
# no frame of that DLL stays hexadecimal, the names are the PDB's
# procedures (inlined frames marked), and each procedure's inclusive
# samples are the manifest's.  Then the symbol path: the store layout, a
# CAB-compressed .pd_, a mismatched and a corrupt PDB, and a symbol
# server on the loopback interface with its cache.

. "$(dirname "$0")/../testlib.sh"

name=Native_x64_RustC_Rust_debuginfo2_v1.58.1
image=rustc_driver-6a4f21c5a1e9d7b3.dll
dir=${ETL_CORPUS:-../shared/corpus}/pdb

if ! command -v etlsynth >/dev/null; then
	skip sym-stream "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
if [ ! -f "$dir/$name.pdb" ] || [ ! -f "$dir/$name.oracle.tsv" ]; then
	skip sym-stream "no $name.pdb with its oracle in $dir"
	exit 0
fi
t=$tmp/t.etl
etlsynth --events 20000 --seed 3 --pdb "$image=$dir/$name.pdb" -o "$t" \
    2>"$tmp/err" && etlcat -q -o "$tmp/t.zst" "$t" 2>>"$tmp/err" ||
    { fail sym-stream-generate "$(cat "$tmp/err")"; exit 0; }
key=$(awk -F'\t' '$1 == "pdb" { g = toupper($3); gsub(/-/, "", g)
    printf "%s%X\n", g, $4 }' "$t.manifest.tsv")

mkdir "$tmp/flat"
cp "$dir/$name.pdb" "$tmp/flat/"
etlsym -y "$tmp/flat" -o "$tmp/s.zst" "$tmp/t.zst" 2>"$tmp/err"
check_eq sym-stream-status "$?" 0
grep -q "^etlsym: $image: $name.pdb $key: found $tmp/flat/$name.pdb ([1-9][0-9]* frames, \([1-9][0-9]*\) of \1 addresses named)$" "$tmp/err" &&
    grep -q "^etlsym: ntdll.dll: ntdll.pdb [0-9A-F]*: not found" "$tmp/err" &&
    pass sym-stream-summary || fail sym-stream-summary "$(cat "$tmp/err")"
etlsym -q -y "$tmp/flat" "$tmp/t.zst" 2>"$tmp/err" >/dev/null
check_eq sym-stream-quiet "$(cat "$tmp/err")" ""
etlagg cpu --by function <"$tmp/s.zst" | etlreport -f csv | csv_lf |
    awk -F, -v img="$image!" 'NR > 1 && index($0, img) { print }' \
    >"$tmp/functions"
n=$(wc -l <"$tmp/functions" | tr -d ' ')
hex=$(grep -c "$image!0x" "$tmp/functions")
if [ "$n" -gt 20 ] && [ "$hex" = 0 ]; then
	pass sym-stream-no-hex
else
	fail sym-stream-no-hex "$hex of $n frames hexadecimal"
fi

# Names and inclusive samples per procedure, against the manifest.  The
# function column may be quoted (names hold commas).
etlagg cpu --by function <"$tmp/s.zst" | etlreport -f jsonl |
    awk -v img="$image!" '{
	if (!match($0, /"function":"[^"]*"/)) next
	f = substr($0, RSTART + 12, RLENGTH - 13)
	if (index(f, img) != 1 || f ~ / \[inlined\]$/) next
	f = substr(f, length(img) + 1)
	match($0, /"inclusive":[0-9]+/)
	inc[f] += substr($0, RSTART + 12, RLENGTH - 12)
    } END { for (f in inc) print f "\t" inc[f] }' | sort >"$tmp/got"
awk -F'\t' '$1 == "symbol" && $6 > 0 { inc[$7] += $6 }
    END { for (f in inc) print f "\t" inc[f] }' "$t.manifest.tsv" |
    sort >"$tmp/want"
if [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want"; then
	pass sym-stream-names
else
	fail sym-stream-names "$(diff "$tmp/got" "$tmp/want" | head -6)"
fi
grep -q " \[inlined\]" "$tmp/functions" && pass sym-stream-inlined ||
    fail sym-stream-inlined "no inlined frame"

# The flame graph draws inlined frames, and only those, in blues.
etlagg cpu --by stack <"$tmp/s.zst" | etlreport -f svg -o "$tmp/s.svg"
grep '<g class="f">' "$tmp/s.svg" | awk '{
	inl = index($0, " [inlined] (") > 0
	blue = $0 ~ /fill="rgb\([0-9]+,[0-9]+,220\)"/
	if (inl) n++
	if (inl != blue) bad++
    } END { print n + 0, bad + 0 }' >"$tmp/svgcheck"
read -r n bad <"$tmp/svgcheck"
if [ "$n" -gt 0 ] && [ "$bad" = 0 ]; then
	pass sym-stream-svg-inlined
else
	fail sym-stream-svg-inlined "$n inlined frames, $bad colored wrongly"
fi

# etlagg images: the DLL found, with its frames.
etlagg images <"$tmp/s.zst" | etlreport -f csv | csv_lf >"$tmp/images"
grep -q "^$image,.*,$name.pdb,$key,found," "$tmp/images" &&
    pass sym-stream-images || fail sym-stream-images "$(head -3 "$tmp/images")"

# The symbol-store layout, and a compressed .pd_ (a CAB of one stored
# file, made here).
mkdir -p "$tmp/store/$name.pdb/$key" "$tmp/cab/$name.pdb/$key"
cp "$dir/$name.pdb" "$tmp/store/$name.pdb/$key/"
make_cab "$dir/$name.pdb" "$tmp/cab/$name.pdb/$key/$name.pd_" "$name.pdb" &&
    stores="store cab" || {
	stores=store
	skip sym-stream-cab "no python3 to make a CAB (apt-get install python3)"
}
for store in $stores; do
	etlsym -v -y "$tmp/$store" -o "$tmp/s2.zst" "$tmp/t.zst" 2>"$tmp/err"
	grep -q "^etlsym: $image: $name.pdb $key: found $tmp/$store/" \
	    "$tmp/err" && pass "sym-stream-$store" ||
	    fail "sym-stream-$store" "$(grep "$image" "$tmp/err")"
done

# A PDB of that name that is another: mismatched, said, exit 0.
mkdir "$tmp/other"
cp "$dir/crash.pdb" "$tmp/other/$name.pdb"
etlsym -y "$tmp/other" -o "$tmp/s3.zst" "$tmp/t.zst" 2>"$tmp/err"
check_eq sym-stream-mismatch-status "$?" 0
grep -q "^etlsym: $image: $name.pdb $key: mismatched $tmp/other/" \
    "$tmp/err" && grep -q "does not match the image" "$tmp/err" &&
    pass sym-stream-mismatch || fail sym-stream-mismatch "$(cat "$tmp/err")"

# A corrupt one: the message with an offset, status 1, the stream whole
# and the DLL's frames unnamed.
mkdir "$tmp/bad"
head -c 70000 "$dir/$name.pdb" >"$tmp/bad/$name.pdb"
etlsym -y "$tmp/bad" -o "$tmp/s4.zst" "$tmp/t.zst" 2>"$tmp/err"
check_eq sym-stream-corrupt-status "$?" 1
grep -q "^etlsym: $tmp/bad/$name.pdb: .*(offset 0x[0-9a-f]*)$" "$tmp/err" &&
    pass sym-stream-corrupt-message ||
    fail sym-stream-corrupt-message "$(cat "$tmp/err")"
etlagg cpu --by function <"$tmp/s4.zst" | etlreport -f csv |
    grep -q "$image!0x" && pass sym-stream-corrupt-unnamed ||
    fail sym-stream-corrupt-unnamed "frames named from a corrupt PDB"

# A symbol server on the loopback interface, serving the store tree:
# the PDB lands in the cache in store layout, and the cache serves the
# next run with the server gone.
if ! command -v python3 >/dev/null; then
	skip sym-stream-server "no python3 for a local HTTP server (apt-get \
install python3)"
	exit 0
fi
port=$(python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$tmp/cab" "$port" \
    >/dev/null 2>&1 &
server=$!
i=0
while ! python3 -c "import urllib.request
urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null &&
    [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
etlsym -y "srv*$tmp/cache*http://127.0.0.1:$port" -o "$tmp/s5.zst" \
    "$tmp/t.zst" 2>"$tmp/err"
st=$?
kill $server
wait $server 2>/dev/null
check_eq sym-stream-server-status "$st" 0
if [ -f "$tmp/cache/$name.pdb/$key/$name.pd_" ] &&
    ! ls "$tmp/cache/$name.pdb/$key/" | grep -q part; then
	pass sym-stream-server-cache
else
	fail sym-stream-server-cache "$(ls -R "$tmp/cache" 2>&1 | head -5)"
fi
etlsym -v -y "srv*$tmp/cache*http://127.0.0.1:$port" -o "$tmp/s6.zst" \
    "$tmp/t.zst" 2>"$tmp/err"
grep -q "^etlsym: $image: $name.pdb $key: found $tmp/cache/" "$tmp/err" &&
    pass sym-stream-server-cached ||
    fail sym-stream-server-cached "$(grep "$image" "$tmp/err")"

# A server that redirects to another scheme (here file://, at the PDB
# itself): not followed, said per image, nothing lands in the cache.
port=$(python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$port" "$dir/$name.pdb" >/dev/null 2>&1 <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
	def do_GET(self):
		self.send_response(302)
		self.send_header('Location', 'file://' + sys.argv[2])
		self.end_headers()
	def log_message(self, *a):
		pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
PY
server=$!
i=0
while ! python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" \
    2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
etlsym -y "srv*$tmp/cache2*http://127.0.0.1:$port" -o "$tmp/s7.zst" \
    "$tmp/t.zst" 2>"$tmp/err"
kill $server
wait $server 2>/dev/null
if grep -q "^etlsym: $image: $name.pdb $key: corrupt http://127.0.0.1:$port/" \
    "$tmp/err" && ! find "$tmp/cache2" -type f | grep -q .; then
	pass sym-stream-server-redirect
else
	fail sym-stream-server-redirect "$(grep -A1 "$image" "$tmp/err")"
fi
