package web

import (
	"net/http"
	"time"

	"hitcounter/cgi/meter"
)

// timing is what an App keeps to time its requests for the process's
// meter (package cgi/meter); with no meter it times nothing
// (COUNTER_COSTS=off).
type timing struct {
	started time.Time // the process's start, for a CGI process's one request
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
	s := a.proc.Meter.Start()
	handle(a, m, r)
	a.proc.Meter.Stop(s, m.kind, m.set)
}
