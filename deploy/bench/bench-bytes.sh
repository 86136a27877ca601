#!/usr/bin/env bash
# bench-bytes.sh - what a counted view writes to the database file, beside the
# binary of another commit, side by side in one run (issue 31).
#
#     deploy/bench/bench-bytes.sh              # against 8cfcf85
#     deploy/bench/bench-bytes.sh COMMIT       # against COMMIT
#     N=40 DURATION=10s deploy/bench/bench-bytes.sh
#
# Both are built static and stripped, as shipped (this commit's as the pair
# that install.sh lays out). For each of four
# files (a fresh one with a plain counter, a fresh one with a site, and a
# year-old one: 200 counters with a year of days and a site with a year of
# pages, written by deploy/bench/bytesgen built in COMMIT's tree, so that
# both binaries read it; the newer one migrates its copy), bytesbench
# prints, per binary:
#   - CGI: the bytes each counted view writes to the file (the sum of its
#     pwrite64 calls, seen by strace) and its fdatasyncs, one visitor at a
#     time, the defaults as shipped (cost meter on): median and max of N;
#   - FastCGI: hits per second and bytes and fdatasyncs per hit, at 1 and
#     16 clients, for DURATION each, with strace attached (--seccomp-bpf:
#     it stops the process on those calls alone).
# Each binary's file gets two views before the measure: the first write of
# a newer build migrates the file, and the day's first view of version 6
# starts its today bucket.
#
# Needs strace (Debian package strace) and Go; 2-3 minutes on 2 cores.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BEFORE=${1:-8cfcf85}
N=${N:-20}
DURATION=${DURATION:-5s}
command -v strace >/dev/null || { echo "bench-bytes: strace not found (apt-get install -y strace)" >&2; exit 1; }
T=$(mktemp -d /tmp/bench-bytes.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$REPO"
echo "bench-bytes $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-)"
echo "new: $(git log -1 --format='%h %s') $(git diff --quiet HEAD -- . || echo '(and changes not committed)')"
echo "before: $(git log -1 --format='%h %s' "$BEFORE")"
export CGO_ENABLED=0
# The pair as installed: counter.cgi, the hit binary, answers CGI views
# itself and execs the full tool, ../counter/counter-tool, for FastCGI.
mkdir -p "$T/new/cgi-bin" "$T/new/counter"
go build -trimpath -ldflags="-s -w" -o "$T/new/counter/counter-tool" ./cgi
go build -trimpath -ldflags="-s -w" -o "$T/new/cgi-bin/counter.cgi" ./cgi/hit
mkdir -p "$T/before-src"
git archive --format=tar "$BEFORE" | tar -x -C "$T/before-src"
# The generator, in the older tree, writes a file of the older schema.
mkdir -p "$T/before-src/deploy/bench/bytesgen"
cp deploy/bench/bytesgen/main.go "$T/before-src/deploy/bench/bytesgen/"
(cd "$T/before-src" && GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w" -o "$T/counter-before.cgi" ./cgi &&
	GOFLAGS=-mod=mod go build -o "$T/bytesgen" ./deploy/bench/bytesgen)
"$T/bytesgen" -db "$T/year.db"
echo "year-old file: $(stat -c %s "$T/year.db") bytes"
label=$(git log -1 --format=%h)
git diff --quiet HEAD -- . || label="$label+"
go run ./deploy/bench/bytesbench -new "$T/new/cgi-bin/counter.cgi" -new-label "$label" \
	-before "$T/counter-before.cgi" -before-label "$(git log -1 --format=%h "$BEFORE")" \
	-year-db "$T/year.db" -dir "$T" -n "$N" -duration "$DURATION"
echo "run time ${SECONDS}s"
