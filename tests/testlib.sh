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
