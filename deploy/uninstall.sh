#!/usr/bin/env bash
# deploy/uninstall.sh - undo deploy/install.sh. The counts stay in
# /var/lib/counter unless --purge is given.
#
#   sudo deploy/uninstall.sh [--purge] [--root DIR] [--packaged]
#
# --purge     also delete /var/lib/counter and every count in it, the
#             backups in /var/backups/counter, and the FastCGI service's
#             log (/var/log/counter.log); and take back what install.sh
#             enabled that others may use too (Apache's modules, the user
#             caddy in www-data's group), as the package's purge does
# --root DIR  uninstall from under DIR instead of / (for tests)
# --packaged  for the Debian package's prerm: leave the files that are
#             the package's (dpkg removes them)
# --keep-state (what it always does now: the list of what install.sh
#             enabled is kept until --purge, or the package's purge)
#
# It stops and removes the FastCGI service (counter.socket and
# counter.service, or /etc/init.d/counter and its boot links), removes the
# binary and the command /usr/bin/counter, the lighttpd, Apache, nginx and
# Caddy configuration it dropped in and every line that includes it, the
# tmpfiles rule, /etc/init.d/counter-rundir and /run/counter,
# then reloads the servers that run. What install.sh enabled that other
# sites may use too (Apache modules, the user caddy in www-data's group)
# it leaves, and lists with the command that takes each back; --purge
# takes it back.
set -euo pipefail
# shellcheck source=deploy/install-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"

purge=0 packaged=0
while [ $# -gt 0 ]; do
	case $1 in
	--purge) purge=1; shift ;;
	--root) set_root "${2:?--root needs a folder}"; shift 2 ;;
	--packaged) packaged=1; shift ;;
	--keep-state) shift ;;
	-h | --help) sed -n '2,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "run me as root (sudo $0 ...)"
quiet_stopped=1 # a server that is not running has nothing to reload

# The service first: no server is left pointing at a socket that goes.
if has_systemd; then
	if [ -e "$root$units_dir/counter.socket" ] || [ -e "$root/lib/systemd/system/counter.socket" ]; then
		"$systemctl_cmd" disable --now counter.socket counter.service >/dev/null 2>&1 || true
		say "stopped and disabled counter.socket and counter.service"
	fi
elif [ -e "$root$init_script" ]; then
	if "$service_cmd" counter status >/dev/null 2>&1; then
		"$service_cmd" counter stop >/dev/null || die "service counter stop failed: run it again to see why"
		say "stopped the FastCGI service (service counter stop)"
	fi
fi
if compgen -G "$root/etc/rc[0-6S].d/[SK][0-9][0-9]counter" >/dev/null; then
	# update-rc.d remove wants the script gone, unless forced
	"$update_rc_cmd" -f counter remove >/dev/null || die "update-rc.d -f counter remove failed: run it again to see why"
	say "removed the FastCGI service's boot links (update-rc.d -f counter remove)"
fi

if compgen -G "$root/etc/rc[0-6S].d/[SK][0-9][0-9]counter-rundir" >/dev/null; then
	"$update_rc_cmd" -f counter-rundir remove >/dev/null || die "update-rc.d -f counter-rundir remove failed: run it again to see why"
	say "removed the runtime directory's boot links (update-rc.d -f counter-rundir remove)"
fi

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

# remove_lines FILE PATTERN deletes from FILE the lines install.sh added
# (its comment) and every line that is PATTERN alone, as an owner adds
# it by hand where install.sh asked: a line left would name a file gone.
remove_lines() {
	local file=$1 pattern=$2
	[ -f "$file" ] || return 0
	grep -qE -e '^[[:space:]]*# the hit counter \(deploy/install.sh\)$' -e "^[[:space:]]*$pattern[[:space:]]*\$" "$file" || return 0
	sed -i -E -e '\|^[[:space:]]*# the hit counter \(deploy/install.sh\)$|d' -e "\\|^[[:space:]]*$pattern[[:space:]]*\$|d" "$file"
	say "removed the counter's lines from ${file#"$root"}"
	changed=$((changed + 1))
}

