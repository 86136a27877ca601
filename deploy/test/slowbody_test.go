package test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLighttpdFastCGISlowBodies runs lighttpd with the FastCGI snippet and
// server.stream-request-body = 2, so that lighttpd hands the counter each
// request as soon as its headers are in and streams the body as it comes.
// 128 clients (as many as the process takes connections) each send half a
// login form and stop; a hit sent then must still be answered at once.
func TestLighttpdFastCGISlowBodies(t *testing.T) {
	const (
		slow    = 128
		hits    = 5
		maxWait = 2 * time.Second // a hit takes milliseconds; the margin is for a busy machine
	)
	bin := serverBinary(t, "lighttpd", lighttpdBins...)
	cgiDir, dbPath := installCounter(t)
	admin(t, cgiDir, dbPath, "create", "demo", "reload=off") // one client, every hit counts
	srv := startLighttpdWith(t, bin, cgiDir, dbPath, true, nil, "server.stream-request-body = 2")
	addr := strings.TrimPrefix(srv.URL, "http://")

	form := "password=" + strings.Repeat("x", 200)
	head := "POST /cgi-bin/counter.cgi/demo/login HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
		"Content-Type: application/x-www-form-urlencoded\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(form))
	conns := make([]net.Conn, 0, slow)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range slow {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := c.Write([]byte(head + form[:len(form)/2])); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // for lighttpd to pass them all on

	client := &http.Client{Timeout: 40 * time.Second}
	var took []time.Duration
	for range hits {
		start := time.Now()
		resp, _, err := get(context.Background(), client, http.MethodGet, srv.URL+"/cgi-bin/counter.cgi/demo.png")
		d := time.Since(start)
		took = append(took, d)
		if err != nil {
			t.Fatalf("hit behind %d slow bodies: %v after %v", slow, err, d)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("hit behind %d slow bodies: status %d, want 200", slow, resp.StatusCode)
		}
	}
	t.Logf("hits behind %d slow bodies took %v (slowest %v)", slow, took, slices.Max(took))
	if d := slices.Max(took); d > maxWait {
		t.Errorf("slowest hit behind %d slow bodies took %v, want at most %v", slow, d, maxWait)
	}

	// The bodies past the counter's reserve were refused at once, not held.
	var refused atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			c.SetReadDeadline(time.Now().Add(500 * time.Millisecond)) // answered long ago, if at all
			if status, err := bufio.NewReader(c).ReadString('\n'); err == nil && strings.Contains(status, " 503 ") {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	t.Logf("%d of %d slow bodies refused with 503", refused.Load(), slow)
	if refused.Load() == 0 {
		t.Errorf("no slow body refused with 503: the test did not reach the counter's bound")
	}
	if got := jsonCount(t, srv.URL, "demo"); got != hits {
		t.Errorf("count %d, want %d", got, hits)
	}
}
