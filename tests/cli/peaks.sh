#!/bin/sh
# True figures in pictures: the commit timeline's chart (etlagg vmem
# --timeline, drawn by etlreport -f svg and in the report page) gives
# each process instance's exact peak of outstanding commit and the time
# it was first reached, whatever the step of the timeline:
#
#  - the peak in each line's tooltip equals vmem's peak_outstanding_bytes
#    for that instance (pid and start), and its time is the time the
#    independent model (tests/model/memory.awk) says the peak was first
#    reached;
#  - the timeline's rows hold that peak at that time, so the drawn line
#    passes through it;
#  - the legend ranks the ten highest exact peaks and says each one, and
#    when, as the tooltip does, rounded;
#  - the same at steps of 1, 100 and 1000 ms, and in the report page.
#
# On the sample and on etlsynth traces: a build (it reuses pids), one
# where a pid compiles one crate twice (long labels with their starts),
# both pointer sizes, compressed buffers, the memory scenario.

. "$(dirname "$0")/../testlib.sh"

top=${ETL_TOP:-.}
model=$top/tests/model/memory.awk

# The CSV of `etlagg ARGS`, LF line ends.
csv() {
	etlagg -q "$@" | etlreport -q -f csv | csv_lf
}

# cols NAME...: the named columns of the CSV on standard input, one row
# a line, space-separated; an empty cell becomes "-".
cols() {
	awk -F, -v want="$*" 'NR == 1 {
		n = split(want, w, " ")
		for (i = 1; i <= NF; i++) at[$i] = i
		next
	    }
	    {
		line = ""
		for (i = 1; i <= n; i++) {
			v = w[i] in at ? $(at[w[i]]) : "no-column-" w[i]
			line = line (i > 1 ? " " : "") (v == "" ? "-" : v)
		}
		print line
	    }'
}

# same NAME GOT WANT: two files of lines, equal and not empty.
same() {
	if [ ! -s "$3" ]; then
		fail "$1" "nothing to compare: $3 is empty"
	elif cmp -s "$2" "$3"; then
		pass "$1 ($(wc -l <"$3" | tr -d ' ') instances)"
	else
		fail "$1" "$(diff "$2" "$3" | grep '^[<>]' | head -4 |
		    tr '\n' '|')"
	fi
}

# truth ST: "pid start peak time" for each instance with a peak: vmem's
# peak_outstanding_bytes, and the model's time of it (the model's peak
# must agree, or the line says so).
truth() {
	csv vmem "$1" | cols pid start_s peak_outstanding_bytes |
	    awk '$3 > 0' | sort >"$tmp/vmem.peaks"
	etlfilter -q --kind alloc,heap,process "$1" | etlreport -q -f csv |
	    csv_lf | sed 1d | awk -f "$model" |
	    awk '$1 == "vpeak" { print $2, $3, $4, $5 }' | sort >"$tmp/model"
	awk 'NR == FNR { t[$1 " " $2 " " $3] = $4; next }
	    { k = $1 " " $2 " " $3
	      print k, (k in t ? t[k] : "model-disagrees") }' \
	    "$tmp/model" "$tmp/vmem.peaks"
}

# labels TIMELINE_CSV: "label<TAB>pid start" of each series.
labels() {
	sed 1d "$1" | awk -F, '{
		# The label may hold commas: pid and start are the two
		# columns before the last.
		l = $2; for (i = 3; i <= NF - 3; i++) l = l "," $i
		print l "\t" $(NF - 2) " " ($(NF - 1) == "" ? "-" : $(NF - 1))
	    }' | sort -u
}

# tips SVG: "label<TAB>bytes time" of each line's tooltip.
tips() {
	sed -n 's|.*<polyline[^>]*><title>\(.*\): peak [^(]* (\([0-9]*\) B) at \([0-9.-]*\) s</title>.*|\1\t\2 \3|p' "$1"
}

