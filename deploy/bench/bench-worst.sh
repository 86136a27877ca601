#!/usr/bin/env bash
# bench-worst.sh - the costliest image a stranger can ask for in a digit
# set, beside a plain hit, under CGI (the hit binary, as installed) and
# under FastCGI (the full tool on a socket): deploy/bench/worsthit times
# each request, and measures its peak RSS and the bytes of its image.
# The sets are deploy/bench/makeset's: tall (the tallest real digits,
# 200x300), moe (the largest real animated set's shape, mixed timings),
# noise (240x270 digits of noise in 256 colours, near the most pixels a
# digit may have: eight make 1920x270, near the largest drawing) and
# frames (6 frames of 256x256 a digit, the most pixels a digit may have,
# changing at prime hundredths: the composed GIF's worst). Every request
# is count=0 on a counter whose count holds eight different digits (ten
# for the smaller sets), which a stranger can ask for; size= and
# smooth=1 at about the largest the drawing allows.
#
#     deploy/bench/bench-worst.sh          # N=20
#     N=5 deploy/bench/bench-worst.sh
#
# Needs GNU time (Debian package time) and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

N=${N:-20}
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
bench_init bench-worst
export CGO_ENABLED=0
bench_build_pair decoder
tool() { env -u GATEWAY_INTERFACE "$T/counter/counter-tool" "$@" -db "$T/counter.db" >/dev/null; }
tool create ten -start 1234567890
tool create eight -start 12345678
go run ./deploy/bench/makeset "$T/sets" tall moe noise frames
for set in tall moe noise frames; do
	tool theme add "$set" "$T/sets/$set"
done
go run ./deploy/bench/worsthit -counter "$T/cgi-bin/counter.cgi" -tool "$T/counter/counter-tool" -db "$T/counter.db" -n "$N" \
	'/ten.png?count=0' '/ten.gif?count=0' \
	'/eight.svg?count=0&theme=tall' \
	'/ten.gif?count=0&theme=moe' \
	'/eight.png?count=0&theme=tall' '/eight.gif?count=0&theme=tall' \
	'/eight.png?count=0&theme=noise' '/eight.gif?count=0&theme=noise' '/eight.svg?count=0&theme=noise' \
	'/eight.png?count=0&theme=noise&size=190&smooth=1' '/eight.gif?count=0&theme=noise&size=190&smooth=1' \
	'/eight.png?count=0&theme=noise&size=265&smooth=1' \
	'/eight.png?count=0&theme=noise&size=100&smooth=1' \
	'/eight.png?count=0&theme=frames' '/eight.gif?count=0&theme=frames' \
	'/eight.gif?count=0&theme=frames&size=100&smooth=1'
echo "run time ${SECONDS}s"
