#!/usr/bin/env bash
# bench-metrics.sh - what /metrics costs, with Prometheus's client library
# (go build -tags promlib) and without it (the text format written by
# cgi/web/metricstext.go, what ships), side by side in one run, on a file
# of COUNTERS counters (default 1,000) with a year of days each (bytesgen:
# views, visitors, a bot a day, so a year of tally rows each):
#   - each binary's size, built static and stripped as shipped;
#   - a CGI scrape run directly, N times, the two binaries interleaved:
#     wall time p50 and p90, and peak RSS (GNU time), beside the peak RSS
#     of `counter list` on the same file (RSS counts the file's pages a
#     process maps, which reading 1,000 counters does either way);
#   - the FastCGI service's memory (lighttpd's bin-path, one process
#     each) after REQUESTS scrapes through lighttpd: VmRSS and VmHWM.
# Item 5 of issue 40 bounds a scrape at 200 ms under CGI: the script says
# whether the p90 of the shipped binary keeps it.
#
#     deploy/bench/bench-metrics.sh
#     COUNTERS=200 N=20 REQUESTS=50 deploy/bench/bench-metrics.sh
#
# Needs lighttpd, curl and GNU time (Debian packages lighttpd, curl, time)
# and Go.
set -euo pipefail
[ -n "${BENCH_TRACE:-}" ] && set -x
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

COUNTERS=${COUNTERS:-1000}
N=${N:-50}
REQUESTS=${REQUESTS:-200}

