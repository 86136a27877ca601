package test

import (
	"context"
	"fmt"
	"net/http"
	netURL "net/url"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// TestInstallWithoutSystemd is the new user of issue 16: a Debian machine
// without systemd, whose lighttpd was started by hand and keeps its pid in
// the file its Debian configuration names, with no counter yet. install.sh
// must reload that lighttpd through its pid file, as CGI and then as
// FastCGI, and end with the counter answering through it; before, it said
// "lighttpd is not running" and the counter answered 404.
//
// The real lighttpd runs with a main config of the test's that pulls in
// the scratch root's conf-enabled/counter*.conf with include_shell, so that
// the reload reads what install.sh has just put there.
func TestInstallWithoutSystemd(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the install script runs as root")
	}
	lighttpd := serverBinary(t, "lighttpd", lighttpdBins...)
	if _, err := osuser.Lookup("www-data"); err != nil {
		skipOutsideCI(t, "no www-data user")
	}
	bin := buildCounter(t)
	root := scratchRoot(t, "lighttpd")
	main, err := os.ReadFile(filepath.Join(root, "etc/lighttpd/lighttpd.conf"))
	if err != nil {
		t.Fatal(err)
	}
	const pidFile = "/run/lighttpd.pid" // where Debian's lighttpd.conf keeps it
	if !strings.Contains(string(main), `"`+pidFile+`"`) {
		t.Fatalf("Debian's lighttpd.conf no longer names %s", pidFile)
	}

	calls := filepath.Join(t.TempDir(), "calls.log")
	env := noSystemdEnv(t, root, calls)

	// lighttpd, as www-data, with no counter configured yet.
	dir, htdocs := serverDir(t, root, root)
	letTraverse(t, dir)
	// lighttpd opens its logs once it runs as www-data.
	www, err := osuser.Lookup("www-data")
	if err != nil {
		t.Fatal(err)
	}
	var uid, gid int
	fmt.Sscan(www.Uid, &uid)
	fmt.Sscan(www.Gid, &gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	errorLog, stderrLog, breakage := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log"), filepath.Join(dir, "breakage.log")
	moves := []string{
		"/usr/lib/cgi-bin/", root + "/usr/lib/cgi-bin/",
		"/var/lib/counter/counter.db", root + "/var/lib/counter/counter.db",
		"/run/counter", root + "/run/counter",
		"/var/log/lighttpd/breakage.log", breakage,
		"/run/lighttpd/counter-fastcgi.sock", filepath.Join(dir, "counter-fastcgi.sock"),
	}
	var sed strings.Builder
	for i := 0; i < len(moves); i += 2 {
		fmt.Fprintf(&sed, " -e 's|%s|%s|g'", moves[i], moves[i+1])
	}
	dumpOnFailure(t, errorLog, stderrLog, breakage)
	url := onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, "lighttpd.conf")
		text := fmt.Sprintf(`server.modules       = ( "mod_access" )
server.document-root = "%[1]s"
server.errorlog      = "%[2]s"
server.pid-file      = "%[3]s"
server.bind          = "127.0.0.1"
server.port          = %[4]d
server.username      = "www-data"
server.groupname     = "www-data"
%[7]s
include_shell "cat %[5]s/etc/lighttpd/conf-enabled/counter*.conf 2>/dev/null | sed %[6]s; true"
`, htdocs, errorLog, root+pidFile, port, root, sed.String(), htmlType)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := checkConfig(exec.CommandContext(ctx, lighttpd, "-tt", "-f", conf)); err != nil {
			return err
		}
		return runServer(t, exec.Command(lighttpd, "-D", "-f", conf), stderrLog, baseURL, filepath.Join(root, "usr/lib/cgi-bin/counter.cgi"))
	})
	srv := &webServer{Name: "lighttpd", URL: url, htdocs: htdocs}
	views := uint64(0) // the pages Chromium opened
	for _, mode := range []struct {
		name  string
		flags []string
	}{
		{"cgi", nil},
		{"fastcgi", []string{"--fastcgi"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			args := append([]string{"--binary", bin, "--server", "lighttpd", "--counter", "blog", "--url", url}, mode.flags...)
			out := mustRunKit(t, env, "", root, "install.sh", args...)
			t.Logf("install.sh %s:\n%s", strings.Join(mode.flags, " "), out)
			for _, want := range []string{"(SIGUSR1 to pid ", "from its pid file)",
				"checked: " + url + "/cgi-bin/counter.cgi/blog.json answers from the counter (200: {\"name\":\"blog\""} {
				if !strings.Contains(out, want) {
					t.Errorf("install.sh did not say %q", want)
				}
			}
			if strings.Contains(out, "not running") {
				t.Errorf("install.sh called the running lighttpd not running")
			}
			b, _ := os.ReadFile(calls)
			os.Remove(calls)
			if strings.Contains(string(b), "systemctl reload") || strings.Contains(string(b), "systemctl restart") {
				t.Errorf("install.sh went to systemctl on a machine without systemd:\n%s", b)
			}
			if got := jsonCount(t, url, "blog"); got != views {
				t.Errorf("blog counts %d after install.sh's check, want %d: the check must count nothing", got, views)
			}
			if mode.name == "fastcgi" {
				checkFastCGIProcess(t, filepath.Join(root, "usr/lib/counter/counter-tool"))
			}
			checkInstalledPage(t, srv, tagOf(t, out), "blog", chromeUA+" "+mode.name)
			views++
			if mode.name == "cgi" {
				views = checkRebootWithoutSystemd(t, root, url, views)
			}
		})
	}

	// Where nothing answers, install.sh fails and says what to do.
	out, err := runKit(env, "", root, "install.sh", "--binary", bin, "--server", "lighttpd", "--fastcgi", "--url", "http://127.0.0.1:1")
	if err == nil || !strings.Contains(out, "CHECK FAILED: nothing answers at http://127.0.0.1:1: lighttpd is not running there; start it with: service lighttpd start\n") {
		t.Errorf("install.sh with nothing at --url: %v\n%s", err, out)
	}
}

