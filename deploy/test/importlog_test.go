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

	"hitcounter/cgi/testenv"
)

// TestServerLogsImport has real lighttpd, Apache and nginx write their
// default access logs of requests this test sends for a page, then
// imports each log into a counter with a referrer list. The views, the
// reload, the bots (the test's own Go client that waited for the server,
// a crawler, Bluesky's link preview) and the referring hosts are what the
// test sent: lighttpd's log names the host asked for (its second field),
// so its views give their hosts to the referring sites and a host not on
// the list is foreign; Apache's and nginx's combined format names none,
// so every page's view counts and no referring host comes in. No log's
// Referer (where the reader came from) is a referring host.
func TestServerLogsImport(t *testing.T) {
	const (
		chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36"
		safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	)
	sent := []struct{ host, ua string }{
		{"blog.example", firefoxUA},  // a view by a new visitor
		{"blog.example", firefoxUA},  // a reload
		{"www.blog.example", safari}, // a view by another
		{"blog.example", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},                                                                  // a bot
		{"blog.example", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app) Chrome/W.X.Y.Z Safari/537.36"}, // a link preview
		{"mirror.example", chrome}, // a host not on the list
	}
	for _, tc := range []struct {
		name  string
		bins  []string
		pkg   string
		start func(t *testing.T, bin, cgiDir, dbPath, accessLog string) string
		want  []string // in the import's summary
		stats []string // in stats.json
	}{
		{"lighttpd", lighttpdBins, "lighttpd", func(t *testing.T, bin, cgiDir, dbPath, accessLog string) string {
			return startLighttpdWith(t, bin, cgiDir, dbPath, false, nil,
				`server.modules += ( "mod_accesslog" )`, `accesslog.filename = "`+accessLog+`"`, "").URL
		}, []string{"views: 0 -> 2; visitors: 0 -> 2", "referring hosts: 2 changed"},
			[]string{`"reloads":1`, `"bots":3`, `"foreign":1`, `{"host":"blog.example","views":1}`, `{"host":"www.blog.example","views":1}`}},
		{"apache", apacheBins, "apache2", startStaticApache,
			[]string{"views: 0 -> 3; visitors: 0 -> 3"},
			[]string{`"reloads":1`, `"bots":3`, `"foreign":0`, `"referrers":[]`}},
		{"nginx", nginxBins, "nginx", startStaticNginx,
			[]string{"views: 0 -> 3; visitors: 0 -> 3"},
			[]string{`"reloads":1`, `"bots":3`, `"foreign":0`, `"referrers":[]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := serverBinary(t, tc.pkg, tc.bins...)
			cgiDir, dbPath := installCounter(t)
			accessLog := filepath.Join(t.TempDir(), "access.log")
			url := tc.start(t, bin, cgiDir, dbPath, accessLog)
			client := &http.Client{Timeout: 10 * time.Second}
			for _, s := range sent {
				req, err := http.NewRequestWithContext(context.Background(), "GET", url+"/ok.txt", nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Host = s.host
				req.Header.Set("User-Agent", s.ua)
				req.Header.Set("Referer", "https://news.example/item?id=1")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("GET /ok.txt for %s: got %d, want 200", s.host, resp.StatusCode)
				}
			}
			// The first line is the request that waited for the server
			// to answer, with Go's User-Agent. A server may write its
			// log a moment later.
			var log []byte
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if log, _ = os.ReadFile(accessLog); strings.Count(string(log), "\n") >= len(sent)+1 {
					break
				}
			}
			if got := strings.Count(string(log), "\n"); got < len(sent)+1 {
				t.Fatalf("got %d lines of access log, want %d:\n%s", got, len(sent)+1, log)
			}
			admin(t, cgiDir, dbPath, "create", "page")
			admin(t, cgiDir, dbPath, "config", "page", "referrers=blog.example,*.blog.example")
			out := admin(t, cgiDir, dbPath, "import", "-log", accessLog, "-path", "/ok.txt", "page")
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("import: got\n%s\nwant %q in it\nlog:\n%s", out, want, log)
				}
			}
			if tc.name != "lighttpd" && strings.Contains(out, "referring hosts") {
				t.Errorf("import: got\n%s\nwant no referring hosts from a log that names no host", out)
			}
			stats := exportJSON(t, cgiDir, dbPath, "page")
			for _, want := range tc.stats {
				if !strings.Contains(stats, want) {
					t.Errorf("stats.json: got %s\nwant %s in it\nlog:\n%s", stats, want, log)
				}
			}
			// A page request's Referer is where a reader came from: a
			// source, not a page that showed the counter (a referrer).
			referrers, sources, _ := strings.Cut(stats, `"sources":`)
			if strings.Contains(referrers, "news.example") || !strings.Contains(sources, `"source":"news.example"`) {
				t.Errorf("stats.json: got %s\nwant news.example among the sources alone", stats)
			}
		})
	}
}

// exportJSON returns a counter's stats.json as the built binary answers it
// run as CGI, owner or not (stats.json is public unless a password is set).
func exportJSON(t *testing.T, cgiDir, dbPath, name string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(cgiDir, "counter.cgi"))
	cmd.Env = []string{"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=GET", "SERVER_PROTOCOL=HTTP/1.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=/" + name + "/stats.json", "REMOTE_ADDR=127.0.0.1",
		"HTTP_HOST=127.0.0.1", "COUNTER_DB=" + dbPath, "COUNTER_RUN_DIR=" + testenv.RunDirOf(dbPath)}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("stats.json: %v", err)
	}
	_, body, _ := strings.Cut(string(out), "\r\n\r\n")
	return body
}

// startStaticApache starts Apache serving a folder with ok.txt, and its
// access log in Debian's combined format (apache2.conf's LogFormat) at
// accessLog; it returns its base URL.
func startStaticApache(t *testing.T, bin, cgiDir, dbPath, accessLog string) string {
	dir, htdocs := serverDir(t, cgiDir, dbPath)
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	user, group := apacheUser(t, dir, cgiDir, filepath.Dir(dbPath))
	errorLog, stderrLog := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log")
	os.WriteFile(filepath.Join(dir, "mime.types"), nil, 0o644)
	dumpOnFailure(t, errorLog, stderrLog)
	return onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		conf := fmt.Sprintf(`ServerRoot "%[1]s"
DefaultRuntimeDir "%[2]s"
PidFile "%[2]s/apache2.pid"
Mutex file:%[2]s default
ErrorLog "%[3]s"
LogLevel warn
ServerName 127.0.0.1
Listen 127.0.0.1:%[4]d
LoadModule mpm_event_module %[7]s/mod_mpm_event.so
LoadModule authz_core_module %[7]s/mod_authz_core.so
LoadModule mime_module %[7]s/mod_mime.so
TypesConfig "%[1]s/mime.types"
AddType text/plain .txt
LogFormat "%%h %%l %%u %%t \"%%r\" %%>s %%O \"%%{Referer}i\" \"%%{User-Agent}i\"" combined
CustomLog "%[6]s" combined
DocumentRoot "%[5]s"
<Directory "%[5]s">
	Require all granted
</Directory>
`, dir, run, errorLog, port, htdocs, accessLog, apacheModuleDir)
		if user != "" {
			conf += fmt.Sprintf("User %s\nGroup %s\n", user, group)
		}
		path := filepath.Join(dir, "apache2.conf")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			return err
		}
		if err := checkConfig(exec.Command(bin, "-t", "-f", path)); err != nil {
			return err
		}
		return runServer(t, exec.Command(bin, "-DFOREGROUND", "-f", path), stderrLog, baseURL, filepath.Join(cgiDir, "counter.cgi"))
	})
}

// startStaticNginx starts nginx serving a folder with ok.txt, and its
// access log in its predefined combined format at accessLog; it returns
// its base URL.
func startStaticNginx(t *testing.T, bin, cgiDir, dbPath, accessLog string) string {
	dir, htdocs := serverDir(t, cgiDir, dbPath)
	user, temps := nginxScratch(t, dir)
	errorLog, stderrLog := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log")
	dumpOnFailure(t, errorLog, stderrLog)
	return onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, "nginx.conf")
		text := fmt.Sprintf(`daemon off;
%[5]s
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 64; }
http {
	access_log %[4]s combined;
	%[6]s
	types { text/plain txt; }
	server {
		listen 127.0.0.1:%[2]d;
		root %[3]s;
	}
}
`, dir, port, htdocs, accessLog, user, temps)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return err
		}
		if err := checkConfig(exec.Command(bin, "-t", "-p", dir, "-e", errorLog, "-c", conf)); err != nil {
			return err
		}
		return runServer(t, exec.Command(bin, "-p", dir, "-e", errorLog, "-c", conf), stderrLog, baseURL, filepath.Join(cgiDir, "counter.cgi"))
	})
}
