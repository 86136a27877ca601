package gateway

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// bufferedResponse collects a handler's whole answer, so that the
// transports (CGI and the local server) write it in one go, with its
// length, once the handler is done. Every answer here is small and bounded.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newBufferedResponse() *bufferedResponse {
	return &bufferedResponse{header: http.Header{}}
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}

// writeCGI writes the answer in CGI form: a Status line, the headers, a
// blank line and the body.
func (b *bufferedResponse) writeCGI(w io.Writer, head bool) error {
	return b.write(w, "Status: ", head, nil)
}

// writeHTTP writes the answer as an HTTP/1.1 response that closes the
// connection.
func (b *bufferedResponse) writeHTTP(w io.Writer, head bool) error {
	return b.write(w, "HTTP/1.1 ", head, func(h http.Header) { h.Set("Connection", "close") })
}

func (b *bufferedResponse) write(w io.Writer, statusPrefix string, head bool, extra func(http.Header)) error {
	b.WriteHeader(http.StatusOK)
	h := b.header
	if h.Get("Content-Length") == "" && !head {
		h.Set("Content-Length", strconv.Itoa(b.body.Len()))
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	if extra != nil {
		extra(h)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s%d %s\r\n", statusPrefix, b.status, http.StatusText(b.status))
	h.Write(bw) // one line per header: Header.Write replaces newlines in values
	bw.WriteString("\r\n")
	if !head {
		bw.Write(b.body.Bytes())
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	return nil
}
