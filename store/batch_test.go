package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"hitcounter/counter"
)

// TestBatcherCountsEveryHitOnce sends hits from many goroutines at once:
// every total handed back is distinct, the file holds them all, and they
// took fewer transactions than hits.
func TestBatcherCountsEveryHitOnce(t *testing.T) {
	path := newDB(t, "demo", "other")
	b := testBatcher(path, Options{})
	const workers, each = 32, 20
	totals := make(chan uint64, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				n, err := b.Hit("demo", day1, []string{"", "example.org"}[w%2])
				if err != nil {
					t.Error(err)
					return
				}
				totals <- n
			}
		}()
	}
	wg.Wait()
	b.Close()
	close(totals)
	seen := map[uint64]bool{}
	for n := range totals {
		if seen[n] || n < 1 || n > workers*each {
			t.Errorf("total %d handed back twice or out of range", n)
		}
		seen[n] = true
	}
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		info, err := db.Counter("demo")
		if err != nil || info.Count != workers*each {
			t.Errorf("count %d, %v; want %d", info.Count, err, workers*each)
		}
		refs, err := db.Referrers("demo")
		if err != nil || len(refs) != 1 || refs[0].Hits != workers*each/2 {
			t.Errorf("referrers %v, %v", refs, err)
		}
	})
	if n := b.batches.Load(); n >= workers*each {
		t.Errorf("%d transactions for %d hits: no hits were batched", n, workers*each)
	} else {
		t.Logf("%d hits in %d transactions", workers*each, n)
	}
}

// TestBatcherFailsAMissingCounterAlone puts hits on a counter that does
// not exist into the same batches as good hits.
func TestBatcherFailsAMissingCounterAlone(t *testing.T) {
	path := newDB(t, "demo")
	b := testBatcher(path, Options{})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := []string{"demo", "nope"}[i%2]
			_, err := b.Hit(name, day1, "")
			if (name == "nope") != errors.Is(err, counter.ErrNotFound) {
				t.Errorf("hit on %s: %v", name, err)
			}
		}()
	}
	wg.Wait()
	b.Close()
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		if info, _ := db.Counter("demo"); info.Count != 20 {
			t.Errorf("count %d, want 20", info.Count)
		}
		if _, err := db.Counter("nope"); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("nope: %v, want not found (nothing created)", err)
		}
	})
}

// TestBatcherWritesNothingForMissingCounters sends only hits on counters
// that do not exist: as under CGI, they must leave the file as it was,
// byte for byte, rather than commit an empty transaction (a write and two
// fsyncs for each batch of names a visitor makes up).
func TestBatcherWritesNothingForMissingCounters(t *testing.T) {
	needFile(t)
	path := newDB(t, "demo")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := testBatcher(path, Options{})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.Hit(fmt.Sprintf("nope%d", i), day1, ""); !errors.Is(err, counter.ErrNotFound) {
				t.Errorf("hit on nope%d: %v, want not found", i, err)
			}
		}()
	}
	wg.Wait()
	b.Close()
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
		t.Errorf("hits on missing counters changed the file (%v)", err)
	}
}

// TestBatcherLetsOthersIn opens the file for writing, as an admin command
// does, again and again while hits stream in: each open gets the lock
// within its wait, because the batcher holds it per batch only.
func TestBatcherLetsOthersIn(t *testing.T) {
	needFile(t)
	path := newDB(t, "demo")
	b := testBatcher(path, Options{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := b.Hit("demo", day1, ""); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 10 {
		start := time.Now()
		db, err := testOpen(path, Options{Wait: time.Second})
		if err != nil {
			t.Fatalf("admin open while hits stream in: %v after %v", err, time.Since(start))
		}
		if err := db.Set("demo", 5); err != nil {
			t.Error(err)
		}
		db.Close()
	}
	close(stop)
	wg.Wait()
	b.Close()
}

// TestBatcherAnswersWithinTheWait holds the lock in another open, as a
// stuck process would: a hit fails with ErrTimeout after the wait, and
// counts again once the lock is free.
func TestBatcherAnswersWithinTheWait(t *testing.T) {
	needFile(t)
	path := newDB(t, "demo")
	holder, err := testOpen(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := testBatcher(path, Options{Wait: 100 * time.Millisecond})
	defer b.Close()
	start := time.Now()
	_, err = b.Hit("demo", day1, "")
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 2*time.Second {
		t.Errorf("hit while locked: %v after %v, want a timeout after about 100ms", err, time.Since(start))
	}
	holder.Close()
	if n, err := b.Hit("demo", day1, ""); err != nil || n != 1 {
		t.Errorf("hit after the holder left: %d, %v; want 1", n, err)
	}
}

// TestBatcherHitFacts: the hits' reads through a batcher, many at once,
// each get their own counter's settings, or counter.ErrNotFound.
func TestBatcherHitFacts(t *testing.T) {
	path := newDB(t, "a", "b")
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.Configure("b", func(s *counter.Settings) error { return s.Set("reload=10m") }); err != nil {
			t.Fatal(err)
		}
	})
	b := testBatcher(path, Options{})
	defer b.Close()
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := []string{"a", "b", "nope"}[i%3]
			j, err := b.HitFacts(Visit{Name: name, Now: day1})
			switch {
			case name == "nope":
				if !errors.Is(err, counter.ErrNotFound) {
					t.Errorf("%s: got %v, want counter.ErrNotFound", name, err)
				}
			case err != nil:
				t.Errorf("%s: %v", name, err)
			case name == "b" && j.Settings.Reload != 10*time.Minute, name == "a" && j.Settings.Reload != counter.DefaultReload:
				t.Errorf("%s: reload %v", name, j.Settings.Reload)
			}
		}()
	}
	wg.Wait()
}

// TestBatcherHitFactsSeesAChange: a counter's settings cached from a
// committed batch give way to a change within judgedFor.
func TestBatcherHitFactsSeesAChange(t *testing.T) {
	path := newDB(t, "a")
	b := testBatcher(path, Options{})
	defer b.Close()
	if _, err := b.Visit(Visit{Name: "a", Now: day1}); err != nil {
		t.Fatal(err)
	}
	if j, err := b.HitFacts(Visit{Name: "a", Now: day1}); err != nil || j.Settings.Reload != counter.DefaultReload {
		t.Fatalf("before: reload %v, %v; want %v", j.Settings.Reload, err, counter.DefaultReload)
	}
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.Configure("a", func(s *counter.Settings) error { return s.Set("reload=10m") }); err != nil {
			t.Fatal(err)
		}
	})
	time.Sleep(judgedFor + 50*time.Millisecond)
	if j, err := b.HitFacts(Visit{Name: "a", Now: day1}); err != nil || j.Settings.Reload != 10*time.Minute {
		t.Errorf("after: reload %v, %v; want 10m", j.Settings.Reload, err)
	}
}
