package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCopyRoundTrip copies a file with counters, a site's pages, history
// and a digit set into an etcd cluster and back into a file: the last
// file holds what the first did, key for key, and a copy never goes over
// a store.
func TestCopyRoundTrip(t *testing.T) {
	needFile(t) // the first store is a file
	_, cluster, opts := etcdStore(t, "copy", 5*time.Second)
	first := filepath.Join(t.TempDir(), "counter.db")
	src := grownSite(t)
	with(t, src, Options{}, func(db *DB) {
		if err := db.Create("plain", 41, day1); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Hit("plain", day1, "example.org"); err != nil {
			t.Fatal(err)
		}
		if err := db.AddDigitSet("pixel", RecordsOf(formatSetV6(t)), day1, false); err != nil {
			t.Fatal(err)
		}
	})
	if err := os.Rename(src, first); err != nil {
		t.Fatal(err)
	}
	want, err := Copy(first, cluster, opts)
	if err != nil {
		t.Fatal(err)
	}
	last := filepath.Join(t.TempDir(), "back.db")
	got, err := Copy(cluster, last, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Counters != want.Counters || got.Hits != want.Hits || got.DigitSets != want.DigitSets || got.Schema != want.Schema || want.Counters != 2 {
		t.Errorf("reports: into the cluster %+v, back %+v", want, got)
	}
	if a, b := dumpFile(t, first), dumpFile(t, last); a != b {
		t.Errorf("the file copied back holds\n%s\nthe first held\n%s", b, a)
	}
	for _, to := range []string{cluster, last} {
		if _, err := Copy(first, to, opts); !errors.Is(err, ErrCopyOverStore) {
			t.Errorf("copy over %s: %v, want ErrCopyOverStore", to, err)
		}
	}
}
