package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/internal/fcgitest"
	"hitcounter/store"
)

// dialFastCGI connects to a FastCGI responder until the test ends.
func dialFastCGI(t testing.TB, sock string) *fcgitest.Client {
	t.Helper()
	c, err := fcgitest.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Conn.Close() })
	return c
}

// startFastCGI serves a's handler as FastCGI on a unix socket until the
// test ends, and returns the socket's path.
func startFastCGI(t testing.TB, a *app) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	closeApp := a.longLived()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- gateway.ServeFastCGI(ctx, ln, a.handler(), gateway.Options{Log: a.log, Refuse: a.refuse})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeFastCGI returned %v after cancel, want nil", err)
		}
		closeApp()
	})
	return sock
}

func TestFastCGIServesTheApp(t *testing.T) {
	a, _ := testApp(t, "demo")
	c := dialFastCGI(t, startFastCGI(t, a))
	// Three requests on one kept connection, with ids as lighttpd and
	// mod_fcgid use them.
	for i, tc := range []struct {
		env    map[string]string
		status int
		ctype  string
	}{
		{fcgitest.Env("GET", "/demo.png", "digits=4"), 200, "image/png"},
		{fcgitest.Env("GET", "/demo.json", ""), 200, "application/json"},
		{fcgitest.Env("GET", "/nope.png", ""), 404, "image/png"},
	} {
		out, status, err := c.Request(uint16(i+1), true, tc.env, nil, 0)
		if err != nil || status != fcgitest.RequestComplete {
			t.Fatalf("request %d: %v, protocol status %d", i, err, status)
		}
		ans := parseCGI(t, out)
		if ans.status != tc.status || ans.header.Get("Content-Type") != tc.ctype {
			t.Errorf("%s: status %d %q, want %d %q", tc.env["PATH_INFO"], ans.status, ans.header.Get("Content-Type"), tc.status, tc.ctype)
		}
		if got := ans.header.Get("Content-Length"); got != fmt.Sprint(len(ans.body)) {
			t.Errorf("%s: Content-Length %s for %d bytes", tc.env["PATH_INFO"], got, len(ans.body))
		}
	}
	if n := a.total(t, "demo"); n != 1 {
		t.Errorf("count %d after one image and one JSON request, want 1", n)
	}
}

// TestFastCGIReadsBodyRecords posts a login form split over many stdin
// records, then a second request on the same connection: the body is read
// whole, and the next request starts where it should.
func TestFastCGIReadsBodyRecords(t *testing.T) {
	a, logs := testApp(t, "demo")
	protect(t, a, "demo", 4)
	c := dialFastCGI(t, startFastCGI(t, a))
	form := []byte("password=wrong+password&next=stats")
	env := fcgitest.Env("POST", "/demo/login", "",
		"CONTENT_TYPE", "application/x-www-form-urlencoded",
		"CONTENT_LENGTH", fmt.Sprint(len(form)),
		"HTTP_ORIGIN", "http://127.0.0.1",
		"HTTP_SEC_FETCH_SITE", "same-origin")
	out, _, err := c.Request(7, true, env, form, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ans := parseCGI(t, out); ans.status != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401; log %s", ans.status, logs)
	}
	if !strings.Contains(logs.String(), "login failed") {
		t.Errorf("no failed-login line in %q", logs)
	}
	out, _, err = c.Request(8, false, fcgitest.Env("GET", "/demo.json", ""), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ans := parseCGI(t, out); ans.status != 200 {
		t.Errorf("request after the post: status %d", ans.status)
	}
}

// startFastCGIBinary starts the built binary as a web server does, on a
// listening socket as its stdin, with the database at db and the extra
// environment, and returns the socket's path and the process.
func startFastCGIBinary(t *testing.T, db string, extra ...string) (string, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(counterBinary(t))
	cmd.Env = extra
	return startFastCGICommand(t, db, cmd)
}

// startFastCGICommand is startFastCGIBinary with the command that runs
// the binary (under strace, say), and the environment it already has.
func startFastCGICommand(t *testing.T, db string, cmd *exec.Cmd) (string, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := ln.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append([]string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}, cmd.Env...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = lf, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the child has its own copy, as under a web server
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return sock, cmd, &stderr
}

// fcgiHits sends n image hits from the given number of clients, a
// connection each, and returns how many were answered with 200.
func fcgiHits(t *testing.T, sock string, n, clients int) int64 {
	var answered, next atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				c, err := fcgitest.Dial(sock)
				if err != nil {
					t.Error(err)
					return
				}
				out, _, err := c.Request(1, false, fcgitest.Env("GET", "/demo.png", ""), nil, 0)
				c.Conn.Close()
				if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
					t.Errorf("hit: %v %.80q", err, out)
					return
				}
				answered.Add(1)
			}
		}()
	}
	wg.Wait()
	return answered.Load()
}

func countIn(t *testing.T, db string) uint64 {
	t.Helper()
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info, err := s.Counter("demo")
	if err != nil {
		t.Fatal(err)
	}
	return info.Count
}

// TestFastCGIKillLosesNoAnsweredHit sends 1,000 hits at 16 at a time to
// the built binary, then kills it with SIGKILL: every hit that was
// answered is in the file.
func TestFastCGIKillLosesNoAnsweredHit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db)
	const hits = 1000
	answered := fcgiHits(t, sock, hits, 16)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("server ended with %v, want killed", err)
	}
	if n := countIn(t, db); n != uint64(answered) || answered != hits {
		t.Errorf("count %d after %d answered hits (of %d sent) and SIGKILL; stderr %s", n, answered, hits, stderr)
	}
}

// TestFastCGISharesTheFile runs a FastCGI server, CGI processes and admin
// commands against one file at once: every hit of both kinds is counted,
// and each admin command finishes within the wait, though the server is
// busy throughout.
func TestFastCGISharesTheFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db)
	env := append(readEnv(t, "../testdata/cgienv/lighttpd-direct.env"), "COUNTER_DB="+db)
	var cgiHits atomic.Int64
	var fcgiAnswered int64
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); fcgiAnswered = fcgiHits(t, sock, 600, 8) }()
	go func() {
		defer wg.Done()
		for range 30 {
			c := exec.Command(counterBinary(t))
			c.Env = env
			out, err := c.Output()
			if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
				t.Errorf("CGI hit: %v %.80q", err, out)
				return
			}
			cgiHits.Add(1)
		}
	}()
	go func() {
		defer wg.Done()
		for range 5 {
			start := time.Now()
			if out, err := adminRun(t, db, "list"); err != nil || !strings.Contains(out, "demo") {
				t.Errorf("list while busy: %v %s", err, out)
			}
			if d := time.Since(start); d > store.DefaultWait {
				t.Errorf("list took %v, over the wait of %v", d, store.DefaultWait)
			}
		}
	}()
	wg.Wait()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("server after SIGTERM: %v; stderr %s", err, stderr)
	}
	if n, want := countIn(t, db), uint64(fcgiAnswered+cgiHits.Load()); n != want {
		t.Errorf("count %d, want %d FastCGI + %d CGI hits", n, fcgiAnswered, cgiHits.Load())
	}
}
