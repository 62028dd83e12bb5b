#!/bin/sh
# etlsym -e on the corpus PDBs against the .addr.tsv oracles: for every
# sampled address, the function is the containing procedure (any of the
# folded ones the oracle lists) or, where none covers it, the public
# demangled (or llvm-symbolizer's own name there, which comes from the
# thunk that covers an import stub); file:line is llvm-symbolizer's for
# the outermost frame.
# Also: the image is found by its CodeView record (the PDB beside it),
# the inline chains name the frames llvm-symbolizer names, and the
# portable PDB is refused with a message and status 1.

. "$(dirname "$0")/../testlib.sh"

dir=${ETL_CORPUS:-../shared/corpus}/pdb
if [ ! -d "$dir" ]; then
	skip sym-corpus "corpus absent ($dir)"
	exit 0
fi

for oracle in "$dir"/*.addr.tsv; do
	name=$(basename "$oracle" .addr.tsv)
	image=$(ls "$dir/$name".exe "$dir/$name".dll 2>/dev/null | head -1)
	[ -n "$image" ] || { fail "sym-corpus-$name" "no image"; continue; }
	grep -v '^#' "$oracle" | cut -f1 >"$tmp/rvas"
	if ! etlsym -e "$image" <"$tmp/rvas" >"$tmp/got" 2>"$tmp/err"; then
		fail "sym-corpus-$name" "$(cat "$tmp/err")"
		continue
	fi
	# Expected names: the procedures, or the demangled public.
	grep -v '^#' "$oracle" | awk -F'\t' '{
		sub(/\+0x[0-9a-f]+$/, "", $6); print $6 }' |
	    etlsym --demangle >"$tmp/publics"
	grep -v '^#' "$oracle" | paste - "$tmp/publics" "$tmp/got" |
	    awk -F'\t' '{
		proc = $5; want_line = $4; pub = $9; fn = $10; line = $11
		ok = 0
		if (proc == "") {
			llvm = $2; f = fn
			gsub(/ |struct |class /, "", llvm); gsub(/ /, "", f)
			ok = fn == pub || index(llvm, f) == 1
		} else {
			n = split(proc, alt, / \/ /)
			for (i = 1; i <= n; i++) {
				sub(/\+0x[0-9a-f]+$/, "", alt[i])
				if (alt[i] == fn) ok = 1
			}
		}
		if (!ok) { print $1 ": function " fn ", expected " proc pub; bad++ }
		if (line != want_line) {
			print $1 ": line " line ", expected " want_line; bad++
		}
		n_all++
	    } END { print n_all " addresses, " bad + 0 " wrong" }' \
	    >"$tmp/verdict"
	if tail -1 "$tmp/verdict" | grep -q ' 0 wrong$'; then
		pass "sym-corpus-$name"
	else
		fail "sym-corpus-$name" "$(head -5 "$tmp/verdict"; tail -1 "$tmp/verdict")"
	fi
done

# The inline chains: the names of the inlined frames llvm-symbolizer
# gives (its outermost is the public's name, checked above as the proc).
name=Native_x64_RustC_Rust_debuginfo2_v1.58.1
if [ -f "$dir/$name.exe" ]; then
	grep -v '^#' "$dir/$name.addr.tsv" | awk -F'\t' '$8 ~ /@/ {
		n = split($8, f, / <- /); s = ""
		for (i = 1; i < n; i++) { sub(/@.*/, "", f[i]); s = s f[i] ";" }
		print $1 "\t" s }' >"$tmp/chains"
	bad=0
	while IFS="$(printf '\t')" read -r rva want; do
		got=$(etlsym -i -e "$dir/$name.exe" "$rva" | cut -f1 |
		    sed '/^$/d' | sed '$d' | tr '\n' ';')
		if [ "$got" != "$want" ]; then
			bad=$((bad + 1))
			echo "  $rva: $got" >>"$tmp/chain-err"
			echo "  want $want" >>"$tmp/chain-err"
		fi
	done <"$tmp/chains"
	[ $bad = 0 ] && pass sym-corpus-inlines ||
	    fail sym-corpus-inlines "$bad chains differ: $(head -4 "$tmp/chain-err")"
fi

portable=$dir/Managed_x64_VS2019_CSharp_DebugType_Portable.pdb
if [ -f "$portable" ]; then
	etlsym -e "$portable" 1000 >/dev/null 2>"$tmp/err"
	st=$?
	check_eq sym-corpus-portable-status "$st" 1
	grep -q "^etlsym: .*Portable.pdb: .*portable.*(offset 0x" "$tmp/err" &&
	    pass sym-corpus-portable-message ||
	    fail sym-corpus-portable-message "$(cat "$tmp/err")"
fi

# An image alone: its PDB found through the symbol path by the image's
# CodeView record (the store layout); without it, a clear failure.
name=Native_x64_RustC_Rust_debuginfo2_v1.58.1
if [ -f "$dir/$name.exe" ]; then
	mkdir -p "$tmp/img" "$tmp/store"
	cp "$dir/$name.exe" "$tmp/img/"
	etlsym -e "$tmp/img/$name.exe" 1000 >/dev/null 2>"$tmp/err"
	check_eq sym-corpus-alone-status "$?" 1
	grep -q "^etlsym: $tmp/img/$name.exe: PDB .*$name.pdb not found$" \
	    "$tmp/err" && pass sym-corpus-alone-message ||
	    fail sym-corpus-alone-message "$(cat "$tmp/err")"
	mkdir -p "$tmp/store/$name.pdb/0FB5AE189F7E49D4B1B03EF369FA76351"
	cp "$dir/$name.pdb" "$tmp/store/$name.pdb/0FB5AE189F7E49D4B1B03EF369FA76351/"
	check_eq sym-corpus-sympath "$(etlsym -e "$tmp/img/$name.exe" \
	    -y "$tmp/store" 1000 | cut -f1)" \
	    "core::ops::function::FnOnce::call_once<std::rt::lang_start::closure\$0,tuple\$<> >"
fi
