package test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildPackages runs deploy/build.sh into a temp folder with VERSION and
// ARCHS set, and returns the folder.
func buildPackages(t *testing.T, version, archs string) string {
	t.Helper()
	out := t.TempDir()
	letTraverse(t, out) // apt reads the .deb as _apt
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	script, err := filepath.Abs(filepath.Join(kitDir, "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "bash", script, out)
	cmd.Env = append(os.Environ(), "VERSION="+version, "ARCHS="+archs)
	cmd.Dir = repoRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, b)
	}
	return out
}

// TestDebianPackages builds the three packages with deploy/build.sh and
// checks them without installing them: dpkg-deb --info names the
// architecture, --contents holds every file the package promises (the
// binary, the tmpfiles rule, the units, the init script, the fail2ban
// filter, the kit), lintian reports no error, and each ARM binary runs
// under qemu-user: armhf's on an ARM1176 (Pi Zero and 1), where a GOARM=7
// binary would die.
func TestDebianPackages(t *testing.T) {
	for _, tool := range []string{"dpkg-deb", "lintian", "qemu-arm", "qemu-aarch64"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipOutsideCI(t, tool+" not installed (apt-get install dpkg lintian qemu-user)")
		}
	}
	const version = "0.0.1~test1"
	dist := buildPackages(t, version, "arm64 armhf amd64")
	var debs []string
	for _, tc := range []struct {
		arch string
		qemu []string // how to run its binary here; nil: natively
	}{
		{"arm64", []string{"qemu-aarch64"}},
		{"armhf", []string{"qemu-arm", "-cpu", "arm1176"}},
		{"amd64", nil},
	} {
		deb := filepath.Join(dist, fmt.Sprintf("counter_%s_%s.deb", version, tc.arch))
		debs = append(debs, deb)
		t.Run(tc.arch, func(t *testing.T) {
			info, err := exec.Command("dpkg-deb", "--info", deb).CombinedOutput()
			if err != nil {
				t.Fatalf("dpkg-deb --info: %v\n%s", err, info)
			}
			for _, want := range []string{" Package: counter\n", " Version: " + version + "\n", " Architecture: " + tc.arch + "\n",
				" postinst", " prerm", " postrm", " conffiles"} {
				if !strings.Contains(string(info), want) {
					t.Errorf("dpkg-deb --info has no %q:\n%s", want, info)
				}
			}
			contents, err := exec.Command("dpkg-deb", "--contents", deb).CombinedOutput()
			if err != nil {
				t.Fatalf("dpkg-deb --contents: %v\n%s", err, contents)
			}
			for _, want := range []string{
				"-rwxr-xr-x root/root", // the binary's mode and owner
				" ./usr/lib/cgi-bin/counter.cgi\n",
				" ./usr/lib/tmpfiles.d/counter.conf\n",
				" ./lib/systemd/system/counter.socket\n",
				" ./lib/systemd/system/counter.service\n",
				" ./etc/init.d/counter\n",
				" ./etc/fail2ban/filter.d/counter.conf\n",
				" ./etc/fail2ban/jail.d/counter.local\n",
				" ./usr/share/counter/install.sh\n",
				" ./usr/share/counter/apache/counter.conf\n",
				" ./usr/share/counter/caddy/counter.caddy\n",
				" ./usr/lib/counter/counter-cluster\n",
				" ./usr/share/counter/cluster-certs.sh\n",
				" ./usr/share/counter/systemd/counter-cluster.conf\n",
				" ./usr/share/doc/counter/copyright\n",
			} {
				if !strings.Contains(string(contents), want) {
					t.Errorf("dpkg-deb --contents has no %q", want)
				}
			}
			// The packaged files are the kit's, byte for byte.
			x := t.TempDir()
			if b, err := exec.Command("dpkg-deb", "-x", deb, x).CombinedOutput(); err != nil {
				t.Fatalf("dpkg-deb -x: %v\n%s", err, b)
			}
			for packaged, kit := range map[string]string{
				"etc/init.d/counter":                             "init.d/counter",
				"lib/systemd/system/counter.service":             "systemd/counter.service",
				"etc/fail2ban/filter.d/counter.conf":             "fail2ban/filter.d/counter.conf",
				"usr/share/counter/nginx/counter.conf":           "nginx/counter.conf",
				"usr/share/counter/systemd/counter-cluster.conf": "systemd/counter-cluster.conf",
			} {
				a, _ := os.ReadFile(filepath.Join(x, packaged))
				b, _ := os.ReadFile(filepath.Join(kitDir, kit))
				if len(a) == 0 || string(a) != string(b) {
					t.Errorf("/%s in the package is not deploy/%s", packaged, kit)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			run := func(bin string, env []string, args ...string) ([]byte, error) {
				cmd := exec.CommandContext(ctx, bin, args...)
				if tc.qemu != nil {
					cmd = exec.CommandContext(ctx, tc.qemu[0], append(append(tc.qemu[1:], bin), args...)...)
				}
				cmd.Env = env
				return cmd.CombinedOutput()
			}
			// The full tool, which counter.cgi execs for its commands (run
			// here itself: under qemu-user, counter.cgi could not exec an
			// ARM binary without binfmt_misc).
			out, err := run(filepath.Join(x, "usr/lib/counter/counter-tool"), nil, "help")
			if err != nil || !strings.Contains(string(out), "counter.cgi") {
				t.Errorf("%s help: %v\n%s", strings.Join(append(tc.qemu, "counter-tool"), " "), err, out)
			}
			// counter.cgi, asked for an image, answers alone.
			out, err = run(filepath.Join(x, "usr/lib/cgi-bin/counter.cgi"), []string{"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=HEAD",
				"SERVER_PROTOCOL=HTTP/1.1", "PATH_INFO=/-.png", "COUNTER_COSTS=off", "COUNTER_DB=/nonexistent/counter.db"})
			if err != nil || !strings.Contains(string(out), "Status: 400") {
				t.Errorf("%s as CGI: %v\n%s", strings.Join(append(tc.qemu, "counter.cgi"), " "), err, out)
			}
		})
	}
	t.Run("lintian", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "lintian", append([]string{"--tag-display-limit", "0"}, debs...)...).CombinedOutput()
		t.Logf("lintian:\n%s", out)
		for line := range strings.Lines(string(out)) {
			if strings.HasPrefix(line, "E: ") {
				t.Errorf("lintian: %s", strings.TrimSpace(line))
			}
		}
		if err != nil {
			t.Errorf("lintian: %v", err)
		}
	})
}

