package gateway

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// streamAfter is how much of an answer the transports hold back to send
// whole, with its length, once the handler is done. Every hit, page and
// login answer fits in it, and goes in one write as it always has; an
// answer that grows past it, a site's export, goes as it comes instead, so
// that what it costs the process does not grow with its length.
const streamAfter = 64 << 10

// streamTimeout bounds the time a client may take to read one streamed
// answer over a connection; each write of it may take connTimeout.
const streamTimeout = 10 * time.Minute

// errCut is a write to an answer that its handler has cut off.
var errCut = errors.New("answer cut off")

// response is the http.ResponseWriter of every transport. It holds the
// handler's answer until the handler is done, and the transport then
// writes it in one go with its length (writeWhole): nothing that matters
// happens after a web server has read a complete answer and stopped the
// process. An answer that grows past streamAfter, or that the handler
// flushes, streams instead where the transport gave it somewhere to go
// (out): its head goes then, without a length unless the handler set one,
// and its body as the handler writes it.
type response struct {
	header http.Header
	status int
	body   bytes.Buffer // the answer held back

	// Set by the transport before the handler runs.
	out       io.Writer  // where a streamed answer goes; nil holds every answer whole
	held      *heldBytes // what big writes of a long-lived server count against
	form      string     // the status line's start: "Status: " (CGI form) or "HTTP/1.1 "
	head      bool       // a HEAD request: no body is sent
	chunkable bool       // an HTTP/1.1 client: a body without a length goes in chunks

	streaming bool  // the head has gone out
	chunked   bool  // and the body goes in chunks
	cut       bool  // the handler cut the answer off after it began to go
	err       error // the first failure to send
}

const (
	cgiForm  = "Status: "
	httpForm = "HTTP/1.1 "
)

// newResponse returns an empty answer whose status line begins with form.
func newResponse(form string) *response {
	return &response{header: http.Header{}, form: form}
}

func (r *response) Header() http.Header { return r.header }

func (r *response) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *response) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	switch {
	case r.cut:
		return 0, errCut
	case r.err != nil:
		return 0, r.err
	case r.head:
		return len(p), nil
	case !r.streaming && (r.out == nil || r.body.Len()+len(p) <= streamAfter):
		return r.body.Write(p)
	}
	if len(p) > streamAfter && r.held != nil {
		// The handler holds p whole until it has gone, which a client
		// that does not read may make the whole of connTimeout.
		if !r.held.take(len(p)) {
			// Before the head went, the transport can still answer 503;
			// after, the answer can only be seen cut.
			r.cut = r.streaming
			r.err = ErrBusy
			return 0, ErrBusy
		}
		defer r.held.give(len(p))
	}
	if !r.streaming {
		if err := r.stream(); err != nil {
			return 0, err
		}
	}
	return r.send(p)
}

// Flush sends the head and what the handler wrote so far, where the
// answer may stream; the rest of the answer streams then.
func (r *response) Flush() {
	r.WriteHeader(http.StatusOK)
	if r.out != nil && !r.streaming && !r.cut && r.err == nil {
		r.stream()
	}
}

// stream sends the head and the body held back, and from then on sends
// the body as it is written, in chunks to an HTTP/1.1 client unless the
// handler gave its length, so that the client can tell a whole answer
// from one cut short.
func (r *response) stream() error {
	r.streaming = true
	r.chunked = r.chunkable && !r.head && r.header.Get("Content-Length") == ""
	if r.chunked {
		r.header.Set("Transfer-Encoding", "chunked")
	}
	bw := bufio.NewWriter(r.out)
	r.writeHead(bw)
	if err := bw.Flush(); err != nil {
		r.err = fmt.Errorf("write response: %w", err)
		return r.err
	}
	held := r.body.Bytes()
	r.body = bytes.Buffer{} // the memory goes with it
	if len(held) > 0 && !r.head {
		_, err := r.send(held)
		return err
	}
	return nil
}

// send writes p, a piece of a streamed answer's body.
func (r *response) send(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil // an empty chunk would end the body
	}
	var err error
	if r.chunked {
		_, err = fmt.Fprintf(r.out, "%x\r\n", len(p))
		if err == nil {
			_, err = r.out.Write(p)
		}
		if err == nil {
			_, err = io.WriteString(r.out, "\r\n")
		}
	} else {
		_, err = r.out.Write(p)
	}
	if err != nil {
		r.err = fmt.Errorf("write response: %w", err)
		return 0, r.err
	}
	return len(p), nil
}

// end finishes a streamed answer once the handler is done: its last chunk,
// unless the handler cut it off.
func (r *response) end() error {
	if r.err == nil && r.chunked && !r.cut {
		if _, err := io.WriteString(r.out, "0\r\n\r\n"); err != nil {
			r.err = fmt.Errorf("write response: %w", err)
		}
	}
	return r.err
}

// Cut breaks off the answer that w is writing, for a handler that fails
// halfway through a long one; w is a transport's ResponseWriter or wraps
// one with an Unwrap method, as http.ResponseController asks. What is held
// back is dropped. When part of the answer has gone out already, Cut
// reports true, and the transport ends the answer so that the client can
// tell it is cut short: over FastCGI the connection closes without the
// request's end, over HTTP/1.1 without the last chunk; a CGI process can
// only stop writing. Otherwise it reports false, and the handler may
// answer afresh, with an error say, from a clean slate.
func Cut(w http.ResponseWriter) bool {
	for {
		switch v := w.(type) {
		case *response:
			if v.streaming {
				v.cut = true
				return true
			}
			v.header, v.status, v.err = http.Header{}, 0, nil
			v.body.Reset()
			return false
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return false
		}
	}
}

// writeHead writes the status line and the headers.
func (r *response) writeHead(bw *bufio.Writer) {
	r.WriteHeader(http.StatusOK)
	h := r.header
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	if r.form == httpForm {
		h.Set("Connection", "close")
	}
	fmt.Fprintf(bw, "%s%d %s\r\n", r.form, r.status, http.StatusText(r.status))
	h.Write(bw) // one line per header: Header.Write replaces newlines in values
	bw.WriteString("\r\n")
}

// writeWhole writes an answer that did not stream, with its length: in
// CGI form (a Status line, the headers, a blank line and the body) or as
// an HTTP/1.1 response that closes the connection.
func (r *response) writeWhole(w io.Writer) error {
	if r.header.Get("Content-Length") == "" && !r.head {
		r.header.Set("Content-Length", strconv.Itoa(r.body.Len()))
	}
	bw := bufio.NewWriter(w)
	r.writeHead(bw)
	if !r.head {
		bw.Write(r.body.Bytes())
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	return nil
}

// connWriter writes a streamed answer to a connection: each write may
// take connTimeout, and all of them end within streamTimeout of the first.
type connWriter struct {
	conn net.Conn
	w    io.Writer // conn, or what frames the bytes on their way to it
	end  time.Time
}

func (c *connWriter) Write(p []byte) (int, error) {
	now := time.Now()
	if c.end.IsZero() {
		c.end = now.Add(streamTimeout)
	}
	deadline := now.Add(connTimeout)
	if deadline.After(c.end) {
		deadline = c.end
	}
	c.conn.SetWriteDeadline(deadline)
	return c.w.Write(p)
}
