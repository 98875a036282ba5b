#!/usr/bin/env bash
# fuzz.sh: run every fuzz target in lib/ (make fuzz), one at a time, for
# FUZZTIME each (default 20s), and fail if any finds a crasher. Go writes a
# crasher to the package's testdata/fuzz/FuzzName/ folder: commit it, and
# plain `go test` replays it from then on as a regression test.
#
# -fuzzminimizetime is short (FUZZMINIMIZETIME, default 1s): with Go's
# default of 60s the fuzzer spends its budget minimizing each new
# interesting input and reports 0 execs/s for long stretches.
# FUZZ=regexp runs only the targets whose name matches.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fuzztime=${FUZZTIME:-20s}
minimize=${FUZZMINIMIZETIME:-1s}
only=${FUZZ:-.}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# package dir and target name of every "func FuzzX(f *testing.F)" in lib/
targets=$(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' lib | sort | while read -r file; do
	grep -oE '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //' | while read -r name; do
		echo "./$(dirname "$file") $name"
	done
done)

failed=()
printf '%-48s %10s %12s %8s\n' target execs execs/s result
while read -r pkg name; do
	[[ -n "$name" && "$pkg $name" =~ $only ]] || continue
	result=ok
	if ! go test -tags sqlite_fts5 -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" \
		-fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1; then
		result=FAIL
		failed+=("$pkg $name")
	fi
	# the last progress line: "fuzz: elapsed: 20s, execs: 123456 (6170/sec), ..."
	last=$(grep -E '^fuzz: elapsed: [0-9]+s, execs: ' "$log" | tail -1 || true)
	secs=$(sed -E 's/^fuzz: elapsed: ([0-9]+)s.*/\1/' <<<"$last")
	execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
	rate=-
	if [[ -n "$last" && "$secs" -gt 0 ]]; then
		rate=$((execs / secs))
	fi
	printf '%-48s %10s %12s %8s\n' "${pkg#./lib/} $name" "${execs:--}" "$rate" "$result"
	if [[ $result == FAIL ]]; then
		sed 's/^/    /' "$log" | grep -v '^    fuzz: elapsed' >&2
	fi
done <<<"$targets"

if ((${#failed[@]})); then
	echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
	echo "hint: the crasher is in the package's testdata/fuzz/; go test -tags sqlite_fts5 -run 'NAME/ID' PKG replays it" >&2
	exit 1
fi
