#!/bin/sh
# The WPR recording profiles (pipelines/*.wprp): well-formed XML; the
# structure of WPR's documented profile schema (WPRControlProfiles.xsd:
# the WindowsPerformanceRecorder root with its Version, Profiles holding
# collectors, then providers, then profiles in that order, each Profile
# with Id, Name, Description, DetailLevel and LoggingMode, in File and
# Memory twins, its Collectors referring to collectors and providers
# defined above, keyword and stack names from the schema's lists); and
# every kernel keyword, stack, provider GUID and merged custom event it
# asks for is one the decoder knows (lib/).  Needs xmllint.

. "$(dirname "$0")/../testlib.sh"

if ! command -v xmllint >/dev/null 2>&1; then
	skip wprp "no xmllint (apt-get install libxml2-utils)"
	exit 0
fi
lib=$ETL_TOP/lib

# x FILE XPATH: the XPath's string values, one a line.
x() {
	xmllint --xpath "$2" "$1" 2>/dev/null | tr ' ' '\n' |
	    sed -n 's/^[A-Za-z]*="\(.*\)"$/\1/p'
}
# n FILE XPATH: how many nodes match.
n() {
	xmllint --xpath "count($2)" "$1" 2>/dev/null
}
# children FILE XPATH: the names of the element's children, in order.
children() {
	i=1
	while [ $i -le "$(n "$1" "$2/*")" ]; do
		echo "$(xmllint --xpath "name($2/*[$i])" "$1")"
		i=$((i + 1))
	done
}

# What the decoder must know for each schema keyword or stack it asks
# for: names in lib/etw/etw_names.c (kernel groups and event types).
decoder_names() {
	case $1 in
	ProcessThread)	echo Process Thread ;;
	Loader)		echo Image ;;
	CpuConfig)	echo SystemConfig ;;
	SampledProfile)	echo Sample StackWalk ;;
	VirtualAllocation) echo VirtualAlloc StackWalk ;;
	VirtualFree)	echo VirtualFree StackWalk ;;
	CSwitch)	echo CSwitch StackWalk ;;
	ReadyThread)	echo ReadyThread StackWalk ;;
	ImageId)	echo ImageID ;;
	BuildInfo)	echo SysConfig/BuildInfo ;;
	VolumeMapping)	echo SysConfig/VolumeMapping ;;
	EventMetadata)	echo MetaData ;;
	*)		echo "?$1" ;;
	esac
}

# A GUID the decoder knows: written in lib/ as its parts
# (0x901d2afa, 0x4ff6, 0x46d7), as its bytes in file order, or as text.
guid_known() {
	g=$(echo "$1" | tr 'A-F' 'a-f')
	d1=${g%%-*}
	rest=${g#*-}
	d2=${rest%%-*}
	rest=${rest#*-}
	d3=${rest%%-*}
	parts="0x$d1, 0x$d2, 0x$d3"
	bytes=$(echo "$d1" | sed 's/\(..\)\(..\)\(..\)\(..\)/0x\4, 0x\3, 0x\2, 0x\1/')
	cat "$lib"/*/*.c | tr -s ' \t\n' ' ' | grep -qi -e "$parts" -e "$bytes" -e "$g"
}

found=0
for f in "$ETL_TOP"/pipelines/*.wprp; do
	[ -f "$f" ] || continue
	found=1
	b=$(basename "$f" .wprp)
	if xmllint --noout "$f" 2>"$tmp/err"; then
		pass "wprp-$b-well-formed"
	else
		fail "wprp-$b-well-formed" "$(head -c 300 "$tmp/err")"
		continue
	fi

	# The root, its Version, one Profiles.
	bad=
	[ "$(n "$f" '/WindowsPerformanceRecorder')" = 1 ] ||
	    bad="$bad no WindowsPerformanceRecorder root;"
	[ -n "$(x "$f" '/WindowsPerformanceRecorder/@Version')" ] ||
	    bad="$bad no Version;"
	[ "$(n "$f" '/WindowsPerformanceRecorder/Profiles')" = 1 ] ||
	    bad="$bad not one Profiles;"
	# Children of the root and of Profiles, in the schema's order.
	order=$(children "$f" /WindowsPerformanceRecorder | uniq | tr '\n' ' ')
	case "$order" in
	"Profiles " | "Profiles TraceMergeProperties ") ;;
	*)	bad="$bad root holds: $order;" ;;
	esac
	order=$(children "$f" /WindowsPerformanceRecorder/Profiles | uniq)
	rank=0
	for e in $order; do
		case $e in
		SystemCollector) r=1 ;; EventCollector) r=2 ;;
		HeapEventCollector) r=3 ;; SystemProvider) r=4 ;;
		EventProvider) r=5 ;; HeapEventProvider) r=6 ;; Profile) r=7 ;;
		*) r=0; bad="$bad unknown element $e in Profiles;" ;;
		esac
		[ $r -ge $rank ] || bad="$bad $e out of order;"
		rank=$r
	done
	[ $rank = 7 ] || bad="$bad no Profile last;"
	xmllint --xpath '//SystemCollector/@Name' "$f" 2>/dev/null |
	    grep -v -e 'Name="NT Kernel Logger"' \
	    -e 'Name="Circular Kernel Context Logger"' | grep -q . &&
	    bad="$bad a SystemCollector Name outside the schema's two;"
	if [ -z "$bad" ]; then
		pass "wprp-$b-layout"
	else
		fail "wprp-$b-layout" "$bad"
	fi

	# Profiles: attributes, Id = Name.DetailLevel.LoggingMode, File and
	# Memory twins, references to what is defined.
	bad=
	np=$(n "$f" '//Profile')
	for a in Id Name Description DetailLevel LoggingMode; do
		[ "$(n "$f" "//Profile[@$a]")" = "$np" ] ||
		    bad="$bad a Profile without $a;"
	done
	[ "$(n "$f" '//Profile[@DetailLevel!="Light" and @DetailLevel!="Verbose"]')" = 0 ] ||
	    bad="$bad a DetailLevel not Light or Verbose;"
	[ "$(n "$f" '//Profile[@LoggingMode!="File" and @LoggingMode!="Memory"]')" = 0 ] ||
	    bad="$bad a LoggingMode not File or Memory;"
	i=1
	while [ $i -le "$np" ]; do
		id=$(x "$f" "(//Profile)[$i]/@Id")
		want=$(x "$f" "(//Profile)[$i]/@Name").$(x "$f" "(//Profile)[$i]/@DetailLevel").$(x "$f" "(//Profile)[$i]/@LoggingMode")
		[ "$id" = "$want" ] || bad="$bad Profile $id is not $want;"
		i=$((i + 1))
	done
	for name in $(x "$f" '//Profile/@Name' | sort -u); do
		for mode in File Memory; do
			[ "$(n "$f" "//Profile[@Name='$name' and @LoggingMode='$mode']")" -ge 1 ] ||
			    bad="$bad $name has no $mode profile;"
		done
	done
	for ref in SystemCollectorId:SystemCollector \
	    EventCollectorId:EventCollector SystemProviderId:SystemProvider \
	    EventProviderId:EventProvider; do
		for v in $(x "$f" "//${ref%%:*}/@Value"); do
			[ "$(n "$f" "/WindowsPerformanceRecorder/Profiles/${ref#*:}[@Id='$v']")" = 1 ] ||
			    bad="$bad ${ref%%:*} $v defined nowhere;"
		done
	done
	for base in $(x "$f" '//Profile/@Base'); do
		[ "$(n "$f" "//Profile[@Id='$base']")" = 1 ] ||
		    bad="$bad Base $base defined nowhere;"
	done
	# Every Profile that does not inherit says what it collects.
	[ "$(n "$f" '//Profile[not(@Base) and not(Collectors)]')" = 0 ] ||
	    bad="$bad a Profile with neither Base nor Collectors;"
	if [ -z "$bad" ] && [ "$np" -gt 0 ]; then
		pass "wprp-$b-profiles"
	else
		fail "wprp-$b-profiles" "$np profiles:$bad"
	fi

	# Keywords, stacks, GUIDs and merged events the decoder knows.
	bad=
	for v in $(x "$f" '//SystemProvider/Keywords/Keyword/@Value') \
	    $(x "$f" '//SystemProvider/Stacks/Stack/@Value') \
	    $(x "$f" '//TraceMergeProperty/CustomEvents/CustomEvent/@Value'); do
		for name in $(decoder_names "$v"); do
			grep -q "\"$name\"" "$lib/etw/etw_names.c" ||
			    bad="$bad $v ($name);"
		done
	done
	for g in $(x "$f" '//EventProvider/@Name' |
	    grep -i '^[0-9a-f]\{8\}-[0-9a-f]\{4\}-'); do
		guid_known "$g" || bad="$bad provider $g;"
	done
	[ "$(n "$f" '//EventProvider[not(contains(@Name, "-"))]')" = 0 ] ||
	    bad="$bad an EventProvider named neither by GUID nor by a manifest name;"
	if [ -z "$bad" ]; then
		pass "wprp-$b-decoder-knows"
	else
		fail "wprp-$b-decoder-knows" "unknown to the decoder:$bad"
	fi

	# What the issue asks of the profiles: sampling and VirtualAlloc with
	# stacks, processes, threads and images with ImageID; context
	# switches and heap snapshots in profiles of their own, without
	# sampling.
	bad=
	sp() {	# sp PROFILE-NAME: its system provider's Id
		x "$f" "//Profile[@Name='$1' and @LoggingMode='File']/Collectors/SystemCollectorId/SystemProviderId/@Value"
	}
	has() {	# has PROVIDER-ID Keywords/Keyword|Stacks/Stack VALUE
		[ "$(n "$f" "//SystemProvider[@Id='$1']/$2[@Value='$3']")" = 1 ]
	}
	cpu=$(sp Rustc)
	for k in ProcessThread Loader SampledProfile VirtualAllocation; do
		has "$cpu" Keywords/Keyword $k || bad="$bad Rustc lacks $k;"
	done
	for s in SampledProfile VirtualAllocation; do
		has "$cpu" Stacks/Stack $s || bad="$bad Rustc lacks $s stacks;"
	done
	waits=$(sp RustcWaits)
	for k in CSwitch ReadyThread; do
		has "$waits" Keywords/Keyword $k || bad="$bad RustcWaits lacks $k;"
		has "$waits" Stacks/Stack $k || bad="$bad RustcWaits lacks $k stacks;"
		has "$cpu" Keywords/Keyword $k && bad="$bad Rustc has $k;"
	done
	for p in $waits $(sp RustcHeap); do
		has "$p" Keywords/Keyword SampledProfile &&
		    bad="$bad $p samples too;"
	done
	[ "$(n "$f" "//Profile[@Name='RustcHeap' and @LoggingMode='File']//EventProviderId[@Value=//EventProvider[@Name='901d2afa-4ff6-46d7-8d0e-53645e1a47f5']/@Id]")" = 1 ] ||
	    bad="$bad RustcHeap lacks Microsoft-Windows-Heap-Snapshot;"
	[ "$(n "$f" "//TraceMergeProperty/CustomEvents/CustomEvent[@Value='ImageId']")" = 1 ] ||
	    bad="$bad no ImageId merged;"
	if [ -z "$bad" ]; then
		pass "wprp-$b-content"
	else
		fail "wprp-$b-content" "$bad"
	fi
done
[ $found = 1 ] || fail wprp "no pipelines/*.wprp"
