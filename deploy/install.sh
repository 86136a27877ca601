#!/usr/bin/env bash
# deploy/install.sh - install counter.cgi on a Debian machine (a Raspberry Pi)
# running lighttpd, Apache, nginx or Caddy. Run it once with sudo; running
# it again changes nothing unless something differs from what it installs.
#
#   sudo deploy/install.sh [--binary FILE] [--server S] [--fastcgi]
#                          [--counter NAME] [--url URL] [--root DIR]
#                          [--packaged]
#
# --binary FILE   the counter.cgi to install (built for this machine by
#                 deploy/build.sh, or `go build ./cgi/hit`); without it the
#                 script builds one with go, if go is installed. The full
#                 tool it runs for all but a hit (counter-tool, `go build
#                 ./cgi`) and counter-themedecode (digitset add's image
#                 decoder) are taken from beside it, named as FILE is
#                 (counter-tool-linux-arm64 beside counter.cgi-linux-arm64),
#                 or built with it; so is counter-cluster (the full tool
#                 for a store in an etcd cluster) if it is there
# --server S      which server to set up: lighttpd, apache, nginx, caddy,
#                 both (lighttpd and apache) or all, or several with commas
#                 (apache,nginx); by default each one installed
# --fastcgi       FastCGI instead of a process per hit (CGI): lighttpd
#                 starts the binary itself (mod_fastcgi). Apache, on a
#                 machine that systemd runs, goes through the FastCGI
#                 service (counter.socket, mod_proxy_fcgi): systemd starts
#                 it on the first hit, restarts it if it dies, and confines
#                 it. Without systemd Apache gets mod_fcgid instead: Apache
#                 then starts and restarts the counter itself, where the
#                 init script's service would have nothing to restart it.
#                 nginx and Caddy have no CGI: they always use the service,
#                 with systemd or, without it, /etc/init.d/counter.
# --counter NAME  make this counter if there is none of that name
# --url URL       where the web server answers, for the last check
#                 (default http://localhost)
# --root DIR      install under DIR instead of / (for tests)
# --packaged      for the Debian package's postinst: the binary, the
#                 units, the init script and the tmpfiles rule are the
#                 package's, already in place
#
# It installs the binary as /usr/lib/cgi-bin/counter.cgi (and the full tool
# and the decoder as /usr/lib/counter/counter-tool and counter-themedecode,
# out of reach of CGI, and the command /usr/bin/counter, a link to the
# tool), makes
# /var/lib/counter (www-data, 0750), /var/backups/counter (www-data, 0750,
# for backup) and /run/counter (and has it made at every boot: by systemd's
# tmpfiles.d, or without systemd by /etc/init.d/counter-rundir), drops in the server's configuration, enables its
# modules, checks the configuration and reloads the servers that run
# (restarts them where a reload is not enough: a module enabled, a new
# group), through systemd, their init script, Caddy's admin API or their
# pid file. Last it asks the counter for a count through the web server,
# and says what is wrong and the command that fixes it if that fails.
# deploy/uninstall.sh undoes it and keeps the counts.
set -euo pipefail
# shellcheck source=deploy/install-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"

binary="" servers="" fastcgi=0 counter="" url="" packaged=0
while [ $# -gt 0 ]; do
	case $1 in
	--binary) binary=${2:?--binary needs a file}; shift 2 ;;
	--server) servers+=" ${2:?--server needs lighttpd, apache, nginx, caddy, both or all}"; shift 2 ;;
	--fastcgi) fastcgi=1; shift ;;
	--counter) counter=${2:?--counter needs a name}; shift 2 ;;
	--url) url=${2:?--url needs a URL such as http://localhost:8080}; shift 2 ;;
	--root) set_root "${2:?--root needs a folder}"; shift 2 ;;
	--packaged) packaged=1; shift ;;
	-h | --help) sed -n '2,46s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "run me as root (sudo $0 ...)"
id "$web_user" >/dev/null 2>&1 || die "no user $web_user for the web server"
web_owner="$web_user:$(id -gn "$web_user")"

