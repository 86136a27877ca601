#!/usr/bin/env bash
# deploy/test/fuzz.sh - run every fuzz target of the module for a bounded time
# each (FUZZ_TIME, default 15s), one after the other, and print a line per
# target with the inputs it ran:
#
#   fuzz FuzzParseStyle (hitcounter/counter): 41234 execs in 15s, ok
#
# The seed corpora are plain files under testdata/fuzz/TARGET/, fed by the
# targets themselves. An input that fails is written by go test under the
# package's own testdata/fuzz/TARGET/; this script prints it so that it can
# be moved to the top-level testdata/fuzz/TARGET/ once the bug is fixed.
# Exits non-zero if any target failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
fuzztime=${FUZZ_TIME:-15s}
status=0
# The targets are found by name, without building every package to list them.
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
	pkg=$dir
	for target in $(grep -h -o '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | cut -d' ' -f2); do
		# -fuzzminimizetime: by default each new interesting input is
		# minimised for up to a minute, which would eat the whole budget.
		out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s -v "$pkg" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		execs=$(printf '%s\n' "$out" | grep -o 'execs: [0-9]*' | tail -1 | cut -d' ' -f2)
		if [ "$rc" -eq 0 ]; then
			echo "fuzz $target ($pkg): ${execs:-0} execs in $fuzztime, ok"
		else
			status=1
			echo "fuzz $target ($pkg): FAILED after ${execs:-0} execs"
			for f in "$dir/testdata/fuzz/$target"/*; do
				[ -f "$f" ] && echo "failing input $f:" && cat "$f"
			done
		fi
	done
done
exit "$status"
