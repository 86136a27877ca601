package test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestServerHostileRequests sends what the internet sends through each real
// server: a Proxy: header (httpoxy), a hundred names that do not exist,
// and a path with a bad %-escape. None of it changes a count or the file,
// and every line the counter logs is one bounded line.
func TestServerHostileRequests(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "demo", "reload=off") // one client, every hit counts
		client := &http.Client{Timeout: 20 * time.Second}

		t.Run("proxy header", func(t *testing.T) {
			proxy, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer proxy.Close()
			connected := make(chan bool, 1)
			go func() {
				c, err := proxy.Accept()
				if err == nil {
					c.Close()
				}
				connected <- err == nil
			}()
			before := jsonCount(t, srv.URL, "demo")
			req, _ := http.NewRequest("GET", srv.URL+"/cgi-bin/counter.cgi/demo.png", nil)
			req.Header.Set("Proxy", "http://"+proxy.Addr().String())
			req.Header.Set("User-Agent", firefoxUA)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
				t.Errorf("with a Proxy header: %d %q, want 200 and a PNG", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if got := jsonCount(t, srv.URL, "demo"); got != before+1 {
				t.Errorf("count %d, want %d", got, before+1)
			}
			proxy.Close()
			if <-connected {
				t.Errorf("the counter connected to the proxy a visitor named")
			}
		})

		t.Run("unknown names", func(t *testing.T) {
			before, err := os.ReadFile(dbPath)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(3, 4))
			for i := range 100 {
				name := fmt.Sprintf("%016x", r.Uint64())[:1+r.IntN(16)]
				resp, _, err := get(context.Background(), client, "GET", srv.URL+"/cgi-bin/counter.cgi/"+name+".png")
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "image/png" {
					t.Fatalf("request %d for %q: %d %q, want 404 and a PNG", i, name, resp.StatusCode, resp.Header.Get("Content-Type"))
				}
			}
			if after, _ := os.ReadFile(dbPath); !bytes.Equal(before, after) {
				t.Errorf("100 unknown names changed the file: %d bytes, was %d", len(after), len(before))
			}
		})

		t.Run("bad escape", func(t *testing.T) {
			before := jsonCount(t, srv.URL, "demo")
			c, err := net.DialTimeout("tcp", strings.TrimPrefix(srv.URL, "http://"), 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(c, "GET /cgi-bin/counter.cgi/demo%%zz.png HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 400 {
				t.Errorf("bad escape: %d, want 400 (from the server or the counter)", resp.StatusCode)
			}
			if got := jsonCount(t, srv.URL, "demo"); got != before {
				t.Errorf("count %d, want %d", got, before)
			}
		})

		stderr, err := srv.CGIStderr()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			if len(l) > 1100 || !strings.HasPrefix(l, "counter: ") && l != "" {
				t.Errorf("log line %.200q: want one bounded line from the counter", l)
			}
		}
		if n := strings.Count(stderr, "no such counter"); n < 100 {
			t.Errorf("%d lines about unknown counters, want one for each of 100", n)
		}
	})
}
