package meter

import (
	"syscall"
	"time"
)

// Span is a request of a long-lived process being timed (Meter.Start).
type Span struct {
	start time.Time
	cpu0  time.Duration
	alone bool
	seq   int64
}

// Start begins timing a request of a long-lived process. Its CPU time is
// the process's over the request, taken only when no other request ran at
// the same time: then it is the request's own (and its share of the
// collector's). A CGI process's one request is timed from the process's
// start instead, with all its CPU time.
func (m *Meter) Start() Span {
	n := m.inFlight.Add(1)
	s := Span{start: time.Now(), seq: m.begun.Add(1), alone: n == 1}
	if s.alone {
		s.cpu0 = ProcessCPU()
	}
	return s
}

// Stop ends s and records it under kind k, unless counted is false (the
// request turned out to be no kind of work that is timed).
func (m *Meter) Stop(s Span, k Kind, counted bool) {
	wall := time.Since(s.start)
	var cpu time.Duration
	if s.alone && m.begun.Load() == s.seq {
		cpu = ProcessCPU() - s.cpu0
	}
	m.inFlight.Add(-1)
	if counted {
		m.Record(k, wall, cpu)
	}
}

// ProcessCPU is the CPU time, user and system, the process has used.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
