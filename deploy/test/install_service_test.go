package test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInstallServiceServers runs install.sh --server nginx,caddy into a
// scratch root that holds Debian's default /etc/nginx and /etc/caddy, on a machine that systemd runs (systemctl, usermod and
// nginx -t are stubs that note their calls; caddy validate is the real
// one). It checks the units, the snippets, the lines added to Debian's
// default nginx site and Caddyfile (once, also after a second run, which
// changes nothing), then starts the real nginx and Caddy on those files,
// every path moved into the test's folders, in front of the service, and
// counts a hit through each. uninstall.sh must take it all out again.
func TestInstallServiceServers(t *testing.T) {
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
	env := append(os.Environ(),
		"COUNTER_SYSTEMCTL="+stub(t, "systemctl", calls),
		"COUNTER_SYSTEMD_RUN="+t.TempDir(),
		"COUNTER_SERVICE="+stub(t, "service", calls),
		"COUNTER_NGINX="+stub(t, "nginx", calls),
		"COUNTER_CADDY="+caddy,
		"COUNTER_USERMOD="+stub(t, "usermod", calls),
		"HOME="+t.TempDir(), // caddy validate's own files
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	)
	script := func(name string, args ...string) string {
		t.Helper()
		return mustRunKit(t, env, "", root, name, args...)
	}
	takeCalls := func() string {
		b, _ := os.ReadFile(calls)
		os.Remove(calls)
		return string(b)
	}

	args := []string{"--binary", bin, "--server", "nginx,caddy", "--counter", "blog"}
	out := script("install.sh", args...)
	t.Logf("install.sh %s:\n%s", strings.Join(args, " "), out)
	if want := "counter.cgi is installed as the FastCGI service (counter.socket) for nginx caddy\n"; !strings.Contains(out, want) {
		t.Errorf("install.sh did not say %q", want)
	}
	wantCalls := []string{"systemctl daemon-reload", "systemctl enable --now counter.socket",
		"nginx -t -q -c " + root + "/etc/nginx/nginx.conf", "systemctl reload nginx"}
	if groups, _ := exec.Command("id", "-nG", "caddy").Output(); !slices.Contains(strings.Fields(string(groups)), "www-data") {
		wantCalls = append(wantCalls, "usermod -aG www-data caddy", "systemctl restart caddy")
	} else {
		wantCalls = append(wantCalls, "systemctl reload caddy")
	}
	got := takeCalls()
	for _, want := range wantCalls {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("install.sh did not run %q; it ran:\n%s", want, got)
		}
	}
	for _, p := range []string{"etc/systemd/system/counter.socket", "etc/systemd/system/counter.service",
		"etc/nginx/conf.d/counter-upstream.conf", "etc/nginx/snippets/counter.conf", "etc/caddy/counter.caddy"} {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Error(err)
		} else if got := fileMode(fi) + " " + fileOwner(fi); got != "-rw-r--r-- root:root" {
			t.Errorf("/%s: %s, want -rw-r--r-- root:root", p, got)
		}
	}
	lines := func() (site, caddyfile string) {
		a, _ := os.ReadFile(filepath.Join(root, "etc/nginx/sites-available/default"))
		b, _ := os.ReadFile(filepath.Join(root, "etc/caddy/Caddyfile"))
		return string(a), string(b)
	}
	site, caddyfile := lines()
	if n := strings.Count(site, "include snippets/counter.conf;"); n != 1 {
		t.Errorf("the default nginx site includes the snippet %d times, want once:\n%s", n, site)
	}
	if n := strings.Count(caddyfile, "import counter.caddy"); n != 1 {
		t.Errorf("the Caddyfile imports the snippet %d times, want once:\n%s", n, caddyfile)
	}

	before := listTree(t, root)
	if out := script("install.sh", args...); !strings.Contains(out, "nothing to change") {
		t.Errorf("second install.sh did not say \"nothing to change\":\n%s", out)
	}
	if got := changingCalls(takeCalls()); got != "" {
		t.Errorf("second install.sh checked or reloaded a server:\n%s", got)
	}
	if diff := diffTrees(before, listTree(t, root)); diff != "" {
		t.Errorf("second install.sh changed the scratch root:\n%s", diff)
	}

	tag := tagOf(t, out)
	t.Run("nginx", func(t *testing.T) {
		srv := startInstalledNginx(t, nginx, root, "")
		checkInstalledHit(t, srv, "blog")
		checkInstalledPage(t, srv, tag, "blog", chromeUA+" nginx")
	})
	t.Run("caddy", func(t *testing.T) {
		srv := startInstalledCaddy(t, caddy, root, "")
		checkInstalledHit(t, srv, "blog")
		checkInstalledPage(t, srv, tag, "blog", chromeUA+" caddy")
	})

	script("uninstall.sh")
	for _, p := range []string{"etc/systemd/system/counter.socket", "etc/systemd/system/counter.service",
		"etc/nginx/conf.d/counter-upstream.conf", "etc/nginx/snippets/counter.conf", "etc/caddy/counter.caddy"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("uninstall.sh left /%s", p)
		}
	}
	site, caddyfile = lines()
	if strings.Contains(site, "counter") || strings.Contains(caddyfile, "counter") {
		t.Errorf("uninstall.sh left the counter's lines:\n%s\n%s", site, caddyfile)
	}
	if got := takeCalls(); !strings.Contains(got, "systemctl disable --now counter.socket counter.service\n") {
		t.Errorf("uninstall.sh did not stop the service; it ran:\n%s", got)
	}
	if diff := diffTrees(etcBefore, listTree(t, filepath.Join(root, "etc"))); diff != "" {
		t.Errorf("/etc after uninstall.sh is not as before install.sh:\n%s", diff)
	}
}

