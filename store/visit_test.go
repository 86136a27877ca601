package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

func TestVisitTalliesEachKind(t *testing.T) {
	path := newDB(t, "a")
	day := day1.Add(time.Hour) // 2026-03-02
	outcomes := []struct {
		o     counter.Outcome
		shown uint64 // views after the hit
	}{
		{counter.Outcome{Kind: counter.View, NewVisitor: true}, 1},
		{counter.Outcome{Kind: counter.View}, 2},
		{counter.Outcome{Kind: counter.GitHub}, 3},
		{counter.Outcome{Kind: counter.Reload}, 3},
		{counter.Outcome{Kind: counter.Reload}, 3},
		{counter.Outcome{Kind: counter.Bot}, 3},
		{counter.Outcome{Kind: counter.Prefetch}, 3},
		{counter.Outcome{Kind: counter.Owner}, 3},
		{counter.Outcome{Kind: counter.Foreign}, 3},
		{counter.Outcome{Kind: counter.Ignored}, 3},
		{counter.Outcome{Kind: counter.View, NewVisitor: true}, 4},
	}
	with(t, path, Options{}, func(db *DB) {
		for i, c := range outcomes {
			got, err := db.Visit(Visit{Name: "a", Now: day, RefHost: "example.org", Outcome: c.o})
			if err != nil || got.Shown != c.shown || got.Outcome != c.o {
				t.Errorf("hit %d (%v): %+v, %v; want shown %d", i, c.o.Kind, got, err, c.shown)
			}
		}
	})
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		h, err := db.History("a", day1)
		if err != nil {
			t.Fatal(err)
		}
		want := counter.Tally{Views: 4, Visitors: 2, GitHub: 1}
		want.NotCounted[counter.Reload] = 2
		for _, k := range []counter.Kind{counter.Bot, counter.Prefetch, counter.Owner, counter.Foreign, counter.Ignored} {
			want.NotCounted[k] = 1
		}
		if len(h.Days) != 1 || h.Days[0].Date != "2026-03-02" || h.Days[0].Tally != want {
			t.Errorf("days %+v; want one day 2026-03-02 %+v", h.Days, want)
		}
		if h.Count != 4 || h.Visitors != 2 {
			t.Errorf("views %d visitors %d; want 4 and 2", h.Count, h.Visitors)
		}
		// Only counted hits name their referrer.
		if len(h.Referrers) != 1 || h.Referrers[0].Hits != 4 {
			t.Errorf("referrers %+v; want example.org 4", h.Referrers)
		}
	})
}

func TestVisitShowsWhatTheSettingsSay(t *testing.T) {
	path := newDB(t, "a")
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.Configure("a", func(s *counter.Settings) error { return s.Set("show=visitors") }); err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			o    counter.Outcome
			want uint64
		}{
			{counter.Outcome{Kind: counter.View, NewVisitor: true}, 1},
			{counter.Outcome{Kind: counter.View}, 1},
			{counter.Outcome{Kind: counter.GitHub}, 1},
			{counter.Outcome{Kind: counter.View, NewVisitor: true}, 2},
		}
		for i, s := range steps {
			got, err := db.Visit(Visit{Name: "a", Now: day1, Outcome: s.o})
			if err != nil || got.Shown != s.want {
				t.Errorf("hit %d: shown %d, %v; want %d", i, got.Shown, err, s.want)
			}
		}
	})
}

func TestJudgingReadsSettingsAndOwnerKey(t *testing.T) {
	path := newDB(t, "a")
	with(t, path, Options{}, func(db *DB) {
		judging := func() (counter.Settings, []byte) {
			t.Helper()
			j, err := db.HitFacts(Visit{Name: "a", Now: day1})
			if err != nil {
				t.Fatal(err)
			}
			return j.Settings, j.OwnerKey
		}
		if _, err := db.HitFacts(Visit{Name: "nope", Now: day1}); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("no such counter: got %v, want counter.ErrNotFound", err)
		}
		seen, seenKey := judging()
		if seen.Reload != counter.DefaultReload || seenKey != nil {
			t.Errorf("new counter: settings %+v, key %x; want the defaults and no key", seen, seenKey)
		}
		key, err := db.OwnerKey()
		if err != nil || len(key) != 32 {
			t.Fatalf("owner key %x, %v", key, err)
		}
		again, _ := db.OwnerKey()
		if string(again) != string(key) {
			t.Errorf("OwnerKey made a second key")
		}
		if _, err := db.Configure("a", func(s *counter.Settings) error {
			return errors.Join(s.Set("reload=10m"), s.Set("ignore=192.0.2.0/24"), s.Set("referrers=example.org,*.example.net"))
		}); err != nil {
			t.Fatal(err)
		}
		seen, seenKey = judging()
		if got := fmt.Sprint(seen.Format()); got != "[show=views reload=10m ignore=192.0.2.0/24 referrers=example.org,*.example.net theme=]" || string(seenKey) != string(key) {
			t.Errorf("settings %s, key %x", got, seenKey)
		}
	})
}

