// Package cgiwire is a CGI request and its answer as they pass between
// the web server and the hit binary (cgi/hit), read and written without
// net/http, which that binary must not link: the checks a CGI
// environment must pass, which the gateway makes too; the request's
// headers, version and length as the gateway reads them; and an answer
// in the form the gateway writes one.
package cgiwire

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ErrBadRequest is a CGI or FastCGI environment that no web server sets
// for a well-formed request: the server should have refused it already.
var ErrBadRequest = errors.New("bad request")

// Env is a CGI environment, NAME=value pairs read into a map.
type Env map[string]string

// ReadEnv reads environ, NAME=value strings as os.Environ gives them.
func ReadEnv(environ []string) Env {
	env := make(Env, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// Check refuses a Host that is not a host name or address with an
// optional port, and a REQUEST_URI that does not parse (a bad %-escape, a
// control byte). The standard library lets some of these through, and the
// session cookie's checks and the log read them.
func Check(env Env) error {
	if h := env["HTTP_HOST"]; h != "" && !validHostHeader(h) {
		return fmt.Errorf("%w: Host %q", ErrBadRequest, h)
	}
	if u := env["REQUEST_URI"]; u != "" {
		if _, err := url.ParseRequestURI(u); err != nil {
			return fmt.Errorf("%w: REQUEST_URI: %v", ErrBadRequest, err)
		}
	}
	return nil
}

// validHostHeader reports whether h is NAME, IPv4 or [IPv6], with an optional
// :PORT.
func validHostHeader(h string) bool {
	if len(h) > 255 {
		return false
	}
	host, port := h, ""
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
		host, port = h[:i], h[i+1:]
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 || strconv.Itoa(n) != port {
			return false
		}
	}
	if inner, ok := strings.CutPrefix(host, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		a, err := netip.ParseAddr(inner)
		return ok && err == nil && a.Is6()
	}
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ParseVersion parses an HTTP version, "HTTP/1.0", as net/http's
// ParseHTTPVersion does.
func ParseVersion(vers string) (major, minor int, ok bool) {
	switch vers {
	case "HTTP/1.1":
		return 1, 1, true
	case "HTTP/1.0":
		return 1, 0, true
	}
	if !strings.HasPrefix(vers, "HTTP/") || len(vers) != len("HTTP/X.Y") || vers[6] != '.' {
		return 0, 0, false
	}
	maj, err := strconv.ParseUint(vers[5:6], 10, 0)
	if err != nil {
		return 0, 0, false
	}
	min, err := strconv.ParseUint(vers[7:8], 10, 0)
	if err != nil {
		return 0, 0, false
	}
	return int(maj), int(min), true
}

// Header returns the value of the request header name (canonical, as
// User-Agent) that the environment carries, and whether it carries it:
// HTTP_USER_AGENT, or CONTENT_TYPE. Host is no header here, as in
// net/http: it is HTTP_HOST, read apart.
func (env Env) Header(name string) (string, bool) {
	if name == "Content-Type" {
		v, ok := env["CONTENT_TYPE"]
		return v, ok && v != ""
	}
	if name == "Host" {
		return "", false
	}
	k := make([]byte, 0, len("HTTP_")+len(name))
	k = append(k, "HTTP_"...)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-':
			c = '_'
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		k = append(k, c)
	}
	v, ok := env[string(k)]
	return v, ok
}

// Peer is the client's address as the gateway gives it to a handler:
// REMOTE_ADDR, the host part of net.JoinHostPort(REMOTE_ADDR, REMOTE_PORT)
// read back by net.SplitHostPort, which gives it back whole unless it
// holds a bracket.
func (env Env) Peer() string {
	addr := env["REMOTE_ADDR"]
	if !strings.ContainsAny(addr, "[]") {
		return addr
	}
	port, _ := strconv.Atoi(env["REMOTE_PORT"]) // zero if unset or invalid
	if strings.IndexByte(addr, ':') >= 0 {
		return "[" + addr + "]:" + strconv.Itoa(port)
	}
	return addr + ":" + strconv.Itoa(port)
}
