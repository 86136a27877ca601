#!/usr/bin/env bash
# bench-script.sh - what the script's requests (issue 39) cost beside an
# image hit, side by side in one run (deploy/bench/scriptbench):
#
#     deploy/bench/bench-script.sh                 # N=200, FastCGI 3 rounds of 3s
#     N=100 FCGI_DURATION=2s FCGI_ROUNDS=3 deploy/bench/bench-script.sh
#
# Under CGI, the hit binary as shipped (counter.cgi, with the full tool it
# execs beside it as install.sh lays them out), each run a new visitor's
# counted view of a page of the site bench (www.example.org, a reload
# window and an ignore list on), interleaved:
#   image hit (PNG)       GET /bench.png, the Referer the page
#   script count          GET /bench.count?page=PAGE, what NAME.js sends
#                         from a post (targets: p50 wall time and peak RSS
#                         at most 1.10x the image hit's)
#   count, 100 pages      the same from an index page listing 100 posts
#                         (p=, 100 times), each post viewed once before
#   NAME.json, 100 pages  GET /bench.json with page= 100 times, counting
#                         nothing: the hit binary execs the full tool
#                         (targets for a read of 100 pages: at most 2.00x)
# Peak RSS is GNU time's, in a second run of each (a Go parent's child
# reports the parent's peak).
#
# Then the full tool as one FastCGI process on a socket of its own (as
# lighttpd's bin-path or the socket-activated service runs it), its site
# counting every hit (reload=off, the costlier path), loaded by 8 clients
# from 2,048 browsers with image hits and script counts in turn, round
# after round: the median hits/s of each (target: script counts at least
# 0.90x image hits).
#
# Needs GNU time (Debian package time) and Go.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
N=${N:-200}
FCGI_DURATION=${FCGI_DURATION:-3s}
FCGI_ROUNDS=${FCGI_ROUNDS:-3}
[ -x /usr/bin/time ] || { echo "bench-script: /usr/bin/time not found (apt-get install -y time)" >&2; exit 1; }
T=$(mktemp -d /tmp/bench-script.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "bench-script $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-), $(git log -1 --format=%h)"
export CGO_ENABLED=0
mkdir -p "$T/counter" "$T/cgi-bin" "$T/cgi" "$T/fcgi"
go build -trimpath -ldflags="-s -w" -o "$T/counter/counter-tool" ./cgi
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/counter.cgi" ./cgi/hit
go run ./deploy/bench/scriptbench -hit "$T/cgi-bin/counter.cgi" -tool "$T/counter/counter-tool" -dir "$T" \
	-n "$N" -fcgi-duration "$FCGI_DURATION" -fcgi-rounds "$FCGI_ROUNDS"
echo "run time ${SECONDS}s"
