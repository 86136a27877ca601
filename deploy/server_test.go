// Package deploy holds the tests that run counter.cgi under the real web
// servers, configured with the snippets shipped in this folder, so that a
// config the README tells owners to copy is a config that has been run.
package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// maxBody bounds what a test reads of any answer; counter images are a few kB.
const maxBody = 1 << 20

var counterBin struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if counterBin.dir != "" {
		os.RemoveAll(counterBin.dir)
	}
	os.Exit(code)
}

// buildCounter builds counter.cgi the way the README does, once per test
// run, and returns its path.
func buildCounter(t testing.TB) string {
	t.Helper()
	b := &counterBin
	b.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			b.err = fmt.Errorf("go toolchain not found: %w", err)
			return
		}
		if b.dir, b.err = os.MkdirTemp("", "counter-deploy-test-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "counter.cgi")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", b.path, "./cgi")
		cmd.Dir = ".." // the module root: a test runs in its package's folder
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./cgi: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// installCounter installs the binary into a fresh cgi-bin folder and
// returns that folder and the path of a database that does not exist yet.
func installCounter(t testing.TB) (cgiDir, dbPath string) {
	t.Helper()
	bin, err := os.ReadFile(buildCounter(t))
	if err != nil {
		t.Fatal(err)
	}
	cgiDir = filepath.Join(t.TempDir(), "cgi-bin")
	if err := os.Mkdir(cgiDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cgiDir, "counter.cgi"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return cgiDir, filepath.Join(t.TempDir(), "counter.db")
}

// admin runs an admin command of the installed binary from a "shell".
func admin(t testing.TB, cgiDir, dbPath string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(cgiDir, "counter.cgi"), append(args, "-db", dbPath)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GATEWAY_INTERFACE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("counter.cgi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// lighttpdBinary finds lighttpd, or skips the test; under CI=true a missing
// server is a failure, so that the real-server tests can never pass by
// not running.
func lighttpdBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("lighttpd"); err == nil {
		return p
	}
	// Debian installs it in /usr/sbin, which a user's PATH often lacks.
	if p, err := exec.LookPath("/usr/sbin/lighttpd"); err == nil {
		return p
	}
	const msg = "lighttpd not installed (apt-get install lighttpd)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true, so the real-server tests fail instead of skipping")
	}
	t.Skip(msg)
	return ""
}

// lighttpdServer is a lighttpd running in the foreground on loopback.
type lighttpdServer struct {
	URL         string
	ErrorLog    string
	BreakageLog string // CGI stderr
}

// startLighttpd starts lighttpd with the shipped counter.conf, serving the
// counter.cgi in cgiDir with the database at dbPath, and returns its base URL.
func startLighttpd(t testing.TB, cgiDir, dbPath string) (baseURL string) {
	t.Helper()
	return startLighttpdServer(t, cgiDir, dbPath).URL
}

// startLighttpdServer is startLighttpd, also telling where the logs are.
// The server is stopped when the test ends.
func startLighttpdServer(t testing.TB, cgiDir, dbPath string) *lighttpdServer {
	t.Helper()
	bin := lighttpdBinary(t)
	dir := t.TempDir()
	for _, p := range []string{dir, cgiDir, dbPath} {
		if strings.ContainsAny(p, "\"\\$") {
			t.Fatalf("path %q cannot be written into a lighttpd config", p)
		}
	}
	htdocs := filepath.Join(dir, "htdocs")
	if err := os.Mkdir(htdocs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(htdocs, "ok.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := &lighttpdServer{
		ErrorLog:    filepath.Join(dir, "error.log"),
		BreakageLog: filepath.Join(dir, "breakage.log"),
	}
	snippet := shippedSnippet(t, map[string]string{
		"/usr/lib/cgi-bin/":              cgiDir + "/",
		"/var/lib/counter/counter.db":    dbPath,
		"/var/log/lighttpd/breakage.log": srv.BreakageLog,
	})
	snippetPath := filepath.Join(dir, "counter.conf")
	if err := os.WriteFile(snippetPath, snippet, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range []string{srv.ErrorLog, srv.BreakageLog, filepath.Join(dir, "stderr.log")} {
				b, _ := os.ReadFile(p)
				t.Logf("--- %s:\n%s", p, b)
			}
		}
	})
	// A free port can be taken by someone else before lighttpd binds it.
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		conf := filepath.Join(dir, "lighttpd.conf")
		if err := os.WriteFile(conf, []byte(mainConfig(dir, htdocs, snippetPath, cgiDir, dbPath, port)), 0o644); err != nil {
			t.Fatal(err)
		}
		srv.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
		err := runLighttpd(t, bin, conf, dir, srv.URL)
		if err == nil {
			return srv
		}
		logs, _ := os.ReadFile(srv.ErrorLog)
		if attempt < 3 && bytes.Contains(logs, []byte("in use")) {
			continue
		}
		t.Fatal(err)
	}
}

