#!/usr/bin/env bash
# deploy/build.sh [DIR] - build counter.cgi for every Pi and for a PC, and
# the Debian packages.
#
# Writes static (CGO_ENABLED=0), stripped binaries built with -trimpath
# into DIR (default dist/) and prints each one's name and size:
#
#   counter.cgi-linux-arm64   Pi 3, 4 or 5 with a 64-bit OS
#   counter.cgi-linux-armv7   Pi 2 or 3 with a 32-bit OS
#   counter.cgi-linux-armv6   Pi Zero, Zero W or 1 (ARM1176: a GOARM=7
#                             binary dies there with SIGILL)
#   counter.cgi-linux-amd64   a PC or server
#
# counter.cgi-linux-NAME is the hit binary (./cgi/hit), which a web server
# runs for every hit: it serves a counted image itself and execs the full
# tool for anything else. Beside each, counter-tool-linux-NAME: the full
# tool (./cgi: the pages, FastCGI, the admin commands), installed as
# /usr/lib/counter/counter-tool, where counter.cgi finds it from
# /usr/lib/cgi-bin; counter-cluster-linux-NAME: the full tool with the
# etcd client (-tags etcd), which the full tool runs for a store in a
# cluster, so that the client's size and start-up are paid by clusters
# alone; and counter-themedecode-linux-NAME: digitset add's image
# decoder (./cgi/themedecode), a program of its own so that neither binary
# links an image decoder.
#
# and, with dpkg-deb, from those binaries and the very files install.sh
# installs, one package for each of Debian's architectures:
#
#   counter_VERSION_arm64.deb   64-bit Raspberry Pi OS, Debian arm64
#   counter_VERSION_armhf.deb   32-bit Raspberry Pi OS: the armv6 binary,
#                               which runs on every Pi, Zero and 1 included
#   counter_VERSION_amd64.deb   a PC or server
#
# VERSION is $VERSION if set, else 0.0.COMMITS+BUILDTIME.gCOMMIT
# (0.0.412+20261207120000.g1a2b3c4): the number of commits, then the time
# of the build, so that every build upgrades the one before it, a rebuild
# of the same commit included.
# ARCHS (default "arm64 armhf amd64") picks the packages, and with them
# the binaries, to build: ARCHS=amd64 makes only the PC's.
# The package's postinst runs install.sh --packaged (deploy/debian/).
#
# deploy/test/arm_test.go runs the binaries under qemu-user, and
# deploy/test/deb_test.go checks and installs the packages.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deploy/find-go.sh
. deploy/find-go.sh
go_bin=$(find_go go.mod)
out=${1:-dist}
mkdir -p "$out"

# name GOARCH GOARM
targets=(
	"arm64 arm64 -"
	"armv7 arm 7"
	"armv6 arm 6"
	"amd64 amd64 -"
)
archs=${ARCHS:-arm64 armhf amd64}
# debarch binary: the package of each architecture and the binary it holds
declare -A debs=([arm64]=arm64 [armhf]=armv6 [amd64]=amd64)
for target in "${targets[@]}"; do
	read -r name arch arm <<<"$target"
	if [ "$archs" != "arm64 armhf amd64" ]; then
		wanted=0
		for a in $archs; do [ "${debs[$a]:-}" = "$name" ] && wanted=1; done
		[ "$wanted" = 1 ] || continue
	fi
	bin="$out/counter.cgi-linux-$name"
	env=(CGO_ENABLED=0 GOOS=linux GOARCH="$arch")
	[ "$arm" = - ] || env+=(GOARM="$arm")
	env "${env[@]}" "$go_bin" build -trimpath -buildvcs=auto -ldflags="-s -w" -o "$bin" ./cgi/hit
	env "${env[@]}" "$go_bin" build -trimpath -buildvcs=auto -ldflags="-s -w" -o "$out/counter-tool-linux-$name" ./cgi
	env "${env[@]}" "$go_bin" build -trimpath -buildvcs=auto -ldflags="-s -w" -tags etcd -o "$out/counter-cluster-linux-$name" ./cgi
	env "${env[@]}" "$go_bin" build -trimpath -buildvcs=auto -ldflags="-s -w" -o "$out/counter-themedecode-linux-$name" ./cgi/themedecode
	for b in "$bin" "$out/counter-tool-linux-$name" "$out/counter-cluster-linux-$name" "$out/counter-themedecode-linux-$name"; do
		size=$(stat -c %s "$b")
		printf '%-48s %9d bytes (%s KiB)\n' "$b" "$size" "$(((size + 1023) / 1024))"
	done
done

commit=$(git rev-parse --short HEAD 2>/dev/null || true)
if [ -z "${VERSION:-}" ]; then
	# Each build a version that apt takes as an upgrade of every earlier
	# one: the commits so far (a later commit, a larger number), then the
	# build's time (the same commit built again, a later time). With the
	# same version apt says "already the newest version" and keeps the old.
	VERSION=0.0.$(git rev-list --count HEAD 2>/dev/null || echo 0)+$(date -u +%Y%m%d%H%M%S)
	[ -z "$commit" ] || VERSION+=.g$commit
fi
command -v dpkg-deb >/dev/null || {
	echo "build.sh: no dpkg-deb to make the packages with (apt-get install dpkg)" >&2
	exit 1
}