if has_nginx; then
	before=$changed
	for f in "$root$nginx_dir"/sites-available/* "$root$nginx_dir"/sites-enabled/* "$root$nginx_dir"/conf.d/*.conf; do
		[ -L "$f" ] && continue # a site enabled: its file is in sites-available
		remove_lines "$f" 'include snippets/counter\.conf;'
	done
	remove "$nginx_dir/snippets/counter.conf"
	remove "$nginx_dir/conf.d/counter-upstream.conf"
	[ "$changed" = "$before" ] || reload nginx reload
fi

if has_caddy; then
	before=$changed
	remove_lines "$root$caddy_dir/Caddyfile" 'import counter\.caddy'
	remove "$caddy_dir/counter.caddy"
	[ "$changed" = "$before" ] || reload caddy reload
fi

if [ "$packaged" = 0 ]; then
	if [ -e "$root$units_dir/counter.socket" ] || [ -e "$root$units_dir/counter.service" ]; then
		remove "$units_dir/counter.socket"
		remove "$units_dir/counter.service"
		has_systemd && "$systemctl_cmd" daemon-reload
	fi
	remove "$init_script"
	remove "$rundir_script"
	remove "$bin_path"
	if [ "$(readlink -- "$root$cmd_path" 2>/dev/null)" = "$cmd_target" ]; then
		remove "$cmd_path"
	fi
	remove "$tool_path"
	remove "$cluster_tool_path"
	remove "$decoder_path"
	if [ -d "$root$decoder_dir" ] && [ -z "$(ls -A "$root$decoder_dir")" ]; then
		remove "$decoder_dir" # the owner's own files there stay
	fi
	remove "$tmpfiles_conf"
fi
rm -f "$root/run/counter.pid"
if [ -d "$root$run_dir" ]; then
	rm -rf -- "$root$run_dir"
	say "removed $run_dir"
fi

# What install.sh enabled that others may use too: on --purge taken back,
# as the package's purge does; otherwise listed, with the command that
# takes it back, and its record kept for a later --purge.
if [ -f "$root$state_file" ]; then
	apache_restart=0
	# the last enabled first: proxy_fcgi before the proxy it needs
	while read -r what name; do
		case $what in
		apache-mod)
			apache_enabled mod "$name" || continue
			if [ "$purge" = 1 ]; then
				a2 a2dismod -q -f "$name"
				say "disabled Apache's module $name, which install.sh enabled"
				apache_restart=1
			else
				if [ "$packaged" = 1 ]; then # prerm: for remove and purge alike
					say "Apache's module $name, which the package enabled, stays enabled until apt purge counter"
				else
					say "left enabled: Apache's module $name, which install.sh enabled; if no other site needs it: a2dismod $name && $(service_command apache2 restart) (uninstall.sh --purge does it)"
				fi
			fi ;;
		caddy-group)
			id -nG caddy 2>/dev/null | tr ' ' '\n' | grep -qxF -- "$name" || continue
			if [ "$purge" = 1 ]; then
				"$gpasswd_cmd" -d caddy "$name" >/dev/null || die "gpasswd -d caddy $name failed: run it again to see why"
				say "took the user caddy out of the group $name, which install.sh added it to"
			else
				if [ "$packaged" = 1 ]; then
					say "the user caddy stays in the group $name, where the package added it, until apt purge counter"
				else
					say "left: the user caddy in the group $name, which install.sh added; if nothing else needs it: gpasswd -d caddy $name (uninstall.sh --purge does it)"
				fi
			fi ;;
		esac
	done < <(tac "$root$state_file")
	if [ "$purge" = 1 ]; then
		rm -f "$root$state_file"
		[ "$apache_restart" = 0 ] || reload apache2 restart
	fi
fi

if [ "$purge" = 1 ]; then
	if [ -d "$root$data_dir" ]; then
		rm -rf -- "$root$data_dir"
		say "removed $data_dir and every count in it"
	fi
	if [ -d "$root$backup_dir" ]; then
		rm -rf -- "$root$backup_dir"
		say "removed $backup_dir and the backups in it"
	fi
	remove /var/log/counter.log
elif [ -d "$root$data_dir" ]; then
	# The package's prerm cannot tell a remove from a purge (dpkg runs it
	# with "remove" for both): it says nothing that a purge makes untrue.
	[ "$packaged" = 1 ] || say "kept the counts in $data_dir (--purge deletes them, and takes back what install.sh enabled)"
fi
