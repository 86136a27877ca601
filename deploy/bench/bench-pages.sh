#!/usr/bin/env bash
# bench-pages.sh - what the full tool's pages cost, before and after a
# change, side by side in one run: each page as a CGI process run directly
# (wall time p50 and peak RSS, the two binaries interleaved), and the
# FastCGI service's memory after serving many pages (lighttpd's bin-path,
# one process each).
#
#     deploy/bench/bench-pages.sh              # against 7decf53, N=200 REQUESTS=1000
#     deploy/bench/bench-pages.sh COMMIT       # against the full tool of COMMIT
#     N=50 REQUESTS=200 deploy/bench/bench-pages.sh
#
# The pages: a counter's statistics with a year of days, a site's with a
# year of 40 pages a day, the login form of a protected counter, a failed
# login POST (a bcrypt check at cost 10, each from a new address so that
# no throttle waits), and the JSON count. The files are bytesgen's (4
# counters, a site), one per binary and per mode, c002 given a password.
# Both binaries are the full tool (./cgi), built static and stripped as
# shipped; the one before from the repository's history.
# deploy/bench/pagebench does the timing.
#
# Needs lighttpd and GNU time (Debian packages lighttpd, time) and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

N=${N:-200}
REQUESTS=${REQUESTS:-1000}
BEFORE=${1:-7decf53}

[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
bench_init bench-pages
echo "  before: $(git -C "$REPO" log -1 --format='%h %s' "$BEFORE")"
echo "  after:  the work tree at $(git -C "$REPO" log -1 --format='%h %s')"

mkdir -p "$T/before-src" "$T/before" "$T/after" "$T/fcgi-before" "$T/fcgi-after"
git -C "$REPO" archive --format=tar "$BEFORE" | tar -x -C "$T/before-src"
(cd "$T/before-src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w" -o "$T/before/counter.cgi" ./cgi)
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$T/after/counter.cgi" ./cgi
cp "$T/before/counter.cgi" "$T/fcgi-before/counter.cgi"
cp "$T/after/counter.cgi" "$T/fcgi-after/counter.cgi"
go build -o "$T/bytesgen" ./deploy/bench/bytesgen
for d in before after fcgi-before fcgi-after; do
	mkdir -p "$T/$d/run"
	"$T/bytesgen" -db "$T/$d/counter.db" -counters 4 >/dev/null
	echo pagebench-owner-password |
		env -u GATEWAY_INTERFACE "$T/after/counter.cgi" passwd c002 -db "$T/$d/counter.db" >/dev/null
done

bench_snippet
conf="server.modules += ( \"mod_fastcgi\" )"
for d in fcgi-before fcgi-after; do
	conf+="
\$HTTP[\"url\"] =~ \"^/$d/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/$d/counter.cgi\" => ((
		\"socket\" => \"$T/$d.sock\",
		\"bin-path\" => \"$T/$d/counter.cgi\",
		\"bin-environment\" => ( \"COUNTER_DB\" => \"$T/$d/counter.db\", \"COUNTER_RUN_DIR\" => \"$T/$d/run\" ),
		\"max-procs\" => 1,
		\"check-local\" => \"disable\",
	)))
}"
done
bench_lighttpd "$conf" /fcgi-before/counter.cgi/c001.json
bench_answers /fcgi-after/counter.cgi/c001.json || die "no 200 from /fcgi-after"

go run ./deploy/bench/pagebench -before "$T/before/counter.cgi" -after "$T/after/counter.cgi" \
	-before-db "$T/before/counter.db" -after-db "$T/after/counter.db" -n "$N" \
	-url "$BASE" -requests "$REQUESTS" -fcgi-before "$T/fcgi-before/counter.cgi" -fcgi-after "$T/fcgi-after/counter.cgi"
