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
#   COUNTER_SYSTEMD_RUN the folder whose presence says systemd runs this
#                      machine (/run/systemd/system, as sd_booted checks)
#   COUNTER_SERVICE    service, run as "... UNIT status|reload|restart"
#   COUNTER_NGINX      nginx, run as "... -t -q -c CONF"
#   COUNTER_CADDY      caddy, run as "... validate --config CADDYFILE ..."
#   COUNTER_USERMOD    usermod, run as "... -aG www-data caddy"
#   COUNTER_GPASSWD    gpasswd, run as "... -d caddy www-data"
#   COUNTER_UPDATE_RC  update-rc.d, run as "... counter defaults|remove"
# a2enmod and a2enconf are Debian's own, pointed into $root through
# APACHE_CONFDIR and APACHE_STATE_DIRECTORY.

root=""
web_user=${COUNTER_WEB_USER:-www-data}
lighttpd_cmd=${COUNTER_LIGHTTPD:-lighttpd}
apache2ctl_cmd=${COUNTER_APACHE2CTL:-apache2ctl}
systemctl_cmd=${COUNTER_SYSTEMCTL:-systemctl}
systemd_run=${COUNTER_SYSTEMD_RUN:-/run/systemd/system}
service_cmd=${COUNTER_SERVICE:-service}
nginx_cmd=${COUNTER_NGINX:-nginx}
caddy_cmd=${COUNTER_CADDY:-caddy}
usermod_cmd=${COUNTER_USERMOD:-usermod}
gpasswd_cmd=${COUNTER_GPASSWD:-gpasswd}
update_rc_cmd=${COUNTER_UPDATE_RC:-update-rc.d}

deploy_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# paths on the installed system (prefix them with $root)
bin_path=/usr/lib/cgi-bin/counter.cgi
# digitset add's image decoder, a program of its own (cgi/themedecode), out
# of cgi-bin: counter.cgi looks for it here when it is not beside it
decoder_dir=/usr/lib/counter
decoder_path=$decoder_dir/counter-themedecode
# the full tool (./cgi), which counter.cgi (./cgi/hit) execs for anything
# but a counted image, out of cgi-bin too: counter.cgi finds it as
# ../counter/counter-tool from its own folder
tool_path=$decoder_dir/counter-tool
# the full tool with the etcd client (-tags etcd), which counter-tool runs
# for a store in a cluster: beside it
cluster_tool_path=$decoder_dir/counter-cluster
# the command on PATH the manual and the messages name (sudo -u www-data
# counter passwd blog): a link to the full tool, relative as Debian's are
cmd_path=/usr/bin/counter
cmd_target=../lib/counter/counter-tool
data_dir=/var/lib/counter
db_path=$data_dir/counter.db
run_dir=/run/counter
# backups: /var/backups is root's alone, so the web server's user, who
# runs backup (by hand or from its crontab), gets a folder of its own
backup_dir=/var/backups/counter
tmpfiles_conf=/etc/tmpfiles.d/counter.conf
lighttpd_dir=/etc/lighttpd
apache_dir=/etc/apache2
nginx_dir=/etc/nginx
caddy_dir=/etc/caddy
units_dir=/etc/systemd/system
init_script=/etc/init.d/counter
# without systemd, what makes $run_dir at boot, as tmpfiles.d does under it
rundir_script=/etc/init.d/counter-rundir
socket_path=$run_dir/fastcgi.sock
# What install.sh enabled that others may use too (Apache modules, the
# user caddy in www-data's group): uninstall.sh lists it, with the command
# that takes it back, and keeps the record; uninstall.sh --purge (and the
# package's purge) takes it back and deletes the record.
state_file=/var/lib/counter-install.state

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

# ensure_link PATH TARGET: PATH is a symbolic link to TARGET. Anything
# else there is not ours: left alone, with a word.
ensure_link() {
	local path=$root$1 target=$2
	[ "$(readlink -- "$path" 2>/dev/null)" = "$target" ] && return
	if [ -e "$path" ] || [ -L "$path" ]; then
		say "warning: $1 is there and not a link to $target: left alone (the manual's \`counter\` commands are $bin_path there)"
		return
	fi
	mkdir -p -- "$(dirname -- "$path")"
	ln -s -- "$target" "$path"
	say "linked $1 to $target"
	changed=$((changed + 1))
}

# fix_mode_owner PATH MODE OWNER sets mode and owner where they differ.
# stat, chmod and chown follow links: only for paths in folders that root
# alone may write in (the database, in www-data's, goes through the
# binary's fix-owner).
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
has_nginx() { [ -f "$root$nginx_dir/nginx.conf" ]; }
has_caddy() { [ -f "$root$caddy_dir/Caddyfile" ]; }

