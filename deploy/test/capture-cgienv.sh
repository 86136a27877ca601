#!/usr/bin/env bash
# capture-cgienv.sh - record the CGI environment that the real Debian lighttpd
# and Apache hand to counter.cgi, so whole-binary tests can replay it.
#
# Run as root on Debian (tested on bookworm: lighttpd 1.4.69, apache2 2.4.71)
# with lighttpd, apache2 and curl installed:
#
#     sudo deploy/test/capture-cgienv.sh            # writes testdata/cgienv/*.env
#
# Apache CGI module: mod_cgid.  Debian enables mpm_event by default, and
# `a2enmod cgi` on a threaded MPM selects mod_cgid instead of mod_cgi
# ("Your MPM seems to be threaded. Selecting cgid instead of cgi."), so that is
# what a stock Debian/Raspberry Pi OS install runs.  The capture therefore uses
# mpm_event + mod_cgid.  (mod_cgi builds the environment with the same
# ap_add_common_vars/ap_add_cgi_vars calls, so the variables are the same.)
#
# Neither system service is used: each server is started in the foreground on
# 127.0.0.1:$PORT (default 8081, same port for both so the files are stable)
# from a config written into $WORK, one server after the other, and stopped
# again.  $WORK defaults to the fixed path /tmp/counter-cgienv (not mktemp)
# so DOCUMENT_ROOT and SCRIPT_FILENAME are identical on every run.
#
# The CGI script is a `#!/bin/sh` that prints "Content-Type: text/plain", a
# blank line and `env`.  Because a HEAD response has no body, it also saves
# /proc/$$/environ (the exact environment the server exec'd it with, i.e.
# without the PWD that dash adds) into $WORK/dump; that copy is what ends up
# in the .env files.
#
# Output: testdata/cgienv/<server>-<case>.env, server = lighttpd | apache,
# case = direct | alias | rewrite | head; sorted (LC_ALL=C), one KEY=VALUE per
# line.  Nothing the server sets is dropped, except variables whose value
# contains a newline (only Apache's SERVER_SIGNATURE, an HTML <address> line
# ending in "\n"), which are omitted to keep one variable per line.
#
# Environment knobs: PORT, WORK, OUTDIR, RUN_USER/RUN_GROUP (default www-data),
# KEEP=1 to leave $WORK (configs, logs, response bodies) for inspection.
set -euo pipefail

PORT=${PORT:-8081}
WORK=${WORK:-/tmp/counter-cgienv}
RUN_USER=${RUN_USER:-www-data}
RUN_GROUP=${RUN_GROUP:-www-data}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUTDIR=${OUTDIR:-$REPO/testdata/cgienv}
# Clean, systemd-like environment for the servers so nothing from the calling
# shell leaks into the CGI environment (Apache passes its own PATH through).
SERVER_ENV=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C)
QUERY='digits=7&fg=f00'
BASE="http://127.0.0.1:$PORT"