all_servers="lighttpd apache nginx caddy"
wanted=""
for s in ${servers//,/ }; do
	case $s in
	both) wanted+=" lighttpd apache" ;;
	all) wanted+=" $all_servers" ;;
	lighttpd | apache | nginx | caddy) wanted+=" $s" ;;
	apache2) wanted+=" apache" ;;
	*) die "--server $s: want lighttpd, apache, nginx, caddy, both or all" ;;
	esac
done
servers=""
if [ -z "$wanted" ]; then
	for s in $all_servers; do
		"has_$s" && servers+=" $s"
	done
	[ -n "$servers" ] || die "found none of lighttpd, apache2, nginx or caddy; install one (apt-get install lighttpd) or pass --server"
else
	for s in $all_servers; do # in this order, each once
		case " $wanted " in *" $s "*) servers+=" $s" ;; esac
	done
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The binary, the data and the runtime folder.
if [ "$packaged" = 1 ]; then
	binary=$root$bin_path # the package's
elif [ -z "$binary" ]; then
	# shellcheck source=deploy/find-go.sh
	. "$deploy_dir/find-go.sh"
	go_bin=$(find_go "$deploy_dir/../go.mod") || die "no --binary given, and no Go to build one with"
	say "building counter.cgi with $("$go_bin" version | cut -d' ' -f3)"
	binary=$work/counter.cgi
	for b in "$binary=./cgi/hit" "$work/counter-tool=./cgi" "$work/counter-themedecode=./cgi/themedecode"; do
		(cd "$deploy_dir/.." && CGO_ENABLED=0 "$go_bin" build -trimpath -buildvcs=auto -ldflags="-s -w" -o "${b%%=*}" "${b#*=}")
	done
fi
[ -f "$binary" ] || die "--binary $binary: no such file"
binary=$(realpath -- "$binary") # run below: a bare name would be looked up in PATH
# beside NAME prints the program NAME that came with the binary: beside
# it, named as it is (counter-tool-linux-arm64 beside
# counter.cgi-linux-arm64), or plain NAME there; nothing if neither is.
beside() {
	local f base
	base=$(basename -- "$binary")
	for f in "$(dirname -- "$binary")/$1${base#counter.cgi}" "$(dirname -- "$binary")/$1"; do
		if [ -f "$f" ]; then
			echo "$f"
			return
		fi
	done
}
# The full tool, which counter.cgi runs for all but a hit.
tool=$root$tool_path # the package's
if [ "$packaged" = 0 ]; then
	tool=$(beside counter-tool)
	[ -n "$tool" ] || die "no counter-tool beside $binary: counter.cgi runs it for all but a hit (deploy/build.sh builds both; go build -o counter-tool ./cgi)"
fi
[ -f "$tool" ] || die "$tool: no such file"
"$tool" help </dev/null >/dev/null 2>&1 || die "$tool does not run here (built for another machine?)"
# counter.cgi itself, asked for an image of a name no counter has: it
# answers alone, touching nothing.
env -i GATEWAY_INTERFACE=CGI/1.1 REQUEST_METHOD=HEAD SERVER_PROTOCOL=HTTP/1.1 PATH_INFO=/-.png \
	COUNTER_COSTS=off COUNTER_DB=/nonexistent/counter.db "$binary" </dev/null 2>/dev/null | grep -q '^Status: 400' ||
	die "$binary does not run here (built for another machine?), or is not counter.cgi (go build ./cgi/hit)"
# digitset add's decoder, and the cluster tool for a store in an etcd
# cluster. The cluster tool is installed if it was built (deploy/build.sh
# builds it; installing from source leaves it out, as building the etcd
# client on a Pi takes minutes and only a cluster needs it).
decoder="" cluster_tool=""
if [ "$packaged" = 0 ]; then
	decoder=$(beside counter-themedecode)
	[ -n "$decoder" ] || say "warning: no counter-themedecode beside $binary: digitset add cannot decode images until it is installed as $decoder_path"
	cluster_tool=$(beside counter-cluster)
