package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"hitcounter/cgi/gateway/cgiwire"
)

// ErrBadRequest is a CGI or FastCGI environment that no web server sets
// for a well-formed request: the server should have refused it already.
var ErrBadRequest = cgiwire.ErrBadRequest

// checkCGIEnv refuses a Host that is not a host name or address with an
// optional port, and a REQUEST_URI that does not parse: cgiwire.Check, which
// the hit binary makes too.
func checkCGIEnv(env map[string]string) error { return cgiwire.Check(env) }

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
