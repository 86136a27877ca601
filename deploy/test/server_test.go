// Package test holds the tests that run counter.cgi under the real web
// servers, configured with the snippets shipped in deploy/ (the owner's
// kit, one folder up), so that a config the README tells owners to copy is
// a config that has been run; and the tests of the kit's scripts.
package test

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

	"hitcounter/cgi/testenv"
)

// Paths from this folder, where go test runs the tests.
const (
	// repoRoot is the module's root: go build and go run run there.
	repoRoot = "../.."
	// kitDir is deploy/, the owner's kit: install.sh, build.sh and the
	// server and fail2ban configs.
	kitDir = ".."
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
// run, and returns its path: the hit binary (./cgi/hit) in DIR/bin, with
// the full tool (./cgi) and counter-themedecode beside it, as build.sh's
// dist/ has them for install.sh, and in DIR/counter, where counter.cgi
// finds the tool from DIR/bin (../counter/counter-tool), as
// /usr/lib/cgi-bin/counter.cgi finds /usr/lib/counter/counter-tool.
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
		// Run by root, theme add starts the decoder as nobody, who must
		// reach it.
		if b.err = os.Chmod(b.dir, 0o755); b.err != nil {
			return
		}
		bin, lib := filepath.Join(b.dir, "bin"), filepath.Join(b.dir, "counter")
		for _, d := range []string{bin, lib} {
			if b.err = os.Mkdir(d, 0o755); b.err != nil {
				return
			}
		}
		b.path = filepath.Join(bin, "counter.cgi")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		for _, p := range []struct{ out, pkg string }{
			{b.path, "./cgi/hit"},
			{filepath.Join(bin, "counter-tool"), "./cgi"},
			// theme add's decoder, beside it, as build.sh puts it.
			{filepath.Join(bin, "counter-themedecode"), "./cgi/themedecode"},
		} {
			cmd := exec.CommandContext(ctx, goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", p.out, p.pkg)
			cmd.Dir = repoRoot
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.err = fmt.Errorf("go build %s: %v\n%s", p.pkg, err, out)
				return
			}
		}
		b.err = installTool(bin, lib)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// installTool copies the full tool and the decoder from folder from to
// folder lib, as install.sh puts them in /usr/lib/counter.
func installTool(from, lib string) error {
	for _, name := range []string{"counter-tool", "counter-themedecode"} {
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(lib, name), b, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// installCounter installs the binary into a fresh cgi-bin folder, and the
// full tool it runs for all but a hit into counter/ beside it, and returns
// that folder and the path of a database that does not exist yet.
func installCounter(t testing.TB) (cgiDir, dbPath string) {
	t.Helper()
	bin, err := os.ReadFile(buildCounter(t))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	cgiDir = filepath.Join(root, "cgi-bin")
	lib := filepath.Join(root, "counter")
	for _, d := range []string{cgiDir, lib} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := installTool(filepath.Dir(buildCounter(t)), lib); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cgiDir, "counter.cgi"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return cgiDir, filepath.Join(t.TempDir(), "counter.db")
}

// admin runs an admin command of the installed binary from a "shell". When
// the database's folder belongs to another user and this test may switch
// to it, the command runs as that user, as README step 3 does with
// sudo -u www-data: the file and its lock must belong to the user whose
// CGI writes them.
func admin(t testing.TB, cgiDir, dbPath string, args ...string) string {
	t.Helper()
	return adminStdin(t, cgiDir, dbPath, nil, args...)
}

// adminStdin is admin with stdin read from r (nil: no input), as when an
// owner pipes a password into passwd; a pipe is not a terminal, so passwd
// reads its first line.
func adminStdin(t testing.TB, cgiDir, dbPath string, r io.Reader, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(cgiDir, "counter.cgi"), append(args, "-db", dbPath)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GATEWAY_INTERFACE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = testenv.OwnRunDir(t, append(cmd.Env, "COUNTER_DB="+dbPath))
	cmd.Stdin = r
	if cred := ownerOf(t, filepath.Dir(dbPath)); cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("counter.cgi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ownerOf returns the owner of dir when that is not this process's user and
// this process is root, or else nil.
func ownerOf(t testing.TB, dir string) *syscall.Credential {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 || st.Uid == 0 {
		return nil
	}
	return &syscall.Credential{Uid: st.Uid, Gid: st.Gid}
}

// webServer is a real web server running counter.cgi in the foreground on
// loopback; it is stopped when the test that started it ends.
type webServer struct {
	Name   string // the set-up: "lighttpd", "apache", "lighttpd-fastcgi" or "apache-fastcgi"
	URL    string // the base URL, http://127.0.0.1:PORT
	CGILog string // the file that the CGI's stderr goes to (the FastCGI process's too)

	// cgiLine picks a line of the CGI's stderr out of a line of CGILog
	// and strips what the server put around it; nil keeps every line.
	cgiLine func(line string) (string, bool)

	// service is the counter's FastCGI service of a set-up in front of
	// one, nil for the others.
	service *counterService
	// sockPath is the socket of a service the test did not start (the
	// init script's), if any.
	sockPath string
	// htdocs is the document root, where a test may put pages; set by
	// the servers that run an installed configuration.
	htdocs string
}

// sock returns the FastCGI service's socket that the server is pointed at.
func (w *webServer) sock() string {
	if w.service != nil {
		return w.service.sock
	}
	return w.sockPath
}

// CGIStderr returns what counter.cgi wrote to stderr so far about the
// requests, a line for each line it wrote, whatever the server adds
// around those lines: a FastCGI process's one line at start, which names
// its build, is left out (TestServiceRestarts counts those).
func (s *webServer) CGIStderr() (string, error) {
	b, err := os.ReadFile(s.CGILog)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for line := range strings.Lines(string(b)) {
		l, ok := strings.TrimSuffix(line, "\n"), true
		if s.cgiLine != nil {
			l, ok = s.cgiLine(l)
		}
		if ok && !isStartLine(l) {
			out.WriteString(l + "\n")
		}
	}
	return out.String(), nil
}

// isStartLine says whether line is the one a FastCGI process logs when it
// starts: "counter: fastcgi: counter.cgi VERSION…, serving".
func isStartLine(line string) bool {
	return strings.HasPrefix(line, "counter: fastcgi: counter.cgi ") && strings.HasSuffix(line, ", serving")
}

// servers are the set-ups that eachServer runs each check under: each web
// server with the binary as CGI, and again as FastCGI.
var servers = []struct {
	name   string
	bins   []string // where Debian installs the server; the first found is run
	pkg    string   // the Debian package to install when none is found
	needs  []string // other files the set-up needs, from package modPkg
	modPkg string
	start  func(t testing.TB, bin, cgiDir, dbPath string) *webServer
}{
	{"lighttpd", lighttpdBins, "lighttpd", nil, "", startLighttpd},
	{"apache", apacheBins, "apache2", nil, "", startApache},
	{"lighttpd-fastcgi", lighttpdBins, "lighttpd", nil, "", startLighttpdFastCGI},
	{"apache-fastcgi", apacheBins, "apache2", []string{apacheFcgidModule}, "libapache2-mod-fcgid", startApacheFastCGI},
	{"apache-service", apacheBins, "apache2", []string{apacheModuleDir + "/mod_proxy_fcgi.so"}, "apache2", startApacheService},
	{"nginx-service", nginxBins, "nginx", nil, "", startNginxService},
	{"caddy-service", caddyBins, "caddy", nil, "", startCaddyService},
}

// Where Debian installs the servers; a user's PATH often lacks /usr/sbin.
var (
	lighttpdBins = []string{"lighttpd", "/usr/sbin/lighttpd"}
	apacheBins   = []string{"apache2", "/usr/sbin/apache2"}
)

// eachServer runs check once under each set-up of the real web servers, as
// a subtest named after it ("lighttpd", "apache", "lighttpd-fastcgi",
// "apache-fastcgi"), one after the other. Each
// subtest gets a fresh cgi-bin folder holding counter.cgi (cgiDir), the
// path of a database that does not exist yet (dbPath), and the server,
// started on loopback with the snippet the README tells owners to copy
// (counter.conf or counter-fastcgi.conf of deploy/lighttpd or
// deploy/apache, paths substituted) plus the /hits/ alias and the
// /counter/ rewrite.
//
// This is where a new real-server check goes (stats pages, login, ...):
// write a TestServerXxx that calls eachServer, and inside check
//   - make counters and set passwords with admin(t, cgiDir, dbPath, ...),
//     which runs as the user the server runs the CGI as (not root under
//     Apache), so the files it creates stay writable for the CGI;
//   - send requests to srv.URL + "/cgi-bin/counter.cgi/...", or through
//     "/hits/counter.cgi/..." (alias) and "/counter/..." (rewrite);
//   - read the CGI's stderr with srv.CGIStderr (never CGILog itself:
//     Apache's error log holds its own lines too);
//   - open the database in-process only read-only and only once admin has
//     made it: a root test that creates the file or its .lock first would
//     leave them unwritable for Apache's CGI.
//
// A server that is not installed skips its subtest, except under CI=true,
// where it fails.
func eachServer(t *testing.T, check func(t *testing.T, srv *webServer, cgiDir, dbPath string)) {
	t.Helper()
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			bin := serverBinary(t, s.pkg, s.bins...) // skip before building anything
			for _, f := range s.needs {
				needFile(t, s.modPkg, f)
			}
			cgiDir, dbPath := installCounter(t)
			check(t, s.start(t, bin, cgiDir, dbPath), cgiDir, dbPath)
		})
	}
}

// serverBinary finds a server's binary, or skips the test; under CI=true a
// missing server is a failure, so that the real-server tests can never
// pass by not running.
func serverBinary(t testing.TB, pkg string, names ...string) string {
	t.Helper()
	// Debian installs servers in /usr/sbin, which a user's PATH often lacks.
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	skipOutsideCI(t, fmt.Sprintf("%s not installed (apt-get install %s)", names[0], pkg))
	return ""
}

// needFile skips the test if a file that a package installs is missing,
// or fails it under CI=true.
func needFile(t testing.TB, pkg, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	skipOutsideCI(t, fmt.Sprintf("%s not installed (apt-get install %s)", path, pkg))
}

// skipOutsideCI skips a test that cannot run here, except under CI=true,
// where it fails: a test of real parts must never pass by not running.
func skipOutsideCI(t testing.TB, msg string) {
	t.Helper()
	testenv.Skip(t, msg)
}

// serverDir makes the folder for a server's config, logs and runtime
// files, with an htdocs/ok.txt that tells when the server is up.
func serverDir(t testing.TB, cgiDir, dbPath string) (dir, htdocs string) {
	t.Helper()
	dir = t.TempDir()
	for _, p := range []string{dir, cgiDir, dbPath} {
		// Written into configs, some of them unquoted.
		if strings.ContainsAny(p, "\"\\$ \t\n") {
			t.Fatalf("path %q cannot be written into a server config", p)
		}
	}
	htdocs = filepath.Join(dir, "htdocs")
	if err := os.Mkdir(htdocs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(htdocs, "ok.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, htdocs
}

// nginxScratch makes the folders under dir/temp where an nginx of the
// test's keeps request bodies and upstreams' answers, and returns the
// lines of its http block that name them, and for its main block the
// user its workers run as: as root, the user that needs no other to read
// the test's files (the workers only read them).
func nginxScratch(t testing.TB, dir string) (user, temps string) {
	t.Helper()
	var lines []string
	for _, d := range []string{"body", "fastcgi", "proxy", "uwsgi", "scgi"} {
		p := filepath.Join(dir, "temp", d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		key := d + "_temp_path"
		if d == "body" {
			key = "client_body_temp_path"
		}
		lines = append(lines, key+" "+p+";")
	}
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	return user, strings.Join(lines, "\n\t")
}

// shippedSnippet returns a config file of this folder with each installed
// path replaced; a path that is no longer in the file fails the test rather
// than leaving it to touch the real system.
func shippedSnippet(t testing.TB, name string, replace map[string]string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for old, repl := range replace {
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s no longer mentions %s", name, old)
		}
		pairs = append(pairs, old, repl)
	}
	// One pass, so that a replacement is never replaced again.
	return []byte(strings.NewReplacer(pairs...).Replace(string(b)))
}

// dumpOnFailure logs the files when the test has failed, for the server's
// side of the story.
func dumpOnFailure(t testing.TB, files ...string) {
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range files {
				b, _ := os.ReadFile(p)
				t.Logf("--- %s:\n%s", p, b)
			}
		}
	})
}

// onFreePort calls start with a free loopback port and returns the base
// URL it serves. A free port can be taken by someone else before the
// server binds it: when one of logs then says so, it tries again, up to
// three times in all.
func onFreePort(t testing.TB, logs []string, start func(port int, baseURL string) error) string {
	t.Helper()
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		baseURL := fmt.Sprintf("http://127.0.0.1:%d", port)
		err := start(port, baseURL)
		if err == nil {
			return baseURL
		}
		inUse := false
		for _, p := range logs {
			b, _ := os.ReadFile(p)
			inUse = inUse || bytes.Contains(b, []byte("in use"))
		}
		if attempt < 3 && inUse {
			continue
		}
		t.Fatal(err)
	}
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

// checkConfig runs a server's own config check (lighttpd -tt, apache2 -t).
func checkConfig(cmd *exec.Cmd) error {
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return nil
}

// runServer starts cmd, a server in the foreground, with its output to
// stderrPath, registers its stop, and waits until it serves /ok.txt. The
// stop also waits for the processes of the counter binary at counterPath,
// which a FastCGI set-up keeps running between requests (as the full tool,
// toolOf, which counter.cgi execs): the server must end them, and they
// must exit when asked.
func runServer(t testing.TB, cmd *exec.Cmd, stderrPath, baseURL, counterPath string) error {
	t.Helper()
	name := filepath.Base(cmd.Path)
	stderr, err := os.Create(stderrPath)
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stderr, stderr
	// Its own process group: if it does not stop, it and the workers and
	// CGIs it started are killed together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if pids := append(waitGone(counterPath, 10*time.Second), waitGone(toolOf(counterPath), 10*time.Second)...); len(pids) > 0 {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("%s stopped, but counter.cgi (pid %v) still ran 10s later; killed", name, pids)
		}
	}
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			return fmt.Errorf("%s exited at start: %v", name, err)
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
	return fmt.Errorf("%s did not answer on %s within 10s", name, baseURL)
}

