package gateway

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"hitcounter/cgi/gateway/cgiwire"
)

// requestFromEnv builds the request that a CGI or FastCGI environment
// describes, exactly as net/http/cgi.RequestFromMap does (request_test.go
// compares the two on every captured environment and in a fuzz target).
//
// It is written out rather than imported: net/http/cgi compiles a regular
// expression when the process starts, for its host side, which this
// program never runs, and links regexp and os/exec: start-up time that
// every CGI request would pay (deploy/bench/RESULTS.md has the figure).
func requestFromEnv(env map[string]string) (*http.Request, error) {
	r := new(http.Request)
	r.Method = env["REQUEST_METHOD"]
	if r.Method == "" {
		return nil, errors.New("cgi: no REQUEST_METHOD in environment")
	}
	r.Proto = env["SERVER_PROTOCOL"]
	var ok bool
	if r.Proto == "INCLUDED" {
		r.ProtoMajor, r.ProtoMinor = 1, 0 // a server-side include, RFC 3875 4.1.16
	} else if r.ProtoMajor, r.ProtoMinor, ok = cgiwire.ParseVersion(r.Proto); !ok {
		return nil, errors.New("cgi: invalid SERVER_PROTOCOL version")
	}
	r.Close = true
	r.Trailer = http.Header{}
	r.Header = http.Header{}
	r.Host = env["HTTP_HOST"]
	if s := env["CONTENT_LENGTH"]; s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, errors.New("cgi: bad CONTENT_LENGTH in environment: " + s)
		}
		r.ContentLength = n
	}
	if ct := env["CONTENT_TYPE"]; ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	for k, v := range env {
		if name, found := strings.CutPrefix(k, "HTTP_"); found && k != "HTTP_HOST" {
			r.Header.Add(strings.ReplaceAll(name, "_", "-"), v)
		}
	}
	uri := env["REQUEST_URI"]
	if uri == "" {
		uri = env["SCRIPT_NAME"] + env["PATH_INFO"]
		if q := env["QUERY_STRING"]; q != "" {
			uri += "?" + q
		}
	}
	if s := env["HTTPS"]; s == "on" || s == "ON" || s == "1" {
		r.TLS = &tls.ConnectionState{HandshakeComplete: true}
	}
	if r.Host != "" {
		raw := "http://" + r.Host + uri
		if r.TLS != nil {
			raw = "https://" + r.Host + uri
		}
		u, err := url.Parse(raw)
		if err != nil {
			return nil, errors.New("cgi: failed to parse host and REQUEST_URI into a URL: " + raw)
		}
		r.URL = u
	}
	if r.URL == nil {
		u, err := url.Parse(uri)
		if err != nil {
			return nil, errors.New("cgi: failed to parse REQUEST_URI into a URL: " + uri)
		}
		r.URL = u
	}
	port, _ := strconv.Atoi(env["REMOTE_PORT"]) // zero if unset or invalid
	r.RemoteAddr = net.JoinHostPort(env["REMOTE_ADDR"], strconv.Itoa(port))
	return r, nil
}
