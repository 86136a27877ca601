#!/usr/bin/env bash
# soak.sh - counter.cgi as a FastCGI process under a mixed load for 10
# minutes (issue 11): 16 clients send hits on three counters, JSON counts,
# statistics pages with and without a session, wrong and right logins and
# slowly sent login bodies. Every minute it prints the process's RSS,
# threads and open files (the least of one sample a second) and the hits
# answered a second; it fails if any of the first three drifts upward, a
# request goes unanswered, an answer is a server error, or the file's
# counts differ from the hits answered.
#
#     deploy/bench/soak.sh                          # 10 minutes
#     DURATION=2m EVERY=10s deploy/bench/soak.sh    # shorter; CI runs a minute (TestSoak)
set -euo pipefail
cd "$(dirname "$0")/../.."
T=$(mktemp -d /tmp/soak.XXXXXX)
trap 'rm -rf "$T"' EXIT
go build -trimpath -ldflags='-s -w' -o "$T/counter.cgi" ./cgi
echo "soak $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
go run ./deploy/bench/soak -bin "$T/counter.cgi" -duration "${DURATION:-10m}" -every "${EVERY:-1m}" "$@"