fi
bin_before=$changed
if [ "$packaged" = 0 ]; then
	ensure_dir /usr/lib/cgi-bin 0755 root:root
	ensure_file "$binary" "$bin_path" 0755 root:root
	ensure_dir "$decoder_dir" 0755 root:root
	ensure_file "$tool" "$tool_path" 0755 root:root
	if [ -n "$decoder" ]; then
		ensure_file "$decoder" "$decoder_path" 0755 root:root
	fi
	if [ -n "$cluster_tool" ]; then
		ensure_file "$cluster_tool" "$cluster_tool_path" 0755 root:root
	fi
	ensure_file "$deploy_dir/counter.tmpfiles.conf" "$tmpfiles_conf" 0644 root:root
	ensure_link "$cmd_path" "$cmd_target"
else
	changed=$((changed + 1)) # a package installed or upgraded: restart what runs it
fi
ensure_dir /var/lib 0755 root:root
ensure_dir "$data_dir" 0750 "$web_owner"
# what systemd-tmpfiles makes at boot, made now
ensure_dir /run 0755 root:root
ensure_dir "$run_dir" 0750 "$web_owner"
bin_changed=$((changed - bin_before))
ensure_dir /var/backups 0755 root:root
ensure_dir "$backup_dir" 0750 "$web_owner"
# Without systemd nothing reads tmpfiles.d: an init script of its own
# makes the runtime directory at every boot, whatever serves the hits.
if ! has_systemd; then
	[ "$packaged" = 1 ] || ensure_file "$deploy_dir/init.d/counter-rundir" "$rundir_script" 0755 root:root
	if ! compgen -G "$root/etc/rc[2S].d/S*counter-rundir" >/dev/null; then
		"$update_rc_cmd" counter-rundir defaults >/dev/null || die "update-rc.d counter-rundir defaults failed: run it again to see why"
		say "the runtime directory $run_dir is made at every boot (update-rc.d counter-rundir defaults)"
		changed=$((changed + 1))
	fi
fi

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
# The database's owner and mode, set by the full tool through a descriptor
# it opened without following a link: www-data may write in $data_dir, and
# chmod or chown by name would change whatever file a link it put there
# points to. A link, or a file with another name, is left as it is.
if out=$("$tool" fix-owner -db "$root$db_path" 2>&1 </dev/null); then
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		say "${line//"$root"/}"
		changed=$((changed + 1))
	done <<<"$out"
else
	out=${out#counter: }
	say "warning: ${out//"$root"/}; left as it is: look at it (ls -l $db_path), and remove it if you did not put it there" >&2
fi

# How each server runs the counter: CGI, FastCGI (lighttpd starts it, or
# mod_fcgid does) or the FastCGI service (systemd starts it on its socket).
declare -A how
for s in $servers; do
	case $s:$fastcgi in
	lighttpd:0 | apache:0) how[$s]=CGI ;;
	lighttpd:1) how[$s]=FastCGI ;;
	apache:1) if has_systemd; then how[$s]=service; else how[$s]=fcgid; fi ;;
	nginx:* | caddy:*) how[$s]=service ;;
	esac
done
[ "${how[apache]:-}" = fcgid ] && say "this machine has no systemd for the FastCGI service: Apache gets mod_fcgid instead"