// checkInstalledHit counts one hit on name through srv and reads it back.
func checkInstalledHit(t *testing.T, srv *webServer, name string) {
	t.Helper()
	before := jsonCount(t, srv.URL, name)
	if err := checkHitAs(context.Background(), &http.Client{Timeout: 20 * time.Second}, srv.URL+"/cgi-bin/counter.cgi/"+name+".png",
		firefoxUA+" "+srv.Name); err != nil {
		t.Fatalf("a hit through the installed config: %v", err)
	}
	if got := jsonCount(t, srv.URL, name); got != before+1 {
		t.Errorf("%s: count %d after a hit, want %d", name, got, before+1)
	}
}

// installedService is the service on the socket the installed files name,
// /run/counter/fastcgi.sock moved into the test's dir.
func installedService(t *testing.T, dir, root string) *counterService {
	t.Helper()
	return newCounterService(t, dir, filepath.Join(root, "usr/lib/cgi-bin"), filepath.Join(root, "var/lib/counter/counter.db"))
}

// moveTree copies the tree at src to dst, following links, with every
// file's text passed through moves.
func moveTree(t *testing.T, src, dst string, moves *strings.Replacer) {
	t.Helper()
	if out, err := exec.Command("cp", "-rL", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -rL %s: %v\n%s", src, err, out)
	}
	err := filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, []byte(moves.Replace(string(b))), fi.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startInstalledNginx starts nginx on the conf.d/, snippets/ and default
// site that install.sh left in the root, in a main config of the test's,
// with the default site's port, document root and the service's socket
// moved to the test's; and the service behind it, or, with sock, the
// service already listening there (started by the init script).
func startInstalledNginx(t *testing.T, bin, root, sock string) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, root, root)
	letTraverse(t, dir)
	svc, srv := serviceFor(t, dir, root, sock, "nginx")
	srv.htdocs = htdocs
	errorLog, stderrLog := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log")
	dumpOnFailure(t, errorLog, stderrLog, srv.CGILog)
	srv.URL = onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, fmt.Sprintf("nginx-%d", port))
		moveTree(t, filepath.Join(root, "etc/nginx"), conf, strings.NewReplacer(
			"/run/counter/fastcgi.sock", srv.sock(),
			"listen 80 default_server;", fmt.Sprintf("listen 127.0.0.1:%d default_server;", port),
			"listen [::]:80 default_server;", "",
			"root /var/www/html;", "root "+htdocs+";",
		))
		_, temps := nginxScratch(t, conf)
		main := fmt.Sprintf(`daemon off;
user root;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[2]s warn;
events { worker_connections 64; }
http {
	access_log off;
	include mime.types;
	%[3]s
	include conf.d/*.conf;
	include sites-enabled/*;
}
`, conf, errorLog, temps)
		if err := os.WriteFile(filepath.Join(conf, "nginx.conf"), []byte(main), 0o644); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := checkConfig(exec.CommandContext(ctx, bin, "-t", "-p", conf, "-e", errorLog, "-c", filepath.Join(conf, "nginx.conf"))); err != nil {
			return err
		}
		return runServer(t, exec.Command(bin, "-p", conf, "-e", errorLog, "-c", filepath.Join(conf, "nginx.conf")), stderrLog, baseURL, waitFor(svc))
	})
	if svc != nil {
		svc.start(t)
	}
	return srv
}

