package test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// counterService runs counter.cgi fastcgi the way systemd runs
// counter.service on counter.socket: the test holds the listening socket,
// as systemd does, and hands it to the process as file descriptor 3 with
// LISTEN_FDS=1 and LISTEN_PID naming the process itself. Requests that
// come while no process runs wait in the socket's backlog.
type counterService struct {
	bin, dbPath string
	sock, log   string
	ln          *net.UnixListener
	cmd         *exec.Cmd
	exited      chan error
}

// newCounterService makes the socket in dir, which any local user may
// connect to (the shipped counter.socket lets the web server's user alone),
// for the counter.cgi in cgiDir on the database at dbPath.
func newCounterService(t testing.TB, dir, cgiDir, dbPath string) *counterService {
	t.Helper()
	s := &counterService{bin: filepath.Join(cgiDir, "counter.cgi"), dbPath: dbPath,
		sock: filepath.Join(dir, "fastcgi.sock"), log: filepath.Join(dir, "service.log")}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(s.sock, 0o666); err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	t.Cleanup(func() { ln.Close() })
	return s
}

// start starts the process on the socket, as the owner of the database's
// folder (www-data where a root test handed it over), its stderr appended
// to s.log; it is stopped when the test ends.
func (s *counterService) start(t testing.TB) {
	t.Helper()
	f, err := s.ln.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	// The shell's pid is the binary's after exec: LISTEN_PID is its own.
	cmd := exec.Command("/bin/sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" fastcgi`, s.bin)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C", "COUNTER_DB=" + s.dbPath, "COUNTER_RUN_DIR=" + testenv.RunDirOf(s.dbPath)}
	cmd.ExtraFiles = []*os.File{f}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cred := ownerOf(t, filepath.Dir(s.dbPath)); cred != nil {
		cmd.SysProcAttr.Credential = cred
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the service: %v", err)
	}
	s.cmd, s.exited = cmd, make(chan error, 1)
	go func(exited chan error) { exited <- cmd.Wait() }(s.exited)
	t.Cleanup(func() { s.stop(t) })
}

// stop sends SIGTERM, as systemctl stop does, and waits for the process
// to answer what it holds and exit.
func (s *counterService) stop(t testing.TB) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("the service exited with %v after SIGTERM", err)
		}
	case <-time.After(10 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
		t.Errorf("the service did not exit within 10s of SIGTERM; killed")
	}
	s.cmd = nil
}

// serviceSnippets writes into dir the shipped snippet at file (under
// deploy/), with replace's changes (such as the service's socket), and a
// copy of it for the README's /hits/ alias, made by hits; it returns their
// paths and the line of the /counter/ rewrite that the snippet shows in a
// comment, starting with rewrite.
func serviceSnippets(t testing.TB, dir string, file string, replace map[string]string, rewrite string, hits *strings.Replacer) (snippetPath, hitsPath, rewriteLine string) {
	t.Helper()
	snippet := string(shippedSnippet(t, filepath.Join(kitDir, file), replace))
	snippetPath = filepath.Join(dir, filepath.Base(file))
	hitsPath = filepath.Join(dir, "hits-"+filepath.Base(file))
	for path, text := range map[string]string{snippetPath: snippet, hitsPath: hits.Replace(snippet)} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for line := range strings.Lines(snippet) {
		if l := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#")); strings.HasPrefix(l, rewrite) {
			rewriteLine = l
		}
	}
	if rewriteLine == "" {
		t.Fatalf("%s shows no %q line", file, rewrite)
	}
	return snippetPath, hitsPath, rewriteLine
}

// nginxBins is where Debian installs nginx.
var nginxBins = []string{"nginx", "/usr/sbin/nginx"}

// startNginxService starts nginx (nginx -g 'daemon off;') on loopback with
// the shipped nginx/counter.conf included in its server block, in front
// of the counter's FastCGI service, plus the /hits/ alias and the
// /counter/ rewrite that the snippet shows in a comment.
func startNginxService(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, cgiDir, dbPath)
	svc := newCounterService(t, dir, cgiDir, dbPath)
	srv := &webServer{Name: "nginx-service", CGILog: svc.log, service: svc}
	errorLog, stderrLog := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log")
	snippetPath, hitsPath, rewrite := serviceSnippets(t, dir, "nginx/counter.conf", nil, "rewrite ^/counter/",
		strings.NewReplacer(`/cgi-bin/counter\.cgi`, `/hits/counter\.cgi`))
	// The upstream, which Debian's nginx.conf would include from conf.d.
	upstream := shippedSnippet(t, filepath.Join(kitDir, "nginx/counter-upstream.conf"), map[string]string{"/run/counter/fastcgi.sock": svc.sock})
	upstreamPath := filepath.Join(dir, "counter-upstream.conf")
	if err := os.WriteFile(upstreamPath, upstream, 0o644); err != nil {
		t.Fatal(err)
	}
	// Debian's fastcgi_params, which the snippet includes from beside
	// the main config, as from /etc/nginx.
	params := debianFile(t, "nginx-common", "/etc/nginx/fastcgi_params")
	if err := os.WriteFile(filepath.Join(dir, "fastcgi_params"), params, 0o644); err != nil {
		t.Fatal(err)
	}
	user, temps := nginxScratch(t, dir)
	letTraverse(t, dir)
	dumpOnFailure(t, errorLog, stderrLog, svc.log)
	srv.URL = onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, "nginx.conf")
		text := fmt.Sprintf(`daemon off;
%[6]s
worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 512; }
http {
	access_log off;
	%[9]s
	types { text/plain txt; text/html html; }
	include %[8]s;
	server {
		listen 127.0.0.1:%[2]d;
		root %[3]s;
		include %[4]s;
		include %[5]s;
		%[7]s
	}
}
`, dir, port, htdocs, snippetPath, hitsPath, user, rewrite, upstreamPath, temps)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		check := exec.CommandContext(ctx, bin, "-t", "-p", dir, "-e", errorLog, "-c", conf)
		if err := checkConfig(check); err != nil {
			return err
		}
		return runServer(t, exec.Command(bin, "-p", dir, "-e", errorLog, "-c", conf), stderrLog, baseURL, svc.bin)
	})
	svc.start(t)
	return srv
}

// caddyBins is where Debian installs Caddy.
var caddyBins = []string{"caddy", "/usr/bin/caddy"}

// startCaddyService starts Caddy (caddy run) on loopback with the shipped
// caddy/counter.caddy imported into its site, in front of the counter's
// FastCGI service, plus the /hits/ alias and the /counter/ rewrite that
// the snippet shows in a comment.
func startCaddyService(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, cgiDir, dbPath)
	svc := newCounterService(t, dir, cgiDir, dbPath)
	srv := &webServer{Name: "caddy-service", CGILog: svc.log, service: svc}
	stderrLog := filepath.Join(dir, "stderr.log")
	snippetPath, hitsPath, rewrite := serviceSnippets(t, dir, "caddy/counter.caddy", map[string]string{"/run/counter/fastcgi.sock": svc.sock}, "uri /counter/",
		strings.NewReplacer("/cgi-bin/counter.cgi", "/hits/counter.cgi", "@counter", "@hits"))
	dumpOnFailure(t, stderrLog, svc.log)
	// Caddy keeps its own files under $HOME and the XDG folders.
	env := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C", "HOME=" + dir,
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	srv.URL = onFreePort(t, []string{stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, "Caddyfile")
		text := fmt.Sprintf(`{
	admin off
	auto_https off
}

http://127.0.0.1:%[1]d {
	root * %[2]s
	import %[3]s
	import %[4]s
	%[5]s
	file_server
}
`, port, htdocs, snippetPath, hitsPath, rewrite)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		check := exec.CommandContext(ctx, bin, "validate", "--config", conf, "--adapter", "caddyfile")
		check.Env = env
		if err := checkConfig(check); err != nil {
			return err
		}
		cmd := exec.Command(bin, "run", "--config", conf, "--adapter", "caddyfile")
		cmd.Env = env
		return runServer(t, cmd, stderrLog, baseURL, svc.bin)
	})
	svc.start(t)
	return srv
}

// TestServiceRestarts sends 2,000 hits, 16 at a time, through each server
// in front of the service while the service is restarted three times, as
// systemctl restart does: SIGTERM, then a new process on the socket the
// test keeps open, as systemd keeps counter.socket. No hit may fail (a
// refused connection would be a 502), and the count must be exact: every
// hit answered was committed, by the process that answered it.
func TestServiceRestarts(t *testing.T) {
	const hits, inFlight, restarts = 2000, 16, 3
	eachServiceServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "rs", "reload=off")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		var done atomic.Int64
		restarted := make(chan int, 1)
		go func() {
			n := 0
			for n < restarts && ctx.Err() == nil {
				if done.Load() >= int64((n+1)*hits/(restarts+1)) {
					began := time.Now()
					srv.service.stop(t)
					stopped := time.Since(began)
					srv.service.start(t)
					n++
					t.Logf("restart %d: the old process took %v to stop", n, stopped.Round(time.Millisecond))
				}
				time.Sleep(time.Millisecond)
			}
			restarted <- n
		}()
		start := time.Now()
		sent := hitRS(t, srv, hits, inFlight, 20, func() { done.Add(1) })
		n := <-restarted
		t.Logf("%s: %d hits, %d at a time, %d restarts, in %v", srv.Name, sent, inFlight, n, time.Since(start).Round(time.Millisecond))
		if sent != hits || n != restarts {
			t.Fatalf("sent %d hits with %d restarts, want %d and %d", sent, n, hits, restarts)
		}
		if got := jsonCount(t, srv.URL, "rs"); got != hits {
			t.Errorf("count %d after %d hits answered, want %d: hits lost in a restart", got, hits, hits)
		}
		// Each process said once, at start, which build it is.
		b, _ := os.ReadFile(srv.service.log)
		starts := 0
		for line := range strings.Lines(string(b)) {
			if isStartLine(strings.TrimSuffix(line, "\n")) {
				starts++
			}
		}
		if starts != restarts+1 {
			t.Errorf("%d start-up lines in the service's log, want one a process (%d):\n%s", starts, restarts+1, b)
		}
	})
}

// eachServiceServer is eachServer for the set-ups in front of the service.
func eachServiceServer(t *testing.T, check func(t *testing.T, srv *webServer, cgiDir, dbPath string)) {
	t.Helper()
	for _, s := range servers {
		if !strings.HasSuffix(s.name, "-service") {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			bin := serverBinary(t, s.pkg, s.bins...)
			for _, f := range s.needs {
				needFile(t, s.modPkg, f)
			}
			cgiDir, dbPath := installCounter(t)
			check(t, s.start(t, bin, cgiDir, dbPath), cgiDir, dbPath)
		})
	}
}