die() { echo "capture-cgienv: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (servers drop privileges to $RUN_USER)"
for b in lighttpd apache2 curl perl; do
	command -v "$b" >/dev/null || die "$b not installed (apt-get install -y lighttpd apache2 curl)"
done
APACHE_MODS=/usr/lib/apache2/modules
[ -f "$APACHE_MODS/mod_cgid.so" ] || die "missing $APACHE_MODS/mod_cgid.so"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

# --- work tree --------------------------------------------------------------
if [ -e "$WORK" ]; then
	[ -f "$WORK/.counter-cgienv" ] || die "$WORK exists and was not created by this script"
	rm -rf "$WORK"
fi
mkdir -p "$WORK"/{htdocs,cgi-bin,dump,lighttpd,apache}
touch "$WORK/.counter-cgienv"
chmod 755 "$WORK" "$WORK"/{htdocs,cgi-bin,lighttpd,apache}
# lighttpd opens its logs after dropping privileges
chown "$RUN_USER:$RUN_GROUP" "$WORK/dump" "$WORK/lighttpd"
echo ok >"$WORK/htdocs/index.html"

cat >"$WORK/cgi-bin/counter.cgi" <<EOF
#!/bin/sh
cat /proc/\$\$/environ >"$WORK/dump/env.\$\$" && mv -f "$WORK/dump/env.\$\$" "$WORK/dump/last.env0"
printf 'Content-Type: text/plain\n\n'
env
EOF
chmod 755 "$WORK/cgi-bin/counter.cgi"

SERVER_PID=
stop_server() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		SERVER_PID=
	fi
	for _ in $(seq 50); do port_busy || return 0; sleep 0.1; done
	die "port $PORT still in use after stopping the server"
}
cleanup() {
	stop_server || true
	[ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT

start_server() { # name log cmd...
	local name=$1 log=$2; shift 2
	port_busy && die "127.0.0.1:$PORT is already in use (set PORT=...)"
	"${SERVER_ENV[@]}" "$@" &
	SERVER_PID=$!
	for _ in $(seq 100); do
		if curl -s -o /dev/null "$BASE/"; then return 0; fi
		kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2 || true; die "$name exited"; }
		sleep 0.1
	done
	cat "$log" >&2 || true
	die "$name did not start listening on $PORT"
}

capture() { # server case local-port curl-args...
	local server=$1 case=$2 lport=$3; shift 3
	local out="$OUTDIR/$server-$case.env"
	rm -f "$WORK/dump/last.env0"
	# --local-port pins REMOTE_PORT so reruns give identical files (curl
	# moves up within the range if the port is still busy).
	curl -sS -H 'Referer: http://example.org/page.html' -H 'User-Agent: capture' \
		--local-port "$lport-$((lport + 9))" \
		-D "$WORK/$server-$case.headers" -o "$WORK/$server-$case.body" "$@"
	# The CGI may still be finishing after a HEAD response was sent.
	for _ in $(seq 50); do [ -f "$WORK/dump/last.env0" ] && break; sleep 0.1; done
	[ -f "$WORK/dump/last.env0" ] || {
		cat "$WORK/$server-$case.headers" "$WORK/$server-$case.body" >&2 || true
		die "$server/$case: CGI script did not run"
	}
	# NUL-separated -> one KEY=VALUE per line; skip multi-line values.
	perl -0 -ne 'chomp; if (/\n/) { my ($k) = /^([^=]*)/; print STDERR "  $k dropped (multi-line)\n"; next } print "$_\n"' \
		"$WORK/dump/last.env0" | LC_ALL=C sort >"$out"
	echo "wrote $out ($(wc -l <"$out") vars, $(head -n1 "$WORK/$server-$case.headers" | tr -d '\r'))"
}

capture_all() { # server first-local-port
	capture "$1" direct  $(($2))      "$BASE/cgi-bin/counter.cgi/demo.png?$QUERY"
	capture "$1" alias   $(($2 + 10)) "$BASE/hits/counter.cgi/demo.png?$QUERY"
	capture "$1" rewrite $(($2 + 20)) "$BASE/counter/demo.png?$QUERY"
	capture "$1" head    $(($2 + 30)) -I "$BASE/cgi-bin/counter.cgi/demo.png"
}

mkdir -p "$OUTDIR"

# --- lighttpd ---------------------------------------------------------------
# Mirrors Debian's lighttpd.conf defaults (parse options, user) plus
# conf-available/10-cgi.conf, with the cgi-bin folder in $WORK.
L="$WORK/lighttpd"
cat >"$L/lighttpd.conf" <<EOF
server.modules = ( "mod_indexfile", "mod_access", "mod_alias", "mod_redirect",
                   "mod_rewrite", "mod_cgi" )
server.document-root = "$WORK/htdocs"
server.errorlog      = "$L/error.log"
server.breakagelog   = "$L/breakage.log"
server.pid-file      = "$L/lighttpd.pid"
server.username      = "$RUN_USER"
server.groupname     = "$RUN_GROUP"
server.bind          = "127.0.0.1"
server.port          = $PORT
server.http-parseopts = (
  "header-strict" => "enable", "host-strict" => "enable",
  "host-normalize" => "enable", "url-normalize-unreserved" => "enable",
  "url-normalize-required" => "enable", "url-ctrls-reject" => "enable",
  "url-path-2f-decode" => "enable", "url-path-dotseg-remove" => "enable",
)
index-file.names = ( "index.html" )
url.access-deny  = ( "~", ".inc" )

# rewrite: /counter/NAME.png?q -> /cgi-bin/counter.cgi/NAME.png?q
# (lighttpd matches against path+query, so the query string is carried in \$1)
url.rewrite-once = ( "^/counter/(.*)\$" => "/cgi-bin/counter.cgi/\$1" )

# as Debian's conf-available/10-cgi.conf
\$HTTP["url"] =~ "^/cgi-bin/" {
	cgi.assign = ( "" => "" )
	alias.url += ( "/cgi-bin/" => "$WORK/cgi-bin/" )
}
# alias: /hits/ -> the same cgi-bin folder
\$HTTP["url"] =~ "^/hits/" {
	cgi.assign = ( "" => "" )
	alias.url += ( "/hits/" => "$WORK/cgi-bin/" )
}
EOF
lighttpd -tt -f "$L/lighttpd.conf" >/dev/null
echo "lighttpd: $(lighttpd -v | head -n1) on $BASE"
start_server lighttpd "$L/error.log" lighttpd -D -f "$L/lighttpd.conf"
capture_all lighttpd 50100
stop_server

# --- Apache (mpm_event + mod_cgid, Debian defaults) -------------------------
A="$WORK/apache"
cat >"$A/apache2.conf" <<EOF
ServerRoot "$A"
PidFile "$A/apache2.pid"
Mutex file:$A default
ErrorLog "$A/error.log"
LogLevel warn
User $RUN_USER
Group $RUN_GROUP
ServerName localhost
Listen 127.0.0.1:$PORT

LoadModule mpm_event_module $APACHE_MODS/mod_mpm_event.so
LoadModule authz_core_module $APACHE_MODS/mod_authz_core.so
LoadModule authz_host_module $APACHE_MODS/mod_authz_host.so
LoadModule alias_module $APACHE_MODS/mod_alias.so
LoadModule dir_module $APACHE_MODS/mod_dir.so
LoadModule env_module $APACHE_MODS/mod_env.so
LoadModule mime_module $APACHE_MODS/mod_mime.so
LoadModule setenvif_module $APACHE_MODS/mod_setenvif.so
LoadModule rewrite_module $APACHE_MODS/mod_rewrite.so
LoadModule cgid_module $APACHE_MODS/mod_cgid.so
ScriptSock "$A/cgisock"
TypesConfig /etc/mime.types

# conf-enabled/security.conf defaults
ServerTokens OS
ServerSignature On
TraceEnable Off

<Directory />
	Options FollowSymLinks
	AllowOverride None
	Require all denied
</Directory>
<Directory "$WORK/htdocs">
	Require all granted
</Directory>

# as Debian's conf-enabled/serve-cgi-bin.conf
ScriptAlias /cgi-bin/ "$WORK/cgi-bin/"
# alias: /hits/ -> the same cgi-bin folder
ScriptAlias /hits/ "$WORK/cgi-bin/"
<Directory "$WORK/cgi-bin">
	AllowOverride None
	Options +ExecCGI -MultiViews +SymLinksIfOwnerMatch
	Require all granted
</Directory>

# as sites-enabled/000-default.conf, plus the rewrite rule
<VirtualHost *:$PORT>
	ServerAdmin webmaster@localhost
	DocumentRoot "$WORK/htdocs"
	RewriteEngine On
	RewriteRule ^/counter/(.*)\$ /cgi-bin/counter.cgi/\$1 [PT,QSA]
</VirtualHost>
EOF
"${SERVER_ENV[@]}" apache2 -t -f "$A/apache2.conf"
echo "apache: $(apache2 -v | head -n1) mpm_event + mod_cgid on $BASE"
start_server apache "$A/error.log" apache2 -DFOREGROUND -f "$A/apache2.conf"
capture_all apache 50200
stop_server

echo "done: $OUTDIR"
