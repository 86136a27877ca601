package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ErrBadRequest is a CGI or FastCGI environment that no web server sets
// for a well-formed request: the server should have refused it already.
var ErrBadRequest = errors.New("bad request")

// checkCGIEnv refuses a Host that is not a host name or address with an
// optional port, and a REQUEST_URI that does not parse (a bad %-escape, a
// control byte). The standard library lets some of these through, and the
// session cookie's checks and the log read them.
func checkCGIEnv(env map[string]string) error {
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

// refuseBadCGI answers a malformed environment with a 400 through
// o.Refuse, which knows the form the path asks for (an image for an
// image), or as plain text.
func refuseBadCGI(w http.ResponseWriter, env map[string]string, err error, o Options) {
	if !errors.Is(err, ErrBadRequest) {
		err = fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if o.Refuse == nil {
		o.Log.Printf("%v", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	r := &http.Request{Method: env["REQUEST_METHOD"], URL: &url.URL{Path: env["PATH_INFO"]}, Header: http.Header{}}
	o.Refuse(w, r, err)
}