// noSystemdEnv is the environment for install.sh and uninstall.sh on a
// machine without systemd, for root: systemctl, lighttpd -tt, nginx -t and
// caddy note their calls; service runs the init script that install.sh
// put into root, for real, with its paths moved into root (no init script
// knows of any other server: status 3); update-rc.d makes and removes the
// boot link it would.
func noSystemdEnv(t *testing.T, root, calls string) []string {
	t.Helper()
	bin := t.TempDir()
	moves := ""
	for _, m := range [][2]string{
		{"/usr/lib/cgi-bin/counter.cgi", root + "/usr/lib/cgi-bin/counter.cgi"},
		{"/usr/lib/counter/counter-tool", root + "/usr/lib/counter/counter-tool"},
		{"/var/lib/counter/counter.db", root + "/var/lib/counter/counter.db"},
		{"=/run/counter$", "=" + root + "/run/counter"},
		{"/run/counter.pid", root + "/run/counter.pid"},
		{"/var/log/counter.log", root + "/var/log/counter.log"},
		{"/etc/default/", root + "/etc/default/"},
	} {
		moves += fmt.Sprintf(" -e 's|%s|%s|'", m[0], m[1])
	}
	scripts := map[string]string{
		"service": fmt.Sprintf(`echo "service $*" >>'%[1]s'
[ "$1" = counter ] && [ -e '%[2]s/etc/init.d/counter' ] || exit 3
sed %[3]s '%[2]s/etc/init.d/counter' >'%[4]s/counter.init'
exec sh '%[4]s/counter.init' "$2"
`, calls, root, moves, bin),
		"update-rc.d": fmt.Sprintf(`echo "update-rc.d $*" >>'%[1]s'
case "$*" in
*" defaults") mkdir -p '%[2]s/etc/rc2.d' && ln -s "../init.d/$1" "%[2]s/etc/rc2.d/S01$1" ;;
"-f "*" remove") rm -f '%[2]s'/etc/rc?.d/[SK]??"$2" && { rmdir '%[2]s/etc/rc2.d' 2>/dev/null || true; } ;;
esac
`, calls, root),
	}
	env := append(os.Environ(),
		"COUNTER_SYSTEMCTL="+stub(t, "systemctl", calls),
		"COUNTER_SYSTEMD_RUN="+filepath.Join(root, "no-systemd"),
		"COUNTER_LIGHTTPD="+stub(t, "lighttpd", calls),
		"COUNTER_NGINX="+stub(t, "nginx", calls),
		"COUNTER_CADDY="+stub(t, "caddy", calls),
		"COUNTER_USERMOD="+stub(t, "usermod", calls),
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	)
	for name, text := range scripts {
		p := filepath.Join(bin, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+text), 0o755); err != nil {
			t.Fatal(err)
		}
		env = append(env, map[string]string{"service": "COUNTER_SERVICE", "update-rc.d": "COUNTER_UPDATE_RC"}[name]+"="+p)
	}
	return env
}

