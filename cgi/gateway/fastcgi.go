package gateway

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"hitcounter/cgi/internal/logline"
)

// A FastCGI responder of its own, speaking the FastCGI 1.0 protocol to the
// web server (lighttpd's mod_fastcgi, Apache's mod_fcgid) over the socket it
// hands the process as standard input.
//
// net/http/fcgi is not used: it builds the request from REQUEST_URI and
// hides SCRIPT_NAME and PATH_INFO from the handler, which routes on
// PATH_INFO exactly as under CGI; it answers an environment it cannot parse
// with 500 rather than 400; and it drains up to 100 MiB of an unread body.
// Here the parameters go through serveEnv, the same step as CGI, and every
// size is bounded.

// errAborted is a request the web server gave up on.
var errAborted = errors.New("fastcgi: request aborted by the web server")

// ServeFastCGI answers FastCGI requests on ln until ctx ends, then waits
// for the requests in hand to finish; connections that the web server
// keeps for further requests are closed then as soon as they are idle.
func ServeFastCGI(ctx context.Context, ln net.Listener, h http.Handler, o Options) error {
	bodies := &bodySlots{slots: make(chan struct{}, maxBodyConns)}
	held := newHeldBytes(o.Log)
	waiting := newWaitingConns(o.Log)
	defer context.AfterFunc(ctx, waiting.shutdown)()
	// Connections' buffers (about 74 KB each) are kept for the next
	// connection: lighttpd opens one for every request.
	conns := sync.Pool{New: func() any {
		return &fcgiConn{r: bufio.NewReader(nil), w: bufio.NewWriter(nil)}
	}}
	return acceptLoop(ctx, ln, func(conn net.Conn) {
		defer conn.Close()
		defer waiting.started()()
		c := conns.Get().(*fcgiConn)
		defer conns.Put(c)
		c.reset(conn)
		defer c.reset(nil)
		c.loginsAs = peerClientOf(conn, o)
		c.held = held
		// A cut answer's cause is the handler's to log; connections
		// dropped before a whole request are logged in sum.
		if err := c.serve(h, o, bodies, waiting); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errCut) && !errors.Is(err, errDropped) {
			o.Log.Printf("%v", err)
		}
	}, waiting.evictOne)
}

// reset readies c for conn, or lets go of its connection when conn is nil.
func (c *fcgiConn) reset(conn net.Conn) {
	c.conn, c.id, c.keep = conn, 0, false
	c.r.Reset(conn)
	c.w.Reset(conn)
}

// fcgiConn is one connection from the web server. Requests on it are
// served one after another; a server that tries to multiplex is told it
// cannot.
type fcgiConn struct {
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
	buf  [fcgiMaxContent + 255]byte // one record's content and padding
	// stdout is where a streamed answer goes, kept here so that a hit
	// makes no writer of its own.
	stdout connWriter

	id   uint16 // the request in hand, 0 between requests
	keep bool   // keep the connection after it

	// loginsAs is the one client every login on this connection counts
	// as, when the connection does not vouch for REMOTE_ADDR (PeerClient).
	loginsAs string
	// held is the process's budget for big writes (heldBytes).
	held *heldBytes
}

// serve answers requests until the web server closes the connection or
// asks for it to be closed, or, while it waits for a request, until its
// deadline passes or waiting lets it go.
func (c *fcgiConn) serve(h http.Handler, o Options, bodies *bodySlots, waiting *waitingConns) error {
	for kept := false; ; kept = true {
		timeout := firstByteTimeout
		if kept {
			timeout = idleTimeout
		}
		if !waiting.wait(c, kept, timeout) {
			return nil
		}
		c.conn.SetWriteDeadline(time.Now().Add(connTimeout))
		more, err := c.serveOne(h, o, bodies, waiting)
		if errors.Is(err, errAborted) {
			// The protocol asks for an end-request record; the answer the
			// handler may have made is dropped.
			more, err = c.keep, c.end(c.id, fcgiRequestComplete)
		}
		if err != nil || !more {
			return err
		}
	}
}

