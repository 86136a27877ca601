package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startServer runs serveHTTP on a loopback port until the test ends.
func startServer(t *testing.T, a *app) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, ln, a.handler(), a.log) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveHTTP returned %v after cancel, want nil", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func TestLocalServer(t *testing.T) {
	a, _ := testApp(t, "demo")
	a.demo = true
	base := startServer(t, a)
	client := &http.Client{Timeout: 5 * time.Second}
	tests := []struct {
		method, path string
		status       int
		ct           string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8"},
		{"GET", "/demo.png", 200, "image/png"},
		{"HEAD", "/demo.svg", 200, "image/svg+xml"},
		{"GET", "/demo.json", 200, "application/json"},
		{"GET", "/nope.gif", 404, "image/gif"},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.ct {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, tc.ct)
		}
		if tc.method == "HEAD" && len(body) != 0 {
			t.Errorf("HEAD %s: %d bytes of body", tc.path, len(body))
		}
	}
	if got := a.total(t, "demo"); got != 1 {
		t.Errorf("total %d, want 1 (only the GET of demo.png counts)", got)
	}
}

func TestLocalServerRefusesGarbage(t *testing.T) {
	a, logs := testApp(t, "demo")
	base := startServer(t, a)
	for _, raw := range []string{
		"NOT HTTP\r\n\r\n",
		"GET /demo.png HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", maxRequestSize) + "\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(conn, raw)
		status, _ := bufio.NewReader(conn).ReadString('\n')
		conn.Close()
		if !strings.HasPrefix(status, "HTTP/1.1 400") {
			t.Errorf("%.20q: answered %q, want a 400", raw, status)
		}
	}
	if got := a.total(t, "demo"); got != 0 {
		t.Errorf("total %d, want 0", got)
	}
	if !strings.Contains(logs.String(), "bad request") {
		t.Errorf("log %q", logs.String())
	}
}

// TestServeCommand runs "counter.cgi serve" as a user would: it makes the
// demo counter on first start, says where it listens, and stops cleanly on
// SIGTERM.
func TestServeCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	cmd := exec.Command(counterBinary(t), "serve", "-addr", "127.0.0.1:0", "-db", db)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no address printed: %v; stderr %s", err, stderr.String())
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("no URL in %q", line)
	}
	url := strings.Fields(line[i:])[0]
	resp, err := http.Get(url + "demo.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"name":"demo","count":0}`+"\n" {
		t.Errorf("demo.json = %q", body)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v; stderr %s", err, stderr.String())
	}
}
