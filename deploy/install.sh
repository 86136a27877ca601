#!/usr/bin/env bash
# deploy/install.sh - install counter.cgi on a Debian machine (a Raspberry Pi)
# running lighttpd, Apache or both. Run it once with sudo; running it again
# changes nothing unless something differs from what it installs.
#
#   sudo deploy/install.sh [--binary FILE] [--server lighttpd|apache|both]
#                          [--fastcgi] [--counter NAME] [--root DIR]
#
# --binary FILE   the counter.cgi to install (built for this machine, e.g. by
#                 `go build` or deploy/build.sh); without it the script
#                 builds one with go, if go is installed
# --server S      which server to set up; by default each one installed
# --fastcgi       run the binary as FastCGI (lighttpd mod_fastcgi, Apache
#                 mod_fcgid) instead of a process per hit (CGI)
# --counter NAME  make this counter if there is none of that name
# --root DIR      install under DIR instead of / (for tests)
#
# It installs the binary as /usr/lib/cgi-bin/counter.cgi, makes
# /var/lib/counter (www-data, 0750) and /run/counter (and has systemd make
# the latter at boot), drops in the server's configuration, enables its
# modules, checks the configuration and reloads the servers that run.
# deploy/uninstall.sh undoes it and keeps the counts.
set -euo pipefail
# shellcheck source=deploy/install-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"

binary="" servers="" fastcgi=0 counter=""
while [ $# -gt 0 ]; do
	case $1 in
	--binary) binary=${2:?--binary needs a file}; shift 2 ;;
	--server) servers=${2:?--server needs lighttpd, apache or both}; shift 2 ;;
	--fastcgi) fastcgi=1; shift ;;
	--counter) counter=${2:?--counter needs a name}; shift 2 ;;
	--root) set_root "${2:?--root needs a folder}"; shift 2 ;;
	-h | --help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "run me as root (sudo $0 ...)"
id "$web_user" >/dev/null 2>&1 || die "no user $web_user for the web server"
web_owner="$web_user:$(id -gn "$web_user")"

case $servers in
"")
	has_lighttpd && servers+=" lighttpd"
	has_apache && servers+=" apache"
	[ -n "$servers" ] || die "found neither lighttpd nor apache2; install one (apt-get install lighttpd) or pass --server"
	;;
both) servers="lighttpd apache" ;;
lighttpd | apache) ;;
*) die "--server $servers: want lighttpd, apache or both" ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The binary, the data and the runtime folder.
if [ -z "$binary" ]; then
	command -v go >/dev/null || die "no --binary given and no go to build one with"
	say "building counter.cgi with $(go version | cut -d' ' -f3)"
	binary=$work/counter.cgi
	(cd "$deploy_dir/.." && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$binary" ./cgi)
fi
[ -f "$binary" ] || die "--binary $binary: no such file"
binary=$(realpath -- "$binary") # run below: a bare name would be looked up in PATH
"$binary" help </dev/null >/dev/null 2>&1 || die "$binary does not run here (built for another machine?)"
bin_before=$changed
ensure_dir /usr/lib/cgi-bin 0755 root:root
ensure_file "$binary" "$bin_path" 0755 root:root
ensure_dir /var/lib 0755 root:root
ensure_dir "$data_dir" 0750 "$web_owner"
ensure_file "$deploy_dir/counter.tmpfiles.conf" "$tmpfiles_conf" 0644 root:root
# what systemd-tmpfiles makes at boot, made now
ensure_dir /run 0755 root:root
ensure_dir "$run_dir" 0750 "$web_owner"
bin_changed=$((changed - bin_before))

# The first counter, made as the web server's user so the file is its own.
counter_cmd() {
	runuser -u "$web_user" -- "$root$bin_path" "$@" -db "$root$db_path"
}
if [ -n "$counter" ]; then
	if [ -f "$root$db_path" ] && counter_cmd list | awk '{print $1}' | grep -qxF -- "$counter"; then
		:
	else
		counter_cmd create "$counter" >/dev/null
		say "made counter $counter"
		changed=$((changed + 1))
	fi
fi
[ -f "$root$db_path" ] && fix_mode_owner "$db_path" 0600 "$web_owner"

mode=CGI conf=counter.conf other=counter-fastcgi.conf
if [ "$fastcgi" = 1 ]; then
	mode=FastCGI conf=counter-fastcgi.conf other=counter.conf
fi

setup_lighttpd() {
	local before=$changed main=$root$lighttpd_dir/lighttpd.conf src=$deploy_dir/lighttpd/$conf
	has_lighttpd || die "lighttpd: no $root$lighttpd_dir/conf-enabled (apt-get install lighttpd)"
	# lighttpd refuses server.breakagelog set twice
	if grep -qE '^[[:space:]]*server\.breakagelog' "$main" 2>/dev/null; then
		src=$work/$conf
		sed 's/^server\.breakagelog/# set in lighttpd.conf: &/' "$deploy_dir/lighttpd/$conf" >"$src"
	fi
	ensure_file "$src" "$lighttpd_dir/conf-enabled/$conf" 0644 root:root
	remove "$lighttpd_dir/conf-enabled/$other"
	ensure_dir /var/log/lighttpd 0750 "$web_owner"
	[ "$changed" = "$before" ] && [ "$bin_changed" = 0 ] && return
	"$lighttpd_cmd" -tt -f "$main" || die "lighttpd -tt: the configuration is refused; nothing was reloaded"
	# A reload keeps a FastCGI process of the old binary or config.
	if [ "$fastcgi" = 1 ]; then reload lighttpd restart; else reload lighttpd reload; fi
}

setup_apache() {
	local before=$changed name=${conf%.conf} old=${other%.conf} mod=cgi
	[ "$fastcgi" = 1 ] && mod=fcgid
	has_apache || die "apache: no $root$apache_dir/conf-available (apt-get install apache2)"
	if [ "$mod" = fcgid ] && [ ! -e "$root$apache_dir/mods-available/fcgid.load" ]; then
		die "apache: mod_fcgid is not installed (apt-get install libapache2-mod-fcgid)"
	fi
	ensure_file "$deploy_dir/apache/$conf" "$apache_dir/conf-available/$conf" 0644 root:root
	if apache_enabled conf "$old"; then
		a2 a2disconf -q "$old"
		say "disabled $old"
		changed=$((changed + 1))
	fi
	remove "$apache_dir/conf-available/$other"
	# a2enmod cgi picks mod_cgid under a threaded MPM (Debian's default)
	if ! { [ "$mod" = cgi ] && { apache_enabled mod cgi || apache_enabled mod cgid; }; } && ! apache_enabled mod "$mod"; then
		a2 a2enmod -q "$mod"
		say "enabled module $mod"
		changed=$((changed + 1))
	fi
	if ! apache_enabled conf "$name"; then
		a2 a2enconf -q "$name"
		say "enabled $name"
		changed=$((changed + 1))
	fi
	[ "$changed" = "$before" ] && return
	"$apache2ctl_cmd" configtest || die "apache2ctl configtest: the configuration is refused; nothing was reloaded"
	reload apache2 reload
}

for s in $servers; do
	"setup_$s"
done

if [ "$changed" = 0 ]; then
	say "nothing to change: counter.cgi is installed as $mode for ${servers# }"
else
	say "counter.cgi is installed as $mode for ${servers# }"
fi
say "database: $db_path; add counters with: sudo -u $web_user $bin_path create NAME"
echo "Put this in a page:"
echo "  <img src=\"/cgi-bin/counter.cgi/${counter:-NAME}.png\" alt=\"visitors\">"
