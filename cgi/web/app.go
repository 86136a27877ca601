package main

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"time"

	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/store"
)

// app is what every handler needs: the configuration and the log.
type app struct {
	cfg  config.Config
	log  *logline.Logger
	demo bool // serve the demo page at "/" (local server only)
	// batch and glyphs are set in a long-lived process (FastCGI, the local
	// server): hits share commits, and glyphs are drawn once.
	batch  *store.Batcher
	glyphs *counter.GlyphCache
	waits  *store.LockWaits // nil in a CGI process, which exits
	low    lowPool          // login work at low CPU priority
	pacer  *refusalPacer    // holds back answers to clients refused again
	// verify checks a password against a stored hash; tests count calls.
	verify func(hash, password []byte) (ok, rehash bool, err error)
	// hash makes a hash at the pinned cost; tests watch when it runs.
	hash func(password []byte) ([]byte, error)
}

func newApp(cfg config.Config, log *logline.Logger) *app {
	return &app{cfg: cfg, log: log, verify: verifyAtLowPriority, hash: hashAtLowPriority}
}

// checkSameOrigin refuses a form posted from another site, by the
// Sec-Fetch-Site and Origin headers that CGI passes through. The checker
// is made here, not with the app: it builds a ServeMux of its own, which
// a counter hit should not pay for.
func checkSameOrigin(r *http.Request) error {
	return http.NewCrossOriginProtection().Check(r)
}

// longLived readies a for a process that serves many requests. Call the
// returned function once every request has been answered.
func (a *app) longLived() (closeApp func()) {
	// Readers and the batcher wait for a stuck holder with a few
	// blocked flocks between them, not one per request (store.LockWaits).
	a.waits = store.NewLockWaits(lockWaits)
	a.batch = store.NewBatcher(a.cfg.DB, a.openOptions(false))
	a.glyphs = new(counter.GlyphCache)
	a.low = newLowPool(a.cfg.BcryptSlots + 1) // one more than can be in bcrypt
	a.pacer = newRefusalPacer()
	return func() {
		a.batch.Close()
		close(a.low)
	}
}

func (a *app) now() time.Time { return a.cfg.Now() }

// lockWaits is how many flocks a long-lived process may leave blocked on
// a stuck holder at once: each holds an OS thread and a file.
const lockWaits = 4

// openOptions says how a handler opens the file for one transaction.
func (a *app) openOptions(readOnly bool) store.Options {
	o := store.Options{ReadOnly: readOnly, Wait: a.cfg.Wait, Waits: a.waits}
	if !readOnly {
		o.MaxSize = a.cfg.MaxDBSize
	}
	return o
}

// open opens the file for one transaction of a handler.
func (a *app) open(readOnly bool) (*store.DB, error) {
	return store.Open(a.cfg.DB, a.openOptions(readOnly))
}

// handler returns the one http.Handler that CGI and the local server
// share: the route table of router.go, behind panic recovery.
func (a *app) handler() http.Handler {
	return a.recoverPanics(router{a})
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
// never leaves a visitor with a broken answer or the log with a stack dump
// or a secret.
func (a *app) recoverPanics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				a.refuse(w, r, fmt.Errorf("panic: %s", panicSummary(v)))
			}
		}()
		h.ServeHTTP(w, r)
	})
}
