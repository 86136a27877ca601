package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"hitcounter/cgi/testenv"
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

// TestBackupIntoItsFolder runs the manual's backup as written, into a
// folder of www-data's as the install makes /var/backups/counter: as
// www-data and as root by habit, each leaves the backup alone in the
// folder (no .lock beside it), www-data's; into a folder that is root's
// alone, www-data is told where to back up instead.
func TestBackupIntoItsFolder(t *testing.T) {
	in := newInstall(t)
	if _, stderr, code := in.as(t, testenv.UIDWWWData, nil, "", "create", "blog"); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	dir := filepath.Join(in.top, "backups")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, testenv.UIDWWWData, testenv.UIDWWWData); err != nil {
		t.Fatal(err)
	}
	for _, who := range []struct {
		name string
		uid  int
	}{{"www-data", testenv.UIDWWWData}, {"root", 0}, {"www-data again", testenv.UIDWWWData}} {
		out, stderr, code := in.as(t, who.uid, nil, "", "backup", filepath.Join(dir, "counter.db"))
		if code != 0 || !strings.Contains(out, "checked") {
			t.Fatalf("backup as %s: exit %d, %s%s", who.name, code, out, stderr)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if len(names) != 1 || names[0] != "counter.db" {
			t.Errorf("after a backup as %s the folder holds %v, want [counter.db]", who.name, names)
		}
		fi, err := os.Stat(filepath.Join(dir, "counter.db"))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != testenv.UIDWWWData {
			t.Errorf("a backup made as %s is uid %d's, want www-data's", who.name, st.Uid)
		}
	}
	rootOnly := filepath.Join(in.top, "roots")
	if err := os.Mkdir(rootOnly, 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := in.as(t, testenv.UIDWWWData, nil, "", "backup", filepath.Join(rootOnly, "counter.db"))
	if code == 0 || !strings.Contains(stderr, "permission denied") || !strings.Contains(stderr, "/var/backups/counter") {
		t.Errorf("backup as www-data into root's folder: exit %d, %q; want it refused, naming /var/backups/counter", code, stderr)
	}
}
