package gateway

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/internal/logline"
)

// fastCGIUntil serves h as FastCGI on a unix socket until the returned
// stop is called; stop cancels the server and returns how long it took to
// return.
func fastCGIUntil(t testing.TB, h http.Handler) (sock string, stop func() time.Duration) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeFastCGI(ctx, ln, h, Options{Log: logline.New(io.Discard)}) }()
	stopped := false
	stop = func() time.Duration {
		if stopped {
			return 0
		}
		stopped = true
		began := time.Now()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeFastCGI returned %v after cancel, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("ServeFastCGI still running 10 s after cancel")
		}
		return time.Since(began)
	}
	t.Cleanup(func() { stop() })
	return sock, stop
}

// keptRequest sends one request on c that asks to keep the connection,
// and checks that it is answered 200.
func keptRequest(t *testing.T, c *fcgitest.Client, id uint16) {
	t.Helper()
	out, status, err := c.Request(id, true, fcgitest.Env("GET", "/demo.png", ""), nil, 0)
	if err != nil || status != fcgitest.RequestComplete {
		t.Fatalf("request %d: %v, protocol status %d", id, err, status)
	}
	if ans := fcgitest.MustParse(t, out); ans.Status != http.StatusOK {
		t.Fatalf("request %d: status %d, want 200", id, ans.Status)
	}
}

// closedByServer says whether the server closed c: a read ends with EOF
// or a reset, not with the client's own deadline.
func closedByServer(c *fcgitest.Client, within time.Duration) error {
	c.Conn.SetReadDeadline(time.Now().Add(within))
	_, err := io.ReadAll(c.R)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("still open")
	}
	return nil
}

// TestFastCGIShutdownClosesKeptConnections: nginx's keepalive and Apache's
// enablereuse keep idle connections open; a restart must not wait for the
// web server to let them go.
func TestFastCGIShutdownClosesKeptConnections(t *testing.T) {
	sock, stop := fastCGIUntil(t, new(echo))
	var clients []*fcgitest.Client
	for i := range 3 {
		c := fcgitest.MustDial(t, sock)
		keptRequest(t, c, 1)
		keptRequest(t, c, uint16(i+2)) // the connection carries a second
		clients = append(clients, c)
	}
	if took := stop(); took > time.Second {
		t.Errorf("shutdown took %v with idle kept connections, want well under a second", took)
	}
	for i, c := range clients {
		if err := closedByServer(c, time.Second); err != nil {
			t.Errorf("kept connection %d after shutdown: %v", i, err)
		}
	}
}

// blocking answers once release is closed, and says on entered that a
// request has reached it.
type blocking struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blocking) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.entered <- struct{}{}
	<-b.release
	w.Write([]byte("counted"))
}

// TestFastCGIShutdownAnswersTheRequestInHand: a request that has reached
// the handler when the shutdown begins is answered whole, and only then is
// its kept connection closed.
func TestFastCGIShutdownAnswersTheRequestInHand(t *testing.T) {
	h := &blocking{entered: make(chan struct{}, 1), release: make(chan struct{})}
	sock, stop := fastCGIUntil(t, h)
	c := fcgitest.MustDial(t, sock)
	answered := make(chan error, 1)
	go func() {
		out, status, err := c.Request(1, true, fcgitest.Env("GET", "/demo.png", ""), nil, 0)
		if err == nil && status != fcgitest.RequestComplete {
			err = errors.New("not complete")
		}
		if err == nil {
			if ans, perr := fcgitest.ParseAnswer(out); perr != nil || string(ans.Body) != "counted" {
				err = errors.New("answer " + string(out))
			}
		}
		answered <- err
	}()
	<-h.entered
	stopped := make(chan time.Duration, 1)
	go func() { stopped <- stop() }()
	time.Sleep(50 * time.Millisecond)
	select {
	case <-stopped:
		t.Fatal("shutdown returned with a request in hand")
	default:
	}
	close(h.release)
	if err := <-answered; err != nil {
		t.Fatalf("the request in hand: %v", err)
	}
	<-stopped
	if err := closedByServer(c, time.Second); err != nil {
		t.Errorf("its kept connection after shutdown: %v", err)
	}
}

