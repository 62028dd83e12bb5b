#!/bin/sh
# etlsynth writes a trace and a manifest of what it holds; etlcat of the
# trace must reproduce every count of the manifest.  Several seeds, both
# pointer sizes, compressed buffers and plain ones.

. "$(dirname "$0")/../testlib.sh"

if ! command -v etlsynth >/dev/null; then
	skip roundtrip "no etlsynth (make builds it into build/)"
	exit 0
fi

# Lines "kind key value" from our side, to compare with the manifest's.
our_counts() {
	etlagg stats "$1" | etlreport -f csv | csv_lf | awk -F, 'NR > 1 {
		if ($4 != "")
			hook[$4] += $8
		else
			guid[$1 " " sprintf("0x%02x", $7)] += $8
		total += $8
	}
	END {
		for (h in hook) print "hook", h, hook[h]
		for (g in guid) print "guid", g, guid[g]
		print "total events", total
	}'
	etlagg sysconfig "$1" | etlreport -f csv | csv_lf |
	    awk -F, 'NR == 2 { print "total events_lost", $17 }'
	etlreport -f csv "$1" | csv_lf | awk -F, '$6 == "sample" {
		n++
		if ($9 == 0) bare++
	} END {
		print "total samples", n + 0
		print "total samples_without_stack", bare + 0
	}'
}

manifest_counts() {
	awk -F'\t' '$1 == "hook" || $1 == "total" { print $1, $2, $3 }
	    $1 == "guid" { print $1, $2, $3, $4 }' "$1" |
	    grep -v '^total \(buffers\|compressed_buffers\|processes\) '
}

# Per process instance (pid and start): samples, bytes committed and
# freed, heap bytes outstanding.  An event belongs to the instance of its
# pid that started last before it.
our_processes() {
	etlreport -f csv "$2" | csv_lf | awk -F, -v manifest="$1" '
	BEGIN {
		while ((getline line < manifest) > 0) {
			split(line, f, "\t")
			if (f[1] != "process")
				continue
			n = ++count[f[2]]
			start[f[2], n] = f[3] / 1e9
			inst[f[2], n] = f[2] " " f[3]
			keys[f[2] " " f[3]] = 1
		}
	}
	function owner(pid, t,    i, best) {
		best = ""
		for (i = 1; i <= count[pid]; i++)
			if (start[pid, i] <= t + 1e-9 && (best == "" ||
			    start[pid, i] > start[pid, best]))
				best = i
		return best == "" ? "" : inst[pid, best]
	}
	function field(name,    i, n, parts, kv) {
		n = split($10, parts, "; ")
		for (i = 1; i <= n; i++) {
			split(parts[i], kv, "=")
			if (kv[1] == name)
				return kv[2]
		}
		return ""
	}
	$6 == "sample" { samples[owner($3, $1)]++ }
	$8 == "Memory/VirtualAlloc" { committed[owner($3, $1)] += field("size") }
	$8 == "Memory/VirtualFree" { freed[owner($3, $1)] += field("size") }
	$8 == "Heap/Alloc" {
		o = owner($3, $1)
		size[o, field("address")] = field("size")
		heap[o] += field("size")
	}
	$8 == "Heap/ReAlloc" {
		o = owner($3, $1)
		heap[o] += field("size") - field("old_size")
		delete size[o, field("old_address")]
		size[o, field("address")] = field("size")
	}
	$8 == "Heap/Free" {
		o = owner($3, $1)
		heap[o] -= size[o, field("address")]
		delete size[o, field("address")]
	}
	END {
		for (k in keys)
			print k, samples[k] + 0, committed[k] + 0, freed[k] + 0,
			    heap[k] + 0
	}' | sort
}

manifest_processes() {
	awk -F'\t' '$1 == "process" { print $2, $3, $6, $7, $8, $9 }' "$1" |
	    sort
}

for seed in 1 2 3; do
	for ptr in 4 8; do
		for compress in "" --compress; do
			name=seed$seed-ptr$ptr${compress:+-lz}
			etl=$tmp/$name.etl
			etlsynth --events 30000 --seed "$seed" --pointer-size "$ptr" \
			    $compress -o "$etl" || { fail "$name" "etlsynth failed"; continue; }
			if ! etlcat -q -o "$tmp/$name.zst" "$etl" 2>"$tmp/err"; then
				fail "$name-decode" "$(cat "$tmp/err")"
				continue
			fi
			our_counts "$tmp/$name.zst" | sort >"$tmp/ours"
			manifest_counts "$etl.manifest.tsv" | sort >"$tmp/want"
			if cmp -s "$tmp/ours" "$tmp/want"; then
				pass "$name-counts"
			else
				fail "$name-counts" "$(diff "$tmp/want" "$tmp/ours" | head -8)"
			fi
			our_processes "$etl.manifest.tsv" "$tmp/$name.zst" >"$tmp/ours"
			manifest_processes "$etl.manifest.tsv" >"$tmp/want"
			if cmp -s "$tmp/ours" "$tmp/want"; then
				pass "$name-processes"
			else
				fail "$name-processes" "$(diff "$tmp/want" "$tmp/ours" | head -8)"
			fi
		done
	done
done
