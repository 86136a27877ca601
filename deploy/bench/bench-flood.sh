#!/usr/bin/env bash
# bench-flood.sh - what a flood of wrong passwords does to the counter image
# under Debian's lighttpd, run as CGI and as FastCGI, and whether bcrypt ran
# more often than the cap and the throttle allow (issue 4, "What it must
# show", item 3).
#
#     deploy/bench/bench-flood.sh                     # REQUESTS=400 ATTACKERS=32 SLOTS=1
#     deploy/bench/bench-flood.sh -quick              # REQUESTS=100, phases cut at 20 s
#     REQUESTS=600 SLOTS=2 deploy/bench/bench-flood.sh
#
# The counter is built static and stripped, as shipped, into a temp dir,
# with a counter named flood that has a password. lighttpd runs in the
# foreground on a free 127.0.0.1 port with a generated main config that
# includes the shipped deploy/lighttpd/counter.conf, its paths pointed at
# the temp dir and two variables added to its setenv:
# COUNTER_BCRYPT_SLOTS=$SLOTS and COUNTER_TRUSTED_PROXIES=127.0.0.1. The
# same server also runs a copy of the binary as FastCGI on /fcgi/counter.cgi
# (mod_fastcgi, bin-path, max-procs 1), with the same variables and a
# database and runtime directory of its own, so that the CGI phases'
# failures do not throttle the FastCGI ones. deploy/bench/floodbench runs four
# phases against CGI, then the same four against FastCGI, and prints both
# side by side: A sends no login; B sends no X-Forwarded-For, so the counter
# sees the peer 127.0.0.1; C sends one per attacker, believed because it
# comes from 127.0.0.1, all in one /24 (the network limit holds them); D
# puts each attacker in a /24 of its own (only each address's limit and the
# bcrypt cap hold them). Both modes log to lighttpd's server.breakagelog
# (lighttpd hands it to FastCGI processes as their stderr too), where each
# "login failed" line is one bcrypt run.
#
# Needs lighttpd (Debian package lighttpd), python3 and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

if [ "${1:-}" = -quick ]; then
	REQUESTS=${REQUESTS:-100} PHASE_TIMEOUT=${PHASE_TIMEOUT:-20s}
elif [ $# -gt 0 ]; then
	echo "usage: $0 [-quick]" >&2
	exit 2
fi
REQUESTS=${REQUESTS:-400}
PHASE_TIMEOUT=${PHASE_TIMEOUT:-55s}
ATTACKERS=${ATTACKERS:-32}
SLOTS=${SLOTS:-1}

bench_init bench-flood
export CGO_ENABLED=0
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/counter.cgi" ./cgi
# A copy of its own for FastCGI, so that its process is told from the CGI
# children by /proc/PID/exe.
mkdir -p "$T/fcgi" "$T/fcgi-run"
cp "$T/cgi-bin/counter.cgi" "$T/fcgi/counter.cgi"
go build -o "$T/floodbench" ./deploy/bench/floodbench
for db in counter.db fcgi.db; do
	env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create flood -db "$T/$db" >/dev/null
	echo "not-what-the-attackers-send" |
		env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" passwd flood -db "$T/$db" >/dev/null
done

# The slots to measure, and 127.0.0.1 trusted as a proxy for phase C.
bench_snippet -e "s|\"COUNTER_RUN_DIR\" => \"$T/run\",|&\n\t\t\"COUNTER_BCRYPT_SLOTS\" => \"$SLOTS\", \"COUNTER_TRUSTED_PROXIES\" => \"127.0.0.1\",|"
grep -q COUNTER_TRUSTED_PROXIES "$T/counter.conf" ||
	die "deploy/lighttpd/counter.conf: the COUNTER_RUN_DIR line changed; cannot add variables"
bench_lighttpd "server.modules += ( \"mod_fastcgi\" )
\$HTTP[\"url\"] =~ \"^/fcgi/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/fcgi/counter.cgi\" => ((
		\"socket\" => \"$T/fcgi.sock\",
		\"bin-path\" => \"$T/fcgi/counter.cgi\",
		\"bin-environment\" => ( \"COUNTER_DB\" => \"$T/fcgi.db\", \"COUNTER_RUN_DIR\" => \"$T/fcgi-run\",
			\"COUNTER_BCRYPT_SLOTS\" => \"$SLOTS\", \"COUNTER_TRUSTED_PROXIES\" => \"127.0.0.1\" ),
		\"max-procs\" => 1,
		\"check-local\" => \"disable\",
	)))
}" /cgi-bin/counter.cgi/flood.png
bench_answers /fcgi/counter.cgi/flood.png || die "FastCGI: no 200 from /fcgi/counter.cgi/flood.png"

"$T/floodbench" -url "$BASE" -name flood -log "$T/breakage.log" -requests "$REQUESTS" \
	-attackers "$ATTACKERS" -slots "$SLOTS" -phase-timeout "$PHASE_TIMEOUT" \
	-pid "$SERVER_PID" -run-dir "$T/run" -exe "$T/cgi-bin/counter.cgi" \
	-fcgi-script /fcgi/counter.cgi -fcgi-exe "$T/fcgi/counter.cgi" -fcgi-run-dir "$T/fcgi-run"

# lighttpd's own complaints (a FastCGI backend overloaded or restarted).
if grep -vqE 'server started|server stopped' "$T/error.log" 2>/dev/null; then
	echo "lighttpd error.log, last lines:"
	grep -vE 'server started|server stopped' "$T/error.log" | tail -n 5
fi
echo "run time ${SECONDS}s"
