#!/usr/bin/env bash
# bench-site.sh - what a site of 10,000 pages with three years of history
# costs, beside a single counter in the same run: a counted hit as a CGI
# process and under FastCGI, and the site's statistics page.
#
#     deploy/bench/bench-site.sh                          # about 2 minutes on 2 cores
#     N=300 STATS_N=30 REQUESTS=1000 ROUNDS=5 CONNS=4,16 deploy/bench/bench-site.sh
#
# deploy/bench/sitebench gen writes, with the store's own API (hits of a
# month in one transaction), two databases:
#   site.db    the site "site" for www.example.org, 1,095 days up to today,
#              about PER_DAY views a day spread by Zipf over about a thousand
#              pages (every third a new visitor), plus a daily sweep that
#              views each of its 10,000 pages once in the three years; and
#              the counter "single" with the same daily views
#   single.db  "single" alone with the same three years
# and prints their sizes and how long that took.
#
# sitebench run then times, as counter.cgi run directly with a CGI
# environment (a browser's User-Agent, a Referer on www.example.org, a new
# client address each hit so each counts), interleaved round by round:
#   (a) single in single.db  (b) single in site.db
#   (c) site on its most viewed page  (d) site on a page viewed a few times
# with p50/p90/p99 wall time, peak RSS (GNU time) and the ratios, target
# <= 1.1; then the statistics pages of single and of the site (default
# period, 90 days, all time, one page), and what they would take on a Pi,
# scaled by a bcrypt check at cost 10 timed as counter.cgi doctor does
# against the Pi's 138 ms. Last, lighttpd runs the binary as FastCGI with
# the shipped deploy/lighttpd/counter-fastcgi.conf on site.db, and sitebench
# loads single and site (Referers spread over the pages by Zipf) with 4 and
# 16 concurrent clients, each hit from its own 127.x.y.z address, in
# interleaved rounds: hits/s and p99, medians over the rounds. Every hit
# is a new visitor, so each counter's share of the table of today's
# visitors (4,096 slots) fills early; a full share forgets its oldest
# visitor and still writes, so the hits after it cost what the ones
# before did.
#
# Needs lighttpd and GNU time (Debian packages lighttpd, time) and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

PER_DAY=${PER_DAY:-2500}
N=${N:-300}
STATS_N=${STATS_N:-30}
REQUESTS=${REQUESTS:-1000}
ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-4,16}

[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
bench_init bench-site
export CGO_ENABLED=0
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/counter.cgi" ./cgi
go build -trimpath -o "$T/sitebench" ./deploy/bench/sitebench
"$T/sitebench" gen -big "$T/site.db" -small "$T/single.db" -per-day "$PER_DAY"

# The shipped FastCGI snippet, its paths pointed into $T, on the big file.
sed -e "s|/usr/lib/cgi-bin/|$T/cgi-bin/|g" \
	-e "s|/var/lib/counter/counter.db|$T/site.db|g" \
	-e "s|/var/log/lighttpd/breakage.log|$T/breakage.log|g" \
	-e "s|/run/lighttpd/counter-fastcgi.sock|$T/fastcgi.sock|g" \
	-e "s|\"/run/counter\"|\"$T/run-fastcgi\"|g" \
	deploy/lighttpd/counter-fastcgi.conf >"$T/counter.conf"
! grep -qE '/usr/lib/cgi-bin|/var/lib/counter|/var/log/|/run/' "$T/counter.conf" ||
	die "deploy/lighttpd/counter-fastcgi.conf: a path was not substituted"
bench_lighttpd "" /cgi-bin/counter.cgi/single.json

"$T/sitebench" run -bin "$T/cgi-bin/counter.cgi" -big "$T/site.db" -small "$T/single.db" \
	-n "$N" -stats-n "$STATS_N" -url "$BASE" -requests "$REQUESTS" -rounds "$ROUNDS" -conns "$CONNS"

if grep -q "visitors is full" "$T/breakage.log" 2>/dev/null; then
	echo "WARNING: a table of today's visitors filled up: the hits after it cost less"
fi
if [ -s "$T/breakage.log" ]; then
	echo "counter stderr (breakage.log), last lines:"
	tail -n 5 "$T/breakage.log"
fi
echo "run time ${SECONDS}s"
