package test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// TestInstallScript runs deploy/install.sh into a scratch root that holds
// Debian's default /etc/lighttpd and /etc/apache2, as CGI and then as
// FastCGI, and each time:
//   - runs it a second time and checks that nothing changed: no path, mode,
//     owner or content, and no server checked or reloaded;
//   - starts the real lighttpd with the config file it installed, then the
//     real Apache with the scratch root's whole /etc/apache2 (paths moved
//     into the scratch root), both running the counter as www-data, and
//     counts a hit through each;
//   - installs another binary, which must restart lighttpd under FastCGI.
//
// Then deploy/uninstall.sh must keep the counts, and remove them with
// --purge. Apache's a2enmod, a2enconf and apache2ctl configtest run for
// real, inside the scratch root; systemctl and lighttpd -tt are stubs that
// note their calls.
func TestInstallScript(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the install script runs as root")
	}
	lighttpd := serverBinary(t, "lighttpd", lighttpdBins...)
	apache2ctl := serverBinary(t, "apache2", "apache2ctl", "/usr/sbin/apache2ctl")
	needFile(t, "libapache2-mod-fcgid", "/etc/apache2/mods-available/fcgid.load")
	if _, err := osuser.Lookup("www-data"); err != nil {
		skipOutsideCI(t, "no www-data user")
	}
	bin := buildCounter(t)
	root := scratchRoot(t, "lighttpd", "apache2", "libapache2-mod-fcgid")
	// As on a fresh install: no CGI or FastCGI module enabled yet.
	for _, m := range []string{"cgi", "cgid", "fcgid", "proxy_fcgi", "proxy"} {
		for _, ext := range []string{".load", ".conf"} {
			os.Remove(filepath.Join(root, "etc/apache2/mods-enabled", m+ext))
		}
	}
	calls := filepath.Join(t.TempDir(), "calls.log")
	env := append(os.Environ(),
		"COUNTER_SYSTEMCTL="+stub(t, "systemctl", calls),
		"COUNTER_SYSTEMD_RUN="+t.TempDir(), // systemd runs this machine
		"COUNTER_SERVICE="+stub(t, "service", calls),
		"COUNTER_LIGHTTPD="+stub(t, "lighttpd", calls),
		"COUNTER_APACHE2CTL="+apache2ctl,
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	)
	script := func(t *testing.T, name string, args ...string) string {
		t.Helper()
		// As an owner runs it, from where the binary is: --binary counter.cgi
		return mustRunKit(t, env, filepath.Dir(bin), root, name, args...)
	}
	takeCalls := func() string {
		b, _ := os.ReadFile(calls)
		os.Remove(calls)
		return string(b)
	}

	etcBefore := listTree(t, filepath.Join(root, "etc"))
	hits := uint64(0)
	binDir := t.TempDir() // the binaries installed after the first
	for _, mode := range []struct {
		name     string
		flags    []string
		conf     installedConf
		wantCall string // how lighttpd is reloaded
		summary  string // what install.sh says it did
		calls    []string
	}{
		{"cgi", nil, installedConf{"counter.conf", "counter.conf", "cgid"}, "systemctl reload lighttpd",
			"installed as CGI for lighttpd apache\n", nil},
		// Apache through the FastCGI service, not mod_fcgid, on a machine
		// that systemd runs.
		{"fastcgi", []string{"--fastcgi"}, installedConf{"counter-fastcgi.conf", "counter-service.conf", "proxy_fcgi"}, "systemctl restart lighttpd",
			"installed as FastCGI for lighttpd, as the FastCGI service (counter.socket) for apache\n",
			[]string{"systemctl daemon-reload", "systemctl enable --now counter.socket", "systemctl try-restart counter.service"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			binArg := bin
			if mode.name == "cgi" {
				binArg = filepath.Base(bin) // a bare name, not to be looked up in PATH
			}
			args := append([]string{"--binary", binArg, "--counter", "blog"}, mode.flags...)
			out := script(t, "install.sh", args...)
			firstOut := out
			t.Logf("install.sh %s:\n%s", strings.Join(args, " "), out)
			if !strings.Contains(out, " counter.cgi is "+mode.summary) {
				t.Errorf("install.sh did not say %q:\n%s", mode.summary, out)
			}
			if !strings.Contains(out, `<img src="/cgi-bin/counter.cgi/blog.png" alt="visitors">`) {
				t.Errorf("install.sh printed no <img> snippet:\n%s", out)
			}
			got := takeCalls()
			// Apache restarted, not reloaded: a module was enabled, and
			// mod_cgid starts its CGI daemon only with a new Apache.
			for _, want := range append([]string{"lighttpd -tt -f " + root + "/etc/lighttpd/lighttpd.conf", mode.wantCall, "systemctl restart apache2"}, mode.calls...) {
				if !strings.Contains(got, want+"\n") {
					t.Errorf("install.sh did not run %q; it ran:\n%s", want, got)
				}
			}
			checkInstalled(t, root, mode.conf)

			before := listTree(t, root)
			out = script(t, "install.sh", args...)
			if !strings.Contains(out, "nothing to change") {
				t.Errorf("second install.sh did not say \"nothing to change\":\n%s", out)
			}
			if got := changingCalls(takeCalls()); got != "" {
				t.Errorf("second install.sh checked or reloaded a server:\n%s", got)
			}
			if diff := diffTrees(before, listTree(t, root)); diff != "" {
				t.Errorf("second install.sh changed the scratch root:\n%s", diff)
			}

			// Each server in turn, stopped before the next starts, so that
			// each stop can wait for the counter processes it started.
			countHit := func(t *testing.T, srv *webServer) {
				t.Helper()
				// A visitor of its own for each hit: the installed counter
				// has the default reload window.
				if err := checkHitAs(context.Background(), &http.Client{Timeout: 20 * time.Second}, srv.URL+"/cgi-bin/counter.cgi/blog.png",
					fmt.Sprintf("%s install-test/%d", firefoxUA, hits)); err != nil {
					t.Fatalf("a hit through the installed config: %v", err)
				}
				hits++
				if got := jsonCount(t, srv.URL, "blog"); got != hits {
					t.Errorf("blog: got count %d, want %d", got, hits)
				}
				// The page an owner makes with the tag install.sh printed.
				checkInstalledPage(t, srv, tagOf(t, firstOut), "blog", fmt.Sprintf("%s install-test/%d", chromeUA, hits))
				hits++
			}
			t.Run("lighttpd", func(t *testing.T) {
				countHit(t, startInstalledLighttpd(t, lighttpd, root, mode.conf.lighttpd))
				if mode.name == "fastcgi" {
					checkFastCGIProcess(t, filepath.Join(root, "usr/lib/counter/counter-tool"))
				}
			})
			// Apache with the whole of Debian's configuration around it.
			t.Run("apache", func(t *testing.T) {
				var svc *counterService
				if mode.conf.apache == "counter-service.conf" {
					// systemd's part: counter.socket on /run/counter
					svc = newCounterService(t, filepath.Join(root, "run/counter"), filepath.Join(root, "usr/lib/cgi-bin"), filepath.Join(root, "var/lib/counter/counter.db"))
				}
				srv := startInstalledApache(t, root)
				if svc != nil {
					svc.start(t) // stopped before Apache, which waits for every counter.cgi to end
				}
				countHit(t, srv)
				if mode.name == "fastcgi" { // the service's, not a CGI of mod_cgid, also enabled
					checkFastCGIProcess(t, filepath.Join(root, "usr/lib/counter/counter-tool"))
				}
			})

			// A new binary: a FastCGI process of the old one would go on
			// running it, deleted, until lighttpd restarts it.
			newer := filepath.Join(binDir, "counter-"+mode.name+".cgi")
			b, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(newer, append(b, 0), 0o755); err != nil {
				t.Fatal(err)
			}
			// The full tool it runs, beside it, as install.sh wants it.
			if err := installTool(filepath.Dir(bin), binDir); err != nil {
				t.Fatal(err)
			}
			out = script(t, "install.sh", append([]string{"--binary", newer, "--counter", "blog"}, mode.flags...)...)
			if !strings.Contains(out, "installed /usr/lib/cgi-bin/counter.cgi\n") {
				t.Errorf("install.sh of another binary did not install it:\n%s", out)
			}
			if got := takeCalls(); !strings.Contains(got, mode.wantCall+"\n") {
				t.Errorf("install.sh of another binary did not run %q; it ran:\n%s", mode.wantCall, got)
			}
			bin = newer // the FastCGI run installs the same, and changes only the config
		})
	}

	db := filepath.Join(root, "var/lib/counter/counter.db")
	uninstalled := script(t, "uninstall.sh")
	for _, p := range []string{"usr/lib/cgi-bin/counter.cgi", "usr/bin/counter", "etc/lighttpd/conf-enabled/counter-fastcgi.conf",
		"etc/apache2/conf-enabled/counter-service.conf", "etc/apache2/conf-available/counter-service.conf",
		"etc/systemd/system/counter.socket", "etc/systemd/system/counter.service",
		"etc/tmpfiles.d/counter.conf", "run/counter"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("uninstall.sh left /%s", p)
		}
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("uninstall.sh without --purge: %v, want the counts kept", err)
	}
	// The modules install.sh enabled stay, listed with the command that
	// disables them, and the record of them stays for --purge.
	for _, m := range []string{"cgid", "proxy_fcgi", "proxy"} {
		want := fmt.Sprintf("left enabled: Apache's module %s, which install.sh enabled; if no other site needs it: a2dismod %[1]s && systemctl restart apache2 (uninstall.sh --purge does it)\n", m)
		if !strings.Contains(uninstalled, want) {
			t.Errorf("uninstall.sh did not say %q:\n%s", want, uninstalled)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "var/lib/counter-install.state")); err != nil {
		t.Errorf("uninstall.sh did not keep the record of what install.sh enabled, for --purge: %v", err)
	}
	// --purge, as the README says: the counts, and the modules it enabled;
	// then /etc is as Debian left it, byte for byte.
	purged := script(t, "uninstall.sh", "--purge")
	if _, err := os.Stat(filepath.Dir(db)); err == nil {
		t.Errorf("uninstall.sh --purge left %s", filepath.Dir(db))
	}
	for _, p := range []string{"var/backups/counter", "var/lib/counter-install.state"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("uninstall.sh --purge left /%s", p)
		}
	}
	for _, m := range []string{"cgid", "proxy_fcgi", "proxy"} {
		if want := "disabled Apache's module " + m + ", which install.sh enabled\n"; !strings.Contains(purged, want) {
			t.Errorf("uninstall.sh --purge did not say %q:\n%s", want, purged)
		}
	}
	if diff := diffTrees(etcBefore, listTree(t, filepath.Join(root, "etc"))); diff != "" {
		t.Errorf("/etc after uninstall.sh --purge is not as before install.sh:\n%s", diff)
	}
}

