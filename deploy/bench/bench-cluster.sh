#!/usr/bin/env bash
# bench-cluster.sh - three FastCGI services on one three-member etcd
# cluster against one FastCGI service on a bbolt file, behind one
# lighttpd, loaded with wrk (issue 42).
#
#     deploy/bench/bench-cluster.sh           # wrk -t2 -c16 -d10s, 3 rounds: about 2 minutes
#     deploy/bench/bench-cluster.sh -quick    # -d3s, 1 round
#     DURATION=5s ROUNDS=3 CONNS=16 deploy/bench/bench-cluster.sh
#     COMPACT=5m deploy/bench/bench-cluster.sh   # the services' compaction (20s here, 5m by default)
#
# The cluster: Debian's etcd (ETCD, /usr/bin/etcd by default), three
# members on 127.0.0.1 ports picked free (never 2379, 2380 or 9090, where
# the machine's own etcd and Prometheus may be), their data in the temp
# dir, started with etcd's default limits and none of the machine's
# /etc/default/etcd. The services: the full tool built -tags etcd, run as
# `counter fastcgi -listen unix:...`, three with
# COUNTER_DB=etcd://m1,m2,m3/bench (each its own runtime directory, as
# each host has its own) and one with a bbolt file.
#
# One lighttpd on a free 127.0.0.1 port serves:
#   /cluster/counter.cgi/bench.png  mod_fastcgi over the three services'
#                                   sockets (lighttpd balances them)
#   /one/counter.cgi/bench.png      the first of them alone
#   /file/counter.cgi/bench.png     mod_fastcgi to the service on a file
# Each round runs wrk on each in turn (the order rotated), every request
# through browser-visitors.lua as bench-fastcgi.sh's, and the counter with
# reload=off, so that every answered hit is a counted view. It prints per
# backend the median hits/s and p99 over rounds, each service's RSS (its
# peak, VmHWM, and now) and each etcd member's, the members' files as the
# tool's doctor reports them, and each count against wrk's answers.
#
# The machine should be quiet; on a shared one the figures are noise.
# Needs lighttpd, wrk, etcd (etcd-server), python3 and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

if [ "${1:-}" = -quick ]; then
	DURATION=${DURATION:-3s} ROUNDS=${ROUNDS:-1}
elif [ $# -gt 0 ]; then
	echo "usage: $0 [-quick]" >&2
	exit 2
fi
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-16}
# Each service compacts the cluster's history (COUNTER_ETCD_COMPACT): the
# three at once, as three hosts do, and often enough to be seen here.
COMPACT=${COMPACT:-20s}
ETCD=${ETCD:-/usr/bin/etcd}
[ -x "$ETCD" ] || die "$ETCD not found (apt-get install -y etcd-server)"
command -v wrk >/dev/null || die "wrk not found (apt-get install -y wrk)"

bench_init bench-cluster
echo "  $("$ETCD" --version | head -n1), $(wrk -v 2>&1 | head -n1 | cut -d' ' -f1-2)"
export CGO_ENABLED=0
go build -trimpath -ldflags=-s -tags etcd -o "$T/counter" ./cgi

# free_ports N: N distinct free loopback ports, none of the machine's
# etcd's or Prometheus's.
free_ports() {
	python3 - "$1" <<-'PY'
		import socket, sys
		socks, ports = [], []
		while len(ports) < int(sys.argv[1]):
		    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
		    p = s.getsockname()[1]
		    if p not in (2379, 2380, 9090): ports.append(p)
		print(" ".join(map(str, ports)))
	PY
}
read -r -a ports <<<"$(free_ports 6)"
cluster= endpoints=
for i in 1 2 3; do
	peer=${ports[$((i + 2))]}
	cluster+="${cluster:+,}m$i=http://127.0.0.1:$peer"
done
ETCD_PIDS=()
for i in 1 2 3; do
	client=${ports[$((i - 1))]} peer=${ports[$((i + 2))]}
	endpoints+="${endpoints:+,}127.0.0.1:$client"
	env -i PATH=/usr/bin:/bin "$ETCD" --name "m$i" --data-dir "$T/etcd-m$i" \
		--listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
		--listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
		--initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token bench-cluster \
		>"$T/etcd-m$i.log" 2>&1 &
	ETCD_PIDS+=($!)
	BENCH_PIDS+=($!)
done
DB="etcd://$endpoints/bench"
settings=(ignore=192.0.2.0/24,2001:db8::/32 'referrers=example.org,*.example.org' show=views reload=off)
tool() { env -u GATEWAY_INTERFACE COUNTER_RUN_DIR="$T/run-admin" "$T/counter" "$@"; }
mkdir -p "$T/run-admin"
for _ in $(seq 100); do
	tool create bench -db "$DB" "${settings[@]}" >/dev/null 2>"$T/create.err" && break
	sleep 0.2
done
tool list -db "$DB" 2>/dev/null | grep -q bench || { cat "$T/create.err" >&2; tail -n 5 "$T"/etcd-m*.log >&2; die "the cluster did not start"; }
tool create bench -db "$T/file.db" "${settings[@]}" >/dev/null 2>&1

