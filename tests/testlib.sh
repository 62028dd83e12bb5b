# Helpers for the CLI tests: verdict lines and a scratch directory.
# Sourced by tests/cli/*.sh, which tests/run.sh runs with bin/ on PATH.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$2', expected '$3'"
	fi
}

# CSV rows end in CRLF (RFC 4180); shell tools want LF.
csv_lf() { tr -d '\r'; }

# same_file NAME FILE1 FILE2: FILE1 is not empty and equals FILE2.
same_file() {
	if [ ! -s "$2" ]; then
		fail "$1" "$2 is empty or missing"
	elif cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(cmp "$2" "$3" 2>&1 | head -1)"
	fi
}

# The first $1 fields of each CSV line (quotes respected; one line a row).
csv_first() {
	awk -v n="$1" '{
		q = 0; f = 0; len = length($0)
		for (i = 1; i <= len; i++) {
			c = substr($0, i, 1)
			if (c == "\"") q = !q
			else if (c == "," && !q && ++f == n) break
		}
		print substr($0, 1, i - 1)
	}'
}

# agree NAME HOW1 HOW2: the verdict on two runs that must agree, their
# exit statuses in $one and $two, their output and messages in
# $tmp/one.st, $tmp/one.err, $tmp/two.st and $tmp/two.err.
agree() {
	if [ "$one" != "$two" ]; then
		fail "$1" "exit $one $2, $two $3"
	elif ! cmp -s "$tmp/one.st" "$tmp/two.st"; then
		fail "$1" "the outputs differ"
	elif ! cmp -s "$tmp/one.err" "$tmp/two.err"; then
		fail "$1" "the messages differ: $(diff "$tmp/one.err" \
		    "$tmp/two.err" | head -3 | tr '\n' ' ')"
	else
		pass "$1"
	fi
}

# cut_trace FROM TO: FROM cut inside a buffer, two thirds of the way.
cut_trace() {
	head -c $(($(wc -c <"$1") * 2 / 3 + 1000)) "$1" >"$2"
}

# damage_trace FROM TO AT: FROM with 8 bytes of 0xff at offset AT.
damage_trace() {
	cp "$1" "$2"
	printf '\377\377\377\377\377\377\377\377' | dd of="$2" \
	    bs=1 seek="$3" conv=notrunc 2>/dev/null
}