# by_instance LABELS TIPS: "pid start bytes time", sorted.
by_instance() {
	awk -F'\t' 'NR == FNR { id[$1] = $2; next }
	    { print ($1 in id ? id[$1] : "unknown-label " $1), $2 }' \
	    "$1" "$2" | sort
}

# check NAME ST: every rule on stream ST.
check() {
	name=$1
	st=$2
	truth "$st" >"$tmp/want"
	for step in 1 100 1000; do
		etlagg -q vmem --timeline --step $step "$st" >"$tmp/tl.st"
		etlreport -q -f csv "$tmp/tl.st" | csv_lf >"$tmp/tl.csv"
		etlreport -q -f svg -o "$tmp/tl.svg" "$tmp/tl.st"
		labels "$tmp/tl.csv" >"$tmp/labels"
		tips "$tmp/tl.svg" >"$tmp/tips"
		by_instance "$tmp/labels" "$tmp/tips" >"$tmp/got"
		same "peaks $name step $step: tooltip peak and time" \
		    "$tmp/got" "$tmp/want"
		# The rows: each instance's largest value, first reached when
		# the model says.
		sed 1d "$tmp/tl.csv" | awk -F, '{
			k = $(NF - 2) " " ($(NF - 1) == "" ? "-" : $(NF - 1))
			if (!(k in m) || $NF + 0 > m[k] + 0) { m[k] = $NF; t[k] = $1 }
		    }
		    END { for (k in m) if (m[k] > 0) print k, m[k], t[k] }' |
		    sort >"$tmp/rows"
		same "peaks $name step $step: the timeline's rows hold them" \
		    "$tmp/rows" "$tmp/want"
		# The legend: the ten highest exact peaks, each with its
		# figure and time as the tooltip has them, rounded.
		legend "$tmp/tl.svg" "$tmp/labels" "$tmp/want" >"$tmp/legend"
		if [ ! -s "$tmp/legend" ]; then
			pass "peaks $name step $step: the legend"
		else
			fail "peaks $name step $step: the legend" \
			    "$(head -3 "$tmp/legend" | tr '\n' '|')"
		fi
		# A peak's dot is on its line: the polyline has the point.
		dots "$tmp/tl.svg" >"$tmp/dots"
		if [ ! -s "$tmp/dots" ]; then
			pass "peaks $name step $step: each dot on its line"
		else
			fail "peaks $name step $step: a dot off its line" \
			    "$(head -2 "$tmp/dots" | tr '\n' '|')"
		fi
	done
}

# legend SVG LABELS WANT: what is wrong with the legend, nothing if right.
legend() {
	# Top to bottom: a label, then its peak below it.
	sed -n 's|^<text x="[0-9]*" y="\([0-9]*\)">\(.*\)</text>$|\1\tL\t\2|p
	    s|^<text class="peak" x="[0-9]*" y="\([0-9]*\)">peak \(.*\)</text>$|\1\tP\t\2|p' \
	    "$1" | sort -n -s -k1,1 | cut -f2- |
	    awk -F'\t' -v lf="$2" -v wf="$3" '
	function fmt(v,   u, n) {
		split("B KiB MiB GiB TiB", u, " ")
		n = 1
		while (v >= 1024 && n < 5) { v /= 1024; n++ }
		return sprintf("%.4g %s", v, u[n])
	}
	BEGIN {
		while ((getline line < lf) > 0) {
			split(line, a, "\t"); id[a[1]] = a[2]
		}
		while ((getline line < wf) > 0) {
			split(line, a, " "); k = a[1] " " a[2]
			peak[k] = a[3]; when[k] = a[4]; all[++n] = a[3]
		}
		# The ten highest peaks, highest first.
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (all[j] + 0 > all[i] + 0) {
					x = all[i]; all[i] = all[j]; all[j] = x
				}
	}
	# A long label is cut in its name: "build_scr.. (10256 @0.002713s)".
	$1 == "L" {
		label = $2
		if ((i = index(label, ".. (")) > 0) {
			pre = substr(label, 1, i - 1); suf = substr(label, i + 2)
			for (l in id) {
				at = length(l) - length(suf) + 1
				if (index(l, pre) == 1 && substr(l, at) == suf)
					label = l
			}
		}
		next
	}
	$1 == "P" {
		r++
		k = id[label]
		if (!(k in peak)) { print "legend " r ": no instance " label; next }
		if (peak[k] != all[r])
			print "legend " r ": " label " peaks at " peak[k] \
			    ", the " r "th highest peak is " all[r]
		w = fmt(peak[k]) " at " sprintf("%.3f", when[k]) " s"
		if ($2 != w)
			print "legend " r ": " label " says " $2 ", want " w
	}
	END {
		if (r != (n < 10 ? n : 10))
			print r + 0 " legend entries for " n " peaks"
	}'
}

