package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// damagedFile makes a database with counters and hits, then damages it
// with fn and returns its path.
func damagedFile(t *testing.T, fn func(b []byte) []byte) string {
	return damagedFileAt(t, func(b []byte, _ int64) []byte { return fn(b) })
}

// damagedFileAt is damagedFile for damage that needs to know where the
// pages in use end.
func damagedFileAt(t *testing.T, fn func(b []byte, inUse int64) []byte) string {
	t.Helper()
	path := newDB(t, "a", "b")
	with(t, path, Options{}, func(db *DB) {
		for i := range 50 {
			if _, err := db.Hit("a", day1.AddDate(0, 0, i), "host"+itoa(i)+".example"); err != nil {
				t.Fatal(err)
			}
		}
	})
	r, err := testCheck(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(b, r.InUse), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func itoa(i int) string { return string(rune('a'+i%26)) + string(rune('a'+i/26)) }

// garbage overwrites page i of b with random bytes.
func garbage(i int, seed uint64) func([]byte) []byte {
	return func(b []byte) []byte {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		for j := i * 4096; j < (i+1)*4096 && j < len(b); j++ {
			b[j] = byte(r.Uint32())
		}
		return b
	}
}

// TestDamagedFilesAreReportedNeverRepaired opens files that are not, or no
// longer, a good database: every open or hit fails with a clear error (or,
// for damage the hit does not touch, counts), nothing panics, and a failed
// hit leaves the file byte for byte as it was. Check finds the damage.
func TestDamagedFilesAreReportedNeverRepaired(t *testing.T) {
	needFile(t)
	tests := []struct {
		name    string
		damage  func([]byte) []byte
		want    error // from the hit; nil: any of ErrDamaged, ErrCorrupt
		checkOK bool  // Check may pass (damage in a free page)
	}{
		{"empty", func([]byte) []byte { return nil }, ErrMissing, false},
		{"text file", func([]byte) []byte { return []byte("hello, I am not a database\n") }, ErrDamaged, false},
		{"random bytes", func(b []byte) []byte { return garbage(0, 1)(garbage(1, 1)(b)) }, ErrDamaged, false},
		{"cut to one page", func(b []byte) []byte { return b[:4096] }, ErrDamaged, false},
		{"cut to half", nil, ErrDamaged, false},     // half the pages in use
		{"cut by one byte", nil, ErrDamaged, false}, // into the pages in use
		{"metas zeroed", func(b []byte) []byte { clear(b[:8192]); return b }, ErrDamaged, false},
	}
	for i := 2; i < 12; i++ {
		tests = append(tests, struct {
			name    string
			damage  func([]byte) []byte
			want    error
			checkOK bool
		}{"garbage in page " + itoa(i), garbage(i, 7), nil, true})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var path string
			switch {
			case tc.name == "cut to half":
				// Half of the file may be pages bbolt has not used yet.
				path = damagedFileAt(t, func(b []byte, inUse int64) []byte { return b[:inUse/2] })
			case tc.damage == nil:
				path = damagedFileAt(t, func(b []byte, inUse int64) []byte { return b[:inUse-1] })
			default:
				path = damagedFile(t, tc.damage)
			}
			before, _ := os.ReadFile(path)
			_, err := hitOnce(path)
			after, _ := os.ReadFile(path)
			switch {
			case err == nil && tc.want != nil:
				t.Fatalf("hit on a damaged file counted, want %v", tc.want)
			case err != nil && tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("hit: %v, want %v", err, tc.want)
			case err != nil && !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrMissing):
				t.Errorf("hit: %v, want it to say the file is damaged", err)
			}
			if err != nil {
				if !bytes.Equal(before, after) {
					t.Errorf("a failed hit changed the file (%d bytes, was %d)", len(after), len(before))
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error of more than one line: %q", err)
				}
			}
			_, cerr := testCheck(path, time.Second)
			if errors.Is(cerr, ErrTimeout) {
				t.Errorf("the failed hit kept the file locked: %v", cerr)
			}
			if cerr == nil && !tc.checkOK {
				t.Errorf("Check passed a damaged file")
			}
			if err != nil && tc.want == nil && cerr == nil {
				t.Errorf("the hit failed (%v) but Check passed", err)
			}
			t.Logf("hit: %v; check: %v", err, cerr)
			if now, _ := os.ReadFile(path); !bytes.Equal(now, after) {
				t.Errorf("Check changed the file")
			}
		})
	}
}

