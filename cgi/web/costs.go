package web

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/internal/buildinfo"
	"hitcounter/cgi/meter"
	"hitcounter/counter/costs"
)

// timing is what an App keeps to time its requests (package cgi/meter);
// a zero timing with a nil meter times nothing (COUNTER_COSTS=off).
type timing struct {
	meter   *meter.Meter
	started time.Time // the process's start, for a CGI process's one request
	// A long-lived process measures a request's CPU time as the process's
	// over the request, when no other request ran at the same time: then
	// it is the request's own (and its share of the collector's).
	inFlight atomic.Int64
	begun    atomic.Int64
	// A CGI process's commits, recorded after its request: a commit is
	// heard with the database still locked, and the lock is not held for
	// the costs' files.
	mu      sync.Mutex
	commits []time.Duration
}

// newMeter starts the timing of a's requests, unless the owner turned it
// off: for a long-lived process on mapped files, for a CGI process's one
// request with a few reads and writes.
func (a *App) newMeter(longLived bool) {
	a.timing.meter.Close()
	a.timing.started = time.Now()
	if a.cfg.NoCosts {
		return
	}
	open := meter.New
	if longLived {
		open = meter.NewMapped
	}
	a.timing.meter = open(a.run, buildinfo.Read().ID(), a.now, imagehit.MeterHooks(a.open, a.now, a.log))
}

// metered is the ResponseWriter a route's handler gets: it carries the
// kind of work the request turned out to be, if any, for the costs.
type metered struct {
	http.ResponseWriter
	kind costs.Kind
	set  bool
}

// Unwrap lets gateway.Cut and http.ResponseController reach the
// transport's ResponseWriter.
func (m *metered) Unwrap() http.ResponseWriter { return m.ResponseWriter }

// tag says what kind of work the request is; the last tag counts.
func tag(w http.ResponseWriter, k costs.Kind) {
	if m, ok := w.(*metered); ok {
		m.kind, m.set = k, true
	}
}

// serveTimed runs handle and records its time under the kind it was
// tagged with, if any.
func (a *App) serveTimed(handle func(*App, http.ResponseWriter, *http.Request), w http.ResponseWriter, r *http.Request) {
	if a.timing.meter == nil {
		handle(a, w, r)
		return
	}
	m := &metered{ResponseWriter: w}
	if a.close == nil {
		// A CGI process: its one request, from the start of the process,
		// and all the CPU time the process took.
		handle(a, m, r)
		if m.set {
			a.timing.meter.Record(m.kind, time.Since(a.timing.started), meter.ProcessCPU())
		}
		a.timing.mu.Lock()
		commits := a.timing.commits
		a.timing.commits = nil
		a.timing.mu.Unlock()
		for _, d := range commits {
			a.timing.meter.Record(costs.Commit, d, 0)
		}
		return
	}
	n := a.timing.inFlight.Add(1)
	mine := a.timing.begun.Add(1)
	start, cpu0 := time.Now(), time.Duration(0)
	if n == 1 {
		cpu0 = meter.ProcessCPU() // only a request alone is given its CPU time
	}
	handle(a, m, r)
	wall := time.Since(start)
	var cpu time.Duration
	if n == 1 && a.timing.begun.Load() == mine {
		cpu = meter.ProcessCPU() - cpu0
	}
	a.timing.inFlight.Add(-1)
	if m.set {
		a.timing.meter.Record(m.kind, wall, cpu)
	}
}

// recordCommit is store.Options.Committed: the time of a commit, kept
// for the end of the request in a CGI process, recorded at once (into a
// mapping) in a long-lived one.
func (a *App) recordCommit(d time.Duration) {
	if a.close != nil {
		a.timing.meter.Record(costs.Commit, d, 0)
		return
	}
	a.timing.mu.Lock()
	a.timing.commits = append(a.timing.commits, d)
	a.timing.mu.Unlock()
}
