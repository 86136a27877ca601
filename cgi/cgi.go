package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"strings"
)

// serveCGI serves one request from a CGI environment. It uses the standard
// library to turn the environment into a request, but routes on PATH_INFO:
// behind an alias or a rewrite, REQUEST_URI names a path the handler knows
// nothing of, while PATH_INFO is what follows the script in every case.
//
// The whole answer is buffered and written once, with its length, after
// the handler has finished, so nothing that matters happens after lighttpd
// has read a complete response and sent SIGTERM.
func serveCGI(h http.Handler, environ []string, stdin io.Reader, stdout io.Writer, log *logger) error {
	env := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	rw := &cgiResponse{header: http.Header{}}
	req, err := cgi.RequestFromMap(env)
	if err == nil && req.URL == nil {
		err = fmt.Errorf("no request URL")
	}
	if err != nil {
		log.Printf("bad CGI request: %v", err)
		http.Error(rw, "bad request", http.StatusBadRequest)
		return rw.writeTo(stdout, false)
	}
	path := env["PATH_INFO"]
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	req.URL.Path, req.URL.RawPath = path, ""
	req.URL.RawQuery = env["QUERY_STRING"]
	req.RequestURI = req.URL.RequestURI()
	req.Body = http.NoBody
	if req.ContentLength > 0 {
		req.Body = io.NopCloser(io.LimitReader(stdin, req.ContentLength))
	}
	h.ServeHTTP(rw, req)
	return rw.writeTo(stdout, req.Method == http.MethodHead)
}

// cgiResponse collects a handler's answer for serveCGI.
type cgiResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *cgiResponse) Header() http.Header { return c.header }

func (c *cgiResponse) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *cgiResponse) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return c.body.Write(p)
}

// writeTo writes the answer in CGI form: a Status line, the headers (which
// http.Header.Write keeps to one line each), a blank line and the body.
func (c *cgiResponse) writeTo(w io.Writer, head bool) error {
	c.WriteHeader(http.StatusOK)
	if c.header.Get("Content-Length") == "" && !head {
		c.header.Set("Content-Length", fmt.Sprint(c.body.Len()))
	}
	if c.header.Get("Content-Type") == "" {
		c.header.Set("Content-Type", "text/plain; charset=utf-8")
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Status: %d %s\r\n", c.status, http.StatusText(c.status))
	c.header.Write(bw)
	bw.WriteString("\r\n")
	if !head {
		bw.Write(c.body.Bytes())
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cgi: write response: %w", err)
	}
	return nil
}
