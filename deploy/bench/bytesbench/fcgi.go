package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"hitcounter/cgi/fcgitest"
)

// fcgiResult is one FastCGI load: hits answered with an image, and what
// the process wrote to the file meanwhile.
type fcgiResult struct {
	hits int64
	w    written
}

// loadFastCGI starts b's binary as lighttpd does (no arguments, a
// listening Unix socket as stdin) under strace, and sends it views of s's
// counter from clients at once for dur, each a new visitor's.
func loadFastCGI(b build, s scenario, db, dir string, clients int, dur time.Duration, net1 string) (fcgiResult, error) {
	var r fcgiResult
	sock := filepath.Join(dir, fmt.Sprintf("fcgi-%s.sock", net1))
	os.Remove(sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return r, err
	}
	defer os.Remove(sock)
	ln.SetUnlinkOnClose(false)
	lf, err := ln.File()
	ln.Close()
	if err != nil {
		return r, err
	}
	env := cgiEnv(db, s, "127.0.0.1")
	var plain []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GATEWAY_INTERFACE=") {
			plain = append(plain, kv)
		}
	}
	cmd, trace, err := tracedCmd(b.bin, lf, []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"), "PATH=/usr/bin:/bin"}, "")
	if err != nil {
		lf.Close()
		return r, err
	}
	defer os.Remove(trace)
	cmd.Stderr = io.Discard
	// A group of its own: stopped as one, strace and the counter.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return r, err
	}
	lf.Close()
	stopped := false
	defer func() {
		if !stopped {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		}
	}()
	// Wait for it to answer.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := fcgiGet(sock, env, "10.250.0.1"); err == nil {
			break
		} else if time.Now().After(deadline) {
			return r, fmt.Errorf("no answer: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Only the load's writes: the trace so far is the start's and the
	// first view's.
	before, err := readTrace(trace, db)
	if err != nil {
		return r, err
	}
	var hits atomic.Int64
	var firstErr atomic.Value
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				if err := fcgiGet(sock, plainAddr(plain, fmt.Sprintf("10.%d.%d.%d", 100+clients+c, i>>8&255, i&255)), ""); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				hits.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return r, err
	}
	// Every answer went out after its hit was on disk: what the load
	// wrote is in the trace.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	cmd.Wait()
	stopped = true
	after, err := readTrace(trace, db)
	if err != nil {
		return r, err
	}
	r.hits = hits.Load()
	r.w = written{bytes: after.bytes - before.bytes, syncs: after.syncs - before.syncs}
	return r, nil
}

// plainAddr is env with REMOTE_ADDR set to addr.
func plainAddr(env []string, addr string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "REMOTE_ADDR=") {
			out = append(out, kv)
		}
	}
	return append(out, "REMOTE_ADDR="+addr)
}

// fcgiGet sends one request with params env (REMOTE_ADDR set to addr when
// not "") on a connection of its own, as lighttpd does, and checks that
// the answer is an image.
func fcgiGet(sock string, env []string, addr string) error {
	if addr != "" {
		env = plainAddr(env, addr)
	}
	params := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		params[k] = v
	}
	c, err := fcgitest.Dial(sock)
	if err != nil {
		return err
	}
	defer c.Conn.Close()
	c.Conn.SetDeadline(time.Now().Add(30 * time.Second))
	out, _, err := c.Request(1, false, params, nil, 1)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if !bytes.Contains(out, []byte("Content-Type: image/")) {
		return fmt.Errorf("not an image: %.200q", out)
	}
	return nil
}