# The services: three on the cluster, one on the file.
SVC_PIDS=()
for s in c1 c2 c3 file; do
	db=$DB
	[ "$s" = file ] && db=$T/file.db
	mkdir -p "$T/run-$s"
	env -u GATEWAY_INTERFACE COUNTER_DB="$db" COUNTER_RUN_DIR="$T/run-$s" COUNTER_ETCD_COMPACT="$COMPACT" \
		"$T/counter" fastcgi -listen "unix:$T/$s.sock" 2>>"$T/services.log" &
	SVC_PIDS+=($!)
	BENCH_PIDS+=($!)
done
for s in c1 c2 c3 file; do
	for _ in $(seq 50); do
		[ -S "$T/$s.sock" ] && break
		sleep 0.1
	done
	[ -S "$T/$s.sock" ] || { cat "$T/services.log" >&2; die "service $s did not start"; }
done

backend() { echo "( \"socket\" => \"$T/$1.sock\", \"check-local\" => \"disable\" )"; }
bench_snippet
bench_lighttpd "server.modules += ( \"mod_fastcgi\" )
\$HTTP[\"url\"] =~ \"^/cluster/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/cluster/counter.cgi\" => ( $(backend c1), $(backend c2), $(backend c3) ) )
}
\$HTTP[\"url\"] =~ \"^/one/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/one/counter.cgi\" => ( $(backend c1) ) )
}
\$HTTP[\"url\"] =~ \"^/file/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/file/counter.cgi\" => ( $(backend file) ) )
}" /file/counter.cgi/bench.json
bench_answers /cluster/counter.cgi/bench.json || { cat "$T/error.log" "$T/services.log" >&2; die "no 200 from the cluster"; }

# Rounds: each backend in turn, the order rotated each round.
: >"$T/results.tsv"
order=(cluster one file)
for r in $(seq "$ROUNDS"); do
	for b in "${order[@]}"; do
		wrk -t2 -c"$CONNS" -d"$DURATION" --latency -s deploy/bench/browser-visitors.lua \
			"$BASE/$b/counter.cgi/bench.png" >"$T/wrk-$b-$r.txt"
		python3 - "$b" "$T/wrk-$b-$r.txt" >>"$T/results.tsv" <<-'PY'
			import re, sys
			t = open(sys.argv[2]).read()
			rate = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
			v, u = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", t, re.M).groups()
			p99 = float(v) * {"us": 0.001, "ms": 1, "s": 1000}[u]
			n = int(re.search(r"(\d+) requests in", t).group(1))
			bad = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
			errs = re.search(r"Socket errors: (.*)", t)
			print(f"{sys.argv[1]}\t{rate}\t{p99}\t{n}\t{int(bad.group(1)) if bad else 0}\t{errs.group(1) if errs else ''}")
		PY
	done
	order=("${order[@]:1}" "${order[0]}")
done

rss() { awk '/^VmHWM|^VmRSS/ {printf "%s %.1f MB  ", $1, $2/1024}' "/proc/$1/status"; }
echo "wrk -t2 -c$CONNS -d$DURATION, $ROUNDS round(s), median:"
python3 - "$T/results.tsv" <<-'PY'
	import statistics, sys
	rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
	for b, name in (("cluster", "3 services, 3-member etcd"), ("one", "1 service, 3-member etcd"), ("file", "1 service, bbolt file")):
	    r = [x for x in rows if x[0] == b]
	    rate = statistics.median(float(x[1]) for x in r)
	    p99 = statistics.median(float(x[2]) for x in r)
	    bad = sum(int(x[4]) for x in r)
	    print(f"  {name:28} {rate:8.0f} hits/s  p99 {p99:7.1f} ms  non-2xx {bad}  {r[-1][5]}")
PY
for i in 0 1 2 3; do
	s=(c1 c2 c3 file)
	echo "  service ${s[$i]}: $(rss "${SVC_PIDS[$i]}")"
done
for i in 0 1 2; do
	echo "  etcd m$((i + 1)): $(rss "${ETCD_PIDS[$i]}")"
done
tool doctor -db "$DB" -max 1m 2>&1 | grep -E 'etcd member|PROBLEM' | sed 's/^/  /' || true

# Each count against the hits wrk saw answered (200s): more by at most
# the requests in flight when wrk stopped, which it does not wait for.
want() { awk -F'\t' -v b="$1" '$1 == b { n += $4 - $5 } END { print n + 0 }' "$T/results.tsv"; }
count() { curl -fsS "$BASE/$1/counter.cgi/bench.json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])'; }
# /cluster and /one count on one counter: checked together.
for b in "cluster one" file; do
	got=$(count "${b%% *}") w=0
	for x in $b; do w=$((w + $(want "$x"))); done
	in_flight=$((CONNS * ROUNDS * $(wc -w <<<"$b")))
	if [ "$got" -ge "$w" ] && [ "$got" -le $((w + in_flight)) ]; then
		echo "  ${b// /+}: count $got, hits answered $w: ok (at most $in_flight in flight when wrk stopped)"
	else
		echo "  ${b// /+}: count $got, hits answered $w: MISMATCH"
	fi
done
n=$(grep -cv 'fastcgi: counter.cgi' "$T/services.log" 2>/dev/null || true)
[ "${n:-0}" -eq 0 ] || { echo "services.log: $n line(s), the last:"; grep -v 'fastcgi: counter.cgi' "$T/services.log" | tail -n 5; }
echo "run time ${SECONDS}s"
