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
func TestStuckHolder(t *testing.T) {
	const (
		wait     = 300 * time.Millisecond
		margin   = 700 * time.Millisecond
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
	for _, h := range holders {
		t.Run(h.name, func(t *testing.T) {
			db, _ := grownDB(t, t.TempDir())
			before := checkSound(t, db)
			release := h.hold(t, db)
			var (
				mu         sync.Mutex
				live, peak int
				slowest    time.Duration
				wg         sync.WaitGroup
				extra      = []string{"COUNTER_WAIT=" + wait.String()}
			)
			for range hits {
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
					if r.status != 503 || !strings.Contains(r.stderr, "busy") {
						t.Errorf("status %d, stderr %q; want 503 and a line saying the database was busy", r.status, r.stderr)
					}
				}()
				time.Sleep(interval)
			}
			wg.Wait()
			release()
			if slowest > wait+margin {
				t.Errorf("slowest hit answered after %v; the wait is %v", slowest, wait)
			}
			if limit := int((wait+margin)/interval) + 1; peak > limit {
				t.Errorf("%d hit processes alive at once, more than the %d the wait allows", peak, limit)
			}
			if r := hitWith(t, db, extra); r.status != 200 {
				t.Errorf("after the holder let go: status %d, stderr %q", r.status, r.stderr)
			}
			if got := checkSound(t, db); got != before+1 {
				t.Errorf("%d hits, want %d: only the hit after the holder counts", got, before+1)
			}
			t.Logf("held by %s: %d hits, slowest answer %v, at most %d alive at once", h.name, hits, slowest.Round(time.Millisecond), peak)
		})
	}
}
