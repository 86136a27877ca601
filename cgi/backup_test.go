package main

import (
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBackupWhileHitsGoOn runs backup again and again while hit processes
// keep counting: every hit is answered 200, every copy passes check and
// holds no more hits than were answered by the time it was made.
func TestBackupWhileHitsGoOn(t *testing.T) {
	db, _ := grownDB(t, t.TempDir())
	base := checkSound(t, db)
	backup := filepath.Join(t.TempDir(), "backup.db")
	var (
		stop    atomic.Bool
		counted atomic.Uint64
		wg      sync.WaitGroup
	)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				// A generous wait: this is about the copy, not latency.
				if r := hitWith(t, db, []string{"COUNTER_WAIT=10s"}); r.status != 200 {
					t.Errorf("hit during a backup: status %d, stderr %q", r.status, r.stderr)
					return
				}
				counted.Add(1)
			}
		}()
	}
	for i := range 4 {
		out, code := adminStdin(t, db, "", "backup", backup)
		if code != 0 || !strings.Contains(out, "checked") {
			t.Fatalf("backup %d: exit %d, %q", i, code, out)
		}
		got := checkSound(t, backup)
		if done := base + counted.Load(); got < base || got > done+2 {
			t.Errorf("backup %d holds %d hits; %d were answered by then", i, got, done)
		}
	}
	stop.Store(true)
	wg.Wait()
	if got := checkSound(t, db); got != base+counted.Load() {
		t.Errorf("live file: %d hits, want %d", got, base+counted.Load())
	}
	for _, live := range []string{db, db + ".lock"} {
		if out, code := adminStdin(t, db, "", "backup", live); code != 1 || !strings.Contains(out, "overwrite the live database") {
			t.Errorf("backup over %s: exit %d, %q; want it refused", live, code, out)
		}
	}
	if got := checkSound(t, db); got != base+counted.Load() {
		t.Errorf("after refused backups: %d hits, want %d", got, base+counted.Load())
	}
	t.Logf("%d hits answered during 4 backups", counted.Load())
}