// checkFastCGIProcess checks that one process runs the binary at path, as
// www-data: lighttpd starts it after it has dropped root, and mod_fcgid
// as Apache's user. A FastCGI process started as counter.cgi runs the
// full tool, /usr/lib/counter/counter-tool, which counter.cgi execs.
func checkFastCGIProcess(t *testing.T, path string) {
	t.Helper()
	pids := testenv.ProcessesOf(path)
	if len(pids) != 1 {
		t.Fatalf("got %d processes of %s (%v), want 1 (max-procs 1)", len(pids), path, pids)
	}
	u, err := osuser.Lookup("www-data")
	if err != nil {
		t.Fatal(err)
	}
	p, err := testenv.ReadProcess(pids[0])
	if err != nil {
		t.Fatal(err)
	}
	if strconv.Itoa(p.UID) != u.Uid || strconv.Itoa(p.EUID) != u.Uid {
		t.Errorf("counter.cgi (pid %d) runs as uid %d, euid %d, want www-data (%s)", pids[0], p.UID, p.EUID, u.Uid)
	}
}

// stub writes a script that appends its name and arguments to calls and
// succeeds (systemctl is-active: the service runs).
func stub(t *testing.T, name, calls string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	script := fmt.Sprintf("#!/bin/sh\necho \"%s $*\" >>'%s'\n", name, calls)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// scratchRoot returns a folder for install.sh's --root that www-data may
// traverse (it runs the binary and reaches the data), holding the /etc of
// a fresh install of Debian's packages pkgs (debianEtc), never this
// machine's.
func scratchRoot(t *testing.T, pkgs ...string) string {
	t.Helper()
	root := t.TempDir()
	letTraverse(t, root)
	// and the folders that Debian's base system has
	for _, d := range []string{"etc/systemd/system", "etc/tmpfiles.d", "etc/init.d", "etc/default", "run", "var/lib", "var/log"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	debianEtc(t, root, pkgs...)
	return root
}

// runKit runs deploy/NAME (install.sh, uninstall.sh) with --root root and
// args, with env, from dir, and returns what it printed.
func runKit(env []string, dir, root, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, err := filepath.Abs(filepath.Join(kitDir, name))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "bash", append([]string{script, "--root", root}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustRunKit is runKit that fails the test if the script fails.
func mustRunKit(t *testing.T, env []string, dir, root, name string, args ...string) string {
	t.Helper()
	out, err := runKit(env, dir, root, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// changingCalls drops from calls the questions to systemctl (is-active,
// is-enabled), which change nothing.
func changingCalls(calls string) string {
	var out strings.Builder
	for line := range strings.Lines(calls) {
		if !strings.HasPrefix(line, "systemctl is-") {
			out.WriteString(line)
		}
	}
	return out.String()
}

// installedConf is what install.sh enables: the snippets in lighttpd's
// and Apache's conf-enabled/, and Apache's module.
type installedConf struct {
	lighttpd, apache, apacheMod string
}

// checkInstalled checks the owners and modes that the install promises,
// which snippets and module are enabled, and that the other snippets are
// gone.
func checkInstalled(t *testing.T, root string, c installedConf) {
	t.Helper()
	for _, want := range []struct {
		path, mode, owner string
	}{
		{"usr/lib/cgi-bin/counter.cgi", "-rwxr-xr-x", "root:root"},
		{"usr/lib/counter/counter-tool", "-rwxr-xr-x", "root:root"},        // all but a hit, out of cgi-bin
		{"usr/lib/counter/counter-themedecode", "-rwxr-xr-x", "root:root"}, // theme add's, out of cgi-bin
		{"var/lib/counter", "drwxr-x---", "www-data:www-data"},
		{"var/lib/counter/counter.db", "-rw-------", "www-data:www-data"},
		{"var/backups/counter", "drwxr-x---", "www-data:www-data"}, // backup's, as www-data
		{"run/counter", "drwxr-x---", "www-data:www-data"},
		{"etc/tmpfiles.d/counter.conf", "-rw-r--r--", "root:root"},
		{"etc/lighttpd/conf-enabled/" + c.lighttpd, "-rw-r--r--", "root:root"},
		{"etc/apache2/conf-available/" + c.apache, "-rw-r--r--", "root:root"},
	} {
		fi, err := os.Stat(filepath.Join(root, want.path))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := fileMode(fi) + " " + fileOwner(fi); got != want.mode+" "+want.owner {
			t.Errorf("/%s: got %s, want %s %s", want.path, got, want.mode, want.owner)
		}
	}
	// The command the manual and the messages name, on PATH.
	if target, err := os.Readlink(filepath.Join(root, "usr/bin/counter")); err != nil || target != "../lib/counter/counter-tool" {
		t.Errorf("/usr/bin/counter: %q, %v; want a link to ../lib/counter/counter-tool", target, err)
	}
	for _, p := range []string{"etc/apache2/conf-enabled/" + c.apache, "etc/apache2/mods-enabled/" + c.apacheMod + ".load"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("not enabled: %v", err)
		}
	}
	for _, conf := range []string{"counter.conf", "counter-fastcgi.conf", "counter-service.conf"} {
		var others []string
		if conf != c.lighttpd {
			others = append(others, "etc/lighttpd/conf-enabled/"+conf)
		}
		if conf != c.apache {
			others = append(others, "etc/apache2/conf-enabled/"+conf, "etc/apache2/conf-available/"+conf)
		}
		for _, p := range others {
			if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
				t.Errorf("/%s is still there next to %s and %s", p, c.lighttpd, c.apache)
			}
		}
	}
}

// startInstalledLighttpd starts lighttpd as www-data, as Debian's does,
// with the snippet that install.sh put into the scratch root, every path of
// it moved into that root.
func startInstalledLighttpd(t *testing.T, bin, root, conf string) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, root, root)
	letTraverse(t, dir)
	srv := &webServer{Name: "lighttpd", CGILog: filepath.Join(dir, "breakage.log"), htdocs: htdocs}
	errorLog, stderrLog := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log")
	replace := map[string]string{
		"/usr/lib/cgi-bin/":              root + "/usr/lib/cgi-bin/",
		"/var/lib/counter/counter.db":    root + "/var/lib/counter/counter.db",
		"/run/counter":                   root + "/run/counter",
		"/var/log/lighttpd/breakage.log": srv.CGILog,
	}
	if conf == "counter-fastcgi.conf" {
		replace["/run/lighttpd/counter-fastcgi.sock"] = filepath.Join(dir, "counter-fastcgi.sock")
	}
	snippet := shippedSnippet(t, filepath.Join(root, "etc/lighttpd/conf-enabled", conf), replace)
	snippetPath := filepath.Join(dir, conf)
	if err := os.WriteFile(snippetPath, snippet, 0o644); err != nil {
		t.Fatal(err)
	}
	// lighttpd opens its logs as root, then runs as www-data, and so do
	// the counter processes it starts.
	if cred := ownerOf(t, filepath.Join(root, "var/lib/counter")); cred == nil {
		t.Fatal("/var/lib/counter does not belong to www-data")
	} else if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
		t.Fatal(err)
	}
	dumpOnFailure(t, errorLog, srv.CGILog, stderrLog)
	srv.URL = onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		c := filepath.Join(dir, "lighttpd.conf")
		main := mainConfig(dir, htdocs, snippetPath, "", port) + "server.username = \"www-data\"\nserver.groupname = \"www-data\"\n" + htmlType + "\n"
		if err := os.WriteFile(c, []byte(main), 0o644); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := checkConfig(exec.CommandContext(ctx, bin, "-tt", "-f", c)); err != nil {
			return err
		}
		return runServer(t, exec.Command(bin, "-D", "-f", c), stderrLog, baseURL, filepath.Join(root, "usr/lib/cgi-bin/counter.cgi"))
	})
	return srv
}

