#!/usr/bin/env bash
# bench-hit.sh - what a counted hit costs as a CGI process, beside the floor
# that any Go CGI program pays (deploy/bench/floor), run directly and served by
# Debian's lighttpd.
#
#     deploy/bench/bench-hit.sh                  # N=300 REQUESTS=1200, against 8cfcf85
#     deploy/bench/bench-hit.sh COMMIT           # against the binary of COMMIT
#     N=200 REQUESTS=1000 deploy/bench/bench-hit.sh
#     deploy/bench/bench-hit.sh none             # without the binary before
#     REQUESTS=0 deploy/bench/bench-hit.sh       # direct runs only, no lighttpd
#
# The lines "issue 31" have the figures of issue 31: a counted view's wall
# time (p50) and peak RSS against the floor's (the targets: at most 1.30
# each), the same ratios of the binary before, and after against before,
# all from one interleaved run, for three views: a plain counter, a site's
# page, and a counter in a year-old file.
#
# The site's page is a view of a site for www.example.org (create site
# -site -hosts www.example.org) in a fresh file of its own, the hit's
# Referer a page on that host, as a browser's image request from the page
# says. The year-old file is deploy/bench/bytesgen's (200 counters with a
# year of days and a site with a year of pages, written in the tree of the
# commit before, so that both binaries read it, as in bench-bytes.sh), a
# view of its counter c100; each binary gets a file of its own, and its
# first two views (which migrate an older file and start the day) go
# untimed. Both
# run with the defaults of create, as bench-bytes.sh's do.
#
# The counter runs with every counting rule on (it shows visitors, with a
# reload window, an ignore list and a referrer list), and each direct run
# is a browser's hit from a new address, so it counts. Beside it runs the
# binary of the commit given (by default 8cfcf85, the commit before issue
# 31's first), on a database of its own with the same counter, built from
# the repository's history: the difference is what the commits since cost
# or saved a hit.
#
# The counter also runs with COUNTER_COSTS=off beside itself, on the same
# database: the line "measuring the costs" is what timing its own
# requests costs a hit (issue 17: within 2 %).
#
# The binaries are built static and stripped, as shipped, into a temp dir:
# counter.cgi is the hit binary (./cgi/hit), and the full tool (./cgi) it
# execs for anything else is counter/counter-tool beside cgi-bin, as
# install.sh lays out /usr/lib; the binary before likewise when its commit
# has the hit binary, else the one program it was.
# lighttpd runs in the foreground on a free 127.0.0.1 port with a generated
# main config that includes the shipped deploy/lighttpd/counter.conf, its
# paths pointed at the temp dir; floor.cgi gets its own cgi.assign there,
# since the snippet only claims counter.cgi.  deploy/bench/hitbench does the timing.
#
# REQUESTS defaults below hitbench's 2000 to keep a run under 4 minutes on
# 2 cores.
#
# Needs lighttpd and GNU time (Debian packages lighttpd, time) and Go.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

N=${N:-300}
REQUESTS=${REQUESTS:-1200}