// serveOne answers one request and says whether the connection may carry
// another. A request with a body takes one of the body slots until its
// body has come, for at most bodyTimeout, or is refused at once when there
// is none.
func (c *fcgiConn) serveOne(h http.Handler, o Options, bodies *bodySlots, waiting *waitingConns) (bool, error) {
	env, err := c.readParams()
	if !waiting.leave(c, err) {
		return false, errDropped
	}
	if err != nil {
		return false, err
	}
	// The body, or the empty record that says there is none, comes
	// within bodyTimeout of the parameters.
	readBy := time.Now().Add(bodyTimeout)
	c.conn.SetReadDeadline(readBy)
	body := &fcgiBody{c: c, done: func() {}}
	if hasBody(env) {
		release, ok := bodies.take(o.Log)
		if !ok {
			return false, c.answer(busyAnswer(cgiForm))
		}
		// Freed as soon as the body is in, not when the answer is: a login
		// held back for a refused client keeps its connection, not a slot.
		body.done = sync.OnceFunc(release)
		defer body.done()
		body.want, _ = strconv.ParseInt(env["CONTENT_LENGTH"], 10, 64)
	}
	rw := newResponse(cgiForm)
	c.stdout = connWriter{conn: c.conn, w: stdoutRecords{c: c, flush: true}}
	rw.out, rw.held = &c.stdout, c.held
	if c.loginsAs != "" {
		h = peerClientHandler{h, c.loginsAs}
	}
	serveEnv(rw, h, env, body, o)
	// A handler slower than the body's deadline (a hit that waited for
	// the lock, a long export) does not cost the answer: what is left of
	// the request, the empty record the web server sent long ago, may
	// still be read for a moment.
	if now := time.Now(); now.Add(drainGrace).After(readBy) {
		c.conn.SetReadDeadline(now.Add(drainGrace))
	}
	// Read what is left of the body, within a bound, so the next
	// request on the connection starts at a record boundary.
	if _, err := io.Copy(io.Discard, io.LimitReader(body, maxDrain)); err != nil {
		return false, err
	}
	switch {
	case rw.cut:
		// Closed without the request's end: the web server sees the
		// answer broken off, and so does the client.
		return false, errCut
	case errors.Is(rw.err, ErrBusy):
		err = c.answer(busyAnswer(cgiForm)) // nothing of the answer went
	case rw.err != nil:
		return false, fmt.Errorf("fastcgi: %w", rw.err)
	case rw.streaming:
		err = c.finish()
	default:
		err = c.answer(rw)
	}
	if err != nil {
		return false, err
	}
	return c.keep && body.eof, nil
}

// stdoutRecords writes an answer as the request's stdout records, into
// the connection's buffer, with no copy of the whole answer: a streamed
// one is flushed each write as it comes (flush), so that the process
// holds no more of it than the piece the handler wrote; one sent whole
// goes with the request's end.
type stdoutRecords struct {
	c     *fcgiConn
	flush bool
}

func (s stdoutRecords) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		n := min(len(rest), fcgiMaxContent)
		if err := s.c.write(fcgiStdout, s.c.id, rest[:n]); err != nil {
			return 0, err
		}
		rest = rest[n:]
	}
	if s.flush {
		if err := s.c.w.Flush(); err != nil {
			return 0, fmt.Errorf("fastcgi: write: %w", err)
		}
	}
	return len(p), nil
}

// bodySlots bounds the requests whose bodies are on their way, and logs
// the ones it refuses at most once a second.
type bodySlots struct {
	slots chan struct{}

	mu         sync.Mutex
	refused    int
	lastLogged time.Time
}