# The FastCGI service: systemd's socket and the service it starts, or,
# on a machine without systemd, /etc/init.d/counter, started now and at
# every boot (update-rc.d). On an upgrade (a new binary, units or script)
# a running service is restarted; under systemd, requests that come
# meanwhile wait in the socket's backlog.
service_name="counter.socket"
has_systemd || service_name=$init_script
setup_service() {
	local before=$changed
	if [ "$packaged" = 0 ]; then
		if has_systemd; then
			ensure_file "$deploy_dir/systemd/counter.socket" "$units_dir/counter.socket" 0644 root:root
			ensure_file "$deploy_dir/systemd/counter.service" "$units_dir/counter.service" 0644 root:root
		else
			ensure_file "$deploy_dir/init.d/counter" "$init_script" 0755 root:root
		fi
	fi
	local units_changed=$((changed - before))
	[ "$packaged" = 1 ] && units_changed=1 # the package's, just unpacked
	if ! has_systemd; then
		if ! compgen -G "$root/etc/rc2.d/S*counter" >/dev/null; then
			"$update_rc_cmd" counter defaults >/dev/null || die "update-rc.d counter defaults failed: run it again to see why"
			say "enabled the FastCGI service at boot (update-rc.d counter defaults)"
			changed=$((changed + 1))
		fi
		if ! "$service_cmd" counter status >/dev/null 2>&1; then
			"$service_cmd" counter start >/dev/null || die "the FastCGI service did not start: see $root/var/log/counter.log, then: service counter start"
			say "started the FastCGI service (service counter start)"
			changed=$((changed + 1))
		elif [ "$units_changed" != 0 ] || [ "$bin_changed" != 0 ]; then
			"$service_cmd" counter restart >/dev/null || die "the FastCGI service did not restart: see $root/var/log/counter.log, then: service counter restart"
			say "restarted the FastCGI service (service counter restart)"
		fi
		[ -S "$root$socket_path" ] || die "the FastCGI service runs but has no socket at $socket_path: see /var/log/counter.log, then: service counter restart"
		return
	fi
	if [ "$units_changed" != 0 ]; then
		"$systemctl_cmd" daemon-reload || die "systemctl daemon-reload failed"
	fi
	if [ "$units_changed" != 0 ] || ! "$systemctl_cmd" is-enabled --quiet counter.socket 2>/dev/null ||
		! "$systemctl_cmd" is-active --quiet counter.socket 2>/dev/null; then
		"$systemctl_cmd" enable --now counter.socket || die "systemctl enable --now counter.socket failed: see why with: systemctl status counter.socket"
		say "enabled and started counter.socket"
		changed=$((changed + 1))
	fi
	if [ "$units_changed" != 0 ] || [ "$bin_changed" != 0 ]; then
		# Only if it runs; otherwise the next request starts the new one.
		"$systemctl_cmd" try-restart counter.service || die "systemctl try-restart counter.service failed: see why with: systemctl status counter.service"
	fi
}

# note_enabled LINE records in the state file something install.sh
# enabled that others may use too, for uninstall.sh to list.
note_enabled() {
	local f=$root$state_file
	grep -qxF -- "$1" "$f" 2>/dev/null && return
	printf '%s\n' "$1" >>"$f"
	chmod 0644 "$f"
}

setup_lighttpd() {
	local before=$changed main=$root$lighttpd_dir/lighttpd.conf conf=counter.conf other=counter-fastcgi.conf
	[ "${how[lighttpd]}" = FastCGI ] && conf=counter-fastcgi.conf other=counter.conf
	local src=$deploy_dir/lighttpd/$conf
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
	"$lighttpd_cmd" -tt -f "$main" || die "lighttpd refuses the configuration (above); nothing was reloaded; check it again with: lighttpd -tt -f $lighttpd_dir/lighttpd.conf"
	# A reload keeps a FastCGI process of the old binary or config.
	if [ "${how[lighttpd]}" = FastCGI ]; then reload lighttpd restart; else reload lighttpd reload; fi
}

