package main

import (
	"net/http"
	"time"
)

// app is what every handler needs: the configuration and the log.
type app struct {
	cfg  config
	log  *logger
	demo bool // serve the demo page at "/" (local server only)
}

func (a *app) now() time.Time { return a.cfg.Now() }

// handler returns the one http.Handler that CGI and the local server share.
// Paths are relative to the script: under CGI the transport has already
// stripped /cgi-bin/counter.cgi.
func (a *app) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{file}", a.serveCounter)
	if a.demo {
		mux.HandleFunc("GET /{$}", a.serveIndex)
	}
	return a.recoverPanics(mux)
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
				a.log.Printf("panic serving %q: %v", r.URL.Path, v)
				http.Error(w, "internal error", http.StatusInternalServerError)
			}
		}()
		h.ServeHTTP(w, r)
	})
}
