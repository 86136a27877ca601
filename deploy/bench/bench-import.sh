#!/usr/bin/env bash
# bench-import.sh - the peak memory of counter.cgi import, before and after,
# side by side in one run (issue 24, item 2).
#
#     deploy/bench/bench-import.sh                  # about 2 minutes on 2 cores
#     BEFORE=none deploy/bench/bench-import.sh      # this tree's binary alone
#     SIZE_MB=20 deploy/bench/bench-import.sh       # smaller files
#
# deploy/bench/importbench writes, into a temp dir:
#   site.log    SIZE_MB (200) of a busy site's combined log: a year of a
#               2,000-page site, its pages' views by Zipf, each with its
#               style sheet, script and images, crawlers, 304s and 404s
#   small.log   the same site's year at a tenth of the traffic
#   sweep.log   1,000 days of 1,000 pages each viewed every day: a million
#               page days, the most one import takes (imports.MaxPageDays)
#   field.csv   a stats.csv whose second line's views field is SIZE_MB of x
# Each log is imported (for real, not -dry-run) into a new database with
# the site www for blog.example; field.csv with -dry-run -name blog, which
# must refuse it. The binary of BEFORE (a commit, by default 06a4b93, the
# last before the import was bounded) is built from the repository's
# history and runs the same imports. Peak RSS is GNU time's %M.
#
# Needs GNU time (Debian package time) and Go.
set -euo pipefail

die() {
	echo "bench-import: $*" >&2
	exit 1
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIZE_MB=${SIZE_MB:-200}
BEFORE=${BEFORE:-06a4b93}
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
command -v go >/dev/null || die "go not found"
T=$(mktemp -d /tmp/bench-import.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$REPO"
echo "bench-import $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-)"

export CGO_ENABLED=0
go build -trimpath -ldflags="-s -w" -o "$T/after.cgi" ./cgi
bins=(after)
if [ "$BEFORE" != none ]; then
	mkdir -p "$T/before-src"
	git archive --format=tar "$BEFORE" | tar -x -C "$T/before-src"
	(cd "$T/before-src" && GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w" -o "$T/before.cgi" ./cgi)
	bins=(before after)
	echo "before: $(git log -1 --format='%h %s' "$BEFORE")"
fi
echo "after:  $(git log -1 --format='%h %s')$(git diff --quiet HEAD || echo ' (and changes not committed)')"

go run ./deploy/bench/importbench log -size $((SIZE_MB << 20)) "$T/site.log"
go run ./deploy/bench/importbench log -size $(((SIZE_MB << 20) / 10)) "$T/small.log"
go run ./deploy/bench/importbench log -days 1000 -pages 1000 -sweep -size 0 "$T/sweep.log"
go run ./deploy/bench/importbench csv -field $((SIZE_MB << 20)) "$T/field.csv"
ls -l "$T"/*.log "$T"/*.csv | awk '{printf "  %s %d MB\n", $NF, $5 / 1048576}'

# measure BIN FILE ARGS...: runs BIN import ARGS on a new database made for
# FILE, and prints peak RSS in MB, the time, the exit status and the last
# line of output (the first of an error).
measure() {
	local bin=$1 name=$2
	shift 2
	local db="$T/$bin-$name.db" out status
	rm -f "$db" "$db.lock"
	env -u GATEWAY_INTERFACE "$T/$bin.cgi" create -db "$db" www -site -hosts blog.example >/dev/null 2>&1
	status=0
	env -u GATEWAY_INTERFACE /usr/bin/time -f '%M %e' -o "$T/time" "$T/$bin.cgi" import -db "$db" "$@" >"$T/out" 2>&1 || status=$?
	read -r kb secs < <(tail -n1 "$T/time") # after "Command exited with ..."
	out=$(grep -m1 -E 'pages:|counter:' "$T/out" | cut -c1-110 || true)
	printf '%-7s %-10s %7.1f MB %7.2f s  exit %d  %s\n' "$bin" "$name" "$(awk "BEGIN { print $kb / 1024 }")" "$secs" "$status" "$out"
	rm -f "$db" "$db.lock"
}

echo "binary  file         peak RSS     time         output"
for f in small site sweep; do
	for b in "${bins[@]}"; do
		measure "$b" "$f.log" -log "$T/$f.log" www
	done
done
for b in "${bins[@]}"; do
	measure "$b" field.csv -dry-run -name blog "$T/field.csv"
done
echo "run time ${SECONDS}s"