// TestInstallServiceWithoutSystemd installs for nginx and Caddy on a
// machine without systemd, into a scratch root of Debian's default
// configs: the FastCGI service must be /etc/init.d/counter, enabled at
// boot and started for real (start-stop-daemon, as www-data), with the
// real nginx and Caddy counting a hit through it. uninstall.sh must stop
// it, remove its boot link and leave /etc byte for byte as it was.
func TestInstallServiceWithoutSystemd(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the install script runs as root")
	}
	nginx := serverBinary(t, "nginx", nginxBins...)
	caddy := serverBinary(t, "caddy", caddyBins...)
	if _, err := osuser.Lookup("www-data"); err != nil {
		skipOutsideCI(t, "no www-data user")
	}
	bin := buildCounter(t)
	root := scratchRoot(t, "nginx-common", "caddy")
	etcBefore := listTree(t, filepath.Join(root, "etc"))
	calls := filepath.Join(t.TempDir(), "calls.log")
	env := noSystemdEnv(t, root, calls)
	status := func() error {
		cmd := exec.Command(envValue(env, "COUNTER_SERVICE"), "counter", "status")
		return cmd.Run()
	}
	t.Cleanup(func() { // whatever happens, the service stops
		if status() == nil {
			exec.Command(envValue(env, "COUNTER_SERVICE"), "counter", "stop").Run()
		}
	})

	args := []string{"--binary", bin, "--server", "nginx,caddy", "--counter", "blog"}
	out := mustRunKit(t, env, "", root, "install.sh", args...)
	t.Logf("install.sh %s:\n%s", strings.Join(args, " "), out)
	for _, want := range []string{
		"installed /etc/init.d/counter\n",
		"enabled the FastCGI service at boot (update-rc.d counter defaults)\n",
		"started the FastCGI service (service counter start)\n",
		"reloaded caddy (caddy reload)\n",
		"counter.cgi is installed as the FastCGI service (/etc/init.d/counter) for nginx caddy\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install.sh did not say %q", want)
		}
	}
	if strings.Contains(out, "counter.socket") || strings.Contains(out, "systemctl") {
		t.Errorf("install.sh spoke of systemd on a machine without it:\n%s", out)
	}
	for _, p := range []string{"etc/systemd/system/counter.socket", "etc/systemd/system/counter.service"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("install.sh installed /%s on a machine without systemd", p)
		}
	}
	if err := status(); err != nil {
		t.Fatalf("service counter status after install.sh: %v", err)
	}
	sock := filepath.Join(root, "run/counter/fastcgi.sock")
	if fi, err := os.Stat(sock); err != nil {
		t.Fatal(err)
	} else if got := fileMode(fi) + " " + fileOwner(fi); got != "Srw-rw---- www-data:www-data" {
		t.Errorf("the init script's socket: got %s, want Srw-rw---- www-data:www-data", got)
	}
	if pids := testenv.ProcessesOf(filepath.Join(root, "usr/lib/counter/counter-tool")); len(pids) != 1 {
		t.Errorf("got %d processes of the service, want 1", len(pids))
	} else {
		checkFastCGIProcess(t, filepath.Join(root, "usr/lib/counter/counter-tool"))
	}
	os.Remove(calls)
	if out := mustRunKit(t, env, "", root, "install.sh", args...); !strings.Contains(out, "nothing to change") {
		t.Errorf("second install.sh did not say \"nothing to change\":\n%s", out)
	}

	tag := tagOf(t, out)
	t.Run("nginx", func(t *testing.T) {
		srv := startInstalledNginx(t, nginx, root, sock)
		checkInstalledHit(t, srv, "blog")
		checkInstalledPage(t, srv, tag, "blog", chromeUA+" nginx")
	})
	t.Run("caddy", func(t *testing.T) {
		srv := startInstalledCaddy(t, caddy, root, sock)
		checkInstalledHit(t, srv, "blog")
		checkInstalledPage(t, srv, tag, "blog", chromeUA+" caddy")
	})

	out = mustRunKit(t, env, "", root, "uninstall.sh", "--purge")
	t.Logf("uninstall.sh --purge:\n%s", out)
	if !strings.Contains(out, "stopped the FastCGI service (service counter stop)\n") {
		t.Errorf("uninstall.sh did not stop the service")
	}
	if status() == nil {
		t.Errorf("service counter status: running after uninstall.sh")
	}
	if pids := testenv.ProcessesOf(filepath.Join(root, "usr/lib/counter/counter-tool")); len(pids) != 0 {
		t.Errorf("the service (pids %v) still runs after uninstall.sh", pids)
	}
	if diff := diffTrees(etcBefore, listTree(t, filepath.Join(root, "etc"))); diff != "" {
		t.Errorf("/etc after uninstall.sh is not as before install.sh:\n%s", diff)
	}
}

