#!/usr/bin/env bash
# bench-fastcgi.sh - counter.cgi as CGI and as FastCGI beside the PHP
# reference (deploy/bench/php/counter.php) under PHP-FPM without and with fsync,
# all four behind one Debian lighttpd, loaded with wrk (issues 5 and 7);
# and the FastCGI binary before the counting rules (issue 13).
#
#     deploy/bench/bench-fastcgi.sh            # wrk -t2 -c4 and -c16, -d10s, 5 rounds: about 10 minutes
#     deploy/bench/bench-fastcgi.sh -quick     # -d2s, 1 round: under a minute, to try it out
#     DURATION=5s ROUNDS=3 CONNS=4,16 deploy/bench/bench-fastcgi.sh
#     BEFORE=none deploy/bench/bench-fastcgi.sh  # without the binary before
#
# Every request goes through deploy/bench/browser-visitors.lua (wrk -s):
# a browser's hit on the owner's site from one of 2,048 visitors, told
# apart by their User-Agent, so that the counter's rules all run (bot
# check, ignore list, owner cookie, referrer list, visitor table) and the
# counter's share of the visitor table is used but no bucket of it fills. The counters of this binary (the
# CGI and the FastCGI database) have every rule on but the reload window:
# reload=off makes every hit a counted view, the costlier path (total,
# day, referrer, and the visitor table's write: every CGI hit's, and a
# FastCGI process's for each visitor's first view, the later ones being
# answered from its memory of the views it wrote), where a window would
# make most of wrk's hits reloads, which count nothing; and it keeps the
# check of each count against wrk's answers exact.
#
# Beside them runs the FastCGI binary of BEFORE (a commit, by default
# bb08e9a, the last release of schema 1, before the counting rules),
# built from the repository's history as bench-hit.sh builds it, on
# /fcgi-before/ with a copy, a database and a run directory of its own
# (the new binary would migrate its file to schema 2, which the old one
# refuses). It gets the same requests and ignores what it does not know;
# fcgibench prints FastCGI after/before hits/s against the target of
# 0.90. BEFORE=none leaves it out.
#
# One lighttpd on a free 127.0.0.1 port serves:
#   /cgi-bin/counter.cgi/bench.png  mod_cgi, the shipped deploy/lighttpd/counter.conf
#   /fcgi/counter.cgi/bench.png     mod_fastcgi, the same binary started by lighttpd
#                                   (bin-path, max-procs 1) with its own database
#   /fcgi-before/counter.cgi/...    the same for the binary of BEFORE
#   /php/counter.php                PHP-FPM pool, COUNTER_FSYNC=0
#   /php-fsync/counter.php          PHP-FPM pool, COUNTER_FSYNC=1
# Each PHP-FPM is a master of its own with one pool set as Debian's
# www.conf (pm dynamic, max_children 5, start 2, spare 1-3) and Debian's
# php.ini for FPM (opcache on), on a unix socket in the temp dir, run as
# the current user (with --allow-to-run-as-root when that is root).
#
# deploy/bench/fcgibench then runs, for 4 and 16 connections, interleaved rounds
# (each backend in turn, the order rotated each round) and prints per
# backend:
#   hits/s, p50, p99   wrk's Requests/sec and --latency 50%/99%, median over rounds
#   CPU ms/hit         user+system CPU of the backend's processes during the
#                      runs over the hits answered: FastCGI (and FastCGI
#                      before) its process;
#                      PHP-FPM master and workers, ended workers counted by the
#                      master's cutime/cstime; CGI the children, by lighttpd's
#                      cutime/cstime (children it reaped) plus those running
#   lighttpd CPU ms/hit lighttpd's own user+system CPU over the same hits
#   peak RSS/PSS       the most the backend's processes used at one sample
#                      (/proc/PID/smaps_rollup summed, every 50 ms during load):
#                      FastCGI (before) its one process, PHP-FPM the master and workers,
#                      CGI the children alive at once; "largest process" is one
#                      CGI child's RSS
# and the ratios against the targets, FastCGI after/before among them. It
# then checks each count (our JSON count, the before binary's too, PHP's
# file) against the hits wrk saw answered.
#
# The machine should be quiet; on a shared one the figures are noise.
# Needs lighttpd, wrk, php-fpm, php-gd, fonts-go, python3 and Go; as root
# it installs the Debian packages that are missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