// TestDebianPackageInstall installs the amd64 package on this machine, the
// one test that does, as an owner would: apt-get install ./counter.deb. It
// needs a web server of Debian's answering on port 80 (lighttpd, Apache,
// nginx or Caddy with its default site), which postinst must have set up:
// a hit through it counts. A second build installed over it must keep
// the count and restart the FastCGI service; apt-get purge must leave the
// servers' configs, the init and systemd folders and the rest byte for
// byte as they were. It refuses to run where the counter is installed
// already: that is an owner's, not a test's.
func TestDebianPackageInstall(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "apt-get install runs as root")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		skipOutsideCI(t, "no apt-get")
	}
	if out, _ := exec.Command("dpkg-query", "-W", "-f", "${db:Status-Status}", "counter").Output(); len(out) > 0 && string(out) != "not-installed" {
		t.Fatalf("this test needs the machine to itself: it installs the package for real, on port 80, and purges it; but the package counter is %s here, and the test would replace an owner's install (apt-get purge counter first, or -skip TestDebianPackageInstall)", out)
	}
	for _, p := range []string{"/usr/lib/cgi-bin/counter.cgi", "/usr/bin/counter", "/var/lib/counter", "/var/backups/counter", "/etc/init.d/counter", "/etc/init.d/counter-rundir"} {
		if _, err := os.Lstat(p); err == nil {
			t.Fatalf("this test needs the machine to itself: it installs the package for real, on port 80, and purges it; but %s is there: the counter is installed by hand on this machine (deploy/uninstall.sh --purge first, or -skip TestDebianPackageInstall)", p)
		}
	}
	const site = "http://127.0.0.1"
	if err := answersOn(site); err != nil {
		// Nothing on port 80: start Debian's lighttpd with its default
		// site, as an owner's machine has it (CI's has no init to start
		// it), and stop it again at the end, leaving the machine as found.
		if out, serr := exec.Command("service", "lighttpd", "start").CombinedOutput(); serr != nil {
			skipOutsideCI(t, fmt.Sprintf("no web server answers on port 80 (%v), and service lighttpd start: %v %s", err, serr, out))
		}
		t.Cleanup(func() { exec.Command("service", "lighttpd", "stop").Run() })
		for deadline := time.Now().Add(10 * time.Second); answersOn(site) != nil; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("lighttpd started but nothing answers on port 80: %v", answersOn(site))
			}
		}
	}

	watched := []string{"/etc/lighttpd", "/etc/apache2", "/etc/nginx", "/etc/caddy", "/etc/fail2ban", "/etc/init.d",
		"/etc/systemd/system", "/etc/tmpfiles.d", "/etc/default", "/usr/lib/cgi-bin", "/usr/lib/counter", "/usr/share/counter",
		"/var/lib/apache2"} // a2enmod's records
	rc, _ := filepath.Glob("/etc/rc?.d")
	watched = append(watched, rc...)
	machine := func() []string {
		var list []string
		for _, d := range watched {
			if _, err := os.Stat(d); err == nil {
				for _, l := range listTree(t, d) { // paths relative to d
					list = append(list, d+l)
				}
			}
		}
		for _, p := range []string{"/var/lib/counter", "/var/lib/counter-install.state", "/var/log/counter.log", "/run/counter.pid"} {
			if _, err := os.Lstat(p); err == nil {
				list = append(list, p+" is there")
			}
		}
		groups, _ := exec.Command("id", "-nG", "caddy").Output()
		return append(list, "caddy's groups: "+strings.TrimSpace(string(groups)))
	}
	before := machine()
	_, runBefore := os.Lstat("/run/counter")

	const v1, v2 = "0.0.1~test1", "0.0.1~test2"
	first := filepath.Join(buildPackages(t, v1, "amd64"), "counter_"+v1+"_amd64.deb")
	second := filepath.Join(buildPackages(t, v2, "amd64"), "counter_"+v2+"_amd64.deb")
	apt := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "apt-get", append([]string{"-y", "-q"}, args...)...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("apt-get %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	purged := false
	t.Cleanup(func() { // whatever failed, the machine gets the package off
		if !purged {
			c := exec.Command("apt-get", "-y", "-q", "purge", "counter")
			c.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			c.Run()
		}
	})

	out := apt("install", first)
	t.Logf("apt-get install ./counter_%s_amd64.deb:\n%s", v1, out)
	if !strings.Contains(out, "install.sh: counter.cgi is installed as ") {
		t.Errorf("postinst did not set up a server")
	}
	if !strings.Contains(out, "install.sh: checked: http://localhost/cgi-bin/counter.cgi/install-check.json answers from the counter") {
		t.Errorf("postinst's check did not reach the counter through the server on port 80")
	}
	for _, p := range []string{"/usr/lib/cgi-bin/counter.cgi", "/usr/lib/counter/counter-tool", "/usr/lib/counter/counter-cluster", "/usr/lib/counter/counter-themedecode", "/usr/lib/tmpfiles.d/counter.conf", "/lib/systemd/system/counter.socket",
		"/lib/systemd/system/counter.service", "/etc/init.d/counter", "/etc/fail2ban/filter.d/counter.conf",
		"/usr/bin/counter", "/var/backups/counter"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("after apt-get install: %v", err)
		}
	}
	admin := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("runuser", append([]string{"-u", "www-data", "--", "counter"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("counter.cgi %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	admin("create", "debtest")
	// The package's decoder: theme add as www-data, and the set drawn
	// through the server.
	if out := admin("theme", "add", "debset", readableDigitFolder(t)); !strings.Contains(out, "added theme debset: png-folder") {
		t.Errorf("theme add with the package's decoder: %s", out)
	}
	if resp, err := http.Get(site + "/cgi-bin/counter.cgi/debtest.png?theme=debset&count=0"); err != nil || resp.StatusCode != 200 {
		t.Errorf("debtest.png?theme=debset through the server: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	hit := func(visitor string) {
		t.Helper()
		if err := checkHitAs(context.Background(), &http.Client{Timeout: 20 * time.Second}, site+"/cgi-bin/counter.cgi/debtest.png", firefoxUA+" "+visitor); err != nil {
			t.Fatalf("a hit through the server on port 80: %v", err)
		}
	}
	hit("deb-1")
	hit("deb-2")
	if got := jsonCount(t, site, "debtest"); got != 2 {
		t.Errorf("debtest: got count %d after 2 hits, want 2", got)
	}

	pidBefore, _ := os.ReadFile("/run/counter.pid") // the init script's service, if this machine runs one
	out = apt("install", second)
	t.Logf("apt-get install ./counter_%s_amd64.deb:\n%s", v2, out)
	if !strings.Contains(out, "Unpacking counter ("+v2+") over ("+v1+")") {
		t.Errorf("apt-get did not upgrade %s to %s", v1, v2)
	}
	if got := jsonCount(t, site, "debtest"); got != 2 {
		t.Errorf("debtest: got count %d after the upgrade, want 2", got)
	}
	hit("deb-3")
	if got := jsonCount(t, site, "debtest"); got != 3 {
		t.Errorf("debtest: got count %d after a hit on the upgrade, want 3", got)
	}
	if len(pidBefore) > 0 {
		if pidAfter, _ := os.ReadFile("/run/counter.pid"); string(pidAfter) == string(pidBefore) || len(pidAfter) == 0 {
			t.Errorf("the FastCGI service (pid %s) was not restarted on the upgrade (pid now %q)", strings.TrimSpace(string(pidBefore)), pidAfter)
		}
	} else if !strings.Contains(out, "systemctl try-restart") && !strings.Contains(out, "restarted the FastCGI service") {
		t.Logf("no FastCGI service ran here to restart")
	}

	out = apt("purge", "counter")
	purged = true
	t.Logf("apt-get purge counter:\n%s", out)
	after := machine()
	if diff := diffTrees(before, after); diff != "" {
		t.Errorf("after apt-get purge, the machine is not as before apt-get install:\n%s", diff)
	}
	if _, err := os.Lstat("/run/counter"); err == nil && runBefore != nil {
		t.Errorf("apt-get purge left /run/counter")
	}
}

// answersOn is nil when a web server answers at site.
func answersOn(site string) error {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(site + "/")
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// TestBuildVersionsUpgrade builds the PC's package twice from the same
// commit, as the README's two commands do, with no VERSION given: the
// second must be a version apt takes as an upgrade of the first. Before,
// both were 0.0~gitDATE.COMMIT of the commit, and apt said "already the
// newest version" and kept the old binary.
func TestBuildVersionsUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary twice: minutes on a busy machine")
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		skipOutsideCI(t, "dpkg-deb not installed (apt-get install dpkg)")
	}
	var versions []string
	for i := range 2 {
		if i > 0 {
			time.Sleep(time.Second) // the version's clock counts seconds
		}
		dist := buildPackages(t, "", "amd64")
		debs, _ := filepath.Glob(filepath.Join(dist, "counter_*_amd64.deb"))
		if len(debs) != 1 {
			t.Fatalf("build.sh ARCHS=amd64 made %v in %s, want one counter_VERSION_amd64.deb", debs, dist)
		}
		v, err := exec.Command("dpkg-deb", "-f", debs[0], "Version").Output()
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, strings.TrimSpace(string(v)))
	}
	if err := exec.Command("dpkg", "--compare-versions", versions[1], "gt", versions[0]).Run(); err != nil {
		t.Errorf("a second build is version %s, not an upgrade of the first, %s", versions[1], versions[0])
	}
	t.Logf("versions %s then %s", versions[0], versions[1])
}
