# bench-lib.sh - what deploy/bench/bench-*.sh share: a temp dir cleaned up on
# exit, the shipped lighttpd snippet pointed into it, and lighttpd started
# on a free 127.0.0.1 port. Sourced, not run.

LIGHTTPD=/usr/sbin/lighttpd
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# bench_init NAME: checks the tools, makes $T, stops lighttpd and removes
# $T on exit, and prints the header line.
bench_init() {
	BENCH=$1
	[ -x "$LIGHTTPD" ] || die "$LIGHTTPD not found (apt-get install -y lighttpd)"
	command -v go >/dev/null || die "go not found"
	command -v python3 >/dev/null || die "python3 not found (apt-get install -y python3)"
	T=$(mktemp -d "/tmp/$BENCH.XXXXXX")
	SERVER_PID=
	BENCH_PIDS=()
	trap bench_cleanup EXIT
	echo "$BENCH $(date -u '+%Y-%m-%dT%H:%M:%SZ'), nproc $(nproc), $(go version | cut -d' ' -f3-)," \
		"$("$LIGHTTPD" -v | head -n1 | cut -d' ' -f1)"
	cd "$REPO"
	mkdir -p "$T/cgi-bin" "$T/htdocs"
}

# bench_build_pair [decoder]: builds the pair as installed: counter.cgi,
# the hit binary (./cgi/hit), in $T/cgi-bin, and the full tool (./cgi) it
# execs for anything but an image, outside cgi-bin as
# $T/counter/counter-tool. With decoder, also counter-themedecode beside
# the tool, and both folders open to nobody, as whom digitset add run by
# root runs the decoder.
bench_build_pair() {
	mkdir -p "$T/counter"
	go build -trimpath -ldflags="-s -w" -o "$T/counter/counter-tool" ./cgi
	go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/counter.cgi" ./cgi/hit
	if [ "${1:-}" = decoder ]; then
		go build -trimpath -ldflags="-s -w" -o "$T/counter/counter-themedecode" ./cgi/themedecode
		chmod a+rx "$T" "$T/counter"
	fi
}

die() {
	echo "${BENCH:-bench}: $*" >&2
	exit 1
}

# bench_cleanup stops lighttpd (which stops the FastCGI processes it
# started), then each other server a script started and listed in
# BENCH_PIDS, and removes $T.
bench_cleanup() {
	local pid
	for pid in $SERVER_PID "${BENCH_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$T"
}

# bench_snippet [SED-ARGS...]: writes $T/counter.conf, the shipped snippet
# with its paths pointed into $T (and any further sed edits); fails if a
# path was not replaced, which would touch the real system.
bench_snippet() {
	sed -e "s|/usr/lib/cgi-bin/|$T/cgi-bin/|g" \
		-e "s|/var/lib/counter/counter.db|$T/counter.db|g" \
		-e "s|/var/log/lighttpd/breakage.log|$T/breakage.log|g" \
		-e "s|\"/run/counter\"|\"$T/run\"|g" \
		"$@" deploy/lighttpd/counter.conf >"$T/counter.conf"
	! grep -qE '/usr/lib/cgi-bin|/var/lib/counter|/var/log/|/run/counter' "$T/counter.conf" ||
		die "deploy/lighttpd/counter.conf: a path was not substituted"
}

# bench_lighttpd EXTRA-CONFIG PROBE-PATH: starts lighttpd with the snippet
# and EXTRA-CONFIG, and waits until GET PROBE-PATH answers 200. Sets PORT,
# BASE and SERVER_PID.
bench_lighttpd() {
	local extra=$1 probe=$2
	# A free port: bound by the kernel, released, then taken by lighttpd.
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	BASE="http://127.0.0.1:$PORT"
	cat >"$T/lighttpd.conf" <<-CONF
		server.modules = ( "mod_access", "mod_alias" )
		server.document-root = "$T/htdocs"
		server.errorlog      = "$T/error.log"
		server.pid-file      = "$T/lighttpd.pid"
		server.bind          = "127.0.0.1"
		server.port          = $PORT
		include "$T/counter.conf"
		$extra
	CONF
	"$LIGHTTPD" -tt -f "$T/lighttpd.conf" >/dev/null
	"$LIGHTTPD" -D -f "$T/lighttpd.conf" &
	SERVER_PID=$!
	for _ in $(seq 50); do
		bench_answers "$probe" && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || { cat "$T/error.log" >&2 || true; die "lighttpd exited"; }
		sleep 0.1
	done
	cat "$T/error.log" >&2 || true
	die "lighttpd does not answer on $BASE"
}

# bench_answers PATH: whether GET PATH answers 200, over bash's /dev/tcp.
bench_answers() {
	(
		exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
		printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&3
		read -r -t 2 status <&3 && [[ $status == "HTTP/1."?" 200 "* ]]
	) 2>/dev/null
}