// TestFastCGIIdleConnectionsGiveUpTheirSlots: when every connection slot
// is held by a kept connection that waits for its web server, a new
// connection is still served, at once: an idle one gives its slot up.
func TestFastCGIIdleConnectionsGiveUpTheirSlots(t *testing.T) {
	sock, _ := fastCGIUntil(t, new(echo))
	var idle []*fcgitest.Client
	for range maxConns {
		c := fcgitest.MustDial(t, sock)
		keptRequest(t, c, 1)
		idle = append(idle, c)
	}
	began := time.Now()
	c := fcgitest.MustDial(t, sock)
	keptRequest(t, c, 1)
	if took := time.Since(began); took > time.Second {
		t.Errorf("a new connection waited %v with every slot idle, want well under a second", took)
	}
	closed := 0
	for _, k := range idle {
		if closedByServer(k, 10*time.Millisecond) == nil {
			closed++
		}
	}
	if closed == 0 || closed > 2 {
		t.Errorf("%d idle connections closed to make room, want 1 (or 2, raced)", closed)
	}
}

// lockedBuffer is a log that a test reads while the server writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveFastCGIOn serves h as FastCGI on ln with o until the test ends.
func serveFastCGIOn(t *testing.T, ln net.Listener, h http.Handler, o Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeFastCGI(ctx, ln, h, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeFastCGI returned %v after cancel, want nil", err)
		}
	})
}