if [ "${1:-}" = -quick ]; then
	DURATION=${DURATION:-2s} ROUNDS=${ROUNDS:-1} WARMUP=${WARMUP:-1s}
elif [ $# -gt 0 ]; then
	echo "usage: $0 [-quick]" >&2
	exit 2
fi
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-5}
WARMUP=${WARMUP:-2s}
CONNS=${CONNS:-4,16}
FONT=/usr/share/fonts/fonts-go/Go-Mono.ttf

# The Debian packages this needs, by a file each installs.
declare -A need=([lighttpd]=/usr/sbin/lighttpd [wrk]=/usr/bin/wrk [php-fpm]="/usr/sbin/php-fpm*"
	[php-gd]="/etc/php/*/mods-available/gd.ini" [fonts-go]=$FONT [python3]=/usr/bin/python3)
missing=()
for pkg in "${!need[@]}"; do
	compgen -G "${need[$pkg]}" >/dev/null || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || { echo "bench-fastcgi: missing, install as root: ${missing[*]}" >&2; exit 1; }
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
FPM=$(compgen -G '/usr/sbin/php-fpm*' | sort -V | tail -n1)

bench_init bench-fastcgi
echo "  $("$FPM" -v | head -n1 | cut -d' ' -f1-2), $(wrk -v 2>&1 | head -n1 | cut -d' ' -f1-2)"
export CGO_ENABLED=0
go build -trimpath -ldflags=-s -o "$T/cgi-bin/counter.cgi" ./cgi
# A copy of its own for FastCGI, so that its process is told from the CGI
# children by /proc/PID/exe; and a database of its own.
mkdir -p "$T/fcgi" "$T/run" "$T/fcgi-run"
cp "$T/cgi-bin/counter.cgi" "$T/fcgi/counter.cgi"
go build -o "$T/fcgibench" ./deploy/bench/fcgibench
settings=(ignore=192.0.2.0/24,2001:db8::/32 'referrers=example.org,*.example.org' show=views reload=off)
for db in counter.db fcgi.db; do
	env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create bench -db "$T/$db" "${settings[@]}" >/dev/null
done
BEFORE=${BEFORE:-bb08e9a74a1e5ef96226d5f6b351a4a96797dbf1}
before_args=() before_conf=
if [ "$BEFORE" != none ]; then
	mkdir -p "$T/before-src" "$T/fcgi-before" "$T/fcgi-before-run"
	git -C "$REPO" archive --format=tar "$BEFORE" | tar -x -C "$T/before-src"
	(cd "$T/before-src" && GOFLAGS=-mod=mod go build -trimpath -ldflags=-s -o "$T/fcgi-before/counter.cgi" ./cgi)
	# The same settings where the binary knows them: a BEFORE with the
	# counting rules would otherwise keep its default reload window and
	# answer most of wrk's hits as reloads, a cheaper path than this
	# binary's. bb08e9a, before the rules, takes no settings.
	env -u GATEWAY_INTERFACE "$T/fcgi-before/counter.cgi" create bench -db "$T/fcgi-before.db" "${settings[@]}" >/dev/null 2>&1 ||
		env -u GATEWAY_INTERFACE "$T/fcgi-before/counter.cgi" create bench -db "$T/fcgi-before.db" >/dev/null
	before_args=(-fcgi-before-exe "$T/fcgi-before/counter.cgi")
	before_conf="
\$HTTP[\"url\"] =~ \"^/fcgi-before/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/fcgi-before/counter.cgi\" => ((
		\"socket\" => \"$T/fcgi-before.sock\",
		\"bin-path\" => \"$T/fcgi-before/counter.cgi\",
		\"bin-environment\" => ( \"COUNTER_DB\" => \"$T/fcgi-before.db\", \"COUNTER_RUN_DIR\" => \"$T/fcgi-before-run\" ),
		\"max-procs\" => 1,
		\"check-local\" => \"disable\",
	)))
}"
	echo "  before: $(git -C "$REPO" log -1 --format='%h %s' "$BEFORE")"
fi