// listTree lists every path under root with its mode, owner, and a hash of
// its content or its link's target.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var list []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		what := ""
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			what = fmt.Sprintf("sha256:%x", sha256.Sum256(b))
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			what = "-> " + target
		}
		rel, _ := filepath.Rel(root, p)
		list = append(list, fmt.Sprintf("/%s %s %s %s", rel, fileMode(fi), fileOwner(fi), what))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// diffTrees returns the lines that are in only one of two listings.
func diffTrees(a, b []string) string {
	var diff []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			diff = append(diff, "- "+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			diff = append(diff, "+ "+l)
		}
	}
	return strings.Join(diff, "\n")
}

func fileMode(fi fs.FileInfo) string { return fi.Mode().String() }

func fileOwner(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "?"
	}
	name := func(id uint32, lookup func(string) (string, error)) string {
		if n, err := lookup(fmt.Sprint(id)); err == nil {
			return n
		}
		return fmt.Sprint(id)
	}
	user := name(st.Uid, func(id string) (string, error) {
		u, err := osuser.LookupId(id)
		if err != nil {
			return "", err
		}
		return u.Username, nil
	})
	group := name(st.Gid, func(id string) (string, error) {
		g, err := osuser.LookupGroupId(id)
		if err != nil {
			return "", err
		}
		return g.Name, nil
	})
	return user + ":" + group
}

