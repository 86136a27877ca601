package gateway

import (
	"errors"
	"sync"
	"time"

	"hitcounter/cgi/internal/logline"
)

// What the long-lived servers hold for answers that wait for their
// readers. Every connection may hold streamAfter bytes of its answer, the
// answer held back or a piece of one that streams; a write bigger than
// that, which the handler holds whole until it has gone (a set's SVG is
// such a write), is counted against one budget of the whole process, so
// that clients that stop reading cannot take more than maxConns times
// streamAfter and maxHeldBytes between them, however many they are.
const (
	// maxHeldBytes is the budget: room for a few of the largest answers
	// at once, well under the service's memory bound.
	maxHeldBytes = 16 << 20
	// heldWait is how long a write waits for bytes of the budget to come
	// back, and maxHeldWaiters how many writes may wait at once: each
	// holds its bytes while it waits, so the others are refused at once.
	heldWait       = time.Second
	maxHeldWaiters = 4
)

// ErrBusy is a write that the budget of bytes held for slow readers
// refused. When Cut reports that nothing of the answer had gone, the
// handler may answer afresh with something short; if it does not, the
// transport answers 503 for it.
var ErrBusy = errors.New("answers waiting for their readers hold all the memory allowed them")

// heldBytes is the budget of bytes that big writes hold while they go out.
type heldBytes struct {
	log *logline.Logger

	mu      sync.Mutex
	free    int
	waiting int
	freed   chan struct{} // closed, and made anew, when bytes come back

	refused    int
	lastLogged time.Time
}

func newHeldBytes(log *logline.Logger) *heldBytes {
	return &heldBytes{log: log, free: maxHeldBytes, freed: make(chan struct{})}
}

// take takes n bytes of the budget, all of it for a write bigger than the
// budget, waiting for them within heldWait; it reports whether it got
// them, and logs the refusals at most once a second.
func (h *heldBytes) take(n int) bool {
	n = min(n, maxHeldBytes)
	deadline := time.Now().Add(heldWait)
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.free < n {
		wait := time.Until(deadline)
		if h.waiting >= maxHeldWaiters || wait <= 0 {
			h.refuse()
			return false
		}
		freed := h.freed
		h.waiting++
		h.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-freed:
		case <-t.C:
		}
		t.Stop()
		h.mu.Lock()
		h.waiting--
	}
	h.free -= n
	return true
}

// give returns n bytes that take took.
func (h *heldBytes) give(n int) {
	n = min(n, maxHeldBytes)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.free += n
	close(h.freed)
	h.freed = make(chan struct{})
}

// refuse counts a refusal, with h.mu held, and logs the count once a
// second at most.
func (h *heldBytes) refuse() {
	h.refused++
	if now := time.Now(); now.Sub(h.lastLogged) >= time.Second {
		h.log.Printf("answers: %d big writes refused: answers hold %d MB for slow readers already", h.refused, maxHeldBytes>>20)
		h.refused, h.lastLogged = 0, now
	}
}
