package main

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"time"

	"hitcounter/counter"
)

// app is what every handler needs: the configuration and the log.
type app struct {
	cfg  config
	log  *logger
	demo bool // serve the demo page at "/" (local server only)
	// verify checks a password against a stored hash; tests count calls.
	verify func(hash, password []byte) (ok, rehash bool, err error)
	// crossOrigin refuses form posts from other sites, by the
	// Sec-Fetch-Site and Origin headers that CGI passes through.
	crossOrigin *http.CrossOriginProtection
}

func newApp(cfg config, log *logger) *app {
	return &app{cfg: cfg, log: log, verify: counter.VerifyPassword, crossOrigin: http.NewCrossOriginProtection()}
}

func (a *app) now() time.Time { return a.cfg.Now() }

// handler returns the one http.Handler that CGI and the local server share.
// Paths are relative to the script: under CGI the transport has already
// stripped /cgi-bin/counter.cgi.
func (a *app) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{file}", a.serveCounter)
	mux.HandleFunc("GET /{name}/stats", a.serveStats)
	mux.HandleFunc("GET /{name}/stats.csv", a.serveExport)
	mux.HandleFunc("GET /{name}/stats.json", a.serveExport)
	mux.HandleFunc("POST /{name}/login", a.serveLogin)
	mux.HandleFunc("POST /{name}/logout", a.serveLogout)
	if a.demo {
		mux.HandleFunc("GET /{$}", a.serveIndex)
	}
	return a.recoverPanics(a.refuseUncleanPaths(mux))
}

// refuseUncleanPaths answers a path such as "//x.png" or "/a/../x.png"
// itself, where ServeMux would redirect: under CGI the redirect's Location
// would point outside the script, and an <img> would get HTML.
func (a *app) refuseUncleanPaths(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p != "/" && path.Clean(p) != p {
			a.refuse(w, r, errUncleanPath)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// errUncleanPath is a path with empty, "." or ".." segments.
var errUncleanPath = errors.New("path is not clean")

// refuse answers a request that fails with err in the form its path asks
// for: a small image for an image, JSON for JSON, text otherwise.
func (a *app) refuse(w http.ResponseWriter, r *http.Request, err error) {
	_, ext, _ := cutLast(path.Base(r.URL.Path), ".")
	if f, ok := counter.ParseFormat(ext); ok {
		a.refuseImage(w, r, f, err)
		return
	}
	status, msg := publicError(err)
	a.log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
	if ext == "json" {
		writeJSON(w, r, status, jsonString("error", msg))
		return
	}
	http.Error(w, msg, status)
}

// recoverPanics turns a panic into a 500 and one log line, so that a bug
// never leaves a visitor with a broken answer or the log with a stack dump.
func (a *app) recoverPanics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				a.refuse(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		h.ServeHTTP(w, r)
	})
}