// envValue returns the value of name in env.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// TestInstallApacheWithoutSystemd installs for Apache with --fastcgi on a
// machine without systemd, into a scratch root of Debian's configs: with
// no systemd to start, restart and confine the FastCGI service, install.sh
// must pick mod_fcgid, under which Apache starts and restarts the counter
// itself; it enables the module and, Apache being stopped, says how to
// start it. The real Apache then counts a hit through a mod_fcgid process
// that runs as www-data, and uninstall.sh leaves /etc as it was, once the
// module it lists is disabled with the command it gives.
func TestInstallApacheWithoutSystemd(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the install script runs as root")
	}
	apache2ctl := serverBinary(t, "apache2", "apache2ctl", "/usr/sbin/apache2ctl")
	if _, err := osuser.Lookup("www-data"); err != nil {
		skipOutsideCI(t, "no www-data user")
	}
	bin := buildCounter(t)
	root := scratchRoot(t, "apache2", "libapache2-mod-fcgid")
	// As if mod_fcgid were installed but not enabled.
	for _, ext := range []string{".load", ".conf"} {
		os.Remove(filepath.Join(root, "etc/apache2/mods-enabled/fcgid"+ext))
	}
	etcBefore := listTree(t, filepath.Join(root, "etc"))
	calls := filepath.Join(t.TempDir(), "calls.log")
	env := append(noSystemdEnv(t, root, calls), "COUNTER_APACHE2CTL="+apache2ctl)

	out := mustRunKit(t, env, "", root, "install.sh", "--binary", bin, "--server", "apache", "--fastcgi", "--counter", "blog")
	t.Logf("install.sh:\n%s", out)
	for _, want := range []string{
		"this machine has no systemd for the FastCGI service: Apache gets mod_fcgid instead\n",
		"enabled module fcgid\n",
		"apache2 is not running: start it with: service apache2 start\n",
		"counter.cgi is installed as FastCGI (mod_fcgid) for apache\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install.sh did not say %q", want)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "etc/init.d/counter")); err == nil {
		t.Errorf("install.sh installed the FastCGI service's init script for Apache alone, which uses mod_fcgid")
	}
	t.Run("apache", func(t *testing.T) {
		srv := startInstalledApache(t, root)
		checkInstalledHit(t, srv, "blog")
		checkFastCGIProcess(t, filepath.Join(root, "usr/lib/counter/counter-tool"))
		checkInstalledPage(t, srv, tagOf(t, out), "blog", chromeUA+" apache")
	})

	out = mustRunKit(t, env, "", root, "uninstall.sh", "--purge")
	// --purge takes back the module install.sh enabled, as the README says.
	if want := "disabled Apache's module fcgid, which install.sh enabled\n"; !strings.Contains(out, want) {
		t.Errorf("uninstall.sh --purge did not say %q:\n%s", want, out)
	}
	if diff := diffTrees(etcBefore, listTree(t, filepath.Join(root, "etc"))); diff != "" {
		t.Errorf("/etc after uninstall.sh --purge is not as before install.sh:\n%s", diff)
	}
}

