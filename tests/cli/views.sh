#!/bin/sh
# The processes, tree and cpu views against the truth: the manifest that
# etlsynth writes beside a trace (processes, parentage, samples per
# process, samples per stack), and, on the real traces with samples, the
# number of SampledProfile events and a count per process made here from
# the event list.  --merge of per-trace tables must equal one run over
# the traces.  Skips what needs build/etlsynth or the corpus when absent.

. "$(dirname "$0")/../testlib.sh"

# csv VIEW... FILE: the view's table as CSV with LF line ends, no header.
csv() {
	etlagg "$@" | etlreport -f csv | csv_lf | sed 1d
}

# Prints "what: got X, expected Y" lines for the keys of two
# "key<TAB>count" lists that differ.
diff_counts() {
	awk -F'\t' 'FNR == NR { want[$1] = $2; next }
	    { got[$1] = $2 }
	    END {
		for (k in want) if (got[k] != want[k])
			print k ": got " got[k] + 0 ", expected " want[k]
		for (k in got) if (!(k in want))
			print k ": got " got[k] ", expected none"
	    }' "$1" "$2" | head -5
}

check_empty() {
	if [ -s "$2" ]; then
		fail "$1" "$(cat "$2")"
	else
		pass "$1"
	fi
}

synth_tests() {
	m=$tmp/a.etl.manifest.tsv
	if ! etlcat -q "$tmp/a.etl" >"$tmp/a.zst"; then
		fail synth-decode etlcat
		return
	fi

	# Processes: pid, start (0 before the trace), parent, image,
	# samples, command line; the command line is the last CSV field.
	awk -F'\t' '$1 == "process" { print $2 "\t" $3 "\t" $4 "\t" $5 "\t" \
	    $6 "\t" $10 }' "$m" | sort >"$tmp/want"
	csv processes "$tmp/a.zst" | awk -F, '{
		start = $5; sub(/\./, "", start); start += 0
		cmd = $0
		for (i = 1; i <= 16; i++) sub(/^[^,]*,/, "", cmd)
		if (cmd ~ /^"/) { cmd = substr(cmd, 2, length(cmd) - 2)
			gsub(/""/, "\"", cmd) }
		printf "%s\t%.0f\t%s\t%s\t%s\t%s\n", $1, start, $2, $3, $11, cmd
	    }' | sort >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then
		pass synth-processes
	else
		fail synth-processes "$(diff "$tmp/want" "$tmp/got" | head -5)"
	fi

	# Parentage: a process's parent is the latest instance of its
	# parent pid that had started by its start; none if there is none.
	awk -F'\t' '$1 == "process" { n++; pid[n] = $2; st[n] = $3; pp[n] = $4 }
	    END {
		for (i = 1; i <= n; i++) {
			best = "-"; bs = -1
			for (j = 1; j <= n; j++)
				if (j != i && pid[j] == pp[i] && pp[i] != 0 &&
				    st[j] + 0 <= st[i] + 0 && st[j] + 0 > bs) {
					bs = st[j] + 0; best = pid[j] "@" st[j]
				}
			print pid[i] "@" st[i] "\t" best
		}
	    }' "$m" | sort >"$tmp/want"
	csv tree "$tmp/a.zst" | awk -F, '{
		start = $7; sub(/\./, "", start); start += 0
		me = $3 "@" sprintf("%.0f", start)
		at[$2] = me
		print me "\t" ($2 == 0 ? "-" : at[$2 - 1])
	    }' | sort >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then
		pass synth-tree-parents
	else
		fail synth-tree-parents "$(diff "$tmp/want" "$tmp/got" |
		    head -5)"
	fi

	# Samples per stack: frames as addresses, the process (root) left
	# out; samples without a stack are [no stack] and not in the
	# manifest's stack lines.
	awk -F'\t' '$1 == "stack" { print $3 "\t" $2 }' "$m" >"$tmp/want"
	csv cpu --by stack --addresses "$tmp/a.zst" >"$tmp/stacks"
	awk -F, '{ s = $1; sub(/^[^;]*;/, "", s) }
	    s !~ /^\[/ { n[s] += $2 } END { for (k in n) print k "\t" n[k] }' \
	    "$tmp/stacks" >"$tmp/got"
	diff_counts "$tmp/want" "$tmp/got" >"$tmp/diff"
	check_empty synth-stacks "$tmp/diff"
	check_eq synth-stackless "$(awk -F, '$1 ~ /;\[no stack\];/ { s += $2 }
	    END { print s + 0 }' "$tmp/stacks")" \
	    "$(awk -F'\t' '$2 == "samples_without_stack" { print $3 }' "$m")"

	# Samples per process and in all.
	awk -F'\t' '$1 == "process" && $6 > 0 { n[$5 "/" $2] += $6 }
	    END { for (k in n) print k "\t" n[k] }' "$m" >"$tmp/want"
	csv cpu "$tmp/a.zst" | awk -F, '{ n[$1 "/" $2] += $5 }
	    END { for (k in n) print k "\t" n[k] }' >"$tmp/got"
	diff_counts "$tmp/want" "$tmp/got" >"$tmp/diff"
	check_empty synth-cpu-by-process "$tmp/diff"
	total=$(awk -F'\t' '$2 == "samples" { print $3 }' "$m")
	# The samples column: the second, after the function's module third.
	for by in stack:2 function:3 module:2; do
		check_eq "synth-cpu-${by%:*}-total" "$(csv cpu --by ${by%:*} \
		    "$tmp/a.zst" | awk -F, -v c=${by#*:} '{ s += $c }
		    END { print s + 0 }')" "$total"
	done

	# Frames are named module!0xRVA or 0xADDR.
	csv cpu --by stack "$tmp/a.zst" >"$tmp/stacks.named"
	bad=$(awk -F, '{ n = split($1, f, ";")
	    for (i = 2; i <= n; i++) if (f[i] !~ /^([^!;]+!)?0x[0-9a-f]+$/ &&
		f[i] !~ /^\[/) { print f[i]; exit } }' "$tmp/stacks.named")
	check_eq synth-frame-names "$bad" ""
	if grep -q 'rustc.exe;.*rustc_driver-[0-9a-f]*\.dll!0x' \
	    "$tmp/stacks.named"; then
		pass synth-module-rva
	else
		fail synth-module-rva "no rustc_driver frame"
	fi

	# --merge of the tables of each trace equals one run over both.
	if ! etlcat -q "$tmp/b.etl" >"$tmp/b.zst"; then
		fail synth-decode-b etlcat
		return
	fi
	for view in processes tree cpu "cpu --by stack" "cpu --by function" \
	    "cpu --by module"; do
		name=$(echo "$view" | tr -d ' -')
		# shellcheck disable=SC2086
		csv $view "$tmp/a.zst" "$tmp/b.zst" | sort >"$tmp/want"
		# shellcheck disable=SC2086
		etlagg -o "$tmp/a.t" $view "$tmp/a.zst" &&
		    etlagg -o "$tmp/b.t" $view "$tmp/b.zst" &&
		    csv $view --merge "$tmp/a.t" "$tmp/b.t" | sort >"$tmp/got"
		if cmp -s "$tmp/want" "$tmp/got"; then
			pass "merge-$name"
		else
			fail "merge-$name" "$(diff "$tmp/want" "$tmp/got" |
			    head -4)"
		fi
	done
}