// waitGone waits up to timeout for every process running the executable
// at path to exit, and returns those still running then.
func waitGone(path string, timeout time.Duration) []int {
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		pids := testenv.ProcessesOf(path)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
	}
}

// toolOf is the full tool that counter.cgi at path runs for all but a
// hit, a FastCGI process among them: ../counter/counter-tool from its
// folder, as /usr/lib/counter/counter-tool from /usr/lib/cgi-bin.
func toolOf(path string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(path)), "counter", "counter-tool")
}

// apacheModules are what the generated apache2.conf loads from Debian's
// module folder: Debian's default MPM and the CGI module that
// `a2enmod cgi` picks for it, and what the shipped snippet (ScriptAlias,
// SetEnv, Require), the /hits/ alias and the /counter/ rewrite need.
var apacheModules = []string{"mpm_event", "cgid", "authz_core", "alias", "env", "mime", "rewrite"}

func checkNoCache(h http.Header) error {
	for k, want := range noCacheHeaders {
		if got := h.Values(k); len(got) != 1 || got[0] != want {
			return fmt.Errorf("%s: got %q, want [%q]", k, got, want)
		}
	}
	return nil
}

// get sends one request, as a browser, and reads the whole (bounded)
// answer.
func get(ctx context.Context, client *http.Client, method, url string) (*http.Response, []byte, error) {
	return getWith(ctx, client, method, url)
}

// getWith is get with more headers, as name, value pairs; a User-Agent
// among them replaces the browser's.
func getWith(ctx context.Context, client *http.Client, method, url string, header ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, nil, err
	}
	// Go's own User-Agent is a client library's, which the counter
	// tallies as a bot.
	req.Header.Set("User-Agent", firefoxUA)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
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