[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
bench_init bench-hit
export CGO_ENABLED=0
bench_build_pair
go build -trimpath -ldflags="-s -w" -o "$T/cgi-bin/floor.cgi" ./deploy/bench/floor
# The same counter with writers queued by bbolt's own polling lock only, to
# show what the side lock in store/sidelock.go buys under lighttpd.
go build -trimpath -ldflags="-s -w" -tags bboltlockonly -o "$T/cgi-bin/counter-bboltlock.cgi" ./cgi/hit
env -u GATEWAY_INTERFACE "$T/cgi-bin/counter.cgi" create bench -db "$T/counter.db" \
	show=visitors reload=30m ignore=192.0.2.0/24,2001:db8::/32 referrers=example.org,*.example.org >/dev/null
BEFORE=${1:-${BEFORE:-8cfcf85}}
before_args=()
bytesgen_tree=$REPO
if [ "$BEFORE" != none ]; then
	mkdir -p "$T/before-src" "$T/before/run"
	git -C "$REPO" archive --format=tar "$BEFORE" | tar -x -C "$T/before-src"
	before_bin=$T/counter-before.cgi
	if [ -d "$T/before-src/cgi/hit" ]; then
		# A commit with the hit binary: the pair as installed, as above.
		before_bin=$T/before/cgi-bin/counter.cgi
		(cd "$T/before-src" && GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w" -o "$T/before/counter/counter-tool" ./cgi &&
			GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w" -o "$before_bin" ./cgi/hit)
	else
		(cd "$T/before-src" && GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w" -o "$before_bin" ./cgi)
	fi
	env -u GATEWAY_INTERFACE "$before_bin" create bench -db "$T/before/counter.db" \
		show=visitors reload=30m ignore=192.0.2.0/24,2001:db8::/32 referrers=example.org,*.example.org >/dev/null
	before_args=(-before "$before_bin" -before-db "$T/before/counter.db")
	echo "before: $(git -C "$REPO" log -1 --format='%h %s' "$BEFORE")"
	# The year-old file is written in the older tree, of its schema, so
	# that both binaries read it (as in bench-bytes.sh).
	mkdir -p "$T/before-src/deploy/bench/bytesgen"
	cp deploy/bench/bytesgen/main.go "$T/before-src/deploy/bench/bytesgen/"
	bytesgen_tree=$T/before-src
fi

# A site's page and the year-old file, direct runs only: a fresh file with
# a site for www.example.org (hitbench's Referer is a page there), and
# bytesgen's year-old file (200 counters with a year of days, a site with
# a year of pages), its counter c100; each binary on a file bytesgen
# writes for it, not on a copy: cp writes a copy in 128 KB chunks, and
# ext4 (Linux 6.16 and later) keeps them in the page cache as 128 KB
# folios, which the kernel's fault-around maps whole into the hit's
# mapping of the file (bbolt's MADV_RANDOM does not stop it), 32 pages
# round each page a hit reads where a file written by bbolt maps 16: on
# Linux 6.18, 112 pages of the file resident at the commit (4.49 MB peak
# RSS) against 51 (4.24 MB) for the file as bytesgen wrote it, shared
# page cache either way. Two runs of bytesgen give files of one shape
# (39,337,984 bytes, 5,507 pages in use, the counters bucket 6 deep with
# 413 branch and 5,065 leaf pages), not the same bytes.
(cd "$bytesgen_tree" && GOFLAGS=-mod=mod go build -o "$T/bytesgen" ./deploy/bench/bytesgen)
for who in new before; do
	bin=$T/cgi-bin/counter.cgi dir=$T
	if [ "$who" = before ]; then
		[ "$BEFORE" != none ] || continue
		bin=$before_bin dir=$T/before
	fi
	mkdir -p "$dir/site/run" "$dir/year/run"
	env -u GATEWAY_INTERFACE "$bin" create site -site -hosts www.example.org -db "$dir/site/counter.db" >/dev/null
	"$T/bytesgen" -db "$dir/year/counter.db"
done
echo "year-old file: $(stat -c %s "$T/year/counter.db") bytes"
site_case="site page=site:$T/site/counter.db"
year_case="year-old file=c100:$T/year/counter.db"
if [ "$BEFORE" != none ]; then
	site_case+=":$T/before/site/counter.db"
	year_case+=":$T/before/year/counter.db"
fi
case_args=(-case "$site_case" -case "$year_case")

if [ "$REQUESTS" = 0 ]; then
	go run ./deploy/bench/hitbench -floor "$T/cgi-bin/floor.cgi" -counter "$T/cgi-bin/counter.cgi" \
		-db "$T/counter.db" -n "$N" "${before_args[@]}" "${case_args[@]}"
	echo "run time ${SECONDS}s"
	exit 0
fi

bench_snippet
# The snippet claims only counter.cgi; the other builds the same way, beside it.
bench_lighttpd "\$HTTP[\"url\"] =~ \"^/cgi-bin/(floor|counter-bboltlock)\\.cgi(/|\$)\" {
	alias.url += ( \"/cgi-bin/\" => \"$T/cgi-bin/\" )
	cgi.assign = ( \".cgi\" => \"\" )
	setenv.add-environment = ( \"COUNTER_DB\" => \"$T/counter.db\" )
}" /cgi-bin/floor.cgi/bench.gif

go run ./deploy/bench/hitbench -floor "$T/cgi-bin/floor.cgi" -counter "$T/cgi-bin/counter.cgi" \
	-db "$T/counter.db" -n "$N" -url "$BASE" -requests "$REQUESTS" -also counter-bboltlock.cgi \
	"${before_args[@]}" "${case_args[@]}"

if [ -s "$T/breakage.log" ]; then
	echo "CGI stderr (breakage.log), last lines:"
	tail -n 5 "$T/breakage.log"
fi
echo "run time ${SECONDS}s"
