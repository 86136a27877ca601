package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"strings"
)

// maxDrain bounds how much of an unread request body is read and dropped.
const maxDrain = 8 << 20

// serveCGI serves one request from a CGI environment.
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
	rw, req := serveEnv(h, env, stdin, log)
	// Apache resets the visitor's connection when a CGI exits without
	// reading the body it was sent (a refused login, say), so read what
	// is left, within a bound, before answering.
	if req != nil && req.ContentLength > 0 {
		io.Copy(io.Discard, io.LimitReader(stdin, min(req.ContentLength, maxDrain)))
	}
	return rw.writeCGI(stdout, req != nil && req.Method == http.MethodHead)
}

// serveEnv runs h on the request that a CGI or FastCGI environment
// describes, with body as its body, and returns the buffered answer and
// the request (nil when the environment was refused).
//
// It uses the standard library to turn the environment into a request, but
// routes on PATH_INFO: behind an alias or a rewrite, REQUEST_URI names a
// path the handler knows nothing of, while PATH_INFO is what follows the
// script in every case.
func serveEnv(h http.Handler, env map[string]string, body io.Reader, log *logger) (*bufferedResponse, *http.Request) {
	rw := newBufferedResponse()
	if err := checkCGIEnv(env); err != nil {
		refuseBadCGI(rw, env, err, log)
		return rw, nil
	}
	mount := cgiMount(env)
	// REQUEST_URI is not used for routing (checkCGIEnv has refused one
	// that does not parse); behind a rewrite it is not under SCRIPT_NAME.
	env["REQUEST_URI"] = env["SCRIPT_NAME"] + "/"
	req, err := cgi.RequestFromMap(env)
	if err == nil && req.URL == nil {
		err = fmt.Errorf("no request URL")
	}
	if err != nil {
		refuseBadCGI(rw, env, err, log)
		return rw, nil
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
		req.Body = io.NopCloser(io.LimitReader(body, req.ContentLength))
	}
	h.ServeHTTP(rw, withMount(req, mount))
	return rw, req
}
