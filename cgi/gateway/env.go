package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// errBadCGIRequest is a CGI environment that no web server sets for a
// well-formed request: the server should have refused it already.
var errBadCGIRequest = errors.New("bad request")

// checkCGIEnv refuses a Host that is not a host name or address with an
// optional port, and a REQUEST_URI that does not parse (a bad %-escape, a
// control byte). The standard library lets some of these through, and the
// session cookie's checks and the log read them.
func checkCGIEnv(env map[string]string) error {
	if h := env["HTTP_HOST"]; h != "" && !validHost(h) {
		return fmt.Errorf("%w: Host %q", errBadCGIRequest, h)
	}
	if u := env["REQUEST_URI"]; u != "" {
		if _, err := url.ParseRequestURI(u); err != nil {
			return fmt.Errorf("%w: REQUEST_URI: %v", errBadCGIRequest, err)
		}
	}
	return nil
}

// validHost reports whether h is NAME, IPv4 or [IPv6], with an optional
// :PORT.
func validHost(h string) bool {
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

// refuseBadCGI answers a malformed CGI environment with a 400, as an image
// when PATH_INFO names one, and logs one line.
func refuseBadCGI(w http.ResponseWriter, env map[string]string, err error, log *logger) {
	if !errors.Is(err, errBadCGIRequest) {
		err = fmt.Errorf("%w: %v", errBadCGIRequest, err)
	}
	r := &http.Request{Method: env["REQUEST_METHOD"], URL: &url.URL{Path: env["PATH_INFO"]}, Header: http.Header{}}
	(&app{log: log}).refuse(w, r, err)
}
