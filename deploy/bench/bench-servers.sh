#!/usr/bin/env bash
# bench-servers.sh - the counter's FastCGI under every server, side by side:
# lighttpd's FastCGI (mod_fastcgi starting the binary), Apache's mod_fcgid,
# and Apache (mod_proxy_fcgi), nginx and Caddy in front of the FastCGI
# service (deploy/systemd), each with the shipped config files, as the
# real-server tests start them (deploy/test, BenchmarkServers).
#
#     deploy/bench/bench-servers.sh                  # 3 rounds of 5 s: about 3 minutes
#     ROUNDS=5 DURATION=10s deploy/bench/bench-servers.sh
#
# All five run at once, each on a database of its own; the set-ups are
# loaded in turn at 4 and then 16 clients on kept-alive connections, each
# round beginning with the next set-up, and every hit is a counted view.
# It prints hits/s and p99 per set-up (medians over rounds) against
# lighttpd's FastCGI, with issue 16's target: Apache and nginx in front of
# the service at least 0.8 times lighttpd's hits/s. It then checks every
# count against the hits answered.
#
# Needs lighttpd, apache2 with libapache2-mod-fcgid, nginx, caddy and Go.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-5s} \
	go test -count=1 -timeout 60m -run '^$' -bench '^BenchmarkServers$' -benchtime 1x -v ./deploy/test |
	grep -v -e '^=== ' -e '^--- ' -e '^PASS$' -e '^ok ' -e '^goos' -e '^goarch' -e '^pkg' -e '^cpu' -e '^BenchmarkServers'
