package web

import (
	"sync"
	"sync/atomic"
	"time"

	"hitcounter/cgi/guard"
)

// Pacing of refused logins in a long-lived process.
const (
	// refusalWindow: a client refused again within it is held back.
	refusalWindow = 10 * time.Second
	// refusalDelay is how long such a client's answer is held back: the
	// delay after a failed login that PAM and most login prompts have.
	refusalDelay = 2 * time.Second
	// maxHeldBack bounds the answers held back at once. Past it the
	// answers go out at once: a held answer keeps a connection, and the
	// hits must always find one free.
	maxHeldBack = 48
	// pacedClients bounds the clients remembered; the memory is emptied
	// when it fills.
	pacedClients = 4096
	// maxLogins bounds the logins in hand at once, held ones included,
	// well under the gateway's 128 connections: past it a login is refused at once as busy, so
	// that logins waiting for the low-priority threads can never take the
	// connections that hits need.
	maxLogins = 64
	// maxKnownLogins more may be in hand for browsers known by a valid
	// device token, whatever strangers hold.
	maxKnownLogins = 8
)

// refusalPacer holds back the answers to a client whose logins keep being
// refused (slot busy, throttled or wrong), for a long-lived process where a
// waiting answer costs a goroutine, not a process. A flooding client that
// waits for each answer, as password-guessing tools do, then sends a try a
// second instead of hundreds, and stops taking the CPU that the hits need.
// A client's first refusal in refusalWindow is answered at once. Under CGI
// there is no pacer: holding an answer there would hold a whole process.
//
// Holding back only pays where one process serves many connections at
// once, as under lighttpd. Apache's mod_fcgid sends a process one request
// at a time, so there a held answer would hold the process, and with it a
// share of the hits: the pacer holds nothing until it has seen two logins
// in the process at once.
type refusalPacer struct {
	mu   sync.Mutex
	last map[guard.Client]time.Time
	held chan struct{}

	strangers atomic.Int32 // logins being answered now, from unknown clients
	known     atomic.Int32 // and from known devices
	shared    atomic.Bool  // two were, at some time: connections are served at once

	sleep func(time.Duration) // time.Sleep; tests watch what is held back
}

// enter notes a login being answered until the returned function is
// called, and reports whether it may go on: not when maxLogins of
// strangers' logins are in hand already, or, for a known device,
// maxKnownLogins of known ones. A nil pacer notes nothing and lets every
// login go on.
func (p *refusalPacer) enter(known bool) (leave func(), ok bool) {
	if p == nil {
		return func() {}, true
	}
	inHand, limit := &p.strangers, int32(maxLogins)
	if known {
		inHand, limit = &p.known, maxKnownLogins
	}
	n := inHand.Add(1)
	if p.strangers.Load()+p.known.Load() >= 2 {
		p.shared.Store(true)
	}
	return func() { inHand.Add(-1) }, n <= limit
}

func newRefusalPacer() *refusalPacer {
	return &refusalPacer{last: make(map[guard.Client]time.Time), held: make(chan struct{}, maxHeldBack), sleep: time.Sleep}
}

// refused records a refusal of client c at now and waits refusalDelay
// when c was refused within refusalWindow before, and few answers are
// held back already. A nil pacer, or one that has never seen two logins
// at once, never waits.
func (p *refusalPacer) refused(c guard.Client, now time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	prev, seen := p.last[c]
	if !seen && len(p.last) >= pacedClients {
		clear(p.last)
	}
	p.last[c] = now
	p.mu.Unlock()
	if !p.shared.Load() || !seen || now.Sub(prev) >= refusalWindow || now.Before(prev) {
		return
	}
	select {
	case p.held <- struct{}{}:
		p.sleep(refusalDelay)
		<-p.held
	default:
	}
}
