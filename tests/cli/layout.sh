#!/bin/sh
# The layout of lib/ (lib/README.md): a folder a stage, in the order the
# README's "### N. folder/" headings give.  Checked here:
# - lib/ has no source file at its top level, and every folder is listed;
# - every module (a .c and its .h) has its line in the README;
# - no #include of a folder listed after the includer's (an upward use);
# - no cycle among the modules' #include lines;
# - no upward use and no cycle among the symbols that the objects of
#   build/lib take from one another (nm), which is what "calls" means.
# Usage: sh tests/cli/layout.sh [LIBDIR [OBJDIR]]

. "$(dirname "$0")/../testlib.sh"

lib=${1:-$ETL_TOP/lib}
obj=${2:-$ETL_TOP/build/lib}

# The order of the folders, one a line, bottom first.
sed -n 's|^### [0-9][0-9]*\. \([a-z_]*\)/.*|\1|p' "$lib/README.md" \
    >"$tmp/order"
if [ ! -s "$tmp/order" ]; then
	fail layout-readme "lib/README.md lists no folder"
	exit 0
fi

# Top level and folders.
top=$(cd "$lib" && ls -- *.c *.h 2>/dev/null | tr '\n' ' ')
check_eq layout-no-top-level-sources "$top" ""
unlisted=""
for d in "$lib"/*/; do
	d=${d%/}; d=${d##*/}
	grep -qx "$d" "$tmp/order" || unlisted="$unlisted $d"
done
check_eq layout-every-folder-listed "$unlisted" ""
big=""
for d in $(cat "$tmp/order"); do
	n=$(ls "$lib/$d" | wc -l)
	[ "$n" -le 25 ] || big="$big $d($n)"
done
check_eq layout-folders-of-25-files-at-most "$big" ""

# Every module has a line (its name in backquotes) under its folder.
awk '
	/^### [0-9]+\. / { d = $3; sub(/\/.*/, "", d); next }
	d != "" { while (match($0, /`[a-z_0-9]+`/)) {
		print d "/" substr($0, RSTART + 1, RLENGTH - 2)
		$0 = substr($0, RSTART + RLENGTH) } }
' "$lib/README.md" | sort -u >"$tmp/listed"
(cd "$lib" && ls -- */*.c */*.h) | sed 's/\.[ch]$//' | sort -u >"$tmp/modules"
missing=$(comm -23 "$tmp/modules" "$tmp/listed" | tr '\n' ' ')
check_eq layout-every-module-in-readme "$missing" ""

# judge FILE WHAT: FILE holds "user used" module pairs (folder/module);
# prints the pairs that go up the order, and those on a cycle.  The
# cycles: modules are taken away while one uses nothing left, or nothing
# left uses it (a topological sort from both ends); the pairs among those
# that stay are on cycles.
judge() {
	awk -v orderfile="$tmp/order" -v what="$2" '
	BEGIN { while ((getline l < orderfile) > 0) rank[l] = ++n }
	$1 == $2 || (($1, $2) in e) { next }
	{
		split($1, a, "/"); split($2, b, "/")
		if (rank[b[1]] > rank[a[1]])
			print "upward " what ": " $1 " -> " $2
		e[$1, $2] = 1; out[$1]++; in_[$2]++
		node[$1] = node[$2] = 1
		from[++m] = $1; to[m] = $2
	}
	END {
		do {
			gone = 0
			for (v in node)
				if (!out[v] || !in_[v]) {
					delete node[v]; gone = 1
					for (i = 1; i <= m; i++)
						if (!cut[i] && (from[i] == v ||
						    to[i] == v)) {
							cut[i] = 1
							out[from[i]]--; in_[to[i]]--
						}
				}
		} while (gone)
		for (i = 1; i <= m; i++)
			if (!cut[i])
				print "cycle " what ": " from[i] " -> " to[i]
	}' "$1" | sort
}

# The #include lines, file by file: "folder/file.c folder/header.h".
for f in "$lib"/*/*.c "$lib"/*/*.h; do
	d=${f%/*}; d=${d##*/}
	sed -n 's/^#[ 	]*include[ 	]*"\([^"]*\.h\)".*/\1/p' "$f" |
	while read -r h; do
		case $h in
		*/*) echo "$d/${f##*/} $h" ;;
		*) if [ -f "$lib/$d/$h" ]; then echo "$d/${f##*/} $d/$h"
		   else echo "$d/${f##*/} ?/$h"; fi ;;
		esac
	done
done >"$tmp/files"
# Module by module: a module is a .c and its .h; a header with no .c of
# its own (a state shared by the files of a folder, an interface) is
# looked through, to the modules whose headers it includes.
awk -v lib="$lib" '
	function stem(f) { sub(/\.[ch]$/, "", f); return f }
	function module(f,  c) { c = stem(f) ".c"
		return (c in isc) || system("test -f \"" lib "/" c "\"") == 0 }
	function reach(m, h,  i) {
		if ((m, h) in seen) return
		seen[m, h] = 1
		if (module(h)) { print m, stem(h); return }
		for (i = 1; i <= n; i++) if (src[i] == h) reach(m, dst[i])
	}
	{ src[++n] = $1; dst[n] = $2; if ($1 ~ /\.c$/) isc[$1] = 1 }
	END { for (i = 1; i <= n; i++) if (dst[i] !~ /^\?/ && module(src[i]))
		reach(stem(src[i]), dst[i]) }
' "$tmp/files" >"$tmp/down"
bad=$(grep ' ?/' "$tmp/files" | sed 's/ ?\// includes a header not in its folder: /')
check_eq layout-same-folder-includes-by-name "$bad" ""
check_eq layout-includes-point-down "$(judge "$tmp/down" include)" ""
# The judge itself, on a few pairs: an upward include, and a cycle.
printf '%s\n' "views/view base/buf" "base/buf cli/cli" >"$tmp/up"
check_eq layout-judge-sees-upward "$(judge "$tmp/up" include)" \
    "upward include: base/buf -> cli/cli"
printf '%s\n' "views/view base/buf" "base/buf base/intern" \
    "base/intern base/buf" >"$tmp/cycle"
check_eq layout-judge-sees-cycle "$(judge "$tmp/cycle" include)" \
    "cycle include: base/buf -> base/intern
cycle include: base/intern -> base/buf"

# The symbols: "user definer" for each symbol an object takes from another.
if [ ! -d "$obj" ] || ! command -v nm >/dev/null; then
	skip layout-calls "no objects in $obj, or no nm (apt-get install binutils)"
	exit 0
fi
for o in "$obj"/*/*.o; do
	d=${o%/*}; d=${d##*/}
	m=${o##*/}; m=${m%.o}
	[ -f "$lib/$d/$m.c" ] || continue	# left from an older layout
	nm -g --defined-only "$o" | awk -v m="$d/$m" 'NF == 3 { print "D", m, $3 }'
	nm -u "$o" | awk -v m="$d/$m" '{ print "U", m, $NF }'
done | awk '$1 == "D" { def[$3] = $2; next } { use[++n] = $2 " " $3 }
	END { for (i = 1; i <= n; i++) { split(use[i], u, " ")
		if (u[2] in def) print u[1], def[u[2]] } }' >"$tmp/calls"
if [ ! -s "$tmp/calls" ]; then
	fail layout-calls "no symbol of $obj is used by another object"
	exit 0
fi
verdict=$(judge "$tmp/calls" call)
check_eq layout-calls-point-down "$verdict" ""