# has_systemd tells whether systemd runs this machine (not merely whether
# systemctl is installed): a container or a Pi started otherwise has none.
has_systemd() { [ -d "$systemd_run" ]; }

# a2 CMD ARGS... runs a2enmod, a2enconf, a2disconf quietly, inside $root;
# for the Debian package (packaged=1) in their maintainer mode (-m), so
# that the package's purge can take back their records (-p).
a2() {
	local out cmd=$1
	shift
	[ "${packaged:-0}" = 1 ] && set -- -m "$@"
	if ! out=$("$cmd" "$@" 2>&1); then
		die "$cmd $*: $out"
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

# service_command UNIT HOW prints the one command that does HOW (start,
# restart, reload) to UNIT on this machine.
service_command() {
	if has_systemd; then
		echo "systemctl $2 $1"
	elif [ "$1" = caddy ] && [ "$2" = reload ]; then
		echo "caddy reload --config $caddy_dir/Caddyfile --adapter caddyfile"
	elif [ "$1" = caddy ]; then
		echo "caddy stop; caddy start --config $caddy_dir/Caddyfile --adapter caddyfile"
	else
		echo "service $1 $2"
	fi
}

# reload UNIT HOW reloads or restarts (HOW) a server that runs, through
# whatever runs it: systemd, its init script (service), Caddy's own admin
# API, or, for one started by hand, its own pid file and signal. A server
# that is not running is left so, and the script says how to start it.
reload() {
	local unit=$1 how=$2 pid out
	if has_systemd && "$systemctl_cmd" is-active --quiet "$unit" 2>/dev/null; then
		"$systemctl_cmd" "$how" "$unit" || die "systemctl $how $unit failed: see why with: systemctl status $unit"
		say "${how}ed $unit (systemctl $how $unit)"
	elif "$service_cmd" "$unit" status >/dev/null 2>&1; then
		"$service_cmd" "$unit" "$how" >/dev/null 2>&1 || die "service $unit $how failed: run it again to see why: service $unit $how"
		say "${how}ed $unit (service $unit $how)"
	elif [ "$unit" = caddy ] && ! has_systemd; then
		# Debian's Caddy has no init script: started by hand (caddy
		# start, caddy run), it takes a new config through its admin API.
		if ! out=$(cd "$root$caddy_dir" && "$caddy_cmd" reload --config "$root$caddy_dir/Caddyfile" --adapter caddyfile 2>&1); then
			case $out in
			*"connection refused"* | *"connect: "*)
				[ "${quiet_stopped:-0}" = 1 ] ||
					say "caddy is not running (nothing answers on its admin API): start it with: caddy start --config $caddy_dir/Caddyfile --adapter caddyfile" ;;
			*) die "caddy reload failed: $(printf '%s\n' "$out" | tail -n 1)" ;;
			esac
			return
		fi
		say "reloaded caddy (caddy reload)"
		if [ "$how" = restart ]; then
			say "a caddy that runs as the user caddy gets its new group only when it starts again: $(service_command caddy restart)"
		fi
	elif pid=$(server_pid "$unit"); then
		# What each does on its own: lighttpd and Apache restart
		# gracefully on SIGUSR1, re-reading their configuration (lighttpd
		# starts its FastCGI processes anew); nginx reloads on SIGHUP.
		local sig=USR1
		[ "$unit" = nginx ] && sig=HUP
		kill -s "$sig" "$pid" || die "kill -s $sig $pid ($unit) failed"
		say "reloaded $unit (SIG$sig to pid $pid, from its pid file)"
		if [ "$unit" = apache2 ] && [ "$how" = restart ]; then
			# A module enabled now (mod_cgid's CGI daemon) starts only
			# with a new Apache, not on a signal to the running one.
			say "apache2 needs a full restart for the module enabled now: apache2ctl stop; apache2ctl start"
		fi
	elif [ "${quiet_stopped:-0}" = 0 ]; then
		say "$unit is not running: start it with: $(service_command "$unit" start)"
	fi
}

# server_pid UNIT prints the pid of a running server from its pid file
# (the one its Debian configuration names), or fails.
server_pid() {
	local file pid
	case $1 in
	lighttpd)
		file=$(sed -n 's/^[[:space:]]*server\.pid-file[[:space:]]*=[[:space:]]*"\(.*\)".*/\1/p' "$root$lighttpd_dir/lighttpd.conf" 2>/dev/null | tail -n 1) ;;
	apache2) file=/run/apache2/apache2.pid ;;
	nginx)
		file=$(sed -n 's/^[[:space:]]*pid[[:space:]]\{1,\}\([^;]*\);.*/\1/p' "$root$nginx_dir/nginx.conf" 2>/dev/null | tail -n 1) ;;
	*) return 1 ;;
	esac
	[ -n "$file" ] && [ -f "$root$file" ] || return 1
	pid=$(tr -dc 0-9 <"$root$file")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}
