#!/usr/bin/env bash
# bench-flood.sh - what a flood of wrong passwords does to the counter image
# under Debian's lighttpd, and whether bcrypt ran more often than the cap
# and the throttle allow (issue 4, "What it must show", item 3).
#
#     deploy/bench-flood.sh                     # REQUESTS=400 ATTACKERS=32 SLOTS=1
#     REQUESTS=600 SLOTS=2 deploy/bench-flood.sh
#
# The counter is built static and stripped, as shipped, into a temp dir,
# with a counter named flood that has a password. lighttpd runs in the
# foreground on a free 127.0.0.1 port with a generated main config that
# includes the shipped deploy/lighttpd/counter.conf, its paths pointed at
# the temp dir and two variables added to its setenv:
# COUNTER_BCRYPT_SLOTS=$SLOTS and COUNTER_TRUSTED_PROXIES=127.0.0.1. One
# server serves all phases: A and B send no X-Forwarded-For, so the CGI
# sees the peer 127.0.0.1 there; C sends one per attacker, believed
# because it comes from 127.0.0.1. deploy/floodbench does the load.
#
# Needs lighttpd (Debian package lighttpd), python3 and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

REQUESTS=${REQUESTS:-400}
ATTACKERS=${ATTACKERS:-32}
SLOTS=${SLOTS:-1}

bench_init bench-flood
export CGO_ENABLED=0
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/counter.cgi" ./cgi
go build -o "$T/floodbench" ./deploy/floodbench
env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create flood -db "$T/counter.db" >/dev/null
echo "not-what-the-attackers-send" |
	env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" passwd flood -db "$T/counter.db" >/dev/null

# The slots to measure, and 127.0.0.1 trusted as a proxy for phase C.
bench_snippet -e "s|\"COUNTER_RUN_DIR\" => \"$T/run\",|&\n\t\t\"COUNTER_BCRYPT_SLOTS\" => \"$SLOTS\", \"COUNTER_TRUSTED_PROXIES\" => \"127.0.0.1\",|"
grep -q COUNTER_TRUSTED_PROXIES "$T/counter.conf" ||
	die "deploy/lighttpd/counter.conf: the COUNTER_RUN_DIR line changed; cannot add variables"
bench_lighttpd "" /cgi-bin/counter.cgi/flood.png

"$T/floodbench" -url "$BASE" -name flood -log "$T/breakage.log" -requests "$REQUESTS" \
	-attackers "$ATTACKERS" -slots "$SLOTS" \
	-pid "$SERVER_PID" -run-dir "$T/run"

echo "run time ${SECONDS}s"
