package test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	osuser "os/user"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestInstallCheckSaysWhy runs install.sh against a web server that
// answers as a broken set-up does (Apache whose mod_cgid has no daemon
// yet, lighttpd that has not read the new config, nginx in front of a
// service that is not running, another server than the one set up), and
// checks that its last word names the cause and the one command that
// fixes it, and that it fails.
func TestInstallCheckSaysWhy(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the install script runs as root")
	}
	if _, err := osuser.Lookup("www-data"); err != nil {
		skipOutsideCI(t, "no www-data user")
	}
	bin := buildCounter(t)
	for _, tc := range []struct {
		name   string
		pkgs   []string
		args   []string
		server string // the Server header of the answer
		status int
		body   string
		want   string
	}{
		{"apache mod_cgid without its daemon", []string{"apache2"}, []string{"--server", "apache"},
			"Apache/2.4.71 (Debian)", 503, "<html><title>503 Service Unavailable</title></html>",
			`Apache's mod_cgid has no CGI daemon (its error log says "unable to connect to cgi daemon"): a module enabled takes a full restart, not a reload; restart Apache with: systemctl restart apache2`},
		{"lighttpd without the new config", []string{"lighttpd"}, []string{"--server", "lighttpd"},
			"lighttpd/1.4.69", 404, "<html>404 Not Found</html>",
			"lighttpd has not loaded the counter's configuration; restart it with: systemctl restart lighttpd"},
		{"nginx and no service", []string{"nginx-common"}, []string{"--server", "nginx"},
			"nginx/1.22.1", 502, "<html>502 Bad Gateway</html>",
			"the FastCGI service is not running (no socket at /run/counter/fastcgi.sock); start it with: systemctl start counter.socket"},
		{"another server", []string{"lighttpd"}, []string{"--server", "lighttpd"},
			"nginx/1.22.1", 404, "<html>404 Not Found</html>",
			"(nginx) is not one install.sh set up (it did: lighttpd): give install.sh --url with the address of one of them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Server", tc.server)
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			root := scratchRoot(t, tc.pkgs...)
			calls := filepath.Join(t.TempDir(), "calls.log")
			env := append(os.Environ(),
				"COUNTER_SYSTEMCTL="+stub(t, "systemctl", calls),
				"COUNTER_SYSTEMD_RUN="+t.TempDir(), // systemd runs this machine
				"COUNTER_SERVICE="+stub(t, "service", calls),
				"COUNTER_LIGHTTPD="+stub(t, "lighttpd", calls),
				"COUNTER_APACHE2CTL="+stub(t, "apache2ctl", calls),
				"COUNTER_NGINX="+stub(t, "nginx", calls),
				"COUNTER_CHECK_WAIT=1", // broken for good: no need to wait for a reload
				"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			)
			out, err := runKit(env, "", root, "install.sh", append([]string{"--binary", bin, "--url", srv.URL}, tc.args...)...)
			if err == nil {
				t.Errorf("install.sh succeeded with a broken server:\n%s", out)
			}
			if !strings.Contains(out, "install.sh: CHECK FAILED: ") || !strings.Contains(out, tc.want+"\n") {
				t.Errorf("install.sh did not say %q:\n%s", tc.want, out)
			}
		})
	}
}

// TestInstallCheckWaitsForTheReload: a server that has been told to
// reload still answers from its old configuration for a moment (nginx
// starts new workers while the old ones finish), as nginx did with 404s
// for the first requests after install.sh's reload. The check asks again
// until the counter answers, within its bound, and the install succeeds;
// before, it judged the first answer and failed 4 times of 4.
func TestInstallCheckWaitsForTheReload(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the install script runs as root")
	}
	if _, err := osuser.Lookup("www-data"); err != nil {
		skipOutsideCI(t, "no www-data user")
	}
	bin := buildCounter(t)
	var asked atomic.Int64
	var ready atomic.Value // the time the "reload" ends: 2 s after the first request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "nginx/1.22.1")
		if asked.Add(1) == 1 {
			ready.Store(time.Now().Add(2 * time.Second))
		}
		if time.Now().Before(ready.Load().(time.Time)) {
			w.WriteHeader(404)
			w.Write([]byte("<html>404 Not Found</html>"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"install-check","count":0}`)
	}))
	defer srv.Close()
	root := scratchRoot(t, "nginx-common")
	calls := filepath.Join(t.TempDir(), "calls.log")
	env := append(os.Environ(),
		"COUNTER_SYSTEMCTL="+stub(t, "systemctl", calls),
		"COUNTER_SYSTEMD_RUN="+t.TempDir(),
		"COUNTER_SERVICE="+stub(t, "service", calls),
		"COUNTER_NGINX="+stub(t, "nginx", calls),
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	)
	out, err := runKit(env, "", root, "install.sh", "--binary", bin, "--url", srv.URL, "--server", "nginx")
	if err != nil || !strings.Contains(out, "install.sh: checked: ") || strings.Contains(out, "CHECK FAILED") {
		t.Errorf("install.sh against a server still reloading: %v\n%s", err, out)
	}
	if n := asked.Load(); n < 2 {
		t.Errorf("the check asked %d time(s), want it to ask again while the server reloads", n)
	}
}
