package gateway

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/internal/logline"
)

// TestHeldBytes: the budget gives what it has, lets a few writes wait for
// bytes to come back within heldWait, refuses the rest at once, and lets
// a write bigger than all of it take all of it.
func TestHeldBytes(t *testing.T) {
	h := newHeldBytes(logline.New(io.Discard))
	if !h.take(maxHeldBytes) {
		t.Fatal("a write within the budget refused")
	}
	start := time.Now()
	if h.take(100) {
		t.Fatal("a write past the budget taken")
	}
	if took := time.Since(start); took < heldWait || took > heldWait+time.Second {
		t.Errorf("a refused write waited %v, want %v", took, heldWait)
	}

	// Waiters, and the one past them refused at once.
	got := make(chan bool, maxHeldWaiters)
	for range maxHeldWaiters {
		go func() { got <- h.take(100) }()
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		h.mu.Lock()
		n := h.waiting
		h.mu.Unlock()
		if n == maxHeldWaiters {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes waiting, want %d", n, maxHeldWaiters)
		}
	}
	start = time.Now()
	if h.take(100) || time.Since(start) > heldWait/2 {
		t.Errorf("a write past %d waiters: not refused at once", maxHeldWaiters)
	}
	h.give(maxHeldBytes)
	for range maxHeldWaiters {
		if !<-got {
			t.Error("a waiting write refused once the bytes came back")
		}
	}
	h.give(maxHeldWaiters * 100)
	if !h.take(4 * maxHeldBytes) {
		t.Error("a write bigger than the budget refused with all of it free")
	}
	if h.take(1) {
		t.Error("a write taken while one bigger than the budget holds it")
	}
	h.give(4 * maxHeldBytes)
	if h.free != maxHeldBytes {
		t.Errorf("%d bytes free at the end, want %d", h.free, maxHeldBytes)
	}
}

// bigWrite answers with one write of size bytes, after a short piece and
// a flush with flushFirst. A refused write is answered afresh, with a
// short 503 of its own, when afresh and Cut allows; started is told
// before the big write.
type bigWrite struct {
	size              int
	flushFirst, fresh bool
	started           chan<- struct{}
}

func (b bigWrite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	if b.flushFirst {
		io.WriteString(w, "<svg>")
		http.NewResponseController(w).Flush()
	}
	if b.started != nil {
		b.started <- struct{}{}
	}
	if _, err := w.Write(pattern(b.size)); err != nil && b.fresh && !Cut(w) {
		http.Error(w, "refused", http.StatusServiceUnavailable)
	}
}

// TestBigWritesShareOneBudget serves one answer bigger than the whole
// budget to a client that does not read, over FastCGI and HTTP: while it
// hangs, a short answer still goes at once; another big one is refused
// within heldWait with 503 and Retry-After (or the handler's own answer,
// when it answers afresh), or cut off when its head had gone; once the
// client is gone, a big one goes whole again.
func TestBigWritesShareOneBudget(t *testing.T) {
	const big = maxHeldBytes + 1<<20 // past what a socket's buffers take
	for _, tr := range []struct {
		name  string
		start func(t *testing.T, h http.Handler) string
		stuck func(t *testing.T, addr, path string) net.Conn
		get   func(t *testing.T, addr, path string) fetched
	}{
		{"FastCGI", func(t *testing.T, h http.Handler) string { return startFastCGI(t, h) },
			func(t *testing.T, addr, path string) net.Conn {
				c := fcgitest.MustDial(t, addr)
				c.Begin(1, false)
				c.Send(fcgitest.Params, 1, fcgitest.Pairs(fcgitest.Env("GET", path, "")))
				c.Send(fcgitest.Params, 1, nil)
				c.Send(fcgitest.Stdin, 1, nil)
				return c.Conn
			},
			func(t *testing.T, addr, path string) fetched {
				c := fcgitest.MustDial(t, addr)
				out, _, err := c.Request(1, false, fcgitest.Env("GET", path, ""), nil, 0)
				return parsedCGI(t, out, err)
			}},
		{"HTTP", startHTTP,
			func(t *testing.T, addr, path string) net.Conn {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close() })
				io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\n\r\n")
				return conn
			},
			func(t *testing.T, addr, path string) fetched {
				resp, err := (&http.Client{Timeout: 20 * time.Second}).Get("http://" + addr + path)
				if err != nil {
					return fetched{err: err}
				}
				defer resp.Body.Close()
				f := fetched{status: resp.StatusCode, length: resp.ContentLength}
				f.body, f.err = io.ReadAll(resp.Body)
				return f
			}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			mux := http.NewServeMux()
			mux.Handle("/stuck", bigWrite{size: big, started: started})
			mux.Handle("/big", bigWrite{size: big})
			mux.Handle("/fresh", bigWrite{size: big, fresh: true})
			mux.Handle("/after-head", bigWrite{size: big, flushFirst: true})
			mux.Handle("/short", pieces{size: 1000, piece: 1000})
			addr := tr.start(t, mux)

			stuck := tr.stuck(t, addr, "/stuck")
			<-started
			time.Sleep(100 * time.Millisecond) // its write under way, the budget taken

			start := time.Now()
			if f := tr.get(t, addr, "/short"); f.err != nil || f.status != 200 || !bytes.Equal(f.body, pattern(1000)) {
				t.Errorf("a short answer: %d, %d bytes, %v; want 200 and its 1000", f.status, len(f.body), f.err)
			}
			if took := time.Since(start); took > heldWait/2 {
				t.Errorf("a short answer took %v", took)
			}
			start = time.Now()
			if f := tr.get(t, addr, "/big"); f.err != nil || f.status != 503 || !strings.Contains(string(f.body), "busy") {
				t.Errorf("a big answer: %d, %q, %v; want the transport's 503", f.status, f.body, f.err)
			}
			if took := time.Since(start); took < heldWait || took > heldWait+2*time.Second {
				t.Errorf("the big answer was refused after %v, want %v", took, heldWait)
			}
			if f := tr.get(t, addr, "/fresh"); f.err != nil || f.status != 503 || string(f.body) != "refused\n" {
				t.Errorf("a big answer answered afresh: %d, %q, %v; want the handler's 503", f.status, f.body, f.err)
			}
			if f := tr.get(t, addr, "/after-head"); f.err == nil {
				t.Errorf("a big write after the head went: %d, %d bytes, whole; want it cut", f.status, len(f.body))
			}

			stuck.Close()
			if f := tr.get(t, addr, "/big"); f.err != nil || f.status != 200 || len(f.body) != big {
				t.Errorf("a big answer once the stuck client left: %d, %d bytes, %v; want 200 and %d", f.status, len(f.body), f.err, big)
			}
		})
	}
}