setup_apache() {
	local before=$changed conf mod name old action=reload
	case ${how[apache]} in
	CGI) conf=counter.conf mod=cgi ;;
	fcgid) conf=counter-fastcgi.conf mod=fcgid ;;
	service) conf=counter-service.conf mod=proxy_fcgi ;;
	esac
	name=${conf%.conf}
	has_apache || die "apache: no $root$apache_dir/conf-available (apt-get install apache2)"
	if [ ! -e "$root$apache_dir/mods-available/$mod.load" ] && [ "$mod" != cgi ]; then
		die "apache: mod_$mod is not installed (apt-get install libapache2-mod-fcgid)"
	fi
	ensure_file "$deploy_dir/apache/$conf" "$apache_dir/conf-available/$conf" 0644 root:root
	for old in counter counter-fastcgi counter-service; do
		[ "$old" = "$name" ] && continue
		if apache_enabled conf "$old"; then
			a2 a2disconf -q "$old"
			say "disabled $old"
			changed=$((changed + 1))
		fi
		remove "$apache_dir/conf-available/$old.conf"
	done
	# a2enmod cgi picks mod_cgid under a threaded MPM (Debian's default);
	# a2enmod proxy_fcgi enables proxy with it.
	if ! { [ "$mod" = cgi ] && { apache_enabled mod cgi || apache_enabled mod cgid; }; } && ! apache_enabled mod "$mod"; then
		local m was=""
		for m in cgi cgid fcgid proxy proxy_fcgi; do
			apache_enabled mod "$m" && was+=" $m"
		done
		a2 a2enmod -q "$mod"
		# Each module a2enmod enabled (cgid for cgi under a threaded MPM,
		# proxy with proxy_fcgi), for uninstall.sh to list.
		for m in cgi cgid fcgid proxy proxy_fcgi; do
			if apache_enabled mod "$m" && [[ " $was " != *" $m "* ]]; then
				note_enabled "apache-mod $m"
			fi
		done
		say "enabled module $mod"
		changed=$((changed + 1))
		# A module takes a new Apache: mod_cgid starts its CGI daemon
		# only then, and until then every hit is a 503 ("unable to
		# connect to cgi daemon").
		action=restart
	fi
	if ! apache_enabled conf "$name"; then
		a2 a2enconf -q "$name"
		say "enabled $name"
		changed=$((changed + 1))
	fi
	[ "$changed" = "$before" ] && return
	"$apache2ctl_cmd" configtest || die "Apache refuses the configuration (above); nothing was reloaded; check it again with: apache2ctl configtest"
	reload apache2 "$action"
}

# nginx: the upstream in conf.d, the snippet in snippets/, and the snippet
# included in Debian's default site; another site is the owner's to edit.
setup_nginx() {
	local before=$changed site=$root$nginx_dir/sites-available/default line='include snippets/counter.conf;'
	has_nginx || die "nginx: no $root$nginx_dir/nginx.conf (apt-get install nginx)"
	ensure_file "$deploy_dir/nginx/counter-upstream.conf" "$nginx_dir/conf.d/counter-upstream.conf" 0644 root:root
	ensure_file "$deploy_dir/nginx/counter.conf" "$nginx_dir/snippets/counter.conf" 0644 root:root
	if ! grep -RqsF -- "$line" "$root$nginx_dir/sites-enabled/" "$root$nginx_dir/conf.d/"; then
		if [ -e "$root$nginx_dir/sites-enabled/default" ] && [ "$(grep -c '^[[:space:]]*server_name _;' "$site" 2>/dev/null)" = 1 ]; then
			sed -i "s|^\([[:space:]]*\)server_name _;.*|&\n\1# the hit counter (deploy/install.sh)\n\1$line|" "$site"
			say "included snippets/counter.conf in $nginx_dir/sites-available/default"
			changed=$((changed + 1))
		else
			say "nginx: add this line to your site's server { } block, then run: nginx -t && $(service_command nginx reload)"
			say "  $line"
		fi
	fi
	[ "$changed" = "$before" ] && return
	"$nginx_cmd" -t -q -c "$root$nginx_dir/nginx.conf" || die "nginx refuses the configuration (above); nothing was reloaded; check it again with: nginx -t"
	reload nginx reload
}

