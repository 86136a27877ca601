package store

import (
	"testing"
	"time"
)

// TestOverviewSizeAndBackup reads the overview on the test's engine: its
// counters, a size that is the store's (a file's or a cluster member's),
// and the last backup noted in the store.
func TestOverviewSizeAndBackup(t *testing.T) {
	path := newDB(t, "a", "b")
	at := day1.Add(time.Hour)
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.Hit("a", at, "example.org"); err != nil {
			t.Fatal(err)
		}
		if err := db.RecordBackup(at); err != nil {
			t.Fatal(err)
		}
	})
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		o, err := db.Overview(at, 7, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Counters) != 2 || o.Size <= 0 || !o.LastBackup.Equal(at.Truncate(time.Second)) {
			t.Errorf("overview: %d counters, size %d, last backup %v; want 2, > 0, %v", len(o.Counters), o.Size, o.LastBackup, at)
		}
	})
}
