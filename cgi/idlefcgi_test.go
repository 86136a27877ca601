package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
)

// TestFastCGIIdleConnectionsHoldNoHitBack runs the built binary as a
// FastCGI service, as a web server does, with 4 connections the web
// server keeps between requests; then opens 200 connections that send
// nothing, more than the process serves at once. A hit on a new
// connection is answered within a second, and so is the next request on
// each kept connection; the process's threads and open files stay within
// fixed bounds; and once the idle connections' deadline has passed, the
// server has closed every one of them.
//
// Before, each idle connection held a slot until its 30 s deadline, and
// 130 of them held a hit back for 28 s.
func TestFastCGIIdleConnectionsHoldNoHitBack(t *testing.T) {
	const (
		idle    = 200
		kept    = 4
		maxWait = time.Second
		// The gateway's bounds (gateway.maxConns, firstByteTimeout): a
		// connection a slot, and the accept loop's one in hand.
		maxConns  = 128
		firstByte = 5 * time.Second
		// Fixed bounds over the process before the idle connections:
		// their files, and the runtime's few threads more.
		moreFiles   = maxConns + 2
		moreThreads = 6
	)
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db)
	pid := cmd.Process.Pid
	if n := fcgiHits(t, sock, 20, 4); n != 20 {
		t.Fatalf("%d of 20 warm-up hits answered", n)
	}
	var held []*fcgitest.Client
	for range kept {
		c := fcgitest.MustDial(t, sock)
		keptHit(t, c, 1)
		held = append(held, c)
	}
	base := sampleProcess(t, pid)
	t.Logf("before: %v", base)

	var silent []*fcgitest.Client
	for range idle {
		silent = append(silent, fcgitest.MustDial(t, sock))
	}
	time.Sleep(300 * time.Millisecond) // accepted, as many as may be
	during := sampleProcess(t, pid)

	began := time.Now()
	c := fcgitest.MustDial(t, sock)
	keptHit(t, c, 1)
	took := time.Since(began)
	t.Logf("a hit with %d idle connections open took %v; process %v", idle, took.Round(time.Millisecond), during)
	if took > maxWait {
		t.Errorf("a hit with %d idle connections open took %v, want at most %v", idle, took, maxWait)
	}
	for i, k := range held {
		began := time.Now()
		keptHit(t, k, 2)
		if took := time.Since(began); took > maxWait {
			t.Errorf("kept connection %d: its next hit took %v, want at most %v", i, took, maxWait)
		}
	}
	during = during.max(sampleProcess(t, pid))
	if during.files > base.files+moreFiles {
		t.Errorf("open files reached %d from %d, over the bound of %d more", during.files, base.files, moreFiles)
	}
	if during.threads > base.threads+moreThreads {
		t.Errorf("threads reached %d from %d, over the bound of %d more", during.threads, base.threads, moreThreads)
	}

	// Past the deadline for a first byte, every idle connection is closed.
	time.Sleep(firstByte - time.Since(began) + 500*time.Millisecond)
	open := 0
	for _, s := range silent {
		s.Conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := io.ReadAll(s.R)
		var ne net.Error
		if ok := err != nil && errors.As(err, &ne) && ne.Timeout(); ok {
			open++
		}
	}
	after := sampleProcess(t, pid)
	t.Logf("past the %v deadline: %d of %d idle connections still open; process %v", firstByte, open, idle, after)
	if open != 0 {
		t.Errorf("%d of %d idle connections still open after %v", open, idle, firstByte)
	}
	if after.files > base.files+2 {
		t.Errorf("open files %d after the deadline, from %d before the idle connections", after.files, base.files)
	}
	if got, want := countIn(t, db), uint64(20+kept*2+1); got != want {
		t.Errorf("count %d, want %d", got, want)
	}
	if t.Failed() {
		t.Logf("server's log: %.2000s", stderr)
	}
}

