# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the scripts that source this
# install-lib.sh - what deploy/install.sh and deploy/uninstall.sh share:
# where things go, and steps that change a path only when it differs from
# what is wanted, so that a second run changes nothing.
#
# Sourced, not run. Every path is under $root ("" for the real system, or
# a scratch folder given with --root); the commands that act on the running
# system can be replaced through the environment, for tests:
#   COUNTER_LIGHTTPD   lighttpd, run as "$COUNTER_LIGHTTPD -tt -f CONF"
#   COUNTER_APACHE2CTL apache2ctl, run as "... configtest"
#   COUNTER_SYSTEMCTL  systemctl, run as "... is-active|reload|restart UNIT"
# a2enmod and a2enconf are Debian's own, pointed into $root through
# APACHE_CONFDIR and APACHE_STATE_DIRECTORY.

root=""
web_user=${COUNTER_WEB_USER:-www-data}
lighttpd_cmd=${COUNTER_LIGHTTPD:-lighttpd}
apache2ctl_cmd=${COUNTER_APACHE2CTL:-apache2ctl}
systemctl_cmd=${COUNTER_SYSTEMCTL:-systemctl}

deploy_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# paths on the installed system (prefix them with $root)
bin_path=/usr/lib/cgi-bin/counter.cgi
data_dir=/var/lib/counter
db_path=$data_dir/counter.db
run_dir=/run/counter
tmpfiles_conf=/etc/tmpfiles.d/counter.conf
lighttpd_dir=/etc/lighttpd
apache_dir=/etc/apache2

# changed counts the steps that changed something.
changed=0

say() { printf '%s: %s\n' "$(basename "$0")" "$*"; }
die() {
	say "$*" >&2
	exit 1
}

# set_root DIR points every path at DIR instead of /.
set_root() {
	[ -d "$1" ] || die "--root $1: no such folder"
	root=$(cd "$1" && pwd)
	[ "$root" = / ] && root=""
	export APACHE_CONFDIR="$root$apache_dir"
	export APACHE_STATE_DIRECTORY="$root/var/lib/apache2"
}

# ensure_dir PATH MODE OWNER: a folder with that mode and owner (user:group).
ensure_dir() {
	local path=$root$1 mode=$2 owner=$3
	if [ ! -d "$path" ]; then
		install -d -m "$mode" -o "${owner%:*}" -g "${owner#*:}" "$path"
		say "made $1"
		changed=$((changed + 1))
		return
	fi
	fix_mode_owner "$1" "$mode" "$owner"
}

# ensure_file SRC PATH MODE OWNER: PATH holds SRC's bytes, with that mode
# and owner. A changed file is replaced by a rename, so that a process
# running the old binary keeps it, and a reader never sees half a file.
ensure_file() {
	local src=$1 path=$root$2 mode=$3 owner=$4
	if [ -f "$path" ] && cmp -s "$src" "$path"; then
		fix_mode_owner "$2" "$mode" "$owner"
		return
	fi
	install -D -m "$mode" -o "${owner%:*}" -g "${owner#*:}" "$src" "$path.new"
	mv -f "$path.new" "$path"
	say "installed $2"
	changed=$((changed + 1))
}

# fix_mode_owner PATH MODE OWNER sets mode and owner where they differ.
fix_mode_owner() {
	local path=$root$1 mode=$2 owner=$3
	if [ "$(stat -c '%a' "$path")" != "${mode#0}" ]; then
		chmod "$mode" "$path"
		say "chmod $mode $1"
		changed=$((changed + 1))
	fi
	if [ "$(stat -c '%U:%G' "$path")" != "$owner" ]; then
		chown "$owner" "$path"
		say "chown $owner $1"
		changed=$((changed + 1))
	fi
}

# remove PATH removes a file or an empty folder if it is there.
remove() {
	local path=$root$1
	if [ -d "$path" ] && [ ! -L "$path" ]; then
		rmdir "$path"
	elif [ -e "$path" ] || [ -L "$path" ]; then
		rm -f "$path"
	else
		return 0
	fi
	say "removed $1"
	changed=$((changed + 1))
}

# has_lighttpd and has_apache tell whether a server's configuration is
# installed.
has_lighttpd() { [ -d "$root$lighttpd_dir/conf-enabled" ]; }
has_apache() { [ -d "$root$apache_dir/conf-available" ]; }

# a2 CMD ARGS... runs a2enmod, a2enconf, a2disconf quietly, inside $root.
a2() {
	local out
	if ! out=$("$@" 2>&1); then
		die "$*: $out"
	fi
}

# apache_enabled KIND NAME tells whether mods-enabled/NAME.load or
# conf-enabled/NAME.conf is there.
apache_enabled() {
	case $1 in
	mod) [ -e "$root$apache_dir/mods-enabled/$2.load" ] ;;
	conf) [ -e "$root$apache_dir/conf-enabled/$2.conf" ] ;;
	esac
}

# reload UNIT how: reload or restart a service if it runs; without systemd,
# or when it is stopped, say what to do instead.
reload() {
	local unit=$1 how=$2
	if "$systemctl_cmd" is-active --quiet "$unit" 2>/dev/null; then
		"$systemctl_cmd" "$how" "$unit" || die "systemctl $how $unit failed"
		say "${how}ed $unit"
	else
		say "$unit is not running (or this system has no systemd): $how it yourself when it runs"
	fi
}