// shippedSnippet returns deploy/lighttpd/counter.conf with each installed
// path replaced; a path that is no longer in the file fails the test rather
// than leaving it to touch the real system.
func shippedSnippet(t testing.TB, replace map[string]string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("lighttpd", "counter.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for old, repl := range replace {
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("lighttpd/counter.conf no longer mentions %s", old)
		}
		b = bytes.ReplaceAll(b, []byte(old), []byte(repl))
	}
	return b
}

// mainConfig is a minimal lighttpd.conf around the shipped snippet, plus the
// alias and the rewrite that the README documents.
func mainConfig(dir, htdocs, snippet, cgiDir, dbPath string, port int) string {
	return fmt.Sprintf(`server.modules       = ( "mod_rewrite" )
server.document-root = "%[2]s"
server.errorlog      = "%[1]s/error.log"
server.pid-file      = "%[1]s/lighttpd.pid"
server.bind          = "127.0.0.1"
server.port          = %[6]d

# lighttpd matches path and query, so $1 carries the query string along
url.rewrite-once = ( "^/counter/(.*)$" => "/cgi-bin/counter.cgi/$1" )

include "%[3]s"

$HTTP["url"] =~ "^/hits/counter\.cgi(/|$)" {
	alias.url += ( "/hits/" => "%[4]s/" )
	cgi.assign = ( ".cgi" => "" )
	setenv.add-environment = ( "COUNTER_DB" => "%[5]s" )
}
`, dir, htdocs, snippet, cgiDir, dbPath, port)
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runLighttpd checks conf, starts lighttpd in the foreground, registers its
// stop, and waits until it serves a static file.
func runLighttpd(t testing.TB, bin, conf, dir, baseURL string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, "-tt", "-f", conf).CombinedOutput(); err != nil {
		return fmt.Errorf("lighttpd -tt -f %s: %v\n%s", conf, err, out)
	}
	stderr, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.Command(bin, "-D", "-f", conf)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start lighttpd: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			return fmt.Errorf("lighttpd exited at start: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := client.Get(baseURL + "/ok.txt")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return nil
			}
		}
	}
	stop()
	return fmt.Errorf("lighttpd did not answer on %s within 10s", baseURL)
}

// noCacheHeaders are what every counter image must carry, exactly once each.
var noCacheHeaders = map[string]string{
	"Cache-Control":          "no-cache, no-store, must-revalidate, max-age=0",
	"Pragma":                 "no-cache",
	"Expires":                "0",
	"X-Content-Type-Options": "nosniff",
}

func checkNoCache(h http.Header) error {
	for k, want := range noCacheHeaders {
		if got := h.Values(k); len(got) != 1 || got[0] != want {
			return fmt.Errorf("%s: got %q, want [%q]", k, got, want)
		}
	}
	return nil
}

// get sends one request and reads the whole (bounded) answer.
func get(ctx context.Context, client *http.Client, method, url string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	return resp, body, err
}

// jsonCount reads a counter's total through the server, counting nothing.
func jsonCount(t testing.TB, baseURL, name string) uint64 {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, body, err := get(context.Background(), client, http.MethodGet, baseURL+"/cgi-bin/counter.cgi/"+name+".json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name  string
		Count *uint64
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil || got.Name != name || got.Count == nil {
		t.Fatalf("GET /%s.json: got %d %q, want 200 {\"name\":%q,\"count\":N}", name, resp.StatusCode, body, name)
	}
	return *got.Count
}