# Caddy: the snippet beside the Caddyfile, imported into Debian's default
# site (:80); and the user caddy in www-data's group, for the socket,
# which takes a restart.
setup_caddy() {
	local before=$changed file=$root$caddy_dir/Caddyfile line='import counter.caddy'
	has_caddy || die "caddy: no $root$caddy_dir/Caddyfile (apt-get install caddy)"
	ensure_file "$deploy_dir/caddy/counter.caddy" "$caddy_dir/counter.caddy" 0644 root:root
	if ! grep -qE "^[[:space:]]*$line[[:space:]]*$" "$file"; then
		if [ "$(grep -c '^:80 {$' "$file")" = 1 ]; then
			sed -i "s|^:80 {\$|&\n\t# the hit counter (deploy/install.sh)\n\t$line|" "$file"
			say "imported counter.caddy into the :80 site of $caddy_dir/Caddyfile"
			changed=$((changed + 1))
		else
			say "caddy: add this line to your site's block in $caddy_dir/Caddyfile, then run: $(service_command caddy reload)"
			say "  $line"
		fi
	fi
	local restart=reload
	if id caddy >/dev/null 2>&1 && ! id -nG caddy | tr ' ' '\n' | grep -qxF -- "$(id -gn "$web_user")"; then
		"$usermod_cmd" -aG "$(id -gn "$web_user")" caddy || die "usermod -aG $(id -gn "$web_user") caddy failed"
		say "added the user caddy to the group $(id -gn "$web_user"), for the counter's socket"
		note_enabled "caddy-group $(id -gn "$web_user")"
		changed=$((changed + 1)) restart=restart
	fi
	[ "$changed" = "$before" ] && return
	(cd "$root$caddy_dir" && "$caddy_cmd" validate --config "$file" --adapter caddyfile >/dev/null 2>&1) ||
		die "caddy validate: the configuration is refused; nothing was reloaded (caddy validate --config $caddy_dir/Caddyfile says why)"
	# Caddy has no init script or pid file of its own: systemd, or say so.
	reload caddy "$restart"
}

