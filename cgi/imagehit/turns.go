package imagehit

import (
	"fmt"
	"time"

	"hitcounter/store"
)

// SetTurns lets a long-lived process read and draw digit sets a few at a
// time. A set's drawing is the costliest image anyone may ask for: drawn
// many at once, they leave a reader that holds the file's lock (a set's
// copy, or a hit's judging) one goroutine among many on the process's
// threads, waiting its turn for a CPU while writers wait for it. Taking
// turns, as many at once as there are CPUs, keeps the lock's holders
// running; the others wait, holding no lock, within the lock's wait.
type SetTurns struct {
	slots chan struct{}
}

// NewSetTurns lets n sets be read and drawn at once.
func NewSetTurns(n int) *SetTurns {
	return &SetTurns{slots: make(chan struct{}, max(n, 1))}
}

// take waits at most wait for a turn and returns its release; waiting
// longer is store.ErrTimeout, the busy file's answer. A nil SetTurns (a
// CGI process, which draws one image) has a turn at once.
func (t *SetTurns) take(wait time.Duration) (release func(), err error) {
	if t == nil {
		return func() {}, nil
	}
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	default:
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	case <-timer.C:
		return nil, fmt.Errorf("digit sets: no turn to draw within %v: %w", wait, store.ErrTimeout)
	}
}
