#!/usr/bin/env bash
# bench-breakdown.sh - where the time and the pages of one counted CGI hit
# go, beside the floor (deploy/bench/floor, a bare Go CGI program writing a
# fixed GIF).
#
#     deploy/bench/bench-breakdown.sh            # N=300 hits of each
#     N=100 deploy/bench/bench-breakdown.sh
#
# Each hit is a browser's counted view by a new visitor (the environment of
# deploy/bench/hitbench), on a counter with every rule on, the cost meter on
# and the defaults as shipped, run directly as CGI. It prints:
#
#   1. perf record, cpu-clock every 10 us with call chains: CPU a hit by
#      phase (runtime start, package inits and the costliest of them, the
#      GC and the scheduler's threads, the request, opening and mapping
#      the file, the locks, the two transactions, the commit and its
#      fdatasyncs, the visitor table, drawing, encoding, the cost meter),
#      found from each sample's call chain by deploy/bench/breakdown;
#   2. perf record, every page fault with its address: faults a hit by
#      phase, by what they touched (the binary's sections, anonymous
#      memory, the database's mapping), and in the binary's text by
#      package;
#   3. /proc/PID/smaps of one hit held at its exit_group (strace's
#      delay_enter): resident memory by mapping, file and anonymous;
#   4. strace -c over the hits: the system calls a hit makes, and
#      strace -T: how long its fdatasyncs and flocks take, wall time.
#
# The counter is counter.cgi as shipped: the hit binary (./cgi/hit), laid
# out as install.sh does, as cgi-bin/counter beside counter/counter-tool,
# the full tool (./cgi), which it execs for anything but a counted image
# (here the `create` that makes the counter) and finds as
# ../counter/counter-tool from its own folder. perf's samples need
# symbols, so the hits run a twin of the shipped hit binary built without
# -s -w; the script checks that its loaded sections are the shipped
# binary's, byte for byte in place and size.
#
# Needs perf (Debian package linux-perf), strace, readelf (binutils), Go,
# and perf_event_paranoid <= 1 or root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPO=$(pwd)
N=${N:-300}

die() {
	echo "bench-breakdown: $*" >&2
	exit 1
}
for tool in perf strace readelf go; do
	command -v "$tool" >/dev/null || die "$tool not found"
