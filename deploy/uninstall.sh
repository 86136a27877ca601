#!/usr/bin/env bash
# deploy/uninstall.sh - undo deploy/install.sh. The counts stay in
# /var/lib/counter unless --purge is given.
#
#   sudo deploy/uninstall.sh [--purge] [--root DIR]
#
# --purge     also delete /var/lib/counter and every count in it
# --root DIR  uninstall from under DIR instead of / (for tests)
#
# It stops and removes the FastCGI service (counter.socket and
# counter.service), removes the binary, the lighttpd, Apache, nginx and
# Caddy configuration it dropped in (and the lines that include it), the
# tmpfiles rule and /run/counter, then reloads the servers that run. It
# leaves the Apache modules enabled (cgid, fcgid, proxy_fcgi) and the user
# caddy in www-data's group: other sites may use them.
set -euo pipefail
# shellcheck source=deploy/install-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"

purge=0
while [ $# -gt 0 ]; do
	case $1 in
	--purge) purge=1; shift ;;
	--root) set_root "${2:?--root needs a folder}"; shift 2 ;;
	-h | --help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "run me as root (sudo $0 ...)"

if has_lighttpd; then
	before=$changed
	for conf in counter.conf counter-fastcgi.conf; do
		remove "$lighttpd_dir/conf-enabled/$conf"
	done
	[ "$changed" = "$before" ] || reload lighttpd restart
fi

if has_apache; then
	before=$changed
	for name in counter counter-fastcgi counter-service; do
		if apache_enabled conf "$name"; then
			a2 a2disconf -q "$name"
			say "disabled $name"
			changed=$((changed + 1))
		fi
		remove "$apache_dir/conf-available/$name.conf"
	done
	[ "$changed" = "$before" ] || reload apache2 reload
fi

if has_nginx; then
	before=$changed
	site=$root$nginx_dir/sites-available/default
	if grep -qF '# the hit counter (deploy/install.sh)' "$site" 2>/dev/null; then
		sed -i -e '/^[[:space:]]*# the hit counter (deploy\/install.sh)$/d' -e '/^[[:space:]]*include snippets\/counter.conf;$/d' "$site"
		say "removed the counter's include from $nginx_dir/sites-available/default"
		changed=$((changed + 1))
	fi
	remove "$nginx_dir/snippets/counter.conf"
	remove "$nginx_dir/conf.d/counter-upstream.conf"
	[ "$changed" = "$before" ] || reload nginx reload
fi

if has_caddy; then
	before=$changed
	file=$root$caddy_dir/Caddyfile
	if grep -qF '# the hit counter (deploy/install.sh)' "$file"; then
		sed -i -e '/^[[:space:]]*# the hit counter (deploy\/install.sh)$/,/^[[:space:]]*import counter.caddy$/d' "$file"
		say "removed the counter's import from $caddy_dir/Caddyfile"
		changed=$((changed + 1))
	fi
	remove "$caddy_dir/counter.caddy"
	[ "$changed" = "$before" ] || reload caddy reload
fi

if [ -e "$root$units_dir/counter.socket" ] || [ -e "$root$units_dir/counter.service" ]; then
	if has_systemd; then
		"$systemctl_cmd" disable --now counter.socket counter.service >/dev/null 2>&1 || true
	fi
	remove "$units_dir/counter.socket"
	remove "$units_dir/counter.service"
	has_systemd && "$systemctl_cmd" daemon-reload
fi

remove "$bin_path"
remove "$tmpfiles_conf"
if [ -d "$root$run_dir" ]; then
	rm -rf -- "$root$run_dir"
	say "removed $run_dir"
fi
if [ "$purge" = 1 ]; then
	if [ -d "$root$data_dir" ]; then
		rm -rf -- "$root$data_dir"
		say "removed $data_dir and every count in it"
	fi
elif [ -d "$root$data_dir" ]; then
	say "kept the counts in $data_dir (--purge deletes them)"
fi
