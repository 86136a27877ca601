#!/usr/bin/env bash
# deploy/build.sh [DIR] - build counter.cgi for every Pi and for a PC.
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
# deploy/test/arm_test.go runs what this makes under qemu-user.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
mkdir -p "$out"

# name GOARCH GOARM
targets=(
	"arm64 arm64 -"
	"armv7 arm 7"
	"armv6 arm 6"
	"amd64 amd64 -"
)
for target in "${targets[@]}"; do
	read -r name arch arm <<<"$target"
	bin="$out/counter.cgi-linux-$name"
	env=(CGO_ENABLED=0 GOOS=linux GOARCH="$arch")
	[ "$arm" = - ] || env+=(GOARM="$arm")
	env "${env[@]}" go build -trimpath -buildvcs=auto -ldflags="-s -w" -o "$bin" ./cgi
	size=$(stat -c %s "$bin")
	printf '%-40s %9d bytes (%s KiB)\n' "$bin" "$size" "$(( (size + 1023) / 1024 ))"
done
