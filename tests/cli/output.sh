#!/bin/sh
# No silent wrong output: an output that is an input is refused before
# anything is written; -o is written beside and renamed only when the run
# read something, so a failed run leaves the earlier result; empty input
# is an error; what the input lost is said on stderr and under tables;
# --merge of another view's tables is an error.

. "$(dirname "$0")/../testlib.sh"

cd "$tmp" || exit 2
etlcat "$ETL_TOP/testdata/sample.etl" >a.st 2>/dev/null
cp a.st orig.st

# -o naming an input, stdout redirected onto one (appending, which would
# never end), and stdin and -o one file: status 2, the file untouched.
for tool in etlcat etlfilter etlreport "etlagg stats"; do
	name=$(echo $tool | tr ' ' -)
	$tool a.st -o a.st 2>err
	check_eq "same-file-o-$name" "$?:$(cmp -s a.st orig.st && echo same)" \
	    "2:same"
	$tool a.st >>a.st 2>err
	check_eq "same-file-stdout-$name" \
	    "$?:$(cmp -s a.st orig.st && echo same):$(cat err)" \
	    "2:same:${tool%% *}: standard output: the output is also an \
input (a.st); write it to another file"
	$tool -o a.st <a.st 2>err
	check_eq "same-file-stdin-$name" "$?:$(cmp -s a.st orig.st && echo same)" \
	    "2:same"
done
# The same file under another name is still the same file.
ln -s a.st link.st
etlfilter link.st -o a.st 2>/dev/null
check_eq same-file-symlink "$?:$(cmp -s a.st orig.st && echo same)" "2:same"

# A failed run leaves the earlier output as it was, and no temporary file.
etlagg stats a.st -o out.st 2>/dev/null
cp out.st before.st
etlagg stats missing.st -o out.st 2>err
check_eq failed-run-keeps-output \
    "$?:$(cmp -s out.st before.st && echo same):$(ls | grep -c '^out\.st\.')" \
    "1:same:0"
check_eq failed-run-says-so "$(tail -1 err)" \
    "etlagg: out.st: not written: no input could be read"
# A killed run too.
mkfifo fifo
( etlfilter fifo -o out.st 2>/dev/null & echo $! >pid; wait ) &
exec 3>fifo
head -c 100 a.st >&3
sleep 1
kill "$(cat pid)"
exec 3>&-
wait
check_eq killed-run-keeps-output \
    "$(cmp -s out.st before.st && echo same):$(ls | grep -c '^out\.st\.')" \
    "same:0"
# A new output gets the permissions of a new file; one replaced keeps
# its own.
umask 022
etlagg stats a.st -o new.st 2>/dev/null
check_eq new-output-mode "$(ls -l new.st | cut -c1-10)" "-rw-r--r--"
chmod 640 new.st
etlagg stats a.st -o new.st 2>/dev/null
check_eq replaced-output-mode "$(ls -l new.st | cut -c1-10)" "-rw-r-----"

# Empty input: an error for every tool, as for etlcat.
: >empty.st
for tool in etlcat etlfilter etlreport "etlagg stats"; do
	name=$(echo $tool | tr ' ' -)
	$tool empty.st >/dev/null 2>err
	status=$?
	check_eq "empty-input-$name" "$status:$(grep -c empty.st err)" "1:1"
done

# What the input lost: one line on stderr from each tool, DIAG records
# passed on through etlagg, a footer under text, a note in svg and html.
lossy="12 events lost by the logger, 1 buffers flagged as losing events"
etlagg cpu --by stack a.st 2>err >cpu.st
check_eq loss-line-etlagg "$(cat err)" "etlagg: a.st: lossy input: $lossy"
etlreport cpu.st 2>err >cpu.txt
check_eq loss-line-etlreport "$(cat err)" \
    "etlreport: cpu.st: lossy input: $lossy"
check_eq loss-footer-text "$(tail -1 cpu.txt)" \
    "note: computed from lossy input: $lossy"
etlreport -f csv cpu.st 2>err >cpu.csv
check_eq loss-csv-warning "$(grep -c 'lossy input' err):$(grep -c lossy cpu.csv)" \
    "1:0"
etlreport -f svg cpu.st 2>/dev/null >cpu.svg
check_eq loss-note-svg "$(grep -c "id=\"lossy\".*$lossy" cpu.svg)" 1
etlagg tree a.st 2>/dev/null | etlreport -f html 2>/dev/null >tree.html
check_eq loss-note-html "$(grep -c "id=\"lossy\".*$lossy" tree.html)" 1
# A filter's dropped events are a note, not a loss.
etlfilter --pid 1 a.st 2>/dev/null | etlagg stats 2>err >/dev/null
check_eq filtered-is-no-loss "$(grep -c 'filtered' err)" 0
# A stream cut short: etlagg says so, and its table carries it on.
size=$(wc -c <a.st)
head -c $((size - 20)) a.st >cut.st
etlagg stats cut.st 2>/dev/null | etlreport 2>err >/dev/null
check_eq cut-input-travels "$(grep -c '1 inputs cut short or unreadable' err)" 1

# --merge of tables of another view is an error, not an empty table; so
# are tables given to a view without --merge.
etlagg processes a.st >proc.st 2>/dev/null
etlagg cpu --merge proc.st >/dev/null 2>err
check_eq merge-other-view "$?:$(tail -1 err)" "1:etlagg: proc.st: no cpu table \
to merge (it holds processes tables, of another view)"
etlagg processes proc.st >/dev/null 2>err
check_eq tables-without-merge "$?:$(tail -1 err)" "1:etlagg: proc.st: holds \
tables, not events (--merge adds up tables of this view)"
etlagg processes --merge proc.st proc.st 2>/dev/null | etlreport -f csv \
    2>/dev/null | csv_lf >merged.csv
check_eq merge-own-view "$(sed 1d merged.csv | wc -l | tr -d ' ')" \
    "$(etlreport -f csv proc.st 2>/dev/null | sed 1d | wc -l | tr -d ' ')"
