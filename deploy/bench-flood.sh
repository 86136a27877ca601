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

# Each phase stops after 55 s whatever REQUESTS says (floodbench
# -phase-timeout); 400 keeps a run under about 2.5 minutes on 2 cores.
REQUESTS=${REQUESTS:-400}
ATTACKERS=${ATTACKERS:-32}
SLOTS=${SLOTS:-1}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIGHTTPD=/usr/sbin/lighttpd

die() { echo "bench-flood: $*" >&2; exit 1; }

[ -x "$LIGHTTPD" ] || die "$LIGHTTPD not found (apt-get install -y lighttpd)"
command -v go >/dev/null || die "go not found"
command -v python3 >/dev/null || die "python3 not found (apt-get install -y python3)"

T=$(mktemp -d /tmp/bench-flood.XXXXXX)
SERVER_PID=
cleanup() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	rm -rf "$T"
}
trap cleanup EXIT

echo "bench-flood $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-)," \
	"$("$LIGHTTPD" -v | head -n1 | cut -d' ' -f1)"

cd "$REPO"
mkdir -p "$T/cgi-bin" "$T/htdocs"
export CGO_ENABLED=0
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/counter.cgi" ./cgi
go build -o "$T/floodbench" ./deploy/floodbench
env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create flood -db "$T/counter.db" >/dev/null
echo "not-what-the-attackers-send" |
	env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" passwd flood -db "$T/counter.db" >/dev/null

# The shipped snippet, pointed at the temp dir; fail if it has changed so
# that a path is no longer replaced.
sed -e "s|/usr/lib/cgi-bin/|$T/cgi-bin/|g" \
	-e "s|/var/lib/counter/counter.db|$T/counter.db|g" \
	-e "s|/var/log/lighttpd/breakage.log|$T/breakage.log|g" \
	-e "s|\"COUNTER_RUN_DIR\" => \"/run/counter\",|\"COUNTER_RUN_DIR\" => \"$T/run\", \"COUNTER_BCRYPT_SLOTS\" => \"$SLOTS\", \"COUNTER_TRUSTED_PROXIES\" => \"127.0.0.1\",|" \
	deploy/lighttpd/counter.conf >"$T/counter.conf"
! grep -qE '/usr/lib/cgi-bin|/var/lib/counter|/var/log/|/run/counter' "$T/counter.conf" ||
	die "deploy/lighttpd/counter.conf: a path was not substituted"
grep -q COUNTER_TRUSTED_PROXIES "$T/counter.conf" ||
	die "deploy/lighttpd/counter.conf: COUNTER_RUN_DIR line changed; cannot add variables"

# A free port: bound by the kernel, released, then taken by lighttpd.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
cat >"$T/lighttpd.conf" <<EOF
server.modules = ( "mod_access", "mod_alias" )
server.document-root = "$T/htdocs"
server.errorlog      = "$T/error.log"
server.pid-file      = "$T/lighttpd.pid"
server.bind          = "127.0.0.1"
server.port          = $PORT
include "$T/counter.conf"
EOF
"$LIGHTTPD" -tt -f "$T/lighttpd.conf" >/dev/null

answers() { # 200 from the counter, over bash's /dev/tcp; counts a hit
	(
		exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
		printf 'GET /cgi-bin/counter.cgi/flood.png HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
		read -r -t 2 status <&3 && [[ $status == "HTTP/1."?" 200 "* ]]
	) 2>/dev/null
}
"$LIGHTTPD" -D -f "$T/lighttpd.conf" &
SERVER_PID=$!
for _ in $(seq 50); do
	answers && break
	kill -0 "$SERVER_PID" 2>/dev/null || { cat "$T/error.log" >&2 || true; die "lighttpd exited"; }
	sleep 0.1
done
answers || { cat "$T/error.log" >&2 || true; die "lighttpd does not answer on $BASE"; }

"$T/floodbench" -url "$BASE" -name flood -log "$T/breakage.log" -requests "$REQUESTS" \
	-attackers "$ATTACKERS" -slots "$SLOTS" \
	-pid "$SERVER_PID" -run-dir "$T/run"

echo "run time ${SECONDS}s"
