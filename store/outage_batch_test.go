package store

import (
	"errors"
	"testing"
	"time"
)

// TestBatchFailsTogetherWhenUnavailable commits a batch of hits on a
// store opened while its cluster answered, which then hangs, as a
// cluster that loses its majority does to a client: the batch fails as
// one, with ErrUnavailable, within a wait or two, not one wait after
// another as each hit is tried again alone (16 waits: 32 s for a batch
// of 16 at the default wait).
func TestBatchFailsTogetherWhenUnavailable(t *testing.T) {
	const wait = 300 * time.Millisecond
	srv, path, opts := etcdDemo(t, "together", wait)
	b := NewBatcher(path, opts)
	defer b.Close()
	db, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv.Pause()
	defer srv.Resume()
	batch := make([]*pendingHit, 16)
	for i := range batch {
		batch[i] = &pendingHit{visit: Visit{Name: "demo", Now: day1}, done: make(chan struct{})}
	}
	start := time.Now()
	b.commitIn(db, batch)
	took := time.Since(start)
	t.Logf("a batch of %d hits with the cluster hung failed after %v", len(batch), took)
	for i, h := range batch {
		if !errors.Is(h.err, ErrUnavailable) {
			t.Errorf("hit %d with the cluster hung: %v, want ErrUnavailable", i, h.err)
		}
	}
	if took > 4*wait {
		t.Errorf("a batch of %d hits with the cluster hung failed after %v, want within a wait or two of %v", len(batch), took, wait)
	}
}
