package store

import (
	"fmt"
	"os"
	"testing"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// formatFileV4 is a database written by the code of schema version 4: a
// site whose first day has 205 pages, more than a day keeps since version
// 5, a second day, and a day of costs. formatDumpFileV4 is every bucket and
// key of it as dumpFile lists them, written with it: too long to paste.
const (
	formatFileV4     = "../testdata/format/counter-v4.db"
	formatDumpFileV4 = "../testdata/format/counter-v4.dump"
)

// formatV4Pages is the number of pages on the v4 file's first day: the
// first 200 have two views that day, the last 5 one.
const formatV4Pages = 205

// writeV4 writes formatFileV4 through the store, as the counter does, when
// TestFormat is run with -write-format under schema version 4. It was run once, with schema
// version 4; the files are committed and must never be written again.
// Not shared with the other versions' writers: it records what version 4 wrote.
func writeV4(t *testing.T) {
	if schemaVersion != 4 {
		t.Fatalf("schema version %d: the v4 file is the version 4 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV4)
	defer os.Remove(LockPath(formatFileV4))
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	view := func(page string, at time.Time, visitor bool) Visit {
		return Visit{Name: "blog", Now: at, RefHost: "blog.example", Target: page,
			Outcome: counter.Outcome{Kind: counter.View, NewVisitor: visitor, PageVisitor: visitor}}
	}
	with(t, formatFileV4, Options{Create: true}, func(db *DB) {
		if err := db.CreateWith("blog", 0, day, site); err != nil {
			t.Fatal(err)
		}
		var visits []Visit
		for i := range formatV4Pages {
			at := day.Add(time.Duration(i) * time.Minute)
			visits = append(visits, view(fmt.Sprintf("/p%03d", i), at, true))
			if i < 200 {
				visits = append(visits, view(fmt.Sprintf("/p%03d", i), at.Add(time.Second), false))
			}
		}
		visits = append(visits, view("/p000", day.AddDate(0, 0, 1), true), view("/p201", day.AddDate(0, 0, 1).Add(time.Hour), true))
		if _, err := db.VisitAll(visits); err != nil {
			t.Fatal(err)
		}
		if _, err := db.FoldCosts([]meter.Day{costDay("2026-12-03", 407, time.Millisecond, 4*time.Millisecond)}, day.AddDate(0, 0, 1)); err != nil {
			t.Fatal(err)
		}
	})
	writeDump(t, formatFileV4, formatDumpFileV4)
}

// checkFormatV4 reads the committed version 4 file through the store
// (TestFormat has checked its bytes).
func checkFormatV4(t *testing.T, db *DB) {
	pages, err := db.Pages("blog", time.Time{})
	if err != nil || len(pages) != formatV4Pages {
		t.Fatalf("%d pages, %v; want %d", len(pages), err, formatV4Pages)
	}
	for _, p := range pages {
		want := uint64(2)
		switch p.Page {
		case "/p000":
			want = 3
		case "/p201":
			want = 2
		case "/p200", "/p202", "/p203", "/p204":
			want = 1
		}
		if p.Views != want {
			t.Errorf("%s: %d views, want %d", p.Page, p.Views, want)
		}
	}
}
