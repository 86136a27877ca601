package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	refuse := filepath.Join(t.TempDir(), "service")
	// service NAME status: no init script knows of this lighttpd
	if err := os.WriteFile(refuse, fmt.Appendf(nil, "#!/bin/sh\necho \"service $*\" >>'%s'\nexit 3\n", calls), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"COUNTER_SYSTEMCTL="+stub(t, "systemctl", calls),
		"COUNTER_SYSTEMD_RUN="+filepath.Join(root, "no-systemd"),
		"COUNTER_SERVICE="+refuse,
		"COUNTER_LIGHTTPD="+stub(t, "lighttpd", calls),
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	)

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
include_shell "cat %[5]s/etc/lighttpd/conf-enabled/counter*.conf 2>/dev/null | sed %[6]s; true"
`, htdocs, errorLog, root+pidFile, port, root, sed.String())
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
			if got := jsonCount(t, url, "blog"); got != 0 {
				t.Errorf("blog counts %d after install.sh's check, want 0: the check must count nothing", got)
			}
			if mode.name == "fastcgi" {
				checkFastCGIProcess(t, filepath.Join(root, "usr/lib/cgi-bin/counter.cgi"))
			}
		})
	}

	// Where nothing answers, install.sh fails and says what to do.
	out, err := runKit(env, "", root, "install.sh", "--binary", bin, "--server", "lighttpd", "--fastcgi", "--url", "http://127.0.0.1:1")
	if err == nil || !strings.Contains(out, "CHECK FAILED: nothing answers at http://127.0.0.1:1. Start the web server, or give install.sh --url") {
		t.Errorf("install.sh with nothing at --url: %v\n%s", err, out)
	}
}
