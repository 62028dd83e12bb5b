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