func hitOnce(path string) (uint64, error) {
	db, err := testOpen(path, Options{Wait: time.Second})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return db.Hit("a", day1, "")
}

func TestCheckReportsAGoodFile(t *testing.T) {
	needFile(t)
	path := newDB(t, "a", "b")
	with(t, path, Options{}, func(db *DB) {
		for range 3 {
			db.Hit("a", day1, "example.org")
		}
	})
	r, err := testCheck(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.Counters != 2 || r.Hits != 3 || r.Schema != schemaVersion || r.Size < r.InUse || r.InUse == 0 {
		t.Errorf("report %+v, want 2 counters, 3 hits, schema %d", r, schemaVersion)
	}
	if _, err := testCheck(filepath.Join(t.TempDir(), "none.db"), time.Second); !errors.Is(err, ErrMissing) {
		t.Errorf("testCheck(missing) = %v, want ErrMissing", err)
	}
}

// TestBackupWhileHitting copies the file while goroutines keep hitting it;
// the copy passes Check and holds a count from between start and end.
func TestBackupWhileHitting(t *testing.T) {
	needFile(t)
	path := newDB(t, "a")
	dst := filepath.Join(t.TempDir(), "backup.db")
	stop := make(chan struct{})
	done := make(chan int)
	for range 2 {
		go func() {
			n := 0
			for {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				if _, err := hitOnce(path); err != nil {
					t.Error(err)
				}
				n++
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	for i := range 5 {
		if _, err := Backup(path, dst, 5*time.Second); err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		r, err := testCheck(dst, time.Second)
		if err != nil {
			t.Fatalf("check of backup %d: %v", i, err)
		}
		if r.Counters != 1 {
			t.Errorf("backup %d: %+v", i, r)
		}
	}
	close(stop)
	hits := <-done + <-done
	r, _ := testCheck(dst, time.Second)
	if r.Hits == 0 || r.Hits > uint64(hits) {
		t.Errorf("backup holds %d hits of %d", r.Hits, hits)
	}
	for _, live := range []string{path, path + ".lock"} {
		if _, err := Backup(path, live, time.Second); !errors.Is(err, ErrBackupOverLive) {
			t.Errorf("Backup over %s = %v, want ErrBackupOverLive", live, err)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(dst), ".*tmp*")); len(tmp) != 0 {
		t.Errorf("left behind %v", tmp)
	}
}

// TestBatcherOnDamagedFile: in a long-lived process (FastCGI) a damaged
// file fails each hit with ErrDamaged instead of killing the batcher's
// goroutine and the process with it, and it does not keep the file
// locked: once the owner copies a good file over it, hits count again.
func TestBatcherOnDamagedFile(t *testing.T) {
	needFile(t)
	path := damagedFileAt(t, func(b []byte, inUse int64) []byte { return b[:inUse/2] })
	good := newDB(t, "a")
	b := testBatcher(path, Options{Wait: time.Second})
	defer b.Close()
	for range 3 {
		if _, err := b.Hit("a", day1, ""); !errors.Is(err, ErrDamaged) {
			t.Fatalf("hit on a damaged file: %v, want ErrDamaged", err)
		}
	}
	// Copied over the damaged one, as cp does: the same inode, whose lock
	// a leftover map of the damaged file would still hold.
	b2, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b2, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Hit("a", day1, ""); err != nil || n != 1 {
		t.Errorf("after the good file is back: %d, %v; want 1", n, err)
	}
}