// startInstalledApache starts Apache with the scratch root's whole
// /etc/apache2, as install.sh left it (Debian's apache2.conf, the modules
// and confs it enabled, serve-cgi-bin.conf), with every path of the
// installed system moved into the root, on a free loopback port.
func startInstalledApache(t *testing.T, root string) *webServer {
	t.Helper()
	bin := serverBinary(t, "apache2", apacheBins...)
	conf := filepath.Join(root, "etc/apache2")
	dir, htdocs := serverDir(t, root, root)
	letTraverse(t, dir)
	fcgid := filepath.Join(dir, "fcgid")
	for _, d := range []string{fcgid, filepath.Join(dir, "socks")} { // socks: cgid.conf's ScriptSock
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if cred := ownerOf(t, filepath.Join(root, "var/lib/counter")); cred == nil {
		t.Fatal("/var/lib/counter does not belong to www-data")
	} else if err := os.Chown(fcgid, int(cred.Uid), int(cred.Gid)); err != nil {
		t.Fatal(err)
	}
	// Into the root: what the installed files name on the real system.
	moves := strings.NewReplacer(
		"/usr/lib/cgi-bin", root+"/usr/lib/cgi-bin",
		"/var/lib/counter", root+"/var/lib/counter",
		"/run/counter", root+"/run/counter",
		"/etc/apache2/", conf+"/",
		"Listen 80\n", "Listen 127.0.0.1:${COUNTER_TEST_PORT}\n",
	)
	files, _ := filepath.Glob(filepath.Join(conf, "conf-available", "*.conf"))
	for _, f := range append(files, filepath.Join(conf, "ports.conf")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(moves.Replace(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		// as install.sh left it, for its next run and apache2ctl configtest
		t.Cleanup(func() { os.WriteFile(f, b, 0o644) })
	}
	// The test's own: a document root for ok.txt, mod_fcgid's files.
	local := fmt.Sprintf(`ServerName 127.0.0.1
DocumentRoot "%[1]s"
<Directory "%[1]s">
	Require all granted
</Directory>
<IfModule mod_fcgid.c>
	FcgidIPCDir "%[2]s/sock"
	FcgidProcessTableFile "%[2]s/shm"
</IfModule>
`, htdocs, fcgid)
	if err := os.WriteFile(filepath.Join(conf, "conf-enabled", "zz-test.conf"), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(filepath.Join(conf, "conf-enabled", "zz-test.conf")) })
	srv := &webServer{Name: "apache", CGILog: filepath.Join(dir, "error.log"), cgiLine: apacheCGILine, htdocs: htdocs}
	stderrLog := filepath.Join(dir, "stderr.log")
	dumpOnFailure(t, srv.CGILog, stderrLog)
	srv.URL = onFreePort(t, []string{srv.CGILog, stderrLog}, func(port int, baseURL string) error {
		env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C",
			"APACHE_RUN_USER=www-data", "APACHE_RUN_GROUP=www-data",
			"APACHE_RUN_DIR=" + dir, "APACHE_PID_FILE=" + filepath.Join(dir, "apache2.pid"),
			"APACHE_LOCK_DIR=" + dir, "APACHE_LOG_DIR=" + dir,
			fmt.Sprintf("COUNTER_TEST_PORT=%d", port)}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		check := exec.CommandContext(ctx, bin, "-d", conf, "-t")
		check.Env = env
		if err := checkConfig(check); err != nil {
			return err
		}
		cmd := exec.Command(bin, "-d", conf, "-DFOREGROUND")
		cmd.Env = env
		return runServer(t, cmd, stderrLog, baseURL, filepath.Join(root, "usr/lib/cgi-bin/counter.cgi"))
	})
	return srv
}