done
T=$(mktemp -d /tmp/bench-breakdown.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "bench-breakdown $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-), kernel $(uname -r), N=$N, $(git log -1 --format=%h)"

export CGO_ENABLED=0
B=$T/cgi-bin # the binaries a hit runs; the full tool in $T/counter, as installed
mkdir -p "$B" "$T/counter"
build() { # build NAME PKG: the stripped binary as shipped, and its twin with symbols
	go build -trimpath -ldflags="-s -w" -o "$B/$1.stripped" "$2"
	go build -trimpath -o "$B/$1" "$2"
	# Loaded sections (flag A): name, address, offset, size.
	local a b
	a=$(readelf -SW "$B/$1.stripped" | awk '$0 ~ /\] \./ && $0 ~ / A/ {print $2, $4, $6}')
	b=$(readelf -SW "$B/$1" | awk '$0 ~ /\] \./ && $0 ~ / A/ {print $2, $4, $6}')
	[ "$a" = "$b" ] || die "$1: the loaded sections differ with symbols:\n$a\n--\n$b"
	printf '  %-12s %9d bytes stripped, as shipped (%s)\n' "$1" "$(stat -c %s "$B/$1.stripped")" "$2"
}
echo "binaries:"
build counter ./cgi/hit
build floor ./deploy/bench/floor
go build -trimpath -ldflags="-s -w" -o "$T/counter/counter-tool" ./cgi
printf '  %-12s %9d bytes stripped, as shipped (%s)\n' counter-tool "$(stat -c %s "$T/counter/counter-tool")" "./cgi, the full tool the counter execs for all but a hit"
go build -o "$T/breakdown" ./deploy/bench/breakdown
go build -o "$T/hitbench" ./deploy/bench/hitbench

DB=$T/counter.db
# As the owner types it: counter.cgi execs the full tool for the command.
env -u GATEWAY_INTERFACE "$B/counter.stripped" create bench -db "$DB" \
	show=visitors reload=30m ignore=192.0.2.0/24,2001:db8::/32 referrers=example.org,*.example.org >/dev/null 2>&1
mkdir -p "$T/run"

# hits BIN N NET: N counted hits of BIN, each from a new visitor NET.x.y.z.
cat >"$T/hits" <<EOF
#!/usr/bin/env bash
export GATEWAY_INTERFACE=CGI/1.1 SERVER_PROTOCOL=HTTP/1.1 REQUEST_METHOD=GET SERVER_NAME=127.0.0.1 \\
	SERVER_PORT=80 HTTP_HOST=127.0.0.1 SCRIPT_NAME=/cgi-bin/counter.cgi PATH_INFO=/bench.png \\
	QUERY_STRING= REQUEST_URI=/cgi-bin/counter.cgi/bench.png COUNTER_DB=$DB COUNTER_RUN_DIR=$T/run \\
	HTTP_REFERER=https://www.example.org/blog/2026/12/a-post.html \\
	HTTP_COOKIE='counter_owner=not-the-mark; theme=dark' \\
	HTTP_ACCEPT='image/avif,image/webp,image/png,image/*;q=0.8,*/*;q=0.5' \\
	HTTP_USER_AGENT='Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
# WRAP, if set, is a command to run BIN under.
for ((i = 0; i < \$2; i++)); do
	REMOTE_ADDR=\${REMOTE_ADDR:-\$3.\$((i >> 16 & 255)).\$((i >> 8 & 255)).\$((i & 255))} \$WRAP "\$1" >/dev/null
done
EOF
chmod +x "$T/hits"
# The day's files made, as on a live site, by a hit that must not exec
# the full tool: the hit binary serves a counted image itself.
WRAP="strace -f -qq -e trace=execve -o $T/execs" "$T/hits" "$B/counter" 1 10
! grep -q counter-tool "$T/execs" || die "a counted hit exec'd the full tool: $(cat "$T/execs")"

for bin in floor counter; do
	net=$([ $bin = floor ] && echo 11 || echo 12)
	echo
	echo "== $bin: CPU by phase (perf record -e cpu-clock, $N hits)"
	perf record -q -g -e cpu-clock/period=10000/ -o "$T/cpu.data" "$T/hits" "$B/$bin" "$N" "$net" 2>/dev/null
	perf script -i "$T/cpu.data" -F comm,tid,time,event,ip,sym,dso 2>/dev/null |
		"$T/breakdown" -comm "$bin" -bin "$B/$bin" -runs "$N"
	echo "== $bin: page faults ($((N / 3)) hits)"
	perf record -q -d -g -e page-faults/period=1/ -o "$T/pf.data" "$T/hits" "$B/$bin" $((N / 3)) "$((net + 10))" 2>/dev/null
	perf script -i "$T/pf.data" -F comm,tid,time,event,ip,sym,addr,dso 2>/dev/null |
		"$T/breakdown" -comm "$bin" -bin "$B/$bin" -runs $((N / 3))
done

# smaps BIN: resident memory of one hit at its exit_group, by mapping.
smaps() {
	strace -f -qq -o /dev/null -e trace=exit_group -e inject=exit_group:delay_enter=400000 \
		"$T/hits" "$B/$1.stripped" 1 "$2" &
	local sp=$! pid=
	for _ in $(seq 200); do
		pid=$(pgrep -n -f "^$B/$1.stripped\$" || true)
		[ -n "$pid" ] && break
		sleep 0.005
	done
	sleep 0.2
	[ -n "$pid" ] || die "smaps: no $1 process to read"
	echo "== $1 (stripped, as shipped): resident at exit, /proc/PID/smaps"
	awk '/^[0-9a-f]+-[0-9a-f]+ / {n = $6; if (n == "") n = "[anonymous]"; else if (n ~ /\.stripped$/) n = "the binary"}
		/^Rss:/ {r[n] += $2} /^Anonymous:/ {a[n] += $2}
		END {for (k in r) if (r[k] > 0) printf "  %-28s %6d kB resident, %6d kB of it anonymous\n", k, r[k], a[k]}' \
		"/proc/$pid/smaps" | sort -k2 -rn
	grep -E '^(VmHWM|RssAnon|RssFile)' "/proc/$pid/status" | sed 's/^/  /'
	wait $sp
}
echo
smaps floor 21
smaps counter 22

echo
echo "== counter: system calls a hit (strace -c -f, $((N / 3)) hits)"
for ((i = 0; i < N / 3; i++)); do
	REMOTE_ADDR=13.0.$((i >> 8 & 255)).$((i & 255)) WRAP="strace -c -f -o $T/strace-c.$i" "$T/hits" "$B/counter.stripped" 1 13
done
cat "$T"/strace-c.* | awk -v n=$((N / 3)) '$4 ~ /^[0-9]+$/ && $NF != "total" { c[$NF] += $4 }
	END { for (k in c) printf "  %-20s %7.1f calls\n", k, c[k] / n }' | sort -k2 -rn | head -25
echo "== counter: wall time of its fdatasyncs and flocks (strace -T, $N hits)"
strace -f -T -e trace=fdatasync,flock -o "$T/strace-T" "$T/hits" "$B/counter.stripped" "$N" 24 >/dev/null 2>&1
awk -v n="$N" '/fdatasync\(|flock\(/ { match($0, /<[0-9.]+>/); t = substr($0, RSTART + 1, RLENGTH - 2); s = ($0 ~ /fdatasync/) ? "fdatasync" : "flock"; sum[s] += t; c[s]++ }
	END { for (k in sum) printf "  %-10s %5.1f a hit, %6.0f us a hit in all\n", k, c[k] / n, sum[k] / n * 1e6 }' "$T/strace-T"

echo
echo "== wall time and peak RSS, direct runs side by side ($N each, interleaved)"
"$T/hitbench" -floor "$B/floor.stripped" -counter "$B/counter.stripped" -db "$DB" -n "$N" -costs-off=false
