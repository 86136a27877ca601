package store

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// formatFileV5 is a database written by the code of schema version 5: a
// site whose first day had more pages than a day keeps (KeptPagesADay),
// folded and trimmed by the hits of the two days after; a plain counter
// with a password, settings, referrers and hits of every kind; the owner
// key; and a day of costs. formatDumpFileV5 is its listing (dumpFile),
// written with it.
const (
	formatFileV5     = "../testdata/format/counter-v5.db"
	formatDumpFileV5 = "../testdata/format/counter-v5.dump"
)

// formatPasswordV5 is the password whose hash the plain counter holds.
const formatPasswordV5 = "version 5 password"

// formatV5Pages is the number of pages on the v5 file's first day.
const formatV5Pages = KeptPagesADay + 5

// writeV5 writes formatFileV5 through the store, as the counter does, when
// TestFormat is run with -write-format under schema version 5. It was run
// once; the files are committed and must never be written again.
// Not shared with the other versions' writers: it records what version 5 wrote.
func writeV5(t *testing.T) {
	if schemaVersion != 5 {
		t.Fatalf("schema version %d: the v5 file is the version 5 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV5)
	defer os.Remove(LockPath(formatFileV5))
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	view := func(page string, at time.Time, visitor bool) Visit {
		return Visit{Name: "blog", Now: at, RefHost: "blog.example", Target: page,
			Outcome: counter.Outcome{Kind: counter.View, NewVisitor: visitor, PageVisitor: visitor}}
	}
	hash, err := counter.HashPassword([]byte(formatPasswordV5))
	if err != nil {
		t.Fatal(err)
	}
	with(t, formatFileV5, Options{Create: true}, func(db *DB) {
		if err := db.CreateWith("blog", 0, day, site); err != nil {
			t.Fatal(err)
		}
		if err := db.Create("home", 10, day); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Configure("home", func(s *counter.Settings) error {
			return errors.Join(s.Set("show=visitors"), s.Set("reload=10m"), s.Set("ignore=192.0.2.0/24"), s.Set("referrers=example.org"))
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.SetPasswordHash("home", hash); err != nil {
			t.Fatal(err)
		}
		if _, err := db.OwnerKey(); err != nil {
			t.Fatal(err)
		}
		var visits []Visit
		for i := range formatV5Pages {
			at := day.Add(time.Duration(i) * time.Minute)
			visits = append(visits, view(fmt.Sprintf("/p%03d", i), at, true))
			if i < KeptPagesADay {
				visits = append(visits, view(fmt.Sprintf("/p%03d", i), at.Add(time.Second), false))
			}
		}
		visits = append(visits, view("/p000", day.AddDate(0, 0, 1), true), view("/p201", day.AddDate(0, 0, 1).Add(time.Hour), true))
		for i, k := range append([]counter.Kind{counter.View, counter.View, counter.GitHub}, counter.NotCountedKinds[:]...) {
			visits = append(visits, Visit{Name: "home", Now: day.Add(time.Duration(i) * time.Hour), RefHost: "example.org",
				Outcome: counter.Outcome{Kind: k, NewVisitor: i == 0}})
		}
		if _, err := db.VisitAll(visits); err != nil {
			t.Fatal(err)
		}
		// The first hit of the third day folds the second and trims the first.
		if _, err := db.Visit(view("/p001", day.AddDate(0, 0, 2), true)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.FoldCosts([]meter.Day{costDay("2026-12-03", 420, time.Millisecond, 4*time.Millisecond)}, day.AddDate(0, 0, 2)); err != nil {
			t.Fatal(err)
		}
	})
	writeDump(t, formatFileV5, formatDumpFileV5)
}

// checkFormatV5 reads the committed version 5 file through the store
// (TestFormat has checked its bytes).
func checkFormatV5(t *testing.T, db *DB) {
	wantList := "blog views=408 visitors=208 pages=205 protected=false show=views reload=30m ignore= hosts=blog.example max-pages=10000 keep-query= image=page public-pages=off theme=\n" +
		"home views=13 visitors=1 pages=0 protected=true show=visitors reload=10m ignore=192.0.2.0/24 referrers=example.org theme="
	if got := listLines(t, db); got != wantList {
		t.Errorf("List:\n%s\nwant:\n%s", got, wantList)
	}
	h, err := db.History("home", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _, err := counter.VerifyPassword(h.PasswordHash, []byte(formatPasswordV5)); !ok || err != nil {
		t.Errorf("the stored hash does not take the v5 password: %v", err)
	}
	pages, err := db.Pages("blog", time.Time{})
	if err != nil || len(pages) != formatV5Pages {
		t.Fatalf("%d pages, %v; want %d", len(pages), err, formatV5Pages)
	}
}
