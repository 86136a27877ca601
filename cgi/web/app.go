// Package web holds the counter's web handlers: the image that counts a
// hit, the count as JSON, the statistics page and its exports, the logins
// and logouts (a counter's and the owner's, door.go), and the demo page,
// with the route table (router.go) and the one function that maps an error
// to a status and a public message (respond.go). It serves one
// http.Handler, App, that the gateway carries over CGI, FastCGI or plain
// HTTP, and knows nothing of how it is reached beyond the path it is
// mounted at.
package web

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"time"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/store"
)

// Mode is the kind of process that serves the App.
type Mode int

const (
	// OneRequest is a CGI process: it serves one request and exits, so it
	// keeps nothing between requests and starts nothing it does not need.
	OneRequest Mode = iota
	// LongLived is a FastCGI process: hits that arrive together share a
	// commit, glyphs are drawn once, and logins run on low-priority
	// threads, their refusals paced.
	LongLived
	// Local is the local server for trying the counter out: LongLived,
	// with the demo page at "/".
	Local
)

// App is the counter's web application. Make it with New.
type App struct {
	// proc serves the hits, and holds what a process shares with the
	// others (the runtime directory, the visitor table, the costs): the
	// one set-up of a hit, the hit binary's too.
	proc *imagehit.Process
	cfg  *config.Config // &proc.Cfg
	log  *logline.Logger
	demo bool // serve the demo page at "/" (Local only)
	// timing times each request for proc.Meter.
	timing timing
	// Set in a long-lived App, nil in a CGI process, which exits.
	low   lowPool       // login work at low CPU priority
	pacer *refusalPacer // holds back answers to clients refused again
	// verify checks a password against a stored hash, at the priority
	// bcryptWork runs it at; tests count calls.
	verify func(hash, password []byte) (ok, rehash bool, err error)
	// hash makes a hash at the pinned cost, likewise; tests watch when it
	// runs.
	hash func(password []byte) ([]byte, error)
	// crossOrigin refuses a form posted from another site, by the
	// Sec-Fetch-Site and Origin headers that CGI passes through.
	crossOrigin *http.CrossOriginProtection
}

// New returns the App for a process of the given mode. Close it once
// every request has been answered.
func New(cfg config.Config, log *logline.Logger, mode Mode) *App {
	a := appOf(imagehit.NewProcess(cfg, log, mode != OneRequest))
	if mode != OneRequest {
		// Strangers' login work: as many workers as can be in bcrypt at
		// once in the shared slots, and two for the checks before it.
		// Known devices' logins run outside the pool, at normal priority.
		a.low = newLowPool(cfg.BcryptSlots + 2)
		a.pacer = newRefusalPacer()
	}
	a.demo = mode == Local
	return a
}

// Close waits for the hits in hand to be committed and stops what a
// long-lived App started. No request may be served after it.
func (a *App) Close() {
	if a.low != nil {
		close(a.low)
	}
	a.proc.Close()
}

// newApp returns the App of a CGI process.
func newApp(cfg config.Config, log *logline.Logger) *App {
	return appOf(imagehit.NewProcess(cfg, log, false))
}

// appOf returns the App over the hits of p.
func appOf(p *imagehit.Process) *App {
	a := &App{proc: p, cfg: &p.Cfg, log: p.Log, verify: counter.VerifyPassword, hash: counter.HashPassword,
		crossOrigin: http.NewCrossOriginProtection()}
	a.timing.started = time.Now()
	return a
}

func (a *App) now() time.Time { return a.cfg.Now() }

// open opens the file for one transaction of a handler.
func (a *App) open(readOnly bool) (*store.DB, error) { return a.proc.Open(readOnly) }

// Handler returns the one http.Handler that every transport serves: the
// route table of router.go, behind panic recovery.
func (a *App) Handler() http.Handler {
	return a.recoverPanics(router{a})
}

// errUncleanPath is a path with empty, "." or ".." segments.
var errUncleanPath = errors.New("path is not clean")

// Refuse answers a request that fails with err in the form its path asks
// for: a small image for an image, JSON for JSON, text otherwise.
func (a *App) Refuse(w http.ResponseWriter, r *http.Request, err error) {
	_, ext, _ := cutLast(path.Base(r.URL.Path), ".")
	if f, ok := counter.ParseImageType(ext); ok {
		a.refuseImage(w, r, f, err)
		return
	}
	status, msg := publicError(err)
	a.log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
	if ext == "json" {
		writeJSON(w, r, status, errorAnswer{msg})
		return
	}
	http.Error(w, msg, status)
}

// recoverPanics turns a panic into a 500 and one log line, so that a bug
// never leaves a visitor with a broken answer or the log with a stack dump
// or a secret.
func (a *App) recoverPanics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				err := fmt.Errorf("panic: %s", logline.PanicSummary(v))
				// An answer that has begun to stream cannot become an
				// error: it is cut short, so that it is not taken for whole.
				if gateway.Cut(w) {
					a.log.Printf("%s %q: cut short: %v", r.Method, r.URL.Path, err)
					return
				}
				a.Refuse(w, r, err)
			}
		}()
		h.ServeHTTP(w, r)
	})
}
