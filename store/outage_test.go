package store

import (
	"strings"
	"testing"
	"time"
)

// TestBatcherThroughAnOutage counts hits with a batcher on a real etcd
// that hangs (SIGSTOP) and then dies (SIGKILL) and comes back: while it
// is gone each hit fails within its wait with an error naming the
// cluster, the batcher reconnects by itself, and the count is exactly
// the hits answered as counted.
func TestBatcherThroughAnOutage(t *testing.T) {
	const wait = 500 * time.Millisecond
	srv, path, opts := etcdDemo(t, "outage", wait)
	host := strings.TrimPrefix(srv.Endpoint, "http://")
	b := NewBatcher(path, opts)
	defer b.Close()
	counted := uint64(0)
	hit := func(want bool, when string) {
		t.Helper()
		start := time.Now()
		n, err := b.Hit("demo", day1, "")
		took := time.Since(start)
		switch {
		case want && err != nil:
			t.Errorf("%s: %v", when, err)
		case want:
			counted++
			if n != counted {
				t.Errorf("%s: total %d, want %d", when, n, counted)
			}
		case err == nil:
			t.Errorf("%s: counted (%d) with no cluster", when, n)
		case !strings.Contains(err.Error(), host):
			t.Errorf("%s: %v: the error does not name the cluster", when, err)
		case took > 4*wait:
			t.Errorf("%s: failed after %v, want within a few waits (%v)", when, took, wait)
		}
	}
	hit(true, "before")
	srv.Pause()
	hit(false, "hung")
	hit(false, "hung again")
	srv.Resume()
	hit(true, "resumed")
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	hit(true, "restarted")
	srv.Stop()
	hit(false, "stopped")
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	hit(true, "back")
	with(t, path, Options{ReadOnly: true, Remote: opts.Remote}, func(db *DB) {
		if info, err := db.Counter("demo"); err != nil || info.Count != counted {
			t.Errorf("count %d, %v; want %d, the hits answered as counted", info.Count, err, counted)
		}
	})
}
