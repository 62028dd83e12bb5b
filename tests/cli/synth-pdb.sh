#!/bin/sh
# etlsynth --pdb: a synthetic trace whose stage 0 rustc_driver DLL is
# mapped to a real PDB of the corpus.  Checked with the toolkit's own
# views against what LLVM says of that PDB (the corpus oracle, from
# llvm-pdbutil) and against its executable:
#  - every frame etlagg cpu finds in the DLL lies inside a procedure of
#    the oracle, and the samples and inclusive counts per procedure are
#    the manifest's symbol lines;
#  - the image is as big as the PDB's sections;
#  - the DbgID_RSDS events carry the GUID and age of the executable's
#    CodeView record and the PDB's file name, as the manifest's pdb line
#    says.  No view shows an image definition's PDB identity yet, so
#    this looks for the event payload in the (uncompressed) .etl file.

. "$(dirname "$0")/../testlib.sh"

name=Native_x64_RustC_Rust_debuginfo2_v1.58.1
image=rustc_driver-6a4f21c5a1e9d7b3.dll
base=0x7ffae0d50000
dir=${ETL_CORPUS:-../shared/corpus}/pdb

if ! command -v etlsynth >/dev/null; then
	skip synth-pdb "no etlsynth on PATH (make build/etlsynth)"
	exit 0
fi
if [ ! -f "$dir/$name.pdb" ] || [ ! -f "$dir/$name.oracle.tsv" ] ||
    [ ! -f "$dir/$name.exe" ]; then
	skip synth-pdb "no $name.pdb with its oracle and exe in $dir"
	exit 0
fi

t=$tmp/t.etl
m=$t.manifest.tsv
if ! etlsynth --events 20000 --seed 3 --pdb "$image=$dir/$name.pdb" \
    -o "$t" 2>"$tmp/err"; then
	fail synth-pdb-generate "$(cat "$tmp/err")"
	exit 0
fi
if ! etlcat -q -o "$tmp/t.zst" "$t" 2>"$tmp/err"; then
	fail synth-pdb-decode "$(cat "$tmp/err")"
	exit 0
fi
pass synth-pdb-generate

# The same command makes the same bytes.
etlsynth --events 20000 --seed 3 --pdb "$image=$dir/$name.pdb" \
    -o "$tmp/again.etl" 2>/dev/null
if cmp -s "$t" "$tmp/again.etl" && cmp -s "$m" "$tmp/again.etl.manifest.tsv"
then
	pass synth-pdb-deterministic
else
	fail synth-pdb-deterministic "two runs differ"
fi

# The value of a hex number ("0x1f" or "1f"), for any awk.
hexval='function hexval(s,  i, n) {
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}'

# Per frame of the DLL (function column "$image!0xRVA"), the oracle's
# procedure that holds it; frames outside any are reported as such.
etlagg cpu --by function <"$tmp/t.zst" | etlreport -f csv | csv_lf |
    awk -F, -v img="$image!" 'index($1, img) == 1 {
	print substr($1, length(img) + 1) "\t" $3 "\t" $5 }' >"$tmp/frames"
awk -F'\t' "$hexval"'
	FNR == NR {
		if ($3 == "GPROC32" || $3 == "LPROC32") {
			n++; rva[n] = hexval($1); size[n] = $4; nm[n] = $2
		}
		next
	}
	{
		a = hexval($1); hit = 0
		for (i = 1; i <= n; i++)
			if (a >= rva[i] && a < rva[i] + size[i]) {
				hit = i
				break
			}
		if (!hit) {
			print "outside\t" $1
			next
		}
		s[hit] += $2; inc[hit] += $3
	}
	END {
		for (i in s)
			printf "0x%x\t%d\t%d\t%d\t%s\n", rva[i], size[i], s[i],
			    inc[i], nm[i]
	}' "$dir/$name.oracle.tsv" "$tmp/frames" | sort >"$tmp/by-oracle"
awk -F'\t' -v OFS='\t' '$1 == "symbol" { print $3, $4, $5, $6, $7 }' "$m" |
    sort >"$tmp/by-manifest"

nframes=$(wc -l <"$tmp/frames" | tr -d ' ')
if [ "$nframes" -lt 20 ]; then
	fail synth-pdb-frames "only $nframes frames in $image"
elif grep -q '^outside' "$tmp/by-oracle"; then
	fail synth-pdb-frames "frames outside the PDB's procedures: $(grep \
	    '^outside' "$tmp/by-oracle" | head -3 | tr '\n' ' ')"
else
	pass synth-pdb-frames
