#!/usr/bin/env bash
# bench-importlive.sh - what a big import does to the hits that come while
# it runs, before and after imports in steps, side by side (issue 25,
# item 6).
#
#     deploy/bench/bench-importlive.sh               # about 4 minutes on 2 cores
#     BEFORE=none deploy/bench/bench-importlive.sh   # this tree alone
#
# deploy/bench/importbench writes a site's 200 MB combined log: 400 days
# of 1,000 pages, each viewed every day (400,000 page days), and the site's
# traffic. For each binary, BEFORE's (a commit, by default 2d98455, the last
# with the import in one transaction) built from the repository's history
# and this tree's:
#   1. the log is imported into a new site with no hits, while a probe
#      tries a shared flock on the database every millisecond: the longest
#      time the file was held, which is what a hit waits;
#   2. cgi's TestImportUnderHits imports it again into a new site while 16
#      processes hit the site (IMPORT_BINARY for BEFORE's): the statuses
#      and times of the hits, and whether the file holds every hit answered.
# Needs Go and python3.
set -euo pipefail

die() {
	echo "bench-importlive: $*" >&2
	exit 1
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BEFORE=${BEFORE:-2d98455}
command -v go >/dev/null || die "go not found"
command -v python3 >/dev/null || die "python3 not found"
T=$(mktemp -d /tmp/bench-importlive.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$REPO"
echo "bench-importlive $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-)"

go build -trimpath -o "$T/after.cgi" ./cgi
bins=(after)
if [ "$BEFORE" != none ]; then
	mkdir -p "$T/before-src"
	git archive --format=tar "$BEFORE" | tar -x -C "$T/before-src"
	(cd "$T/before-src" && go build -trimpath -o "$T/before.cgi" ./cgi)
	bins=(before after)
	echo "before: $(git log -1 --format='%h %s' "$BEFORE")"
fi
echo "after:  $(git log -1 --format='%h %s')$(git diff --quiet HEAD || echo ' (and changes not committed)')"
go run ./deploy/bench/importbench log -days 400 -pages 1000 -sweep -size $((200 << 20)) "$T/site.log"

# probe DB: prints, when killed, the longest time a shared flock on DB
# could not be had.
cat >"$T/probe.py" <<'EOF'
import fcntl, os, signal, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
start, longest = None, 0.0
def done(*_):
    print("%.3f" % longest, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
while True:
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        if start is not None:
            longest, start = max(longest, time.monotonic() - start), None
    except BlockingIOError:
        if start is None:
            start = time.monotonic()
    time.sleep(0.001)
EOF

echo "1. no hits: the longest the database was held"
for b in "${bins[@]}"; do
	db="$T/$b.db"
	env -u GATEWAY_INTERFACE "$T/$b.cgi" create -db "$db" www -site -hosts blog.example >/dev/null 2>&1
	python3 "$T/probe.py" "$db" >"$T/probe.out" &
	probe=$!
	start=$(date +%s.%N)
	env -u GATEWAY_INTERFACE "$T/$b.cgi" import -db "$db" -log "$T/site.log" www >"$T/out" 2>&1 || die "$b: import failed: $(cat "$T/out")"
	end=$(date +%s.%N)
	sleep 0.2
	kill "$probe"
	wait "$probe" || true
	printf '%-7s import %6.1f s, database held at most %s s  %s\n' "$b" "$(echo "$end - $start" | bc)" "$(cat "$T/probe.out")" \
		"$(grep -h '^held' "$T/out" || true)"
	rm -f "$db" "$db.lock"
done

echo "2. 16 processes hitting the site during the import"
for b in "${bins[@]}"; do
	env=()
	[ "$b" = before ] && env=(IMPORT_BINARY="$T/before.cgi")
	env "${env[@]}" go test -count=1 -run 'TestImportUnderHits$' -v ./cgi 2>&1 |
		grep -E 'import of|held the|hits answered|views in the file|^(ok|FAIL|---)' | sed "s/^/$b: /" || true
done
echo "run time ${SECONDS}s"
