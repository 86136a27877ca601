package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestMaxSize(t *testing.T) {
	needFile(t)
	tests := []struct {
		name    string
		in, out int
	}{
		{"unset", 0, DefaultMaxSize},
		{"negative", -1, DefaultMaxSize},
		{"too small", 1, SmallestMaxSize},
		{"smallest", SmallestMaxSize, SmallestMaxSize},
		{"a MiB", 1 << 20, 1 << 20},
		{"largest", LargestMaxSize, LargestMaxSize},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := maxSize(tc.in); got != tc.out {
				t.Errorf("maxSize(%d) = %d, want %d", tc.in, got, tc.out)
			}
		})
	}
	// What bbolt can map on 32-bit ARM: 1 GiB, and never more.
	if want := 1 << 30; strconv.IntSize == 32 && LargestMaxSize != want {
		t.Errorf("LargestMaxSize = %d on a 32-bit platform, want %d", LargestMaxSize, want)
	}
}

// fillName is the name of the ith counter made to fill a file.
func fillName(i int) string { return fmt.Sprintf("%05d%s", i, strings.Repeat("x", 59)) }

// fill makes counters in the file at path until it reaches max, and returns
// how many it made.
func fill(tb testing.TB, path string, max int) int {
	tb.Helper()
	for i := 0; i < 100000; i++ {
		db, err := testOpen(path, Options{MaxSize: max})
		if err != nil {
			tb.Fatal(err)
		}
		err = db.Create(fillName(i), 0, day1)
		db.Close()
		if errors.Is(err, ErrFull) {
			return i
		}
		if err != nil {
			tb.Fatalf("create %d: %v", i, err)
		}
	}
	tb.Fatalf("the file never reached %d bytes", max)
	return 0
}

// TestFullFileRefusesGrowthOnly fills a file to a small maximum: the write
// that would grow it fails with ErrFull and leaves nothing behind, the file
// stays within the maximum and consistent, and counts can still be read.
// deploy/test/arm_test.go runs it on 32-bit ARM too.
func TestFullFileRefusesGrowthOnly(t *testing.T) {
	needFile(t)
	const max = SmallestMaxSize
	path := newDB(t)
	made := fill(t, path, max)
	if made < 10 {
		t.Fatalf("only %d counters fit in %d bytes", made, max)
	}
	// A counter's first hit adds its day and referrer: it needs room.
	hits, failed := 0, -1
	for i := 0; i < made && failed < 0; i++ {
		with(t, path, Options{MaxSize: max}, func(db *DB) {
			_, err := db.Hit(fillName(i), day1, "example.org")
			switch {
			case errors.Is(err, ErrFull):
				failed = i
			case err != nil:
				t.Fatalf("hit %d: %v, want nil or ErrFull", i, err)
			default:
				hits++
			}
		})
	}
	if failed < 0 {
		t.Fatalf("all %d first hits fitted in a full file", made)
	}
	t.Logf("%d counters filled %d bytes; then %d first hits fitted and the next failed", made, max, hits)
	if fi, err := os.Stat(path); err != nil || fi.Size() > max {
		t.Errorf("file of %v bytes (%v), want at most %d", fi.Size(), err, max)
	}
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		info, err := db.Counter(fillName(failed))
		if err != nil || info.Count != 0 {
			t.Errorf("the counter whose hit failed: %+v, %v; want count 0", info, err)
		}
		if days, _ := db.Days(fillName(failed), day1); len(days) != 0 {
			t.Errorf("the failed hit left days %v", days)
		}
		list, err := db.List()
		if err != nil || len(list) != made {
			t.Errorf("List: %d counters, %v; want %d", len(list), err, made)
		}
	})
	b, err := bolt.Open(path, fileMode, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt check: %v", err)
		}
		return nil
	})
}
