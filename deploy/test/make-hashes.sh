#!/usr/bin/env bash
# make-hashes.sh - regenerate testdata/hashes/: bcrypt hashes of one fixed
# test password, made by the real implementations an owner migrates from, so
# counter/password_test.go proves Go's x/crypto/bcrypt verifies them.
#
#     deploy/test/make-hashes.sh        # rewrites testdata/hashes/*
#
# Needs php (Debian package php-cli) and htpasswd (apache2-utils); it
# installs nothing. Each run draws new salts, so every file changes.
#
# The password never appears on a command line (where ps or
# /proc/PID/cmdline would show it): it is written by bash's printf builtin
# into a pipe and read by each tool from stdin. It is a public test fixture,
# not a secret, but the fixtures should be made the way an owner would.
set -euo pipefail

PASSWORD='correct horse battery staple'

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/testdata/hashes

need() { # need TOOL PACKAGE
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "make-hashes: $1 not found; install the Debian package $2 (apt-get install $2)" >&2
		exit 1
	fi
}
need php php-cli
need htpasswd apache2-utils

php_version=$(php -r 'echo PHP_VERSION;')
htpasswd_version=$(dpkg-query -W -f='${Version}' apache2-utils 2>/dev/null || echo unknown)

# check FILE: the file holds exactly one bcrypt hash line.
check() {
	if ! grep -qxE '\$2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}' "$1" || [ "$(wc -l <"$1")" -ne 1 ]; then
		echo "make-hashes: $1 does not hold one bcrypt hash:" >&2
		cat "$1" >&2
		exit 1
	fi
}

# php_hash COST: password_hash with an explicit cost, password from stdin.
php_hash() {
	printf '%s' "$PASSWORD" | php -r '
		$p = stream_get_contents(STDIN);
		$h = password_hash($p, PASSWORD_BCRYPT, ["cost" => (int)$argv[1]]);
		if (!is_string($h)) { fwrite(STDERR, "password_hash failed\n"); exit(1); }
		echo $h, "\n";
	' -- "$1"
}

# htpasswd_hash COST: htpasswd -i reads the password from stdin; -n prints
# "user:HASH" instead of writing a file. Keep only the hash.
htpasswd_hash() {
	printf '%s\n' "$PASSWORD" | htpasswd -niB -C "$1" user | sed -n 's/^user://p'
}

mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for cost in 10 12 13; do
	php_hash "$cost" >"$tmp/php-cost$cost.txt"
done
for cost in 10 12; do
	htpasswd_hash "$cost" >"$tmp/htpasswd-cost$cost.txt"
done
for f in "$tmp"/*.txt; do
	check "$f"
done

cat >"$tmp/README" <<EOF
bcrypt hashes made by other implementations, for counter/password_test.go.

Every hash is of the test password (no trailing newline):

    $PASSWORD

It is a public test fixture, not a secret.

    file                  made by
    php-cost10.txt        PHP $php_version password_hash(\$p, PASSWORD_BCRYPT, ['cost' => 10])
    php-cost12.txt        PHP $php_version password_hash, cost 12 (PHP 8.4's PASSWORD_DEFAULT cost)
    php-cost13.txt        PHP $php_version password_hash, cost 13 (above MaxVerifyCost: must be refused unrun)
    htpasswd-cost10.txt   Apache htpasswd -niB -C 10 (apache2-utils $htpasswd_version)
    htpasswd-cost12.txt   Apache htpasswd -niB -C 12 (apache2-utils $htpasswd_version)

All are \$2y\$ hashes, one line each. Regenerate (needs php-cli and
apache2-utils; new salts every run) with:

    deploy/test/make-hashes.sh
EOF

rm -f "$out"/*.txt "$out/README"
mv "$tmp"/*.txt "$tmp/README" "$out/"
echo "make-hashes: wrote $(ls "$out" | wc -l) files to ${out#"$root"/} (PHP $php_version, apache2-utils $htpasswd_version)"
