package main

import (
	"bytes"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/testenv"
	"hitcounter/store"
)

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
	if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
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
	if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
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
			c.Env = testenv.OwnRunDir(t, env)
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
