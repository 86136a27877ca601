#!/usr/bin/env bash
# deploy/test/fuzz.sh - run every fuzz target of the module for a bounded time
# each (FUZZ_TIME, default 15s), one after the other, and print a line per
# target with the inputs it ran:
#
#   fuzz FuzzParseStyle (./counter): 41234 execs in 15s, ok
#
# The seed corpora are plain files under testdata/fuzz/TARGET/, fed by the
# targets themselves. An input that fails is written by go test under the
# package's own testdata/fuzz/TARGET/; this script prints it so that it can
# be moved to the top-level testdata/fuzz/TARGET/ once the bug is fixed.
#
# Exits non-zero only on a finding: a target that wrote a failing input,
# panicked, or failed the same way twice. Go 1.26's fuzzing coordinator can
# end a run of a duration -fuzztime with "context deadline exceeded" and no
# input at all when the machine is loaded (go.dev/issue/75804): such a run is
# named as that flake and run once more, and only a second failure counts.
#
# FUZZ_MODULE=DIR fuzzes another module (the test of this script plants a
# crasher in one).
set -uo pipefail
cd "${FUZZ_MODULE:-$(dirname "$0")/../..}" || exit 1
fuzztime=${FUZZ_TIME:-15s}
status=0

# fuzz_once PKG TARGET: run one target once; sets out and rc.
fuzz_once() {
	# -fuzzminimizetime: by default each new interesting input is
	# minimised for up to a minute, which would eat the whole budget.
	out=$(go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s -v "$1" 2>&1)
	rc=$?
}

# written DIR TARGET: the failing inputs go test has left for TARGET.
written() {
	find "$1/testdata/fuzz/$2" -maxdepth 1 -type f 2>/dev/null | sort
}

# The targets are found by name, without building every package to list them.
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
	for target in $(grep -h -o '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | cut -d' ' -f2); do
		before=$(written "$dir" "$target")
		fuzz_once "$dir" "$target"
		if [ "$rc" -ne 0 ] && [ "$(written "$dir" "$target")" = "$before" ] &&
			! printf '%s\n' "$out" | grep -q -e '^panic:' -e 'Failing input written' &&
			printf '%s\n' "$out" | grep -q 'context deadline exceeded'; then
			# Shown, but not as a failure: .ci/run counts "--- FAIL" lines.
			printf '%s\n' "$out" | sed 's/^--- FAIL: /--- FLAKE (go.dev\/issue\/75804): /'
			echo "fuzz $target ($dir): ended with no failing input (Go's fuzzing coordinator, go.dev/issue/75804); once more"
			fuzz_once "$dir" "$target"
		fi
		printf '%s\n' "$out"
		execs=$(printf '%s\n' "$out" | grep -o 'execs: [0-9]*' | tail -1 | cut -d' ' -f2)
		if [ "$rc" -eq 0 ]; then
			echo "fuzz $target ($dir): ${execs:-0} execs in $fuzztime, ok"
			continue
		fi
		status=1
		echo "fuzz $target ($dir): FAILED after ${execs:-0} execs"
		for f in $(written "$dir" "$target"); do
			echo "failing input $f:" && cat "$f"
		done
	done
done
exit "$status"
