#!/usr/bin/env bash
# deploy/test/test.sh - the project's test command (deploy/README.md, "Run the tests").
#
# Installs what the tests need from Debian (the web servers, nginx and Caddy and
# mod_fcgid among them, PHP and
# htpasswd for hashes made by other implementations, Chromium for the
# browser test, fail2ban-regex for the filter, GNU time for the benchmarks,
# qemu-user to run the ARM builds, strace to see each hit synced before its
# answer and to slow the commits, systemd-analyze to check the unit files) when it is missing and this
# user may install (root, or sudo without a password), then vets and runs
# every test. A test that needs a server or a tool skips without it, except
# when CI=true: there it fails, so a missing server is never mistaken for a
# pass.
#
# With -short, the everyday subset: no apt, no web server, no browser, no
# package install: vet, and the tests of every package but deploy/ (the
# real-server, install and package tests), with -short.
set -euo pipefail
cd "$(dirname "$0")/../.."

for arg in "$@"; do
	if [ "$arg" = -short ]; then
		go vet ./...
		# shellcheck disable=SC2046 # one word a package
		exec go test -count=1 "$@" $(go list ./... | grep -v '/deploy/')
	fi
done

# package: a file it installs
declare -A wanted=(
	[lighttpd]=/usr/sbin/lighttpd
	[apache2]=/usr/sbin/apache2
	[libapache2-mod-fcgid]=/usr/lib/apache2/modules/mod_fcgid.so
	[apache2-utils]=/usr/bin/htpasswd
	[php-cli]=/usr/bin/php
	[time]=/usr/bin/time
	[chromium]=/usr/bin/chromium
	[fail2ban]=/usr/bin/fail2ban-regex
	[qemu-user]=/usr/bin/qemu-aarch64 # and /usr/bin/qemu-arm
	[strace]=/usr/bin/strace
	[systemd]=/usr/bin/systemd-analyze
	[nginx]=/usr/sbin/nginx
	[caddy]=/usr/bin/caddy
	[lintian]=/usr/bin/lintian
	[hugo]=/usr/bin/hugo
	[jekyll]=/usr/bin/jekyll
	[nodejs]=/usr/bin/node
	[npm]=/usr/bin/npm
	[etcd-server]=/usr/bin/etcd
	[prometheus]=/usr/bin/promtool
)
need=()
for pkg in "${!wanted[@]}"; do
	[ -e "${wanted[$pkg]}" ] || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ]; then
		apt_get=(apt-get)
	elif sudo -n true 2>/dev/null; then
		apt_get=(sudo -n apt-get)
	else
		apt_get=()
		echo "test.sh: missing ${need[*]}; install with: sudo apt-get install ${need[*]}" >&2
	fi
	if [ ${#apt_get[@]} -gt 0 ]; then
		echo "test.sh: installing ${need[*]}" >&2
		"${apt_get[@]}" update -qq
		# Hugo without what it recommends: Debian's golang-go, older than
		# go.mod's, which would come first in PATH.
		norecs=() recs=()
		for pkg in "${need[@]}"; do
			if [ "$pkg" = hugo ]; then norecs+=("$pkg"); else recs+=("$pkg"); fi
		done
		[ ${#recs[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq "${recs[@]}" >/dev/null
		[ ${#norecs[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq --no-install-recommends "${norecs[@]}" >/dev/null
	fi
fi

go vet ./...
# The full tool as owners of an etcd cluster build it (deploy/doc/storage.md).
go vet -tags etcd ./cgi/...
# deploy/test is one package whose tests run one after another: it
# cross-builds for three ARM targets and runs them under qemu, installs in
# an overlay root and builds packages, past go test's default 10 minutes.
go test -count=1 -timeout=40m "$@" ./...
# The store's tests again on a real etcd (store/engine_test.go): those
# that touch every bucket (counters, today, referrers and sources, a
# site's pages, page days and titles, digit sets, costs, the meta keys,
# an import's staging), not those of what only a file has.
etcd_tests='TestBatcherCountsEveryHitOnce|TestBatcherHitFacts|TestHitCountsTotalDayAndReferrer|TestReferrersAreBounded|TestCreateSetDelete|TestConcurrentHitsAreAllCounted|TestSiteCountsEachPage|TestSiteMergePages|TestSitePagesFoldDayByDay|TestCheckTrimmedPages|TestImportSitePages|TestImportInStepsAllOrNothing|TestDigitSets|TestFoldCosts|TestSessionKeysApart|TestOwnerLogin|TestCheckFindsBadSessionKeys|TestSources|TestTitles|TestTodayFoldIsAllOrNothing|TestTopPagesAcrossTheTrim|TestVisitTalliesEachKind|TestJudgingReadsSettingsAndOwnerKey|TestOverviewSizeAndBackup|TestNotCountedRecord|TestBatcherThroughAnOutage'
COUNTER_TEST_ENGINE=etcd go test -count=1 "$@" -run "^($etcd_tests)\$" ./store