// TestFastCGIStrangersGiveWayToKeptConnections: the web server keeps a
// few connections; then strangers open 200 that send nothing, more than
// the process takes. A hit on a new connection is still answered within a
// second, and every connection the web server keeps still carries its
// next request: the strangers' connections gave their slots up first.
func TestFastCGIStrangersGiveWayToKeptConnections(t *testing.T) {
	const (
		kept      = 8
		strangers = 200
		maxWait   = time.Second
	)
	var log lockedBuffer
	sock := filepath.Join(t.TempDir(), "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serveFastCGIOn(t, ln, new(echo), Options{Log: logline.New(&log)})
	var held []*fcgitest.Client
	for range kept {
		c := fcgitest.MustDial(t, sock)
		keptRequest(t, c, 1)
		held = append(held, c)
	}
	var silent []*fcgitest.Client
	for range strangers {
		silent = append(silent, fcgitest.MustDial(t, sock))
	}
	time.Sleep(200 * time.Millisecond) // accepted, or waiting to be

	began := time.Now()
	c := fcgitest.MustDial(t, sock)
	keptRequest(t, c, 1)
	if took := time.Since(began); took > maxWait {
		t.Errorf("a hit behind %d silent connections took %v, want at most %v", strangers, took, maxWait)
	}
	for i, k := range held {
		began := time.Now()
		keptRequest(t, k, 2)
		if took := time.Since(began); took > maxWait {
			t.Errorf("kept connection %d: its next request took %v, want at most %v", i, took, maxWait)
		}
	}
	closed := 0
	for _, s := range silent {
		if closedByServer(s, time.Millisecond) == nil {
			closed++
		}
	}
	// Every slot the kept ones and the hit do not hold went to strangers.
	if want := strangers - (maxConns - kept - 1); closed < want {
		t.Errorf("%d silent connections closed, want at least %d", closed, want)
	}
	if !strings.Contains(log.String(), "to make room for others") {
		t.Errorf("log %q, want the connections closed to make room", log.String())
	}
}

// TestFastCGIDeadlinesBeforeTheRequest: a connection that sends nothing
// is closed once firstByteTimeout has passed, and one that sends its
// request a byte at a time once headTimeout has passed from its first
// byte, however often a byte comes; the handler sees neither, and the log
// has one line for them, not a line each.
func TestFastCGIDeadlinesBeforeTheRequest(t *testing.T) {
	const slack = time.Second // a loaded 2-core machine
	var log lockedBuffer
	sock := filepath.Join(t.TempDir(), "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	h := new(echo)
	serveFastCGIOn(t, ln, h, Options{Log: logline.New(&log)})

	// The whole request as a web server sends it, to drip.
	var req []byte
	for _, rec := range [][]byte{
		fcgitest.Record(fcgitest.BeginRequest, 1, []byte{0, fcgitest.Responder, 0, 0, 0, 0, 0, 0}),
		fcgitest.Record(fcgitest.Params, 1, fcgitest.Pairs(fcgitest.Env("GET", "/demo.png", ""))),
		fcgitest.Record(fcgitest.Params, 1, nil),
		fcgitest.Record(fcgitest.Stdin, 1, nil),
	} {
		req = append(req, rec...)
	}

	tests := []struct {
		name  string
		drip  bool
		limit time.Duration
	}{
		{"silent", false, firstByteTimeout},
		{"a byte every 100 ms", true, headTimeout},
	}
	var wg sync.WaitGroup
	for _, tc := range tests {
		wg.Go(func() {
			c := fcgitest.MustDial(t, sock)
			began := time.Now()
			closed := make(chan struct{})
			if tc.drip {
				go func() {
					for _, b := range req {
						select {
						case <-closed:
							return
						case <-time.After(100 * time.Millisecond):
						}
						if _, err := c.Conn.Write([]byte{b}); err != nil {
							return
						}
					}
				}()
			}
			err := closedByServer(c, tc.limit+2*slack)
			close(closed)
			took := time.Since(began)
			switch {
			case err != nil:
				t.Errorf("%s: %v after %v, want closed after %v", tc.name, err, took, tc.limit)
			case took < tc.limit-100*time.Millisecond || took > tc.limit+slack:
				t.Errorf("%s: closed after %v, want after %v", tc.name, took, tc.limit)
			}
		})
	}
	wg.Wait()
	if n := h.calls.Load(); n != 0 {
		t.Errorf("the handler served %d requests, want none", n)
	}
	if got := strings.Count(log.String(), "\n"); got != 1 || !strings.Contains(log.String(), "past the deadline") {
		t.Errorf("log %q, want one line on connections past the deadline", log.String())
	}
}

// TestFastCGIShutdownServesRequestsOnTheirWay: a restart closes the
// connections the web server keeps idle, but not a request on its way: a
// new connection's first, nor one on a kept connection whose first byte
// has come. systemd's restarts of the service lost hits before this.
func TestFastCGIShutdownServesRequestsOnTheirWay(t *testing.T) {
	sock, stop := fastCGIUntil(t, new(echo))
	fresh := fcgitest.MustDial(t, sock)
	begun := fcgitest.MustDial(t, sock)
	keptRequest(t, begun, 1)
	begin := fcgitest.Record(fcgitest.BeginRequest, 2, []byte{0, fcgitest.Responder, 0, 0, 0, 0, 0, 0})
	if _, err := begun.Conn.Write(begin[:1]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // accepted, and the byte read
	stopped := make(chan time.Duration, 1)
	go func() { stopped <- stop() }()
	time.Sleep(100 * time.Millisecond)

	if _, err := begun.Conn.Write(begin[1:]); err != nil {
		t.Fatal(err)
	}
	for _, rec := range [][]byte{fcgitest.Pairs(fcgitest.Env("GET", "/demo.png", "")), nil} {
		begun.Send(fcgitest.Params, 2, rec)
	}
	begun.Send(fcgitest.Stdin, 2, nil)
	if out, _, err := begun.Answer(2); err != nil || fcgitest.MustParse(t, out).Status != http.StatusOK {
		t.Errorf("the request begun on a kept connection: %v %.80q", err, out)
	}
	out, _, err := fresh.Request(1, false, fcgitest.Env("GET", "/demo.png", ""), nil, 0)
	if err != nil || fcgitest.MustParse(t, out).Status != http.StatusOK {
		t.Errorf("a new connection's first request: %v %.80q", err, out)
	}
	if took := <-stopped; took > 2*time.Second {
		t.Errorf("shutdown took %v", took)
	}
}
