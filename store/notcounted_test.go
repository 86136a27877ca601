package store

import (
	"path/filepath"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// scanNotCounted is the hits not counted of every tally row of counter
// name and its today rows, read the long way, and whether it has a
// not-counted record.
func scanNotCounted(t *testing.T, db *DB, name string) (n notCounted, record bool) {
	t.Helper()
	err := db.view(func(tx kv.Tx) error {
		b := tx.Bucket(bucketCounters).Bucket([]byte(name))
		record = b.Get(keyNotCounted) != nil
		var err error
		if n, err = sumTally(b); err != nil {
			return err
		}
		today, err := loadToday(tx, name)
		n.addTally(today.counts)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, record
}

// TestNotCountedRecord: whatever writes a counter's tally (hits over
// days, whose rows the next day's first write folds; a hit dated in the
// past; an import; token metrics' settle), Metrics gives the sums of
// every row, as a scan of the whole tally does, and a fold or a settle
// leaves a record, so that it reads one key.
func TestNotCountedRecord(t *testing.T) {
	db, err := testOpen(filepath.Join(t.TempDir(), "c.db"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	day0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := db.Create("blog", 0, day0.AddDate(0, 0, -30)); err != nil {
		t.Fatal(err)
	}
	hit := func(at time.Time, k counter.Kind) {
		t.Helper()
		if _, err := db.Visit(Visit{Name: "blog", Now: at, Outcome: counter.Outcome{Kind: k}}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, wantRecord bool) {
		t.Helper()
		m, err := db.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		want, record := scanNotCounted(t, db, "blog")
		if got := notCounted(m.Counters[0].NotCounted); got != want {
			t.Errorf("%s: Metrics gives %v, the scan %v", step, got, want)
		}
		if record != wantRecord {
			t.Errorf("%s: a record: %v, want %v", step, record, wantRecord)
		}
	}
	check("no hit", false)
	for d := range 5 {
		at := day0.AddDate(0, 0, d)
		hit(at, counter.Bot)
		hit(at, counter.Reload)
		hit(at, counter.View)
		check("day "+at.Format(time.DateOnly), d > 0) // the first fold makes it
	}
	hit(day0.AddDate(0, 0, -10), counter.Prefetch)
	check("a hit dated in the past", true)
	_, err = db.Import([]counter.Imported{{Name: "blog", Days: []counter.Day{
		{Date: "2026-02-20", Tally: counter.Tally{NotCounted: [8]uint64{counter.Bot: 7}}},
	}}}, ImportOptions{Now: day0.AddDate(0, 0, 5)})
	if err != nil {
		t.Fatal(err)
	}
	check("an import", false)
	hit(day0.AddDate(0, 0, 5), counter.Owner)
	check("a hit after it", false) // today's row, not folded yet
	if err := db.SettleNotCounted(); err != nil {
		t.Fatal(err)
	}
	check("settled", true)
	hit(day0.AddDate(0, 0, 6), counter.Foreign) // folds the day before into the record
	check("the next day", true)
}
