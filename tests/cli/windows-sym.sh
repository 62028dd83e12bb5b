#!/bin/sh
# etlsym.exe (make windows) under wine, against the Linux etlsym:
# - `etlsym -e` on every corpus PDB's .addr.tsv addresses, byte for byte;
# - a stream symbolized from a symbol store, plain and as a CAB (.pd_);
# - a srv* path: the PDB downloaded through WinHTTP from a server on the
#   loopback interface into the cache, then read from the cache;
# - a PDB name from the trace that climbs out of its directory
#   (..\..\name.pdb): the requests and the cache hold only its last
#   component, as on Linux.
# Skips when wine, the Windows build or the corpus PDB is missing.

. "$(dirname "$0")/../testlib.sh"

win=$ETL_TOP/build-windows/bin
name=Native_x64_RustC_Rust_debuginfo2_v1.58.1
image=rustc_driver-6a4f21c5a1e9d7b3.dll
dir=${ETL_CORPUS:-../shared/corpus}/pdb

if ! command -v wine >/dev/null 2>&1; then
	skip windows-sym "no wine (apt-get install wine64 wine)"
	exit 0
fi
if [ ! -x "$win/etlsym.exe" ]; then
	skip windows-sym "no etlsym.exe (make windows, which needs \
gcc-mingw-w64-x86-64 and dpkg-dev)"
	exit 0
fi
if [ ! -f "$dir/$name.pdb" ]; then
	skip windows-sym "corpus absent ($dir)"
	exit 0
fi
wine_start "$ETL_TOP/build-windows/wine" || {
	skip windows-sym "wine cannot run the .exe files: $wine_error"
	exit 0
}