// checkRebootWithoutSystemd is the first reboot of a CGI-only install on
// a machine without systemd: /run is empty again, nothing but the boot
// step the install enabled (rc2.d's counter-rundir) makes the runtime
// directory. Run as init would run it, with its paths moved into root,
// it must make it as the install did, and then a new visitor's view
// counts, its reload does not, and the owner's login gets in. Before, no
// boot step existed: logins said "Logins are off", reloads counted. It
// returns the count expected after its hits.
func checkRebootWithoutSystemd(t *testing.T, root, url string, views uint64) uint64 {
	t.Helper()
	run := filepath.Join(root, "run/counter")
	if err := os.RemoveAll(run); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "etc/rc2.d/S01counter-rundir")
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatalf("no boot step for the runtime directory: %v", err)
	}
	script := filepath.Join(t.TempDir(), "counter-rundir")
	sed := exec.Command("sed", "-e", "s|^COUNTER_RUN_DIR=/run/counter$|COUNTER_RUN_DIR="+run+"|",
		"-e", "s|/etc/default/|"+root+"/etc/default/|", filepath.Join(filepath.Dir(link), target))
	b, err := sed.Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", script, "start").CombinedOutput(); err != nil {
		t.Fatalf("the boot step: %v\n%s", err, out)
	}
	fi, err := os.Stat(run)
	if err != nil {
		t.Fatalf("after the boot step: %v", err)
	}
	if got := fileMode(fi) + " " + fileOwner(fi); got != "drwxr-x--- www-data:www-data" {
		t.Errorf("after the boot step /run/counter is %s, want drwxr-x--- www-data:www-data", got)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	for range 2 { // a view and its reload
		if err := checkHitAs(context.Background(), client, url+"/cgi-bin/counter.cgi/blog.png", firefoxUA+" after-reboot"); err != nil {
			t.Fatalf("a hit after the reboot: %v", err)
		}
	}
	views++
	if got := jsonCount(t, url, "blog"); got != views {
		t.Errorf("after the reboot a view and its reload took blog to %d, want %d", got, views)
	}
	cmd := exec.Command("runuser", "-u", "www-data", "--", filepath.Join(root, "usr/lib/cgi-bin/counter.cgi"),
		"passwd", "blog", "-db", filepath.Join(root, "var/lib/counter/counter.db"))
	cmd.Env = append(os.Environ(), "COUNTER_RUN_DIR="+run)
	cmd.Stdin = strings.NewReader(statsPassword + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("passwd: %v\n%s", err, out)
	}
	c := newStatsClient(url)
	resp, body := c.do(t, "POST", "/cgi-bin/counter.cgi/blog/login", netURL.Values{"password": {statsPassword}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a login after the reboot: %d, want 303\n%s", resp.StatusCode, body)
	}
	return views
}
