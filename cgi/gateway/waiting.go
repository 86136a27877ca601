package gateway

import (
	"errors"
	"os"
	"sync"
	"time"

	"hitcounter/cgi/internal/logline"
)

// Deadlines of a FastCGI connection before its request is in hand. A web
// server sends a request whole as soon as it has connected, or taken a
// kept connection: one that stays silent, or sends a request a few bytes
// at a time, is a stranger's, and is not let hold a connection slot for
// long.
const (
	// firstByteTimeout is how long a new connection may wait before its
	// first request begins.
	firstByteTimeout = 5 * time.Second
	// headTimeout is how long a request's begin and parameters records
	// may take, all of them, from its first byte: a deadline for the
	// whole of them, not for each read.
	headTimeout = 5 * time.Second
	// idleTimeout is how long a kept FastCGI connection may wait for the
	// web server's next request. It is longer than the web servers' own
	// limits in the shipped configs (nginx's keepalive_timeout, Apache's
	// ttl, both 60 s), so that the web server, not the counter, closes a
	// connection it has let go idle: a connection closed by the counter
	// just as the web server sends a request on it fails that request.
	idleTimeout = 2 * time.Minute
)

// errDropped is a connection closed before a request on it was whole:
// made to give its slot up, or past its deadline. It is logged in sum
// (waitingConns.logClosed), not one line each.
var errDropped = errors.New("fastcgi: connection closed before a whole request")

// waitingConns are the FastCGI connections that wait for a request: a new
// one until its first request's parameters are in, a kept one (nginx's
// keepalive, Apache's enablereuse) from the end of one answer to the end
// of the next request's parameters. No handler has seen anything such a
// connection carries, so closing it loses nothing.
//
// On shutdown every kept connection that waits for its next request is
// closed at once, and the others after the request in hand, so that a
// restart does not wait for the web server to let them go. When every connection slot is taken, one waiting
// connection gives its slot up: one that has never carried a request
// before any that has, so that strangers who connect and say nothing
// cannot push out the connections the web server keeps; and among those,
// the one that has waited longest.
type waitingConns struct {
	log *logline.Logger

	mu      sync.Mutex
	closing bool
	waiting map[*fcgiConn]waitState
	// live counts the connections being served, waiting or busy: one the
	// accept loop has handed on is not among them for a moment.
	live int
	// Closed before a whole request since the last log line: to make
	// room, and past a deadline.
	evicted, expired int
	lastLogged       time.Time
}

type waitState struct {
	since   time.Time // accepted, or its last answer sent
	kept    bool      // it has carried a request: the web server keeps it
	started bool      // the first byte of its request has come
}

// before says whether s gives its slot up before o: a connection that
// never carried a request before a kept one, then the longer waiting.
func (s waitState) before(o waitState) bool {
	if s.kept != o.kept {
		return !s.kept
	}
	return s.since.Before(o.since)
}

func newWaitingConns(log *logline.Logger) *waitingConns {
	return &waitingConns{log: log, waiting: map[*fcgiConn]waitState{}}
}

// started counts a connection being served until the function it
// returns is called.
func (w *waitingConns) started() (ended func()) {
	w.mu.Lock()
	w.live++
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		w.live--
		w.mu.Unlock()
	}
}

// wait enters c among the waiting connections and waits for the first
// byte of its next request, for at most timeout, and says whether one
// came; c then has headTimeout for the rest of the request's head. It
// says false when the web server closes the connection, when the time is
// up, or when eviction wakes it; and for a kept connection, at once when
// the server is shutting down, or when shutdown wakes it. A new
// connection is served through a shutdown: the web server connected to
// send a request, which it may have sent already.
func (w *waitingConns) wait(c *fcgiConn, kept bool, timeout time.Duration) bool {
	w.mu.Lock()
	if w.closing && kept {
		w.mu.Unlock()
		return false
	}
	now := time.Now()
	w.waiting[c] = waitState{since: now, kept: kept}
	c.conn.SetReadDeadline(now.Add(timeout))
	w.mu.Unlock()

	_, err := c.r.Peek(1)

	w.mu.Lock()
	defer w.mu.Unlock()
	if _, still := w.waiting[c]; !still {
		return false // evicted or shut down, maybe just as a byte came
	}
	if err != nil {
		delete(w.waiting, c)
		// A kept connection that the web server lets go idle is no
		// stranger's.
		if !kept && errors.Is(err, os.ErrDeadlineExceeded) {
			w.expired++
			w.logClosed()
		}
		return false
	}
	// Set here, under the lock, so that an eviction's deadline is never
	// overwritten.
	w.waiting[c] = waitState{since: now, kept: kept, started: true}
	c.conn.SetReadDeadline(time.Now().Add(headTimeout))
	return true
}

// leave takes c out of the waiting connections once its request's head
// has been read, with err the read's error, and says whether the request
// may go on: not when c was made to give its slot up meanwhile, or when
// its head did not come in time.
func (w *waitingConns) leave(c *fcgiConn, err error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, still := w.waiting[c]; !still {
		return false
	}
	delete(w.waiting, c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		w.expired++
		w.logClosed()
		return false
	}
	return true
}

// shutdown wakes every kept connection that waits for the web server's
// next request so that it closes, and makes the others close after the
// request in hand: a request whose first byte has come, and a new
// connection's first, are served (each within its deadlines).
func (w *waitingConns) shutdown() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closing = true
	for c, s := range w.waiting {
		if s.kept && !s.started {
			c.conn.SetReadDeadline(time.Now())
			delete(w.waiting, c)
		}
	}
}

// evictOne wakes one waiting connection, if there is one, so that it
// closes and frees its slot for a connection waiting to be accepted: the
// one that has waited longest of those that never carried a request, or
// if there is none, of the kept ones. A kept one is spared while a new
// connection has a slot but is not yet waiting: a flood of them must not
// push out a kept one just because they come faster than they start.
func (w *waitingConns) evictOne() {
	w.mu.Lock()
	defer w.mu.Unlock()
	var pick *fcgiConn
	var best waitState
	for c, s := range w.waiting {
		if pick == nil || s.before(best) {
			pick, best = c, s
		}
	}
	if pick == nil || best.kept && w.live < maxConns {
		return
	}
	pick.conn.SetReadDeadline(time.Now())
	delete(w.waiting, pick) // woken once; the next eviction picks another
	w.evicted++
	w.logClosed()
}

// logClosed tells the owner, at most once a second, how many connections
// were closed before a whole request: a flood of connections that say
// nothing shows as one line a second, not one a connection. w.mu is held.
func (w *waitingConns) logClosed() {
	now := time.Now()
	if now.Sub(w.lastLogged) < time.Second {
		return
	}
	w.log.Printf("fastcgi: %d connections closed before a whole request: %d to make room for others, %d past the deadline (%v to begin, %v for its parameters)",
		w.evicted+w.expired, w.evicted, w.expired, firstByteTimeout, headTimeout)
	w.evicted, w.expired, w.lastLogged = 0, 0, now
}