# dots SVG: each coloured line whose peak dot is not one of its points.
dots() {
	awk '/^<polyline/ {
		match($0, /points="[^"]*"/)
		pts = " " substr($0, RSTART + 8, RLENGTH - 9) " "
		next
	    }
	    /^<circle/ {
		match($0, /cx="[^"]*" cy="[^"]*"/)
		split(substr($0, RSTART, RLENGTH), c, "\"")
		n++
		if (index(pts, " " c[2] "," c[4] " ") == 0)
			print $0
	    }
	    END { if (n == 0) print "no dot" }' "$1"
}

etlcat -q "$top/testdata/sample.etl" >"$tmp/sample.st"
check sample "$tmp/sample.st"

# The report page of the pipeline: the Memory tab's chart of the build's
# processes gives their peaks as the whole trace's vmem does.
truth "$tmp/sample.st" >"$tmp/want"
etlagg -q vmem --timeline "$tmp/sample.st" | etlreport -q -f csv |
    csv_lf >"$tmp/tl.csv"
labels "$tmp/tl.csv" >"$tmp/labels"
mkdir -p "$tmp/report"
if sh "$top/pipelines/rustc-report.sh" -o "$tmp/report/r.html" \
    "$top/testdata/sample.etl" >/dev/null 2>&1; then
	sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' \
	    "$tmp/report/r.html" | tr '>' '\n' |
	    sed -n 's|^\(.*\): peak [^(]* (\([0-9]*\) B) at \([0-9.-]*\) s</title$|\1\t\2 \3|p' |
	    sort -u >"$tmp/tips"
	by_instance "$tmp/labels" "$tmp/tips" >"$tmp/got"
	# The build's rustc instances only: those the page draws.
	awk 'NR == FNR { k[$1 " " $2] = 1; next } ($1 " " $2) in k' \
	    "$tmp/got" "$tmp/want" >"$tmp/want.build"
	if grep -q unknown-label "$tmp/got"; then
		fail "peaks report page" "$(grep unknown-label "$tmp/got" |
		    head -2 | tr '\n' '|')"
	else
		same "peaks report page: tooltip peak and time" "$tmp/got" \
		    "$tmp/want.build"
	fi
else
	fail "peaks report page" "rustc-report.sh failed"
fi

if ! command -v etlsynth >/dev/null; then
	skip "peaks synth" "no etlsynth (make builds it into build/)"
	exit 0
fi
synth() {
	etlsynth "$@" -o "$tmp/s.etl" >/dev/null &&
	    etlcat -q "$tmp/s.etl" >"$tmp/s.st"
}
synth --events 30000 --seed 11 --scenario rustc-build &&
    check "synth build" "$tmp/s.st"
synth --events 30000 --seed 11 --scenario rustc-build --rename \
    'crate-name rustc_std_workspace_core=crate-name build_script_build' &&
    check "synth same crate" "$tmp/s.st"
synth --events 20000 --seed 5 --pointer-size 4 --compress &&
    check "synth build x86 compressed" "$tmp/s.st"
synth --scenario memory && check "synth memory" "$tmp/s.st"