[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
command -v curl >/dev/null || die "curl not found (apt-get install -y curl)"
bench_init bench-metrics
echo "  $COUNTERS counters with a year of days each; N=$N CGI scrapes, REQUESTS=$REQUESTS FastCGI scrapes"

go build -o "$T/bytesgen" ./deploy/bench/bytesgen
for v in text lib; do
	tags=
	[ "$v" = lib ] && tags=promlib
	mkdir -p "$T/$v/run" "$T/fcgi-$v/run"
	CGO_ENABLED=0 go build -tags "$tags" -trimpath -ldflags="-s -w" -o "$T/$v/counter.cgi" ./cgi
	cp "$T/$v/counter.cgi" "$T/fcgi-$v/counter.cgi"
done
"$T/bytesgen" -db "$T/text/counter.db" -counters "$COUNTERS" >/dev/null
for d in lib fcgi-text fcgi-lib; do cp "$T/text/counter.db" "$T/$d/counter.db"; done
for d in text lib fcgi-text fcgi-lib; do
	env -u GATEWAY_INTERFACE COUNTER_RUN_DIR="$T/$d/run" "$T/text/counter.cgi" token metrics -db "$T/$d/counter.db" >"$T/$d/token" 2>/dev/null
done
echo "  file: $(stat -c %s "$T/text/counter.db") bytes"
printf '  %-34s %12s %12s\n' "" "text (ships)" "client lib"
printf '  %-34s %12s %12s\n' "binary, static and stripped" "$(stat -c %s "$T/text/counter.cgi")" "$(stat -c %s "$T/lib/counter.cgi")"

# scrape DIR: one CGI scrape, as lighttpd would run it; prints the wall
# time in ms and the peak RSS in KiB.
scrape() {
	local d=$1 start end
	start=$(date +%s%N)
	env -i GATEWAY_INTERFACE=CGI/1.1 SERVER_PROTOCOL=HTTP/1.1 SERVER_NAME=127.0.0.1 SERVER_PORT=80 \
		REQUEST_METHOD=GET SCRIPT_NAME=/cgi-bin/counter.cgi PATH_INFO=/metrics REMOTE_ADDR=127.0.0.1 \
		COUNTER_DB="$T/$d/counter.db" COUNTER_RUN_DIR="$T/$d/run" HTTP_AUTHORIZATION="Bearer $(cat "$T/$d/token")" \
		/usr/bin/time -f %M -o "$T/$d/rss" "$T/$d/counter.cgi" >"$T/$d/out"
	end=$(date +%s%N)
	head -n1 "$T/$d/out" | grep -q '^Status: 200' || die "$d: scrape answered $(head -n1 "$T/$d/out")"
	echo "$(((end - start) / 1000)) $(cat "$T/$d/rss")"
}
for _ in $(seq "$N"); do
	for d in text lib; do scrape "$d" >>"$T/$d/times"; done
done
echo "  answer: $(grep -c . "$T/text/out") lines, $(wc -c <"$T/text/out") bytes"
stats() { # FILE COLUMN: p50 p90 max, over the lines' COLUMN
	python3 - "$@" <<-'PY'
		import sys
		v = sorted(float(l.split()[int(sys.argv[2])]) for l in open(sys.argv[1]))
		q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
		print(q(0.5), q(0.9), v[-1])
	PY
}
read -r t50 t90 tmax < <(stats "$T/text/times" 0)
read -r l50 l90 lmax < <(stats "$T/lib/times" 0)
read -r trss50 _ trss < <(stats "$T/text/times" 1)
read -r lrss50 _ lrss < <(stats "$T/lib/times" 1)
ms() { python3 -c "print('%.1f ms' % ($1 / 1000))"; }
printf '  %-34s %12s %12s\n' "CGI scrape, wall p50" "$(ms "$t50")" "$(ms "$l50")"
printf '  %-34s %12s %12s\n' "CGI scrape, wall p90" "$(ms "$t90")" "$(ms "$l90")"
printf '  %-34s %12s %12s\n' "CGI scrape, wall max" "$(ms "$tmax")" "$(ms "$lmax")"
printf '  %-34s %12s %12s\n' "CGI scrape, peak RSS p50" "${trss50%.*} KiB" "${lrss50%.*} KiB"
printf '  %-34s %12s %12s\n' "CGI scrape, peak RSS max" "${trss%.*} KiB" "${lrss%.*} KiB"
# The same file's counters listed by the admin command: what reading 1,000
# counters' buckets maps of the file, whatever is written of them.
env -u GATEWAY_INTERFACE COUNTER_RUN_DIR="$T/text/run" /usr/bin/time -f %M -o "$T/list-rss" \
	"$T/text/counter.cgi" list -db "$T/text/counter.db" >/dev/null
printf '  %-34s %12s\n' "counter list, peak RSS" "$(cat "$T/list-rss") KiB"

bench_snippet
conf="server.modules += ( \"mod_fastcgi\" )"
for v in text lib; do
	conf+="
\$HTTP[\"url\"] =~ \"^/fcgi-$v/counter\\.cgi(/|\$)\" {
	fastcgi.server = ( \"/fcgi-$v/counter.cgi\" => ((
		\"socket\" => \"$T/fcgi-$v.sock\",
		\"bin-path\" => \"$T/fcgi-$v/counter.cgi\",
		\"bin-environment\" => ( \"COUNTER_DB\" => \"$T/fcgi-$v/counter.db\", \"COUNTER_RUN_DIR\" => \"$T/fcgi-$v/run\" ),
		\"max-procs\" => 1,
		\"check-local\" => \"disable\",
	)))
}"
done
bench_lighttpd "$conf" /fcgi-text/counter.cgi/c001.json
bench_answers /fcgi-lib/counter.cgi/c001.json || die "no 200 from /fcgi-lib"
for _ in $(seq "$REQUESTS"); do
	for v in text lib; do
		curl -sf -o /dev/null -H "Authorization: Bearer $(cat "$T/fcgi-$v/token")" "$BASE/fcgi-$v/counter.cgi/metrics" ||
			die "fcgi-$v: a scrape failed"
	done
done
# mem VARIANT: VmRSS and VmHWM of its FastCGI process, in KiB.
mem() {
	local pid
	pid=$(pgrep -f "^$T/fcgi-$1/counter.cgi" | head -n1)
	[ -n "$pid" ] || die "fcgi-$1: no FastCGI process"
	awk '/^VmRSS|^VmHWM/ { printf "%s ", $2 } END { print "" }' "/proc/$pid/status"
}
read -r thwm trss < <(mem text)
read -r lhwm lrss < <(mem lib)
printf '  %-34s %12s %12s\n' "FastCGI after scrapes, VmRSS" "$trss KiB" "$lrss KiB"
printf '  %-34s %12s %12s\n' "FastCGI after scrapes, VmHWM" "$thwm KiB" "$lhwm KiB"
if python3 -c "import sys; sys.exit(0 if $t90 < 200000 else 1)"; then
	echo "  bound: a CGI scrape's p90 $(ms "$t90") is under 200 ms with $COUNTERS counters"
else
	echo "  bound: a CGI scrape's p90 $(ms "$t90") is OVER 200 ms with $COUNTERS counters"
fi
