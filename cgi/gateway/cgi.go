// Package gateway serves one http.Handler the three ways the counter is
// reached: as CGI, one request a process (ServeCGI); as FastCGI, many
// requests at once on a socket a web server or systemd opened
// (ServeFastCGI); and over plain HTTP for trying it out (ServeHTTP). It
// routes on PATH_INFO and tells the handler where it is mounted (Mount),
// bounds what a client can make it hold, and knows nothing of counters:
// it imports neither the web handlers nor the store.
package gateway

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"hitcounter/cgi/gateway/cgiwire"
	"hitcounter/cgi/internal/logline"
)

// maxDrain bounds how much of an unread request body is read and dropped.
const maxDrain = 8 << 20

// Options are what every transport is given.
type Options struct {
	// Log takes one line per event the handler never saw.
	Log *logline.Logger
	// Refuse answers a request whose environment no well-formed request
	// has (a bad Host, a REQUEST_URI that does not parse); err wraps
	// ErrBadRequest, and r carries only the method and the path. Nil
	// answers with a plain 400.
	Refuse func(w http.ResponseWriter, r *http.Request, err error)
	// OnlyWebServerConnects is the owner's word (fastcgi
	// -only-web-server-connects) that only the web server can reach the
	// FastCGI service's TCP port: the REMOTE_ADDR it sends is then believed
	// for logins, as it is over a Unix socket (PeerClient).
	OnlyWebServerConnects bool
}

// ServeCGI serves one request from a CGI environment.
//
// The answer is held and written once, with its length, after the handler
// has finished, so nothing that matters happens after lighttpd has read a
// complete response and sent SIGTERM. Only a long answer, an export that
// changes nothing, goes out as the handler writes it, without a length.
func ServeCGI(h http.Handler, environ []string, stdin io.Reader, stdout io.Writer, o Options) error {
	env := cgiwire.ReadEnv(environ)
	rw := newResponse(cgiForm)
	rw.out = stdout
	req := serveEnv(rw, h, env, stdin, o)
	// Apache resets the visitor's connection when a CGI exits without
	// reading the body it was sent (a refused login, say), so read what
	// is left, within a bound, before answering.
	if req != nil && req.ContentLength > 0 {
		io.Copy(io.Discard, io.LimitReader(stdin, min(req.ContentLength, maxDrain)))
	}
	if rw.streaming {
		return rw.end()
	}
	return rw.writeWhole(stdout)
}

// serveEnv runs h on the request that a CGI or FastCGI environment
// describes, with body as its body, answering in rw, and returns the
// request (nil when the environment was refused).
//
// It turns the environment into a request as net/http/cgi does
// (requestFromEnv), but routes on PATH_INFO: behind an alias or a rewrite, REQUEST_URI names a
// path the handler knows nothing of, while PATH_INFO is what follows the
// script in every case.
func serveEnv(rw *response, h http.Handler, env map[string]string, body io.Reader, o Options) *http.Request {
	if err := checkCGIEnv(env); err != nil {
		refuseBadCGI(rw, env, err, o)
		return nil
	}
	mount := cgiMount(env)
	// REQUEST_URI is not used for routing (checkCGIEnv has refused one
	// that does not parse); behind a rewrite it is not under SCRIPT_NAME.
	env["REQUEST_URI"] = env["SCRIPT_NAME"] + "/"
	req, err := requestFromEnv(env)
	if err == nil && req.URL == nil {
		err = fmt.Errorf("no request URL")
	}
	if err != nil {
		refuseBadCGI(rw, env, err, o)
		return nil
	}
	// An empty PATH_INFO is the script itself, asked for without the
	// slash: the path stays empty, so that the handler can send the
	// browser on to the slash, under which its pages' relative links
	// resolve.
	path := env["PATH_INFO"]
	if path != "" && !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	req.URL.Path, req.URL.RawPath = path, ""
	req.URL.RawQuery = env["QUERY_STRING"]
	req.RequestURI = req.URL.RequestURI()
	req.Body = http.NoBody
	if req.ContentLength > 0 {
		req.Body = io.NopCloser(io.LimitReader(body, req.ContentLength))
	}
	rw.head = req.Method == http.MethodHead
	h.ServeHTTP(rw, withMount(req, mount))
	return req
}
