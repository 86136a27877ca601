package main

import (
	"sync"
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
)

// refusalPacer holds back the answers to a client whose logins keep being
// refused (slot busy, throttled or wrong), for a long-lived process where a
// waiting answer costs a goroutine, not a process. A flooding client that
// waits for each answer, as password-guessing tools do, then sends a try a
// second instead of hundreds, and stops taking the CPU that the hits need.
// A client's first refusal in refusalWindow is answered at once. Under CGI
// there is no pacer: holding an answer there would hold a whole process.
type refusalPacer struct {
	mu   sync.Mutex
	last map[guard.Client]time.Time
	held chan struct{}
}

func newRefusalPacer() *refusalPacer {
	return &refusalPacer{last: make(map[guard.Client]time.Time), held: make(chan struct{}, maxHeldBack)}
}

// refused records a refusal of client c at now and waits refusalDelay
// when c was refused within refusalWindow before, and few answers are
// held back already. A nil pacer never waits.
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
	if !seen || now.Sub(prev) >= refusalWindow || now.Before(prev) {
		return
	}
	select {
	case p.held <- struct{}{}:
		time.Sleep(refusalDelay)
		<-p.held
	default:
	}
}
