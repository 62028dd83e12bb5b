#!/bin/sh
# Decodes every real trace in the corpus (../shared/corpus/etl) and checks
# the counts against etl-format.md section 9 and against the PerfView
# baselines in ../shared/corpus/oracles.  Skips when the corpus is absent.

. "$(dirname "$0")/../testlib.sh"

etl=$ETL_CORPUS/etl
oracles=$ETL_CORPUS/oracles
if [ ! -d "$etl" ]; then
	skip corpus "no corpus at $ETL_CORPUS (set ETL_CORPUS)"
	exit 0
fi

# Events per file as counted by the spec's reference decoder (section 9).
while read -r name events; do
	f=$etl/$name.etl
	if ! etlcat -q "$f" >"$tmp/$name.zst" 2>"$tmp/err"; then
		fail "decode-$name" "etlcat exit $?: $(cat "$tmp/err")"
		continue
	fi
	[ -s "$tmp/err" ] && { fail "decode-$name" "stderr: $(cat "$tmp/err")"; continue; }
	got=$(etlagg stats "$tmp/$name.zst" | etlreport -f csv | csv_lf |
	    awk -F, 'NR > 1 { s += $NF } END { print s + 0 }')
	check_eq "events-$name" "$got" "$events"
done <<EOT
airbus-etl-parser__AMSITrace 21
airbus-etl-parser__ShutdownPerfDiagLogger 17078
airbus-etl-parser__lxcore_kernel 4
demikernel__PktMon 467
krabsetw__powershell 114
perfview__SelfDescribingSingleEvent 23
perfview__gcevents__PerfViewData 71
perfview__net.4.5.2.x64 179474
perfview__net.4.5.x86.2016__PerfViewData 185961
perfview__primitive-types 7
perfview__smallEtlFile 2
sonde__test 112
EOT

# Counts by "provider/event" (versions summed) from our stats table.
our_counts() {
	etlagg stats "$tmp/$1.zst" | etlreport -f csv | csv_lf |
	    awk -F, 'NR > 1 { n[$2 "/" $3] += $NF }
	    END { for (k in n) print k "\t" n[k] }' | sort
}

# PerfView leaves idle samples out (ThreadId 0, neither DPC nor ISR).
busy_samples() {
	etlreport -f csv "$tmp/$1.zst" | csv_lf |
	    awk -F, '$6 == "sample" && !($4 == 0 && $0 ~ /flags=0x0;/)' |
	    wc -l | tr -d ' '
}

# Every kernel, KernelTraceControl and TraceLogging count PerfView lists.
compare_oracle() {
	name=$1 oracle=$2
	our_counts "$name" >"$tmp/ours"
	grep '^COUNT ' "$oracles/$oracle" | sed 's/^COUNT //' |
	    sed 's/^MSNT_SystemTrace\//Windows Kernel\//' |
	    grep -v 'DotNETRuntime\|^PerfView/\|^Microsoft-Windows-\|^System\.' |
	    while IFS= read -r line; do
		key=${line%:*} want=${line##*:}
		if [ "$key" = "Windows Kernel/PerfInfo/Sample" ]; then
			got=$(busy_samples "$name")
		else
			got=$(awk -F'\t' -v k="$key" '$1 == k { print $2 }' \
			    "$tmp/ours")
		fi
		[ "$got" = "$want" ] || echo "$key: $got, PerfView $want"
	    done >"$tmp/diff"
	if [ -s "$tmp/diff" ]; then
		fail "oracle-$name" "$(cat "$tmp/diff")"
	else
		pass "oracle-$name"
	fi
}

compare_oracle perfview__net.4.5.2.x64 perfview__net.4.5.2.x64.baseline.txt
compare_oracle perfview__net.4.5.x86.2016__PerfViewData \
    perfview__net.4.5.x86.2016.baseline.txt
compare_oracle perfview__primitive-types perfview__primitive-types.baseline.txt
compare_oracle perfview__gcevents__PerfViewData perfview__gcevents.baseline.txt

# Manifest providers have no names here: compare their totals, less the
# CLR events PerfView's TraceLog removes (82 ClrStackWalk, 190
# MethodILToNativeMap, rundown 144 and 150) and, for the 2016 trace, the
# 20 Method/LoadVerbose (143) duplicates it drops (spec section 9).
provider_total() {
	etlagg stats "$tmp/$1.zst" | etlreport -f csv | csv_lf |
	    awk -F, -v p="$2" '$2 == p && !(($5 == 82 || $5 == 190) &&
	    p == "Microsoft-Windows-DotNETRuntime") &&
	    !(($5 == 144 || $5 == 150) &&
	    p == "Microsoft-Windows-DotNETRuntimeRundown") { s += $NF }
	    END { print s + 0 }'
}
oracle_total() {
	grep "^COUNT $2/" "$oracles/$1" |
	    awk -F: '{ s += $NF } END { print s + 0 }'
}
for p in Microsoft-Windows-DotNETRuntime Microsoft-Windows-DotNETRuntimeRundown \
    Microsoft-Windows-DotNETRuntimePrivate Microsoft-Windows-Kernel-EventTracing; do
	check_eq "total-x64-$p" "$(provider_total perfview__net.4.5.2.x64 "$p")" \
	    "$(oracle_total perfview__net.4.5.2.x64.baseline.txt "$p")"
