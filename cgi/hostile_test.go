package main

import (
	"bytes"
	"fmt"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProxyHeaderChangesNothing (httpoxy): a visitor's Proxy: header
// reaches a CGI as HTTP_PROXY. The counter makes no outgoing requests, so
// it must answer exactly as without it and never connect to the "proxy".
func TestProxyHeaderChangesNothing(t *testing.T) {
	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	connected := make(chan struct{}, 1)
	go func() {
		if c, err := proxy.Accept(); err == nil {
			connected <- struct{}{}
			c.Close()
		}
	}()
	// Two copies of one database, so that both hits draw the same count.
	db, _ := grownDB(t, t.TempDir())
	twin := filepath.Join(t.TempDir(), "counter.db")
	copyFile(t, db, twin)
	before := checkSound(t, db)
	proxyEnv := []string{"HTTP_PROXY=http://" + proxy.Addr().String(), "http_proxy=http://" + proxy.Addr().String()}
	plain, _ := runCGI(t, hitEnv(t, db))
	proxied, stderr := runCGI(t, append(hitEnv(t, twin), proxyEnv...))
	if proxied.status != plain.status || stderr != "" || fmt.Sprint(proxied.header) != fmt.Sprint(plain.header) {
		t.Errorf("with a Proxy header: status %d, header %v, stderr %q; want %d, %v as without", proxied.status, proxied.header, stderr, plain.status, plain.header)
	}
	if _, err := png.Decode(bytes.NewReader(proxied.body)); err != nil || !bytes.Equal(proxied.body, plain.body) {
		t.Errorf("with a Proxy header: a %d-byte body (%v), want the very image drawn without it (%d bytes)", len(proxied.body), err, len(plain.body))
	}
	for _, f := range []string{db, twin} {
		if got := checkSound(t, f); got != before+1 {
			t.Errorf("%s: %d hits, want %d", f, got, before+1)
		}
	}
	select {
	case <-connected:
		t.Errorf("the counter connected to the proxy a visitor named")
	case <-time.After(100 * time.Millisecond):
	}
}

// copyFile copies the file at from to a new file at to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMegabyteLoginIsRefusedAtOnce posts a login of 1 MiB to the built
// binary: 413 at once, bcrypt never runs, and the process uses about as
// much memory as for a small wrong password.
func TestMegabyteLoginIsRefusedAtOnce(t *testing.T) {
	db, _ := grownDB(t, t.TempDir())
	if out, code := adminStdin(t, db, "a good password\n", "passwd", "demo"); code != 0 {
		t.Fatalf("passwd: %s", out)
	}
	post := func(body string) (cgiAnswer, string, int64, time.Duration) {
		cmd := exec.Command(counterBinary(t))
		cmd.Env = append(hitEnv(t, db), "REQUEST_METHOD=POST", "PATH_INFO=/demo/login",
			"CONTENT_TYPE=application/x-www-form-urlencoded", fmt.Sprintf("CONTENT_LENGTH=%d", len(body)),
			"HTTP_SEC_FETCH_SITE=same-origin", "COUNTER_RUN_DIR="+t.TempDir())
		cmd.Stdin = strings.NewReader(body)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		peak := underGNUTime(t, cmd)
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("exit: %v; %s", err, stderr.String())
		}
		took := time.Since(start)
		return parseCGI(t, out.Bytes()), stderr.String(), peak() >> 10, took
	}
	small, smallLog, smallRSS, smallTook := post("password=wrong")
	if small.status != 401 || !strings.Contains(smallLog, "login failed") {
		t.Fatalf("small wrong password: %d %q", small.status, smallLog)
	}
	big, bigLog, bigRSS, took := post("password=" + strings.Repeat("a", 1<<20))
	if big.status != 413 || strings.Contains(bigLog, "login failed") || strings.Count(bigLog, "\n") != 1 {
		t.Errorf("1 MiB login: %d, log %q; want 413, one line, and no password check", big.status, bigLog)
	}
	// At once: no slower than a wrong password, which runs bcrypt.
	if took > 2*smallTook+time.Second {
		t.Errorf("1 MiB login answered after %v, a wrong password after %v", took, smallTook)
	}
	// Maxrss is in kB. The body must not be held: 1 MiB would show.
	if bigRSS > smallRSS+512 {
		t.Errorf("peak memory %d kB for 1 MiB, %d kB for a small login", bigRSS, smallRSS)
	}
	t.Logf("peak memory: %d kB for a wrong password, %d kB for a 1 MiB login refused in %v", smallRSS, bigRSS, took.Round(time.Millisecond))
}