// waitFor is the binary whose processes a server's stop waits for: the
// test's service's, which stops first; none for the init script's, which
// outlives the server.
func waitFor(svc *counterService) string {
	if svc == nil {
		return ""
	}
	return svc.bin
}

// serviceFor returns the service a server of the test's is put in front
// of: a new one in dir, or, with sock, none of the test's (the init
// script's, which logs to /var/log/counter.log).
func serviceFor(t *testing.T, dir, root, sock, name string) (*counterService, *webServer) {
	t.Helper()
	if sock != "" {
		return nil, &webServer{Name: name, CGILog: filepath.Join(root, "var/log/counter.log"), sockPath: sock}
	}
	svc := installedService(t, dir, root)
	return svc, &webServer{Name: name, CGILog: svc.log, service: svc}
}

// startInstalledCaddy starts Caddy on the Caddyfile and counter.caddy that
// install.sh left in the root, with the :80 site on the test's port and
// folder and the service's socket moved to the test's; and the service
// behind it.
func startInstalledCaddy(t *testing.T, bin, root, sock string) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, root, root)
	letTraverse(t, dir)
	svc, srv := serviceFor(t, dir, root, sock, "caddy")
	srv.htdocs = htdocs
	stderrLog := filepath.Join(dir, "stderr.log")
	dumpOnFailure(t, stderrLog, srv.CGILog)
	env := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C", "HOME=" + dir,
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	srv.URL = onFreePort(t, []string{stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, fmt.Sprintf("caddy-%d", port))
		moveTree(t, filepath.Join(root, "etc/caddy"), conf, strings.NewReplacer(
			"/run/counter/fastcgi.sock", srv.sock(),
			":80 {", fmt.Sprintf("{\n\tadmin off\n\tauto_https off\n}\n\nhttp://127.0.0.1:%d {", port),
			"root * /usr/share/caddy", "root * "+htdocs,
		))
		caddyfile := filepath.Join(conf, "Caddyfile")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		check := exec.CommandContext(ctx, bin, "validate", "--config", caddyfile, "--adapter", "caddyfile")
		check.Env, check.Dir = env, conf
		if err := checkConfig(check); err != nil {
			return err
		}
		cmd := exec.Command(bin, "run", "--config", caddyfile, "--adapter", "caddyfile")
		cmd.Env, cmd.Dir = env, conf
		return runServer(t, cmd, stderrLog, baseURL, waitFor(svc))
	})
	if svc != nil {
		svc.start(t)
	}
	return srv
}