done
check_eq "total-2016-DotNETRuntime" \
    "$(provider_total perfview__net.4.5.x86.2016__PerfViewData \
    Microsoft-Windows-DotNETRuntime)" \
    "$(($(oracle_total perfview__net.4.5.x86.2016.baseline.txt \
    Microsoft-Windows-DotNETRuntime) + 20))"

# ImageID/DbgID rows join their images: all 3590 + 3534 + 44 (spec 6).
etlcat -v -o /dev/null "$etl/perfview__net.4.5.2.x64.etl" 2>"$tmp/err"
check_eq imageid-joined-x64 "$(grep -o '[0-9]* ImageID/DbgID events joined to images, [0-9]* without' "$tmp/err")" \
    "7168 ImageID/DbgID events joined to images, 0 without"

# Thread v3 payloads hold the affinity where v2 had StartAddr (5.3).
etlreport -f csv "$tmp/airbus-etl-parser__ShutdownPerfDiagLogger.zst" |
    csv_lf | awk -F, '$6 == "thread"' | head -1 >"$tmp/thread"
grep -q 'affinity=0x' "$tmp/thread" && pass thread-affinity ||
    fail thread-affinity "$(cat "$tmp/thread")"

# First-event field values that the baselines show.
sys=$(etlagg sysconfig "$tmp/perfview__net.4.5.2.x64.zst" | etlreport -f csv |
    csv_lf | sed -n 2p)
check_eq sysconfig-x64 "$(echo "$sys" | cut -d, -f3,4,5,8,10,14,15,18,19)" \
    "9200,8,3592,8,10000000,65536,360,0x4010001,Relogger"
# The baseline shows StartTime=20/07/29 00:07:00.62...
check_eq sysconfig-x64-start "$(echo "$sys" | cut -d, -f11 | cut -c1-22)" \
    "2020-07-29 00:07:00.62"
first=$(etlreport -f csv "$tmp/perfview__primitive-types.zst" | csv_lf |
    grep PrimitiveTypesTest | head -1)
# The baseline prints char_type=77 and int64_type=-204.  The event's own
# metadata declares char_type UINT8 with OutType String (so: the character
# 77, "M") and int64_type UINT64 (so: -204 as an unsigned 64-bit number);
# we render what the metadata declares.
case $first in
*"string_type=Mercury; boolean_type=false; char_type=M; int16_type=-51; int32_type=-102; uint16_type=51; uint32_type=102; int64_type=18446744073709551412; uint64_type=204; guid_type=0ad614c4-0ef4-4225-8"*)
	pass primitive-types-fields ;;
*)	fail primitive-types-fields "$first" ;;
esac
# The spec: its one TraceLogging event, in a compressed buffer, renders
# as { "b":"Hello", "c":"World!" } (a struct a with members b and c).
nested=$(etlreport -f csv "$tmp/perfview__SelfDescribingSingleEvent.zst" |
    csv_lf | grep ',MySource,' | csv_first 10)
check_eq self-describing-nested "${nested#*,generic,}" \
    "MySource,TestEvent,0,a.b=Hello; a.c=World!"
dcstart=$(etlreport -f csv "$tmp/perfview__net.4.5.2.x64.zst" | csv_lf |
    awk -F, '$6 == "process" && $8 == "Process/DCStart" && $3 == 456')
case $dcstart in
# The baseline: "EVENT 28.726: .../Process/DCStart PID=456 ... ParentID=4;
# ... ExitStatus=259" (its times are milliseconds).
0.02872*",smss.exe,456,"*"ppid=4;"*"exit_status=259"*) pass process-dcstart-smss ;;
*)	fail process-dcstart-smss "$dcstart" ;;
esac