# -e on each corpus image, as the Linux build names them.
for oracle in "$dir"/*.addr.tsv; do
	n=$(basename "$oracle" .addr.tsv)
	img=$(ls "$dir/$n".exe "$dir/$n".dll 2>/dev/null | head -1)
	grep -v '^#' "$oracle" | cut -f1 >"$tmp/rvas"
	etlsym -e "$img" <"$tmp/rvas" >"$tmp/e.l" 2>&1
	wine "$win/etlsym.exe" -e "$img" <"$tmp/rvas" >"$tmp/e.w" 2>&1
	same_file "windows-sym-e-$n" "$tmp/e.w" "$tmp/e.l"
done

# A trace whose DLL has the corpus PDB's identity.
etlsynth --events 20000 --seed 3 --pdb "$image=$dir/$name.pdb" \
    -o "$tmp/t.etl" 2>"$tmp/err" && etlcat -q -o "$tmp/t.zst" "$tmp/t.etl" ||
    { fail windows-sym-generate "$(cat "$tmp/err")"; exit 0; }
key=$(awk -F'\t' '$1 == "pdb" { g = toupper($3); gsub(/-/, "", g)
    printf "%s%X\n", g, $4 }' "$tmp/t.etl.manifest.tsv")

# folded STREAM: its CPU stacks, folded, for comparing two symbolizations.
folded() {
	etlagg -q cpu --by stack <"$1" | etlreport -q -f folded
}

# A store, plain and with the PDB as a CAB.
mkdir -p "$tmp/store/$name.pdb/$key" "$tmp/cab/$name.pdb/$key"
cp "$dir/$name.pdb" "$tmp/store/$name.pdb/$key/"
if make_cab "$dir/$name.pdb" "$tmp/cab/$name.pdb/$key/$name.pd_" "$name.pdb"
then
	stores="store cab"
else
	stores=store
	skip windows-sym-cab "no python3 to make a CAB (apt-get install python3)"
fi
etlsym -q -y "$tmp/store" -o "$tmp/l.zst" "$tmp/t.zst"
folded "$tmp/l.zst" >"$tmp/l.folded"
for store in $stores; do
	wine "$win/etlsym.exe" -y "$tmp/$store" -o "$tmp/w.zst" "$tmp/t.zst" \
	    2>"$tmp/err"
	folded "$tmp/w.zst" >"$tmp/w.folded"
	if grep -q "$image!0x" "$tmp/w.folded" ||
	    ! grep -q "$image: $name.pdb $key: found" "$tmp/err"; then
		fail "windows-sym-$store" "not found: $(grep "$image" "$tmp/err")"
	else
		same_file "windows-sym-$store" "$tmp/w.folded" "$tmp/l.folded"
	fi
done

# A server on the loopback interface, with the CAB store; its log says
# what was asked for.
if ! command -v python3 >/dev/null; then
	skip windows-sym-server "no python3 for a local HTTP server (apt-get \
install python3)"
	exit 0
fi
# serve DIR LOG: a server of DIR on a free port, in $port and $server.
serve() {
	port=$(python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server --bind 127.0.0.1 --directory "$1" "$port" \
	    >/dev/null 2>"$2" &
	server=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		python3 -c "import urllib.request
urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
		sleep 0.3
	done
}
serve "$tmp/cab" "$tmp/log"
wine "$win/etlsym.exe" -y "srv*$tmp/cache*http://127.0.0.1:$port" \
    -o "$tmp/w.zst" "$tmp/t.zst" 2>"$tmp/err"
st=$?
kill $server
wait $server 2>/dev/null
check_eq windows-sym-server-status "$st" 0
folded "$tmp/w.zst" >"$tmp/w.folded"
same_file windows-sym-server "$tmp/w.folded" "$tmp/l.folded"
if [ -f "$tmp/cache/$name.pdb/$key/$name.pd_" ] &&
    grep -q "GET /$name.pdb/$key/$name.pd_ " "$tmp/log"; then
	pass windows-sym-server-cache
else
	fail windows-sym-server-cache "$(ls -R "$tmp/cache" 2>&1 | head -5)"
fi
# The server gone, the cache serves.
wine "$win/etlsym.exe" -v -y "srv*$tmp/cache*http://127.0.0.1:$port" \
    -o "$tmp/w2.zst" "$tmp/t.zst" 2>"$tmp/err"
grep -q "$image: $name.pdb $key: found $tmp/cache/" "$tmp/err" &&
    pass windows-sym-server-cached ||
    fail windows-sym-server-cached "$(grep "$image" "$tmp/err")"

# A hostile name: the DLL's PDB recorded as ..\..\..\..\hxx...x.pdb, of
# the same length as its own name, patched into the trace.
base=$(python3 - "$tmp/t.etl" "$tmp/h.etl" "$name.pdb" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
old = sys.argv[3].encode()
new = b'..\\..\\..\\..\\h'
new += b'x' * (len(old) - len(new) - 4) + b'.pdb'
assert old in data
open(sys.argv[2], 'wb').write(data.replace(old, new))
print(new.split(b'\\')[-1].decode())
PY
) || { fail windows-sym-hostile "the PDB name could not be patched"; exit 0; }
etlcat -q -o "$tmp/h.zst" "$tmp/h.etl"
mkdir "$tmp/www" "$tmp/lin" "$tmp/win"
for side in lin win; do
	serve "$tmp/www" "$tmp/$side.log"
	if [ $side = lin ]; then
		(cd "$tmp/lin" && etlsym -q -y "srv*cache*http://127.0.0.1:$port" \
		    -o h.zst "$tmp/h.zst")
	else
		(cd "$tmp/win" && wine "$win/etlsym.exe" -q \
		    -y "srv*cache*http://127.0.0.1:$port" -o h.zst "$tmp/h.zst")
	fi
	kill $server
	wait $server 2>/dev/null
	(cd "$tmp/$side" && find . | sort) >"$tmp/$side.files"
	sed -n 's/.*"GET \([^ ]*\) .*/\1/p' "$tmp/$side.log" | sort \
	    >"$tmp/$side.asked"
done
same_file windows-sym-hostile-files "$tmp/win.files" "$tmp/lin.files"
same_file windows-sym-hostile-requests "$tmp/win.asked" "$tmp/lin.asked"
outside=$(grep -v "^\./cache\|^\.$\|^\./h\.zst$" "$tmp/win.files")
asked=$(grep -c "^/$base/" "$tmp/win.asked")
if [ -z "$outside" ] && [ "$asked" -gt 0 ] &&
    ! grep -q '\.\.' "$tmp/win.asked"; then
	pass windows-sym-hostile-inside
else
	fail windows-sym-hostile-inside "outside: $outside; asked: \
$(head -3 "$tmp/win.asked" | tr '\n' ' ')"
fi