# deb DEBARCH BINARY makes counter_VERSION_DEBARCH.deb in $out.
deb() {
	local arch=$1 bin=$2 stage d
	stage=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: stage is local
	trap "rm -rf '$stage'" RETURN
	d=$stage/root
	install -D -m 0755 "$bin" "$d/usr/lib/cgi-bin/counter.cgi"
	install -D -m 0755 "${bin/counter.cgi-/counter-tool-}" "$d/usr/lib/counter/counter-tool"
	install -D -m 0755 "${bin/counter.cgi-/counter-cluster-}" "$d/usr/lib/counter/counter-cluster"
	install -D -m 0755 "${bin/counter.cgi-/counter-themedecode-}" "$d/usr/lib/counter/counter-themedecode"
	# the command on PATH that the manual and the messages name
	mkdir -p "$d/usr/bin" && ln -s ../lib/counter/counter-tool "$d/usr/bin/counter"
	install -D -m 0644 deploy/counter.tmpfiles.conf "$d/usr/lib/tmpfiles.d/counter.conf"
	install -D -m 0644 deploy/systemd/counter.socket "$d/lib/systemd/system/counter.socket"
	install -D -m 0644 deploy/systemd/counter.service "$d/lib/systemd/system/counter.service"
	install -D -m 0755 deploy/init.d/counter "$d/etc/init.d/counter"
	install -D -m 0755 deploy/init.d/counter-rundir "$d/etc/init.d/counter-rundir"
	install -D -m 0644 deploy/fail2ban/filter.d/counter.conf "$d/etc/fail2ban/filter.d/counter.conf"
	install -D -m 0644 deploy/fail2ban/jail.d/counter.local "$d/etc/fail2ban/jail.d/counter.local"
	# The kit, which postinst and prerm run.
	install -D -m 0755 deploy/install.sh "$d/usr/share/counter/install.sh"
	install -D -m 0755 deploy/uninstall.sh "$d/usr/share/counter/uninstall.sh"
	install -D -m 0644 deploy/install-lib.sh "$d/usr/share/counter/install-lib.sh"
	# For a store in an etcd cluster (deploy/doc/cluster.md).
	install -D -m 0755 deploy/cluster-certs.sh "$d/usr/share/counter/cluster-certs.sh"
	install -D -m 0644 deploy/systemd/counter-cluster.conf "$d/usr/share/counter/systemd/counter-cluster.conf"
	local f
	for f in deploy/apache/*.conf deploy/lighttpd/*.conf deploy/nginx/*.conf deploy/caddy/*.caddy; do
		install -D -m 0644 "$f" "$d/usr/share/counter/${f#deploy/}"
	done
	install -D -m 0644 deploy/debian/copyright "$d/usr/share/doc/counter/copyright"
	install -D -m 0644 deploy/debian/lintian-overrides "$d/usr/share/lintian/overrides/counter"
	install -D -m 0644 README.md "$d/usr/share/doc/counter/README.md"
	gzip -9n <README.md >"$d/usr/share/doc/counter/README.md.gz" && rm "$d/usr/share/doc/counter/README.md"
	printf 'counter (%s) unstable; urgency=medium\n\n  * Built by deploy/build.sh from commit %s.\n\n -- Hit counter developers <counter@users.noreply.github.com>  %s\n' \
		"$VERSION" "${commit:-unknown}" "$(date -u -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")" |
		gzip -9n >"$d/usr/share/doc/counter/changelog.gz"

	mkdir -p "$d/DEBIAN"
	install -m 0755 deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$d/DEBIAN/"
	printf '/etc/init.d/counter\n/etc/init.d/counter-rundir\n/etc/fail2ban/filter.d/counter.conf\n/etc/fail2ban/jail.d/counter.local\n' >"$d/DEBIAN/conffiles"
	(cd "$d" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$d/DEBIAN/md5sums"
	cat >"$d/DEBIAN/control" <<CONTROL
Package: counter
Version: $VERSION
Architecture: $arch
Maintainer: Hit counter developers <counter@users.noreply.github.com>
Installed-Size: $(du -sk --exclude=DEBIAN "$d" | cut -f1)
Depends: init-system-helpers (>= 1.50), sysvinit-utils (>= 3.05-4~) | lsb-base
Recommends: lighttpd | apache2 | nginx | caddy
Suggests: fail2ban, libapache2-mod-fcgid
Section: web
Priority: optional
Description: old-school visitor counter for static sites (CGI and FastCGI)
 counter.cgi counts the views of a static page from an <img> tag and
 shows the count as an image; each counter has a statistics page that
 only its owner can open. It runs as CGI under lighttpd or Apache, or as
 one FastCGI service (systemd's counter.socket, or /etc/init.d/counter)
 for Apache, nginx and Caddy, and keeps its counts in one bbolt file in
 /var/lib/counter. Installing the package sets up every web server it
 finds; removing it takes the counter out of them again.
CONTROL
	local file=$out/counter_${VERSION}_$arch.deb
	dpkg-deb --root-owner-group -Zxz --build "$d" "$file" >/dev/null
	printf '%-40s %9d bytes\n' "$file" "$(stat -c %s "$file")"
}
for a in $archs; do
	[ -n "${debs[$a]:-}" ] || {
		echo "build.sh: ARCHS: no package for $a (want arm64, armhf, amd64)" >&2
		exit 1
	}
	deb "$a" "$out/counter.cgi-linux-${debs[$a]}"
done