# check_answers asks the counter for a count through the web server at
# $url, as a page would, and says what it got; the last word of install.sh.
check_answers() {
	local name=${counter:-install-check} hostport path answer
	if [ -z "$url" ] && [ -n "$root" ]; then
		return # a scratch root (a test) and no --url: no server to ask
	fi
	url=${url:-http://localhost}
	[[ $url == http://* ]] || die "--url $url: want http://HOST[:PORT]"
	hostport=${url#http://}
	hostport=${hostport%%/*}
	path=${url#http://"$hostport"}
	path=${path%/}/cgi-bin/counter.cgi/$name.json
	url=http://$hostport
	local host=${hostport%:*} port=80
	[ "$hostport" != "$host" ] && port=${hostport##*:}
	[ "$host" = localhost ] && host=127.0.0.1
	# A server reloads after the signal or the command that asks it to
	# has returned (nginx starts new workers, Apache new children, while
	# the old ones answer from the old configuration): ask again, for up to
	# COUNTER_CHECK_WAIT seconds (10), before judging what answered.
	local status body server unit waited=0 wait=${COUNTER_CHECK_WAIT:-10}
	while :; do
		# bash's own /dev/tcp: a fresh Debian may have neither curl nor wget.
		answer=$(timeout 10 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
			printf "GET %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: install.sh\r\n\r\n" "$3" "$4" >&3
			cat <&3' _ "$host" "$port" "$path" "$hostport" 2>/dev/null | tr -d '\r') || true
		# here-strings, not pipes into head: under pipefail a long answer
		# would end the script with SIGPIPE
		status=$(head -n 1 <<<"$answer" | cut -d' ' -f2)
		body=$(sed '1,/^$/d' <<<"$answer")
		if [[ $body == *'"name":"'* ]] || [[ $body == *'"error":"no such counter"'* ]]; then
			say "checked: $url$path answers from the counter ($status: $body)"
			return
		fi
		if [[ $body == '{"error":"'* ]] && [ ! -s "$root$db_path" ]; then
			# the counter's own answer, with no database to read yet
			say "checked: $url$path answers from the counter ($status: $body): there is no counter yet; make the first with: sudo -u $web_user counter create NAME"
			return
		fi
		[ "$waited" -lt "$((wait * 2))" ] || break
		sleep 0.5
		waited=$((waited + 1))
	done
	if [ -z "$answer" ]; then
		unit=""
		[ "$(wc -w <<<"$servers")" = 1 ] && unit=$(unit_of $servers)
		if [ -n "$unit" ]; then
			say "CHECK FAILED: nothing answers at $url: $unit is not running there; start it with: $(service_command "$unit" start)"
		else
			say "CHECK FAILED: nothing answers at $url: start your web server, or give install.sh --url with its address and port"
		fi
		exit 1
	fi
	# Which server answered, by its Server header.
	server=$(sed -n '/^$/q; /^[Ss]erver:/{s/^[Ss]erver: *\([A-Za-z]*\).*/\1/p;q;}' <<<"$answer" | tr 'A-Z' 'a-z')
	case $server in
	apache) unit=apache2 server=apache ;;
	lighttpd | nginx | caddy) unit=$server ;;
	*) unit="" ;;
	esac
	say "CHECK FAILED: $url$path answered $status, not the counter:"
	head -n 3 <<<"$body" | sed 's/^/    /'
	if [ -z "$unit" ] || [ -z "${how[$server]:-}" ]; then
		say "the server at $url (${server:-unknown}) is not one install.sh set up (it did: ${servers# }): give install.sh --url with the address of one of them"
	elif [ "${how[$server]}" = service ] && [ ! -S "$root$socket_path" ]; then
		say "the FastCGI service is not running (no socket at $socket_path); start it with: $(if has_systemd; then echo systemctl start counter.socket; else echo service counter start; fi)"
	elif [ "$server" = apache ] && [ "${how[apache]}" = CGI ] && [ "$status" = 503 ]; then
		# mod_cgid logs "unable to connect to cgi daemon"; the page says
		# only "Service Unavailable"
		say "Apache's mod_cgid has no CGI daemon (its error log says \"unable to connect to cgi daemon\"): a module enabled takes a full restart, not a reload; restart Apache with: $(service_command apache2 restart)"
	elif [ "$server" = caddy ] && [ "${how[caddy]}" = service ] && { [ "$status" = 502 ] || [ "$status" = 503 ]; }; then
		say "caddy cannot reach the counter's socket: it runs without the group $(id -gn "$web_user") it was given; restart it with: $(service_command caddy restart)"
	elif [ "$status" = 404 ]; then
		say "$unit has not loaded the counter's configuration; restart it with: $(service_command "$unit" restart)"
	else
		say "$unit answered $status: see its error log (or, for the FastCGI service, $(if has_systemd; then echo journalctl -u counter; else echo /var/log/counter.log; fi)); after fixing, restart it with: $(service_command "$unit" restart)"
	fi
	exit 1
}

# unit_of SERVER prints the service name of a server install.sh knows.
unit_of() {
	case $1 in
	apache) echo apache2 ;;
	*) echo "$1" ;;
	esac
}

if [ "${how[apache]:-}" = service ] || [ -n "${how[nginx]:-}" ] || [ -n "${how[caddy]:-}" ]; then
	setup_service
fi
for s in $servers; do
	"setup_$s"
done

# One line for each way the counter runs: "installed as CGI for lighttpd".
summary=""
for mode in CGI FastCGI fcgid service; do
	list=""
	for s in $servers; do
		[ "${how[$s]}" = "$mode" ] && list+=" $s"
	done
	[ -n "$list" ] || continue
	case $mode in
	fcgid) mode="FastCGI (mod_fcgid)" ;;
	service) mode="the FastCGI service ($service_name)" ;;
	esac
	summary+="${summary:+, }as $mode for ${list# }"
done
if [ "$changed" = 0 ]; then
	say "nothing to change: counter.cgi is installed $summary"
else
	say "counter.cgi is installed $summary"
fi
say "database: $db_path; add counters with: sudo -u $web_user counter create NAME"
echo "Put this in a page:"
echo "  <img src=\"/cgi-bin/counter.cgi/${counter:-NAME}.png\" alt=\"visitors\">"
check_answers
