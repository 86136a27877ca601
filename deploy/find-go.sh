# shellcheck shell=bash
# find-go.sh - find_go, for the scripts that build the counter from source
# (deploy/install.sh, deploy/build.sh). Sourced, not run.

# find_go GOMOD prints the first go new enough for GOMOD's go line, in
# PATH or in Go's own place (/usr/local/go, which sudo's PATH leaves out),
# or says on stderr which it found and fails. Debian's golang-go, which
# other packages recommend, is often older and comes first in PATH.
find_go() {
	local need g have seen=""
	need=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$1")
	for g in $(type -aP go) /usr/local/go/bin/go; do
		[ -x "$g" ] || continue
		have=$("$g" version 2>/dev/null | cut -d' ' -f3)
		seen="$seen $g ($have)"
		if [ "$(printf '%s\n%s\n' "$need" "${have#go}" | sort -V | head -n 1)" = "$need" ]; then
			printf '%s\n' "$g"
			return 0
		fi
	done
	echo "no Go $need or later to build with (found:${seen:- none}); install Go from https://go.dev/dl/" >&2
	return 1
}