// keptHit sends one image hit on c, asking to keep the connection, and
// checks it is answered 200.
func keptHit(t *testing.T, c *fcgitest.Client, id uint16) {
	t.Helper()
	out, status, err := c.Request(id, true, fcgitest.Env("GET", "/demo.png", ""), nil, 0)
	if err != nil || status != fcgitest.RequestComplete {
		t.Fatalf("hit %d: %v, protocol status %d", id, err, status)
	}
	if ans := fcgitest.MustParse(t, out); ans.Status != 200 {
		t.Fatalf("hit %d: status %d, want 200", id, ans.Status)
	}
}

// TestFastCGIOverTCPLoginsCountAsOnePeer runs the built binary as
// `fastcgi -listen tcp:127.0.0.1:PORT` and sends 40 wrong passwords, each
// with another REMOTE_ADDR in another network, as any local user may over
// TCP: no more than one client's limit (5) reach bcrypt. With
// -only-web-server-connects each address is its own client again, and
// all 40 are checked. The start line and the doctor say which mode is on.
func TestFastCGIOverTCPLoginsCountAsOnePeer(t *testing.T) {
	const tries = 40
	tests := []struct {
		name        string
		flags       []string
		wantChecked int
		wantStart   string
		wantDoctor  string
	}{
		{"tcp", nil, 5, "all logins count as one client", "over tcp every login counts as one client"},
		{"tcp, only the web server connects", []string{"-only-web-server-connects"}, tries,
			"logins are limited per REMOTE_ADDR", "limited per REMOTE_ADDR, as -only-web-server-connects says"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, run := filepath.Join(dir, "counter.db"), filepath.Join(dir, "run")
			if out, err := adminRun(t, db, "create", "demo"); err != nil {
				t.Fatalf("create: %v %s", err, out)
			}
			if out, code := adminStdin(t, db, "a good password\n", "passwd", "demo"); code != 0 {
				t.Fatalf("passwd: %s", out)
			}
			addr := freeLoopbackPort(t)
			cmd := exec.Command(counterBinary(t), append([]string{"fastcgi", "-listen", "tcp:" + addr}, tc.flags...)...)
			cmd.Env = []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + run}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			dial := func() *fcgitest.Client {
				t.Helper()
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					c, err := fcgitest.DialNetwork("tcp", addr)
					if err == nil {
						return c
					}
					if time.Now().After(deadline) {
						t.Fatalf("the service never answered on %s: %v", addr, err)
					}
				}
			}

			form := []byte("password=wrong")
			statuses := map[int]int{}
			began := time.Now()
			for i := range tries {
				c := dial()
				out, err := c.PostForm("/demo/login", fmt.Sprintf("203.0.%d.7", 100+i), form)
				c.Conn.Close()
				if err != nil {
					t.Fatalf("try %d: %v", i, err)
				}
				statuses[fcgitest.MustParse(t, out).Status]++
			}
			took := time.Since(began)

			doctor, _ := adminStdinEnv(t, []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + run}, "", "doctor", "-max", "10s", "-socket", "tcp:"+addr)
			if !strings.Contains(doctor, tc.wantDoctor) {
				t.Errorf("doctor says:\n%s\nwant %q", doctor, tc.wantDoctor)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			log := stderr.String()
			checked := strings.Count(log, "login failed: ")
			t.Logf("%d wrong passwords with rotating REMOTE_ADDR in %v: %d reached bcrypt; answers %v", tries, took.Round(time.Millisecond), checked, statuses)
			if checked != tc.wantChecked || statuses[401] != tc.wantChecked || statuses[429] != tries-tc.wantChecked {
				t.Errorf("%d reached bcrypt, answers %v; want %d, and the rest 429", checked, statuses, tc.wantChecked)
			}
			if !strings.Contains(log, tc.wantStart) {
				t.Errorf("start line lacks %q: %.600s", tc.wantStart, log)
			}
		})
	}
}

// freeLoopbackPort returns a loopback address with a port that was free
// a moment ago, for a service that opens its own socket.
func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
