#!/usr/bin/env bash
# bench-hit.sh - what a counted hit costs as a CGI process, beside the floor
# that any Go CGI program pays (deploy/floor), run directly and served by
# Debian's lighttpd.
#
#     deploy/bench-hit.sh                  # N=300 REQUESTS=1200
#     N=200 REQUESTS=1000 deploy/bench-hit.sh
#
# Both binaries are built static and stripped, as shipped, into a temp dir.
# lighttpd runs in the foreground on a free 127.0.0.1 port with a generated
# main config that includes the shipped deploy/lighttpd/counter.conf, its
# paths pointed at the temp dir; floor.cgi gets its own cgi.assign there,
# since the snippet only claims counter.cgi.  deploy/hitbench does the timing.
#
# REQUESTS defaults below hitbench's 2000 to keep a run under 3 minutes on
# 2 cores (about 2m20s measured there).
#
# Needs lighttpd and GNU time (Debian packages lighttpd, time) and Go.
set -euo pipefail

N=${N:-300}
REQUESTS=${REQUESTS:-1200}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIGHTTPD=/usr/sbin/lighttpd

die() { echo "bench-hit: $*" >&2; exit 1; }

[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
[ -x "$LIGHTTPD" ] || die "$LIGHTTPD not found (apt-get install -y lighttpd)"
command -v go >/dev/null || die "go not found"
command -v python3 >/dev/null || die "python3 not found (apt-get install -y python3)"

T=$(mktemp -d /tmp/bench-hit.XXXXXX)
SERVER_PID=
cleanup() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	rm -rf "$T"
}
trap cleanup EXIT

echo "bench-hit $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-)," \
	"$("$LIGHTTPD" -v | head -n1 | cut -d' ' -f1)"

cd "$REPO"
mkdir -p "$T/cgi-bin"
export CGO_ENABLED=0
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/counter.cgi" ./cgi
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/floor.cgi" ./deploy/floor
# The same counter with writers queued by bbolt's own polling lock only, to
# show what the side lock in store/sidelock.go buys under lighttpd.
go build -trimpath -ldflags="-s -w" -tags bboltlockonly -o "$T/cgi-bin/counter-bboltlock.cgi" ./cgi
env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create bench -db "$T/counter.db" >/dev/null

# The shipped snippet, pointed at the temp dir; fail if it has changed so
# that a path is no longer replaced.
sed -e "s|/usr/lib/cgi-bin/|$T/cgi-bin/|g" \
	-e "s|/var/lib/counter/counter.db|$T/counter.db|g" \
	-e "s|/var/log/lighttpd/breakage.log|$T/breakage.log|g" \
	deploy/lighttpd/counter.conf >"$T/counter.conf"
! grep -qE '/usr/lib/cgi-bin|/var/lib/counter|/var/log/' "$T/counter.conf" ||
	die "deploy/lighttpd/counter.conf: a path was not substituted"

# A free port: bound by the kernel, released, then taken by lighttpd.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
mkdir -p "$T/htdocs"
cat >"$T/lighttpd.conf" <<EOF
server.modules = ( "mod_access", "mod_alias" )
server.document-root = "$T/htdocs"
server.errorlog      = "$T/error.log"
server.pid-file      = "$T/lighttpd.pid"
server.bind          = "127.0.0.1"
server.port          = $PORT
include "$T/counter.conf"
# the snippet claims only counter.cgi; the other builds the same way, beside it
\$HTTP["url"] =~ "^/cgi-bin/(floor|counter-bboltlock)\.cgi(/|\$)" {
	alias.url += ( "/cgi-bin/" => "$T/cgi-bin/" )
	cgi.assign = ( ".cgi" => "" )
	setenv.add-environment = ( "COUNTER_DB" => "$T/counter.db" )
}
EOF
"$LIGHTTPD" -tt -f "$T/lighttpd.conf" >/dev/null

answers() { # 200 from floor.cgi, over bash's /dev/tcp
	(
		exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
		printf 'GET /cgi-bin/floor.cgi/bench.gif HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
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

go run ./deploy/hitbench -floor "$T/cgi-bin/floor.cgi" -counter "$T/cgi-bin/counter.cgi" \
	-db "$T/counter.db" -n "$N" -url "$BASE" -requests "$REQUESTS" -also counter-bboltlock.cgi

if [ -s "$T/breakage.log" ]; then
	echo "CGI stderr (breakage.log), last lines:"
	tail -n 5 "$T/breakage.log"
fi
echo "run time ${SECONDS}s"