// A version 1 file is migrated by the first write of this version, in
// that write's own transaction: its counts stay, reads before it need no
// migration, and a second write does not migrate again.
func TestMigrateV1(t *testing.T) {
	path := copyOf(t, formatFileV1)
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		if v := versionOf(t, db); v != 1 {
			t.Fatalf("version %d before any write", v)
		}
		info, err := db.Counter("home")
		if err != nil || info.Count != 6 || info.Settings.Reload != counter.DefaultReload {
			t.Errorf("v1 read: %+v, %v", info, err)
		}
	})
	before := time.Now().Truncate(time.Second)
	with(t, path, Options{}, func(db *DB) {
		c, err := db.Visit(Visit{Name: "home", Now: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC),
			Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}})
		if err != nil || c.Shown != 7 {
			t.Fatalf("first hit after the upgrade: %+v, %v; want 7", c, err)
		}
		if v := versionOf(t, db); v != schemaVersion {
			t.Errorf("version %d after the first write; want %d", v, schemaVersion)
		}
	})
	var since time.Time
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		h, err := db.History("home", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		since = h.TalliedSince
		if since.Before(before) || since.After(time.Now()) {
			t.Errorf("tallied since %v; want the time of the migration", since)
		}
		want := []counter.Day{views("2026-11-28", 3), views("2026-11-29", 2), views("2026-12-01", 1),
			{Date: "2026-12-02", Tally: counter.Tally{Views: 1, Visitors: 1}}}
		if fmt.Sprint(h.Days) != fmt.Sprint(want) || h.Visitors != 1 || !h.Protected() {
			t.Errorf("after migration: days %v visitors %d protected %v; want %v, 1, true", h.Days, h.Visitors, h.Protected(), want)
		}
		blog, err := db.Counter("blog")
		if err != nil || blog.Count != 1002 {
			t.Errorf("blog: %+v, %v", blog, err)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check after migration: %v", err)
	}
	time.Sleep(1100 * time.Millisecond) // a second migration would record a later time
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.Hit("blog", time.Now(), ""); err != nil {
			t.Fatal(err)
		}
		h, _ := db.History("blog", time.Time{})
		if !h.TalliedSince.Equal(since) {
			t.Errorf("tallied since moved from %v to %v: migrated twice", since, h.TalliedSince)
		}
	})
}

// A file of a later schema is refused, read or written, and left alone.
func TestNewerSchemaRefused(t *testing.T) {
	path := newDB(t, "a")
	with(t, path, Options{}, func(db *DB) {
		err := db.update(func(tx kv.Tx) error {
			return tx.Bucket(bucketMeta).Put(keyVersion, binary.BigEndian.AppendUint32(nil, schemaVersion+1))
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Hit("a", day1, ""); !errors.Is(err, ErrNewerSchema) {
			t.Errorf("hit on a newer file: %v; want ErrNewerSchema", err)
		}
		if _, err := db.Counter("a"); !errors.Is(err, ErrNewerSchema) {
			t.Errorf("read of a newer file: %v; want ErrNewerSchema", err)
		}
		if v := versionOf(t, db); v != schemaVersion+1 {
			t.Errorf("version now %d", v)
		}
	})
}

func versionOf(t *testing.T, db *DB) uint32 {
	t.Helper()
	var v uint32
	err := db.view(func(tx kv.Tx) error {
		v = binary.BigEndian.Uint32(tx.Bucket(bucketMeta).Get(keyVersion))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestTallyRecordsReadShortAndRefuseOdd(t *testing.T) {
	var t1 counter.Tally
	t1.Visitors, t1.GitHub = 5, 2
	t1.NotCounted[counter.Ignored] = 9
	var got counter.Tally
	if err := decodeTally(encodeTally(t1), &got); err != nil || got != t1 {
		t.Errorf("round trip: %+v, %v; want %+v", got, err, t1)
	}
	// A record of fewer columns (an older writer) reads the rest as zero;
	// one of more (a newer one's extra columns at the end) keeps ours.
	got = counter.Tally{}
	if err := decodeTally(encodeTally(t1)[:16], &got); err != nil || got.Visitors != 5 || got.GitHub != 2 || got.NotCounted[counter.Ignored] != 0 {
		t.Errorf("short record: %+v, %v", got, err)
	}
	got = counter.Tally{}
	if err := decodeTally(append(encodeTally(t1), make([]byte, 8)...), &got); err != nil || got != t1 {
		t.Errorf("long record: %+v, %v", got, err)
	}
	for _, n := range []int{0, 7, 9} {
		if err := decodeTally(make([]byte, n), &got); !errors.Is(err, ErrCorrupt) {
			t.Errorf("record of %d bytes: %v; want ErrCorrupt", n, err)
		}
	}
}
