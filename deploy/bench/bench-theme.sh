#!/usr/bin/env bash
# bench-theme.sh - what a hit drawn in a built-in look (theme=led, odometer,
# nixie, retro) or in an owner's digit set (a still PNG folder and two
# animated GIF folders that deploy/bench/makeset writes, added with theme
# add: anim, digits of mixed timings, and step, digits in step; the
# animated ones as PNG, GIF and SVG; and "strip", the default digits' own
# PNG as a strip) costs beside a hit drawn in the default digits (in the
# same format): direct CGI runs of the same binary (counter.cgi as
# installed: the hit binary) on the same counter, interleaved, each a new
# visitor's counted view (deploy/bench/hitbench does the timing). Issue 30's
# target: a themed hit within 1.10x of a default one in wall time and in
# peak RSS. Then the size of each look's and set's image at the default size.
# moe and moestep are makeset's sets of the largest real animated set's
# shape (Moe-Counter's booru-lewd: 45x100 digits of 6 to 12 frames of
# mixed timings; moestep, the same digits in step): issue 41's targets,
# moe's GIF at most 1.3x a default hit, moestep's at most 1.1x.
#
#     deploy/bench/bench-theme.sh          # N=300
#     N=100 deploy/bench/bench-theme.sh
#     LOOKS=moe:gif,moestep:gif deploy/bench/bench-theme.sh
#
# Needs GNU time (Debian package time), lighttpd's presence is checked by
# bench-lib.sh though no server runs here, and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

N=${N:-300}
LOOKS=${LOOKS:-led,odometer,nixie,retro,still,step,step:gif,step:svg,anim,anim:gif,anim:svg,strip,moe:gif,moestep:gif}

[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
bench_init bench-theme
export CGO_ENABLED=0
bench_build_pair decoder
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/floor.cgi" ./deploy/bench/floor
env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create bench -db "$T/counter.db" \
	show=visitors reload=30m ignore=192.0.2.0/24,2001:db8::/32 referrers=example.org,*.example.org >/dev/null
# A digit set: the ten digits as the counter draws 0123456789 at a size
# whose width divides by ten, a strip for digitset add (run as theme add,
# which older commits know too).
env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create strip -start 123456789 -db "$T/counter.db" >/dev/null
env GATEWAY_INTERFACE=CGI/1.1 REQUEST_METHOD=GET SERVER_PROTOCOL=HTTP/1.1 PATH_INFO=/strip.png \
	QUERY_STRING="count=0&digits=10&size=26" COUNTER_DB="$T/counter.db" COUNTER_RUN_DIR="$T/run" \
	"$T/cgi-bin/counter.cgi" | sed '1,/^\r$/d' >"$T/strip.png"
env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" theme add strip "$T/strip.png" -db "$T/counter.db" >/dev/null
go run ./deploy/bench/makeset "$T/sets" still step anim moe moestep
for set in still step anim moe moestep; do
	env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" theme add "$set" "$T/sets/$set" -db "$T/counter.db"
done

go run ./deploy/bench/hitbench -floor "$T/cgi-bin/floor.cgi" -counter "$T/cgi-bin/counter.cgi" \
	-db "$T/counter.db" -n "$N" -costs-off=false -looks "$LOOKS"

# Every timed run but the floor's counted 2N visitors (hitbench times a
# hit, then runs it again under GNU time): the default digits as PNG, GIF
# and SVG, and each look. A set's GIF depends on the digits drawn.
looks=$(tr ',' '\n' <<<"$LOOKS" | wc -l)
echo "image sizes at the count the timed hits left, $((2 * N * (3 + looks))) (bytes of the body):"
for q in "" theme=led theme=odometer theme=nixie theme=retro theme=still theme=step theme=anim theme=strip theme=moe theme=moestep; do
	for ext in png gif svg; do
		size=$(env GATEWAY_INTERFACE=CGI/1.1 REQUEST_METHOD=GET SERVER_PROTOCOL=HTTP/1.1 \
			SCRIPT_NAME=/cgi-bin/counter.cgi PATH_INFO=/bench.$ext QUERY_STRING="$q" \
			REMOTE_ADDR=192.0.2.1 COUNTER_DB="$T/counter.db" COUNTER_RUN_DIR="$T/run" \
			"$T/cgi-bin/counter.cgi" | sed '1,/^\r$/d' | wc -c)
		printf '  %-16s %s %6d\n' "${q:-default}" "$ext" "$size"
	done
done
echo "run time ${SECONDS}s"
