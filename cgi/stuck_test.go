package main

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hitcounter/store"
)

// TestStuckHolder holds the database lock far longer than COUNTER_WAIT,
// as a stuck process would, while hits keep arriving: every hit answers
// within the wait and a margin, with a placeholder image and a logged
// line, so no more hit processes are alive at once than arrive within
// that time. Once the holder lets go, hits count again. The holder is
// either a counter process (both locks) or some other bbolt program (only
// bbolt's lock on the file itself).
//
// The margin is measured, not guessed: the same burst of hits with the
// lock free shows what starting processes costs on this machine now (a
// shared CI machine can make that a second), and a held hit may take the
// wait, twice that, and a little more. A hit that waited for the holder
// would never end: the holder lets go only after every hit has answered.
func TestStuckHolder(t *testing.T) {
	const (
		wait     = 300 * time.Millisecond
		slack    = 500 * time.Millisecond
		hits     = 30
		interval = 50 * time.Millisecond
	)
	holders := []struct {
		name string
		hold func(t *testing.T, db string) (release func())
	}{
		{"a counter process", func(t *testing.T, db string) func() {
			h, err := store.Open(db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return func() { h.Close() }
		}},
		{"another bbolt program", func(t *testing.T, db string) func() {
			f, err := os.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
				t.Fatal(err)
			}
			return func() { f.Close() }
		}},
	}
	extra := []string{"COUNTER_WAIT=" + wait.String()}
	for _, h := range holders {
		t.Run(h.name, func(t *testing.T) {
			db, _ := grownDB(t, t.TempDir())
			before := checkSound(t, db)
			free, _ := burst(t, db, extra, hits, interval, 200)
			release := h.hold(t, db)
			held, peak := burst(t, db, extra, hits, interval, 503)
			release()
			// Twice the free burst's slowest: load can change between the two.
			if limit := wait + 2*free + slack; held > limit {
				t.Errorf("slowest hit answered after %v; the wait is %v and a free hit took %v", held, wait, free)
			}
			if limit := int((wait+2*free+slack)/interval) + 1; peak > limit {
				t.Errorf("%d hit processes alive at once, more than the %d the wait allows", peak, limit)
			}
			if r := hitWith(t, db, extra); r.status != 200 {
				t.Errorf("after the holder let go: status %d, stderr %q", r.status, r.stderr)
			}
			if got := checkSound(t, db); got != before+hits+1 {
				t.Errorf("%d hits, want %d: none while held", got, before+hits+1)
			}
			t.Logf("held by %s: %d hits, slowest answer %v (%v with the lock free), at most %d alive at once",
				h.name, hits, held.Round(time.Millisecond), free.Round(time.Millisecond), peak)
		})
	}
}

// burst starts n hits, one every interval, and returns the slowest answer
// and the most hit processes alive at once. Each must answer with status;
// a 503 must say the database was busy.
func burst(t *testing.T, db string, extra []string, n int, interval time.Duration, status int) (slowest time.Duration, peak int) {
	t.Helper()
	var (
		mu   sync.Mutex
		live int
		wg   sync.WaitGroup
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			live++
			peak = max(peak, live)
			mu.Unlock()
			start := time.Now()
			r := hitWith(t, db, extra)
			took := time.Since(start)
			mu.Lock()
			live--
			slowest = max(slowest, took)
			mu.Unlock()
			if r.status != status || (status == 503 && !strings.Contains(r.stderr, "busy")) {
				t.Errorf("status %d, stderr %q; want %d", r.status, r.stderr, status)
			}
		}()
		time.Sleep(interval)
	}
	wg.Wait()
	return slowest, peak
}
