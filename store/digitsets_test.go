package store

import (
	"errors"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
)

// TestDigitSets adds, replaces, reads, uses and removes a set, with the
// refusals each step has.
func TestDigitSets(t *testing.T) {
	path := newDB(t, "blog")
	rec := RecordsOf(formatSetV6(t))
	with(t, path, Options{}, func(db *DB) {
		if err := db.AddDigitSet("pixel", rec, day1, false); err != nil {
			t.Fatal(err)
		}
		if err := db.AddDigitSet("pixel", rec, day1, false); !errors.Is(err, ErrDigitSetExists) {
			t.Errorf("adding a name taken: %v, want ErrDigitSetExists", err)
		}
		if err := db.AddDigitSet("pixel", rec, day1.Add(time.Hour), true); err != nil {
			t.Errorf("replacing: %v", err)
		}
		for _, name := range []string{"dark", "led", "a/b"} {
			if err := db.AddDigitSet(name, rec, day1, false); err == nil {
				t.Errorf("digit set %q added, want it refused", name)
			}
		}
		if _, err := db.Configure("blog", func(s *counter.Settings) error { return s.Set("theme=nope") }); !errors.Is(err, counter.ErrNoDigitSet) {
			t.Errorf("theme=nope: %v, want ErrNoDigitSet", err)
		}
		if _, err := db.Configure("blog", func(s *counter.Settings) error { return s.Set("theme=pixel") }); err != nil {
			t.Fatal(err)
		}
		if err := db.RemoveDigitSet("pixel"); !errors.Is(err, ErrDigitSetInUse) {
			t.Errorf("removing a set in use: %v, want ErrDigitSetInUse", err)
		}
		r, err := db.DigitSetRecords("pixel", "17")
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range r.Digits {
			if read := i == 1 || i == 7; read != (d != nil) {
				t.Errorf("digit %d read: %v, want %v", i, d != nil, read)
			}
		}
		if _, err := db.Configure("blog", func(s *counter.Settings) error { return s.Set("theme=") }); err != nil {
			t.Fatal(err)
		}
		if err := db.RemoveDigitSet("pixel"); err != nil {
			t.Errorf("removing a set no counter shows: %v", err)
		}
		if err := db.RemoveDigitSet("pixel"); !errors.Is(err, counter.ErrNoDigitSet) {
			t.Errorf("removing it again: %v, want ErrNoDigitSet", err)
		}
	})
}

// TestCheckFindsADamagedSet damages a stored digit record and a
// counter's theme= setting, and Check says which.
func TestCheckFindsADamagedSet(t *testing.T) {
	needFile(t)
	for _, tc := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
	}{
		{"a digit cut short", func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketDigitSets).Bucket([]byte("pixel"))
			return b.Put(digitSetDigitKey(3), b.Get(digitSetDigitKey(3))[:5])
		}},
		{"a digit missing", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketDigitSets).Bucket([]byte("pixel")).Delete(digitSetDigitKey(9))
		}},
		{"a counter's set gone", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketCounters).Bucket([]byte("blog")).Put(keyTheme, []byte("gone"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newDB(t, "blog")
			with(t, path, Options{}, func(db *DB) {
				if err := db.AddDigitSet("pixel", RecordsOf(formatSetV6(t)), day1, false); err != nil {
					t.Fatal(err)
				}
			})
			if _, err := testCheck(path, time.Second); err != nil {
				t.Fatalf("before the damage: %v", err)
			}
			b, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Update(tc.damage); err != nil {
				t.Fatal(err)
			}
			b.Close()
			if _, err := testCheck(path, time.Second); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Check: %v, want ErrCorrupt", err)
			}
		})
	}
}