# start_fpm NAME FSYNC: a PHP-FPM master with one pool serving
# $T/htdocs/NAME/counter.php on $T/NAME.sock. Sets FPM_PID.
start_fpm() {
	local name=$1 fsync=$2 user root=
	user=$(id -un)
	[ "$(id -u)" = 0 ] && root=--allow-to-run-as-root
	mkdir -p "$T/htdocs/$name"
	cp deploy/bench/php/counter.php "$T/htdocs/$name/counter.php"
	cat >"$T/$name-fpm.conf" <<-CONF
		[global]
		pid = $T/$name-fpm.pid
		error_log = $T/$name-fpm.log
		daemonize = no

		[$name]
		user = $user
		listen = $T/$name.sock
		listen.mode = 0600
		pm = dynamic
		pm.max_children = 5
		pm.start_servers = 2
		pm.min_spare_servers = 1
		pm.max_spare_servers = 3
		clear_env = yes
		env[COUNTER_FILE] = $T/$name.count
		env[COUNTER_FSYNC] = $fsync
		env[COUNTER_FONT] = $FONT
	CONF
	"$FPM" --nodaemonize $root --fpm-config "$T/$name-fpm.conf" &
	FPM_PID=$!
	BENCH_PIDS+=("$FPM_PID")
	for _ in $(seq 50); do
		[ -S "$T/$name.sock" ] && return 0
		kill -0 "$FPM_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/$name-fpm.log" >&2 || true
	die "php-fpm ($name) did not start"
}
start_fpm php 0
PHP_PID=$FPM_PID
start_fpm php-fsync 1
PHP_FSYNC_PID=$FPM_PID
"$FPM" -i 2>/dev/null | grep -q '^opcache.enable => On' || echo "  WARNING: opcache is off in $FPM's php.ini"

bench_snippet
# FastCGI as verified by hand, on a prefix of its own; the PHP pools by
# extension, each under its own directory of the document root.
bench_lighttpd "server.modules += ( \"mod_fastcgi\" )
\$HTTP[\"url\"] =~ \"^/fcgi/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/fcgi/counter.cgi\" => ((
		\"socket\" => \"$T/fcgi.sock\",
		\"bin-path\" => \"$T/fcgi/counter.cgi\",
		\"bin-environment\" => ( \"COUNTER_DB\" => \"$T/fcgi.db\", \"COUNTER_RUN_DIR\" => \"$T/fcgi-run\" ),
		\"max-procs\" => 1,
		\"check-local\" => \"disable\",
	)))
}
\$HTTP[\"url\"] =~ \"^/php/\" {
	fastcgi.server = ( \".php\" => (( \"socket\" => \"$T/php.sock\" )) )
}
\$HTTP[\"url\"] =~ \"^/php-fsync/\" {
	fastcgi.server = ( \".php\" => (( \"socket\" => \"$T/php-fsync.sock\" )) )
}$before_conf" /cgi-bin/counter.cgi/bench.json
probes=(/fcgi/counter.cgi/bench.json /php/counter.php /php-fsync/counter.php)
[ "$BEFORE" = none ] || probes+=(/fcgi-before/counter.cgi/bench.json)
for probe in "${probes[@]}"; do
	bench_answers "$probe" || { cat "$T/error.log" "$T"/*-fpm.log >&2 || true; die "no 200 from $probe"; }
done

"$T/fcgibench" -url "$BASE" -lighttpd-pid "$SERVER_PID" \
	-cgi-exe "$T/cgi-bin/counter.cgi" -fcgi-exe "$T/fcgi/counter.cgi" \
	-fpm-pid "$PHP_PID" -fpm-fsync-pid "$PHP_FSYNC_PID" \
	-php-count "$T/php.count" -php-fsync-count "$T/php-fsync.count" \
	-duration "$DURATION" -rounds "$ROUNDS" -warmup "$WARMUP" -conns "$CONNS" \
	-script "$REPO/deploy/bench/browser-visitors.lua" "${before_args[@]}"

# What the servers and the counters logged (lighttpd hands its
# server.breakagelog to FastCGI processes as their stderr, as to CGI ones).
for log in breakage.log error.log php-fpm.log php-fsync-fpm.log; do
	n=$(grep -cvE 'server started|server stopped|fpm is running|ready to handle|NOTICE' "$T/$log" 2>/dev/null || true)
	if [ "${n:-0}" -gt 0 ]; then
		echo "$log: $n line(s), the last:"
		grep -vE 'server started|server stopped|fpm is running|ready to handle|NOTICE' "$T/$log" | tail -n 5
	fi
done
echo "run time ${SECONDS}s"
