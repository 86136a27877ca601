package gateway

import (
	"sync"
	"time"
)

// idleTimeout is how long a kept FastCGI connection may wait for the web
// server's next request. It is longer than the web servers' own limits in
// the shipped configs (nginx's keepalive_timeout, Apache's ttl, both 60 s),
// so that the web server, not the counter, closes a connection it has let
// go idle: a connection closed by the counter just as the web server
// sends a request on it fails that request.
const idleTimeout = 2 * time.Minute

// keptConns are the FastCGI connections that wait between requests for
// the web server's next one, as nginx's keepalive and Apache's enablereuse
// keep them. A connection counts as idle only between the end of one
// answer and the first byte of the next request: nothing it carries is in
// hand, so closing it loses nothing. On shutdown every idle connection is
// closed at once, and busy ones when their request is answered, so that a
// restart does not wait for the web server to let them go; when every
// connection slot is taken, one idle connection gives its slot up.
type keptConns struct {
	mu      sync.Mutex
	closing bool
	idle    map[*fcgiConn]struct{}
}

func newKeptConns() *keptConns {
	return &keptConns{idle: map[*fcgiConn]struct{}{}}
}

// waitNext waits for the first byte of c's next request and says whether
// one came. It returns false at once when the server is shutting down,
// and when the web server closes the connection, when it stays idle for
// idleTimeout, or when shutdown or eviction wakes it.
func (k *keptConns) waitNext(c *fcgiConn) bool {
	k.mu.Lock()
	if k.closing {
		k.mu.Unlock()
		return false
	}
	k.idle[c] = struct{}{}
	k.mu.Unlock()

	c.conn.SetReadDeadline(time.Now().Add(idleTimeout))
	_, err := c.r.Peek(1)

	k.mu.Lock()
	delete(k.idle, c)
	k.mu.Unlock()
	// A wake-up may have set the deadline after the byte came; the caller
	// sets the request's own deadline before reading on.
	return err == nil
}

// shutdown wakes every idle connection so that it closes, and makes the
// busy ones close after the request in hand.
func (k *keptConns) shutdown() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closing = true
	for c := range k.idle {
		c.conn.SetReadDeadline(time.Now())
	}
}

// evictOne wakes one idle connection, if there is one, so that it closes
// and frees its slot for a connection waiting to be accepted.
func (k *keptConns) evictOne() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for c := range k.idle {
		c.conn.SetReadDeadline(time.Now())
		delete(k.idle, c) // woken once; the next eviction picks another
		return
	}
}