if command -v etlsynth >/dev/null; then
	if etlsynth --events 30000 --seed 3 -o "$tmp/a.etl" &&
	    etlsynth --events 20000 --seed 4 --pointer-size 4 \
	    -o "$tmp/b.etl"; then
		synth_tests
	else
		fail synth "etlsynth failed"
	fi
else
	skip synth "no build/etlsynth (make builds it)"
fi

# The real traces with samples: every SampledProfile event is counted,
# under the process that an independent count gives it.
corpus_tests() {
	name=$1
	etlcat -q "$ETL_CORPUS/etl/$name.etl" >"$tmp/c.zst" ||
	    { fail "corpus-decode-$name" etlcat; return; }
	events=$(csv stats "$tmp/c.zst" |
	    awk -F, '$3 == "PerfInfo/Sample" { s += $NF } END { print s + 0 }')
	check_eq "corpus-cpu-total-$name" "$(csv cpu "$tmp/c.zst" |
	    awk -F, '{ s += $5 } END { print s + 0 }')" "$events"
	check_eq "corpus-stack-total-$name" "$(csv cpu --by stack "$tmp/c.zst" |
	    awk -F, '{ s += $(NF - 2) } END { print s + 0 }')" "$events"
	check_eq "corpus-processes-total-$name" "$(csv processes "$tmp/c.zst" |
	    awk -F, '{ s += $11 } END { print s + 0 }')" "$events"
	# By pid, from the event list (an unknown pid is empty there).
	etlreport -f csv "$tmp/c.zst" | csv_lf |
	    awk -F, '$6 == "sample" { n[$3 == "" ? "4294967295" : $3]++ }
	    END { for (k in n) print k "\t" n[k] }' >"$tmp/want"
	csv cpu "$tmp/c.zst" | awk -F, '{ n[$2] += $5 }
	    END { for (k in n) print k "\t" n[k] }' >"$tmp/got"
	diff_counts "$tmp/want" "$tmp/got" >"$tmp/diff"
	check_empty "corpus-cpu-by-pid-$name" "$tmp/diff"
	# Samples without a stack (stack id 0 in the event list).
	check_eq "corpus-stackless-$name" "$(csv cpu --by stack "$tmp/c.zst" |
	    awk -F, '$1 ~ /;\[no stack\];/ { s += $(NF - 2) }
	    END { print s + 0 }')" "$(etlreport -f csv "$tmp/c.zst" | csv_lf |
	    awk -F, '$6 == "sample" && $9 == 0' | wc -l | tr -d ' ')"
	csv cpu --by module "$tmp/c.zst" | grep -q '^ntoskrnl\.exe,' &&
	    pass "corpus-kernel-module-$name" ||
	    fail "corpus-kernel-module-$name" "no ntoskrnl.exe row"
}

if [ -d "$ETL_CORPUS/etl" ]; then
	corpus_tests perfview__net.4.5.2.x64
	corpus_tests perfview__net.4.5.x86.2016__PerfViewData
else
	skip corpus-views "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
fi

# Usage errors.
etlagg cpu --by nothing </dev/null >/dev/null 2>"$tmp/err"
check_eq cpu-bad-by "$?:$(grep -c "wants process, stack" "$tmp/err")" "2:1"
etlagg processes --nope </dev/null >/dev/null 2>&1
check_eq processes-bad-option "$?" 2
