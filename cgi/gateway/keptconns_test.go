package gateway

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"hitcounter/cgi/internal/fcgitest"
	"hitcounter/cgi/internal/logline"
)

// fastCGIUntil serves h as FastCGI on a unix socket until the returned
// stop is called; stop cancels the server and returns how long it took to
// return.
func fastCGIUntil(t *testing.T, h http.Handler) (sock string, stop func() time.Duration) {
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