// take takes a slot and returns the function that frees it, or counts a
// refusal.
func (b *bodySlots) take(log *logline.Logger) (release func(), ok bool) {
	select {
	case b.slots <- struct{}{}:
		return func() { <-b.slots }, true
	default:
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refused++
	if now := time.Now(); now.Sub(b.lastLogged) >= time.Second {
		log.Printf("fastcgi: %d requests with a body refused: %d are on their way already", b.refused, maxBodyConns)
		b.refused, b.lastLogged = 0, now
	}
	return nil, false
}

// hasBody says whether a request may come with a body that the web server
// streams as it arrives (lighttpd's server.stream-request-body, a proxy):
// a client that sends it slowly holds the connection until bodyTimeout.
func hasBody(env map[string]string) bool {
	if n := env["CONTENT_LENGTH"]; n != "" && n != "0" {
		return true
	}
	m := env["REQUEST_METHOD"]
	return m != http.MethodGet && m != http.MethodHead
}

// busyAnswer is the answer, its status line in form, to a request
// refused for want of a slot, whose body need not be read as the
// connection is closed after it, or of memory for its answer (ErrBusy).
func busyAnswer(form string) *response {
	rw := newResponse(form)
	rw.Header().Set("Retry-After", "5")
	http.Error(rw, "server busy, try again", http.StatusServiceUnavailable)
	return rw
}

// readParams reads records up to the end of a request's parameters and
// returns them.
func (c *fcgiConn) readParams() (map[string]string, error) {
	c.id = 0
	var params []byte
	for {
		rec, err := c.read()
		if err != nil {
			return nil, err
		}
		switch {
		case rec.typ == fcgiBeginRequest && c.id == 0:
			if len(rec.content) < 3 {
				return nil, errors.New("fastcgi: short begin-request record")
			}
			if role := binary.BigEndian.Uint16(rec.content); role != fcgiResponder {
				if err := c.end(rec.id, fcgiUnknownRole); err != nil {
					return nil, err
				}
				continue
			}
			c.id, c.keep = rec.id, rec.content[2]&fcgiKeepConn != 0
		case rec.typ == fcgiParams && rec.id == c.id && c.id != 0:
			if len(rec.content) == 0 {
				return parseParams(params)
			}
			if len(params)+len(rec.content) > maxRequestSize {
				return nil, fmt.Errorf("fastcgi: parameters over %d bytes", maxRequestSize)
			}
			params = append(params, rec.content...)
		case rec.typ == fcgiAbortRequest && rec.id == c.id && c.id != 0:
			return nil, errAborted
		default:
			if err := c.other(rec); err != nil {
				return nil, err
			}
		}
	}
}

// other answers a record that is not part of the request in hand.
func (c *fcgiConn) other(rec fcgiRecord) error {
	var err error
	switch {
	case rec.typ == fcgiGetValues:
		err = c.getValues(rec.content)
	case rec.typ == fcgiBeginRequest && rec.id == c.id:
		// Another begin for the request in hand: a web server's mistake.
		// An end-request for that id would end the live request, so
		// nothing is sent.
		return nil
	case rec.typ == fcgiBeginRequest:
		return c.end(rec.id, fcgiCantMpxConn)
	case rec.id == 0:
		err = c.write(fcgiUnknownType, 0, []byte{rec.typ, 0, 0, 0, 0, 0, 0, 0})
	default:
		return nil // a stray record of another request: ignored
	}
	if err == nil {
		err = c.w.Flush()
	}
	return err
}

// getValues tells the web server that this process takes one request per
// connection and up to maxConns connections, and the doctor whom logins
// on this connection count against (LoginClientValue).
func (c *fcgiConn) getValues(query []byte) error {
	asked, err := parseParams(query)
	if err != nil {
		return err
	}
	known := map[string]string{
		"FCGI_MAX_CONNS":  fmt.Sprint(maxConns),
		"FCGI_MAX_REQS":   fmt.Sprint(maxConns),
		"FCGI_MPXS_CONNS": "0",
		LoginClientValue:  loginClientMode(c.loginsAs),
	}
	var out []byte
	for name := range asked {
		if v, ok := known[name]; ok {
			out = appendParam(out, name, v)
		}
	}
	return c.write(fcgiGetValuesResult, 0, out)
}

// answer sends rw, an answer that did not stream, in CGI form as the
// request's standard output, and ends the request.
func (c *fcgiConn) answer(rw *response) error {
	if err := rw.writeWhole(stdoutRecords{c: c}); err != nil {
		return err
	}
	return c.finish()
}

// finish ends the request's standard output and the request.
func (c *fcgiConn) finish() error {
	if err := c.write(fcgiStdout, c.id, nil); err != nil {
		return err
	}
	return c.end(c.id, fcgiRequestComplete)
}

// end sends an end-request record and flushes the connection.
func (c *fcgiConn) end(id uint16, status uint8) error {
	if err := c.write(fcgiEndRequest, id, []byte{0, 0, 0, 0, status, 0, 0, 0}); err != nil {
		return err
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("fastcgi: write: %w", err)
	}
	return nil
}

// read reads the next record from the web server into c.buf.
func (c *fcgiConn) read() (fcgiRecord, error) { return readRecord(c.r, c.buf[:]) }

// write writes one record to the web server, buffered.
func (c *fcgiConn) write(typ uint8, id uint16, content []byte) error {
	return writeRecord(c.w, typ, id, content)
}

// fcgiBody reads a request's standard input from its stdin records.
type fcgiBody struct {
	c    *fcgiConn
	rest []byte // unread content of the current record
	eof  bool
	err  error  // an abort or a broken connection, returned to every read
	done func() // called once the body is in, or never will be
	want int64  // the body's length, if the web server said (0 if not)
	got  int64
}

func (b *fcgiBody) Read(p []byte) (int, error) {
	for len(b.rest) == 0 {
		if b.eof {
			return 0, io.EOF
		}
		if b.err != nil {
			return 0, b.err
		}
		rec, err := b.c.read()
		switch {
		case err != nil:
			b.err = err
		case rec.typ == fcgiStdin && rec.id == b.c.id:
			b.rest = rec.content
			b.eof = len(rec.content) == 0
		case rec.typ == fcgiAbortRequest && rec.id == b.c.id:
			b.err = errAborted
		default:
			b.err = b.c.other(rec)
		}
		if b.eof || b.err != nil {
			b.done()
		}
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	// The handler reads no further than the length the web server gave,
	// so the end of the body is its length, not the empty record after.
	if b.got += int64(n); b.want > 0 && b.got >= b.want {
		b.done()
	}
	return n, nil
}
