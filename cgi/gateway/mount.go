package gateway

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

type mountKey struct{}

// withMount records the public path the handler is mounted at, as the
// visitor's browser sees it: "/cgi-bin/counter.cgi", "/counter" behind a
// rewrite, or "" for the local server. Only cookie paths need it; links
// are relative.
func withMount(r *http.Request, mount string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), mountKey{}, mount))
}

// Mount returns the public path the handler serving r is mounted at, as
// the gateway recorded it.
func Mount(r *http.Request) string {
	m, _ := r.Context().Value(mountKey{}).(string)
	return m
}

// cgiMount works the mount out from a CGI environment: the path the
// browser asked for, less PATH_INFO. Behind a rewrite that is not
// SCRIPT_NAME, so SCRIPT_NAME is only the fallback.
func cgiMount(env map[string]string) string {
	uri, _, _ := strings.Cut(env["REQUEST_URI"], "?")
	if p, err := url.PathUnescape(uri); err == nil {
		if rest, ok := strings.CutSuffix(p, env["PATH_INFO"]); ok && env["PATH_INFO"] != "" {
			return rest
		}
	}
	return env["SCRIPT_NAME"]
}