fi
if [ -s "$tmp/by-manifest" ] && cmp -s "$tmp/by-oracle" "$tmp/by-manifest"
then
	pass synth-pdb-symbols
else
	fail synth-pdb-symbols "etlagg cpu --by function per oracle procedure \
differs from the manifest's symbol lines: $(diff "$tmp/by-oracle" \
	    "$tmp/by-manifest" | head -4 | tr '\n' ' ')"
fi

# The symbol lines add up to the DLL's samples in etlagg cpu --by module.
module=$(etlagg cpu --by module <"$tmp/t.zst" | etlreport -f csv | csv_lf |
    awk -F, -v img="$image" '$1 == img { print $2 }')
check_eq synth-pdb-module-samples "$(awk -F'\t' '$1 == "symbol" {
    s += $5 } END { print s }' "$m")" "$module"

# The image is as big as the PDB's sections, rounded up to a page.
end=$(sed -n 's/^# sections: //p' "$dir/$name.oracle.tsv" | tr ' ' '\n' |
    awk -F'[@+]' "$hexval"'NF == 3 { sub(/[(].*/, "", $3)
	e = hexval($2) + hexval($3)
	if (e > m) m = e } END { print int((m + 4095) / 4096) * 4096 }')
sizes=$(etlreport -f csv <"$tmp/t.zst" | csv_lf |
    awk -F, -v b="base=$base;" '$8 == "Image/Load" && index($10, b) {
	sub(/.*size=/, "", $10); print $10 }' | sort -u)
check_eq synth-pdb-image-size "$sizes" "$end"

# The identity: the executable's RSDS record (GUID, age), then the PDB
# file name, as one DbgID_RSDS payload in the trace for each image event
# that has one (load and rundowns; not unload).
hex() {
	od -An -v -tx1 "$1" | tr -d ' \n'
}
# The 20 bytes after the first "RSDS" that starts on a byte boundary.
rsds=$(hex "$dir/$name.exe" | awk '{
	for (s = $0; (i = index(s, "52534453")) > 0; s = substr(s, i + 1)) {
		at += i
		if (at % 2 == 1) {
			print substr($0, at + 8, 40)
			exit
		}
	}
}')
pdbname=$(printf '%s.pdb' "$name" | od -An -v -tx1 | tr -d ' \n')00
if [ ${#rsds} -ne 40 ]; then
	fail synth-pdb-identity "no RSDS record in $name.exe"
else
	n=$(hex "$t" | awk -v p="$rsds$pdbname" '{
		for (s = $0; (i = index(s, p)) > 0; s = substr(s, i + 1))
			n++
		print n + 0 }')
	loads=$(etlreport -f csv <"$tmp/t.zst" | csv_lf |
	    awk -F, -v b="base=$base;" '$8 ~ /^Image\/(Load|DCStart|DCStop)$/ &&
	    index($10, b) { n++ } END { print n + 0 }')
	check_eq synth-pdb-identity "$n" "$loads"
	guid=$(printf '%s\n' "$rsds" | awk "$hexval"'{
		g = substr($0, 1, 32)
		printf "%s%s%s%s-%s%s-%s%s-%s-%s\t%d\n", substr(g, 7, 2),
		    substr(g, 5, 2), substr(g, 3, 2), substr(g, 1, 2),
		    substr(g, 11, 2), substr(g, 9, 2), substr(g, 15, 2),
		    substr(g, 13, 2), substr(g, 17, 4), substr(g, 21, 12),
		    hexval(substr($0, 39, 2) substr($0, 37, 2) \
		    substr($0, 35, 2) substr($0, 33, 2))
	}')
	check_eq synth-pdb-manifest-identity \
	    "$(awk -F'\t' -v OFS='\t' '$1 == "pdb" { print $3, $4, $5 }' "$m")" \
	    "$guid	$name.pdb"
fi

# A name the scenario does not load is a usage error; a file that is
# not a PDB a data error with the reader's message.
etlsynth --events 1000 --pdb "nosuch.dll=$dir/$name.pdb" -o "$tmp/u.etl" \
    >/dev/null 2>&1
check_eq synth-pdb-unknown-image $? 2
etlsynth --events 1000 --pdb "$image=$dir/$name.exe" -o "$tmp/u.etl" \
    2>"$tmp/err" >/dev/null
check_eq synth-pdb-not-a-pdb "$?: $(cat "$tmp/err")" \
    "1: etlsynth: $dir/$name.exe: not a PDB: no MSF 7.00 signature (offset 0x0)"
