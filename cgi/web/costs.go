package web

import (
	"net/http"
	"sync/atomic"
	"time"

	"hitcounter/cgi/meter"
)

// timing is what an App keeps to time its requests for the process's
// meter (package cgi/meter); with no meter it times nothing
// (COUNTER_COSTS=off).
type timing struct {
	started time.Time // the process's start, for a CGI process's one request
	// A long-lived process measures a request's CPU time as the process's
	// over the request, when no other request ran at the same time: then
	// it is the request's own (and its share of the collector's).
	inFlight atomic.Int64
	begun    atomic.Int64
}

// metered is the ResponseWriter a route's handler gets: it carries the
// kind of work the request turned out to be, if any, for the costs.
type metered struct {
	http.ResponseWriter
	kind meter.Kind
	set  bool
}

// Unwrap lets gateway.Cut and http.ResponseController reach the
// transport's ResponseWriter.
func (m *metered) Unwrap() http.ResponseWriter { return m.ResponseWriter }

// tag says what kind of work the request is; the last tag counts.
func tag(w http.ResponseWriter, k meter.Kind) {
	if m, ok := w.(*metered); ok {
		m.kind, m.set = k, true
	}
}

// serveTimed runs handle and records its time under the kind it was
// tagged with, if any.
func (a *App) serveTimed(handle func(*App, http.ResponseWriter, *http.Request), w http.ResponseWriter, r *http.Request) {
	if a.proc.Meter == nil {
		handle(a, w, r)
		return
	}
	m := &metered{ResponseWriter: w}
	if !a.proc.LongLived() {
		// A CGI process: its one request, from the start of the process,
		// and all the CPU time the process took.
		handle(a, m, r)
		a.proc.Finished(m.kind, m.set, a.timing.started)
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
		a.proc.Meter.Record(m.kind, wall, cpu)
	}
}
